import LodestoneCore
import RealModule

/// Location fusion: a loosely coupled Kalman filter that fuses receiver fixes with the inertial sensors and
/// the barometer, estimating position and velocity, dead-reckoning through outages with an honestly growing
/// uncertainty, rejecting outliers (multipath jumps) and smoothing jitter without lag at turns.
///
/// **Model.** Position and velocity in the local East-North-Up frame, per axis a state
/// `[position m, velocity m/s, acceleration error m/s², receiver error (unit-variance)]`; the vertical axis adds
/// the barometer's offset (m). The horizontal axes share one 4 × 4 covariance: the measurements and the noise
/// are isotropic in E and N, so one covariance serves both (exact for the receiver-only model; with inertial
/// aiding the along-track projection and the turning of the velocity make it an approximation that ignores the
/// E–N cross-covariance those create). The vertical has its own 5 × 5 one.
/// - With an orientation (`boardToENU`, from the orientation stage) the accelerometer gives the ENU
///   acceleration a = R·f − γ·up (γ: WGS84 normal gravity), minus an acceleration-error state that absorbs the
///   accelerometer's bias and the orientation's tilt error (a tilt error δθ reads as a horizontal acceleration
///   γ·δθ). How it moves the horizontal estimate is `HorizontalAiding`: by default, for vehicles, the velocity
///   turns with the board and the speed follows the along-track acceleration, shrunk towards cruising when the
///   reading is within its error; for walkers, and without an orientation, velocity is held (a
///   constant-velocity model driven by white acceleration). Either way jitter is smoothed without lag at turns,
///   because the receiver's Doppler velocity is a measurement: the estimate turns when the velocity does.
/// - The receiver's position error is **not white**: single-frequency errors are correlated over about a
///   minute (multipath, atmosphere). Treating them as white would let the filter average them away and claim
///   an accuracy it does not have. They are modelled as σ·x with x a unit-variance first-order Gauss–Markov
///   state (A. Gelb, *Applied Optimal Estimation*, MIT Press 1974, §4.5, coloured measurement noise by state
///   augmentation), σ the receiver's own per-axis accuracy scaled by `Parameters`, so the fused accuracy never
///   falls much below the receiver's.
/// - The receiver's accuracy claims are not trusted blindly: the normalised innovations of its positions
///   calibrate a variance scale (≥ 1) that inflates them when they are too optimistic.
/// - Outliers: a fix whose position innovation fails a χ² test (2 degrees of freedom) is not used, and widens
///   the position's variance a little (`outlierInflation`), so a jump that persists is eventually believed;
///   after `maximumConsecutiveOutliers` in a row the filter restarts its position at the receiver's (the filter,
///   not the receiver, was wrong). So it does at once when no position has been used for `staleRestartS` (30 s):
///   after that long on dead reckoning alone (a power-save receiver asleep while the car it rides in set off), the
///   dead reckoning is the likelier to be wrong, and at one fix per wake 30 outliers would take hours. The velocity
///   then restarts at the receiver's too. Velocities, heights and pressures have their own gates; the height
///   restarts the same way (at the receiver's height, or at the barometer's when no receiver height comes) when
///   none has been used for `staleRestartS` — an acceleration error integrated twice once ran the height to
///   −6 400 km in a simulated day, every height and pressure turned away by the gate, and the horizontal offsets,
///   scaled by the radius plus that height, with it.
/// - The barometer gives height changes (ISA altitude, ISO 2533) with a slowly wandering offset (weather),
///   which GNSS heights calibrate; it carries the height indoors and through outages.
///
/// Reported accuracies are radii (horizontal) or half-widths of `Parameters.confidence` (95 %) regions.
///
/// Parameters + Coefficients + State (STYLE.md habit 6). Every update is allocation-free.
public struct NavigationFilter: Sendable {
    // MARK: Parameters

    /// How the inertial sensors move the horizontal estimate between fixes.
    public enum HorizontalAiding: String, Sendable, Hashable, Codable {
        /// Not at all: velocity is held (constant-velocity model).
        case none
        /// Above `vehicleSpeedMps` the carrier is taken to move along a direction fixed to the board (a car, a
        /// bicycle): the velocity turns with the board's heading changes, and the speed changes with the
        /// along-track acceleration. Tilt errors of a few degrees hardly matter then (the centripetal part is
        /// not integrated; the along-track error is calibrated by the fixes). Below it, velocity is held: a
        /// walker's phone turns and sways independently of the way they walk.
        case vehicle
        /// Full strapdown: both horizontal components of the ENU acceleration are integrated. Best with an
        /// orientation good to a fraction of a degree.
        case full
    }

    /// Tunables, rate-independent; defaults in parentheses suit a consumer receiver and MEMS IMU.
    public struct Parameters: Sendable, Hashable, Codable {
        /// How the inertial sensors drive the horizontal motion (`.vehicle`).
        public var horizontalAiding: HorizontalAiding
        /// Speed above which `.vehicle` aiding applies, m/s (5; it stops below 80 % of this).
        public var vehicleSpeedMps: Double
        /// σ of a heading change reported by the orientation, as a fraction of the change (0.05).
        public var turnScaleSigma: Double
        /// `.vehicle`: prior probability that the vehicle is cruising (no along-track acceleration) (0.8), and
        /// σ of its along-track acceleration when it is not, m/s² (1.5). The measured along-track acceleration
        /// (smoothed over 0.5 s, bias removed) is shrunk by the posterior of this spike-and-slab prior: readings
        /// within the accelerometer-and-orientation error are mostly taken as cruising, braking and
        /// accelerating are followed (Bayesian shrinkage; e.g. T. J. Mitchell & J. J. Beauchamp, JASA 83:1023, 1988).
        public var vehicleCruiseProbability: Double
        public var vehicleManoeuvreSigmaMps2: Double
        /// Confidence of the reported accuracies (0.95).
        public var confidence: Double
        /// Receiver horizontal accuracy → per-axis σ: σ = `horizontalAccuracyM` × this (1/√2: the accuracy
        /// is read as a DRMS, √(σE² + σN²), as u-blox hAcc and gpsd eph roughly are).
        public var receiverHorizontalAccuracyScale: Double
        /// Receiver vertical accuracy → σ: σ = `verticalAccuracyM` × this (1).
        public var receiverVerticalAccuracyScale: Double
        /// Per-axis σ of a fix that states neither an accuracy nor an HDOP, m (5).
        public var defaultHorizontalSigmaM: Double
        /// Per-axis σ per unit of HDOP when a fix states only HDOP, m (2.5; UERE ≈ 3.5 m over √2).
        public var sigmaPerHDOPM: Double
        /// Vertical σ of a 3D fix without a vertical accuracy, as a multiple of its horizontal σ (1.7).
        public var verticalToHorizontalRatio: Double
        /// Correlation time of the receiver's position error, s (60; Gauss–Markov).
        public var receiverErrorCorrelationTimeS: Double
        /// Fraction of the receiver's error standard deviation that is white rather than correlated (0.3).
        public var receiverWhiteFraction: Double
        /// σ of a receiver velocity per axis when the fix states no speed accuracy, m/s (0.3).
        public var defaultVelocitySigmaMps: Double
        /// Learn a variance scale for the receiver's position accuracy from its innovations (true).
        public var adaptsReceiverAccuracy: Bool
        /// Time constant of that learning, in fixes (30).
        public var receiverAccuracyLearningFixes: Double

