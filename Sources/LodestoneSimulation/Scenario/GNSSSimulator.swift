import LodestoneCore
import RealModule

/// 2D or 3D position fix.
public enum GNSSFixMode: String, Sendable, Hashable, Codable {
    /// Horizontal position only (too few satellites for height); the height is a poor guess.
    case twoDimensional = "2D"
    /// Full position.
    case threeDimensional = "3D"
}

/// One GNSS receiver solution, as a u-blox-style receiver reports it.
public struct GNSSFix: Sendable, Hashable, Codable {
    /// Time of the fix on the scenario clock, s.
    public var timeS: Double
    /// Geodetic latitude, WGS84, degrees.
    public var latitudeDeg: Double
    /// Longitude, degrees east.
    public var longitudeDeg: Double
    /// Height above the WGS84 ellipsoid, m.
    public var heightM: Double
    /// Altitude above mean sea level, m.
    public var altitudeMSLM: Double
    /// Horizontal speed over ground, m/s, ≥ 0.
    public var speedMps: Double
    /// Course over ground, degrees clockwise from true north in [0, 360); `nil` below the receiver's minimum
    /// speed for a course (`GNSSSimulator.Parameters.minimumCourseSpeedMps`).
    public var courseDeg: Double?
    /// Horizontal accuracy estimate, m: the DRMS (√(σE² + σN²)) of the simulated horizontal error, which the
    /// error honours (it is drawn with exactly these standard deviations).
    public var horizontalAccuracyM: Double
    /// Vertical accuracy estimate, m: the standard deviation of the simulated vertical error.
    public var verticalAccuracyM: Double
    /// Speed accuracy estimate, m/s (standard deviation per horizontal axis).
    public var speedAccuracyMps: Double
    /// Satellites used in the solution.
    public var satellitesUsed: Int
    /// 2D or 3D.
    public var fixMode: GNSSFixMode
    /// Simulation truth, not something a receiver knows: the fix is displaced by a multipath episode (its
    /// position is off by tens of metres while its accuracy figures are the usual ones).
    public var isMultipath: Bool

    /// Memberwise initialiser; see each property for units.
    public init(
        timeS: Double, latitudeDeg: Double, longitudeDeg: Double, heightM: Double, altitudeMSLM: Double,
        speedMps: Double, courseDeg: Double?, horizontalAccuracyM: Double, verticalAccuracyM: Double,
        speedAccuracyMps: Double, satellitesUsed: Int, fixMode: GNSSFixMode, isMultipath: Bool = false
    ) {
        self.timeS = timeS; self.latitudeDeg = latitudeDeg; self.longitudeDeg = longitudeDeg
        self.heightM = heightM; self.altitudeMSLM = altitudeMSLM; self.speedMps = speedMps
        self.courseDeg = courseDeg; self.horizontalAccuracyM = horizontalAccuracyM
        self.verticalAccuracyM = verticalAccuracyM; self.speedAccuracyMps = speedAccuracyMps
        self.satellitesUsed = satellitesUsed; self.fixMode = fixMode
        self.isMultipath = isMultipath
    }
}

extension GNSSFix {
    /// The fix as a receiver reports it to fusion (`ReceiverFix`, gpsd's TPV fields): quality "simulated",
    /// arrival time `timeS` on the engine's clock (default: the fix's own time), and `utcS` when known.
    public func receiverFix(timeS: Double? = nil, utcS: Double? = nil) -> ReceiverFix {
        var fix = ReceiverFix(
            timeS: timeS ?? self.timeS, mode: fixMode == .threeDimensional ? .threeDimensional : .twoDimensional)
        fix.quality = .simulated
        fix.utcS = utcS
        fix.latitudeDeg = latitudeDeg
        fix.longitudeDeg = longitudeDeg
        fix.heightAboveEllipsoidM = heightM
        fix.altitudeMSLM = altitudeMSLM
        fix.geoidSeparationM = heightM - altitudeMSLM
        fix.speedMps = speedMps
        fix.courseDeg = courseDeg
        fix.horizontalAccuracyM = horizontalAccuracyM
        fix.verticalAccuracyM = verticalAccuracyM
        fix.speedAccuracyMps = speedAccuracyMps
        fix.satellitesUsed = satellitesUsed
        return fix
    }
}

