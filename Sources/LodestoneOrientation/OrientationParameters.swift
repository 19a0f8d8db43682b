extension OrientationFilter {
    /// What the filter is told: every tunable, independent of the sample rates (the rate-dependent
    /// `Coefficients` are derived from these and the measured sample intervals).
    ///
    /// The defaults were tuned once on the BROAD development trials (Laidig et al. 2021; the same values for
    /// every trial) and are a sound start for any MEMS IMU; `benchmarks/accuracy/orientation/` re-scores them.
    /// The structure — a gyroscope strapdown quaternion, an accelerometer low-pass in an almost-inertial frame, a
    /// heading offset from the magnetometer, a Kalman filter on the gyroscope bias fed at rest and in motion, rest
    /// detection and magnetic-disturbance rejection — follows the ideas of Laidig & Seel, *VQF: Highly accurate
    /// IMU orientation estimation with bias estimation and magnetic disturbance rejection*, Information Fusion
    /// 91:187–204, 2023 (cited below as "VQF §n"). Lodestone adds the heading uncertainty model, the board-fixed
    /// field tracker and the sample-and-hold handling.
    public struct Parameters: Sendable, Hashable, Codable {
        // MARK: Inclination and heading

        /// Time constant of the accelerometer low-pass in the almost-inertial frame, s, > 0. Default 3.
        /// Longer trusts the gyroscope's inclination more (less disturbed by linear acceleration, slower to
        /// correct gyroscope errors). VQF §3.2.
        public var accelerometerTimeConstantS: Double = 3.0

        /// Steady-state time constant of the magnetometer heading correction, s, > 0. Default 30.
        /// Longer averages the magnetometer's heading errors (local field gradients, residual calibration)
        /// over more time and trusts the gyroscope more. After a rejection the correction runs faster, as the
        /// heading uncertainty grown meanwhile says (a scalar Kalman gain, `HeadingUncertainty`).
        /// 30 s (was 20): on BROAD's 20 development trials every leave-one-trial-out fold chooses 30 s (or 40) among
        /// 10–40 s; the simulated board's heading (a consumer MEMS gyroscope) is the same within 0.06° at p95.
        public var magnetometerTimeConstantS: Double = 30.0

        /// Growth of the heading variance while the gyroscope alone carries heading, deg²/s, ≥ 0. Default 0.01
        /// (a random walk of 0.1 °/√s): gyroscope noise, scale-factor and alignment errors.
        /// With `magnetometerTimeConstantS` it sets the magnetometer's weight; it is also what the reported
        /// heading accuracy grows with during magnetic rejection.
        public var headingRandomWalkDeg2PerS: Double = 0.01

        // MARK: Gyroscope bias

        /// Estimate the bias during motion from the accelerometer corrections (VQF §3.3). Default true.
        public var estimatesBiasInMotion = true
        /// Estimate the bias at rest from the low-passed gyroscope (VQF §3.4). Default true.
        public var estimatesBiasAtRest = true
        /// Standard deviation of the bias before any estimate, °/s, > 0. Default 0.5.
        public var biasInitialSigmaDegS: Double = 0.5
        /// Random walk of the bias (its drift with temperature and time), °/s/√s, ≥ 0. Default 0.01:
        /// without measurements the variance grows by (0.1 °/s)² in 100 s.
        public var biasRandomWalkDegSPerSqrtS: Double = 0.01
        /// Steady-state standard deviation of the bias estimate in motion (horizontal components), °/s, > 0.
        /// Default 0.1.
        public var biasMotionSigmaDegS: Double = 0.1
        /// The vertical (earth-frame up) bias component is unobservable from the accelerometer; a weak pull
        /// keeps it from wandering: its measurement variance is the motion one divided by this, > 0. Default 1e-4.
        public var biasVerticalForgettingFactor: Double = 1e-4
        /// Steady-state standard deviation of the bias estimate at rest, °/s, > 0. Default 0.03.
        public var biasRestSigmaDegS: Double = 0.03
        /// Largest innovation of one in-motion bias update, per board axis, °/s, > 0: an accelerometer correction
        /// implying more is clipped to ±this. Default 2 (VQF's `biasClip`, VQF §3.3).
        public var biasClipDegS: Double = 2.0
        /// Largest gyroscope bias the filter believes, per board axis, °/s, > 0: the estimate is clipped to ±this,
        /// and a low-passed rate beyond it never counts as rest. Default 5: the initial zero-rate output tolerance
        /// of consumer MEMS gyroscopes at 25 °C (MPU-9250 Product Specification rev. 1.1, §3.1 "Initial ZRO
        /// Tolerance ±5 °/s"; ICM-20948 datasheet DS-000189 rev. 1.3, Table 1 "Initial ZRO Tolerance ±5 dps"), so
        /// an uncalibrated board's turn-on bias is learned at its first rest instead of vetoing rest for good.
        public var biasLimitDegS: Double = 5.0

        // MARK: Rest detection

        /// Time the board must be still before rest is declared, s, ≥ 0. Default 1.5. VQF §3.4.
        public var restMinimumDurationS: Double = 1.5
        /// Time constant of the low-passes whose deviation from the raw signals detects motion, s, > 0. Default 0.5.
        public var restFilterTimeConstantS: Double = 0.5
        /// Largest deviation of the gyroscope from its low-pass at rest, °/s, > 0. Default 2.
        public var restGyroscopeThresholdDegS: Double = 2.0
        /// Largest deviation of the accelerometer from its low-pass at rest, m/s², > 0. Default 0.5.
        public var restAccelerometerThresholdMps2: Double = 0.5
        /// Largest change of the low-passed accelerometer since the board became still, m/s², > 0. Default 0.1.
        /// The deviation from a 0.5 s low-pass misses slow changes; this catches them: a board tilting at 1 °/s
        /// turns gravity by 0.17 m/s² per second, a car easing into or out of a braking or a curve changes its
        /// specific force likewise, while a still board's low-passed specific force stays within its noise.
        public var restAccelerometerDriftMps2: Double = 0.1
        /// Once the bias has been measured at rest, the largest deviation of the low-passed gyroscope from the
        /// bias estimate, per board axis, that still counts as rest, °/s, > 0 (widened to three standard
        /// deviations of the estimate when these are larger). Default 0.5. Before the first rest the bias is known
        /// only to `biasLimitDegS`, and the rate is judged against that: a board turning slowly about the vertical
        /// from power-on is indistinguishable from a bias without a magnetometer; once the bias is known, a slow
        /// turn (≥ 0.5 °/s) is told from rest. VQF §3.4 judges the low-passed rate against `biasClip` (2 °/s).
        public var restBiasDeviationDegS: Double = 0.5
        /// Time the board must stay still (no short-term variation in either sensor, rate within `biasLimitDegS`)
        /// while its rate disagrees with the bias estimate before the bias is learned afresh, as at the first rest,
        /// s, > 0. Default 30. A slow turn mistaken for a bias (a board turning steadily about the vertical at
        /// power-on) would otherwise keep the board from ever being at rest again; a turn that steady for this
        /// long cannot be told from a bias without a magnetometer.
        public var restRelearnTimeS: Double = 30

        // MARK: Magnetic disturbance

        /// Detect and reject magnetic disturbances (VQF §3.5). Default true.
        public var rejectsMagneticDisturbances = true
        /// Time constant of the low-pass on the measured field's norm and dip before they are compared with the
        /// reference, s, ≥ 0. Default 0.05.
        public var magneticCurrentTimeConstantS: Double = 0.05
        /// Time constant with which the reference norm and dip follow an undisturbed field, s, > 0. Default 20.
        public var magneticReferenceTimeConstantS: Double = 20.0
        /// Largest relative deviation of the field's norm from the reference that counts as undisturbed, > 0.
        /// Default 0.1 (10 %).
        public var magneticNormThreshold: Double = 0.1
        /// Largest deviation of the field's dip from the reference that counts as undisturbed, °, > 0. Default 10.
        public var magneticDipThresholdDeg: Double = 10.0
        /// Time a new, steady field must be seen while rotating before it becomes the reference, s. Default 20.
        public var magneticNewFieldTimeS: Double = 20.0
        /// The same before the first reference exists, s. Default 5.
        public var magneticNewFieldFirstTimeS: Double = 5.0
        /// Rotation rate above which time counts towards accepting a new field, °/s: a field that keeps its
        /// norm and dip while the board turns is fixed to the earth, not to the board. Default 20.
        public var magneticNewFieldMinimumRateDegS: Double = 20.0
        /// Time the field must be back within the thresholds before the disturbance is declared over, s. Default 0.5.
        public var magneticMinimumUndisturbedTimeS: Double = 0.5
        /// Longest time the magnetometer is ignored during a disturbance, s. After it, the disturbed field is
        /// used with a variance `magneticRejectionVarianceFactor` times larger. Default 60.
        public var magneticMaximumRejectionTimeS: Double = 60.0
        /// How much less a disturbed field is trusted once the maximum rejection time is over, ≥ 1. Default 4.
        public var magneticRejectionVarianceFactor: Double = 4.0

        /// Smallest innovation gate of the heading correction, °, > 0. Default 10. A magnetometer heading that
        /// disagrees with the filter's by more than this and more than three standard deviations of the
        /// heading is not used (a field whose norm and dip happen to look right but that points elsewhere).
        public var magneticHeadingGateDeg: Double = 10.0

        // MARK: Board-fixed field (an attached magnet, a phone on the board)

        /// Track a field offset fixed to the board (hard iron that appeared after calibration, e.g. a magnet
        /// or a phone attached to the board) from the gyroscope and the magnetometer alone, and use the
        /// magnetometer again, corrected, once the offset is known. Default true.
        public var tracksBoardFixedField = true
        /// Memory of the tracker, s, > 0. Default 8.
        public var boardFixedFieldWindowS: Double = 8.0
        /// Longest time between the two samples of one tracker equation, s, > 0. Default 0.5.
        public var boardFixedFieldAnchorIntervalS: Double = 0.5
        /// Noise of one tracker equation at rest, µT, > 0. Default 1 (the magnetometer noise of its two samples).
        public var boardFixedFieldNoiseMicroTesla: Double = 1.0
        /// Growth of that noise with the rotation rate, µT per rad/s, ≥ 0. Default 0.3 (gyroscope scale errors
        /// and the magnetometer's timing over the anchor interval grow with the rate).
        public var boardFixedFieldRateNoiseMicroTeslaPerRadS: Double = 0.3
        /// Largest standard deviation (in its worst direction) at which an offset estimate is used, µT. Default 0.6.
        public var boardFixedFieldAcceptSigmaMicroTesla: Double = 0.6
        /// Largest RMS residual of the tracker's equations at which the field counts as board-fixed, µT. Default 2.5.
        public var boardFixedFieldConsistencyMicroTesla: Double = 2.5
        /// Time an estimate must stay acceptable before it is used, s. Default 1.
        public var boardFixedFieldAcceptTimeS: Double = 1.0

        // MARK: Sampling

        /// Treat a magnetometer sample identical to the previous one, bit for bit, as no new sample (a
        /// sample-and-hold magnetometer read faster than it converts; BROAD repeats 29 % of its samples).
        /// Default true.
        public var ignoresRepeatedMagnetometerSamples = true
        /// How much later than the gyroscope the accelerometer's samples describe the motion, s, ≥ 0 (the
        /// difference of the chips' filter and conversion delays). Each accelerometer sample is used with the
        /// orientation of that earlier instant. Default 0.0035 (one sample of BROAD's IMU).
        public var accelerometerDelayS: Double = 0.0035
        /// The same for the magnetometer, s, ≥ 0. Default 0.0105 (a sample-and-hold magnetometer converting at
        /// ~200 Hz, read at 285.7 Hz, lags the gyroscope by about three samples).
        public var magnetometerDelayS: Double = 0.0105
        /// Longest gyroscope interval integrated, s, > 0. A longer gap (lost samples) is integrated as this
        /// long and counted as a gap. Default 0.1.
        public var maximumGyroscopeIntervalS: Double = 0.1

        // MARK: Heading accuracy

        /// The part of the magnetometer's heading error that no filtering removes (field gradients, residual
        /// calibration, the magnetic north of the room versus the model's), deg, ≥ 0. Default 1.8.
        public var headingErrorFloorDeg: Double = 1.8
        /// Weight of the magnetometer's recent disagreement with the filter's heading (its low-passed square) in
        /// the heading variance, ≥ 0. Default 0.3: where the field is distorted (steel, gradients), the
        /// magnetometer's heading scatters and the heading it steers is worth less, so the reported accuracy
        /// widens with the scatter instead of assuming one fixed floor everywhere.
        public var headingDisagreementWeight: Double = 0.3
        /// Time constant of that low-pass, s, > 0. Default 30.
        public var headingDisagreementTimeConstantS: Double = 30
        /// 1σ of the accelerometer's zero-g offset left in its readings, per board axis, m/s², ≥ 0: after a
        /// calibration, what the calibration leaves (its residual, the chip's drift since); without one, the chip's
        /// initial tolerance. The filter levels the board on gravity, so such an offset tilts the estimated
        /// horizontal by offset/g, and the magnetometer's heading by that tilt times the tangent of the field's dip
        /// (8° of heading from 4° of tilt where the dip is 63°); the reported heading accuracy includes it. Default
        /// 0: not known (a trace replay), no such term. A session sets it from the board's calibration and chip.
        public var accelerometerOffsetSigmaMps2: Double = 0
        /// 1σ of a board-fixed magnetic offset (hard iron) that no calibration removed, per board axis, µT, ≥ 0. Until
        /// the board has turned enough for the filter's own tracker to measure the offset, the magnetometer's heading
        /// may be off by up to atan(offset / horizontal field) and nothing in the data says so; the reported heading
        /// accuracy includes that, and the tracker's estimate replaces it once it is better determined. Default 0: not
        /// known (a trace replay, a calibrated magnetometer), no such term. A session sets it for a board whose
        /// magnetometer has no calibration.
        public var magnetometerOffsetSigmaMicroTesla: Double = 0
        /// How far the measured field may differ from the expected one (`OrientationFilter.setExpectedField`) before
        /// the reported heading accuracy widens, as a fraction of the expected norm, ≥ 0. Default 0.01: a calibrated
        /// magnetometer's scale drifts by about 1 % with temperature, and a scale error turns no heading.
        public var expectedFieldToleranceFraction: Double = 0.01
        /// Time constant of the low-pass of the measured norm and dip that is compared with the expected field, s,
        /// > 0. Default 2: long enough to average the magnetometer's noise and the tilt's wobble in motion.
        public var expectedFieldTimeConstantS: Double = 2
        /// Multiplier from the heading standard deviation to the reported accuracy, > 0. Default 1.645 (a 90 %
        /// two-sided bound for a normal error).
        public var headingAccuracyCoverageFactor: Double = 1.645

        /// The defaults.
        public init() {}

        /// `magnetometerOffsetSigmaMicroTesla` for a magnetometer without a calibration, µT: 10. Board-fixed fields
        /// of 5–30 µT are usual (components, traces and batteries near the chip; the simulated LIS3MDL board has
        /// 14.7 µT), and the chips' own zero-field offsets add to them (the LIS3MDL's is ±100 µT typical, the
        /// AK8963's is not bounded by its data sheet). An assumption, of the order of what calibrations find.
        public static let uncalibratedMagnetometerOffsetSigmaMicroTesla = 10.0
    }
}