        /// White acceleration driving the velocity when no orientation is known (constant-velocity model),
        /// horizontal, PSD in m²/s³ (1: velocity uncertainty grows by 1 m/s in 1 s), at rest.
        public var unaidedAccelerationPSD: Double
        /// Growth of that PSD with speed, 1/s: q = `unaidedAccelerationPSD` + this × speed² (0.05). A car at
        /// 16 m/s can brake or turn through 60° in a tunnel; a walker at 1.4 m/s hardly changes velocity as much.
        public var unaidedManoeuvrePerSecond: Double
        /// The same, vertical, m²/s³ (0.25).
        public var unaidedVerticalAccelerationPSD: Double
        /// White acceleration error with the inertial sensors, PSD in m²/s³ (0.02): accelerometer noise,
        /// vibration and the fast part of the orientation's error.
        public var aidedAccelerationPSD: Double
        /// Heading uncertainty of the orientation, rad (0.05): adds (σψ·|a_horizontal|)² per second to the
        /// acceleration PSD, since a heading error turns the measured acceleration.
        public var orientationHeadingSigmaRad: Double
        /// Fraction of a sustained acceleration an orientation filter may mistake for tilt (0.4): an AHRS levels
        /// on the accelerometer, so while braking its "up" leans and the braking it reports shrinks. Adds
        /// (this·|a_along|)² per second to the acceleration PSD.
        public var orientationAccelerationLeak: Double
        /// σ of the ENU acceleration error, m/s² (0.1): what the orientation's tilt error (γ·δθ) and the
        /// accelerometer's bias leave after the orientation stage has levelled on gravity. A first-order
        /// Gauss–Markov state with correlation `accelerationErrorCorrelationS`.
        public var accelerationErrorSigmaMps2: Double
        /// Correlation time of that error, s (20): an AHRS re-levels its tilt on the accelerometer within tens of
        /// seconds, so the error it leaves decays rather than staying (which is also what lets the velocity be
        /// held through a straight tunnel instead of drifting with a stale bias).
        public var accelerationErrorCorrelationS: Double
        /// σ of the accelerometer bias fixed in the board, m/s² (0.2): when the board turns by Δψ about up, the
        /// bias seen in ENU turns with it, so the ENU bias estimate is turned too and its variance grows by
        /// (σ·Δψ)² (the orientation's tilt error, which does not turn, makes this uncertain).
        public var boardFixedBiasSigmaMps2: Double
        /// `.vehicle`: learn how the board sits in the vehicle (`VehicleMount`) and take the along-track acceleration
        /// from the board's own frame and the turns from the gyroscope (`VehicleTurnModel`) once it is known (true).
        /// Off, both come from the orientation, whose levelling on the accelerometer hides part of every sustained
        /// acceleration.
        public var learnsVehicleFrame: Bool
        /// `.vehicle` with the mount known (`VehicleMount`): σ of the along-track acceleration error, m/s² (0.05), and
        /// its correlation time, s (60). What is left once the board's own frame gives the along-track acceleration:
        /// a change of the road's grade since the mount's up was learned (0.5 % reads as 0.05 m/s²), the vehicle's
        /// pitch while braking, and the mount's residual error. The simulated roads are flat: on them the error's
        /// 10 s means scatter by 0.02–0.04 m/s² (seeds 1 and 4 of `drive` and `urban-drive`).
        public var mountedAccelerationErrorSigmaMps2: Double
        /// Correlation time of that error, s (60); see `mountedAccelerationErrorSigmaMps2`.
        public var mountedAccelerationErrorCorrelationS: Double
        /// `.vehicle` with the mount known: white acceleration error, PSD in m²/s³ (0.002): the accelerometer's noise
        /// and vibration (measured 7e-5 on the simulated drives) with margin.
        public var mountedAccelerationPSD: Double
        /// Initial σ of the acceleration bias, m/s² (0.3: 0.02 g turn-on bias plus ~1° of tilt error).
        public var initialAccelerationBiasSigmaMps2: Double
        /// An inertial sample older than this no longer drives the motion, s (0.25).
        public var inertialTimeoutS: Double

        /// White noise of barometric altitude, m (0.3).
        public var barometerNoiseM: Double
        /// Random walk of the barometer's offset (weather, temperature), m/√s (0.03: ≈ 2 m in an hour).
        public var barometerOffsetRandomWalk: Double
        /// σ of velocity at rest, for the orientation stage's rest flag (zero-velocity update), m/s (0.03).
        public var restVelocitySigmaMps: Double

        /// Probability that a good measurement fails its χ² gate (0.001).
        public var outlierProbability: Double
        /// Each rejected fix position widens the position's variance by this fraction of the fix's variance (0.5):
        /// a jump that persists is eventually believed (the filter may be the one that is wrong), a multipath
        /// episode of a few seconds is not.
        public var outlierInflation: Double
        /// After this many rejected fix positions in a row, restart the position at the fix (30).
        public var maximumConsecutiveOutliers: Int
        /// Below this speed no course is reported, m/s (0.5).
        public var minimumCourseSpeedMps: Double
        /// A location older than this since the last used fix is reported as dead reckoning, s (2.5).
        public var deadReckoningAfterS: Double
        /// Past this horizontal accuracy the position is considered lost and no location is given, m (5000).
        public var maximumHorizontalAccuracyM: Double

        /// Parameters; see each property for its unit and default.
        public init(
            horizontalAiding: HorizontalAiding = .vehicle, vehicleSpeedMps: Double = 5, turnScaleSigma: Double = 0.05,
            vehicleCruiseProbability: Double = 0.8, vehicleManoeuvreSigmaMps2: Double = 1.5,
            confidence: Double = 0.95, receiverHorizontalAccuracyScale: Double = 1 / 2.0.squareRoot(),
            receiverVerticalAccuracyScale: Double = 1, defaultHorizontalSigmaM: Double = 5,
            sigmaPerHDOPM: Double = 2.5, verticalToHorizontalRatio: Double = 1.7,
            receiverErrorCorrelationTimeS: Double = 60, receiverWhiteFraction: Double = 0.3,
            defaultVelocitySigmaMps: Double = 0.3, adaptsReceiverAccuracy: Bool = true,
            receiverAccuracyLearningFixes: Double = 30, unaidedAccelerationPSD: Double = 1,
            unaidedManoeuvrePerSecond: Double = 0.05,
            unaidedVerticalAccelerationPSD: Double = 0.25, aidedAccelerationPSD: Double = 0.02,
            orientationHeadingSigmaRad: Double = 0.05, orientationAccelerationLeak: Double = 0.4,
            accelerationErrorSigmaMps2: Double = 0.3, accelerationErrorCorrelationS: Double = 10,
            boardFixedBiasSigmaMps2: Double = 0.2, learnsVehicleFrame: Bool = true,
            mountedAccelerationErrorSigmaMps2: Double = 0.05,
            mountedAccelerationErrorCorrelationS: Double = 60, mountedAccelerationPSD: Double = 0.002,
            initialAccelerationBiasSigmaMps2: Double = 0.3, inertialTimeoutS: Double = 0.25,
            barometerNoiseM: Double = 0.3, barometerOffsetRandomWalk: Double = 0.03,
            restVelocitySigmaMps: Double = 0.03, outlierProbability: Double = 0.001,
            outlierInflation: Double = 0.5, maximumConsecutiveOutliers: Int = 30,
            minimumCourseSpeedMps: Double = 0.5,
            deadReckoningAfterS: Double = 2.5, maximumHorizontalAccuracyM: Double = 5000
        ) {
            self.horizontalAiding = horizontalAiding
            self.vehicleSpeedMps = vehicleSpeedMps
            self.turnScaleSigma = turnScaleSigma
            self.vehicleCruiseProbability = vehicleCruiseProbability
            self.vehicleManoeuvreSigmaMps2 = vehicleManoeuvreSigmaMps2
            self.confidence = confidence
            self.receiverHorizontalAccuracyScale = receiverHorizontalAccuracyScale
            self.receiverVerticalAccuracyScale = receiverVerticalAccuracyScale
            self.defaultHorizontalSigmaM = defaultHorizontalSigmaM
            self.sigmaPerHDOPM = sigmaPerHDOPM
            self.verticalToHorizontalRatio = verticalToHorizontalRatio
            self.receiverErrorCorrelationTimeS = receiverErrorCorrelationTimeS
            self.receiverWhiteFraction = receiverWhiteFraction
            self.defaultVelocitySigmaMps = defaultVelocitySigmaMps
            self.adaptsReceiverAccuracy = adaptsReceiverAccuracy
            self.receiverAccuracyLearningFixes = receiverAccuracyLearningFixes
            self.unaidedAccelerationPSD = unaidedAccelerationPSD
            self.unaidedManoeuvrePerSecond = unaidedManoeuvrePerSecond
            self.unaidedVerticalAccelerationPSD = unaidedVerticalAccelerationPSD
            self.aidedAccelerationPSD = aidedAccelerationPSD
            self.orientationHeadingSigmaRad = orientationHeadingSigmaRad
            self.orientationAccelerationLeak = orientationAccelerationLeak
            self.accelerationErrorSigmaMps2 = accelerationErrorSigmaMps2
            self.accelerationErrorCorrelationS = accelerationErrorCorrelationS
            self.boardFixedBiasSigmaMps2 = boardFixedBiasSigmaMps2
            self.learnsVehicleFrame = learnsVehicleFrame
            self.mountedAccelerationErrorSigmaMps2 = mountedAccelerationErrorSigmaMps2
            self.mountedAccelerationErrorCorrelationS = mountedAccelerationErrorCorrelationS
            self.mountedAccelerationPSD = mountedAccelerationPSD
            self.initialAccelerationBiasSigmaMps2 = initialAccelerationBiasSigmaMps2
            self.inertialTimeoutS = inertialTimeoutS
            self.barometerNoiseM = barometerNoiseM
            self.barometerOffsetRandomWalk = barometerOffsetRandomWalk
            self.restVelocitySigmaMps = restVelocitySigmaMps
            self.outlierProbability = outlierProbability
            self.outlierInflation = outlierInflation
            self.maximumConsecutiveOutliers = maximumConsecutiveOutliers
            self.minimumCourseSpeedMps = minimumCourseSpeedMps
            self.deadReckoningAfterS = deadReckoningAfterS
            self.maximumHorizontalAccuracyM = maximumHorizontalAccuracyM
        }

