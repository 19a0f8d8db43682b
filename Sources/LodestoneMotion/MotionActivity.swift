/// What the carrier of the board is doing, like Core Motion's `CMMotionActivity`: one activity at a time, with a
/// confidence and the time it started.
public struct MotionActivity: Sendable, Hashable, Codable {
    /// The activities told apart. Stairs count as walking and a lift ride as stationary (as Core Motion
    /// reports them).
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Not moving on one's own: standing, sitting, lying, riding a lift, the board on a table.
        case stationary
        /// Walking, on the level or on stairs.
        case walk
        /// Running.
        case run
        /// Riding a bicycle.
        case cycle
        /// In a road vehicle (car, bus), moving or waiting in traffic.
        case drive
        /// Not enough data yet, or none of the above is likely.
        case unknown

        /// The five activities a model scores, in the model's output order (`unknown` is not one).
        public static let modelled: [Kind] = [.stationary, .walk, .run, .cycle, .drive]
    }

    /// How sure the classifier is, like `CMMotionActivityConfidence`.
    public enum Confidence: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        case low, medium, high

        /// Ordered low < medium < high.
        public static func < (a: Confidence, b: Confidence) -> Bool { a.rank < b.rank }

        private var rank: Int {
            switch self {
            case .low: 0
            case .medium: 1
            case .high: 2
            }
        }
    }

    /// The activity.
    public var kind: Kind
    /// How sure.
    public var confidence: Confidence
    /// When this activity started (the first moment the evidence for it began), s on the samples' clock.
    public var startTimeS: Double

    /// An activity; see each property.
    public init(kind: Kind, confidence: Confidence, startTimeS: Double) {
        self.kind = kind; self.confidence = confidence; self.startTimeS = startTimeS
    }

    /// True for walking and running (the carrier is on foot and takes steps).
    public var isOnFoot: Bool { kind == .walk || kind == .run }
}
