import LodestoneLocation

/// Significant location changes (Core Location's significant-change service): an event when the carrier is at least
/// `minimumDistanceM` (500 m) from the location of the last event, at most one every `minimumIntervalS` (5 minutes) of
/// session time, counted between the times the events are reported. The first usable location is an event (the service
/// starts by telling where the carrier is).
///
/// A move that happens within the 5 minutes after an event is not lost: the latest accurate location that is 500 m or
/// more away is held, and the first update once the interval has passed (any location, even an inaccurate one: it
/// only tells the time) reports it — so a power-save receiver whose fix lands a moment before the interval ends does
/// not push the event to its next fix. An accurate location back within 500 m drops what was held. Locations less
/// accurate than `maximumAccuracyM` are ignored as positions, so that one poor fix cannot fake a move. Allocates
/// nothing.
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
        /// When the change is reported, s (the time of the update that reported it; the location's own time is at or
        /// before it).
        public var timeS: Double
        /// The location that made the change.
        public var location: Location
        /// Its distance from the previous event's location, m; `nil` for the first event.
        public var distanceM: Double?
    }

    /// The tunables.
    public let parameters: Parameters
    /// The location of the last event.
    public private(set) var lastEventLocation: Location?
    /// When the last event was reported, s.
    public private(set) var lastEventTimeS: Double?
    /// The latest accurate location 500 m or more from the last event's, held until the interval has passed.
    public private(set) var heldLocation: Location?

    /// A detector that has reported nothing yet.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// Takes one location; returns the change it makes, if any.
    public mutating func update(_ location: Location) -> Change? {
        let accuracyM = location.horizontalAccuracyM
        let usable = location.coordinate.isValid && accuracyM.isFinite && accuracyM <= parameters.maximumAccuracyM
        guard let last = lastEventLocation, let lastTimeS = lastEventTimeS else {
            guard usable else { return nil }
            return report(location, distanceM: nil, atTimeS: location.timeS)
        }
        if usable, let distanceM = location.coordinate.distanceM(to: last.coordinate) {
            heldLocation = distanceM >= parameters.minimumDistanceM ? location : nil
        }
        guard location.timeS - lastTimeS >= parameters.minimumIntervalS, let held = heldLocation,
            let distanceM = held.coordinate.distanceM(to: last.coordinate)
        else { return nil }
        return report(held, distanceM: distanceM, atTimeS: max(location.timeS, held.timeS))
    }

    private mutating func report(_ location: Location, distanceM: Double?, atTimeS timeS: Double) -> Change {
        lastEventLocation = location
        lastEventTimeS = timeS
        heldLocation = nil
        return Change(timeS: timeS, location: location, distanceM: distanceM)
    }
}