        /// The defaults.
        public static let `default` = Parameters()
    }

    // MARK: Coefficients

    /// Quantities derived once from the parameters.
    public struct Coefficients: Sendable, Hashable {
        /// Radius of the `confidence` circle of a 2D isotropic Gaussian, in per-axis σ: √(−2 ln(1 − p))
        /// (2.448 for 95 %).
        public let horizontalRadiusPerSigma: Double
        /// Half-width of the two-sided `confidence` interval of a 1D Gaussian, in σ (1.960 for 95 %).
        public let intervalPerSigma: Double
        /// χ² gate with 2 degrees of freedom: −2 ln(outlierProbability) (13.8 for 0.001).
        public let gate2: Double
        /// χ² gate with 1 degree of freedom (10.8 for 0.001).
        public let gate1: Double
        /// Coefficient of the correlated part of the receiver error, √(1 − w²).
        public let correlatedFraction: Double

        public init(_ p: Parameters) {
            let confidence = min(max(p.confidence, 0.5), 0.999_999)
            horizontalRadiusPerSigma = (-2 * Double.log(1 - confidence)).squareRoot()
            intervalPerSigma = Self.normalQuantile(0.5 + confidence / 2)
            let tail = min(max(p.outlierProbability, 1e-12), 0.5)
            gate2 = -2 * Double.log(tail)
            let z = Self.normalQuantile(1 - tail / 2)
            gate1 = z * z
            let w = min(max(p.receiverWhiteFraction, 0.01), 1)
            correlatedFraction = (1 - w * w).squareRoot()
        }

        /// The standard normal quantile (Acklam's rational approximation refined by one Halley step with
        /// erfc; accurate to ~1e-15), for p in (0, 1).
        static func normalQuantile(_ p: Double) -> Double {
            // P. J. Acklam's coefficients (2003), lower region and central region.
            let a = [
                -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00
            ]
            let b = [
                -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                6.680131188771972e+01, -1.328068155288572e+01
            ]
            let c = [
                -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00
            ]
            let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
            let low = 0.02425
            var x: Double
            if p < low {
                let q = (-2 * Double.log(p)).squareRoot()
                x =
                    (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
            } else if p <= 1 - low {
                let q = p - 0.5, r = q * q
                x =
                    (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                    / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
            } else {
                let q = (-2 * Double.log(1 - p)).squareRoot()
                x =
                    -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
            }
            let e = 0.5 * Double.erfc(-x / 2.0.squareRoot()) - p
            let u = e * (2 * Double.pi).squareRoot() * Double.exp(x * x / 2)
            return x - u / (1 + x * u / 2)
        }
    }

    // MARK: State

    /// Everything the updates mutate. `Equatable` and `Codable`: a run can be snapshotted and restored.
    public struct State: Sendable, Hashable, Codable {
        /// True once a fix with a position has been used.
        public var isInitialized = false
        /// Time the state belongs to, s (engine clock).
        public var timeS = 0.0
        /// The local frame's origin, rad: the estimate's latitude and longitude (the horizontal position
        /// states are offsets from it, folded into it after every step).
        public var originLatitudeRad = 0.0
        public var originLongitudeRad = 0.0
        /// East and north states: position offset m, velocity m/s, acceleration bias m/s², receiver error
        /// (unit variance); lanes 0…3.
        public var east = SIMD8<Double>.zero
        public var north = SIMD8<Double>.zero
        /// Their shared 4 × 4 covariance.
        public var horizontalCovariance = KalmanMatrix.zero
        /// Up states: height above the ellipsoid m, vertical velocity m/s, acceleration bias m/s², receiver
        /// error (unit variance), barometer offset m (barometric altitude − height); lanes 0…4.
        public var up = SIMD8<Double>.zero
        /// Its 5 × 5 covariance.
        public var verticalCovariance = KalmanMatrix.zero
        /// True once a height is known (a 3D fix).
        public var hasHeight = false
        /// True once the barometer offset is initialised.
        public var hasBarometerOffset = false
        /// The latest inertial acceleration (ENU, gravity removed), m/s², and its time.
        public var accelerationENUMps2: Vector3?
        public var accelerationTimeS: Double?
        /// The orientation of the latest inertial sample (for the board's turn between samples).
        public var lastOrientation: Quaternion?
        /// Time of the last fix whose position was used, s.
        public var lastFixTimeS: Double?
        /// Geoid separation (geoid − ellipsoid) from the receiver, m.
        public var geoidSeparationM: Double?
        /// UTC − engine time, s, from the receiver.
        public var utcOffsetS: Double?
        /// Rejected fix positions, and velocities, in a row.
        public var consecutiveOutliers = 0
        public var consecutiveVelocityOutliers = 0
        /// When a height (the receiver's or the barometer's) was last used, s.
        public var lastHeightTimeS: Double?
        /// ln of the learned variance scale of the receiver's horizontal accuracy (≥ 0).
        public var receiverLogVarianceScale = 0.0
        /// True while `.vehicle` aiding is in force (speed above `vehicleSpeedMps`).
        public var isVehicleMode = false
        /// The along-track acceleration, bias removed, smoothed over 0.5 s, m/s² (`.vehicle`).
        public var smoothedAlongTrackMps2 = 0.0
        /// How the board sits in the vehicle (`.vehicle`), learned while driving.
        public var vehicleMount = VehicleMount()
        /// The vehicle's turns from the gyroscope (`.vehicle`).
        public var vehicleTurn = VehicleTurnModel()
        /// The latest accelerometer sample's along-track acceleration in the vehicle frame, m/s², when the
        /// mount's forward axis is known (time: `accelerationTimeS`).
        public var mountedAlongTrackMps2: Double?
        /// True while the along-track acceleration comes from the vehicle frame.
        public var usesVehicleMount = false
        /// True when the last fix was simulated by software.
        public var isSimulated = false
        /// Fix positions used, and rejected as outliers, so far.
        public var fixesUsed = 0
        public var fixesRejected = 0
    }

    /// What an update did.
    public struct Update: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: UInt16
        /// An update from its bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// The filter started at this fix.
        public static let initialized = Update(rawValue: 1 << 0)
        /// The fix's horizontal position was used.
        public static let position = Update(rawValue: 1 << 1)
        /// The fix's velocity was used.
        public static let velocity = Update(rawValue: 1 << 2)
        /// The fix's height was used.
        public static let height = Update(rawValue: 1 << 3)
        /// The horizontal position failed its gate (an outlier, e.g. a multipath jump).
        public static let positionRejected = Update(rawValue: 1 << 4)
        /// The velocity failed its gate.
        public static let velocityRejected = Update(rawValue: 1 << 5)
        /// The height failed its gate.
        public static let heightRejected = Update(rawValue: 1 << 6)
        /// Too many outliers in a row: the position restarted at the fix.
        public static let restarted = Update(rawValue: 1 << 7)
        /// The fix had no usable position.
        public static let noPosition = Update(rawValue: 1 << 8)
        /// No height had been used for `staleRestartS` and this one failed its gate: the height restarted at it.
        public static let heightRestarted = Update(rawValue: 1 << 9)
    }

    /// The tunables (sanitised).
    public let parameters: Parameters
    /// Derived from the parameters at `init`.
    public let coefficients: Coefficients
    /// Everything the updates mutate.
    public private(set) var state = State()

