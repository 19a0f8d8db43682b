import LodestoneCore
import LodestoneLocation

/// A monitor of circular regions (Core Location's `CLMonitor`): it holds conditions, decides from each location which
/// the carrier is inside, and reports each change of state as a `MonitorEvent`.
///
/// **Uncertainty and hysteresis.** A location stands for a disc: its coordinate and its `horizontalAccuracyM` (a 95 %
/// radius). A condition changes state only when that disc, widened by a margin, is wholly on the other side of the
/// boundary: with d the geodesic distance to the centre, r the radius, a the accuracy and m the margin,
///
///     satisfied   when d + a + m ≤ r          unsatisfied   when d − a − m ≥ r          else: unchanged
///
/// A fix straddling the boundary changes nothing (a new condition stays `unknown`). Going in and out again takes the
/// reported position to move by at least 2(a + m), so a receiver jittering at the edge within its claimed accuracy
/// gives no burst of events. The margin m = max(`minimumMarginM`, `accuracyMarginFraction` × a) (defaults 1 m and 0.5)
/// covers the claimed circle's own miss rate: for a Rayleigh-distributed error the 95 % radius is 2.45 σ, and 1.5 × that
/// (3.67 σ) is missed once in 800 fixes instead of once in 20; the 1 m floor covers rounding and receivers that claim
/// less than a metre. The price is delay: a change is seen (a + m) / speed after the true crossing, 3–8 s for a walker
/// with a 3 m fix. A region whose radius is below 1.5 a + 1 m can never be found satisfied with that receiver.
///
/// **Cost.** Evaluating one location looks at the regions near it (`RegionIndex`, 27 cells per occupied level) and at
/// the regions not known to be outside (`satisfied` or `unknown`: the carrier is in a few at a time; conditions added
/// since the last fix are decided at the next one, once each). A region is decided from the chord alone (a lower bound
/// of the geodesic distance, and an upper bound from it) unless the fix is within a few metres of its boundary; only
/// then is the geodesic solved (Karney, about 1 µs). Nothing is allocated while evaluating: the buffers are
/// sized for every condition at `add`.
///
/// A value type owned by one task: no locks; persist it by reading `conditions` and `nextEventId`.
public struct RegionMonitor: Sendable {
    /// Tunables of the hysteresis.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The margin as a fraction of the location's accuracy, ≥ 0 (default 0.5: see the type's discussion).
        public var accuracyMarginFraction: Double
        /// The smallest margin, m, ≥ 0 (default 1).
        public var minimumMarginM: Double

        /// Parameters; defaults in parentheses.
        public init(accuracyMarginFraction: Double = 0.5, minimumMarginM: Double = 1) {
            self.accuracyMarginFraction = accuracyMarginFraction; self.minimumMarginM = minimumMarginM
        }

        /// The defaults.
        public static let `default` = Parameters()