/// A GNSS receiver fed by the truth: 1 Hz fixes whose position error is a first-order Gauss–Markov process
/// (errors of a few metres, correlated over about a minute, as multipath and atmospheric residuals of a
/// single-frequency receiver are), no fix during outages, and a reacquisition after them: a few seconds
/// without a fix, a 2D fix with few satellites, then accuracy converging to nominal.
///
/// The position error is σ(t)·x(t) per axis with x a unit-variance Gauss–Markov process, so its standard
/// deviation is exactly the accuracy the fix reports ("honest" accuracy figures) — except in segments marked
/// `gnssMultipath` (urban canyons), where episodes of reflected-signal tracking displace the position by
/// `multipathJumpRangeM` for `multipathDurationRangeS` at a time, in a random direction, while the receiver
/// keeps reporting its usual accuracy: a receiver lying about its accuracy, as real ones do there.
public struct GNSSSimulator: Sendable {
    /// Tunables; defaults describe a consumer receiver in open sky (u-blox M8/M10 class: datasheet
    /// horizontal accuracy 2.0–2.5 m CEP, velocity 0.05 m/s, hot start ≈ 1 s).
    public struct Parameters: Sendable, Hashable, Codable {
        /// Fix period, s (1 = 1 Hz). Fixes fall on whole multiples of it.
        public var fixPeriodS: Double
        /// Per-axis (east, north) 1σ position error at nominal geometry, m.
        public var horizontalSigmaM: Double
        /// Vertical 1σ position error at nominal geometry, m.
        public var verticalSigmaM: Double
        /// Correlation time of the position error, s.
        public var correlationTimeS: Double
        /// Per-axis 1σ velocity error, m/s (white).
        public var speedSigmaMps: Double
        /// Time from signal return to the first fix, s.
        public var reacquisitionDelayS: Double
        /// Extra error right after (re)acquisition, as a multiple of nominal (decays with `convergenceTimeS`).
        public var reacquisitionErrorFactor: Double
        /// Time constant of the convergence after (re)acquisition, s.
        public var convergenceTimeS: Double
        /// Satellites in view and used with open sky.
        public var nominalSatellites: Int
        /// Below this speed no course is reported, m/s.
        public var minimumCourseSpeedMps: Double
        /// Mean time between the starts of multipath episodes in an urban canyon, s (exponential gaps).
        public var multipathMeanIntervalS: Double
        /// Duration of one multipath episode, s (uniform).
        public var multipathDurationRangeS: ClosedRange<Double>
        /// Horizontal displacement of one episode, m (uniform; half as much vertically, random sign).
        public var multipathJumpRangeM: ClosedRange<Double>

        /// Parameters; defaults in parentheses.
        public init(
            fixPeriodS: Double = 1, horizontalSigmaM: Double = 1.5, verticalSigmaM: Double = 2.5,
            correlationTimeS: Double = 60, speedSigmaMps: Double = 0.05, reacquisitionDelayS: Double = 2,
            reacquisitionErrorFactor: Double = 4, convergenceTimeS: Double = 10, nominalSatellites: Int = 12,
            minimumCourseSpeedMps: Double = 0.5, multipathMeanIntervalS: Double = 25,
            multipathDurationRangeS: ClosedRange<Double> = 3...12,
            multipathJumpRangeM: ClosedRange<Double> = 15...60
        ) {
            self.fixPeriodS = fixPeriodS; self.horizontalSigmaM = horizontalSigmaM; self.verticalSigmaM = verticalSigmaM
            self.correlationTimeS = correlationTimeS; self.speedSigmaMps = speedSigmaMps
            self.reacquisitionDelayS = reacquisitionDelayS; self.reacquisitionErrorFactor = reacquisitionErrorFactor
            self.convergenceTimeS = convergenceTimeS; self.nominalSatellites = nominalSatellites
            self.minimumCourseSpeedMps = minimumCourseSpeedMps
            self.multipathMeanIntervalS = multipathMeanIntervalS
            self.multipathDurationRangeS = multipathDurationRangeS
            self.multipathJumpRangeM = multipathJumpRangeM
        }

