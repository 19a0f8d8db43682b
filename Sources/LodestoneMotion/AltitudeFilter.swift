import LodestoneCore
import RealModule

/// Altitude from a barometer, an accelerometer and GNSS, like Core Motion's `CMAbsoluteAltitudeData` and
/// `CMAltitudeData` (relative altitude since start).
///
/// Two Kalman filters, kept apart so that GNSS noise never reaches the relative altitude:
/// 1. **Barometric track** (state: barometric altitude `H`, m, and its rate `v`, m/s): predicted with the
///    vertical acceleration (`VerticalAcceleration`, gravity removed) as a control input and white
///    acceleration noise of density `accelerationNoiseMps2PerRootHz`
///    (Q = q²·[[dt³/3, dt²/2], [dt²/2, dt]], Bar-Shalom, Li, Kirubarajan, *Estimation with Applications to
///    Tracking and Navigation*, 2001, §6.2.2), updated with each barometer reading converted by the ISA
///    (`StandardAtmosphere`). Relative altitude and vertical speed come from this track alone.
/// 2. **Barometer bias** `b` (m): the barometric altitude minus the true altitude above mean sea level, a
///    random walk (`biasRandomWalkMPerRootS`: weather and sensor drift), observed by GNSS altitude:
///    z = H − h_GNSS = b − e. The GNSS altitude's own error `e` is not white: it wanders over minutes (satellite
///    geometry, atmosphere, multipath), so a filter that took each fix as a new, independent measurement would
///    average hundreds of them into a bias it believes to a few decimetres while it is metres off. `e` is
///    therefore a state of its own, a first-order Gauss–Markov process (correlation time
///    `gnssVerticalCorrelationTimeS`, stationary 1σ the fix's stated vertical accuracy): colored measurement noise
///    by state augmentation (Gelb, *Applied Optimal Estimation*, 1974, §4.5; Bar-Shalom et al. 2001, §8.3). The
///    first fix teaches the bias to about the fix's accuracy; later fixes add to it only as the error decorrelates.
///    The fused altitude is H − b; its 1σ accuracy √(P_HH + P_bb). The QNH learned from GNSS is the sea-level
///    pressure that makes the current pressure read H − b.
///
/// Weather drift moves the barometric track (as it moves an iPhone's relative altitude) at a few mm/s at
/// most; the floor counter (`FloorCounter`) only counts climbs at walking-stair speeds, so drift is never a floor.
public struct AltitudeFilter: Sendable {
    /// What can be tuned. Rate-independent; each with its unit and default.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The local sea-level pressure (QNH), Pa, when known; `nil` (default) = unknown: barometric altitudes
        /// refer to the ISA's 101 325 Pa until GNSS altitude teaches the offset.
        public var seaLevelPressurePa: Double?
        /// 1σ noise of one barometer reading, Pa. Default 1.5 (BMP280 at full bandwidth: 1.3 Pa, datasheet
        /// BST-BMP280-DS001 §3.5; rounded up for air turbulence).
        public var pressureNoisePa = 1.5
        /// Density of the unmodelled vertical acceleration while an accelerometer drives the prediction,
        /// m/s²/√Hz. Default 0.35: gravity-removal errors of a carried board.
        public var accelerationNoiseMps2PerRootHz = 0.35
        /// The same while the board is at rest (the vertical acceleration's RMS over `restTimeConstantS` below
        /// `restAccelerationMps2`), m/s²/√Hz. Default 0.03: a board on a table does not climb.
        public var restAccelerationNoiseMps2PerRootHz = 0.03
        /// Rest detection: RMS vertical acceleration (m/s²) and its averaging time (s). Defaults 0.1 and 1.
        public var restAccelerationMps2 = 0.1
        public var restTimeConstantS = 1.0
        /// The same without an accelerometer (the acceleration is then unknown, taken as zero), m/s²/√Hz.
        /// Default 1.0: a lift's 1 m/s² start is followed with a lag of about 1 s.
        public var unmeasuredAccelerationMps2PerRootHz = 1.0
        /// Random walk of the barometer bias (weather fronts, sensor drift), m/√s. Default 0.03 (1.8 m in an
        /// hour as a 1σ random walk; a storm front's 6 hPa/h, 50 m/h, is then followed with a lag of metres).
        public var biasRandomWalkMPerRootS = 0.03
        /// 1σ of the bias before any GNSS altitude, m, without a known QNH. Default 300 (weather spans
        /// ±35 hPa around the standard atmosphere).
        public var initialBiasSigmaUnknownQNHM = 300.0
        /// 1σ of the bias before any GNSS altitude when the QNH is given, m. Default 5 (a QNH is rounded to
        /// 1 hPa and a few hours old; sensor offset ±0.5 hPa).
        public var initialBiasSigmaKnownQNHM = 5.0
        /// 1σ of a GNSS altitude when the fix states no vertical accuracy, m. Default 10.
        public var defaultGNSSVerticalAccuracyM = 10.0
        /// GNSS altitudes with a stated 1σ above this are ignored, m. Default 50.
        public var maximumGNSSVerticalAccuracyM = 50.0
        /// Correlation time of a GNSS altitude's error, s. Default 120: single-frequency receivers' position errors
        /// decorrelate over one to several minutes (D. L. Wilson's long-term receiver tests: the autocorrelation
        /// bends near one minute and keeps a longer tail; Sensors 2020, 20, 6050: an Ornstein–Uhlenbeck process
        /// fits stationary L1 receivers better than white noise). The longer choice keeps the stated accuracy on
        /// the safe side. 0 takes every fix as independent (white noise).
        public var gnssVerticalCorrelationTimeS = 120.0
        /// The share of a fix's stated vertical 1σ that is independent from fix to fix (receiver noise), 0…1.
        /// Default 0.1.
        public var gnssVerticalWhiteFraction = 0.1
        /// A barometer reading whose altitude is further from the track's prediction than this many σ of the
        /// innovation, and at least `pressureGateMinimumM`, is not physics (a stuck register, a torn read): it is
        /// left out. Defaults 8 and 5 m (a door slam moves a few pascals; a lift is followed by the accelerometer).
        public var pressureGateSigma = 8.0
        public var pressureGateMinimumM = 5.0
        /// Readings left out for this long in a row are a new level after all (the track restarts there, the
        /// relative altitude does not jump, and the bias's variance grows by the step²: which level was right is
        /// unknown until GNSS says), s. Default 2.
        public var pressureStepAcceptS = 2.0
        /// A step that brings the track back, within `pressureGateMinimumM`, to the level the last step left no longer
        /// than this ago (s) returns to that level's bias as it was then, its variance grown by the random walk, instead
        /// of adding the step² again: a register stuck for tens of seconds, a sensor's glitch, a level that was never
        /// real. Without it, every such excursion left the absolute altitude's stated accuracy at the size of the
        /// excursion until GNSS taught the bias again (a 24-hour fault soak's median stated altitude accuracy: 5.1 km).
        /// Default 600.
        public var levelMemoryS = 600.0
        /// Inertial samples further apart than this (s) do not carry the acceleration across the gap. Default 0.5.
        public var maximumAccelerationHoldS = 0.5
        /// Relative altitude starts once the barometric track has this much barometer time behind it, s;
        /// its reference is the track then. Default 1.
        public var relativeAltitudeSettleS = 1.0

