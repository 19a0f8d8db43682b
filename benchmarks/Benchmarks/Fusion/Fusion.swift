// The orientation filter's per-sample cost on real data: one 9D update (gyroscope, accelerometer and
// magnetometer of one BROAD sample) of `OrientationFilter`, and one sample through the whole orientation stage
// of the pipeline (filter, heading, declination, heading filter), as `lodestone replay` and `run` drive it.
//
// Input: BROAD trial 21 (undisturbed, fast combined rotation and translation: the busiest trial) from
// ../shared/datasets/broad, parsed once before measuring. Each measured iteration runs 1000 consecutive
// samples and the next iteration continues where it stopped; at the end of the trial the filter restarts,
// unmeasured. benchmarks/accuracy/orientation/run.py runs VQF's C++ core on the same file in the same run.

import Benchmark
import BenchmarkSupport
import Foundation
import LodestoneCore
import LodestoneEngine
import LodestoneOrientation

/// The trial: `LODESTONE_BROAD_TRIAL` if set, else trial 21 in the shared datasets beside the repository.
let trialPath =
    ProcessInfo.processInfo.environment["LODESTONE_BROAD_TRIAL"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../../shared/datasets/broad/21_undisturbed_fast_combined.csv.gz").standardized.path

/// One sample of the trial, as the filter takes it.
struct Sample {
    var timeS: Double
    var gyroscopeRadS: Vector3
    var accelerometerMps2: Vector3
    var magnetometerMicroTesla: Vector3
}

/// The whole trial, or the reason it could not be read.
let trial: Result<[Sample], TraceError> = {
    do throws(TraceError) {
        var parser = TraceParser(text: try TraceFiles.readText(path: trialPath), path: trialPath)
        var samples: [Sample] = []
        while let row = try parser.next() {
            guard let g = row.angularVelocityRadS, let a = row.accelerationMps2, let m = row.magneticFieldMicroTesla else {
                continue
            }
            samples.append(Sample(timeS: row.timeS, gyroscopeRadS: g, accelerometerMps2: a, magnetometerMicroTesla: m))
        }
        return .success(samples)
    } catch { return .failure(error) }
}()

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("OrientationFilter.update9D", configuration: configuration) { benchmark in
        guard case .success(let samples) = trial, samples.count > 2_000 else {
            benchmark.error("cannot read the BROAD trial \(trialPath): \(trial); set LODESTONE_BROAD_TRIAL to a BROAD .csv.gz")
            return
        }
        var filter = OrientationFilter()
        var index = 0
        // Warm the filter past its start-up (fast initialisation, first reference field) before measuring.
        while index < 1_000 {
            let s = samples[index]
            filter.update(
                timeS: s.timeS, gyroscopeRadS: s.gyroscopeRadS, accelerometerMps2: s.accelerometerMps2,
                magnetometerMicroTesla: s.magnetometerMicroTesla)
            index += 1
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let s = samples[index]
            blackHole(
                filter.update(
                    timeS: s.timeS, gyroscopeRadS: s.gyroscopeRadS, accelerometerMps2: s.accelerometerMps2,
                    magnetometerMicroTesla: s.magnetometerMicroTesla))
            index += 1
            if index == samples.count { index = 0; filter = OrientationFilter() }
        }
        benchmark.stopMeasurement()
        blackHole(filter.boardToENU)
    }

    Benchmark("OrientationStage.process", configuration: configuration) { benchmark in
        guard case .success(let samples) = trial, samples.count > 2_000 else {
            benchmark.error("cannot read the BROAD trial \(trialPath): \(trial); set LODESTONE_BROAD_TRIAL to a BROAD .csv.gz")
            return
        }
        // A configured position and date, so the true heading (World Magnetic Model) is part of the work.
        var fusion = FusionConfiguration()
        fusion.latitudeDeg = 52.5
        fusion.longitudeDeg = 13.3
        fusion.heightAboveEllipsoidM = 80
        fusion.decimalYear = 2026.2
        var context = FusionContext()
        context.latitudeDeg = fusion.latitudeDeg
        context.longitudeDeg = fusion.longitudeDeg
        context.heightAboveEllipsoidM = fusion.heightAboveEllipsoidM
        context.decimalYear = fusion.decimalYear
        var stage = OrientationStage(configuration: fusion)
        func sample(_ s: Sample) -> FusionSample {
            FusionSample(
                reading: SensorReading(
                    timeS: s.timeS, accelerationMps2: s.accelerometerMps2,
                    angularVelocityRadS: s.gyroscopeRadS, magneticFieldMicroTesla: s.magnetometerMicroTesla))
        }
        var index = 0
        while index < 1_000 { stage.process(sample(samples[index]), context: &context); index += 1 }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            stage.process(sample(samples[index]), context: &context)
            index += 1
            if index == samples.count { index = 0; stage = OrientationStage(configuration: fusion) }
        }
        benchmark.stopMeasurement()
        blackHole(stage.heading)
    }
}
