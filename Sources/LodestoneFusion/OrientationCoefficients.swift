import LodestoneCore

extension OrientationFilter {
    /// What the filter derives from its `Parameters` and the sample intervals it measures, so the per-sample
    /// path does no unit conversion and no transcendental function of a parameter.
    ///
    /// The rate-dependent part follows each sensor's interval: it is set from the first interval and re-derived
    /// when a smoothed interval moves more than `intervalTolerance` (5 %) from the one it was derived for, so
    /// timestamp jitter does not churn the filters while a real rate change (a reconfigured chip, a slower
    /// magnetometer) is followed.
    public struct Coefficients: Sendable, Hashable {
        /// Relative change of a smoothed sample interval that re-derives the coefficients: 5 %.
        public static let intervalTolerance = 0.05
        /// Time constant of the interval smoothing, in samples: 50.
        static let intervalSmoothingSamples = 50.0

        /// Intervals the rate-dependent coefficients were derived for, s; 0 until the stream's second sample.
        public private(set) var gyroscopeIntervalS: Double = 0
        public private(set) var accelerometerIntervalS: Double = 0
        public private(set) var magnetometerIntervalS: Double = 0
        /// Smoothed measured intervals, s.
        var gyroscopeSmoothedIntervalS: Double = 0
        var accelerometerSmoothedIntervalS: Double = 0
        var magnetometerSmoothedIntervalS: Double = 0

        /// Rest-detection low-passes at the gyroscope and accelerometer rates.
        public private(set) var restGyroscopeLowPass = ButterworthCoefficients.passThrough
        public private(set) var restAccelerometerLowPass = ButterworthCoefficients.passThrough
        /// The inclination low-pass (and the matched low-pass of the bias estimation), accelerometer rate.
        public private(set) var accelerometerLowPass = ButterworthCoefficients.passThrough
        /// The low-pass on the field's norm and dip, magnetometer rate.
        public private(set) var magneticCurrentLowPass = ButterworthCoefficients.passThrough
        /// First-order gain with which the reference norm and dip follow an undisturbed field, per magnetometer sample.
        public private(set) var magneticReferenceGain: Double = 0

        /// `biasClipDegS` in rad/s.
        public let biasClipRadS: Double
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
            biasInitialVariance = (p.biasInitialSigmaDegS * radiansPerDegree) * (p.biasInitialSigmaDegS * radiansPerDegree)
            biasMotionVariance = (p.biasMotionSigmaDegS * radiansPerDegree) * (p.biasMotionSigmaDegS * radiansPerDegree)
            biasRestVariance = (p.biasRestSigmaDegS * radiansPerDegree) * (p.biasRestSigmaDegS * radiansPerDegree)
            let walk = p.biasRandomWalkDegSPerSqrtS * radiansPerDegree
            biasRandomWalkVariancePerS = walk * walk
            restGyroscopeThresholdSquared = (p.restGyroscopeThresholdDegS * radiansPerDegree) * (p.restGyroscopeThresholdDegS * radiansPerDegree)
            restAccelerometerThresholdSquared = p.restAccelerometerThresholdMps2 * p.restAccelerometerThresholdMps2
            headingRandomWalkRad2PerS = p.headingRandomWalkDeg2PerS * radiansPerDegree * radiansPerDegree
            magneticHeadingNoiseDensityRad2S = max(headingRandomWalkRad2PerS, 1e-12)
                * p.magnetometerTimeConstantS * p.magnetometerTimeConstantS
            initialHeadingVariance = (30 * radiansPerDegree) * (30 * radiansPerDegree)
            magneticDipThresholdRad = p.magneticDipThresholdDeg * radiansPerDegree
            headingFloorVarianceRad2 = (p.headingErrorFloorDeg * radiansPerDegree) * (p.headingErrorFloorDeg * radiansPerDegree)
            magneticHeadingGateRad = p.magneticHeadingGateDeg * radiansPerDegree
            magneticNewFieldMinimumRateRadS = p.magneticNewFieldMinimumRateDegS * radiansPerDegree
        }

        /// Measurement variance of one bias update that makes `steadyStateVariance` the filter's steady state
        /// with the random walk over `intervalS`: for a scalar filter with process variance `v` per step, the
        /// posterior settles at `p` when the measurement variance is `p²/v + p`.
        func measurementVariance(steadyStateVariance p: Double, intervalS dt: Double) -> Double {
            let v = max(biasRandomWalkVariancePerS * dt, 1e-30)
            return p * p / v + p
        }

        /// Smooths `dt` into `smoothed` and says whether coefficients derived for `current` should be re-derived.
        private static func track(_ dt: Double, smoothed: inout Double, current: Double) -> Bool {
            if smoothed == 0 { smoothed = dt } else { smoothed += (dt - smoothed) / intervalSmoothingSamples }
            return current == 0 || abs(smoothed - current) > intervalTolerance * current
        }

        mutating func adaptGyroscope(intervalS dt: Double, parameters p: Parameters, state: inout State) {
            guard Self.track(dt, smoothed: &gyroscopeSmoothedIntervalS, current: gyroscopeIntervalS) else { return }
            gyroscopeIntervalS = gyroscopeSmoothedIntervalS
            restGyroscopeLowPass = ButterworthCoefficients(timeConstantS: p.restFilterTimeConstantS, intervalS: gyroscopeIntervalS)
            state.restGyroscopeLowPass.settle(coefficients: restGyroscopeLowPass)
        }

        mutating func adaptAccelerometer(intervalS dt: Double, parameters p: Parameters, state: inout State) {
            guard Self.track(dt, smoothed: &accelerometerSmoothedIntervalS, current: accelerometerIntervalS) else { return }
            accelerometerIntervalS = accelerometerSmoothedIntervalS
            restAccelerometerLowPass = ButterworthCoefficients(timeConstantS: p.restFilterTimeConstantS, intervalS: accelerometerIntervalS)
            accelerometerLowPass = ButterworthCoefficients(timeConstantS: p.accelerometerTimeConstantS, intervalS: accelerometerIntervalS)
            state.restAccelerometerLowPass.settle(coefficients: restAccelerometerLowPass)
            state.accelerationLowPass.settle(coefficients: accelerometerLowPass)
            state.motionBiasLowPass.settle(coefficients: accelerometerLowPass)
        }

        mutating func adaptMagnetometer(intervalS dt: Double, parameters p: Parameters, state: inout State) {
            guard Self.track(dt, smoothed: &magnetometerSmoothedIntervalS, current: magnetometerIntervalS) else { return }
            magnetometerIntervalS = magnetometerSmoothedIntervalS
            magneticCurrentLowPass = ButterworthCoefficients(timeConstantS: p.magneticCurrentTimeConstantS, intervalS: magnetometerIntervalS)
            magneticReferenceGain = firstOrderGain(timeConstantS: p.magneticReferenceTimeConstantS, intervalS: magnetometerIntervalS)
            state.magnetic.normDipLowPass.settle(coefficients: magneticCurrentLowPass)
            state.magnetic.rawNormDipLowPass.settle(coefficients: magneticCurrentLowPass)
        }
    }
}

extension LowPassVector {
    /// Keeps the output where it is under new coefficients (no-op before the filter runs).
    mutating func settle(coefficients k: ButterworthCoefficients) {
        guard isRunning else { return }
        settle(at: output, coefficients: k)
    }
}