    /// A filter with `parameters` (sanitised: non-finite or non-positive values take their defaults).
    public init(parameters: Parameters = .default) {
        let p = Self.sanitized(parameters)
        self.parameters = p
        coefficients = Coefficients(p)
    }

    static func sanitized(_ input: Parameters) -> Parameters {
        var p = input
        let d = Parameters.default
        func positive(_ x: inout Double, _ fallback: Double) { if !(x.isFinite && x > 0) { x = fallback } }
        func nonNegative(_ x: inout Double, _ fallback: Double) { if !(x.isFinite && x >= 0) { x = fallback } }
        positive(&p.vehicleSpeedMps, d.vehicleSpeedMps)
        nonNegative(&p.turnScaleSigma, d.turnScaleSigma)
        if !(p.vehicleCruiseProbability >= 0 && p.vehicleCruiseProbability < 1) {
            p.vehicleCruiseProbability = d.vehicleCruiseProbability
        }
        positive(&p.vehicleManoeuvreSigmaMps2, d.vehicleManoeuvreSigmaMps2)
        positive(&p.confidence, d.confidence)
        if p.confidence >= 1 { p.confidence = d.confidence }
        positive(&p.receiverHorizontalAccuracyScale, d.receiverHorizontalAccuracyScale)
        positive(&p.receiverVerticalAccuracyScale, d.receiverVerticalAccuracyScale)
        positive(&p.defaultHorizontalSigmaM, d.defaultHorizontalSigmaM)
        positive(&p.sigmaPerHDOPM, d.sigmaPerHDOPM)
        positive(&p.verticalToHorizontalRatio, d.verticalToHorizontalRatio)
        positive(&p.receiverErrorCorrelationTimeS, d.receiverErrorCorrelationTimeS)
        positive(&p.receiverWhiteFraction, d.receiverWhiteFraction)
        positive(&p.defaultVelocitySigmaMps, d.defaultVelocitySigmaMps)
        positive(&p.receiverAccuracyLearningFixes, d.receiverAccuracyLearningFixes)
        positive(&p.unaidedAccelerationPSD, d.unaidedAccelerationPSD)
        nonNegative(&p.unaidedManoeuvrePerSecond, d.unaidedManoeuvrePerSecond)
        positive(&p.unaidedVerticalAccelerationPSD, d.unaidedVerticalAccelerationPSD)
        positive(&p.aidedAccelerationPSD, d.aidedAccelerationPSD)
        nonNegative(&p.orientationHeadingSigmaRad, d.orientationHeadingSigmaRad)
        nonNegative(&p.orientationAccelerationLeak, d.orientationAccelerationLeak)
        nonNegative(&p.accelerationErrorSigmaMps2, d.accelerationErrorSigmaMps2)
        positive(&p.accelerationErrorCorrelationS, d.accelerationErrorCorrelationS)
        nonNegative(&p.boardFixedBiasSigmaMps2, d.boardFixedBiasSigmaMps2)
        nonNegative(&p.mountedAccelerationErrorSigmaMps2, d.mountedAccelerationErrorSigmaMps2)
        positive(&p.mountedAccelerationErrorCorrelationS, d.mountedAccelerationErrorCorrelationS)
        positive(&p.mountedAccelerationPSD, d.mountedAccelerationPSD)
        positive(&p.initialAccelerationBiasSigmaMps2, d.initialAccelerationBiasSigmaMps2)
        positive(&p.inertialTimeoutS, d.inertialTimeoutS)
        positive(&p.barometerNoiseM, d.barometerNoiseM)
        nonNegative(&p.barometerOffsetRandomWalk, d.barometerOffsetRandomWalk)
        positive(&p.restVelocitySigmaMps, d.restVelocitySigmaMps)
        positive(&p.outlierProbability, d.outlierProbability)
        nonNegative(&p.outlierInflation, d.outlierInflation)
        p.maximumConsecutiveOutliers = max(1, p.maximumConsecutiveOutliers)
        nonNegative(&p.minimumCourseSpeedMps, d.minimumCourseSpeedMps)
        positive(&p.deadReckoningAfterS, d.deadReckoningAfterS)
        positive(&p.maximumHorizontalAccuracyM, d.maximumHorizontalAccuracyM)
        return p
    }

    /// Restores a snapshot taken from `state` (same parameters).
    public mutating func restore(_ snapshot: State) { state = snapshot }
}

// MARK: - Prediction

extension NavigationFilter {
    /// Dimension of the horizontal and vertical models.
    static let horizontalDimension = 4
    static let verticalDimension = 5

    /// Moves the state to `timeS` (non-decreasing; an earlier time is ignored) with the latest inertial
    /// acceleration held over the interval, or the constant-velocity model when it is stale or absent.
    mutating func predict(toTimeS timeS: Double) {
        guard state.isInitialized, timeS.isFinite else { return }
        let dt = timeS - state.timeS
        guard dt > 0 else { return }
        let p = parameters
        let acceleration: Vector3? =
            state.accelerationTimeS.map { timeS - $0 <= p.inertialTimeoutS } == true
            ? state.accelerationENUMps2 : nil
        let phi = Double.exp(-dt / p.receiverErrorCorrelationTimeS)
        // The acceleration error's process: the vehicle frame's (`VehicleMount`) or the orientation's.
        let mounted = state.usesVehicleMount
        let errorSigma = mounted ? p.mountedAccelerationErrorSigmaMps2 : p.accelerationErrorSigmaMps2
        let phiBias = Double.exp(-dt / (mounted ? p.mountedAccelerationErrorCorrelationS : p.accelerationErrorCorrelationS))
        let biasVariance = errorSigma * errorSigma * (1 - phiBias * phiBias)
        let dt2 = dt * dt, dt3 = dt2 * dt

        // Horizontal.
        var f = KalmanMatrix.identity
        f[0, 1] = dt
        f[3, 3] = phi
        var q = KalmanMatrix.zero
        let accelerationPSD: Double
        let speed = (state.east[1] * state.east[1] + state.north[1] * state.north[1]).squareRoot()
        if speed >= p.vehicleSpeedMps {
            state.isVehicleMode = true
        } else if speed < 0.8 * p.vehicleSpeedMps {
            state.isVehicleMode = false
        }
        let horizontalInput: (east: Double, north: Double)?
        var weight = 1.0
        var leak = 0.0
        switch (acceleration, p.horizontalAiding) {
        case (let a?, .full):
            horizontalInput = (a.x - state.east[2], a.y - state.north[2])
            leak = p.orientationAccelerationLeak * (a.x * a.x + a.y * a.y).squareRoot()
        case (let a?, .vehicle) where state.isVehicleMode && speed > 0:
            // Along-track only: the turn is applied to the velocity from the board's heading change. The
            // along-track acceleration comes from the vehicle frame when the mount is known (no tilt error),
            // else from the orientation.
            let (ue, un) = (state.east[1] / speed, state.north[1] / speed)
            let bias = state.east[2] * ue + state.north[2] * un
            let along = state.mountedAlongTrackMps2.map { $0 - bias } ?? (a.x * ue + a.y * un - bias)
            state.smoothedAlongTrackMps2 += (along - state.smoothedAlongTrackMps2) * min(1, dt / 0.5)
            // Readings within their error are mostly error (through the orientation: its tilt), not the vehicle's.
            weight = cruiseShrinkage(
                state.smoothedAlongTrackMps2,
                errorVariance: state.horizontalCovariance[2, 2] + 0.05 * 0.05)
            // What the shrinkage sets aside (the vehicle frame), or what the orientation's levelling hides.
            leak =
                state.mountedAlongTrackMps2 == nil
                ? p.orientationAccelerationLeak * abs(state.smoothedAlongTrackMps2)
                : (1 - weight) * abs(state.smoothedAlongTrackMps2)
            horizontalInput = (weight * along * ue, weight * along * un)
        default:
            state.smoothedAlongTrackMps2 = 0
            horizontalInput = nil
        }
        if let input = horizontalInput, let a = acceleration {
            f[0, 2] = -weight * dt2 / 2
            f[1, 2] = -weight * dt
            f[2, 2] = phiBias
            if state.mountedAlongTrackMps2 != nil && p.horizontalAiding == .vehicle && state.isVehicleMode {
                // The orientation's heading does not enter the vehicle frame's along-track acceleration.
                accelerationPSD = p.mountedAccelerationPSD + leak * leak
            } else {
                let horizontal = (a.x * a.x + a.y * a.y).squareRoot() * p.orientationHeadingSigmaRad
                accelerationPSD = p.aidedAccelerationPSD + horizontal * horizontal + leak * leak
            }
            Self.addBiasNoise(&q, variance: biasVariance, dt: dt)
            // p += v dt + ½ (a − b) dt², v += (a − b) dt.
            state.east[0] += state.east[1] * dt + input.east * dt2 / 2
            state.east[1] += input.east * dt
            state.north[0] += state.north[1] * dt + input.north * dt2 / 2
            state.north[1] += input.north * dt
            state.east[2] *= phiBias
            state.north[2] *= phiBias
            state.east[3] *= phi
            state.north[3] *= phi
        } else {
            let speed2 = state.east[1] * state.east[1] + state.north[1] * state.north[1]
            accelerationPSD = p.unaidedAccelerationPSD + p.unaidedManoeuvrePerSecond * speed2
            state.east[0] += state.east[1] * dt
            state.north[0] += state.north[1] * dt
            state.east[3] *= phi
            state.north[3] *= phi
        }
        Self.addWhiteAcceleration(&q, psd: accelerationPSD, dt: dt, dt2: dt2, dt3: dt3)
        q[3, 3] = 1 - phi * phi
        state.horizontalCovariance = state.horizontalCovariance.congruence(by: f, n: Self.horizontalDimension)
        state.horizontalCovariance.add(q, n: Self.horizontalDimension)

        // Vertical.
        if state.hasHeight {
            var fv = KalmanMatrix.identity
            fv[0, 1] = dt
            fv[3, 3] = phi
            var qv = KalmanMatrix.zero
            if let a = acceleration {
                fv[0, 2] = -dt2 / 2
                fv[1, 2] = -dt
                fv[2, 2] = phiBias
                let input = a.z - state.up[2]
                state.up[0] += state.up[1] * dt + input * dt2 / 2
                state.up[1] += input * dt
                state.up[2] *= phiBias
                Self.addWhiteAcceleration(&qv, psd: p.aidedAccelerationPSD, dt: dt, dt2: dt2, dt3: dt3)
                Self.addBiasNoise(&qv, variance: biasVariance, dt: dt)
            } else {
                state.up[0] += state.up[1] * dt
                Self.addWhiteAcceleration(&qv, psd: p.unaidedVerticalAccelerationPSD, dt: dt, dt2: dt2, dt3: dt3)
            }
            state.up[3] *= phi
            qv[3, 3] = 1 - phi * phi
            qv[4, 4] = p.barometerOffsetRandomWalk * p.barometerOffsetRandomWalk * dt
            state.verticalCovariance = state.verticalCovariance.congruence(by: fv, n: Self.verticalDimension)
            state.verticalCovariance.add(qv, n: Self.verticalDimension)
        }
        state.timeS = timeS
        foldHorizontalOffset()
    }

