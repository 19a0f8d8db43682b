import LodestoneCore
import LodestoneScheduler

/// A board like the BeagleBone Blue's (an MPU-9250-class accelerometer/gyroscope with wake-on-motion and a FIFO, a
/// separate magnetometer, a BMP280 barometer/thermometer) and a commandable u-blox receiver.
enum TestBoard {
    static let sensors = [
        PlannedSensor(
            id: "imu", chip: "mpu6050", kinds: [.accelerometer, .gyroscope], maximumRateHz: 100,
            hasMotionWake: true, fifoCapacitySamples: 85),
        PlannedSensor(id: "mag", chip: "lis3mdl", kinds: [.magnetometer], maximumRateHz: 80),
        PlannedSensor(id: "baro", chip: "bmp280", kinds: [.barometer, .thermometer], maximumRateHz: 25)
    ]
    static let receiver = PlannedReceiver(id: "gnss", model: "ublox-m8", controllable: true)

    static func scheduler(
        _ policy: any SchedulingPolicy = AdaptivePolicy(), demands: [Demand],
        battery: BatteryState = .externalPower, firstFix: Bool = true
    ) -> Scheduler {
        var s = Scheduler(sensors: sensors, receiver: receiver, policy: policy, demands: demands, battery: battery, timeS: 0)
        if firstFix {
            // The session's first fix (no ground speed): past the adaptive policy's "receiver on until the first fix".
            var f = fix(atTimeS: 0)
            f.speedMps = nil
            s.observe(fix: f)
        }
        return s
    }

    static func sensorPlan(_ s: Scheduler, _ id: String) -> SensorPlan {
        s.plan.sensors.first { $0.id == id }!
    }
}

/// Deterministic accelerometer streams at 100 Hz, board frame, m/s².
struct AccelerometerStream {
    /// A small deterministic generator (64-bit LCG), for noise.
    private var state: UInt64
    /// Noise standard deviation per axis, m/s² (default 0.03: an MPU-6050 near full bandwidth).
    var noiseMps2: Double

    init(seed: UInt64 = 1, noiseMps2: Double = 0.03) { state = seed &* 6364136223846793005 &+ 1; self.noiseMps2 = noiseMps2 }

    /// Approximately normal (sum of 12 uniforms − 6).
    mutating func gaussian() -> Double {
        var s = 0.0
        for _ in 0..<12 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            s += Double(state >> 11) / Double(1 << 53)
        }
        return s - 6
    }

    /// At rest, flat on a table.
    mutating func still() -> Vector3 {
        Vector3(gaussian(), gaussian(), gaussian()) * noiseMps2 + Vector3(0, 0, 9.80665)
    }

    /// Walking at 2 steps/s: ±2 m/s² vertical, ±1 m/s² fore-aft.
    mutating func walking(timeS t: Double) -> Vector3 {
        let phase = 2 * Double.pi * 2 * t
        return still() + Vector3(0, sin(phase + 1), 2 * sin(phase))
    }

    /// A car: road vibration of ±0.6 m/s² at 12 Hz and noise.
    mutating func driving(timeS t: Double) -> Vector3 {
        still() + Vector3(0.2 * sin(2 * Double.pi * 3 * t), 0.3 * sin(2 * Double.pi * 7 * t), 0.6 * sin(2 * Double.pi * 12 * t))
    }
}

/// Drives a scheduler at 100 Hz from `fromS` to `toS` with `sample(t)`, re-planning after every sample as the
/// engine does; returns the times of the plans made.
@discardableResult
func drive(
    _ s: inout Scheduler, from fromS: Double, to toS: Double,
    _ sample: (Double) -> Vector3
) -> [Double] {
    var changes: [Double] = []
    var i = 0
    while true {
        let t = fromS + Double(i) * 0.01
        if t >= toS { break }
        s.observe(accelerationMps2: sample(t), timeS: t)
        if s.replanIfNeeded(timeS: t) { changes.append(t) }
        i += 1
    }
    return changes
}

func sin(_ x: Double) -> Double {
    // Taylor series after range reduction: enough for test signals (no Foundation in the test target).
    var y = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if y > Double.pi { y -= 2 * Double.pi } else if y < -Double.pi { y += 2 * Double.pi }
    var term = y, sum = y
    for n in 1..<12 {
        term *= -y * y / Double((2 * n) * (2 * n + 1))
        sum += term
    }
    return sum
}

func fix(
    atTimeS t: Double, speedMps: Double = 1.5, accuracyM: Double = 4, latitudeDeg: Double = 48.85,
    longitudeDeg: Double = 2.35
) -> ReceiverFix {
    var f = ReceiverFix(timeS: t, mode: .threeDimensional)
    f.latitudeDeg = latitudeDeg; f.longitudeDeg = longitudeDeg
    f.speedMps = speedMps; f.horizontalAccuracyM = accuracyM; f.satellitesUsed = 9
    return f
}