        /// The defaults.
        public static let `default` = Parameters()
    }

    /// Everything `fix(for:)` mutates.
    public struct State: Sendable, Hashable, Codable {
        /// The random number generator.
        public var random: SeededGenerator
        /// Unit-variance Gauss–Markov error states, east, north, up.
        public var unitError: Vector3
        /// Time the error states belong to, s.
        public var errorTimeS: Double?
        /// Earliest time of the next fix, s.
        public var nextEpochS: Double?
        /// Time the signal was (re)acquired, s; `nil` while there is none.
        public var acquiredAtS: Double?
        /// The displacement of the multipath episode in progress (ENU, m) and when it ends, s.
        public var multipathOffsetENUM = Vector3.zero
        public var multipathEndS: Double?
        /// When the next multipath episode starts, s (drawn on entering an urban canyon).
        public var nextMultipathS: Double?
        /// The mode last set with `setMode(_:timeS:)`; `nil` until then (continuous at `Parameters.fixPeriodS`).
        public var mode: GNSSReceiverMode?
        /// The power state at the last `fix(for:)` or `setMode(_:timeS:)`.
        public var powerState: GNSSPowerState = .acquiring
        /// When the receiver last held ephemerides fresh from the sky, s; `nil` when it never had any (cold start).
        /// A receiver starts with valid ones (`PowerParameters.startsWithValidEphemerides`).
        public var ephemeridesS: Double?
        /// Since when the receiver has tracked without a break, s (ephemerides are refreshed after
        /// `PowerParameters.ephemerisDownloadS` of it); `nil` while it does not track.
        public var trackingSinceS: Double?
        /// Time to the first fix of the acquisition in progress (or the next one), s; `nil`: `reacquisitionDelayS`.
        public var acquisitionDelayS: Double?
        /// The error factor of the acquisition in progress (`nil`: `reacquisitionErrorFactor`) and whether it starts
        /// with all satellites (a hot start knows where they are).
        public var acquisitionErrorFactor: Double?
        public var acquisitionKnowsSatellites = false
        /// Power save: the time of the next fix the receiver is planned to deliver, s.
        public var powerSaveFixS: Double?
    }

    /// How the receiver's power modes behave: times to first fix by start type, ephemeris validity, and the
    /// power-save cycle. Defaults: a u-blox M8 (NEO-M8 data sheet UBX-15031086, section 1.5 "Performance": TTFF cold
    /// start 26 s, hot start 1 s, GPS + GLONASS; u-blox M8 Receiver Description UBX-13003221, section "Power
    /// management": power save mode with ON/OFF operation for long update periods and cyclic tracking for short ones).
    public struct PowerParameters: Sendable, Hashable, Codable {
        /// Time to first fix when the ephemerides are valid (hot start), s (NEO-M8 data sheet: 1 s).
        public var hotStartTTFFS: Double
        /// Time to first fix when time, position and almanac are known but the ephemerides expired (warm start), s.
        /// 25 s: the NEO-M8 data sheet gives no warm figure; the ephemerides must be downloaded again, which takes
        /// most of one 30 s navigation frame (IS-GPS-200 section 20.3.2), so a warm start is nearly a cold one.
        public var warmStartTTFFS: Double
        /// Time to first fix without anything known (cold start), s (NEO-M8 data sheet: 26 s).
        public var coldStartTTFFS: Double
        /// How long downloaded ephemerides allow a hot start, s (4 h: the GPS ephemeris curve-fit interval, IS-GPS-200
        /// section 20.3.3.4.3.1; u-blox receivers hot start within it).
        public var ephemerisValidityS: Double
        /// Continuous tracking that refreshes the ephemerides, s (30 s: one navigation message frame of five 6 s
        /// subframes, IS-GPS-200 section 20.3.2).
        public var ephemerisDownloadS: Double
        /// Power save: how long the receiver tracks after its hot start before it delivers the cycle's fix, s
        /// (UBX-CFG-PM2 `onTime`; u-blox default 0, 1 s lets the position settle).
        public var powerSaveOnTimeS: Double
        /// Power save: longest update period run as cyclic tracking, s; longer ones are ON/OFF operation (10 s: the
        /// M8 receiver description recommends ON/OFF above 10 s). Cyclic tracking keeps the ephemerides fresh.
        public var cyclicTrackingMaximumPeriodS: Double
        /// Extra error of the first fixes after a hot start, as a multiple of nominal (decays with
        /// `Parameters.convergenceTimeS`); outages and cold or warm starts use `reacquisitionErrorFactor`.
        public var hotStartErrorFactor: Double
        /// Whether the receiver starts with valid ephemerides (from an earlier session); false: a cold start.
        public var startsWithValidEphemerides: Bool