        /// The defaults.
        public init() {}
    }

    /// Everything `process` changes. Equatable and Codable: a run can be snapshotted and restored.
    public struct State: Sendable, Hashable, Codable {
        /// Barometric altitude H (m, ISA over the reference pressure) and its rate v (m/s); `nil` before the
        /// first barometer reading.
        public var barometricAltitudeM: Double?
        public var verticalSpeedMps = 0.0
        /// Covariance of (H, v): m², m²/s, m²/s².
        public var covarianceHH = 0.0, covarianceHV = 0.0, covarianceVV = 0.0
        /// Barometer bias b (m) and its variance (m²).
        public var biasM = 0.0
        public var biasVarianceM2 = 0.0
        /// The GNSS altitude's correlated error e (m, GNSS minus true), its variance (m²), its covariance with the
        /// bias (m²), the stationary 1σ it was last given (m) and the time of the last GNSS altitude (s).
        public var gnssErrorM = 0.0
        public var gnssErrorVarianceM2 = 0.0
        public var biasGNSSErrorCovarianceM2 = 0.0
        public var gnssErrorSigmaM = 0.0
        public var gnssTimeS: Double?
        /// Time the track was last propagated to, s.
        public var timeS: Double?
        /// Latest vertical acceleration (m/s², + up) and its time, s.
        public var accelerationMps2 = 0.0
        /// Mean square of the vertical acceleration over the last second or so, (m/s²)².
        public var accelerationMeanSquare = 1.0
        public var accelerationTimeS: Double?
        /// Time of the first barometer reading, s.
        public var firstBarometerTimeS: Double?
        /// The track's value when relative altitude started, m.
        public var referenceAltitudeM: Double?
        /// Latest pressure, Pa.
        public var pressurePa: Double?
        /// Number of GNSS altitudes used.
        public var gnssUpdates = 0
        /// Barometer readings left out by the gate, the time the current run of them began (s), and the steps
        /// accepted after such a run.
        public var rejectedPressureReadings = 0
        public var pressureRejectedSinceS: Double?
        public var pressureSteps = 0
        /// The level the last accepted step left, and the bias as it was there (`levelMemoryS`).
        public var levelBeforeStep: LevelBeforeStep?
        /// Gravity removal for the acceleration input.
        public var vertical = VerticalAcceleration()
    }

    /// The track's level before an accepted step (barometric altitude, m) and the bias there: its value (m) and
    /// variance (m²), at the time of the step (s).
    public struct LevelBeforeStep: Sendable, Hashable, Codable {
        public var altitudeM: Double
        public var biasM: Double
        public var biasVarianceM2: Double
        public var timeS: Double
    }

    /// What one call changed.
    public struct Changes: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: UInt8
        /// Changes from bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// A barometer reading updated altitude, vertical speed and relative altitude.
        public static let altitude = Changes(rawValue: 1 << 0)
        /// A GNSS altitude updated the bias (and so the absolute altitude and the learned QNH).
        public static let bias = Changes(rawValue: 1 << 1)
        /// An accelerometer sample moved the prediction.
        public static let acceleration = Changes(rawValue: 1 << 2)
    }

    /// The settings.
    public let parameters: Parameters
    /// The reference pressure of barometric altitudes: the given QNH or the ISA's 101 325 Pa.
    public let referencePressurePa: Double
    /// Everything the inputs changed so far.
    public private(set) var state = State()

    /// A filter with `parameters`.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        let qnh = parameters.seaLevelPressurePa.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        referencePressurePa = qnh ?? PhysicalConstants.seaLevelPressurePa
        let sigma = qnh == nil ? parameters.initialBiasSigmaUnknownQNHM : parameters.initialBiasSigmaKnownQNHM
        state.biasVarianceM2 = sigma * sigma
    }

    /// Restores a snapshot.
    public mutating func restore(_ s: State) { state = s }

    // MARK: - Inputs

    /// An accelerometer sample: specific force in board axes (m/s²), with the orientation when known.
    @discardableResult
    public mutating func addAcceleration(specificForceBoardMps2 f: Vector3, boardToENU: Quaternion?, timeS: Double) -> Changes {
        guard f.x.isFinite, f.y.isFinite, f.z.isFinite, timeS.isFinite else { return [] }
        let a = state.vertical.update(specificForceBoardMps2: f, boardToENU: boardToENU, timeS: timeS)
        propagate(to: timeS)
        if let last = state.accelerationTimeS, timeS > last {
            let k = min(1, (timeS - last) / parameters.restTimeConstantS)
            state.accelerationMeanSquare += k * (a * a - state.accelerationMeanSquare)
        }
        state.accelerationMps2 = a
        state.accelerationTimeS = timeS
        return .acceleration
    }

    /// A barometer reading, Pa.
    @discardableResult
    public mutating func addPressure(_ pressurePa: Double, timeS: Double) -> Changes {
        guard pressurePa.isFinite, pressurePa > 0, timeS.isFinite else { return [] }
        let z = StandardAtmosphere.altitudeM(pressurePa: pressurePa, seaLevelPressurePa: referencePressurePa)
        let dhdp = StandardAtmosphere.metresPerPascal(pressurePa: pressurePa, seaLevelPressurePa: referencePressurePa)
        let r = (parameters.pressureNoisePa * dhdp) * (parameters.pressureNoisePa * dhdp)
        guard let h = state.barometricAltitudeM else {
            startTrack(altitudeM: z, varianceM2: r, pressurePa: pressurePa)
            state.timeS = timeS
            state.firstBarometerTimeS = timeS
            settleReference(timeS: timeS)
            return .altitude
        }
        propagate(to: timeS)
        // Scalar update with H = [1 0].
        let s = state.covarianceHH + r
        let kH = state.covarianceHH / s, kV = state.covarianceHV / s
        let innovation = z - h
        if abs(innovation) > max(parameters.pressureGateSigma * s.squareRoot(), parameters.pressureGateMinimumM) {
            let since = state.pressureRejectedSinceS ?? timeS
            state.pressureRejectedSinceS = since
            guard timeS - since >= parameters.pressureStepAcceptS else {
                state.rejectedPressureReadings += 1
                return []
            }
            // A new level: restart the track there.
            let left = state.barometricAltitudeM ?? h
            let step = z - left
            startTrack(altitudeM: z, varianceM2: r, pressurePa: pressurePa)
            state.referenceAltitudeM = state.referenceAltitudeM.map { $0 + step }
            if let back = state.levelBeforeStep, timeS - back.timeS <= parameters.levelMemoryS,
                abs(z - back.altitudeM) <= parameters.pressureGateMinimumM
            {
                // Back where the last step left: the bias as it was there, less sure by the time since.
                let walk = parameters.biasRandomWalkMPerRootS
                state.biasM = back.biasM
                state.biasVarianceM2 = back.biasVarianceM2 + walk * walk * max(0, timeS - back.timeS)
                state.biasGNSSErrorCovarianceM2 = 0
                state.levelBeforeStep = nil
            } else {
                state.levelBeforeStep = LevelBeforeStep(
                    altitudeM: left, biasM: state.biasM, biasVarianceM2: state.biasVarianceM2, timeS: timeS)
                state.biasVarianceM2 += step * step
                state.biasGNSSErrorCovarianceM2 = 0
            }
            state.pressureRejectedSinceS = nil
            state.pressureSteps += 1
            return .altitude
        }
        state.pressureRejectedSinceS = nil
        state.pressurePa = pressurePa
        state.barometricAltitudeM = h + kH * innovation
        state.verticalSpeedMps += kV * innovation
        let pHH = state.covarianceHH, pHV = state.covarianceHV
        state.covarianceHH = (1 - kH) * pHH
        state.covarianceHV = (1 - kH) * pHV
        state.covarianceVV -= kV * pHV
        settleReference(timeS: timeS)
        return .altitude
    }

    /// A GNSS altitude above mean sea level (m) with its 1σ (m; `nil` = not stated).
    @discardableResult
    public mutating func addGNSSAltitude(_ altitudeM: Double, accuracyM: Double?, timeS: Double) -> Changes {
        guard altitudeM.isFinite, let h = state.barometricAltitudeM else { return [] }
        let sigma = accuracyM.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? parameters.defaultGNSSVerticalAccuracyM
        guard sigma <= parameters.maximumGNSSVerticalAccuracyM else { return [] }
        propagate(to: timeS)
        let white = min(1, max(0, parameters.gnssVerticalWhiteFraction)) * sigma
        let correlatedVariance = max(0, sigma * sigma - white * white)
        propagateGNSSError(to: timeS, stationaryVarianceM2: correlatedVariance)
        // z = H − h_GNSS = b − e, h = [1, −1]; R: the fix's white part and the barometric track's own uncertainty.
        let pBB = state.biasVarianceM2, pBE = state.biasGNSSErrorCovarianceM2, pEE = state.gnssErrorVarianceM2
        let s = pBB - 2 * pBE + pEE + white * white + max(0, state.covarianceHH)
        guard s > 0 else { return [] }
        let innovation = (h - altitudeM) - (state.biasM - state.gnssErrorM)
        let kB = (pBB - pBE) / s, kE = (pBE - pEE) / s
        state.biasM += kB * innovation
        state.gnssErrorM += kE * innovation
        state.biasVarianceM2 = max(0, pBB - kB * (pBB - pBE))
        state.biasGNSSErrorCovarianceM2 = pBE - kB * (pBE - pEE)
        state.gnssErrorVarianceM2 = max(0, pEE - kE * (pBE - pEE))
        state.gnssUpdates += 1
        return .bias
    }

    // MARK: - Outputs
    // `@inlinable`: `replay` reads them once a row from another module, and a plain getter copied the filter first.

    /// Latest static pressure, Pa.
    @inlinable public var pressurePa: Double? { state.pressurePa }
    /// Altitude above mean sea level, m: the barometric track minus the bias. Before any GNSS altitude it is
    /// the barometric altitude over the given QNH (or over 101 325 Pa: pressure altitude).
    @inlinable public var altitudeM: Double? { state.barometricAltitudeM.map { $0 - state.biasM } }
    /// 1σ of `altitudeM`, m.
    @inlinable public var altitudeAccuracyM: Double? {
        state.barometricAltitudeM == nil ? nil : (max(0, state.covarianceHH) + state.biasVarianceM2).squareRoot()
    }
    /// Altitude change since the relative altitude started (`relativeAltitudeSettleS` after the first barometer
    /// reading), m, + up. Barometer and accelerometer only: GNSS never moves it.
    @inlinable public var relativeAltitudeM: Double? {
        guard let h = state.barometricAltitudeM, let r = state.referenceAltitudeM else { return nil }
        return h - r
    }
    /// Vertical speed, m/s, + up.
    @inlinable public var verticalSpeedMps: Double? { state.barometricAltitudeM == nil ? nil : state.verticalSpeedMps }
    /// 1σ of the vertical speed, m/s.
    public var verticalSpeedAccuracyMps: Double? {
        state.barometricAltitudeM == nil ? nil : max(0, state.covarianceVV).squareRoot()
    }
    /// Barometer bias, m: barometric altitude minus altitude above mean sea level.
    public var barometerBiasM: Double { state.biasM }
    /// 1σ of the bias, m.
    public var barometerBiasAccuracyM: Double { state.biasVarianceM2.squareRoot() }
    /// The sea-level pressure (QNH) that makes the latest pressure read the fused altitude, Pa: the given QNH
    /// corrected by what GNSS taught. `nil` before a barometer reading.
    public var seaLevelPressurePa: Double? {
        guard let p = state.pressurePa, let h = altitudeM else { return nil }
        return StandardAtmosphere.seaLevelPressurePa(pressurePa: p, altitudeM: h)
    }
    /// True while the accelerometer says the board is at rest (no vertical acceleration).
    public var isAtRest: Bool {
        state.accelerationTimeS != nil
            && state.accelerationMeanSquare < parameters.restAccelerationMps2 * parameters.restAccelerationMps2
    }
    /// The barometric track H (m, ISA over the reference pressure), `nil` before the first reading.
    public var barometricAltitudeM: Double? { state.barometricAltitudeM }

    // MARK: - Propagation

    private mutating func settleReference(timeS: Double) {
        if state.referenceAltitudeM == nil, let t0 = state.firstBarometerTimeS,
            timeS - t0 >= parameters.relativeAltitudeSettleS
        {
            state.referenceAltitudeM = state.barometricAltitudeM
        }
    }

    /// Starts the barometric track at `altitudeM` (m) with variance `varianceM2` (m²), at rest as far as it knows.
    private mutating func startTrack(altitudeM: Double, varianceM2: Double, pressurePa: Double) {
        state.pressurePa = pressurePa
        state.barometricAltitudeM = altitudeM
        state.verticalSpeedMps = 0
        state.covarianceHH = varianceM2
        state.covarianceHV = 0
        state.covarianceVV = 1
    }

    /// Propagates the GNSS altitude's correlated error to `timeS`, a fix whose correlated part has stationary
    /// variance `stationaryVarianceM2`: e ← φe, P_ee ← φ²P_ee + (1 − φ²)σ², P_be ← φP_be, φ = exp(−Δt/τ). A fix
    /// stating a larger error than the last (fewer satellites, 2D) brings the difference as a new, independent part.
    private mutating func propagateGNSSError(to timeS: Double, stationaryVarianceM2 v: Double) {
        let tau = parameters.gnssVerticalCorrelationTimeS
        let phi: Double
        if let t = state.gnssTimeS, tau > 0, tau.isFinite {
            phi = Double.exp(-max(0, timeS - t) / tau)
        } else {
            phi = 0 // the first fix, or white errors: nothing carries over
        }
        let previous = state.gnssErrorSigmaM * state.gnssErrorSigmaM
        state.gnssErrorM *= phi
        state.biasGNSSErrorCovarianceM2 *= phi
        state.gnssErrorVarianceM2 = phi * phi * state.gnssErrorVarianceM2 + (1 - phi * phi) * v + phi * phi * max(0, v - previous)
        state.gnssErrorSigmaM = v.squareRoot()
        state.gnssTimeS = timeS
    }

    /// Propagates the barometric track and the bias to `timeS` (never backwards).
    private mutating func propagate(to timeS: Double) {
        guard let t = state.timeS else { state.timeS = timeS; return }
        let dt = timeS - t
        guard dt > 0 else { return }
        state.timeS = timeS
        state.biasVarianceM2 += parameters.biasRandomWalkMPerRootS * parameters.biasRandomWalkMPerRootS * dt
        guard let h = state.barometricAltitudeM else { return }
        var a = 0.0
        var q = parameters.unmeasuredAccelerationMps2PerRootHz
        if let ta = state.accelerationTimeS, timeS - ta <= parameters.maximumAccelerationHoldS {
            a = state.accelerationMps2
            q = isAtRest ? parameters.restAccelerationNoiseMps2PerRootHz : parameters.accelerationNoiseMps2PerRootHz
        }
        state.barometricAltitudeM = h + state.verticalSpeedMps * dt + 0.5 * a * dt * dt
        state.verticalSpeedMps += a * dt
        // P ← F P Fᵀ + Q, F = [[1, dt], [0, 1]].
        let pHH = state.covarianceHH, pHV = state.covarianceHV, pVV = state.covarianceVV
        let q2 = q * q
        state.covarianceHH = pHH + 2 * dt * pHV + dt * dt * pVV + q2 * dt * dt * dt / 3
        state.covarianceHV = pHV + dt * pVV + q2 * dt * dt / 2
        state.covarianceVV = pVV + q2 * dt
    }
}
