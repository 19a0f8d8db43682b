import Foundation
import LodestoneCore
@testable import LodestoneOrientation

/// Exact sensor readings for a rigid board turning with piecewise-constant angular velocity in a uniform field:
/// the independent reference the filter tests compare against. Truth orientation is the exact product of
/// quaternion exponentials (exact for a constant rate over each step); the sensors are gravity and the field
/// rotated into the board frame, plus seeded Gaussian noise, a constant gyroscope bias and an optional
/// board-fixed field.
struct SyntheticMotion {
    /// One stretch of constant angular velocity (board frame, rad/s) lasting `durationS`.
    struct Segment {
        var rateRadS: Vector3
        var durationS: Double
    }

    /// The filter's parameters for these sensors: the defaults, except that synthetic sensors sample the same
    /// instant (no accelerometer or magnetometer delay behind the gyroscope).
    static var parameters: OrientationFilter.Parameters {
        var p = OrientationFilter.Parameters()
        p.accelerometerDelayS = 0
        p.magnetometerDelayS = 0
        return p
    }

    /// Earth's field in ENU, µT: Berlin-like, 50 µT, dip 68° (north 18.7, up −46.4).
    static let fieldENUMicroTesla = Vector3(0, 18.73, -46.36)
    static let gravityMps2 = 9.81

    var segments: [Segment]
    var rateHz: Double = 100
    /// Magnetometer rate, Hz (the magnetometer is sampled at every `rateHz / magnetometerRateHz`-th step).
    var magnetometerRateHz: Double = 100
    var initialOrientation = Quaternion.identity
    var gyroscopeBiasRadS = Vector3.zero
    var gyroscopeNoiseRadS = 0.002
    var accelerometerNoiseMps2 = 0.02
    var magnetometerNoiseMicroTesla = 0.3
    /// A field fixed to the board (an attached magnet), µT, present from `boardFieldFromS` on.
    var boardFieldMicroTesla = Vector3.zero
    var boardFieldFromS = 0.0
    /// An earth-fixed disturbance added to the field between the two times (a magnet near a still board), µT ENU.
    var disturbanceENUMicroTesla = Vector3.zero
    var disturbanceS: ClosedRange<Double> = 0...0
    var seed: UInt64 = 1

    struct Sample {
        var timeS: Double
        var truth: Quaternion
        var gyroscopeRadS: Vector3
        var accelerometerMps2: Vector3
        var magnetometerMicroTesla: Vector3?
    }

    /// Every sample, in time order.
    func samples() -> [Sample] {
        var generator = SplitMix64(seed: seed)
        var out: [Sample] = []
        let dt = 1 / rateHz
        let magnetometerEvery = max(1, Int((rateHz / magnetometerRateHz).rounded()))
        var q = initialOrientation
        var t = 0.0
        var index = 0
        for segment in segments {
            let steps = Int((segment.durationS * rateHz).rounded())
            for _ in 0..<steps {
                q = (q * Quaternion(rotationVector: segment.rateRadS * dt)).normalized
                t += dt
                let up = q.conjugate.rotate(Vector3(0, 0, Self.gravityMps2))
                var field = Self.fieldENUMicroTesla
                if disturbanceS.contains(t) { field += disturbanceENUMicroTesla }
                var board = q.conjugate.rotate(field)
                if t >= boardFieldFromS { board += boardFieldMicroTesla }
                let magnetometer =
                    index % magnetometerEvery == 0
                    ? board + generator.gaussianVector() * magnetometerNoiseMicroTesla : nil
                out.append(
                    Sample(
                        timeS: t, truth: q,
                        gyroscopeRadS: segment.rateRadS + gyroscopeBiasRadS + generator.gaussianVector() * gyroscopeNoiseRadS,
                        accelerometerMps2: up + generator.gaussianVector() * accelerometerNoiseMps2,
                        magnetometerMicroTesla: magnetometer))
                index += 1
            }
        }
        return out
    }
}

/// A small seeded generator (Steele, Lea & Flood, *Fast splittable pseudorandom number generators*, 2014).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// A standard normal variate (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
    mutating func gaussianVector() -> Vector3 { Vector3(gaussian(), gaussian(), gaussian()) }
}

/// BROAD's error decomposition (Laidig et al. 2021, section 4) of `estimate` against `truth`, degrees:
/// `e = q_est ⊗ q_truth⁻¹`, total = angle of e, heading = 2·atan2(|e_z|, |e_w|),
/// inclination = 2·atan2(√(e_x²+e_y²), √(e_w²+e_z²)).
func orientationErrorDeg(_ estimate: Quaternion, _ truth: Quaternion) -> (total: Double, heading: Double, inclination: Double) {
    let e = estimate * truth.conjugate
    let degrees = 180 / Double.pi
    let total = 2 * acos(min(1, abs(e.w))) * degrees
    let heading = 2 * atan2(abs(e.z), abs(e.w)) * degrees
    let inclination = 2 * atan2((e.x * e.x + e.y * e.y).squareRoot(), (e.w * e.w + e.z * e.z).squareRoot()) * degrees
    return (total, heading, inclination)
}

/// Runs `filter` over `samples`; calls `check` after each sample.
func run(
    _ filter: inout OrientationFilter, _ samples: [SyntheticMotion.Sample], magnetometer: Bool = true,
    check: (SyntheticMotion.Sample, OrientationFilter) -> Void = { _, _ in }
) {
    for s in samples {
        filter.update(
            timeS: s.timeS, gyroscopeRadS: s.gyroscopeRadS, accelerometerMps2: s.accelerometerMps2,
            magnetometerMicroTesla: magnetometer ? s.magnetometerMicroTesla : nil)
        check(s, filter)
    }
}
