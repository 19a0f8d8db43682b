import Foundation
@testable import LodestoneCLI
@testable import LodestoneEvaluation
import Testing
import LodestoneCore
import LodestoneLocation
import LodestoneScheduler
@testable import LodestoneEngine

/// The scheduler as `lodestone run` drives it, scored against the simulation's truth on `stop-and-go` (walk 90 s, stand
/// 150 s in the open, walk 90 s): the fast, CI-sized check of the numbers the evaluation harness
/// (`benchmarks/accuracy/scheduler`) reports for the whole day.
@Suite(.serialized) struct SchedulerEvaluationTests {
    static let board: BoardDescription? = try? BoardDescription.load(path: RunJobTests.simulatedBoardPath)

    /// One foreground client wanting `best` locations, heading, activity and altitude (the harness's first demand).
    static let demands = [
        Demand(
            client: "app", location: LocationDemand(desiredAccuracy: .best, maximumAgeS: 10),
            heading: HeadingDemand(), activity: true, altitude: true)
    ]

    static func evaluate(_ policy: String) throws -> SchedulingEvaluation.Summary {
        let board = try #require(board)
        let configuration = SchedulingConfiguration(
            policy: policy, demands: demands,
            battery: .simulated(capacityMilliAmpHour: 3000, levelFraction: 1),
            boardBaselineMilliWatt: 0)
        return try SchedulingEvaluation.run(
            board: board, scenario: "stop-and-go", seed: 3, configuration: configuration,
            demandName: "foreground-best")
    }

    @Test func adaptiveTurnsGNSSOffWhileStoppedWakesWithinTwoSecondsAndSpendsLessThanAlwaysOn() throws {
        let adaptive = try Self.evaluate("adaptive")
        let alwaysOn = try Self.evaluate("always-on")
        // Energy: the receiver and the sensors both cost less.
        #expect(alwaysOn.gnssMilliAmpHours > 0 && alwaysOn.imuEtcMilliAmpHours > 0)
        #expect(
            adaptive.gnssMilliAmpHours < alwaysOn.gnssMilliAmpHours * 0.8,
            "GNSS \(adaptive.gnssMilliAmpHours) vs always-on \(alwaysOn.gnssMilliAmpHours) mAh")
        #expect(adaptive.totalMilliAmpHours < alwaysOn.totalMilliAmpHours)
        // The 150 s stop: the receiver is off (or idles in power save) within 30 s.
        let offAfter = try #require(adaptive.gnssOffAfterStopMaxS)
        #expect(offAfter <= 30, "GNSS off \(offAfter) s after the stop")
        #expect(adaptive.gnssNeverOffStops == 0)
        // Walking again: a plan for a moving carrier within 2 s of the start.
        #expect(adaptive.motionStarts == 1)
        let wake = try #require(adaptive.wakePlanMaxS)
        #expect(wake <= 2, "full plan \(wake) s after motion started")
        // Delivered locations: as accurate as asked, and none older than allowed without the stale mark.
        #expect(adaptive.delivered > 100)
        #expect(adaptive.olderThanAllowedUnmarked == 0 && alwaysOn.olderThanAllowedUnmarked == 0)
        #expect((adaptive.shareMeetingByTrueError ?? 0) >= 0.95, "\(adaptive.shareMeetingByTrueError ?? 0)")
        // Always-on never sleeps.
        #expect(alwaysOn.gnssStateS["off"] ?? 0 == 0)
        // Heading by activity: stop-and-go is walking and standing, so those two (and only activities the scenario
        // has) are reported, and together they hold every 1 Hz heading sample.
        let byActivity = adaptive.headingErrorByActivity
        #expect(Set(byActivity.keys) == ["walk", "stationary"], "\(byActivity.keys.sorted())")
        let walk = try #require(byActivity["walk"])
        #expect(walk.samples > 100 && walk.p50Deg <= walk.p95Deg)
        #expect(walk.p95Deg < 10, "walking heading error p95 \(walk.p95Deg)°")
        let overall = try #require(adaptive.headingErrorP95Deg)
        #expect(byActivity.values.map(\.p95Deg).max()! >= overall)
    }

    /// The heading on runs other than the one the board's calibration came from (issue 17: the day scenario's seed 7
    /// had p50 6.7°, p95 9.3°). The simulator drew the accelerometer's zero-g offset anew for every seed, so the
    /// calibration fitted only seed 1's and left 4° of tilt, 8–14° of heading, on the others; the offset now
    /// belongs to the board's unit. With each seed's own unit (the old behaviour) these runs gave p95 9.5° (seed 7)
    /// and 14.4° (seed 11), inside the stated accuracy 28 % and 22 % of the time.
    @Test(arguments: [7, 11] as [UInt64])
    func theBoardsCalibrationHoldsOnOtherSeeds(seed: UInt64) throws {
        let board = try #require(Self.board)
        let configuration = SchedulingConfiguration(
            policy: "always-on", demands: Self.demands,
            battery: .simulated(capacityMilliAmpHour: 3000, levelFraction: 1), boardBaselineMilliWatt: 0)
        let summary = try SchedulingEvaluation.run(
            board: board, scenario: "stop-and-go", seed: seed, configuration: configuration,
            demandName: "foreground-best")
        let p95 = try #require(summary.headingErrorP95Deg)
        #expect(p95 < 3, "seed \(seed): heading error p95 \(p95)°")
        let within = try #require(summary.headingWithinStatedShare)
        #expect(within >= 0.9, "seed \(seed): \(within) of the headings within their stated accuracy")
    }

    @Test func summaryEncodesWithoutNaN() throws {
        let s = try Self.evaluate("duty-cycle")
        let data = try JSONEncoder().encode(s)
        #expect(!data.isEmpty)
        #expect(s.durationS > 300 && s.replansPerHour > 0)
    }
}

