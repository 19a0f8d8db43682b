import LodestoneLocation

/// Significant location changes (Core Location's significant-change service): an event when the carrier is at least
/// `minimumDistanceM` (500 m) from the location of the last event, at most one every `minimumIntervalS` (5 minutes) of
/// session time. The first usable location is an event (the service starts by telling where the carrier is).
///
/// A move that happens within the 5 minutes after an event is not lost: it is reported by the first location after the
/// interval that is still 500 m or more away. Locations less accurate than `maximumAccuracyM` are ignored, so that
/// one poor fix cannot fake a move. Allocates nothing.
public struct SignificantChangeDetector: Sendable {
    /// Tunables.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The distance from the last event's location that makes a change, m (default 500).
        public var minimumDistanceM: Double
        /// The shortest time between two events, s (default 300).
        public var minimumIntervalS: Double
        /// Locations with a larger `horizontalAccuracyM` are ignored, m (default 200).
        public var maximumAccuracyM: Double

        /// Parameters; defaults in parentheses.
        public init(minimumDistanceM: Double = 500, minimumIntervalS: Double = 300, maximumAccuracyM: Double = 200) {
            self.minimumDistanceM = minimumDistanceM; self.minimumIntervalS = minimumIntervalS
            self.maximumAccuracyM = maximumAccuracyM
        }

        /// The defaults.
        public static let `default` = Parameters()
    }

    /// What `update` reports.
    public struct Change: Sendable, Hashable, Codable {
        /// The location that made the change.
        public var location: Location
        /// Its distance from the previous event's location, m; `nil` for the first event.
        public var distanceM: Double?
    }

    /// The tunables.
    public let parameters: Parameters
    /// The location of the last event.
    public private(set) var lastEventLocation: Location?

    /// A detector that has reported nothing yet.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// Takes one location; returns the change it makes, if any.
    public mutating func update(_ location: Location) -> Change? {
        let accuracyM = location.horizontalAccuracyM
        guard location.coordinate.isValid, accuracyM.isFinite, accuracyM <= parameters.maximumAccuracyM else { return nil }
        guard let last = lastEventLocation else {
            lastEventLocation = location
            return Change(location: location, distanceM: nil)
        }
        guard location.timeS - last.timeS >= parameters.minimumIntervalS,
            let distanceM = location.coordinate.distanceM(to: last.coordinate), distanceM >= parameters.minimumDistanceM
        else { return nil }
        lastEventLocation = location
        return Change(location: location, distanceM: distanceM)
    }
}
