import LodestoneCore

extension OrientationFilter {
    /// What the filter derives from its `Parameters` and the sample intervals it measures
    /// (`State.intervals`), so the per-sample path does no unit conversion and no transcendental function of a
    /// parameter. A function of the two: `OrientationFilter.restore(_:)` rebuilds it from a saved state.
    public struct Coefficients: Sendable, Hashable {
        /// Rest-detection low-passes at the gyroscope and accelerometer rates.
        public private(set) var restGyroscopeLowPass = ButterworthCoefficients.passThrough
        public private(set) var restAccelerometerLowPass = ButterworthCoefficients.passThrough
        /// The inclination low-pass (and the matched low-pass of the bias estimation), accelerometer rate.
        public private(set) var accelerometerLowPass = ButterworthCoefficients.passThrough
        /// The low-pass on the field's norm and dip, magnetometer rate.
        public private(set) var magneticCurrentLowPass = ButterworthCoefficients.passThrough
        /// First-order gain with which the reference norm and dip follow an undisturbed field, per magnetometer sample.
        public private(set) var magneticReferenceGain: Double = 0

        /// `biasClipDegS` and `biasLimitDegS` in rad/s.
        public let biasClipRadS: Double
        public let biasLimitRadS: Double
        /// `restBiasDeviationDegS` squared, (rad/s)²; `restAccelerometerDriftMps2` squared, (m/s²)².
        public let restBiasDeviationSquared: Double
        public let restAccelerometerDriftSquared: Double
        /// Bias variance the first rest starts from, (rad/s)²: (`biasLimitDegS` / 3)², the data sheet's tolerance
        /// as a 3σ bound, so the first rest learns a large turn-on bias in about a second.
        public let biasFirstRestVariance: Double
        /// Variances of the bias filter, (rad/s)²: initial, steady state in motion, steady state at rest.
        public let biasInitialVariance: Double
        public let biasMotionVariance: Double
        public let biasRestVariance: Double
        /// Growth of the bias variance per second, (rad/s)²/s.
        public let biasRandomWalkVariancePerS: Double
        /// Squared rest thresholds, (rad/s)² and (m/s²)².
        public let restGyroscopeThresholdSquared: Double
        public let restAccelerometerThresholdSquared: Double
        /// Heading random walk, rad²/s.
        public let headingRandomWalkRad2PerS: Double
        /// Spectral density of the magnetometer's heading noise, rad²·s: the heading random walk times the
        /// squared magnetometer time constant, so that the Kalman gain's steady state has that time constant.
        public let magneticHeadingNoiseDensityRad2S: Double
        /// Heading variance after the first magnetometer sample, rad²: (30°)².
        public let initialHeadingVariance: Double
        /// `headingErrorFloorDeg` squared, rad².
        public let headingFloorVarianceRad2: Double
        /// `magneticHeadingGateDeg`, rad.
        public let magneticHeadingGateRad: Double
        /// `magneticDipThresholdDeg` and `magneticNewFieldMinimumRateDegS` in radians.
        public let magneticDipThresholdRad: Double
        public let magneticNewFieldMinimumRateRadS: Double

        init(parameters p: Parameters) {
            let radiansPerDegree = Angle.radians(fromDegrees: 1)
            biasClipRadS = p.biasClipDegS * radiansPerDegree
            biasLimitRadS = p.biasLimitDegS * radiansPerDegree
            restBiasDeviationSquared = (p.restBiasDeviationDegS * radiansPerDegree) * (p.restBiasDeviationDegS * radiansPerDegree)
            restAccelerometerDriftSquared = p.restAccelerometerDriftMps2 * p.restAccelerometerDriftMps2
            biasFirstRestVariance = (biasLimitRadS / 3) * (biasLimitRadS / 3)
            biasInitialVariance = (p.biasInitialSigmaDegS * radiansPerDegree) * (p.biasInitialSigmaDegS * radiansPerDegree)
            biasMotionVariance = (p.biasMotionSigmaDegS * radiansPerDegree) * (p.biasMotionSigmaDegS * radiansPerDegree)
            biasRestVariance = (p.biasRestSigmaDegS * radiansPerDegree) * (p.biasRestSigmaDegS * radiansPerDegree)
            let walk = p.biasRandomWalkDegSPerSqrtS * radiansPerDegree
            biasRandomWalkVariancePerS = walk * walk
            restGyroscopeThresholdSquared =
                (p.restGyroscopeThresholdDegS * radiansPerDegree) * (p.restGyroscopeThresholdDegS * radiansPerDegree)
            restAccelerometerThresholdSquared = p.restAccelerometerThresholdMps2 * p.restAccelerometerThresholdMps2
            headingRandomWalkRad2PerS = p.headingRandomWalkDeg2PerS * radiansPerDegree * radiansPerDegree
            magneticHeadingNoiseDensityRad2S =
                max(headingRandomWalkRad2PerS, 1e-12)
                * p.magnetometerTimeConstantS * p.magnetometerTimeConstantS
            initialHeadingVariance = (30 * radiansPerDegree) * (30 * radiansPerDegree)
            magneticDipThresholdRad = p.magneticDipThresholdDeg * radiansPerDegree
            headingFloorVarianceRad2 = (p.headingErrorFloorDeg * radiansPerDegree) * (p.headingErrorFloorDeg * radiansPerDegree)
            magneticHeadingGateRad = p.magneticHeadingGateDeg * radiansPerDegree
            magneticNewFieldMinimumRateRadS = p.magneticNewFieldMinimumRateDegS * radiansPerDegree
        }