    /// The factor the posterior mean of the along-track acceleration applies to a measured `x` (m/s²) under
    /// the spike-and-slab prior of `vehicleCruiseProbability` and `vehicleManoeuvreSigmaMps2`, with the
    /// measurement's error variance `errorVariance`: ≈ 0 for readings within the error, → 1 for clear manoeuvres.
    func cruiseShrinkage(_ x: Double, errorVariance: Double) -> Double {
        let p = parameters
        let slab = p.vehicleManoeuvreSigmaMps2 * p.vehicleManoeuvreSigmaMps2
        let slabTotal = slab + errorVariance
        let likelihoodSlab = (1 - p.vehicleCruiseProbability) * Double.exp(-x * x / (2 * slabTotal)) / slabTotal.squareRoot()
        let likelihoodSpike = p.vehicleCruiseProbability * Double.exp(-x * x / (2 * errorVariance)) / errorVariance.squareRoot()
        let posteriorSlab = likelihoodSlab / (likelihoodSlab + likelihoodSpike)
        return posteriorSlab.isFinite ? posteriorSlab * slab / slabTotal : 1
    }

    /// Process noise of white acceleration with PSD `psd` (m²/s³) on (position, velocity) over `dt`.
    static func addWhiteAcceleration(_ q: inout KalmanMatrix, psd: Double, dt: Double, dt2: Double, dt3: Double) {
        q[0, 0] += psd * dt3 / 3
        q[0, 1] += psd * dt2 / 2
        q[1, 0] += psd * dt2 / 2
        q[1, 1] += psd * dt
    }

    /// Process noise of the acceleration error (`variance` added to it over `dt`, spread as a white driving
    /// noise of PSD variance/dt) and what it does to velocity and position through −b in the dynamics (the
    /// integrals over `dt` with the error's decay neglected within the step).
    static func addBiasNoise(_ q: inout KalmanMatrix, variance: Double, dt: Double) {
        guard variance > 0, dt > 0 else { return }
        let qb = variance / dt
        let dt2 = dt * dt, dt3 = dt2 * dt, dt4 = dt3 * dt, dt5 = dt4 * dt
        q[2, 2] += qb * dt
        q[1, 1] += qb * dt3 / 3
        q[0, 0] += qb * dt5 / 20
        q[0, 1] += qb * dt4 / 8; q[1, 0] += qb * dt4 / 8
        q[1, 2] -= qb * dt2 / 2; q[2, 1] -= qb * dt2 / 2
        q[0, 2] -= qb * dt3 / 6; q[2, 0] -= qb * dt3 / 6
    }

    /// Moves the origin of the local frame to the estimate (the horizontal position offsets become 0); the
    /// covariance is unchanged (a shift of origin by a known amount).
    mutating func foldHorizontalOffset() {
        let (meridian, primeVertical) = WGS84.radiiOfCurvatureM(latitudeRad: state.originLatitudeRad)
        let h = frameHeightM
        let cosLatitude = max(Double.cos(state.originLatitudeRad), 1e-9)
        state.originLatitudeRad += state.north[0] / (meridian + h)
        state.originLongitudeRad += state.east[0] / ((primeVertical + h) * cosLatitude)
        if state.originLongitudeRad > Double.pi { state.originLongitudeRad -= 2 * Double.pi }
        if state.originLongitudeRad <= -Double.pi { state.originLongitudeRad += 2 * Double.pi }
        if abs(state.originLatitudeRad) > Double.pi / 2 {
            // Crossed a pole: reflect (the axes flip too, a rare case handled crudely but finitely).
            state.originLatitudeRad = (state.originLatitudeRad > 0 ? Double.pi : -Double.pi) - state.originLatitudeRad
            state.originLongitudeRad += state.originLongitudeRad > 0 ? -Double.pi : Double.pi
        }
        state.east[0] = 0
        state.north[0] = 0
    }

    /// The height the local frame's scale uses, m: the estimate, held to −11 km … 100 km so that a vertical channel
    /// gone wrong cannot scale the horizontal offsets with it.
    var frameHeightM: Double { state.hasHeight ? min(max(state.up[0], -11_000), 100_000) : 0 }

    /// East and north offsets (m) of a coordinate from the origin, on the local tangent plane.
    func offsetM(latitudeDeg: Double, longitudeDeg: Double) -> (east: Double, north: Double) {
        let (meridian, primeVertical) = WGS84.radiiOfCurvatureM(latitudeRad: state.originLatitudeRad)
        let h = frameHeightM
        var dLon = Angle.radians(fromDegrees: longitudeDeg) - state.originLongitudeRad
        if dLon > Double.pi { dLon -= 2 * Double.pi } else if dLon < -Double.pi { dLon += 2 * Double.pi }
        let dLat = Angle.radians(fromDegrees: latitudeDeg) - state.originLatitudeRad
        return (dLon * (primeVertical + h) * Double.cos(state.originLatitudeRad), dLat * (meridian + h))
    }
}

// MARK: - Measurements

extension NavigationFilter {
    /// Moves the state to `timeS` without a measurement (a sample of another sensor).
    public mutating func advance(toTimeS timeS: Double) { predict(toTimeS: timeS) }

