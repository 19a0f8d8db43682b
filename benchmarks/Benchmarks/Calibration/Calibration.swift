// The calibration's per-sample work: what `run` and `replay` do to every reading (the calibration stage and
// the corrections it applies), and what a guided session does with every sample (magnetometer, accelerometer
// with its still detection, gyroscope). Fits, coverage redraws and the final checks run once a second or
// once, not per sample, and are not here.

import Benchmark
import BenchmarkSupport
import LodestoneCalibration
import LodestoneCore
import LodestoneEngine

/// A calibration for a board with an IMU (accelerometer, gyroscope, magnetometer), a magnetometer and a barometer.
func makeDocument() -> CalibrationDocument {
    let date = "2026-07-02T10:00:00Z"
    let w = Matrix3(rows: Vector3(0.97, -0.02, 0), Vector3(-0.02, 1.03, -0.01), Vector3(0, -0.01, 1.0))
    let magnetometer = MagnetometerCalibration(
        date: date, temperatureC: nil, grade: .good, hardIronMicroTesla: Vector3(12, -7.5, 4),
        softIronCorrection: w, fieldStrengthMicroTesla: 48, expectedFieldMicroTesla: nil,
        latitudeDeg: nil, longitudeDeg: nil, residualMicroTesla: 0.3, coveragePercent: 95,
        samples: 1800, outliers: 0, motionS: nil, mountingCheck: "consistent")
    var imu = SensorCalibration(id: "imu", chip: "mpu9250")
    imu.magnetometer = magnetometer
    imu.accelerometer = AccelerometerCalibration(
        date: date, temperatureC: nil, grade: .good, offsetMps2: Vector3(0.4, 0.4, 0.3),
        correction: .identity, gravityMps2: 9.8069, residualMps2: 0.01, positions: 6)
    imu.gyroscope = GyroscopeCalibration(
        date: date, temperatureC: nil, biasRadS: Vector3(0.01, 0, -0.006), noiseRMSRadS: .zero,
        durationS: 10, noiseDensityRadSPerRootHz: nil, biasInstabilityRadS: nil,
        rateRandomWalkRadSPerRootS: nil)
    var mag = SensorCalibration(id: "mag", chip: "lis3mdl")
    mag.magnetometer = magnetometer
    var baro = SensorCalibration(id: "baro", chip: "bmp280")
    baro.barometer = BarometerCalibration(
        date: date, temperatureC: nil, offsetPa: 30, altitudeMSLM: 408, qnhPa: nil,
        expectedPressurePa: 96_600, measuredPressurePa: 96_630, noisePa: 1.3, durationS: 10)
    return CalibrationDocument(board: "Simulated board", sensors: [imu, mag, baro])
}

/// A 9-axis reading that changes with `k` (so nothing is hoisted).
@inline(__always)
func reading(_ k: Int) -> SensorReading {
    let a = Double(k % 360) * 0.0174
    return SensorReading(
        timeS: Double(k) * 0.01, pressurePa: 96_600 + a, accelerationMps2: Vector3(0.1 * a, 0.2, 9.8),
        angularVelocityRadS: Vector3(0.01, a * 0.001, 0), magneticFieldMicroTesla: Vector3(20 + a, -5, -40))
}

final class StageFixture {
    var stage: CalibrationStage
    let ids = ["imu", "mag", "baro"]
    init() {
        var c = FusionConfiguration()
        c.calibration = CalibrationStage.Configuration(document: makeDocument(), path: "simulated.json")
        stage = CalibrationStage(configuration: c)
    }
}

final class MagnetometerFixture {
    var session = MagnetometerSession()
    var k = 0
    init() {
        // A fit in place, as after the first second of a session, so each sample also updates the coverage.
        for i in 0..<200 {
            let q = Quaternion(axis: Vector3(Double(i % 7) - 3, Double(i % 5) - 2, 1), angleRad: Double(i) * 0.37)
            session.add(fieldMicroTesla: q.rotate(Vector3(0.9, 21.3, -43.3)) + Vector3(12, -7.5, 4))
        }
        session.refit()
        precondition(session.fit != nil, "the fixture's fit failed")
    }
}

final class AccelerometerFixture {
    var session = AccelerometerSession()
    var k = 0
}

final class GyroscopeFixture {
    static let parameters: GyroscopeSession.Parameters = {
        var p = GyroscopeSession.Parameters()
        p.durationS = 600
        return p
    }()
    var session = GyroscopeSession(parameters: GyroscopeFixture.parameters, expectedRateHz: 100)
    var k = 0
    func restart() {
        session = GyroscopeSession(parameters: Self.parameters, expectedRateHz: 100)
        k = 0
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("CalibrationStage.apply", configuration: configuration) { benchmark, fixture in
        var checksum = 0.0
        benchmark.startMeasurement()
        for k in benchmark.scaledIterations {
            var sample = FusionSample(reading: reading(k), sensor: fixture.ids[k % 3])
            fixture.stage.apply(to: &sample)
            var row = FusionSample(reading: reading(k)) // a trace row: corrections by kind
            fixture.stage.apply(to: &row)
            checksum += (sample.reading.magneticFieldMicroTesla?.x ?? 0) + (row.reading.pressurePa ?? 0)
        }
        benchmark.stopMeasurement()
        blackHole(checksum)
    } setup: {
        StageFixture()
    }

    Benchmark("MagnetometerSession.add", configuration: configuration) { benchmark, fixture in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.k += 1
            let q = Quaternion(axis: Vector3(1, Double(fixture.k % 3), 0.5), angleRad: Double(fixture.k) * 0.05)
            let up = q.rotate(Vector3(0, 0, 9.81))
            fixture.session.add(
                fieldMicroTesla: q.rotate(Vector3(0.9, 21.3, -43.3)) + Vector3(12, -7.5, 4), stillUp: up, temperatureC: 21)
        }
        benchmark.stopMeasurement()
        blackHole(fixture.session.coverage.coveredCount)
    } setup: {
        MagnetometerFixture()
    }

    Benchmark("AccelerometerSession.add", configuration: configuration) { benchmark, fixture in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.k += 1
            // Four seconds on each face in turn, at 100 Hz: stillness windows fill, faces get captured.
            let face = BoardFace.allCases[(fixture.k / 400) % 6]
            let wobble = Double(fixture.k % 7) * 0.001
            blackHole(
                fixture.session.add(
                    timeS: Double(fixture.k) * 0.01, accelerationMps2: face.upVector * 9.81 + Vector3(wobble, 0, 0),
                    angularVelocityRadS: Vector3(0.001, 0, wobble), temperatureC: 21))
        }
        benchmark.stopMeasurement()
    } setup: {
        AccelerometerFixture()
    }

    Benchmark("GyroscopeSession.add", configuration: configuration) { benchmark, fixture in
        if fixture.session.isComplete || fixture.k > 50_000 { fixture.restart() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.k += 1
            let noise = Double(fixture.k % 11) * 1e-4
            fixture.session.add(
                timeS: Double(fixture.k) * 0.01, angularVelocityRadS: Vector3(0.01 + noise, -noise, 0.002),
                accelerationMps2: Vector3(0, 0, 9.81), temperatureC: 21)
        }
        benchmark.stopMeasurement()
        blackHole(fixture.session.elapsedS)
    } setup: {
        GyroscopeFixture()
    }
}
