import LodestoneCore

/// A cheap any-motion detector on the accelerometer, for every sample: is the board being moved *now*?
///
/// The specific force is compared with its own slow mean (a one-pole low-pass with time constant
/// `meanTimeConstantS`, ≈ 0.5 s): at rest the two differ only by the chip's noise (≈ 0.02 m/s² rms per axis at
/// 100 Hz for a 300 µg/√Hz accelerometer such as the simulated board's, 0.06 m/s² for an MPU-6050's 400 µg/√Hz
/// over its 260 Hz bandwidth), while a step, a pick-up or a car pulling away moves it by 0.5–3 m/s². The distance
/// |f − mean| covers both a change of magnitude and a change of direction (tilt), since ||f| − |mean|| ≤ |f − mean|.
/// Motion is reported when `hitsToTrigger` samples within `hitWindowS` exceed `thresholdMps2` (a lone spike, e.g. a
/// knock on the table, does not count). At 100 Hz that is 20–30 ms after the motion begins; at a low-power 10 Hz
/// it is 0.2–0.3 s: well under the 1 s the 2 s wake target leaves for detection.
///
/// The same test as the stationarity detector of RAPS (J. Paek, J. Kim, R. Govindan, "Energy-Efficient
/// Rate-Adaptive GPS-based Positioning for Smartphones", MobiSys 2010, section "Accelerometer-based movement
/// detection": the deviation of the acceleration over a short window against a threshold), with a vector deviation
/// from a slow mean instead of a windowed standard deviation so that the state is a few numbers, not a window.
///
/// Parameters + state (STYLE.md habit 6); `update` allocates nothing.
public struct AnyMotionDetector: Sendable, Hashable, Codable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// Time constant of the slow mean, s. Default 0.5.
        public var meanTimeConstantS: Double
        /// Deviation from the slow mean that counts as motion, m/s². Default 0.3: 5σ of an MPU-6050's noise at full
        /// bandwidth, well under a step's 1–3 m/s².
        public var thresholdMps2: Double
        /// Exceeding samples needed within `hitWindowS`. Default 3.
        public var hitsToTrigger: Int
        /// Window for the hits, s. Default 0.5.
        public var hitWindowS: Double
        /// A gap between samples longer than this restarts the mean (the chip was off or reconfigured), s. Default 0.5.
        public var maximumGapS: Double

        public init(
            meanTimeConstantS: Double = 0.5, thresholdMps2: Double = 0.3, hitsToTrigger: Int = 3,
            hitWindowS: Double = 0.5, maximumGapS: Double = 0.5
        ) {
            self.meanTimeConstantS = meanTimeConstantS; self.thresholdMps2 = thresholdMps2
            self.hitsToTrigger = hitsToTrigger; self.hitWindowS = hitWindowS; self.maximumGapS = maximumGapS
        }

        public static let `default` = Parameters()
    }

    public var parameters: Parameters
    /// The slow mean of the specific force, m/s² (board frame); `nil` before the first sample or after a gap.
    public private(set) var meanMps2: Vector3?
    /// Time of the latest sample, s.
    public private(set) var lastSampleTimeS: Double?
    /// Exceeding samples in the current window, and when the window began, s.
    private var hits = 0
    private var windowStartS = 0.0
    /// Time of the latest sample that completed a detection, s.
    public private(set) var lastMotionTimeS: Double?

    public init(parameters: Parameters = .default) { self.parameters = parameters }

    /// One sample: specific force `f` (board frame, m/s²) at `timeS`. Returns true when this sample shows motion
    /// (`hitsToTrigger` exceedances within `hitWindowS`, this one included).
    public mutating func update(accelerationMps2 f: Vector3, timeS: Double) -> Bool {
        defer { lastSampleTimeS = timeS }
        guard let mean = meanMps2, let last = lastSampleTimeS, timeS - last <= parameters.maximumGapS, timeS > last else {
            meanMps2 = f; hits = 0
            return false
        }
        let dtS = timeS - last
        let deviation = (f - mean).length
        meanMps2 = mean + (f - mean) * (dtS / (parameters.meanTimeConstantS + dtS))
        guard deviation > parameters.thresholdMps2 else { return false }
        if hits == 0 || timeS - windowStartS > parameters.hitWindowS { hits = 0; windowStartS = timeS }
        hits += 1
        guard hits >= parameters.hitsToTrigger else { return false }
        lastMotionTimeS = timeS
        return true
    }
}

