// The scheduler glue's per-sample path (issue 8): what `lodestone run` does after every sample of a scheduled run —
// `ScheduledSampling.observe(_:)` (the accelerometer sample to the any-motion detector), `observe(activity:timeS:)`
// and `update(engine:timeS:)` (energy account, receiver power state every 0.2 s, the re-plan check) — on the simulated
// board (boards/simulated.json, `stop-and-go`) under the adaptive policy, with the carrier at rest so that the plan
// does not change. One operation is one 100 Hz accelerometer sample; each measured iteration is 1000 of them (10 s).
// The battery is external power here: a battery is read every 30 s, not per sample.

import Benchmark
import BenchmarkSupport
import Foundation
import LodestoneCore
import LodestoneEngine
import LodestoneMotion
import LodestoneScheduler

let boardPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../boards/simulated.json").standardized.path

/// The glue and the engine after 30 s of simulated rest (sources started, the stationary plan applied).
final class GlueFixture {
    var engine: Engine
    var sampling: ScheduledSampling
    var timeS: Double
    var changes = 0

    init() {
        do {
            let board = try BoardDescription.load(path: boardPath)
            let runtime = try BoardRuntime.assemble(board, seed: 1, scenario: "stationary")
            var engine = Engine(sources: runtime.sources)
            var sampling = try ScheduledSampling(
                sensors: runtime.plannedSensors, receiver: runtime.plannedReceiver,
                configuration: SchedulingConfiguration(battery: .none))
            var t = 0.0
            while t < 30 {
                t = engine.step(prepare: { runtime.world?.advance(toTimeS: $0) }) { event in sampling.observe(event) }
                _ = sampling.update(engine: &engine, timeS: t)
            }
            self.engine = engine
            self.sampling = sampling
            timeS = t
        } catch { preconditionFailure("benchmark setup: \(error)") }
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("ScheduledSampling.observeAndReplanCheck", configuration: configuration) { benchmark, fixture in
        let activity = MotionActivity(kind: .stationary, confidence: .high, startTimeS: 0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            fixture.timeS += 0.01
            // At rest with a little noise: gravity up the board's z axis.
            let jitter = Double(i % 7) * 1e-3
            let reading = SensorReading(timeS: fixture.timeS, accelerationMps2: Vector3(jitter, -jitter, 9.806 + jitter))
            fixture.sampling.observe(.reading(sensor: "imu", reading))
            fixture.sampling.observe(activity: activity, timeS: fixture.timeS)
            if case .changed = fixture.sampling.update(engine: &fixture.engine, timeS: fixture.timeS) { fixture.changes += 1 }
        }
        benchmark.stopMeasurement()
        blackHole(fixture.changes)
    } setup: {
        GlueFixture()
    }
}
