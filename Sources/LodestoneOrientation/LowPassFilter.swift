import LodestoneCore
import RealModule

/// Coefficients of a second-order Butterworth low-pass filter (direct form II transposed), derived once per
/// sample interval.
///
/// The filter is specified by a time constant `τ` rather than a cut-off frequency: `f_c = √2 / (2π·τ)`, so that
/// its step response rises like a first-order lag of time constant `τ` without overshooting much (the same
/// convention as Laidig & Seel 2023, VQF, section 3.1). The discretisation is the bilinear transform with
/// pre-warping (Oppenheim & Schafer, *Discrete-Time Signal Processing*, 3rd ed., section 7.2).
public struct ButterworthCoefficients: Sendable, Hashable, Codable {
    /// Numerator coefficients (feed-forward), dimensionless.
    public var b0: Double
    public var b1: Double
    public var b2: Double
    /// Denominator coefficients (feedback; a0 = 1), dimensionless.
    public var a1: Double
    public var a2: Double

    /// A pass-through (output = input).
    public static let passThrough = ButterworthCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.a1 = a1; self.a2 = a2
    }

    /// The coefficients for time constant `timeConstantS` (s, > 0) at sample interval `intervalS` (s, > 0).
    ///
    /// When `τ < intervalS / 2` the cut-off would exceed 90 % of the Nyquist frequency and the discretised filter
    /// would be badly conditioned; the filter then passes its input through.
    public init(timeConstantS tau: Double, intervalS dt: Double) {
        guard tau >= dt / 2, dt > 0 else { self = .passThrough; return }
        let fc = 2.0.squareRoot() / (2 * Double.pi * tau)
        let c = Double.tan(Double.pi * fc * dt)
        let d = c * c + 2.0.squareRoot() * c + 1
        b0 = c * c / d
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (c * c - 1) / d
        a2 = (1 - 2.0.squareRoot() * c + c * c) / d
    }
}

/// The state of a second-order Butterworth low-pass over a vector (each component filtered independently),
/// with a fast start: for the first `τ` seconds the output is the running mean of the inputs so far, after
/// which the filter starts in steady state at that mean (no start-up transient from an initial zero state).
public struct LowPassVector<Value: SIMD>: Sendable, Hashable, Codable
where Value.Scalar == Double, Value: Sendable & Hashable & Codable {
    /// Direct-form-II-transposed delay elements.
    var s1: Value = .zero
    var s2: Value = .zero
    /// Running sum and time of the fast-start mean; `nil` once the filter runs.
    var meanSum: Value = .zero
    var meanCount: Double = 0
    var meanElapsedS: Double = 0
    var isRunning = false
    /// The latest output.
    public private(set) var output: Value = .zero
    /// True once at least one sample was filtered.
    public private(set) var hasOutput = false

    /// A filter that has seen nothing.
    public init() {}

    /// Filters one sample taken `intervalS` after the previous one; returns the filtered value.
    public mutating func step(
        _ x: Value, coefficients k: ButterworthCoefficients, timeConstantS tau: Double,
        intervalS dt: Double
    ) -> Value {
        hasOutput = true
        if !isRunning {
            meanSum += x
            meanCount += 1
            meanElapsedS += dt
            output = meanSum / Value(repeating: meanCount)
            if meanElapsedS >= tau {
                isRunning = true
                settle(at: output, coefficients: k)
            }
            return output
        }
        let y = k.b0 * x + s1
        s1 = k.b1 * x - k.a1 * y + s2
        s2 = k.b2 * x - k.a2 * y
        output = y
        return y
    }

    /// Puts the filter in steady state at `value` (input = output = value), e.g. after the coefficients change
    /// because the sample interval did: the output continues from where it was without a jump.
    public mutating func settle(at value: Value, coefficients k: ButterworthCoefficients) {
        s2 = (k.b2 - k.a2) * value
        s1 = (k.b1 - k.a1) * value + s2
        output = value
        isRunning = true
        hasOutput = true
    }

    /// Forgets everything.
    public mutating func reset() { self = LowPassVector() }
}

/// Gain of a first-order low-pass (exponential smoothing) with time constant `tau` (s) at interval `dt` (s):
/// `k = 1 − exp(−dt/τ)`; 1 for `τ ≤ 0`.
func firstOrderGain(timeConstantS tau: Double, intervalS dt: Double) -> Double {
    tau > 0 ? 1 - decayFactor(dt / tau) : 1
}