/// Location delivery (Core Location's filters, age and staleness) on hand-made locations.
@Suite struct LocationDeliveryTests {
    static func location(northM: Double, timeS: Double, accuracyM: Double = 3, sinceFixS: Double = 0) -> Location {
        // 1 m north ≈ 1 / 111_195 degrees of latitude at 47° N (WGS84 meridian radius 6 367 km there is close enough).
        Location(
            coordinate: Coordinate(latitudeDeg: 47 + northM / 111_195, longitudeDeg: 8), horizontalAccuracyM: accuracyM,
            timeS: timeS, sinceFixS: sinceFixS)
    }

    @Test func deliversOncePerSecondOrAtAFixAndOnlyAfterTheDistanceFilter() {
        var d = LocationDelivery(demand: LocationDemand(desiredAccuracy: .best, distanceFilterM: 20))
        #expect(d.offer(Self.location(northM: 0, timeS: 0), timeS: 0, stationary: false, receiverOff: false) != nil)
        // A fix within half a period of the last delivery waits; a location between fixes waits for the tick.
        #expect(d.offer(Self.location(northM: 50, timeS: 0.3), timeS: 0.3, stationary: false, receiverOff: false) == nil)
        #expect(
            d.offer(Self.location(northM: 50, timeS: 0.5, sinceFixS: 0.2), timeS: 0.5, stationary: false, receiverOff: false)
                == nil)
        // The tick: moved only 10 m.
        #expect(
            d.offer(Self.location(northM: 10, timeS: 1, sinceFixS: 0.7), timeS: 1, stationary: false, receiverOff: false) == nil)
        // A fix as it arrives, once.
        #expect(d.offer(Self.location(northM: 25, timeS: 1.5), timeS: 1.5, stationary: false, receiverOff: false) != nil)
        #expect(d.offer(Self.location(northM: 60, timeS: 1.5), timeS: 1.6, stationary: false, receiverOff: false) == nil)
        #expect(d.deliveredCount == 2)
    }

    @Test func significantChangeNeedsFiveHundredMetresAndFiveMinutes() {
        var d = LocationDelivery(demand: LocationDemand(desiredAccuracy: .kilometer, significantChangeOnly: true))
        #expect(d.offer(Self.location(northM: 0, timeS: 0), timeS: 0, stationary: false, receiverOff: false) != nil)
        #expect(d.offer(Self.location(northM: 600, timeS: 100), timeS: 100, stationary: false, receiverOff: false) == nil)
        #expect(d.offer(Self.location(northM: 400, timeS: 400), timeS: 400, stationary: false, receiverOff: false) == nil)
        #expect(d.offer(Self.location(northM: 900, timeS: 401), timeS: 401, stationary: false, receiverOff: false) != nil)
    }

    @Test func marksLocationsOlderThanTheMaximumAgeAsStaleAndAgesTheLastOne() throws {
        var d = LocationDelivery(demand: LocationDemand(desiredAccuracy: .best, maximumAgeS: 10))
        let first = d.offer(Self.location(northM: 0, timeS: 5, sinceFixS: 2), timeS: 5.5, stationary: false, receiverOff: false)
        let fresh = try #require(first)
        #expect(abs(fresh.ageS - 2.5) < 1e-9 && !fresh.isStale)
        let second = d.offer(Self.location(northM: 5, timeS: 20, sinceFixS: 12), timeS: 20, stationary: false, receiverOff: false)
        let old = try #require(second)
        #expect(old.isStale && d.staleCount == 1)
        let asked = try #require(d.current(atS: 60))
        #expect(abs(asked.ageS - 52) < 1e-9 && asked.isStale)
    }

    @Test func withholdsLocationsLessAccurateThanAskedAndPausesWhileStationaryWithTheReceiverOff() {
        var d = LocationDelivery(demand: LocationDemand(desiredAccuracy: .nearestTenMeters))
        #expect(
            d.offer(Self.location(northM: 0, timeS: 0, accuracyM: 25), timeS: 0, stationary: false, receiverOff: false) == nil)
        #expect(d.withheldInaccurateCount == 1)
        #expect(d.offer(Self.location(northM: 0, timeS: 1, accuracyM: 4), timeS: 1, stationary: true, receiverOff: true) != nil)
        #expect(d.offer(Self.location(northM: 1, timeS: 2, accuracyM: 4), timeS: 2, stationary: true, receiverOff: true) == nil)
        #expect(d.pausedCount == 1)
        #expect(d.offer(Self.location(northM: 1, timeS: 3, accuracyM: 4), timeS: 3, stationary: false, receiverOff: true) != nil)
    }

    @Test func deliversNothingWithoutALocationClient() {
        var d = LocationDelivery(demand: nil)
        #expect(d.offer(Self.location(northM: 0, timeS: 0), timeS: 0, stationary: false, receiverOff: false) == nil)
        #expect(d.current(atS: 1) == nil && d.liveLine(atS: 1) == nil)
    }
}