        /// Power parameters; defaults in parentheses.
        public init(
            hotStartTTFFS: Double = 1, warmStartTTFFS: Double = 25, coldStartTTFFS: Double = 26,
            ephemerisValidityS: Double = 4 * 3600, ephemerisDownloadS: Double = 30, powerSaveOnTimeS: Double = 1,
            cyclicTrackingMaximumPeriodS: Double = 10, hotStartErrorFactor: Double = 1,
            startsWithValidEphemerides: Bool = true
        ) {
            self.hotStartTTFFS = hotStartTTFFS; self.warmStartTTFFS = warmStartTTFFS; self.coldStartTTFFS = coldStartTTFFS
            self.ephemerisValidityS = ephemerisValidityS; self.ephemerisDownloadS = ephemerisDownloadS
            self.powerSaveOnTimeS = powerSaveOnTimeS; self.cyclicTrackingMaximumPeriodS = cyclicTrackingMaximumPeriodS
            self.hotStartErrorFactor = hotStartErrorFactor; self.startsWithValidEphemerides = startsWithValidEphemerides
        }

        /// A u-blox M8.
        public static let ubloxM8 = PowerParameters()
    }

    /// How a receiver switched on starts, by what it knows.
    public enum StartKind: String, Sendable, Hashable, Codable {
        case hot, warm, cold
    }

    /// The tunables (sanitised at `init`: non-positive periods and times become the defaults).
    public let parameters: Parameters
    /// The power model.
    public let power: PowerParameters
    /// The state.
    public private(set) var state: State
    /// Phase of the slow change in satellite count, rad.
    let satellitePhaseRad: Double

    /// A receiver whose noise is fixed by `seed`.
    public init(seed: UInt64, parameters: Parameters = .default, power: PowerParameters = .ubloxM8) {
        var p = parameters
        let d = Parameters.default
        func positive(_ x: Double, _ fallback: Double) -> Double { x.isFinite && x > 0 ? x : fallback }
        func nonNegative(_ x: Double, _ fallback: Double) -> Double { x.isFinite && x >= 0 ? x : fallback }
        p.fixPeriodS = positive(p.fixPeriodS, d.fixPeriodS)
        p.horizontalSigmaM = nonNegative(p.horizontalSigmaM, d.horizontalSigmaM)
        p.verticalSigmaM = nonNegative(p.verticalSigmaM, d.verticalSigmaM)
        p.correlationTimeS = positive(p.correlationTimeS, d.correlationTimeS)
        p.speedSigmaMps = nonNegative(p.speedSigmaMps, d.speedSigmaMps)
        p.reacquisitionDelayS = nonNegative(p.reacquisitionDelayS, d.reacquisitionDelayS)
        p.reacquisitionErrorFactor = nonNegative(p.reacquisitionErrorFactor, d.reacquisitionErrorFactor)
        p.convergenceTimeS = positive(p.convergenceTimeS, d.convergenceTimeS)
        p.nominalSatellites = max(4, p.nominalSatellites)
        p.minimumCourseSpeedMps = nonNegative(p.minimumCourseSpeedMps, d.minimumCourseSpeedMps)
        p.multipathMeanIntervalS = positive(p.multipathMeanIntervalS, d.multipathMeanIntervalS)
        if !(p.multipathDurationRangeS.lowerBound > 0 && p.multipathDurationRangeS.upperBound.isFinite) {
            p.multipathDurationRangeS = d.multipathDurationRangeS
        }
        if !(p.multipathJumpRangeM.lowerBound >= 0 && p.multipathJumpRangeM.upperBound.isFinite) {
            p.multipathJumpRangeM = d.multipathJumpRangeM
        }
        self.parameters = p
        var random = SeededGenerator(seed: seed ^ 0x474E_5353) // decorrelate from a trajectory on the same seed
        satellitePhaseRad = random.uniform(in: 0...(2 * Double.pi))
        state = State(random: random, unitError: .zero, errorTimeS: nil, nextEpochS: nil, acquiredAtS: nil)
        self.power = power
        state.ephemeridesS = power.startsWithValidEphemerides ? 0 : nil
    }