    /// Feeds one accelerometer sample (specific force in board axes, m/s²) with the orientation at that
    /// instant (board → ENU); without an orientation the sample is not used. Moves the state to `timeS`.
    ///
    /// With `.vehicle` aiding, also the gyroscope's rate (board axes, rad/s) of the same instant, when the board
    /// has one, and whether the orientation stage detects rest: the vehicle's turns are then taken from the
    /// gyroscope about the vehicle's up (`VehicleMount`), its bias about that axis learned against the
    /// orientation's own turns (which carry its gyroscope-bias estimate and its magnetometer corrections), so that
    /// a magnetometer correction of the orientation's heading — tens of degrees when its heading was gated for a
    /// while — does not turn the velocity.
    public mutating func updateInertial(
        timeS: Double, specificForceBoardMps2 f: Vector3, boardToENU: Quaternion?,
        angularVelocityBoardRadS: Vector3? = nil, atRest: Bool = false
    ) {
        predict(toTimeS: timeS)
        guard let q = boardToENU, f.x.isFinite, f.y.isFinite, f.z.isFinite else {
            state.lastOrientation = nil
            return
        }
        let usesVehicleFrame = parameters.horizontalAiding == .vehicle && parameters.learnsVehicleFrame
        if usesVehicleFrame { observeVehicleFrame(specificForceBoardMps2: f, timeS: timeS, atRest: atRest) }
        if let last = state.lastOrientation, state.isInitialized {
            // The board's turn about up since the last sample (z of the rotation vector of q ⊗ last⁻¹, ENU).
            let turn = q * last.conjugate
            var yaw = 2 * Double.atan2(y: turn.z, x: abs(turn.w)) * (turn.w < 0 ? -1 : 1)
            if usesVehicleFrame, let w = angularVelocityBoardRadS, w.x.isFinite, w.y.isFinite,
                w.z.isFinite, let previous = state.accelerationTimeS, timeS - previous > 0,
                timeS - previous <= parameters.inertialTimeoutS
            {
                yaw = gyroscopeTurn(rateRadS: w, orientationTurnRad: yaw, intervalS: timeS - previous, boardToENU: q)
            }
            if yaw != 0 && abs(yaw) < 0.5 {
                let (s, c) = (Double.sin(yaw), Double.cos(yaw))
                let (be, bn) = (state.east[2], state.north[2])
                state.east[2] = c * be - s * bn
                state.north[2] = s * be + c * bn
                if !state.usesVehicleMount {
                    // The accelerometer's bias turns with the board (in the vehicle frame it is part of the mount's up).
                    let sigma = parameters.boardFixedBiasSigmaMps2 * yaw
                    state.horizontalCovariance[2, 2] += sigma * sigma
                }
                if parameters.horizontalAiding == .vehicle && state.isVehicleMode {
                    // The velocity is fixed to the carrier: it turns with the board.
                    let (ve, vn) = (state.east[1], state.north[1])
                    state.east[1] = c * ve - s * vn
                    state.north[1] = s * ve + c * vn
                    let turnError = parameters.turnScaleSigma * yaw * (ve * ve + vn * vn).squareRoot()
                    state.horizontalCovariance[1, 1] +=
                        turnError * turnError
                        + (ve * ve + vn * vn) * state.vehicleTurn.headingVarianceGrowthRad2
                }
            }
        }
        state.lastOrientation = q
        let latitude = state.isInitialized ? state.originLatitudeRad : 0
        let height = state.hasHeight ? state.up[0] : 0
        var a = q.rotate(f)
        a.z -= WGS84.normalGravityMps2(latitudeRad: latitude, heightM: height)
        state.accelerationENUMps2 = a
        state.accelerationTimeS = timeS
    }

    /// The vehicle frame (`VehicleMount`) learns from one accelerometer sample; the sample's along-track
    /// acceleration in it, when the mount is known.
    mutating func observeVehicleFrame(specificForceBoardMps2 f: Vector3, timeS: Double, atRest: Bool) {
        // Rest as the orientation stage detects it, if the velocity agrees (see `updateAtRest`).
        let still =
            atRest && state.isInitialized
            && state.east[1] * state.east[1] + state.north[1] * state.north[1] < 0.25
        state.vehicleMount.observe(specificForceBoardMps2: f, timeS: timeS, atRest: still)
        state.mountedAlongTrackMps2 = state.vehicleMount.alongTrackMps2(specificForceBoardMps2: f)
        let mounted = state.mountedAlongTrackMps2 != nil
        if mounted != state.usesVehicleMount {
            // The acceleration error changes meaning (the orientation's tilt ↔ the vehicle frame's grade): restart it.
            state.usesVehicleMount = mounted
            let sigma = mounted ? parameters.mountedAccelerationErrorSigmaMps2 : parameters.initialAccelerationBiasSigmaMps2
            state.east[2] = 0
            state.north[2] = 0
            for k in 0..<Self.horizontalDimension {
                state.horizontalCovariance[2, k] = 0
                state.horizontalCovariance[k, 2] = 0
            }
            state.horizontalCovariance[2, 2] = sigma * sigma
        }
    }

    /// The turn about the vehicle's up over `intervalS` from the gyroscope's rate, rad, once its bias about that
    /// axis is known (`VehicleTurnModel`); until then the orientation's own turn.
    mutating func gyroscopeTurn(
        rateRadS w: Vector3, orientationTurnRad: Double, intervalS dt: Double,
        boardToENU q: Quaternion
    ) -> Double {
        let up = state.vehicleMount.upBoard ?? q.conjugate.rotate(Vector3(0, 0, 1))
        return state.vehicleTurn.turn(rateRadS: w.dot(up), orientationTurnRad: orientationTurnRad, intervalS: dt)
    }

    /// The vehicle frame learns from a receiver velocity (ENU, m/s, with its per-axis σ): the mount's forward axis,
    /// and (at speed) the gyroscope's bias about up from the course.
    mutating func observeVehicleFrame(velocityEast: Double, velocityNorth: Double, sigmaMps: Double, timeS: Double) {
        state.vehicleMount.observe(
            velocityEast: velocityEast, velocityNorth: velocityNorth, timeS: timeS,
            isMoving: state.isVehicleMode)
        let speed = (velocityEast * velocityEast + velocityNorth * velocityNorth).squareRoot()
        if state.isVehicleMode && speed >= parameters.vehicleSpeedMps {
            state.vehicleTurn.observe(
                courseRad: Double.atan2(y: velocityEast, x: velocityNorth), sigmaRad: sigmaMps / speed,
                gate: coefficients.gate1)
        }
    }

    /// Feeds one static pressure (Pa). Used once a height is known.
    public mutating func updateBarometer(timeS: Double, pressurePa: Double) {
        predict(toTimeS: timeS)
        guard state.isInitialized, state.hasHeight, pressurePa.isFinite, pressurePa > 1000 else { return }
        let altitude = StandardAtmosphere.altitudeM(pressurePa: pressurePa)
        let n = Self.verticalDimension
        if !state.hasBarometerOffset {
            state.up[4] = altitude - state.up[0]
            state.verticalCovariance[4, 4] = state.verticalCovariance[0, 0] + 100
            state.hasBarometerOffset = true
        }
        var h = SIMD8<Double>.zero
        h[0] = 1; h[4] = 1
        let r = parameters.barometerNoiseM * parameters.barometerNoiseM
        let g = state.verticalCovariance.scalarGain(h: h, r: r, n: n)
        let innovation = altitude - (state.up[0] + state.up[4])
        // A pressure glitch (or a door slam) fails the gate and is skipped.
        guard innovation * innovation <= coefficients.gate1 * g.innovationVariance * 4 else {
            // Turned away for `staleRestartS` with no height used meanwhile: the vertical channel ran off, not the
            // barometer. Restart it where the barometer and its learned offset put it, at rest.
            if let last = state.lastHeightTimeS, timeS - last >= Self.staleRestartS {
                let offset = state.up[4]
                startHeight(at: altitude - offset)
                state.up[4] = offset
                state.verticalCovariance[4, 4] = 100
                state.hasBarometerOffset = true
                state.lastHeightTimeS = timeS
            }
            return
        }
        state.up += g.gain * innovation
        state.verticalCovariance.applyUpdate(g, n: n)
        state.lastHeightTimeS = timeS
    }

