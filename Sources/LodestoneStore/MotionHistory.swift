import LodestoneMotion

/// What the pedometer counted over one interval, as the history stores it: one row per interval (the daemon writes one a
/// minute while steps are counted, none while still).
public struct PedometerInterval: Sendable, Hashable, Codable {
    /// Start and end of the interval, Unix time (UTC), s; end > start, at most
    /// `MonitorStore.maximumPedometerIntervalS` apart.
    public var startS: Double
    public var endS: Double
    /// Steps counted, ≥ 0.
    public var steps: Int
    /// Distance walked or run, m, ≥ 0.
    public var distanceM: Double
    /// Floors climbed and descended on foot, ≥ 0.
    public var floorsAscended: Int
    public var floorsDescended: Int
    /// Time spent stepping within the interval, s, in [0, end − start].
    public var activeS: Double

    /// An interval; see each property.
    public init(
        startS: Double, endS: Double, steps: Int, distanceM: Double, floorsAscended: Int = 0, floorsDescended: Int = 0,
        activeS: Double = 0
    ) {
        self.startS = startS; self.endS = endS; self.steps = steps; self.distanceM = distanceM
        self.floorsAscended = floorsAscended; self.floorsDescended = floorsDescended; self.activeS = activeS
    }
}

extension MonitorStore {
    /// How long the history is kept: 7 days, s (issue 16, item 5).
    public static let historyRetentionS = 7 * 86_400.0
    /// The longest pedometer interval accepted, s (1 hour): it bounds how far before a query's start the primary key
    /// is read, so a query reads only the rows it needs.
    public static let maximumPedometerIntervalS = 3_600.0
    /// How often recording prunes the history, s of recorded time (1 hour: at most an hour's rows beyond 7 days).
    static let pruneEveryS = 3_600.0

    /// Records one pedometer interval, pruning history older than 7 days before its end (about once an hour).
    /// - Throws: `StoreError.invalid` (nothing written) for an interval that is not finite, runs backwards, is longer
    ///   than `maximumPedometerIntervalS`, has a negative count, or overlaps one already recorded.
    public func recordPedometer(_ interval: PedometerInterval) throws(StoreError) {
        let operation = "record the pedometer interval [\(interval.startS), \(interval.endS)) s"
        let i = interval
        guard i.startS.isFinite, i.endS.isFinite, i.endS > i.startS, i.endS - i.startS <= Self.maximumPedometerIntervalS
        else {
            throw .invalid(
                operation: operation,
                reason: "an interval must end after it starts, within \(Int(Self.maximumPedometerIntervalS)) s")
        }
        guard i.steps >= 0, i.distanceM.isFinite, i.distanceM >= 0, i.floorsAscended >= 0, i.floorsDescended >= 0,
            i.activeS.isFinite, i.activeS >= 0, i.activeS <= i.endS - i.startS + 1e-9
        else {
            throw .invalid(
                operation: operation,
                reason: "steps, distance_m and floors must be ≥ 0 and active time within the interval")
        }
        try db.transaction(operation) { () throws(StoreError) in
            let overlap = try db.statement(
                "SELECT start_s FROM pedometer WHERE start_s > ?1 - ?3 AND start_s < ?2 AND end_s > ?1 LIMIT 1",
                operation: operation
            ).first([.real(i.startS), .real(i.endS), .real(Self.maximumPedometerIntervalS)])
            if let overlap {
                throw .invalid(operation: operation, reason: "it overlaps the interval recorded from \(overlap[0]) s")
            }
            try db.statement(
                """
                INSERT INTO pedometer (start_s, end_s, steps, distance_m, floors_ascended, floors_descended, active_s)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """, operation: operation
            ).run([
                .real(i.startS), .real(i.endS), .integer(Int64(i.steps)), .real(i.distanceM),
                .integer(Int64(i.floorsAscended)), .integer(Int64(i.floorsDescended)), .real(i.activeS)
            ])
            try pruneIfDue(nowS: i.endS)
        }
    }

    /// Records a change of activity at `activity.startTimeS` (Unix time, s): it lasts until the next change.
    /// - Throws: `StoreError.invalid` (nothing written) when the time is not finite or a change is already recorded then.
    public func recordActivity(_ activity: MotionActivity) throws(StoreError) {
        let operation = "record the activity \(activity.kind.rawValue) at \(activity.startTimeS) s"
        guard activity.startTimeS.isFinite else { throw .invalid(operation: operation, reason: "the time is not finite") }
        try db.transaction(operation) { () throws(StoreError) in
            let existing = try db.statement("SELECT 1 FROM activities WHERE start_s = ?1", operation: operation)
                .first([.real(activity.startTimeS)])
            guard existing == nil else {
                throw .invalid(operation: operation, reason: "an activity change is already recorded at that time")
            }
            try db.statement("INSERT INTO activities (start_s, kind, confidence) VALUES (?1, ?2, ?3)", operation: operation)
                .run([.real(activity.startTimeS), .text(activity.kind.rawValue), .text(activity.confidence.rawValue)])
            try pruneIfDue(nowS: activity.startTimeS)
        }
    }