    /// The mode last set (continuous at `Parameters.fixPeriodS` until `setMode` is called).
    public var mode: GNSSReceiverMode { state.mode ?? .continuous(rateHz: 1 / parameters.fixPeriodS) }

    /// The receiver's power state at the last `fix(for:)` or `setMode(_:timeS:)`.
    public var powerState: GNSSPowerState { state.powerState }

    /// How a receiver switched on at `timeS` would start: hot while its ephemerides are younger than
    /// `ephemerisValidityS`, warm when it had some, cold when it never had any.
    public func startKind(atTimeS timeS: Double) -> StartKind {
        guard let e = state.ephemeridesS else { return .cold }
        return timeS - e < power.ephemerisValidityS ? .hot : .warm
    }

    /// The time to first fix of `kind`, s.
    public func timeToFirstFixS(_ kind: StartKind) -> Double {
        switch kind {
        case .hot: power.hotStartTTFFS
        case .warm: power.warmStartTTFFS
        case .cold: power.coldStartTTFFS
        }
    }

    /// Switches the receiver to `mode` at `timeS` (non-decreasing, as `fix(for:)`'s times).
    /// - `.off`: backup; no fixes, the ephemerides age.
    /// - `.continuous(rateHz)`: a fix every `1 / rateHz`; a receiver that was off or asleep starts (hot, warm or cold
    ///   by `startKind(atTimeS:)`) and delivers its first fix after that start's time to first fix.
    /// - `.powerSave(updatePeriodS)`: a fix every `updatePeriodS` on the grid of its multiples: the receiver wakes a hot
    ///   start's TTFF plus `powerSaveOnTimeS` before each (acquiring, then tracking), delivers the fix and sleeps
    ///   (`powerSaveIdle`); in an outage it stays acquiring until the signal returns. When the ephemerides would
    ///   expire (ON/OFF periods), a cycle tracks `ephemerisDownloadS` longer to refresh them.
    /// Setting the mode the receiver is already in changes nothing.
    public mutating func setMode(_ mode: GNSSReceiverMode, timeS: Double) {
        guard mode != self.mode else {
            state.mode = mode
            return
        }
        let wasRunning = state.powerState == .tracking || state.powerState == .acquiring
        state.mode = mode
        switch mode {
        case .off:
            state.powerState = .off
            stopTracking()
        case .continuous(let rateHz):
            state.powerSaveFixS = nil
            if !wasRunning || state.acquiredAtS == nil {
                beginStart(atTimeS: timeS)
                state.powerState = .acquiring
                state.nextEpochS = nil
            } else {
                let period = rateHz > 0 ? 1 / rateHz : parameters.fixPeriodS
                state.nextEpochS = (timeS / period - 1e-9).rounded(.up) * period
            }
        case .powerSave(let periodS):
            let p = max(periodS, 1e-3)
            // The first fix of the cycle: the next grid instant. A tracking receiver keeps tracking when that is
            // nearer than a start would take; otherwise it sleeps now and wakes for it (or, switched on, starts late).
            let lead = timeToFirstFixS(startKind(atTimeS: timeS)) + power.powerSaveOnTimeS
            state.powerSaveFixS = (timeS / p - 1e-9).rounded(.up) * p
            let keepsTracking = wasRunning && state.trackingSinceS != nil && (state.powerSaveFixS ?? timeS) - timeS <= lead
            if !keepsTracking {
                stopTracking()
                state.powerState = .powerSaveIdle
            }
            state.nextEpochS = nil
        }
    }

