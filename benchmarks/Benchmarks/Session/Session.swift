// The session's per-sample path (issue 14): `SessionCore.step` on the simulated board of boards/simulated.json (the
// adaptive scheduler) with one stream of each kind attached and held open, never read (so each typed update is
// pushed into a full ring: the oldest is dropped): locations (.fitness), headings (filter 0, at most 20 Hz), device
// motion at 50 Hz, activity, pedometer, altitude at 1 Hz, raw samples of the barometer.
//
// `Session.stepWithTypedStreams`: those streams only, on the `walk` once it walks (after 60 s: the plan no longer
// changes), 1000 steps (≈ 6 s) per measured iteration as in every suite: a step no stream wants and a step whose
// typed update (a value type) is pushed must both allocate nothing, so that even one allocation per 1000 steps shows.
//
// `Session.stepWithEveryStream`: the same plus the wire (`messages`, every class but SAMPLE, 1 Hz) and a status
// stream (1 Hz), on `mixed-day`. Those build messages and snapshots once a second, which allocates (strings,
// arrays) in about 1 step of 165, and so does applying a new plan to the chips (motion changes); so each measured
// iteration here is ONE step, and the p90 is the malloc count of a typical sample.

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneEngine
import LodestoneEvaluation
import LodestoneMonitoring
import LodestoneStore
import Foundation
import LodestoneSimulation
import LodestoneWire

/// A session loop with streams attached, their iterators held so that they stay registered.
final class SessionFixture {
    private(set) var core: SessionCore
    private var iterators: [Any] = []
    let everyStream: Bool
    /// 1 000 regions, significant change and visits besides the streams.
    let monitors: Bool
    let scenario: String
    /// Unmeasured session time at the start, s: the streams join, plans settle, fusion and the rings are sized.
    let warmUpS: Double
    /// When the scenario is rebuilt, s (before its final stop changes the plan again).
    let restartS: Double

    init(everyStream: Bool, monitors: Bool = false, scenario: String, warmUpS: Double, restartS: Double) throws {
        self.everyStream = everyStream
        self.monitors = monitors
        self.scenario = scenario
        self.warmUpS = warmUpS
        self.restartS = restartS
        core = try Self.make(scenario)
        try restart()
    }

    private static func make(_ scenario: String) throws -> SessionCore {
        let board = LocationTrial.simulatedBoard(scenario: scenario)
        return try SessionCore(configuration: SessionConfiguration(board: board, scenario: scenario, seed: 1, speed: 0))
    }

    private func attach() {
        iterators = []
        if monitors {
            // 1 000 regions of 50 m–5 km scattered 20–200 km away (none decided in or out differently during the walk)
            // and 50 around the walk's start (1 km, decided once), plus significant change and visits.
            // Placed on a golden-angle spiral: deterministic, spread evenly.
            let key = MonitorKey(client: "bench", name: "regions")
            func fraction(_ x: Double) -> Double { x - x.rounded(.down) }
            for k in 0..<1_000 {
                let bearing = Double(k) * 2.399_963, distanceDeg = 0.2 + 1.8 * fraction(Double(k) * 0.618_034)
                try? core.addCondition(
                    try! CircularRegion(
                        id: "r\(k)", latitudeDeg: 47.37 + distanceDeg * cos(bearing),
                        longitudeDeg: 8.54 + distanceDeg * sin(bearing),
                        radiusM: 50 * pow(100, fraction(Double(k) * 0.754_878))), to: key)
            }
            iterators.append(core.monitorEventUpdates(key).makeAsyncIterator())
            iterators.append(core.significantChangeUpdates().makeAsyncIterator())
            iterators.append(core.visitUpdates().makeAsyncIterator())
        }
        iterators.append(core.locationUpdates(.fitness).makeAsyncIterator())
        iterators.append(core.headingUpdates(filterDeg: 0).makeAsyncIterator())
        iterators.append(core.deviceMotionUpdates(rateHz: 50).makeAsyncIterator())
        iterators.append(core.activityUpdates().makeAsyncIterator())
        iterators.append(core.pedometerUpdates().makeAsyncIterator())
        iterators.append(core.altitudeUpdates(rateHz: 1).makeAsyncIterator())
        iterators.append(core.sensorUpdates(["baro"]).makeAsyncIterator())
        if everyStream {
            iterators.append(
                core.messages(Wire.Class.defaultSet, options: SubscriptionOptions(buffering: .newest(64))).makeAsyncIterator())
            iterators.append(core.statusUpdates(periodS: 1).makeAsyncIterator())
        }
    }

    func restart() throws {
        core = try Self.make(scenario)
        attach()
        while core.state.timeS < warmUpS { step() }
    }

    func step() {
        guard let t = core.nextStepTimeS else { return }
        core.step(at: t)
    }
}

let sessionBenchmarks: @Sendable () -> Void = {
    Benchmark("Session.stepWithTypedStreams", configuration: LodestoneBenchmarkPolicy.configuration) { benchmark, fixture in
        if fixture.core.state.timeS > fixture.restartS { try fixture.restart() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.step() }
        benchmark.stopMeasurement()
        blackHole(fixture.core.state.timeS)
    } setup: {
        // walk: 10 s still, then 300 s walking around a block; its last 10 s are still again.
        try SessionFixture(everyStream: false, scenario: "walk", warmUpS: 60, restartS: 290)
    }

    // `Session.stepWithMonitors`: the typed streams plus 1 000 regions, significant change and visits on the walk.
    // Up to 40 iterations (10 s at most) rather than the usual half second: 40 × 1000 steps cover the walk's whole
    // measured part (60–290 s) and a restart, so a per-second or per-fix allocation in monitoring (re-deriving its
    // demands, logging events) lands in the measured window whatever the machine's speed.
    var monitorsConfiguration = LodestoneBenchmarkPolicy.configuration
    monitorsConfiguration.maxDuration = .seconds(10)
    monitorsConfiguration.maxIterations = 40
    Benchmark("Session.stepWithMonitors", configuration: monitorsConfiguration) { benchmark, fixture in
        if fixture.core.state.timeS > fixture.restartS { try fixture.restart() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.step() }
        benchmark.stopMeasurement()
        blackHole(fixture.core.state.timeS)
    } setup: {
        try SessionFixture(everyStream: false, monitors: true, scenario: "walk", warmUpS: 60, restartS: 290)
    }

    var perStep = LodestoneBenchmarkPolicy.configuration
    perStep.scalingFactor = .one
    perStep.maxIterations = 20_000
    Benchmark("Session.stepWithEveryStream", configuration: perStep) { benchmark, fixture in
        if fixture.core.state.timeS > fixture.restartS { try fixture.restart() }
        benchmark.startMeasurement()
        fixture.step()
        benchmark.stopMeasurement()
        blackHole(fixture.core.state.timeS)
    } setup: {
        try SessionFixture(everyStream: true, scenario: Scenario.defaultName, warmUpS: 12, restartS: 3600)
    }
}

let benchmarks: @Sendable () -> Void = {
    sessionBenchmarks()
}
