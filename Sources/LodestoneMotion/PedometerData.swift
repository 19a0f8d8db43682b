/// What the pedometer measured over an interval, like Core Motion's `CMPedometerData`.
public struct PedometerData: Sendable, Hashable, Codable {
    /// Start and end of the interval, s on the samples' clock.
    public var startTimeS: Double
    public var endTimeS: Double
    /// Steps taken.
    public var steps: Int
    /// Distance walked or run, m (steps × the stride model's step length).
    public var distanceM: Double
    /// Floors climbed and descended on foot (`FloorCounter`).
    public var floorsAscended: Int
    public var floorsDescended: Int
    /// Cadence at the end of the interval, steps per second; `nil` when not walking or running then.
    public var currentCadenceStepsPerS: Double?
    /// Pace at the end of the interval, s per m; `nil` when not walking or running then.
    public var currentPaceSPerM: Double?
    /// Average pace while moving on foot over the interval, s per m; `nil` without steps.
    public var averageActivePaceSPerM: Double?

    /// An interval's data; see each property.
    public init(
        startTimeS: Double, endTimeS: Double, steps: Int, distanceM: Double, floorsAscended: Int,
        floorsDescended: Int, currentCadenceStepsPerS: Double?, currentPaceSPerM: Double?,
        averageActivePaceSPerM: Double?
    ) {
        self.startTimeS = startTimeS; self.endTimeS = endTimeS; self.steps = steps; self.distanceM = distanceM
        self.floorsAscended = floorsAscended; self.floorsDescended = floorsDescended
        self.currentCadenceStepsPerS = currentCadenceStepsPerS; self.currentPaceSPerM = currentPaceSPerM
        self.averageActivePaceSPerM = averageActivePaceSPerM
    }

    /// Cadence at the end of the interval in steps per minute.
    public var currentCadenceStepsPerMinute: Double? { currentCadenceStepsPerS.map { $0 * 60 } }
}

/// Running totals of the pedometer at one instant: what the history stores and queries subtract.
public struct PedometerTotals: Sendable, Hashable, Codable {
    /// Time, s.
    public var timeS: Double
    /// Steps, distance (m), floors up and down, and time spent stepping (s) since the start.
    public var steps: Int
    public var distanceM: Double
    public var floorsAscended: Int
    public var floorsDescended: Int
    public var activeTimeS: Double

    /// Totals; see each property.
    public init(
        timeS: Double, steps: Int = 0, distanceM: Double = 0, floorsAscended: Int = 0, floorsDescended: Int = 0,
        activeTimeS: Double = 0
    ) {
        self.timeS = timeS; self.steps = steps; self.distanceM = distanceM
        self.floorsAscended = floorsAscended; self.floorsDescended = floorsDescended; self.activeTimeS = activeTimeS
    }
}

/// The pedometer's history for queries over a time range, like `CMPedometer.queryPedometerData(from:to:)`:
/// running totals recorded whenever they change, at most one record per `resolutionS`, in a fixed ring
/// (`capacity` records: 17 280 at 5 s = 24 hours of continuous walking; stationary time costs nothing).
public struct PedometerHistory: Sendable, Hashable, Codable {
    /// Records at least this far apart, s. Default 5.
    public let resolutionS: Double
    /// Totals, oldest first; the newest is the latest change.
    public private(set) var records: FixedRing<PedometerTotals>

    /// An empty history.
    public init(resolutionS: Double = 5, capacity: Int = 17_280) {
        self.resolutionS = resolutionS > 0 && resolutionS.isFinite ? resolutionS : 5
        records = FixedRing(capacity: capacity, filler: PedometerTotals(timeS: 0))
    }

    /// Start of the newest record's slot, s.
    public private(set) var slotStartS: Double?

    /// Records `totals` (call at every change): within `resolutionS` of the newest record's slot start it
    /// replaces that record (never the first one: queries from the start stay possible), else it starts a new
    /// one. A query therefore resolves time to within `resolutionS`.
    public mutating func record(_ totals: PedometerTotals) {
        if let start = slotStartS, totals.timeS - start < resolutionS, records.count > 1 {
            records[records.count - 1] = totals
        } else {
            records.append(totals)
            slotStartS = totals.timeS
        }
    }

    /// The oldest time a query can start at, s (`nil` while empty).
    public var oldestTimeS: Double? { records.first?.timeS }

    /// Totals at `timeS`: those of the last record at or before it (binary search). `nil` before the oldest.
    public func totals(atTimeS timeS: Double) -> PedometerTotals? {
        var lo = 0, hi = records.count - 1
        guard hi >= 0, records[0].timeS <= timeS else { return nil }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if records[mid].timeS <= timeS { lo = mid } else { hi = mid - 1 }
        }
        return records[lo]
    }
}