    /// The receiver stops tracking (off, or asleep between power-save fixes): its next fix needs a new start.
    private mutating func stopTracking() {
        state.acquiredAtS = nil
        state.trackingSinceS = nil
        state.nextEpochS = nil
    }

    /// The receiver (re)starts at `timeS`: its next acquisition takes the start's time to first fix.
    private mutating func beginStart(atTimeS timeS: Double) {
        let kind = startKind(atTimeS: timeS)
        state.acquiredAtS = nil
        state.trackingSinceS = nil
        state.acquisitionDelayS = timeToFirstFixS(kind)
        state.acquisitionErrorFactor = kind == .hot ? power.hotStartErrorFactor : parameters.reacquisitionErrorFactor
        state.acquisitionKnowsSatellites = kind == .hot
    }

    /// Notes that the receiver tracks at `t`: after `ephemerisDownloadS` of unbroken tracking its ephemerides are fresh.
    private mutating func noteTracking(at t: Double) {
        state.powerState = .tracking
        let since = state.trackingSinceS ?? t
        state.trackingSinceS = since
        if t - since >= power.ephemerisDownloadS - 1e-9 { state.ephemeridesS = t }
    }

    /// The fix for the receiver epoch that `truth.timeS` has reached, or `nil` when there is none: between
    /// epochs (call it as often as you like; one fix per period), during an outage, while (re)acquiring, and while the
    /// receiver is off or asleep (`setMode(_:timeS:)`). Times should be non-decreasing. Updates `powerState`.
    public mutating func fix(for truth: TruthSample) -> GNSSFix? {
        let t = truth.timeS
        guard t.isFinite else { return nil }
        switch state.mode {
        case .off?:
            state.powerState = .off
            return nil
        case .powerSave(let periodS)?:
            return powerSaveFix(for: truth, periodS: max(periodS, 1e-3))
        case .continuous(let rateHz)?:
            return continuousFix(for: truth, periodS: rateHz > 0 ? 1 / rateHz : parameters.fixPeriodS)
        case nil:
            return continuousFix(for: truth, periodS: parameters.fixPeriodS)
        }
    }

    /// Continuous operation: one fix per `periodS` epoch once acquired.
    private mutating func continuousFix(for truth: TruthSample, periodS period: Double) -> GNSSFix? {
        let t = truth.timeS
        if let next = state.nextEpochS, t < next - 1e-9 { return nil }
        state.nextEpochS = ((t / period + 1e-9).rounded(.down) + 1) * period

        if truth.gnssOutage {
            if state.trackingSinceS != nil {
                // It had a fix: the signal's return is a reacquisition, not the start it made when switched on.
                state.acquisitionDelayS = nil
                state.acquisitionErrorFactor = nil
                state.acquisitionKnowsSatellites = false
            }
            state.acquiredAtS = nil
            state.trackingSinceS = nil
            state.powerState = .acquiring
            return nil
        }
        let delay = state.acquisitionDelayS ?? parameters.reacquisitionDelayS
        guard let acquired = state.acquiredAtS else {
            // Signal (back): a fresh error draw, first fix after the acquisition delay.
            state.acquiredAtS = t
            state.unitError = Vector3(state.random.gaussian(), state.random.gaussian(), state.random.gaussian())
            state.errorTimeS = t
            if delay <= 0 { return acquiredFix(at: t, truth: truth, sinceFixS: 0) }
            state.powerState = .acquiring
            // The first fix is at the first epoch at or after the acquisition is done.
            state.nextEpochS = max(state.nextEpochS ?? t, ((t + delay) / period - 1e-9).rounded(.up) * period)
            return nil
        }
        let since = t - acquired
        guard since >= delay - 1e-9 else {
            state.powerState = .acquiring
            return nil
        }
        return acquiredFix(at: t, truth: truth, sinceFixS: since - delay)
    }

