import LodestoneCore

extension OrientationFilter {
    /// Everything `update` changes. `Equatable` and `Codable`: a run can be snapshotted, restored and compared
    /// (STYLE.md habit 6). Angles in radians, rates in rad/s, fields in µT, times in s.
    public struct State: Sendable, Hashable, Codable {
        /// Board → almost-inertial frame I: the integrated, bias-corrected gyroscope.
        public var qGyroscope = Quaternion.identity
        /// I → E₆: the accelerometer's inclination correction (rotations about horizontal axes only).
        public var qInclination = Quaternion.identity
        /// Heading offset δ, E₆ → East-North-Up about the vertical, rad, (−π, π].
        public var headingOffsetRad: Double = 0
        /// True once an accelerometer sample set the inclination.
        public var hasInclination = false
        /// True once a magnetometer sample set the heading.
        public var hasHeading = false

        /// Each stream's measured sample interval.
        public var intervals = SampleIntervals()
        /// Time of each stream's last sample, s.
        public var lastGyroscopeTimeS: Double?
        public var lastAccelerometerTimeS: Double?
        public var lastMagnetometerTimeS: Double?
        /// Last bias-corrected rate, board frame, rad/s.
        public var lastRateRadS = Vector3.zero

        /// The specific force low-passed in frame I, m/s².
        public var accelerationLowPass = LowPassVector<Vector3>()
        /// Low-pass of the rotation matrix and of R·b for the motion bias measurement (VQF §3.3).
        public var motionBiasLowPass = LowPassVector<SIMD16<Double>>()

        /// Gyroscope bias estimate, board frame, rad/s, and its covariance, (rad/s)².
        public var gyroscopeBiasRadS = Vector3.zero
        public var biasCovariance: Matrix3

        /// Variance of the bias about the vertical (earth up), (rad/s)², from the last accelerometer update.
        public var verticalBiasVariance: Double = 0
        /// Rest detection: the low-passes and how long the board has been still.
        public var restGyroscopeLowPass = LowPassVector<Vector3>()
        public var restAccelerometerLowPass = LowPassVector<Vector3>()
        public var restDurationS: Double = 0
        public var isAtRest = false
        /// The low-passed specific force when the board became still (board frame, m/s²): rest ends when the
        /// low-pass moves more than `restAccelerometerDriftMps2` from it.
        public var restAnchorMps2 = Vector3.zero
        /// True once the bias has been measured at rest (until then it is known only to `biasLimitDegS`).
        public var hasRestBias = false
        /// True while the gyroscope looks still but its rate disagrees with the bias estimate; and how long the
        /// board has been still so (both sensors), s (`restRelearnTimeS`).
        public var isRateUnexplained = false
        public var unexplainedStillS: Double = 0

        /// The magnetometer's side: reference field, disturbance, board-fixed offset.
        public var magnetic = MagneticState()
        /// Heading uncertainty of the 9D heading (with the magnetometer's corrections).
        public var heading = HeadingUncertainty()
        /// Drift uncertainty of the 6D heading since start (never corrected).
        public var heading6D = HeadingUncertainty()

        init(parameters p: Parameters) {
            let sigma = Angle.radians(fromDegrees: p.biasInitialSigmaDegS)
            biasCovariance = .diagonal(sigma * sigma)
            verticalBiasVariance = sigma * sigma
        }
    }
}

/// The heading error's variance and its covariance with the vertical gyroscope bias error: a two-state
/// error model `[ψ, b_up]` with `ψ̇ = b_up + noise`, of which only `ψ` is ever corrected (by the magnetometer);
/// `b_up`'s variance comes from the bias filter each step. Corrections use the Joseph form, exact for any gain.
public struct HeadingUncertainty: Sendable, Hashable, Codable {
    /// Heading error variance, rad².
    public private(set) var variance: Double = 0
    /// Covariance of the heading error with the vertical bias error, rad²/s.
    public private(set) var crossCovariance: Double = 0

    /// Zero variance: the heading is exactly what it was set to.
    public init() {}

    /// Grows the variance over `intervalS` of gyroscope integration.
    mutating func propagate(intervalS dt: Double, verticalBiasVariance pbb: Double, randomWalkVariance q: Double) {
        variance += 2 * crossCovariance * dt + pbb * dt * dt + q
        crossCovariance += pbb * dt
    }

    /// The heading was just set from one measurement with variance `varianceRad2`.
    mutating func startAbsolute(varianceRad2: Double) {
        variance = varianceRad2
        crossCovariance = 0
    }

    /// A scalar Kalman correction with a measurement of variance `r`; returns the gain.
    mutating func correct(measurementVarianceRad2 r: Double) -> Double {
        let k = variance / (variance + r)
        variance = (1 - k) * (1 - k) * variance + k * k * r
        crossCovariance *= 1 - k
        return k
    }
}