    /// The orientation stage says the board is at rest: zero velocity (rate-limit the calls, ~10 Hz). Returns
    /// false when the zero velocity is not used:
    /// - when it fails its χ² gate: a rest detector that watches how much the signals vary (as VQF's does) also
    ///   says "rest" during smooth, vibration-free braking;
    /// - in a vehicle (`.vehicle` aiding, `isVehicleMode`: the speed is at least 0.8 × `vehicleSpeedMps`), whatever
    ///   the gate says. Smooth cruising reads as rest just as a stop does, and a stop shows first as the speed falling
    ///   (the along-track acceleration integrated, or a fix) to below that speed, where rest is taken again. The gate
    ///   alone lets a wrong claim through whenever the speed is poorly known: after the inertial sensor was away during
    ///   an outage, a claim on its return zeroed 14 m/s of cruising with a small variance, and the position then ran
    ///   off at the car's speed while its stated accuracy stayed small (fault soak, 2026-11-29).
    @discardableResult
    public mutating func updateAtRest(timeS: Double) -> Bool {
        predict(toTimeS: timeS)
        guard state.isInitialized else { return false }
        if parameters.horizontalAiding == .vehicle && state.isVehicleMode { return false }
        let r = parameters.restVelocitySigmaMps * parameters.restVelocitySigmaMps
        var h = SIMD8<Double>.zero
        h[1] = 1
        let g = state.horizontalCovariance.scalarGain(h: h, r: r, n: Self.horizontalDimension)
        let speed2 = state.east[1] * state.east[1] + state.north[1] * state.north[1]
        guard speed2 <= coefficients.gate2 * g.innovationVariance else { return false }
        state.east += g.gain * (0 - state.east[1])
        state.north += g.gain * (0 - state.north[1])
        state.horizontalCovariance.applyUpdate(g, n: Self.horizontalDimension)
        if state.hasHeight {
            let gv = state.verticalCovariance.scalarGain(h: h, r: r, n: Self.verticalDimension)
            state.up += gv.gain * (0 - state.up[1])
            state.verticalCovariance.applyUpdate(gv, n: Self.verticalDimension)
        }
        return true
    }

    /// Feeds one receiver fix. Returns what was done with it.
    @discardableResult
    public mutating func update(fix: ReceiverFix) -> Update {
        var done: Update = []
        guard fix.timeS.isFinite else { return .noPosition }
        if let utc = fix.utcS, utc.isFinite { state.utcOffsetS = utc - fix.timeS }
        if let separation = fix.geoidSeparationM, separation.isFinite {
            state.geoidSeparationM = separation
        } else if let h = fix.heightAboveEllipsoidM, let msl = fix.altitudeMSLM, h.isFinite, msl.isFinite {
            state.geoidSeparationM = h - msl
        }
        state.isSimulated = fix.quality == .simulated
        guard fix.hasPosition, let latitude = fix.latitudeDeg, let longitude = fix.longitudeDeg,
            latitude.isFinite, longitude.isFinite, abs(latitude) <= 90
        else { return .noPosition }
        let p = parameters
        let sigma = horizontalSigmaM(fix) * Double.exp(state.receiverLogVarianceScale / 2)

        if !state.isInitialized {
            start(at: fix, latitudeDeg: latitude, longitudeDeg: longitude)
            done.insert(.initialized)
        } else {
            predict(toTimeS: fix.timeS)
        }

        // Horizontal position (E and N together: one gate on the 2-DOF normalised innovation).
        let n = Self.horizontalDimension
        let offset = offsetM(latitudeDeg: latitude, longitudeDeg: longitude)
        var h = SIMD8<Double>.zero
        h[0] = 1
        h[3] = sigma * coefficients.correlatedFraction
        let white = sigma * (1 - coefficients.correlatedFraction * coefficients.correlatedFraction).squareRoot()
        var g = state.horizontalCovariance.scalarGain(h: h, r: white * white, n: n)
        var innovationEast = offset.east - (state.east * h).sum()
        var innovationNorth = offset.north - (state.north * h).sum()
        let normalised = (innovationEast * innovationEast + innovationNorth * innovationNorth) / g.innovationVariance
        if p.adaptsReceiverAccuracy && !done.contains(.initialized) {
            // E[NIS/2] = 1 when the accuracy is honest; outliers count at most 3 so a multipath episode
            // cannot inflate the scale much.
            let statistic = min(normalised / 2, 3)
            let rate = 1 / p.receiverAccuracyLearningFixes
            state.receiverLogVarianceScale = min(max(state.receiverLogVarianceScale + rate * (statistic - 1), 0), Double.log(100))
        }
        if normalised > coefficients.gate2 && !done.contains(.initialized) {
            state.consecutiveOutliers += 1
            state.fixesRejected += 1
            done.insert(.positionRejected)
            state.horizontalCovariance[0, 0] += p.outlierInflation * sigma * sigma
            let staleS = state.lastFixTimeS.map { fix.timeS - $0 } ?? 0
            if state.consecutiveOutliers >= p.maximumConsecutiveOutliers || staleS >= Self.staleRestartS {
                // The filter, not the receiver, is wrong: forget the position (keep velocity and biases).
                for k in 0..<n {
                    state.horizontalCovariance[0, k] = 0
                    state.horizontalCovariance[k, 0] = 0
                }
                state.horizontalCovariance[0, 0] = 1e6
                g = state.horizontalCovariance.scalarGain(h: h, r: white * white, n: n)
                innovationEast = offset.east - (state.east * h).sum()
                innovationNorth = offset.north - (state.north * h).sum()
                done.remove(.positionRejected)
                done.insert(.restarted)
            }
        }
        if !done.contains(.positionRejected) {
            state.east += g.gain * innovationEast
            state.north += g.gain * innovationNorth
            state.horizontalCovariance.applyUpdate(g, n: n)
            state.consecutiveOutliers = 0
            state.lastFixTimeS = fix.timeS
            state.fixesUsed += 1
            done.insert(.position)
        }

        // Horizontal velocity.
        if let measured = horizontalVelocity(fix) {
            let (velocity, sigmaVelocity) = (measured.velocity, measured.sigma)
            var hv = SIMD8<Double>.zero
            hv[1] = 1
            var gv = state.horizontalCovariance.scalarGain(h: hv, r: sigmaVelocity * sigmaVelocity, n: n)
            let ve = velocity.east - state.east[1], vn = velocity.north - state.north[1]
            var accept = (ve * ve + vn * vn) / gv.innovationVariance <= coefficients.gate2 || done.contains(.initialized)
            if !accept {
                state.consecutiveVelocityOutliers += 1
                // Doppler velocities are rarely wrong several times in a row: then the filter's own velocity
                // is (a turn the inertial model did not follow); forget it and take the receiver's. So too when the
                // position restarted: the velocity that carried it off is no better.
                if state.consecutiveVelocityOutliers >= Self.velocityOutliersBeforeRestart || done.contains(.restarted) {
                    state.horizontalCovariance[1, 1] += ve * ve + vn * vn
                    gv = state.horizontalCovariance.scalarGain(h: hv, r: sigmaVelocity * sigmaVelocity, n: n)
                    accept = true
                }
            }
            if accept {
                if p.horizontalAiding == .vehicle && p.learnsVehicleFrame {
                    observeVehicleFrame(
                        velocityEast: velocity.east, velocityNorth: velocity.north, sigmaMps: sigmaVelocity,
                        timeS: fix.timeS)
                }
                state.east += gv.gain * ve
                state.north += gv.gain * vn
                state.horizontalCovariance.applyUpdate(gv, n: n)
                state.consecutiveVelocityOutliers = 0
                done.insert(.velocity)
            } else {
                done.insert(.velocityRejected)
            }
        }

        // Height and vertical velocity.
        if fix.mode == .threeDimensional, let height = fix.ellipsoidalHeightM, height.isFinite {
            let sigmaUp = verticalSigmaM(fix, horizontalSigmaM: sigma)
            if !state.hasHeight { startHeight(at: height) }
            let nv = Self.verticalDimension
            var hu = SIMD8<Double>.zero
            hu[0] = 1
            hu[3] = sigmaUp * coefficients.correlatedFraction
            let whiteUp = sigmaUp * (1 - coefficients.correlatedFraction * coefficients.correlatedFraction).squareRoot()
            let gu = state.verticalCovariance.scalarGain(h: hu, r: whiteUp * whiteUp, n: nv)
            let innovation = height - (state.up * hu).sum()
            if innovation * innovation <= coefficients.gate1 * gu.innovationVariance || done.contains(.restarted)
                || done.contains(.initialized)
            {
                state.up += gu.gain * innovation
                state.verticalCovariance.applyUpdate(gu, n: nv)
                state.lastHeightTimeS = fix.timeS
                done.insert(.height)
            } else if state.lastHeightTimeS.map({ fix.timeS - $0 >= Self.staleRestartS }) ?? true {
                // No height used for that long (every one since failed its gate): the vertical channel ran off (an
                // acceleration error integrated twice, the barometer turned away by the same gate), not the receiver.
                // Restart it at the receiver's height; the barometer's offset is learned again.
                startHeight(at: height)
                let restart = state.verticalCovariance.scalarGain(h: hu, r: whiteUp * whiteUp, n: nv)
                state.up += restart.gain * (height - (state.up * hu).sum())
                state.verticalCovariance.applyUpdate(restart, n: nv)
                state.lastHeightTimeS = fix.timeS
                done.insert([.height, .heightRestarted])
            } else {
                done.insert(.heightRejected)
            }
            if let climb = fix.velocityENUMps?.z ?? fix.climbMps, climb.isFinite {
                var hc = SIMD8<Double>.zero
                hc[1] = 1
                let sigmaClimb = 2 * (fix.speedAccuracyMps ?? p.defaultVelocitySigmaMps)
                let gc = state.verticalCovariance.scalarGain(h: hc, r: sigmaClimb * sigmaClimb, n: nv)
                let innovationClimb = climb - state.up[1]
                if innovationClimb * innovationClimb <= coefficients.gate1 * gc.innovationVariance {
                    state.up += gc.gain * innovationClimb
                    state.verticalCovariance.applyUpdate(gc, n: nv)
                }
            }
        }
        foldHorizontalOffset()
        return done
    }

