import Foundation
@testable import LodestoneEvaluation
import Testing
import LodestoneCore
import LodestoneLocation
import LodestoneMonitoring
import LodestoneSimulation
@testable import LodestoneEngine

/// Region monitoring alone priced by the energy model and scored against the truth, on the first
/// `MonitoringEnergyTests.durationS` of `hour-errands` (rest indoors, walk, wait outdoors, walk, drive): the CI-sized
/// check of what the scheduler harness's `--monitoring` mode reports for the whole day. It fails when monitoring stops
/// saving receiver energy against always-on (a demand that keeps the receiver continuous), or when the session's events
/// stop agreeing with the true crossings (an event missed, made twice or made where the truth did not cross).
@Suite(.serialized) struct MonitoringEnergyTests {
    static let board: BoardDescription? = try? BoardDescription.load(path: RunJobTests.simulatedBoardPath)
    static let scenario = "hour-errands"
    static let seed: UInt64 = 3
    /// Rest indoors, both walks, the wait and half the first drive: enough crossings and motion to price, s.
    static let durationS = 1_200.0

    /// The regions: 6 on the route and 6 a few hundred metres off it, radii 100 m–1 km (no marginal-size regions:
    /// what is asserted is the rule for r ≥ 100 m).
    static func regions(_ truth: [MonitoringEvaluation.TruthPoint]) -> [CircularRegion] {
        MonitoringEvaluation.placeRegions(
            truth: truth, seed: seed, onRoute: 6, offRoute: 6, offRouteGapM: 100...600, radiusM: 100...1_000)
    }

    @Test func monitoringAloneSpendsFarLessReceiverEnergyThanAlwaysOnAndItsEventsMatchTheTruth() throws {
        let board = try #require(Self.board)
        let scenario = try #require(Scenario.named(Self.scenario))
        let truth = MonitoringEvaluation.truth(scenario: scenario, seed: Self.seed, durationS: Self.durationS)
        let regions = Self.regions(truth)
        #expect(regions.count == 12)
        let setup = SchedulingEvaluation.MonitoringSetup(regions: regions, name: "regions")
        let monitoring = try SchedulingEvaluation.runMonitoring(
            board: board, scenario: Self.scenario, seed: Self.seed, policy: "adaptive", setup: setup,
            durationS: Self.durationS)
        let alwaysOn = try SchedulingEvaluation.runMonitoring(
            board: board, scenario: Self.scenario, seed: Self.seed, policy: "always-on", setup: setup,
            durationS: Self.durationS)

        // Energy: the receiver (and everything together) costs clearly less than always-on.
        let m = monitoring.summary, a = alwaysOn.summary
        #expect(a.gnssMilliWattHours > 0)
        #expect(
            m.gnssMilliWattHours < 0.5 * a.gnssMilliWattHours,
            "receiver \(m.gnssMilliWattHours) mWh vs always-on \(a.gnssMilliWattHours) mWh")
        #expect(
            m.totalMilliWattHours < 0.5 * a.totalMilliWattHours, "total \(m.totalMilliWattHours) vs \(a.totalMilliWattHours) mWh")
        // Always-on never turns the receiver off; monitoring does (at rest indoors, at the wait).
        #expect(a.gnssStateS["off"] ?? 0 == 0)
        #expect((m.gnssStateS["off"] ?? 0) + (m.gnssStateS["powerSaveIdle"] ?? 0) > 0.3 * Self.durationS)

        // Events: the session's, against the true crossings.
        let score = MonitoringEvaluation.scoreRegions(truth: truth, regions: regions, events: monitoring.regionEvents)
        #expect(score.clearCrossings >= 3, "only \(score.clearCrossings) clear crossings: the test checks nothing")
        #expect(score.missedClearLarge == 0, "\(score.detail)")
        #expect(score.falseEventsLarge == 0, "\(score.detail)")
        #expect(score.wrongFirstDecisions == 0)
        #expect(score.firstDecisions >= 10, "\(score.firstDecisions) of 12 regions decided")
        // The same monitor over always-on fused locations agrees with the truth too (the reference is sound).
        let reference = MonitoringEvaluation.scoreRegions(truth: truth, regions: regions, events: alwaysOn.regionEvents)
        #expect(reference.missedClearLarge == 0 && reference.falseEventsLarge == 0, "\(reference.detail)")
    }

    /// The scoring itself: an event at each true crossing scores clean; dropping one is a miss, a duplicate is false.
    @Test func scoringCountsAMissedAndAFalseEvent() throws {
        let scenario = try #require(Scenario.named(Self.scenario))
        let truth = MonitoringEvaluation.truth(scenario: scenario, seed: Self.seed, durationS: Self.durationS)
        let regions = Self.regions(truth)
        // Perfect events: a first decision at t = 0 with the truth's state, then one event 2 s after each clear crossing.
        var events: [MonitorEvent] = []
        var id: UInt64 = 1
        let at0 = truth[0].coordinate
        for r in regions {
            let inside = (at0.distanceM(to: r.center) ?? 0) < r.radiusM
            let l = Location(coordinate: at0, horizontalAccuracyM: 5, timeS: 0)
            events.append(
                MonitorEvent(
                    id: id, conditionId: r.id, state: inside ? .satisfied : .unsatisfied, previousState: .unknown, timeS: 0,
                    location: l))
            id += 1
            let depths = MonitoringEvaluation.signedDepthsM(truth, r)
            for c in MonitoringEvaluation.crossings(truth, depthsM: depths)
            where c.observable && c.depthM >= MonitoringEvaluation.marginalDepthM
                && c.durationS >= MonitoringEvaluation.marginalDurationS
            {
                events.append(
                    MonitorEvent(
                        id: id, conditionId: r.id, state: c.entering ? .satisfied : .unsatisfied,
                        previousState: c.entering ? .unsatisfied : .satisfied, timeS: c.timeS + 2, location: l))
                id += 1
            }
        }
        let clean = MonitoringEvaluation.scoreRegions(truth: truth, regions: regions, events: events)
        #expect(clean.clearCrossings > 0 && clean.missedClear == 0 && clean.falseEvents == 0 && clean.wrongFirstDecisions == 0)
        let crossing = try #require(events.firstIndex { $0.previousState != .unknown })
        var dropped = events
        let removed = dropped.remove(at: crossing)
        let missed = MonitoringEvaluation.scoreRegions(truth: truth, regions: regions, events: dropped)
        #expect(missed.missedClear == 1)
        var duplicated = events
        var copy = removed
        copy.id = id
        copy.timeS += 600
        duplicated.append(copy)
        #expect(MonitoringEvaluation.scoreRegions(truth: truth, regions: regions, events: duplicated).falseEvents >= 1)
    }
}