/// `--demands FILE`: several clients, and one clear line for a broken file.
@Suite struct DemandsFileTests {
    @Test func parsesSeveralClientsWithDefaults() throws {
        let json = #"""
            [{"client": "map", "location": {"accuracy": "10m", "distance_filter_m": 5, "max_age_s": 4}, "heading": {"filter_deg": 2}},
             {"client": "logger", "location": {"accuracy": "100m", "significant_change": true}, "activity": true, "foreground": false}]
            """#
        let demands = try DemandsFile.parse(Data(json.utf8), path: "d.json")
        #expect(demands.count == 2)
        #expect(demands[0].location == LocationDemand(desiredAccuracy: .nearestTenMeters, distanceFilterM: 5, maximumAgeS: 4))
        #expect(demands[0].heading?.headingFilterDeg == 2 && demands[0].foreground)
        #expect(demands[1].location?.significantChangeOnly == true && !demands[1].foreground && demands[1].activity)
    }

    @Test(arguments: [
        (#"[{"client": "a", "location": {"accuracy": "5m"}}]"#, "d.json: client 1 (a): location.accuracy \"5m\" is unknown"),
        (#"[{"location": {}}]"#, "d.json: client 1.client: missing (required)"),
        (#"{"client": "a"}"#, "d.json: top level: expected a JSON list of clients"),
        (
            #"[{"client": "a", "activity": true}, {"client": "a", "altitude": true}]"#,
            "d.json: client 2 (a): client names must be non-empty and unique"
        ),
        (#"[{"client": "a"}]"#, "d.json: client 1 (a): asks for nothing"),
        (
            #"[{"client": "a", "location": {"max_age_s": -1}}]"#,
            "d.json: client 1 (a): location.max_age_s must be a positive number"
        ),
        (#"[]"#, "d.json: the list of clients is empty"),
        (#"[{"client": "a", "#, "d.json: top level: not valid JSON")
    ])
    func rejectsABrokenFileWithOneLineSayingWhereAndWhat(json: String, expected: String) {
        do {
            _ = try DemandsFile.parse(Data(json.utf8), path: "d.json")
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.message.hasPrefix(expected), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }

    @Test func anUnreadableFileSaysSo() {
        #expect(throws: JobError.self) { try DemandsFile.load(path: "/nonexistent/demands.json") }
    }
}

/// `lodestone run` with the scheduler: PLAN messages, the plan in each status, delivered locations, the live view.
@Suite struct SchedulerRunTests {
    func decode(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    @Test func jsonCarriesEveryPlanChangeWithItsCausesThePlanInEachStatusAndDeliveredLocationsWithTheirAge() async throws {
        let board = try BoardDescription.load(path: RunJobTests.simulatedBoardPath)
        var options = RunOptions(board: board, scenario: "stop-and-go", durationS: 140, seed: 2, json: true, speed: 0)
        options.scheduling = SchedulingConfiguration(battery: .simulated(capacityMilliAmpHour: 2000, levelFraction: 0.8))
        let out = CapturedOutput(), err = CapturedOutput()
        #expect(try await RunJob(options: options).run(output: out, errors: err) == 0)
        let messages = out.lines.map(decode)
        let plans = messages.filter { $0["class"] as? String == "PLAN" }
        #expect(plans.count >= 2)
        #expect(plans.map { $0["generation"] as? Int ?? 0 } == plans.map { $0["generation"] as? Int ?? 0 }.sorted())
        for p in plans {
            #expect(!(p["causes"] as? [String] ?? []).isEmpty)
            #expect((p["sensors"] as? [[String: Any]])?.count == 3)
            #expect(p["gnss"] != nil && p["predicted_ma"] is Double)
            #expect((p["battery"] as? [String: Any])?["level_percent"] as? Double ?? 0 > 79)
        }
        // The stop (t = 100 s on) is noticed and planned for.
        #expect(plans.contains { $0["motion"] as? String == "stationary" && ($0["t_s"] as? Double ?? 0) > 100 })
        let statuses = messages.filter { $0["class"] as? String == "STATUS" }
        #expect(
            statuses.count >= 139 && statuses.allSatisfy { ($0["plan"] as? [String: Any])?["policy"] as? String == "adaptive" })
        let deliveries = messages.filter { $0["class"] as? String == "DELIVERY" }
        #expect(deliveries.count > 50)
        #expect(deliveries.allSatisfy { $0["age_s"] is Double && $0["stale"] is Bool && $0["location"] is [String: Any] })
    }

    @Test func liveViewShowsThePlanItsDrawAndWhy() async throws {
        let board = try BoardDescription.load(path: RunJobTests.simulatedBoardPath)
        // The live view is drawn in a terminal only (without one, `run` logs state changes: StateChangeLogTests).
        var options = RunOptions(board: board, scenario: "stop-and-go", durationS: 20, seed: 2, speed: 0, isTerminal: true)
        options.scheduling = SchedulingConfiguration(policy: "raps", battery: .none)
        let out = CapturedOutput(), err = CapturedOutput()
        #expect(try await RunJob(options: options).run(output: out, errors: err) == 0)
        let text = out.raw
        #expect(text.contains("plan      raps #"))
        #expect(text.contains(" mA / ") && text.contains(" mAh"))
        #expect(text.contains("battery none (external power), tier unrestricted"))
        #expect(text.contains("why: "))
        #expect(text.contains("delivered "))
    }

    @Test func helpListsTheSchedulerOptions() throws {
        let r = try CLI.run(["run", "--help"])
        for flag in [
            "--policy", "--accuracy", "--distance-filter", "--significant-change", "--max-age", "--heading-filter",
            "--no-location", "--no-heading", "--no-activity", "--no-altitude", "--background", "--demands", "--battery"
        ] {
            #expect(r.stdout.contains(flag), "run --help lacks \(flag)")
        }
    }

    @Test(arguments: [
        (["--policy", "greedy"], "--policy greedy is unknown; allowed: adaptive, always-on, duty-cycle, raps"),
        (["--accuracy", "5m"], "--accuracy 5m is unknown"),
        (["--battery", "simulated:lots"], "--battery simulated:lots is not understood"),
        (["--battery", "simulated:3000:140"], "the level must be a percentage between 0 and 100"),
        (["--max-age", "0"], "--max-age must be a positive number of seconds"),
        (["--no-location", "--no-heading", "--no-activity", "--no-altitude"], "leave nothing to serve"),
        (["--demands", "/nonexistent/demands.json"], "/nonexistent/demands.json: cannot read the demands file")
    ])
    func badSchedulerOptionsFailWithOneLine(arguments: [String], expected: String) throws {
        let r = try CLI.run(["run", "--duration", "1", "--speed", "0"] + arguments)
        #expect(r.status != 0)
        #expect(r.stderr.contains(expected), "\(r.stderr)")
    }
}
