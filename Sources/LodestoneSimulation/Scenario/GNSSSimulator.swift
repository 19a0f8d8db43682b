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
    public init(timeS: Double, latitudeDeg: Double, longitudeDeg: Double, heightM: Double, altitudeMSLM: Double,
                speedMps: Double, courseDeg: Double?, horizontalAccuracyM: Double, verticalAccuracyM: Double,
                speedAccuracyMps: Double, satellitesUsed: Int, fixMode: GNSSFixMode, isMultipath: Bool = false) {
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
        var fix = ReceiverFix(timeS: timeS ?? self.timeS, mode: fixMode == .threeDimensional ? .threeDimensional : .twoDimensional)
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
        public init(fixPeriodS: Double = 1, horizontalSigmaM: Double = 1.5, verticalSigmaM: Double = 2.5,
                    correlationTimeS: Double = 60, speedSigmaMps: Double = 0.05, reacquisitionDelayS: Double = 2,
                    reacquisitionErrorFactor: Double = 4, convergenceTimeS: Double = 10, nominalSatellites: Int = 12,
                    minimumCourseSpeedMps: Double = 0.5, multipathMeanIntervalS: Double = 25,
                    multipathDurationRangeS: ClosedRange<Double> = 3...12,
                    multipathJumpRangeM: ClosedRange<Double> = 15...60) {
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
    }

    /// The tunables (sanitised at `init`: non-positive periods and times become the defaults).
    public let parameters: Parameters
    /// The state.
    public private(set) var state: State
    /// Phase of the slow change in satellite count, rad.
    let satellitePhaseRad: Double

    /// A receiver whose noise is fixed by `seed`.
    public init(seed: UInt64, parameters: Parameters = .default) {
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
        var random = SeededGenerator(seed: seed ^ 0x474E_5353)   // decorrelate from a trajectory on the same seed
        satellitePhaseRad = random.uniform(in: 0...(2 * Double.pi))
        state = State(random: random, unitError: .zero, errorTimeS: nil, nextEpochS: nil, acquiredAtS: nil)
    }

    /// The fix for the receiver epoch that `truth.timeS` has reached, or `nil` when there is none: between
    /// epochs (call it as often as you like; one fix per `fixPeriodS`), during an outage, and while
    /// reacquiring after one. Times should be non-decreasing.
    public mutating func fix(for truth: TruthSample) -> GNSSFix? {
        let t = truth.timeS
        guard t.isFinite else { return nil }
        let period = parameters.fixPeriodS
        if let next = state.nextEpochS, t < next - 1e-9 { return nil }
        state.nextEpochS = ((t / period + 1e-9).rounded(.down) + 1) * period

        if truth.gnssOutage {
            state.acquiredAtS = nil
            return nil
        }
        guard let acquired = state.acquiredAtS else {
            // Signal (back): a fresh error draw, first fix after the reacquisition delay.
            state.acquiredAtS = t
            state.unitError = Vector3(state.random.gaussian(), state.random.gaussian(), state.random.gaussian())
            state.errorTimeS = t
            return parameters.reacquisitionDelayS <= 0 ? fix(at: t, truth: truth, sinceFixS: 0) : nil
        }
        let since = t - acquired
        guard since >= parameters.reacquisitionDelayS - 1e-9 else { return nil }
        return fix(at: t, truth: truth, sinceFixS: since - parameters.reacquisitionDelayS)
    }

    private mutating func fix(at t: Double, truth: TruthSample, sinceFixS: Double) -> GNSSFix {
        let p = parameters
        // Gauss–Markov update, exact discretisation: x ← φx + √(1−φ²)·w, φ = exp(−Δt/τ).
        let dt = max(0, t - (state.errorTimeS ?? t))
        let phi = Double.exp(-dt / p.correlationTimeS)
        let drive = (1 - phi * phi).squareRoot()
        state.unitError = phi * state.unitError
            + drive * Vector3(state.random.gaussian(), state.random.gaussian(), state.random.gaussian())
        state.errorTimeS = t

        // Satellites: nominal ± 2 over a 15-minute cycle, climbing one per second from 3 after acquisition.
        let nominal = p.nominalSatellites
            + Int((2 * Double.sin(2 * Double.pi * (t / 900).truncatingRemainder(dividingBy: 1) + satellitePhaseRad)).rounded())
        let satellites = max(3, min(nominal, 3 + Int(sinceFixS.rounded(.down))))
        let mode: GNSSFixMode = satellites < 4 ? .twoDimensional : .threeDimensional
        // Geometry: error grows as satellites drop (≈ DOP ∝ 1/√n), plus the convergence after acquisition.
        let geometry = max(0.8, (8 / Double(satellites)).squareRoot())
        let convergence = 1 + p.reacquisitionErrorFactor * Double.exp(-sinceFixS / p.convergenceTimeS)
        let sigmaHorizontal = p.horizontalSigmaM * geometry * convergence
        let sigmaVertical = p.verticalSigmaM * geometry * convergence * (mode == .twoDimensional ? 3 : 1)
        let multipath = multipathOffset(at: t, inCanyon: truth.gnssMultipath)
        let errorEast = sigmaHorizontal * state.unitError.x + multipath.x
        let errorNorth = sigmaHorizontal * state.unitError.y + multipath.y
        let errorUp = sigmaVertical * state.unitError.z + multipath.z

        let latitudeRad = Angle.radians(fromDegrees: truth.latitudeDeg)
        let meridian = Geodesy.meridianRadiusM(latitudeRad: latitudeRad) + truth.heightM
        let primeVertical = (Geodesy.primeVerticalRadiusM(latitudeRad: latitudeRad) + truth.heightM)
            * max(Double.cos(latitudeRad), 1e-9)
        let velocityEast = truth.velocityENUMps.x + p.speedSigmaMps * state.random.gaussian()
        let velocityNorth = truth.velocityENUMps.y + p.speedSigmaMps * state.random.gaussian()
        let speed = (velocityEast * velocityEast + velocityNorth * velocityNorth).squareRoot()
        let course: Double? = speed >= p.minimumCourseSpeedMps
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
