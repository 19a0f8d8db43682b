// The engine's per-sample path with a scheduler's plan applied (issue 8): one `Engine.step` on the simulated board
// of boards/simulated.json (`mixed-day`), with the MPU-9250 planned into low power at 31.25 Hz with wake-on-motion
// armed (so that every IMU read is followed by a poll of its INT_STATUS and, when it fired, a `.motionWake` event), the
// LIS3MDL and BMP280 at their board rates, and the simulated receiver in power save (a fix every 10 s). Each measured
// iteration is 1000 engine steps (the next due instant of any source each: ≈ 10 s of scenario time).

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneEngine
import LodestoneScheduler
import LodestoneSimulation

/// The engine, its simulated world and how many events it has handed out.
final class EngineFixture {
    private(set) var engine: Engine
    private(set) var world: SimulatedWorld
    var events = 0
    var wakes = 0

    init() throws {
        (engine, world) = try Self.make()
    }

    func restart() throws {
        (engine, world) = try Self.make()
    }

    private static func make() throws -> (Engine, SimulatedWorld) {
        let runtime = try BoardRuntime.assemble(LocationTrial.simulatedBoard(scenario: Scenario.defaultName), seed: 1, scenario: nil)
        guard let world = runtime.world else { throw SimulationError("the simulated board has no world") }
        var engine = Engine(sources: runtime.sources)
        while engine.nextDueS < 0.1 { engine.step(prepare: { world.advance(toTimeS: $0) }) { _ in } }
        try engine.apply(SensorPlan(id: "imu", enabled: true,
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
}
