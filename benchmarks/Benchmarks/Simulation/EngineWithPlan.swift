// The engine's per-sample path with a scheduler's plan applied (issue 8): one `Engine.step` on the simulated board
// of boards/simulated.json (`mixed-day`), with the MPU-9250 planned into low power at 31.25 Hz with wake-on-motion
// armed (so that every IMU read is followed by a poll of its INT_STATUS and, when it fired, a `.motionWake` event), the
// LIS3MDL and BMP280 at their board rates, and the simulated receiver in power save (a fix every 10 s). Each measured
// iteration is 1000 engine steps (the next due instant of any source each: ≈ 10 s of scenario time).
//
// `Engine.stepWithFIFO`: the same with an LSM6DSL alone, planned at 104 Hz into its FIFO and drained at 4 Hz (each
// drain hands out ≈ 26 readings), and the receiver polled at 10 Hz: the batching path.

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneEngine
import LodestoneEvaluation
import LodestoneScheduler
import LodestoneSimulation

/// The engine, its simulated world and how many events it has handed out.
final class EngineFixture {
    private(set) var engine: Engine
    private(set) var world: SimulatedWorld
    var events = 0
    var wakes = 0

    let batching: Bool

    init(batching: Bool = false) throws {
        self.batching = batching
        (engine, world) = try Self.make(batching: batching)
    }

    func restart() throws {
        (engine, world) = try Self.make(batching: batching)
    }

    /// The LSM6DSL board of `Engine.stepWithFIFO`.
    static let fifoBoard = BoardDescription(
        name: "LSM6DSL", sensors: [.init(id: "imu", chip: "lsm6dsl", bus: .simulated, address: 0x6A, rateHz: 104)],
        simulation: .init(scenario: Scenario.defaultName))

    private static func make(batching: Bool) throws -> (Engine, SimulatedWorld) {
        if batching {
            let runtime = try BoardRuntime.assemble(fifoBoard, seed: 1, scenario: nil)
            guard let world = runtime.world else { throw SimulationError("the simulated board has no world") }
            var engine = Engine(sources: runtime.sources)
            while engine.nextDueS < 0.1 { engine.step(prepare: { world.advance(toTimeS: $0) }) { _ in } }
            try engine.apply(
                SensorPlan(
                    id: "imu", enabled: true, configuration: SensorConfiguration(rateHz: 104), readRateHz: 4,
                    fifoDepthSamples: 26), timeS: engine.timeS)
            return (engine, world)
        }
        let runtime = try BoardRuntime.assemble(
            LocationTrial.simulatedBoard(scenario: Scenario.defaultName), seed: 1, scenario: nil)
        guard let world = runtime.world else { throw SimulationError("the simulated board has no world") }
        var engine = Engine(sources: runtime.sources)
        while engine.nextDueS < 0.1 { engine.step(prepare: { world.advance(toTimeS: $0) }) { _ in } }
        try engine.apply(
            SensorPlan(
                id: "imu", enabled: true,
                configuration: SensorConfiguration(rateHz: 31.25, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5),
                readRateHz: 31.25), timeS: engine.timeS)
        try engine.apply(GNSSPlan(id: "gnss", mode: .powerSave(updatePeriodS: 10)), timeS: engine.timeS)
        return (engine, world)
    }

    /// Advances the engine one step.
    func step() {
        let world = self.world
        engine.step(prepare: { world.advance(toTimeS: $0) }) { event in
            events += 1
            if case .motionWake = event { wakes += 1 }
        }
    }
}

let engineBenchmarks: @Sendable () -> Void = {
    Benchmark("Engine.stepWithPlan", configuration: LodestoneBenchmarkPolicy.configuration) { benchmark, fixture in
        if fixture.engine.timeS > scenario.totalDurationS { try fixture.restart() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.step() }
        benchmark.stopMeasurement()
        precondition(fixture.events > 0, "the engine handed out no events")
        blackHole(fixture.wakes)
    } setup: {
        try EngineFixture()
    }

    Benchmark("Engine.stepWithFIFO", configuration: LodestoneBenchmarkPolicy.configuration) { benchmark, fixture in
        if fixture.engine.timeS > scenario.totalDurationS { try fixture.restart() }
        let before = fixture.events
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.step() }
        benchmark.stopMeasurement()
        // 1000 steps at 14 Hz (4 Hz drains, 10 Hz receiver polls) ≈ 71 s: ≈ 7400 readings from ≈ 290 drains.
        precondition(fixture.events - before > 5 * benchmark.scaledIterations.count, "the FIFO drains delivered too few readings")
    } setup: {
        try EngineFixture(batching: true)
    }
}
