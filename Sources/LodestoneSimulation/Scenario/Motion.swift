import LodestoneCore
import RealModule

/// A scalar function of time with its first two derivatives at one instant: value, rate, acceleration.
/// Arithmetic on jets is exact differentiation (product and chain rules), which is how the generator keeps
/// position, velocity, acceleration, attitude and angular rate consistent to rounding error.
struct Jet: Sendable {
    var value: Double
    var rate: Double
    var acceleration: Double

    init(_ value: Double, _ rate: Double = 0, _ acceleration: Double = 0) {
        self.value = value; self.rate = rate; self.acceleration = acceleration
    }

    static let zero = Jet(0)

    static func + (a: Jet, b: Jet) -> Jet { Jet(a.value + b.value, a.rate + b.rate, a.acceleration + b.acceleration) }
    static func - (a: Jet, b: Jet) -> Jet { Jet(a.value - b.value, a.rate - b.rate, a.acceleration - b.acceleration) }
    static func + (a: Jet, b: Double) -> Jet { Jet(a.value + b, a.rate, a.acceleration) }
    static func * (k: Double, a: Jet) -> Jet { Jet(k * a.value, k * a.rate, k * a.acceleration) }
    static func * (a: Jet, b: Jet) -> Jet {
        Jet(
            a.value * b.value,
            a.rate * b.value + a.value * b.rate,
            a.acceleration * b.value + 2 * a.rate * b.rate + a.value * b.acceleration)
    }

    var sin: Jet {
        let s = Double.sin(value), c = Double.cos(value)
        return Jet(s, c * rate, c * acceleration - s * rate * rate)
    }

    var cos: Jet {
        let s = Double.sin(value), c = Double.cos(value)
        return Jet(c, -s * rate, -s * acceleration - c * rate * rate)
    }
}

/// The quintic "smootherstep" s(u) = 6u⁵ − 15u⁴ + 10u³ on [0, 1]: 0 → 1 with zero first and second
/// derivatives at both ends, so ramps built from it have continuous acceleration.
enum Smootherstep {
    /// s(u), s′(u), s″(u) for u clamped into [0, 1].
    static func jet(_ u: Double) -> (s: Double, ds: Double, dds: Double) {
        if u <= 0 { return (0, 0, 0) }
        if u >= 1 { return (1, 0, 0) }
        let u2 = u * u, u3 = u2 * u
        return (u3 * (10 + u * (-15 + 6 * u)), 30 * u2 * (1 + u * (-2 + u)), 60 * u * (1 + u * (-3 + 2 * u)))
    }

    /// ∫₀ᵘ s = u⁶ − 3u⁵ + 2.5u⁴ for u in [0, 1] (½ at u = 1).
    static func integral(_ u: Double) -> Double {
        if u <= 0 { return 0 }
        if u >= 1 { return 0.5 }
        let u4 = u * u * u * u
        return u4 * (2.5 + u * (-3 + u))
    }

    /// A smooth ramp from `from` to `to` starting at `tau` = 0 and lasting `durationS` (> 0), as a jet in `tau`.
    static func ramp(from: Double, to: Double, tau: Double, durationS: Double) -> Jet {
        if tau <= 0 || durationS <= 0 { return Jet(tau <= 0 ? from : to) }
        let (s, ds, dds) = jet(tau / durationS)
        let d = to - from
        return Jet(from + d * s, d * ds / durationS, d * dds / (durationS * durationS))
    }
}

/// The periodic motions of a carrier kind: step bounce and sway for people, pedalling for bicycles, body
/// motion and vibration for cars. Displacements are in the carrier frame (x right, y forward, z up) and are
/// added to the smooth path, so the kinematic acceleration includes their second derivatives exactly.
///
/// The gait channels share one phase φ advancing at `cadenceHz` (step frequency; for cycling the pedal-stroke
/// frequency, twice the crank rate): bounce and surge at φ, lateral sway, roll and yaw at φ/2 (one stride),
/// pitch at φ. Values follow gait biomechanics for a waist/hand-carried phone (vertical centre-of-mass
/// excursion ≈ 4–5 cm peak-to-peak walking; peak vertical accelerations ≈ 0.3 g walking, 1 g running).
/// Vibration lines are fixed frequencies with acceleration amplitudes: 1.3 Hz vertical (suspension heave),
/// 11 Hz vertical (road/wheel hop), 17 Hz forward (drivetrain/chain buzz), 28 Hz lateral (engine: second order
/// of a 4-cylinder at 840 rpm).
struct MotionProfile: Sendable, Hashable {
    /// Gait/pedalling phase rate, Hz (steps per second).
    var cadenceHz: Double
    /// Vertical bounce amplitude, m, at the cadence.
    var bounceUpM: Double
    /// Fore-aft surge amplitude, m, at the cadence.
    var surgeForwardM: Double
    /// Lateral sway amplitude, m, at half the cadence.
    var swayRightM: Double
    /// Roll sway amplitude, rad, at half the cadence.
    var rollRad: Double
    /// Pitch sway amplitude, rad, at the cadence.
    var pitchRad: Double
    /// Yaw sway amplitude, rad, at half the cadence.
    var yawRad: Double
    /// Acceleration amplitudes of the four vibration lines, m/s² (see `vibrationHz`).
    var vibrationMps2: SIMD4<Double>

