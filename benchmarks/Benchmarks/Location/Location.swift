// Location fusion and geodesy on their per-sample paths: one inertial update of the navigation filter (100 Hz,
// with a barometer sample every fourth and a receiver fix every hundredth, as on the simulated board), one
// receiver fix update (1 Hz, position, velocity and height), and one geodesic inverse problem.
//
// The filter benchmarks keep their state between iterations (a car driving a circle at 15 m/s), so they
// measure the warmed-up filter, not its start.

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneLocation

/// A car driving a 500 m circle at 15 m/s near Zürich, and the filter that tracks it.
final class DriveFixture {
    var filter = NavigationFilter()
    var timeS = 0.0
    var step = 0
    let radiusM = 500.0
    let speedMps = 15.0

    /// The receiver fix at `timeS`: the circle, with a deterministic wobble standing for noise.
    func fix(at t: Double) -> ReceiverFix {
        let angle = speedMps * t / radiusM
        var f = ReceiverFix(timeS: t, mode: .threeDimensional)
        f.latitudeDeg = 47.3769 + (radiusM * Angle.sinForBenchmark(angle) + Angle.sinForBenchmark(7 * t)) / 111_180
        f.longitudeDeg = 8.5417 + (radiusM * (1 - Angle.cosForBenchmark(angle))) / 75_300
        f.heightAboveEllipsoidM = 455 + Angle.sinForBenchmark(3 * t)
        f.altitudeMSLM = 407.5
        f.speedMps = speedMps
        f.courseDeg = Angle.wrap360(Angle.degrees(fromRadians: angle))
        f.horizontalAccuracyM = 2.5
        f.verticalAccuracyM = 3.5
        f.speedAccuracyMps = 0.1
        return f
    }

    /// The specific force of the car in board axes (board level, heading along the course) at `timeS`.
    func specificForce(at t: Double) -> (Vector3, Quaternion) {
        let angle = speedMps * t / radiusM
        let heading = Quaternion(axis: Vector3(0, 0, 1), angleRad: -angle)
        let centripetal = speedMps * speedMps / radiusM
        return (Vector3(centripetal, 0.01 * Angle.sinForBenchmark(30 * t), 9.8066), heading)
    }

    init() {
        // Warm up: a minute of driving.
        while timeS < 60 { advance() }
    }

    /// One 10 ms IMU step (accelerometer, gyroscope, orientation), with the barometer every 4th and a fix every 100th.
    func advance() {
        step += 1
        timeS += 0.01
        let (force, attitude) = specificForce(at: timeS)
        // The gyroscope: the car turns clockwise about up at speed / radius (the vehicle-frame turn model's input).
        filter.updateInertial(
            timeS: timeS, specificForceBoardMps2: force, boardToENU: attitude,
            angularVelocityBoardRadS: Vector3(0, 0, -speedMps / radiusM), atRest: false)
        if step % 4 == 0 { filter.updateBarometer(timeS: timeS, pressurePa: 96_300 + Angle.sinForBenchmark(timeS)) }
        if step % 100 == 0 { filter.update(fix: fix(at: timeS)) }
    }
}

extension Angle {
    // RealModule is not a dependency of the benchmarks; the standard library has no sin. A short odd series
    // is enough for test signals (it only needs to wobble).
    static func sinForBenchmark(_ x: Double) -> Double {
        let r = x.remainder(dividingBy: 2 * Double.pi)
        let r2 = r * r
        return r * (1 - r2 / 6 * (1 - r2 / 20 * (1 - r2 / 42 * (1 - r2 / 72 * (1 - r2 / 110)))))
    }
    static func cosForBenchmark(_ x: Double) -> Double { sinForBenchmark(x + Double.pi / 2) }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("NavigationFilter.inertialUpdate", configuration: configuration) { benchmark, fixture in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.advance() }
        benchmark.stopMeasurement()
        blackHole(fixture.filter.location)
    } setup: {
        DriveFixture()
    }

    Benchmark("NavigationFilter.fixUpdate", configuration: configuration) { benchmark, fixture in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.timeS += 1
            blackHole(fixture.filter.update(fix: fixture.fix(at: fixture.timeS)))
            blackHole(fixture.filter.location)
        }
        benchmark.stopMeasurement()
    } setup: {
        DriveFixture()
    }

    Benchmark("Geodesic.inverse", configuration: configuration) { benchmark in
        let geodesic = Geodesic.wgs84
        var sum = 0.0
        var k = 0.0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            k += 1
            // Points all over the globe, some nearly antipodal.
            let lat1 = (k * 37).remainder(dividingBy: 180) / 2, lon1 = (k * 53).remainder(dividingBy: 360)
            let lat2 = -lat1 + (k * 0.001).remainder(dividingBy: 1), lon2 = lon1 + 179.5 + (k * 0.0007).remainder(dividingBy: 1)
            sum +=
                geodesic.inverse(latitude1Deg: lat1, longitude1Deg: lon1, latitude2Deg: lat2, longitude2Deg: lon2)?.distanceM ?? 0
        }
        benchmark.stopMeasurement()
        blackHole(sum)
    }
}
