/// Release information.
public enum Lodestone {
    /// The release version.
    public static let version = "0.1.0"
}