        /// The margin for a location of accuracy `accuracyM`, m.
        @inline(__always) public func marginM(accuracyM: Double) -> Double {
            max(minimumMarginM, accuracyMarginFraction * accuracyM)
        }
    }

    /// The hysteresis tunables.
    public let parameters: Parameters
    /// The identifier the next event will carry (1 for a new monitor).
    public private(set) var nextEventId: UInt64

    // The conditions, one slot each (struct of arrays, so that a query touches only what it needs).
    private var regions: [CircularRegion] = []
    private var centers: [SIMD3<Double>] = []
    private var records: [MonitorConditionRecord] = []
    private var slotOf: [String: Int32] = [:]
    private var index = RegionIndex()
    /// The regions of r ≤ 512 m again, on one level of 2 048 m cubes (`nearestBoundaryDistanceM`).
    private var proximity = RegionIndex()
    /// Slots whose state is not `unsatisfied` (evaluated at every location), and each slot's place in it (−1: none).
    private var watched: [Int32] = []
    private var watchedAt: [Int32] = []
    /// The evaluation each slot was last looked at in (so a slot found twice is evaluated once).
    private var stamps: [UInt32] = []
    private var epoch: UInt32 = 0
    /// The query's buffer, kept between evaluations (room for every slot).
    private var candidates: [Int32] = []
    private let geodesic = Geodesic.wgs84

    /// An empty monitor whose first event will carry `firstEventId` (restore the persisted `nextEventId` here).
    public init(parameters: Parameters = .default, firstEventId: UInt64 = 1) {
        self.parameters = parameters
        nextEventId = max(1, firstEventId)
    }

    /// The number of conditions.
    public var count: Int { regions.count }

    /// The conditions and their records, in no particular order.
    public var conditions: [(region: CircularRegion, record: MonitorConditionRecord)] {
        Array(zip(regions, records))
    }

    /// The record of the condition `id`, or `nil`.
    public func record(id: String) -> MonitorConditionRecord? {
        slotOf[id].map { records[Int($0)] }
    }

    /// Adds `region` with `record` (default: `unknown`; pass the persisted record when restoring).
    /// - Throws: `RegionError.duplicate` when a condition with the same identifier is monitored.
    public mutating func add(_ region: CircularRegion, record: MonitorConditionRecord = MonitorConditionRecord())
        throws(RegionError)
    {
        guard slotOf[region.id] == nil else { throw .duplicate(id: region.id) }
        let slot = Int32(regions.count)
        let center = ellipsoidPointECEF(latitudeDeg: region.center.latitudeDeg, longitudeDeg: region.center.longitudeDeg)
        regions.append(region)
        centers.append(center)
        records.append(record)
        stamps.append(0)
        watchedAt.append(-1)
        slotOf[region.id] = slot
        index.insert(slot: slot, center: center, radiusM: region.radiusM)
        if RegionIndex.level(radiusM: region.radiusM) <= Self.proximityMaximumLevel {
            proximity.insert(slot: slot, center: center, level: Self.proximityLevel)
        }
        if record.state != .unsatisfied { watch(slot) }
        // The evaluation's buffers hold every slot, so that evaluating never grows them.
        if watched.capacity < regions.count { watched.reserveCapacity(2 * regions.count) }
        // A query finds each slot at most once (one cell each; the coarse grid and the levels it searches are disjoint).
        if candidates.capacity < regions.count { candidates.reserveCapacity(2 * regions.count) }
    }

    /// Removes the condition `id`; returns its last record, or `nil` when there is none.
    @discardableResult
    public mutating func remove(id: String) -> MonitorConditionRecord? {
        guard let slot = slotOf.removeValue(forKey: id) else { return nil }
        let s = Int(slot)
        let removed = records[s]
        index.remove(slot: slot, center: centers[s], radiusM: regions[s].radiusM)
        if RegionIndex.level(radiusM: regions[s].radiusM) <= Self.proximityMaximumLevel {
            proximity.remove(slot: slot, center: centers[s], level: Self.proximityLevel)
        }
        unwatch(slot)
        let last = Int32(regions.count - 1)
        if slot != last {
            // The last slot moves into the hole.
            let l = Int(last)
            index.renumber(from: last, to: slot, center: centers[l], radiusM: regions[l].radiusM)
            if RegionIndex.level(radiusM: regions[l].radiusM) <= Self.proximityMaximumLevel {
                proximity.renumber(from: last, to: slot, center: centers[l], level: Self.proximityLevel)
            }
            let wasWatched = watchedAt[l] >= 0
            if wasWatched { unwatch(last) }
            regions[s] = regions[l]; centers[s] = centers[l]; records[s] = records[l]; stamps[s] = stamps[l]
            watchedAt[s] = -1
            slotOf[regions[s].id] = slot
            if wasWatched { watch(slot) }
        }
        regions.removeLast(); centers.removeLast(); records.removeLast(); stamps.removeLast(); watchedAt.removeLast()
        return removed
    }

    /// Evaluates every condition against `location` and calls `onEvent` with each change, in the order of their
    /// identifiers. Returns the number of events. A location with an invalid coordinate or an accuracy that is not a
    /// finite number ≥ 0 changes nothing. Allocates nothing (see the type's discussion).
    @discardableResult
    public mutating func evaluate(_ location: Location, onEvent: (MonitorEvent) -> Void) -> Int {
        let accuracyM = location.horizontalAccuracyM
        guard location.coordinate.isValid, accuracyM.isFinite, accuracyM >= 0, !regions.isEmpty else { return 0 }
        epoch &+= 1
        if epoch == 0 {
            for i in stamps.indices { stamps[i] = 0 }
            epoch = 1
        }
        let point = ellipsoidPointECEF(
            latitudeDeg: location.coordinate.latitudeDeg, longitudeDeg: location.coordinate.longitudeDeg)
        let clearanceM = accuracyM + parameters.marginM(accuracyM: accuracyM)
        var events = 0
        candidates.removeAll(keepingCapacity: true)
        index.collect(near: point, into: &candidates)
        for slot in candidates {
            events += evaluate(slot: slot, location, point: point, clearanceM: clearanceM, onEvent: onEvent)
        }
        // The regions the carrier was inside (or not yet decided) and that are no longer near: it has left them.
        var i = 0
        while i < watched.count {
            let slot = watched[i]
            let n = evaluate(slot: slot, location, point: point, clearanceM: clearanceM, onEvent: onEvent)
            events += n
            // An evaluated slot that became unsatisfied left the list and another took its place at i.
            if n == 0 || watchedAt[Int(slot)] >= 0 { i += 1 }
        }
        return events
    }

    /// Evaluates slot `slot` once per location; returns 1 when its state changed (and `onEvent` was called).
    @inline(__always)
    private mutating func evaluate(
        slot: Int32, _ location: Location, point: SIMD3<Double>, clearanceM: Double, onEvent: (MonitorEvent) -> Void
    ) -> Int {
        let s = Int(slot)
        guard stamps[s] != epoch else { return 0 }
        stamps[s] = epoch
        let radiusM = regions[s].radiusM
        let target: MonitorConditionState
        let delta = centers[s] - point
        let chordM = (delta * delta).sum().squareRoot()
        if chordM - clearanceM >= radiusM {
            // The chord is a lower bound of the geodesic distance: clearly outside without the geodesic.
            target = .unsatisfied
        } else if Self.geodesicUpperBoundM(chordM: chordM) + clearanceM <= radiusM {
            // Clearly inside without the geodesic (the carrier deep in a region it is in: most of the watched ones).
            target = .satisfied
        } else {
            let c = regions[s].center
            guard
                let distanceM = geodesic.inverse(
                    latitude1Deg: location.coordinate.latitudeDeg, longitude1Deg: location.coordinate.longitudeDeg,
                    latitude2Deg: c.latitudeDeg, longitude2Deg: c.longitudeDeg)?.distanceM
            else { return 0 }
            if distanceM - clearanceM >= radiusM {
                target = .unsatisfied
            } else if distanceM + clearanceM <= radiusM {
                target = .satisfied
            } else {
                return 0
            }
        }
        let previous = records[s].state
        guard target != previous else { return 0 }
        records[s] = MonitorConditionRecord(state: target, changedAtS: location.timeS, location: location)
        if target == .unsatisfied { unwatch(slot) } else { watch(slot) }
        let id = nextEventId
        nextEventId += 1
        onEvent(
            MonitorEvent(
                id: id, conditionId: regions[s].id, state: target, previousState: previous, timeS: location.timeS,
                location: location))
        return 1
    }

    /// The smallest radius of curvature of WGS84, b²/a (the meridian's at the equator), m.
    static let smallestCurvatureRadiusM = WGS84.semiMajorAxisM * (1 - WGS84.eccentricitySquared)

    /// An upper bound of the geodesic distance between two points of the ellipsoid `chordM` apart, m: on a sphere of
    /// radius R the arc is 2R asin(c / 2R) ≤ c + c³/(24 R²)(1 + c²/(4R²)) for c ≤ R; with R the smallest radius of
    /// curvature and the cubic term doubled for the ellipsoid's departure from that sphere (its flattening is 0.3 %),
    /// plus a millimetre for rounding. At 100 km it exceeds the chord by 2 m; only fixes within that of the boundary
    /// take the exact geodesic.
    @inline(__always) static func geodesicUpperBoundM(chordM c: Double) -> Double {
        let r2 = smallestCurvatureRadiusM * smallestCurvatureRadiusM
        return c + c * c * c / (12 * r2) * (1 + c * c / (4 * r2)) + 0.001
    }

    /// The distance from `coordinate` to the nearest boundary of any condition, m, capped at `boundaryHorizonM`
    /// (1 km: "at least 1 km" is as far as it looks); `nil` when there are no conditions. For the low-power demand
    /// (`MonitoringDemand`), not for deciding states. Allocates nothing once the query buffer has grown.
    ///
    /// A boundary within H = 1 km of the point belongs to a region whose centre is within r + H of it. Regions of
    /// r ≤ 512 m are also kept in a coarse grid of 2 048 m cubes (r + H ≤ 1 512 m: the 27 cubes around the point hold
    /// them all); larger ones are on index levels of edge s ≥ 1 024 m ≥ H, where r + H ≤ 2s: the 5 × 5 × 5 block.
    public mutating func nearestBoundaryDistanceM(from coordinate: Coordinate) -> Double? {
        guard !regions.isEmpty, coordinate.isValid else { return nil }
        let point = ellipsoidPointECEF(latitudeDeg: coordinate.latitudeDeg, longitudeDeg: coordinate.longitudeDeg)
        var nearest = Self.boundaryHorizonM
        candidates.removeAll(keepingCapacity: true)
        proximity.collect(near: point, into: &candidates)
        index.collect(near: point, blockRadius: 2, minimumLevel: Self.proximityMaximumLevel + 1, into: &candidates)
        for slot in candidates {
            let s = Int(slot)
            let delta = centers[s] - point
            let chordM = (delta * delta).sum().squareRoot()
            // Lower bound of the distance to the boundary from outside: nothing nearer than `nearest` there.
            if chordM - regions[s].radiusM >= nearest { continue }
            nearest = min(nearest, boundaryDistanceM(slot: slot, coordinate))
        }
        return nearest
    }

    /// How far `nearestBoundaryDistanceM` looks, m.
    public static let boundaryHorizonM = 1_000.0
    /// The coarse grid's level (2¹¹ = 2 048 m cubes) and the largest index level it holds (2⁹ = 512 m).
    static let proximityLevel = 11
    static let proximityMaximumLevel = 9

    private func boundaryDistanceM(slot: Int32, _ coordinate: Coordinate) -> Double {
        let s = Int(slot)
        let c = regions[s].center
        guard
            let d = geodesic.inverse(
                latitude1Deg: coordinate.latitudeDeg, longitude1Deg: coordinate.longitudeDeg, latitude2Deg: c.latitudeDeg,
                longitude2Deg: c.longitudeDeg)?.distanceM
        else { return .infinity }
        return abs(d - regions[s].radiusM)
    }

    private mutating func watch(_ slot: Int32) {
        guard watchedAt[Int(slot)] < 0 else { return }
        watchedAt[Int(slot)] = Int32(watched.count)
        watched.append(slot)
    }

    private mutating func unwatch(_ slot: Int32) {
        let at = Int(watchedAt[Int(slot)])
        guard at >= 0 else { return }
        let last = watched[watched.count - 1]
        watched[at] = last
        watchedAt[Int(last)] = Int32(at)
        watched.removeLast()
        watchedAt[Int(slot)] = -1
    }
}