    /// Frequencies of the vibration lines, Hz.
    static let vibrationHz = SIMD4<Double>(1.3, 11, 17, 28)

    static func typical(for kind: SegmentKind) -> MotionProfile {
        switch kind {
        case .stationary:
            MotionProfile(
                cadenceHz: 0, bounceUpM: 0, surgeForwardM: 0, swayRightM: 0, rollRad: 0, pitchRad: 0,
                yawRad: 0, vibrationMps2: .zero)
        case .liftUp, .liftDown:
            MotionProfile(
                cadenceHz: 0, bounceUpM: 0, surgeForwardM: 0, swayRightM: 0, rollRad: 0, pitchRad: 0,
                yawRad: 0, vibrationMps2: SIMD4(0, 0.03, 0, 0.02))
        case .walk:
            MotionProfile(
                cadenceHz: 1.8, bounceUpM: 0.022, surgeForwardM: 0.012, swayRightM: 0.02, rollRad: 0.035,
                pitchRad: 0.026, yawRad: 0.035, vibrationMps2: .zero)
        case .stairsUp, .stairsDown:
            MotionProfile(
                cadenceHz: 1.6, bounceUpM: 0.02, surgeForwardM: 0.01, swayRightM: 0.02, rollRad: 0.03,
                pitchRad: 0.03, yawRad: 0.03, vibrationMps2: .zero)
        case .run:
            MotionProfile(
                cadenceHz: 2.8, bounceUpM: 0.032, surgeForwardM: 0.015, swayRightM: 0.025, rollRad: 0.05,
                pitchRad: 0.035, yawRad: 0.05, vibrationMps2: .zero)
        case .cycle:
            MotionProfile(
                cadenceHz: 2.8, bounceUpM: 0.002, surgeForwardM: 0.004, swayRightM: 0.01, rollRad: 0.03,
                pitchRad: 0.005, yawRad: 0.01, vibrationMps2: SIMD4(0, 0.5, 0.25, 0.1))
        case .drive:
            MotionProfile(
                cadenceHz: 1.3, bounceUpM: 0, surgeForwardM: 0, swayRightM: 0, rollRad: 0.005,
                pitchRad: 0.004, yawRad: 0, vibrationMps2: SIMD4(0.3, 0.2, 0.1, 0.08))
        }
    }

    /// This profile with amplitudes scaled by `amplitude` and the cadence by `cadence` (per-segment variety).
    func scaled(amplitude: Double, cadence: Double) -> MotionProfile {
        MotionProfile(
            cadenceHz: cadenceHz * cadence, bounceUpM: bounceUpM * amplitude,
            surgeForwardM: surgeForwardM * amplitude, swayRightM: swayRightM * amplitude,
            rollRad: rollRad * amplitude, pitchRad: pitchRad * amplitude, yawRad: yawRad * amplitude,
            vibrationMps2: vibrationMps2 * amplitude)
    }
}

/// Typical horizontal acceleration used for speed ramps, m/s² (peak is 1.875× this for a smootherstep ramp).
func typicalAccelerationMps2(_ kind: SegmentKind) -> Double {
    switch kind {
    case .stationary, .walk, .stairsUp, .stairsDown, .liftUp, .liftDown: 1.0
    case .run: 1.5
    case .cycle: 0.8
    case .drive: 1.6
    }
}

/// Typical turn rate, rad/s, for a heading change within a segment.
func typicalTurnRateRadS(_ kind: SegmentKind) -> Double {
    let degPerS: Double =
        switch kind {
        case .stationary, .liftUp, .liftDown: 30
        case .walk, .run: 60
        case .stairsUp, .stairsDown: 45
        case .cycle: 25
        case .drive: 12
        }
    return Angle.radians(fromDegrees: degPerS)
}
