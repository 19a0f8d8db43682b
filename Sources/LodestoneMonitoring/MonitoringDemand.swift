import LodestoneMotion
import LodestoneScheduler

/// The locations region monitoring alone needs, from how far the nearest boundary is, how fast the carrier goes and
/// what it does: far and slow, rare and coarse fixes (or none while it rests); approaching, denser and finer ones.
///
/// The rule: the carrier must not cross a boundary between two fixes unseen, and a fix must be accurate enough to
/// decide the nearest condition. With D the distance to the nearest boundary and v the fastest speed the activity
/// allows, a fix is due before the carrier can cover half of D: interval = D / (2 v), at least 1 s, at most
/// `maximumIntervalS`; the accuracy needed is a fraction of D (the accuracy circle must be clear of the boundary, see
/// `RegionMonitor`). At rest no fix is needed: the motion detector wakes the scheduler when the carrier moves.
///
/// The scheduler takes a demand, not an interval: `locationDemand` expresses the interval as a distance filter of
/// v × interval (`AdaptivePolicy` plans power-save fixes every accuracyMargin × filter / speed), with the accuracy tier.
///
/// So that the demand does not follow every metre the carrier moves (each change re-plans), D is rounded down and a
/// measured speed up to steps of a factor √2 (`quantizedDistanceM`, `quantizedSpeedMps`): the demand errs on the
/// side of an early fix and changes only when D halves or doubles its way across a step.
public struct MonitoringDemand: Sendable, Hashable, Codable {
    /// Time between fixes, s; `nil`: no fix needed now (the carrier rests, or there is nothing to monitor).
    public var fixIntervalS: Double?
    /// The accuracy the fixes need.
    public var desiredAccuracy: DesiredAccuracy
    /// The demand to hand the scheduler (`Demand(client:location:)`); `nil` when there is nothing to monitor.
    public var locationDemand: LocationDemand?

    /// The longest interval between fixes while moving, s (15 minutes: the slowest a stale state may be).
    public static let maximumIntervalS = 900.0

    /// The fastest the carrier may go doing `activity`, m/s: stationary 2 (it may start walking before the classifier
    /// says so), walk 2.5, run 6, cycle 12, drive and unknown 40 (motorway).
    public static func fastestSpeedMps(_ activity: MotionActivity.Kind?) -> Double {
        switch activity {
        case .stationary?: 2
        case .walk?: 2.5
        case .run?: 6
        case .cycle?: 12
        case .drive?, .unknown?, nil: 40
        }
    }

    /// `distanceM` rounded down to a step of the ladder 10 × √2ᵏ m (10, 14.1, 20, 28.3, 40, …); below 10 m, to whole
    /// metres. Allocates nothing.
    public static func quantizedDistanceM(_ distanceM: Double) -> Double {
        guard distanceM.isFinite, distanceM >= 10 else { return max(0, distanceM.isFinite ? distanceM : 0).rounded(.down) }
        // The even steps exactly (10 × 2ⁿ), the odd ones × √2 from them.
        var even = 10.0
        while even * 2 <= distanceM { even *= 2 }
        return even * 2.0.squareRoot() <= distanceM ? even * 2.0.squareRoot() : even
    }

    /// `speedMps` rounded up to a step of the ladder √2ᵏ m/s (1, 1.41, 2, 2.83, 4, …, at most 1 024); 0 for no
    /// speed or a negative one. Allocates nothing.
    public static func quantizedSpeedMps(_ speedMps: Double) -> Double {
        guard speedMps.isFinite, speedMps > 0 else { return speedMps == .infinity ? 1_024 : 0 }
        guard speedMps > 1 else { return 1 }
        // The even steps exactly (2ⁿ), the odd ones × √2 from them.
        var even = 1.0
        while even * 2 < speedMps && even < 1_024 { even *= 2 }
        if even >= 1_024 { return 1_024 }
        return even * 2.0.squareRoot() >= speedMps ? even * 2.0.squareRoot() : even * 2
    }

    /// The demand for a carrier `nearestBoundaryM` (m, ≥ 0; `nil`: no condition) from the nearest boundary, moving
    /// at `speedMps` (m/s, measured; `nil`: unknown) and doing `activity`. The nearest boundary is found within
    /// `RegionMonitor.boundaryHorizonM` (1 km): farther is planned as 1 km, with fixes of 100 m.
    public static func demand(nearestBoundaryM: Double?, speedMps: Double?, activity: MotionActivity.Kind?)
        -> MonitoringDemand
    {
        guard let distanceM = nearestBoundaryM, distanceM.isFinite else {
            return MonitoringDemand(fixIntervalS: nil, desiredAccuracy: .reduced, locationDemand: nil)
        }
        let d = quantizedDistanceM(max(0, distanceM))
        let accuracy: DesiredAccuracy = d >= 200 ? .hundredMeters : d >= 20 ? .nearestTenMeters : .best
        let fastestMps = max(fastestSpeedMps(activity), quantizedSpeedMps(speedMps ?? 0))
        let intervalS = min(maximumIntervalS, max(1, d / (2 * fastestMps)))
        let filterM: Double? = intervalS <= 1 ? nil : fastestMps * intervalS
        let location = LocationDemand(desiredAccuracy: accuracy, distanceFilterM: filterM, maximumAgeS: max(10, intervalS))
        if activity == .stationary {
            return MonitoringDemand(fixIntervalS: nil, desiredAccuracy: accuracy, locationDemand: location)
        }
        return MonitoringDemand(fixIntervalS: intervalS, desiredAccuracy: accuracy, locationDemand: location)
    }
}
