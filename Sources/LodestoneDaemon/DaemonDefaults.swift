/// Where `lodestone serve` listens and keeps its state unless told otherwise.
public enum DaemonDefaults {
    /// The native protocol's Unix socket (systemd's `RuntimeDirectory=lodestone`).
    public static let socketPath = "/run/lodestone/lodestone.sock"
    /// gpsd's port on loopback, IPv4 and IPv6, as gpsd itself listens.
    public static let gpsdListen = ["127.0.0.1:2947", "[::1]:2947"]
    /// Persistent state (systemd's `StateDirectory=lodestone`).
    public static let stateDirectory = "/var/lib/lodestone"
    /// The authorization policy.
    public static let policyPath = "/etc/lodestone/policy.toml"
    /// The fleet link's settings (`lodestone serve --mqtt`, docs/fleet.md); when present, the link is on.
    public static let mqttConfigPath = "/etc/lodestone/mqtt.toml"
    /// The group whose members may read motion, heading, activity and altitude by default.
    public static let group = "lodestone"
}