    private func pruneIfDue(nowS: Double) throws(StoreError) {
        guard nowS - lastPruneS >= Self.pruneEveryS else { return }
        try prune(beforeS: nowS - Self.historyRetentionS)
        lastPruneS = nowS
    }

    /// Deletes the pedometer intervals ending at or before `beforeS` and the activity changes before it, keeping the
    /// last change before it (the activity in progress at `beforeS`). Recording does this about once an hour for
    /// 7 days before the newest row; call it directly to prune while nothing is recorded.
    public func pruneHistory(beforeS: Double) throws(StoreError) {
        try db.transaction("prune the history before \(beforeS) s") { () throws(StoreError) in try prune(beforeS: beforeS) }
    }

    private func prune(beforeS: Double) throws(StoreError) {
        let operation = "prune the history before \(beforeS) s"
        try db.statement("DELETE FROM pedometer WHERE end_s <= ?1", operation: operation).run([.real(beforeS)])
        try db.statement(
            "DELETE FROM activities WHERE start_s < (SELECT max(start_s) FROM activities WHERE start_s <= ?1)",
            operation: operation
        ).run([.real(beforeS)])
    }

    /// What the pedometer counted between `fromS` and `toS` (Unix time, s), like
    /// `CMPedometer.queryPedometerData(from:to:)`: the sums of the intervals within the range, an interval straddling an
    /// end counted in proportion to its part inside (steps and floors rounded to the nearest whole). Cadence and pace
    /// at the end are `nil` (they are live values); the average active pace is active time over distance.
    /// - Throws: `StoreError.invalid` when the range is not finite or runs backwards.
    public func pedometerData(fromS: Double, toS: Double) throws(StoreError) -> PedometerData {
        let operation = "query the pedometer from \(fromS) to \(toS) s"
        guard fromS.isFinite, toS.isFinite, toS >= fromS else {
            throw .invalid(operation: operation, reason: "the range must be finite and end at or after its start")
        }
        var sums = (steps: 0.0, distanceM: 0.0, up: 0.0, down: 0.0, activeS: 0.0)
        try db.statement(
            """
            SELECT total(steps * f), total(distance_m * f), total(floors_ascended * f), total(floors_descended * f),
                   total(active_s * f)
            FROM (SELECT *, (min(end_s, ?2) - max(start_s, ?1)) / (end_s - start_s) AS f FROM pedometer
                  WHERE start_s > ?1 - ?3 AND start_s < ?2 AND end_s > ?1)
            """, operation: operation
        ).query([.real(fromS), .real(toS), .real(Self.maximumPedometerIntervalS)]) { r in
            sums = (r.double(0), r.double(1), r.double(2), r.double(3), r.double(4))
        }
        return PedometerData(
            startTimeS: fromS, endTimeS: toS, steps: Int(sums.steps.rounded()), distanceM: sums.distanceM,
            floorsAscended: Int(sums.up.rounded()), floorsDescended: Int(sums.down.rounded()),
            currentCadenceStepsPerS: nil, currentPaceSPerM: nil,
            averageActivePaceSPerM: sums.distanceM > 0 ? sums.activeS / sums.distanceM : nil)
    }

    /// The activities between `fromS` and `toS` (Unix time, s), like
    /// `CMMotionActivityManager.queryActivityStarting(from:to:)`: the one in progress at `fromS` (its `startTimeS` may be
    /// earlier), then every change before `toS`, oldest first.
    /// - Throws: `StoreError.invalid` when the range is not finite or runs backwards.
    public func activities(fromS: Double, toS: Double) throws(StoreError) -> [MotionActivity] {
        let operation = "query the activities from \(fromS) to \(toS) s"
        guard fromS.isFinite, toS.isFinite, toS >= fromS else {
            throw .invalid(operation: operation, reason: "the range must be finite and end at or after its start")
        }
        var rows: [(Double, String, String)] = []
        let row = { (r: Row) in rows.append((r.double(0), r.text(1), r.text(2))) }
        try db.statement(
            "SELECT start_s, kind, confidence FROM activities WHERE start_s <= ?1 ORDER BY start_s DESC LIMIT 1",
            operation: operation
        ).query([.real(fromS)], row: row)
        try db.statement(
            "SELECT start_s, kind, confidence FROM activities WHERE start_s > ?1 AND start_s < ?2 ORDER BY start_s",
            operation: operation
        ).query([.real(fromS), .real(toS)], row: row)
        var out: [MotionActivity] = []
        out.reserveCapacity(rows.count)
        for (startS, kind, confidence) in rows {
            guard let k = MotionActivity.Kind(rawValue: kind), let c = MotionActivity.Confidence(rawValue: confidence) else {
                throw .notADatabase(path: path, message: "\(operation): unknown activity \(kind) (\(confidence))")
            }
            out.append(MotionActivity(kind: k, confidence: c, startTimeS: startS))
        }
        return out
    }
}
