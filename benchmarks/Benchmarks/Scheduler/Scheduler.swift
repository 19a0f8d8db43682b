// The scheduler's per-sample and re-planning work, which must allocate nothing once warmed up:
// - `Scheduler.observeAndReplan`: one accelerometer sample through the any-motion detector, then `replanIfNeeded`
//   as the engine calls it after every step (a walking carrier at 100 Hz: the timer re-plans once a second and the
//   plan does not change);
// - `Scheduler.replanOnMotionChange`: a wake-on-motion interrupt and the re-plan it causes (stationary → moving),
//   then a still sample 30 s later and the re-plan back to stationary: two real plan changes per operation, with
//   the power prediction and the causes rebuilt in place;
// - `Scheduler.replanUnchanged`: one second passes and the adaptive policy re-plans to the same plan;
// - `Scheduler.replanBaselines`: the same for the always-on, fixed duty-cycle and RAPS policies in turn.
//
// The board is a BeagleBone Blue-like one (IMU with wake-on-motion and FIFO, magnetometer, barometer, u-blox
// receiver), with clients for navigation, heading, activity and altitude so that every part of a plan is exercised.

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneScheduler

let sensors = [
    PlannedSensor(
        id: "imu", chip: "mpu9250", kinds: [.accelerometer, .gyroscope], maximumRateHz: 100,
        hasMotionWake: true, fifoCapacitySamples: 85),
    PlannedSensor(id: "mag", chip: "lis3mdl", kinds: [.magnetometer], maximumRateHz: 80),
    PlannedSensor(id: "baro", chip: "bmp280", kinds: [.barometer, .thermometer], maximumRateHz: 25)
]
let receiver = PlannedReceiver(id: "gnss", model: "ublox-m8", controllable: true)
let demands = [
    Demand(client: "map", location: LocationDemand(desiredAccuracy: .hundredMeters, distanceFilterM: 50)),
    Demand(client: "compass", heading: HeadingDemand()),
    Demand(client: "fitness", activity: true, altitude: true)
]

/// One second of a walking carrier's specific force at 100 Hz (board frame, m/s²), precomputed.
let walkingSamples: [Vector3] = (0..<100).map { i in
    let phase = 2 * Double.pi * 2 * Double(i) / 100
    // sin by its series: no Foundation in the benchmark either.
    func sin(_ x: Double) -> Double {
        var y = x.truncatingRemainder(dividingBy: 2 * Double.pi)
        if y > Double.pi { y -= 2 * Double.pi }
        var term = y, sum = y
        for n in 1..<12 { term *= -y * y / Double((2 * n) * (2 * n + 1)); sum += term }
        return sum
    }
    return Vector3(0.02 * Double(i % 7 - 3), sin(phase + 1), 9.80665 + 2 * sin(phase))
}

final class Fixture {
    var scheduler: Scheduler
    var timeS = 0.0
    var index = 0
    /// The receiver's fix, re-stamped and observed once a second (as a receiver on power-save or continuous delivers).
    var fix: ReceiverFix

    init(policy: any SchedulingPolicy) {
        scheduler = Scheduler(sensors: sensors, receiver: receiver, policy: policy, demands: demands, timeS: 0)
        fix = ReceiverFix(timeS: 0, mode: .threeDimensional)
        fix.latitudeDeg = 48.85; fix.longitudeDeg = 2.35; fix.speedMps = 1.4; fix.horizontalAccuracyM = 4
        scheduler.observe(fix: fix)
        scheduler.observe(activity: .walk, timeS: 0)
    }

    /// A fixture after 10 s of walking samples (plans made, detector settled, every array at its capacity).
    static func walking() -> Fixture {
        let f = Fixture(policy: AdaptivePolicy())
        for _ in 0..<1000 { f.step() }
        return f
    }

    /// A fixture that has gone through a few motion changes.
    static func motionChanging() -> Fixture {
        let f = Fixture(policy: AdaptivePolicy())
        for _ in 0..<3 { _ = f.motionChange() }
        return f
    }

    /// A fixture driving, planned, with nothing left to change.
    static func driving() -> Fixture {
        let f = Fixture(policy: AdaptivePolicy())
        f.scheduler.observe(activity: .drive, timeS: 0)
        _ = f.scheduler.replanIfNeeded(timeS: 0)
        _ = f.scheduler.replanIfNeeded(timeS: 1)
        f.timeS = 1
        return f
    }

    /// One fixture per baseline policy, after 300 s of once-a-second re-plans.
    static func baselines() -> [Fixture] {
        let fixtures = [Fixture(policy: AlwaysOnPolicy()), Fixture(policy: FixedDutyCyclePolicy()), Fixture(policy: RAPSPolicy())]
        for f in fixtures {
            for _ in 0..<300 { f.timeS += 1; f.observeFix(); _ = f.scheduler.replanIfNeeded(timeS: f.timeS) }
        }
        return fixtures
    }

    func step() {
        timeS += 0.01
        scheduler.observe(accelerationMps2: walkingSamples[index], timeS: timeS)
        index = (index + 1) % walkingSamples.count
        if index == 0 { observeFix() }
        _ = scheduler.replanIfNeeded(timeS: timeS)
    }

    func observeFix() {
        fix.timeS = timeS
        scheduler.observe(fix: fix)
    }

    /// Wake → moving plan, 30 s of stillness → stationary plan. Returns the plan changes (2).
    func motionChange() -> Int {
        var changes = 0
        timeS += 1
        scheduler.observeMotionWake(timeS: timeS)
        if scheduler.replanIfNeeded(timeS: timeS) { changes += 1 }
        timeS += 30
        scheduler.observe(accelerationMps2: Vector3(0, 0, 9.80665), timeS: timeS)
        if scheduler.replanIfNeeded(timeS: timeS) { changes += 1 }
        return changes
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("Scheduler.observeAndReplan", configuration: configuration) { benchmark, fixture in
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { fixture.step() }
        benchmark.stopMeasurement()
        blackHole(fixture.scheduler.plan.generation)
    } setup: {
        Fixture.walking()
    }

    Benchmark("Scheduler.replanOnMotionChange", configuration: configuration) { benchmark, fixture in
        var changes = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { changes += fixture.motionChange() }
        benchmark.stopMeasurement()
        precondition(changes == 2 * benchmark.scaledIterations.count, "the motion changes did not re-plan")
    } setup: {
        Fixture.motionChanging()
    }

    Benchmark("Scheduler.replanUnchanged", configuration: configuration) { benchmark, fixture in
        var changes = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.timeS += 1
            fixture.observeFix()
            if fixture.scheduler.replanIfNeeded(timeS: fixture.timeS) { changes += 1 }
        }
        benchmark.stopMeasurement()
        precondition(changes == 0, "an unchanged input changed the plan")
    } setup: {
        Fixture.driving()
    }

    Benchmark("Scheduler.replanBaselines", configuration: configuration) { benchmark, fixtures in
        benchmark.startMeasurement()
        for k in benchmark.scaledIterations {
            let f = fixtures[k % fixtures.count]
            f.timeS += 1
            f.observeFix()
            blackHole(f.scheduler.replanIfNeeded(timeS: f.timeS))
        }
        benchmark.stopMeasurement()
    } setup: {
        Fixture.baselines()
    }
}