    /// A fix of the acquisition in progress; the next acquisition (after an outage) is a reacquisition.
    private mutating func acquiredFix(at t: Double, truth: TruthSample, sinceFixS: Double) -> GNSSFix {
        noteTracking(at: t)
        let f = fix(
            at: t, truth: truth, sinceFixS: sinceFixS,
            errorFactor: state.acquisitionErrorFactor ?? parameters.reacquisitionErrorFactor,
            knowsSatellites: state.acquisitionKnowsSatellites)
        return f
    }

    /// Power save: asleep until the cycle's wake-up, acquiring (hot start), tracking `powerSaveOnTimeS`, the fix, asleep.
    private mutating func powerSaveFix(for truth: TruthSample, periodS: Double) -> GNSSFix? {
        let t = truth.timeS
        let fixS = state.powerSaveFixS ?? (t / periodS - 1e-9).rounded(.up) * periodS
        state.powerSaveFixS = fixS
        let cyclic = periodS <= power.cyclicTrackingMaximumPeriodS
        let tracking = state.acquiredAtS != nil && t - (state.acquiredAtS ?? t) >= (state.acquisitionDelayS ?? 0) - 1e-9
        if state.acquiredAtS == nil {
            // Asleep (or never started) until the wake-up that leaves a start and the on-time before the fix; a cycle
            // whose ephemerides would expire stays on long enough to download new ones.
            let kind = startKind(atTimeS: t)
            var lead = timeToFirstFixS(kind) + power.powerSaveOnTimeS
            if !cyclic, let e = state.ephemeridesS, fixS - e > power.ephemerisValidityS / 2 { lead += power.ephemerisDownloadS }
            if t < fixS - lead - 1e-9 {
                state.powerState = .powerSaveIdle
                return nil
            }
            if truth.gnssOutage {
                state.powerState = .acquiring
                return nil
            }
            beginStart(atTimeS: t)
            state.acquiredAtS = t
            state.unitError = Vector3(state.random.gaussian(), state.random.gaussian(), state.random.gaussian())
            state.errorTimeS = t
            state.powerState = .acquiring
            return nil
        }
        if truth.gnssOutage {
            state.acquiredAtS = nil
            state.trackingSinceS = nil
            state.powerState = .acquiring
            return nil
        }
        guard tracking else {
            state.powerState = .acquiring
            return nil
        }
        noteTracking(at: t)
        guard t >= fixS - 1e-9 else { return nil }
        // The cycle's fix (late when an outage or the start delayed it), then sleep until the next cycle.
        let since = t - (state.acquiredAtS ?? t) - (state.acquisitionDelayS ?? 0)
        let f = fix(
            at: t, truth: truth, sinceFixS: since,
            errorFactor: state.acquisitionErrorFactor ?? parameters.reacquisitionErrorFactor,
            knowsSatellites: state.acquisitionKnowsSatellites)
        state.powerSaveFixS = ((t + 1e-6) / periodS).rounded(.up) * periodS
        if cyclic {
            // Cyclic tracking keeps the satellites (and its ephemerides current) between fixes: the next cycle is a
            // hot start from an idle that still tracks.
            state.ephemeridesS = t
        }
        stopTracking()
        state.powerState = .powerSaveIdle
        return f
    }

