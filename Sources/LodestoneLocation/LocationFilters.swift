/// The location filters apps write by hand around Core Location: drop locations that are too inaccurate,
/// too old, imply an impossible speed, or are too close to the last one delivered (`distanceFilter`).
///
/// Parameters + State (STYLE.md habit 6): `admit(_:nowS:)` says what it decided and why; the state is the
/// last admitted location. Allocation-free.
public struct LocationFilter: Sendable {
    /// What to let through; each test is off when its value is `nil` (the default).
    public struct Parameters: Sendable, Hashable, Codable {
        /// Reject locations whose `horizontalAccuracyM` is larger, m (like `desiredAccuracy`). E.g. 50.
        public var maximumHorizontalAccuracyM: Double?
        /// Reject locations older than this at the time of asking, s. E.g. 10.
        public var maximumAgeS: Double?
        /// Reject a location that would mean moving faster than this since the last admitted one, m/s, after
        /// allowing for both accuracies (the distance is reduced by both radii). E.g. 70 (250 km/h).
        public var maximumSpeedMps: Double?
        /// Reject locations closer than this to the last admitted one, m (`distanceFilter`). E.g. 5.
        public var minimumDistanceM: Double?
        /// After this many impossible-speed rejections in a row, admit the next location anyway: the last
        /// admitted one was the outlier (default 5).
        public var maximumConsecutiveSpeedRejections: Int

        public init(
            maximumHorizontalAccuracyM: Double? = nil, maximumAgeS: Double? = nil, maximumSpeedMps: Double? = nil,
            minimumDistanceM: Double? = nil, maximumConsecutiveSpeedRejections: Int = 5
        ) {
            self.maximumHorizontalAccuracyM = maximumHorizontalAccuracyM
            self.maximumAgeS = maximumAgeS
            self.maximumSpeedMps = maximumSpeedMps
            self.minimumDistanceM = minimumDistanceM
            self.maximumConsecutiveSpeedRejections = maximumConsecutiveSpeedRejections
        }
    }

    /// Why a location was not admitted.
    public enum Rejection: String, Sendable, Hashable, Codable {
        /// Its coordinate is invalid or its accuracy is not a finite non-negative number.
        case invalid
        /// Older than `maximumAgeS`.
        case stale
        /// `horizontalAccuracyM` above `maximumHorizontalAccuracyM`.
        case inaccurate
        /// Earlier than the last admitted location.
        case outOfOrder
        /// Would need a speed above `maximumSpeedMps`.
        case impossibleSpeed
        /// Within `minimumDistanceM` of the last admitted location.
        case tooClose
    }

    /// Everything `admit` mutates.
    public struct State: Sendable, Hashable, Codable {
        /// The last admitted location.
        public var lastAdmitted: Location?
        /// Impossible-speed rejections since the last admitted location.
        public var consecutiveSpeedRejections: Int
    }

    /// What to let through.
    public let parameters: Parameters
    /// The last admitted location and the rejection streak.
    public private(set) var state = State(lastAdmitted: nil, consecutiveSpeedRejections: 0)

    /// A filter with `parameters` and no location admitted yet.
    public init(parameters: Parameters) { self.parameters = parameters }

    /// Decides whether to pass `location` on; `nowS` is the current time on the same clock as
    /// `location.timeS` (default: the location's own time, i.e. no age test). Returns `nil` when admitted.
    public mutating func admit(_ location: Location, nowS: Double? = nil) -> Rejection? {
        let p = parameters
        guard location.coordinate.isValid, location.horizontalAccuracyM.isFinite, location.horizontalAccuracyM >= 0,
            location.timeS.isFinite
        else { return .invalid }
        if let maximumAge = p.maximumAgeS, let now = nowS, now - location.timeS > maximumAge { return .stale }
        if let limit = p.maximumHorizontalAccuracyM, location.horizontalAccuracyM > limit { return .inaccurate }
        if let last = state.lastAdmitted {
            if location.timeS < last.timeS { return .outOfOrder }
            let distance = location.distanceM(from: last) ?? 0
            if let maximumSpeed = p.maximumSpeedMps {
                let dt = location.timeS - last.timeS
                let unexplained = distance - location.horizontalAccuracyM - last.horizontalAccuracyM
                if unexplained > maximumSpeed * dt {
                    state.consecutiveSpeedRejections += 1
                    if state.consecutiveSpeedRejections <= p.maximumConsecutiveSpeedRejections { return .impossibleSpeed }
                    // Too many in a row: the reference was wrong; start again from this one.
                    state.lastAdmitted = location
                    state.consecutiveSpeedRejections = 0
                    return nil
                }
            }
            if let minimum = p.minimumDistanceM, distance < minimum { return .tooClose }
        }
        state.lastAdmitted = location
        state.consecutiveSpeedRejections = 0
        return nil
    }
}