/// How long the carrier must be still before the scheduler calls it stationary, per what it was doing. Stillness is
/// the time since the last evidence of motion (an any-motion detection, a wake-on-motion interrupt, or the activity
/// classifier naming a moving activity).
///
/// Defaults: **8 s** when the activity classifier agrees (its latest decision, made after the stillness began, is
/// `stationary`); **20 s** otherwise (no classifier, or it still names a walk, run or ride); **120 s** after a
/// drive, whatever the classifier says, so that a car stopped at traffic lights (30–90 s) is not planned as parked:
/// the carrier of a car is not stationary until it has parked. With the adaptive policy turning the receiver off as
/// soon as the carrier is stationary, the receiver is off 8–20 s after a walk, run or ride stops (target ≤ 30 s) and
/// 120 s after a car stops; in between, a car waiting without motion has its receiver in power-save after 20 s
/// (`AdaptivePolicy.Parameters.pausedAfterS`).
///
/// Between moving kinds the classifier's word is taken only when it names the new kind in two decisions in a row (a
/// walk/run boundary does not flap the plan); from stationary or an unknown kind it is taken at once.
public struct MotionHysteresis: Sendable, Hashable, Codable {
    /// Stillness needed when the classifier agrees, s. Default 8.
    public var stillnessWithClassifierS: Double
    /// Stillness needed without the classifier's agreement, s. Default 20.
    public var stillnessWithoutClassifierS: Double
    /// Stillness needed after a drive, s. Default 120.
    public var stillnessAfterDriveS: Double
    /// Accelerometer samples older than this are no evidence of stillness, s. Default 2.
    public var sampleFreshnessS: Double

    public init(
        stillnessWithClassifierS: Double = 8, stillnessWithoutClassifierS: Double = 20,
        stillnessAfterDriveS: Double = 120, sampleFreshnessS: Double = 2
    ) {
        self.stillnessWithClassifierS = stillnessWithClassifierS
        self.stillnessWithoutClassifierS = stillnessWithoutClassifierS
        self.stillnessAfterDriveS = stillnessAfterDriveS; self.sampleFreshnessS = sampleFreshnessS
    }

    public static let `default` = MotionHysteresis()
}

/// The carrier's motion state with its hysteresis: moving at once on any evidence, stationary only after the
/// stillness `MotionHysteresis` asks for. Allocates nothing.
struct MotionTracker: Sendable, Hashable {
    var hysteresis: MotionHysteresis
    var detector: AnyMotionDetector
    private(set) var motion: CarrierMotion = .unknown
    private(set) var sinceS: Double
    /// The latest evidence of motion, s.
    private(set) var lastMovementS: Double
    /// The latest motion the accelerometer (the any-motion detector or a wake interrupt) saw, s; the classifier's
    /// decisions do not move it.
    private(set) var lastAccelerationMotionS: Double
    /// The classifier's latest decision and its time.
    private(set) var classifierKind: CarrierMotion?
    private(set) var classifierTimeS = -Double.infinity
    /// A moving kind the classifier named once, different from the current one.
    private var pendingKind: CarrierMotion?

    init(hysteresis: MotionHysteresis, detector: AnyMotionDetector, timeS: Double) {
        self.hysteresis = hysteresis; self.detector = detector; sinceS = timeS; lastMovementS = timeS
        lastAccelerationMotionS = timeS
    }

    /// One accelerometer sample; true when the state changed.
    mutating func observe(accelerationMps2 f: Vector3, timeS: Double) -> Bool {
        guard detector.update(accelerationMps2: f, timeS: timeS) else { return false }
        return movementSeen(timeS: timeS)
    }

    /// Evidence of motion (a detection or a wake interrupt); true when the state changed.
    mutating func movementSeen(timeS: Double) -> Bool {
        lastMovementS = max(lastMovementS, timeS)
        lastAccelerationMotionS = max(lastAccelerationMotionS, timeS)
        // Moving already: the kind stays what the classifier said, except that an unknown kind takes the classifier's.
        guard motion == .stationary || motion == .unknown && classifierMoving != nil else { return false }
        let next = classifierMoving ?? .unknown
        if next == motion { return false }
        motion = next; sinceS = timeS
        return true
    }

    /// The classifier's moving kind, when its latest decision names one.
    private var classifierMoving: CarrierMotion? {
        guard let k = classifierKind, k.mayMove, k != .unknown else { return nil }
        return k
    }

    /// The activity classifier's decision; true when the state changed.
    mutating func observe(activity: CarrierMotion, timeS: Double) -> Bool {
        classifierKind = activity; classifierTimeS = timeS
        guard activity.mayMove, activity != .unknown else { pendingKind = nil; return false }
        lastMovementS = max(lastMovementS, timeS)
        if motion == activity { pendingKind = nil; return false }
        // From stationary or an unknown kind, the classifier's kind is taken at once (the carrier moves: serve it).
        // Between two moving kinds (walk ↔ run near their boundary), only when it says so twice in a row.
        if motion.mayMove && motion != .unknown && pendingKind != activity {
            pendingKind = activity
            return false
        }
        pendingKind = nil
        motion = activity; sinceS = timeS
        return true
    }

    /// Time passes: true when the carrier has just become stationary.
    mutating func evaluate(timeS: Double) -> Bool {
        guard motion.mayMove else { return false }
        let stillnessS = timeS - lastMovementS
        let classifierAgrees = classifierKind == .stationary && classifierTimeS > lastMovementS
        let freshSamples = detector.lastSampleTimeS.map { timeS - $0 <= hysteresis.sampleFreshnessS } ?? false
        // Without recent samples, only the classifier can say the carrier is still.
        guard freshSamples || classifierAgrees else { return false }
        let neededS =
            motion == .drive
            ? hysteresis.stillnessAfterDriveS
            : classifierAgrees ? hysteresis.stillnessWithClassifierS : hysteresis.stillnessWithoutClassifierS
        guard stillnessS >= neededS else { return false }
        motion = .stationary; sinceS = timeS; pendingKind = nil
        return true
    }
}