    private mutating func fix(
        at t: Double, truth: TruthSample, sinceFixS: Double, errorFactor: Double,
        knowsSatellites: Bool
    ) -> GNSSFix {
        let p = parameters
        // Gauss–Markov update, exact discretisation: x ← φx + √(1−φ²)·w, φ = exp(−Δt/τ).
        let dt = max(0, t - (state.errorTimeS ?? t))
        let phi = Double.exp(-dt / p.correlationTimeS)
        let drive = (1 - phi * phi).squareRoot()
        state.unitError =
            phi * state.unitError
            + drive * Vector3(state.random.gaussian(), state.random.gaussian(), state.random.gaussian())
        state.errorTimeS = t

        // Satellites: nominal ± 2 over a 15-minute cycle, climbing one per second from 3 after acquisition.
        let nominal =
            p.nominalSatellites
            + Int((2 * Double.sin(2 * Double.pi * (t / 900).truncatingRemainder(dividingBy: 1) + satellitePhaseRad)).rounded())
        let satellites = knowsSatellites ? max(3, nominal) : max(3, min(nominal, 3 + Int(sinceFixS.rounded(.down))))
        let mode: GNSSFixMode = satellites < 4 ? .twoDimensional : .threeDimensional
        // Geometry: error grows as satellites drop (≈ DOP ∝ 1/√n), plus the convergence after acquisition.
        let geometry = max(0.8, (8 / Double(satellites)).squareRoot())
        let convergence = 1 + errorFactor * Double.exp(-sinceFixS / p.convergenceTimeS)
        let sigmaHorizontal = p.horizontalSigmaM * geometry * convergence
        let sigmaVertical = p.verticalSigmaM * geometry * convergence * (mode == .twoDimensional ? 3 : 1)
        let multipath = multipathOffset(at: t, inCanyon: truth.gnssMultipath)
        let errorEast = sigmaHorizontal * state.unitError.x + multipath.x
        let errorNorth = sigmaHorizontal * state.unitError.y + multipath.y
        let errorUp = sigmaVertical * state.unitError.z + multipath.z

        let latitudeRad = Angle.radians(fromDegrees: truth.latitudeDeg)
        let meridian = Geodesy.meridianRadiusM(latitudeRad: latitudeRad) + truth.heightM
        let primeVertical =
            (Geodesy.primeVerticalRadiusM(latitudeRad: latitudeRad) + truth.heightM)
            * max(Double.cos(latitudeRad), 1e-9)
        let velocityEast = truth.velocityENUMps.x + p.speedSigmaMps * state.random.gaussian()
        let velocityNorth = truth.velocityENUMps.y + p.speedSigmaMps * state.random.gaussian()
        let speed = (velocityEast * velocityEast + velocityNorth * velocityNorth).squareRoot()
        let course: Double? =
            speed >= p.minimumCourseSpeedMps
            ? Angle.wrap360(Angle.degrees(fromRadians: Double.atan2(y: velocityEast, x: velocityNorth))) : nil
        return GNSSFix(
            timeS: t,
            latitudeDeg: truth.latitudeDeg + Angle.degrees(fromRadians: errorNorth / meridian),
            longitudeDeg: Angle.wrap180(truth.longitudeDeg + Angle.degrees(fromRadians: errorEast / primeVertical)),
            heightM: truth.heightM + errorUp, altitudeMSLM: truth.altitudeMSLM + errorUp,
            speedMps: speed, courseDeg: course,
            horizontalAccuracyM: sigmaHorizontal * 2.0.squareRoot(), verticalAccuracyM: sigmaVertical,
            speedAccuracyMps: p.speedSigmaMps, satellitesUsed: satellites, fixMode: mode,
            isMultipath: multipath != .zero)
    }

    /// The multipath displacement at `t` (ENU, m): zero outside urban canyons and between episodes. Draws
    /// random numbers only inside canyons, so other scenarios' fixes do not change.
    private mutating func multipathOffset(at t: Double, inCanyon: Bool) -> Vector3 {
        let p = parameters
        guard inCanyon else {
            state.multipathEndS = nil
            state.nextMultipathS = nil
            return .zero
        }
        if let end = state.multipathEndS, t < end { return state.multipathOffsetENUM }
        state.multipathEndS = nil
        func gap() -> Double { -p.multipathMeanIntervalS * Double.log(max(state.random.uniform(), 1e-12)) }
        guard let next = state.nextMultipathS else {
            state.nextMultipathS = t + gap()
            return .zero
        }
        guard t >= next else { return .zero }
        let duration = state.random.uniform(in: p.multipathDurationRangeS)
        let jump = state.random.uniform(in: p.multipathJumpRangeM)
        let direction = state.random.uniform(in: 0...(2 * Double.pi))
        let vertical = (state.random.uniform() < 0.5 ? -0.5 : 0.5) * jump
        state.multipathOffsetENUM = Vector3(jump * Double.sin(direction), jump * Double.cos(direction), vertical)
        state.multipathEndS = t + duration
        state.nextMultipathS = t + duration + gap()
        return state.multipathOffsetENUM
    }
}