        /// The coefficients for `parameters` and the rates in `intervals` (those not yet measured stay pass-through).
        init(parameters p: Parameters, intervals: SampleIntervals) {
            self.init(parameters: p)
            if intervals.gyroscope.derivedS > 0 { setGyroscope(intervalS: intervals.gyroscope.derivedS, parameters: p) }
            if intervals.accelerometer.derivedS > 0 {
                setAccelerometer(intervalS: intervals.accelerometer.derivedS, parameters: p)
            }
            if intervals.magnetometer.derivedS > 0 { setMagnetometer(intervalS: intervals.magnetometer.derivedS, parameters: p) }
        }

        /// Measurement variance of one bias update that makes `steadyStateVariance` the filter's steady state
        /// with the random walk over `intervalS`: for a scalar filter with process variance `v` per step, the
        /// posterior settles at `p` when the measurement variance is `p²/v + p`.
        func measurementVariance(steadyStateVariance p: Double, intervalS dt: Double) -> Double {
            let v = max(biasRandomWalkVariancePerS * dt, 1e-30)
            return p * p / v + p
        }

        mutating func setGyroscope(intervalS dt: Double, parameters p: Parameters) {
            restGyroscopeLowPass = ButterworthCoefficients(timeConstantS: p.restFilterTimeConstantS, intervalS: dt)
        }

        mutating func setAccelerometer(intervalS dt: Double, parameters p: Parameters) {
            restAccelerometerLowPass = ButterworthCoefficients(timeConstantS: p.restFilterTimeConstantS, intervalS: dt)
            accelerometerLowPass = ButterworthCoefficients(timeConstantS: p.accelerometerTimeConstantS, intervalS: dt)
        }

        mutating func setMagnetometer(intervalS dt: Double, parameters p: Parameters) {
            magneticCurrentLowPass = ButterworthCoefficients(timeConstantS: p.magneticCurrentTimeConstantS, intervalS: dt)
            magneticReferenceGain = firstOrderGain(timeConstantS: p.magneticReferenceTimeConstantS, intervalS: dt)
        }

    }
}

/// The sample interval of each sensor stream as the filter measured it (part of the state, so that a restored
/// state rebuilds the same coefficients).
///
/// Each stream's interval is smoothed over about 50 samples; the coefficients are re-derived when the smoothed
/// interval moves more than `tolerance` (5 %) from the one they were derived for, so timestamp jitter does not
/// churn the filters while a real rate change (a reconfigured chip, a slower magnetometer) is followed.
public struct SampleIntervals: Sendable, Hashable, Codable {
    /// Relative change of a smoothed interval that re-derives the coefficients: 5 %.
    public static let tolerance = 0.05
    /// Time constant of the smoothing, in samples: 50.
    public static let smoothingSamples = 50.0

    /// One stream's interval.
    public struct Interval: Sendable, Hashable, Codable {
        /// The interval the coefficients were derived for, s; 0 until the stream's second sample.
        public private(set) var derivedS: Double = 0
        /// The smoothed measured interval, s.
        public private(set) var smoothedS: Double = 0

        /// Smooths in `dt`; true when the coefficients must be re-derived for `derivedS`.
        mutating func track(_ dt: Double) -> Bool {
            smoothedS = smoothedS == 0 ? dt : smoothedS + (dt - smoothedS) / SampleIntervals.smoothingSamples
            guard derivedS == 0 || abs(smoothedS - derivedS) > SampleIntervals.tolerance * derivedS else { return false }
            derivedS = smoothedS
            return true
        }
    }

    /// Each stream's interval.
    public var gyroscope = Interval()
    public var accelerometer = Interval()
    public var magnetometer = Interval()
}
extension LowPassVector {
    /// Keeps the output where it is under new coefficients (no-op before the filter runs).
    mutating func settle(coefficients k: ButterworthCoefficients) {
        guard isRunning else { return }
        settle(at: output, coefficients: k)
    }
}