    /// Rejected receiver velocities in a row after which the filter's velocity is forgotten.
    static let velocityOutliersBeforeRestart = 3
    /// A position that fails its gate restarts the filter when no position has been used for this long, s.
    public static let staleRestartS = 30.0

    /// Per-axis σ of the fix's horizontal position, m (before the learned scale).
    func horizontalSigmaM(_ fix: ReceiverFix) -> Double {
        let p = parameters
        if let accuracy = fix.horizontalAccuracyM, accuracy.isFinite, accuracy > 0 {
            return max(accuracy * p.receiverHorizontalAccuracyScale, 0.01)
        }
        if let hdop = fix.hdop, hdop.isFinite, hdop > 0 { return hdop * p.sigmaPerHDOPM }
        return p.defaultHorizontalSigmaM
    }

    /// σ of the fix's height, m.
    func verticalSigmaM(_ fix: ReceiverFix, horizontalSigmaM: Double) -> Double {
        if let accuracy = fix.verticalAccuracyM, accuracy.isFinite, accuracy > 0 {
            return max(accuracy * parameters.receiverVerticalAccuracyScale * Double.exp(state.receiverLogVarianceScale / 2), 0.01)
        }
        if let vdop = fix.vdop, vdop.isFinite, vdop > 0 { return vdop * parameters.sigmaPerHDOPM * 2.0.squareRoot() }
        return horizontalSigmaM * parameters.verticalToHorizontalRatio
    }

    /// The fix's horizontal velocity (ENU, m/s) and its per-axis σ, when it has a direction (or is slow
    /// enough that the direction does not matter).
    public func horizontalVelocity(_ fix: ReceiverFix) -> (velocity: (east: Double, north: Double), sigma: Double)? {
        let p = parameters
        var sigma = fix.speedAccuracyMps.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? p.defaultVelocitySigmaMps
        if let v = fix.velocityENUMps, v.x.isFinite, v.y.isFinite { return ((v.x, v.y), sigma) }
        guard let speed = fix.speedMps, speed.isFinite, speed >= 0 else { return nil }
        if let course = fix.courseDeg, course.isFinite {
            let (s, c) = (Double.sin(Angle.radians(fromDegrees: course)), Double.cos(Angle.radians(fromDegrees: course)))
            if let courseSigma = fix.courseAccuracyDeg, courseSigma.isFinite, courseSigma > 0 {
                sigma = max(sigma, speed * Angle.radians(fromDegrees: courseSigma))
            }
            return ((speed * s, speed * c), sigma)
        }
        // Slow and without a course: the velocity is near zero, with the speed as its uncertainty.
        guard speed < p.minimumCourseSpeedMps else { return nil }
        return ((0, 0), (sigma * sigma + speed * speed).squareRoot())
    }

    /// Starts the filter at a fix: origin at the fix, broad priors (the first update then sets the
    /// correlations between position and receiver error correctly).
    mutating func start(at fix: ReceiverFix, latitudeDeg: Double, longitudeDeg: Double) {
        state.isInitialized = true
        state.timeS = fix.timeS
        state.originLatitudeRad = Angle.radians(fromDegrees: latitudeDeg)
        state.originLongitudeRad = Angle.radians(fromDegrees: longitudeDeg)
        state.east = .zero
        state.north = .zero
        let b = parameters.initialAccelerationBiasSigmaMps2
        var d = SIMD8<Double>.zero
        d[0] = 1e6; d[1] = 30 * 30; d[2] = b * b; d[3] = 1
        state.horizontalCovariance = .diagonal(d)
        state.consecutiveOutliers = 0
    }

    /// Starts the vertical channel at a height.
    mutating func startHeight(at height: Double) {
        state.hasHeight = true
        state.hasBarometerOffset = false
        state.up = .zero
        state.up[0] = height
        let b = parameters.initialAccelerationBiasSigmaMps2
        var d = SIMD8<Double>.zero
        d[0] = 1e6; d[1] = 5 * 5; d[2] = b * b; d[3] = 1; d[4] = 1e4
        state.verticalCovariance = .diagonal(d)
    }
}

// MARK: - Output

extension NavigationFilter {
    /// The current estimate as a `Location`, or `nil` before the first fix and once the position is lost
    /// (`maximumHorizontalAccuracyM`).
    ///
    /// A `mutating get` though it changes nothing: the location stage reads it once a sample, and a plain getter of
    /// this 2.3 KB value, called from another module, copied it first (as `FusionStage.appendCells` explains).
    public var location: Location? {
        mutating get {
            guard state.isInitialized else { return nil }
            let c = coefficients
            let p = parameters
            let sigmaPosition = state.horizontalCovariance[0, 0].squareRoot()
            let horizontalAccuracy = c.horizontalRadiusPerSigma * sigmaPosition
            guard horizontalAccuracy.isFinite, horizontalAccuracy <= p.maximumHorizontalAccuracyM else { return nil }
            let (east, north) = (state.east[1], state.north[1])
            let speed = (east * east + north * north).squareRoot()
            let sigmaVelocity = state.horizontalCovariance[1, 1].squareRoot()
            var course: Double?, courseAccuracy: Double?
            if speed >= p.minimumCourseSpeedMps && speed > sigmaVelocity {
                course = Angle.wrap360(Angle.degrees(fromRadians: Double.atan2(y: east, x: north)))
                courseAccuracy = min(180, Angle.degrees(fromRadians: c.intervalPerSigma * Double.atan(sigmaVelocity / speed)))
            }
            let sinceFix = state.lastFixTimeS.map { max(0, state.timeS - $0) } ?? .infinity
            let aided = state.accelerationTimeS.map { state.timeS - $0 <= p.inertialTimeoutS } ?? false
            let method: LocationSourceInformation.Method =
                sinceFix > p.deadReckoningAfterS ? .deadReckoning : (aided ? .fused : .gnss)
            var location = Location(
                coordinate: Coordinate(
                    latitudeDeg: Angle.degrees(fromRadians: state.originLatitudeRad),
                    longitudeDeg: Angle.wrap180(Angle.degrees(fromRadians: state.originLongitudeRad))),
                horizontalAccuracyM: horizontalAccuracy,
                speedMps: speed, speedAccuracyMps: c.intervalPerSigma * sigmaVelocity,
                courseDeg: course, courseAccuracyDeg: courseAccuracy,
                timeS: state.timeS, utcS: state.utcOffsetS.map { $0 + state.timeS },
                sinceFixS: sinceFix.isFinite ? sinceFix : 0,
                sourceInformation: LocationSourceInformation(
                    isSimulatedBySoftware: state.isSimulated,
                    isProducedByAccessory: !state.isSimulated, method: method))
            if state.hasHeight {
                let h = state.up[0]
                location.ellipsoidalAltitudeM = h
                location.altitudeMSLM = state.geoidSeparationM.map { h - $0 }
                location.verticalAccuracyM = c.intervalPerSigma * state.verticalCovariance[0, 0].squareRoot()
                location.climbMps = state.up[1]
            }
            return location
        }
    }
}
