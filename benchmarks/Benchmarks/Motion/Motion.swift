// The motion stage's per-sample work: one IMU sample (and, every fourth, a barometer reading) through
// `MotionEstimator.process` — altitude filter, floor counter, step detector and pedometer, the activity
// feature extractor and, once a second, the boosted-tree model and the hidden Markov model — and the same
// through the engine's `MotionStage` with its `FusionContext`.
//
// The input is the `stairs-and-lift` scenario's truth (walk, stairs, lift) at 100 Hz with a 25 Hz barometer,
// computed unmeasured in the setup, so each measured iteration is 1000 samples (10 s) of real per-sample work,
// including ten activity evaluations; the fixture keeps its state between iterations, and at the end of the recording
// the samples loop with time running on (the estimator never restarts).

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneEngine
import LodestoneMotion
import LodestoneSimulation

/// Sample period, s (100 Hz).
let samplePeriodS = 0.01

/// Samples of a simulated scenario, precomputed (the generator is not what is measured).
let samples: [SensorReading] = {
    let scenario = Scenario.named("stairs-and-lift")! // in the catalog; a missing one is a bug
    var generator = TrajectoryGenerator(scenario: scenario, seed: 1)
    var out: [SensorReading] = []
    var i = 0
    while Double(i) * samplePeriodS < scenario.totalDurationS {
        let t = Double(i) * samplePeriodS
        let truth = generator.sample(atTimeS: t)
        out.append(
            SensorReading(
                timeS: t, pressurePa: i % 4 == 0 ? truth.pressurePa : nil,
                accelerationMps2: truth.specificForceBoardMps2,
                angularVelocityRadS: truth.angularVelocityBoardRadS))
        i += 1
    }
    return out
}()

/// The samples in a loop, time running on across restarts.
struct Feed {
    var index = 0
    var timeOffsetS = 0.0

    mutating func next() -> SensorReading {
        if index == samples.count {
            index = 0
            timeOffsetS += Double(samples.count) * samplePeriodS
        }
        var r = samples[index]
        r.timeS += timeOffsetS
        index += 1
        return r
    }
}

final class EstimatorFixture {
    var estimator = MotionEstimator()
    var feed = Feed()

    /// A fixture after 10 s of samples (the activity window is full, the filters settled).
    static func warmedUp() -> EstimatorFixture {
        let f = EstimatorFixture()
        for _ in 0..<1000 { _ = f.estimator.process(reading: f.next(), fix: nil, boardToENU: nil) }
        return f
    }

    func next() -> SensorReading { feed.next() }
}

final class StageFixture {
    var stage = MotionStage(configuration: FusionConfiguration())
    var context = FusionContext()
    var feed = Feed()

    /// A fixture after 10 s of samples.
    static func warmedUp() -> StageFixture {
        let f = StageFixture()
        for _ in 0..<1000 { f.stage.process(f.next(), context: &f.context) }
        return f
    }

    func next() -> FusionSample { FusionSample(reading: feed.next()) }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("MotionEstimator.process", configuration: configuration) { benchmark, fixture in
        var evaluations = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let changes = fixture.estimator.process(reading: fixture.next(), fix: nil, boardToENU: nil)
            if changes.contains(.activityEvaluated) { evaluations += 1 }
            blackHole(changes)
        }
        benchmark.stopMeasurement()
        // 1000 samples at 100 Hz hold about ten activity evaluations (fewer only across a restart).
        precondition(evaluations >= 5, "the activity classifier was not exercised")
    } setup: {
        EstimatorFixture.warmedUp()
    }

    Benchmark("MotionStage.process", configuration: configuration) { benchmark, fixture in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.stage.process(fixture.next(), context: &fixture.context)
            blackHole(fixture.context.activity)
        }
        benchmark.stopMeasurement()
    } setup: {
        StageFixture.warmedUp()
    }
}
