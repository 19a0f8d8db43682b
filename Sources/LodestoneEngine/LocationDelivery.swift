import LodestoneCore
import LodestoneLocation
import LodestoneScheduler
import LodestoneTrace

/// A location handed to the clients, with how old the information in it is.
public struct DeliveredLocation: Sendable, Hashable {
    /// The fused location (`LocationStage.latest`) at delivery.
    public var location: Location
    /// When it was delivered, s (engine clock).
    public var timeS: Double
    /// Time since the last receiver fix that informed it, s, at `timeS` (`Location.sinceFixS` plus the time since the
    /// estimate was made).
    public var ageS: Double
    /// True when `ageS` exceeds the demand's `maximumAgeS`: the client must not take it for a current position.
    public var isStale: Bool
    /// Its claimed horizontal accuracy (95 %) meets the demand's `desiredAccuracy.requiredHorizontalAccuracyM`.
    public var meetsDesiredAccuracy: Bool

    /// This delivery as a client asking at `askedS` sees it: the same location, older.
    public func asked(atS askedS: Double, maximumAgeS: Double) -> DeliveredLocation {
        var d = self
        d.ageS += max(0, askedS - timeS)
        d.isStale = d.ageS > maximumAgeS
        return d
    }
}

/// Location delivery to clients (Core Location's `CLLocationManager` behaviour) from the fused location and the
/// combined demand:
/// - one location per `Parameters.deliveryPeriodS` (1 s, as Core Location delivers), and besides each location made at
///   a receiver fix as it arrives (once per fix, not within half a period of the previous delivery), so that a wake
///   delivers the first fix at once rather than on the next tick;
/// - `desiredAccuracy`: a location whose claimed accuracy does not meet the tier is withheld (counted), so that what is
///   delivered is what was asked for; the client keeps the last one, which ages;
/// - `distanceFilterM`: a new location only after the carrier moved that far from the last delivered one;
/// - significant change: only after 500 m and no more often than every 5 minutes (Apple, "Significant-change location
///   service": "the system delivers updates only when the device has moved 500 meters or more, no more frequently than
///   once every five minutes");
/// - auto-pause: while the carrier is stationary and the receiver is off, nothing new is delivered (the position cannot
///   have changed and no new information arrives); a client asking gets the last location with its age (`current(atS:)`);
/// - every delivered location carries its age and is marked stale when older than `maximumAgeS`.
///
/// `offer(…)` allocates nothing (it is called after every sample).
public struct LocationDelivery: Sendable {
    /// Tunables.
    public struct Parameters: Sendable, Hashable {
        /// Shortest time between two deliveries, s (default 1).
        public var deliveryPeriodS = 1.0
        /// Significant-change service: distance, m (default 500) and shortest interval, s (default 300).
        public var significantChangeDistanceM = 500.0
        public var significantChangeIntervalS = 300.0
        public init() {}
    }

    /// What is delivered to (the combined demand; `nil`: no client wants locations, nothing is delivered).
    public var demand: LocationDemand?
    public let parameters: Parameters
    /// The last delivered location, as it was delivered.
    public private(set) var last: DeliveredLocation?
    /// Locations delivered.
    public private(set) var deliveredCount = 0
    /// Delivered ones marked stale.
    public private(set) var staleCount = 0
    /// Delivered ones whose claimed accuracy meets the tier.
    public private(set) var meetingClaimedCount = 0
    /// Offers withheld because their claimed accuracy did not meet the tier.
    public private(set) var withheldInaccurateCount = 0
    /// Offers not delivered because the carrier was stationary with the receiver off (auto-pause).
    public private(set) var pausedCount = 0
    private var nextOfferS = -Double.infinity
    /// Time of the last fix-made location offered (each is offered once).
    private var lastFreshOfferS = -Double.infinity

    public init(demand: LocationDemand?, parameters: Parameters = Parameters()) {
        self.demand = demand; self.parameters = parameters
    }

    /// Offers the fused `location` at `timeS`; returns it when it is delivered. `stationary`: the scheduler's motion
    /// state says the carrier is still; `receiverOff`: the receiver is off (no new fixes can come).
    public mutating func offer(_ location: Location?, timeS: Double, stationary: Bool, receiverOff: Bool) -> DeliveredLocation? {
        guard let demand, let location else { return nil }
        let madeAtFix =
            location.sinceFixS <= 0.05 && location.timeS != lastFreshOfferS
            && timeS - (last?.timeS ?? -Double.infinity) >= parameters.deliveryPeriodS / 2
        guard timeS >= nextOfferS || madeAtFix else { return nil }
        if madeAtFix { lastFreshOfferS = location.timeS }
        nextOfferS = timeS + parameters.deliveryPeriodS
        if stationary && receiverOff && last != nil {
            pausedCount += 1
            return nil
        }
        let meets = location.horizontalAccuracyM <= demand.desiredAccuracy.requiredHorizontalAccuracyM
        guard meets else {
            withheldInaccurateCount += 1
            return nil
        }
        if let previous = last {
            let movedM = location.coordinate.distanceM(to: previous.location.coordinate) ?? 0
            if demand.significantChangeOnly {
                guard movedM >= parameters.significantChangeDistanceM,
                    timeS - previous.timeS >= parameters.significantChangeIntervalS
                else { return nil }
            } else if let filter = demand.distanceFilterM, movedM < filter {
                return nil
            }
        }
        let ageS = location.sinceFixS + max(0, timeS - location.timeS)
        let delivered = DeliveredLocation(
            location: location, timeS: timeS, ageS: ageS, isStale: ageS > demand.maximumAgeS,
            meetsDesiredAccuracy: meets)
        last = delivered
        deliveredCount += 1
        if delivered.isStale { staleCount += 1 }
        if meets { meetingClaimedCount += 1 }
        return delivered
    }

    /// What a client asking at `askedS` gets: the last delivered location with its age then (stale when too old);
    /// `nil` before the first delivery or when no client wants locations.
    public func current(atS askedS: Double) -> DeliveredLocation? {
        guard let demand, let last else { return nil }
        return last.asked(atS: askedS, maximumAgeS: demand.maximumAgeS)
    }

    /// One line for the live view.
    public func liveLine(atS t: Double) -> String? {
        guard let demand else { return nil }
        var line = "delivered \(deliveredCount) locations (\(demand.desiredAccuracy.rawValue)"
        if demand.significantChangeOnly {
            line += ", significant changes"
        } else if let f = demand.distanceFilterM {
            line += ", every \(formatFixed(f, digits: 0)) m"
        }
        line += ")"
        if let c = current(atS: t) {
            line += "; last \(formatFixed(t - c.timeS, digits: 0)) s ago, age \(formatFixed(c.ageS, digits: 1)) s"
            if c.isStale { line += " STALE (> \(formatFixed(demand.maximumAgeS, digits: 0)) s)" }
        }
        if withheldInaccurateCount > 0 { line += "; withheld \(withheldInaccurateCount) less accurate than asked" }
        return line
    }
}
