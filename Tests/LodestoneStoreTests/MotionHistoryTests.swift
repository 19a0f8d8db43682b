import Foundation
import LodestoneMotion
import Testing

@testable import LodestoneStore

@Suite struct MotionHistoryTests {
    @Test func pedometerQueriesSumTheRangeAndProrateItsEnds() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        // Three minutes: 60, 120 and 90 steps; a quiet gap; then 30 steps.
        let rows = [
            PedometerInterval(startS: 0, endS: 60, steps: 60, distanceM: 42, floorsAscended: 1, activeS: 40),
            PedometerInterval(startS: 60, endS: 120, steps: 120, distanceM: 84, floorsDescended: 2, activeS: 60),
            PedometerInterval(startS: 120, endS: 180, steps: 90, distanceM: 63, activeS: 50),
            PedometerInterval(startS: 600, endS: 660, steps: 30, distanceM: 21, activeS: 20)
        ]
        for row in rows { try store.recordPedometer(row) }
        let all = try store.pedometerData(fromS: 0, toS: 1_000)
        #expect(all.steps == 300)
        #expect(abs(all.distanceM - 210) < 1e-9)
        #expect(all.floorsAscended == 1 && all.floorsDescended == 2)
        #expect(all.startTimeS == 0 && all.endTimeS == 1_000)
        #expect(abs(all.averageActivePaceSPerM! - 170.0 / 210) < 1e-12)
        // From 30 s to 150 s: half of the first minute, the second, half of the third.
        let part = try store.pedometerData(fromS: 30, toS: 150)
        #expect(part.steps == 30 + 120 + 45)
        #expect(abs(part.distanceM - (21 + 84 + 31.5)) < 1e-9)
        #expect(part.floorsDescended == 2)
        // Between the intervals, nothing; an empty range, nothing.
        let gap = try store.pedometerData(fromS: 200, toS: 500)
        #expect(gap.steps == 0 && gap.distanceM == 0 && gap.averageActivePaceSPerM == nil)
        #expect(try store.pedometerData(fromS: 90, toS: 90).steps == 0)
    }

    @Test func badPedometerIntervalsAreRefusedAndLoseNothing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        try store.recordPedometer(PedometerInterval(startS: 0, endS: 60, steps: 60, distanceM: 42))
        let bad = [
            PedometerInterval(startS: 30, endS: 90, steps: 10, distanceM: 7), // overlaps
            PedometerInterval(startS: 100, endS: 90, steps: 10, distanceM: 7), // backwards
            PedometerInterval(startS: 100, endS: 100 + 7_200, steps: 10, distanceM: 7), // longer than an hour
            PedometerInterval(startS: 100, endS: 160, steps: -1, distanceM: 7),
            PedometerInterval(startS: 100, endS: 160, steps: 1, distanceM: .nan),
            PedometerInterval(startS: .infinity, endS: 160, steps: 1, distanceM: 1)
        ]
        for interval in bad {
            #expect {
                try store.recordPedometer(interval)
            } throws: { error in
                guard case .invalid(let operation, _)? = error as? StoreError else { return false }
                return operation.hasPrefix("record the pedometer interval")
            }
        }
        #expect(try store.pedometerData(fromS: -1e9, toS: 1e9).steps == 60)
        #expect(throws: StoreError.self) { try store.pedometerData(fromS: 10, toS: 0) }
        #expect(throws: StoreError.self) { try store.activities(fromS: .nan, toS: 0) }
    }

    @Test func activityQueriesStartWithTheActivityInProgress() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        let changes = [
            MotionActivity(kind: .stationary, confidence: .high, startTimeS: 0),
            MotionActivity(kind: .walk, confidence: .medium, startTimeS: 100),
            MotionActivity(kind: .drive, confidence: .high, startTimeS: 400),
            MotionActivity(kind: .walk, confidence: .low, startTimeS: 900)
        ]
        for change in changes { try store.recordActivity(change) }
        #expect(try store.activities(fromS: 150, toS: 900) == Array(changes[1...2]))
        #expect(try store.activities(fromS: 0, toS: 10_000) == changes)
        #expect(try store.activities(fromS: -50, toS: 50) == [changes[0]])
        #expect(try store.activities(fromS: -50, toS: -10).isEmpty)
        #expect(try store.activities(fromS: 5_000, toS: 6_000) == [changes[3]])
        #expect(throws: StoreError.self) { try store.recordActivity(changes[2]) }
        #expect(try store.activities(fromS: 0, toS: 10_000) == changes)
    }

    /// Eight days of synthetic history at the rates the daemon writes — one pedometer row a minute (around the clock:
    /// the worst case; the daemon writes none while still) and an activity change every 10 minutes — keep the last
    /// 7 days (plus at most the hour between prunes); the file's size and the queries' times are printed for the
    /// closing note, and the query plans must search the primary keys (no table scan).
    @Test func sevenDaysOfHistoryStayBoundedAndAnswerInMilliseconds() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        // One commit per row with a disk sync each would take minutes here and measures nothing this test is about
        // (the durability is the crash test's): the bulk load runs without syncing.
        try store.db.execute("PRAGMA synchronous = OFF", operation: "bulk load")
        let t0 = 1_700_000_000.0
        let days = 8.0
        let kinds: [MotionActivity.Kind] = [.stationary, .walk, .drive, .walk, .run, .cycle]
        var minute = 0.0
        while minute < days * 1_440 {
            let s = t0 + minute * 60
            try store.recordPedometer(
                PedometerInterval(
                    startS: s, endS: s + 60, steps: 50 + Int(minute) % 70,
                    distanceM: 35 + minute.truncatingRemainder(dividingBy: 7),
                    floorsAscended: Int(minute) % 97 == 0 ? 1 : 0, floorsDescended: 0, activeS: 45))
            if Int(minute) % 10 == 0 {
                try store.recordActivity(
                    MotionActivity(kind: kinds[Int(minute / 10) % kinds.count], confidence: .high, startTimeS: s))
            }
            minute += 1
        }
        let endS = t0 + days * 86_400
        try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)", operation: "checkpoint")
        let pedometerRows = try store.scalar("SELECT count(*) FROM pedometer")
        let activityRows = try store.scalar("SELECT count(*) FROM activities")
        guard case .integer(let p)? = pedometerRows, case .integer(let a)? = activityRows else {
            Issue.record("no counts")
            return
        }
        // 7 days are 10 080 minutes; at most an hour's more waits for the next prune.
        #expect(p >= 10_080 && p <= 10_080 + 60)
        #expect(a >= 1_008 && a <= 1_008 + 7)
        #expect(try store.pedometerData(fromS: t0, toS: endS - 7 * 86_400 - 3_600).steps == 0)
        let sizeBytes = try FileManager.default.attributesOfItem(atPath: dir.store)[.size] as? Int ?? 0
        #expect(sizeBytes < 1_500_000)

        // The query plans: searches of the primary keys.
        for sql in [
            "EXPLAIN QUERY PLAN SELECT * FROM pedometer WHERE start_s > ?1 - 3600 AND start_s < ?2 AND end_s > ?1",
            "EXPLAIN QUERY PLAN SELECT * FROM activities WHERE start_s > ?1 AND start_s < ?2 ORDER BY start_s"
        ] {
            var plan: [String] = []
            try store.db.statement(sql, operation: "plan").query([.real(t0), .real(endS)]) { plan.append($0.text(3)) }
            #expect(plan.allSatisfy { $0.hasPrefix("SEARCH") && $0.contains("PRIMARY KEY") }, "\(plan)")
        }

        func medianMs(_ body: () throws -> Void) rethrows -> Double {
            var times: [Double] = []
            for _ in 0..<21 {
                let start = ContinuousClock.now
                try body()
                let d = ContinuousClock.now - start
                times.append(Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) * 1e-15)
            }
            return times.sorted()[times.count / 2]
        }
        let weekStartS = endS - 7 * 86_400
        var week = try store.pedometerData(fromS: weekStartS, toS: endS)
        let weekPedometerMs = try medianMs { week = try store.pedometerData(fromS: weekStartS, toS: endS) }
        let hourPedometerMs = try medianMs { _ = try store.pedometerData(fromS: endS - 3_600 - 30, toS: endS - 30) }
        var activities: [MotionActivity] = []
        let weekActivitiesMs = try medianMs { activities = try store.activities(fromS: weekStartS, toS: endS) }
        let hourActivitiesMs = try medianMs { _ = try store.activities(fromS: endS - 3_600, toS: endS) }
        #expect(week.steps > 10_080 * 50)
        #expect(activities.count == 1_008)
        print(
            "history after 8 simulated days (7 kept): \(p) pedometer rows, \(a) activity rows, file \(sizeBytes) bytes; "
                + "pedometerData week \(weekPedometerMs) ms, hour \(hourPedometerMs) ms; "
                + "activities week \(weekActivitiesMs) ms (\(activities.count) rows), hour \(hourActivitiesMs) ms")
    }
}
