import LodestoneCore
import RealModule

/// The orientation filter: gyroscope, accelerometer and (optionally) magnetometer in, the board's orientation
/// in East-North-Up out, with the gyroscope bias, rest, magnetic disturbance and an honest heading accuracy.
///
/// Structure (Laidig & Seel 2023, VQF, §3): the bias-corrected gyroscope is integrated into `qGyroscope`
/// (board → an almost-inertial frame I). The accelerometer, rotated into I, is low-passed there (linear
/// accelerations average out in an inertial frame, gravity does not), and `qInclination` (I → E₆) turns the
/// low-passed vector to vertical: the 6D orientation is `qInclination ⊗ qGyroscope`. The magnetometer, rotated
/// into E₆, gives the heading offset δ between E₆ and East-North-Up; the 9D orientation is `R_z(δ) ⊗ q₆`.
/// The gyroscope bias is a small Kalman filter fed at rest by the low-passed gyroscope and in motion by the
/// accelerometer's corrections. Lodestone's additions: the heading offset is a scalar Kalman filter whose
/// variance (`HeadingUncertainty`) both sets the magnetometer's gain and becomes the reported accuracy; a
/// tracker for fields fixed to the board (`BoardFixedFieldTracker`) lets the filter use a magnetometer with a
/// magnet attached; repeated (sample-and-hold) magnetometer samples are not counted twice.
///
/// Frames: board x right, y forward, z up; earth East-North-Up; quaternions Hamilton, scalar first, rotating
/// board-frame vectors into ENU. Sensors: specific force in m/s² (+9.81 up at rest), rate in rad/s, field in
/// µT, each in board axes; each sample carries its own time (s), so sensors may run at different and varying
/// rates. `update` allocates nothing.
public struct OrientationFilter: Sendable {
    /// The tunables.
    public let parameters: Parameters
    /// What is derived from the parameters and the measured sample intervals.
    public private(set) var coefficients: Coefficients
    /// Everything `update` changes: snapshot it (it is `Codable`), compare it, `restore(_:)` it.
    public internal(set) var state: State

    /// A filter that has seen no sample yet.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        coefficients = Coefficients(parameters: parameters)
        state = State(parameters: parameters)
    }

    /// Continues from a saved state (of a filter with the same parameters): the coefficients are rebuilt for the
    /// sample intervals the state records, so the run goes on exactly as it would have.
    public mutating func restore(_ saved: State) {
        state = saved
        coefficients = Coefficients(parameters: parameters, intervals: saved.intervals)
    }

    // MARK: Outputs

    // The accessors below that only read `state` are `@inlinable`: called from another module (the fusion stages, once
    // a sample), a getter of this 3 KB value took a copy of it first; inlined, it reads the fields in place.

    /// The orientation using the magnetometer (9D) when it has one and has initialised the heading, else the 6D
    /// orientation; `nil` before the first accelerometer sample (inclination unknown).
    @inlinable public var boardToENU: Quaternion? {
        guard state.hasInclination else { return nil }
        return state.hasHeading ? boardToENU9D : boardToENU6D
    }

    /// The 6D orientation (gyroscope and accelerometer): inclination is absolute, heading is relative to where
    /// the board pointed at start and drifts with the residual vertical gyroscope bias.
    @inlinable public var boardToENU6D: Quaternion { state.qInclination * state.qGyroscope }

    /// The 9D orientation: the 6D one turned about the vertical by the magnetometer's heading offset.
    @inlinable public var boardToENU9D: Quaternion { headingRotation * boardToENU6D }

    /// The magnetometer's heading offset as a rotation about the vertical: the 6D frame into East-North-Up.
    @inlinable var headingRotation: Quaternion {
        let half = state.headingOffsetRad / 2
        return Quaternion(w: Double.cos(half), x: 0, y: 0, z: Double.sin(half))
    }

    /// Estimated gyroscope bias, board frame, rad/s (subtract it from the raw rate).
    @inlinable public var gyroscopeBiasRadS: Vector3 { state.gyroscopeBiasRadS }
    /// Standard deviation of the bias estimate per board axis, rad/s.
    public var gyroscopeBiasSigmaRadS: Vector3 {
        let d = state.biasCovariance.diagonalEntries
        return Vector3(d.x.squareRoot(), d.y.squareRoot(), d.z.squareRoot())
    }
    /// True while the board is at rest (VQF §3.4): neither sensor varies in the short term, the low-passed
    /// accelerometer has not moved since the board became still, and the low-passed rate is one the bias explains
    /// (`biasLimitDegS` before the first rest, `restBiasDeviationDegS` after it; `restRelearnTimeS`).
    @inlinable public var isAtRest: Bool { state.isAtRest }
    /// True while the magnetometer is judged disturbed and is not used (or used with less weight).
    @inlinable public var isMagneticallyDisturbed: Bool { state.magnetic.isDisturbed }
    /// The magnetometer reading as fusion used it last: board frame, µT, with any board-fixed offset the filter
    /// found removed (`CLHeading.x/y/z`); `nil` before the first magnetometer sample.
    @inline(__always) public var magneticFieldMicroTesla: Vector3? { state.magnetic.lastCorrectedMicroTesla }
    /// The board-fixed field offset removed from the magnetometer, board frame, µT (zero unless a magnet or
    /// similar was found attached after calibration).
    public var boardFixedFieldMicroTesla: Vector3 { state.magnetic.offsetInUseMicroTesla }

    /// The tracker's current estimate of a board-fixed field offset (board frame, µT), the standard deviation of
    /// its worst-determined direction (µT) and the RMS residual of its equations (µT: about the noise when the
    /// disturbance is really fixed to the board); `nil` until the board has turned enough to determine it.
    public var boardFixedFieldEstimate: (offsetMicroTesla: Vector3, worstSigmaMicroTesla: Double, residualRMSMicroTesla: Double)?
    {
        state.magnetic.tracker.estimate
    }

    // What `heading(magneticHeadingDeg:timeS:declinationDeg:)` reads (this accuracy and its terms, the field, the
    // calibration signal) is `@inline(__always)`: called from that mutating method, each getter took a copy of the
    // whole filter first (3 KB a sample).

    /// Standard deviation of the heading (rotation about the vertical), degrees; `nil` when the heading is not
    /// absolute (no magnetometer yet, or 6D).
    @inline(__always) public var headingSigmaDeg: Double? {
        guard state.hasHeading else { return nil }
        let variance =
            state.heading.variance + coefficients.headingFloorVarianceRad2
            + parameters.headingDisagreementWeight * state.magnetic.disagreementVarianceRad2
            + state.magnetic.offsetHeadingVarianceRad2 + state.magnetic.suspectedOffsetHeadingVarianceRad2
            + tiltHeadingVarianceRad2 + unmeasuredOffsetHeadingVarianceRad2 + expectedFieldHeadingVarianceRad2
        return Angle.degrees(fromRadians: variance.squareRoot())
    }

    /// Sets the field the board should measure where it is: `normMicroTesla` (the calibration's field strength, or
    /// the World Magnetic Model's intensity at the board's position) and `dipDeg` (the model's inclination, positive
    /// down; `nil` when only the strength is known). `nil` norm: nothing is expected (the default). The filter does
    /// not steer by it; the reported heading accuracy widens when the measured field disagrees with it
    /// (`expectedFieldHeadingVarianceRad2`).
    public mutating func setExpectedField(normMicroTesla: Double?, dipDeg: Double?) {
        guard let norm = normMicroTesla, norm.isFinite, norm > 0 else {
            state.magnetic.expectedNormMicroTesla = nil
            state.magnetic.expectedDipRad = nil
            return
        }
        state.magnetic.expectedNormMicroTesla = norm
        state.magnetic.expectedDipRad = dipDeg.flatMap { $0.isFinite ? Angle.radians(fromDegrees: $0) : nil }
    }

    /// The heading variance a disagreement between the measured and the expected field may cause, rad².
    ///
    /// A field that differs from the expected one by δ (its norm and, when the expected dip is known, its dip: the
    /// two components of δ in the vertical plane of the field that a magnetometer can tell) has been disturbed by
    /// something the filter cannot see: a magnet or steel fixed to the board that it has not turned enough to
    /// show (BROAD trial 27: a phone on the board, the field 1.8 µT stronger, the heading 6° off), or steel
    /// nearby. Only the disturbance's component along magnetic east turns the heading, and that one changes
    /// neither norm nor dip: nothing measures it. Taking the disturbance as equally likely in every direction,
    /// each component's spread is the observed δ over √(components observed); the variance is atan(that /
    /// horizontal field)². Differences within `expectedFieldToleranceFraction` of the norm count as none. 0 when
    /// nothing is expected.
    @inline(__always) var expectedFieldHeadingVarianceRad2: Double {
        guard let norm = state.magnetic.expectedNormMicroTesla, let measured = state.magnetic.slowNormDip else { return 0 }
        let normDifference = measured[0] - norm
        var observed = normDifference * normDifference, components = 1.0
        if let dip = state.magnetic.expectedDipRad {
            let dipDifference = norm * (measured[1] - dip)
            observed += dipDifference * dipDifference
            components = 2
        }
        let excess = observed.squareRoot() - parameters.expectedFieldToleranceFraction * norm
        guard excess > 0 else { return 0 }
        let horizontal = MagneticState.horizontalMicroTesla(norm: norm, dipRad: state.magnetic.expectedDipRad ?? measured[1])
        let angle = Double.atan(excess / components.squareRoot() / horizontal)
        return angle * angle
    }

    /// The heading variance a board-fixed magnetic offset of `magnetometerOffsetSigmaMicroTesla` may cause while
    /// nothing has measured it, rad²: atan(σ⊥ / horizontal field)², σ⊥ the offset's spread along magnetic east in
    /// the board's axes (an offset along east turns the horizontal field; along north or up it does not, to first
    /// order), the horizontal field at least a tenth of the field (near the magnetic poles). σ⊥ starts at the prior
    /// and shrinks, with the offset seen folded in, as the board turns about axes that show it
    /// (`BoardFixedFieldTracker.posterior`). 0 once the filter removes an offset of its own or suspects one (those
    /// carry their own variance).
    @inline(__always) var unmeasuredOffsetHeadingVarianceRad2: Double {
        let sigma = parameters.magnetometerOffsetSigmaMicroTesla
        guard sigma > 0, state.magnetic.offsetInUseMicroTesla == .zero, state.magnetic.suspectedOffsetHeadingVarianceRad2 == 0
        else { return 0 }
        // The reference field once there is one; before, the field as measured so far.
        let measured = state.magnetic.normDipLowPass
        guard
            let (norm, dip) = state.magnetic.referenceNormMicroTesla.map({ ($0, state.magnetic.referenceDipRad) })
                ?? (measured.hasOutput ? (measured.output[0], measured.output[1]) : nil), norm > 0
        else { return 0 }
        var perpendicularVariance = sigma * sigma
        if let q = boardToENU, let posterior = state.magnetic.tracker.posterior(priorSigmaMicroTesla: sigma) {
            let east = q.conjugate.rotate(Vector3(1, 0, 0))
            let seen = east.dot(posterior.meanMicroTesla)
            perpendicularVariance = east.dot(posterior.covarianceMicroTesla2 * east) + seen * seen
        }
        let horizontal = MagneticState.horizontalMicroTesla(norm: norm, dipRad: dip)
        let angle = Double.atan(perpendicularVariance.squareRoot() / horizontal)
        return angle * angle
    }

    /// The heading variance an accelerometer offset of `accelerometerOffsetSigmaMps2` causes, rad²: the tilt about
    /// the horizontal axis along the field (σ/g rad) turns the field's vertical part into the horizontal, so the
    /// heading is off by that tilt times tan(dip). The dip is the reference field's, capped at 80° (tan 5.7) near
    /// the magnetic poles, where a compass is worth little anyway.
    @inline(__always) var tiltHeadingVarianceRad2: Double {
        let sigma = parameters.accelerometerOffsetSigmaMps2
        guard sigma > 0 else { return 0 }
        let tiltRad = sigma / PhysicalConstants.standardGravityMps2
        let slope = Double.tan(min(abs(state.magnetic.referenceDipRad), Self.tiltHeadingDipCapRad))
        return tiltRad * tiltRad * slope * slope
    }

    /// The dip beyond which `tiltHeadingVarianceRad2` grows no more: 80°.
    static let tiltHeadingDipCapRad = 80 * Double.pi / 180

    /// The reported heading accuracy, degrees: `headingSigmaDeg` times the coverage factor (so that the true
    /// error is inside it ~90 % of the time); `nil` when the heading is not absolute.
    @inline(__always) public var headingAccuracyDeg: Double? {
        headingSigmaDeg.map { $0 * parameters.headingAccuracyCoverageFactor }
    }

    /// How far the 6D heading may have drifted since start, degrees (1σ): the vertical bias uncertainty and the
    /// gyroscope's random walk integrated over time. This is what a magnetometer-free heading is worth.
    public var relativeHeadingDriftSigmaDeg: Double {
        Angle.degrees(fromRadians: state.heading6D.variance.squareRoot())
    }

    /// True when the magnetometer needs (re)calibrating — what Core Location signals with
    /// `locationManagerShouldDisplayHeadingCalibration`: the filter found a field fixed to the board and is
    /// removing it itself (a magnet or a device attached after calibration), or the board has turned enough to
    /// show a consistent board-fixed offset larger than `calibrationOffsetFraction` of the field and five times
    /// its own uncertainty (an uncalibrated or stale calibration: the heading is then off by up to
    /// atan(offset / horizontal field), and the reported accuracy says so), or the field has stayed disturbed
    /// beyond `magneticMaximumRejectionTimeS`.
    @inline(__always) public var needsMagnetometerCalibration: Bool {
        guard state.hasHeading else { return false }
        return state.magnetic.offsetInUseMicroTesla != .zero || state.magnetic.suspectedOffsetHeadingVarianceRad2 > 0
            || (state.magnetic.isDisturbed && state.magnetic.rejectionDurationS > parameters.magneticMaximumRejectionTimeS)
    }

    /// Board-fixed offset, as a fraction of the field's norm, beyond which calibration is asked for: 0.1.
    public static let calibrationOffsetFraction = 0.1
    /// How often the tracker's estimate is checked for an uncalibrated offset, s: 0.5.
    public static let calibrationCheckIntervalS = 0.5

    /// The heading now, `CLHeading`-style, at `timeS`, with `declinationDeg` (east; `nil` when unknown) for the
    /// true heading; `nil` before the filter has an orientation.
    ///
    /// `mutating` though it changes nothing, for the reason `FusionStage.appendCells` is: non-mutating, each call (one
    /// a sample in the orientation stage) copied the filter's 3 KB first.
    public mutating func heading(timeS: Double, declinationDeg: Double?) -> Heading? {
        guard let q = boardToENU else { return nil }
        return heading(magneticHeadingDeg: q.rollPitchHeadingDeg.headingDeg, timeS: timeS, declinationDeg: declinationDeg)
    }

    /// `heading(timeS:declinationDeg:)` for a caller that has read the orientation already: `magneticHeadingDeg` is
    /// `boardToENU.rollPitchHeadingDeg.headingDeg` now (the orientation stage reads it once a sample for its row too).
    public mutating func heading(magneticHeadingDeg magnetic: Double, timeS: Double, declinationDeg: Double?) -> Heading {
        let hasMagnetometer = state.hasHeading
        return Heading(
            timeS: timeS, magneticHeadingDeg: magnetic,
            trueHeadingDeg: hasMagnetometer ? declinationDeg.map { Angle.wrap360(magnetic + $0) } : nil,
            declinationDeg: declinationDeg, headingAccuracyDeg: headingAccuracyDeg ?? -1,
            magneticFieldMicroTesla: magneticFieldMicroTesla, calibrationNeeded: needsMagnetometerCalibration)
    }

    // MARK: Update

    /// Feeds one instant: any of the three sensors (board frame, SI), taken at `timeS` (s, on one clock,
    /// non-decreasing). Gyroscope first, then accelerometer, then magnetometer, as they act in that order.
    /// Pass `nil` for a sensor not sampled at this instant. Non-finite values are ignored (and reported).
    /// `carrierAccelerationMps2`: the carrier's own acceleration, in the filter's East-North-Up (magnetic north once
    /// the heading is absolute), m/s², known from elsewhere (a vehicle's fused velocity); see `updateAccelerometer`.
    @discardableResult
    public mutating func update(
        timeS: Double, gyroscopeRadS: Vector3?, accelerometerMps2: Vector3?,
        magnetometerMicroTesla: Vector3? = nil, carrierAccelerationMps2: Vector3 = .zero
    ) -> Update {
        var changes: Update = []
        if let g = gyroscopeRadS { changes.formUnion(updateGyroscope(g, timeS: timeS)) }
        if let a = accelerometerMps2 {
            changes.formUnion(updateAccelerometer(a, timeS: timeS, carrierAccelerationMps2: carrierAccelerationMps2))
        }
        if let m = magnetometerMicroTesla { changes.formUnion(updateMagnetometer(m, timeS: timeS)) }
        return changes
    }

    /// Interval since the previous sample of a stream: 0 for its first sample or when time stands still or runs
    /// backwards (that sample is then used without integrating anything).
    private static func interval(from last: Double?, to timeS: Double) -> Double {
        guard let last else { return 0 }
        let dt = timeS - last
        return dt > 0 && dt.isFinite ? dt : 0
    }

    /// The gyroscope step: rest detection (rate part), strapdown integration, heading variance growth.
    public mutating func updateGyroscope(_ rateRadS: Vector3, timeS: Double) -> Update {
        guard rateRadS.isFinite, timeS.isFinite else { return .rejectedInput }
        var changes: Update = [.orientation]
        var dt = Self.interval(from: state.lastGyroscopeTimeS, to: timeS)
        state.lastGyroscopeTimeS = timeS
        if dt > parameters.maximumGyroscopeIntervalS {
            dt = parameters.maximumGyroscopeIntervalS
            changes.insert(.gyroscopeGap)
        }
        if dt > 0 { followGyroscopeInterval(dt) }

        // Rest detection, rate part (VQF §3.4): the rate must stay close to its own low-pass (no short-term
        // variation), and the low-pass must be one a bias could explain: within the data sheet's tolerance, and,
        // once the bias has been measured at rest, close to the estimate (not on its absolute value, which would
        // veto rest for good on a board whose turn-on bias exceeds the limit).
        let lowPass = state.restGyroscopeLowPass.step(
            rateRadS, coefficients: coefficients.restGyroscopeLowPass,
            timeConstantS: parameters.restFilterTimeConstantS, intervalS: dt)
        let deviation = rateRadS - lowPass
        let limit = coefficients.biasLimitRadS
        let quiet =
            deviation.dot(deviation) < coefficients.restGyroscopeThresholdSquared
            && abs(lowPass.x) <= limit && abs(lowPass.y) <= limit && abs(lowPass.z) <= limit
        let explained =
            quiet
            && Self.couldBeBias(
                lowPass, estimate: state.gyroscopeBiasRadS, covariance: state.biasCovariance,
                measuredAtRest: state.hasRestBias, limitRadS: limit,
                deviationSquared: coefficients.restBiasDeviationSquared)
        state.isRateUnexplained = quiet && !explained
        if !state.isRateUnexplained { state.unexplainedStillS = 0 }
        if state.unexplainedStillS >= parameters.restRelearnTimeS {
            // Still for long with a rate the estimate does not explain: the estimate is what is wrong.
            state.hasRestBias = false
            state.unexplainedStillS = 0
        }
        if !quiet || (!explained && state.hasRestBias) {
            if state.isAtRest { changes.insert(.restChanged) }
            state.restDurationS = 0
            state.isAtRest = false
        }

        let rate = rateRadS - state.gyroscopeBiasRadS
        state.lastRateRadS = rate
        guard dt > 0 else { return changes }
        let step = Quaternion.exponential(ofRotationVector: rate * dt)
        state.qGyroscope = Quaternion.hamilton(state.qGyroscope, step).renormalized
        state.magnetic.tracker.rotate(by: step)

        // Heading variance: the vertical bias uncertainty and the gyroscope's own errors.
        let verticalBiasVariance = state.verticalBiasVariance
        let randomWalk = coefficients.headingRandomWalkRad2PerS * dt
        state.heading.propagate(intervalS: dt, verticalBiasVariance: verticalBiasVariance, randomWalkVariance: randomWalk)
        state.heading6D.propagate(intervalS: dt, verticalBiasVariance: verticalBiasVariance, randomWalkVariance: randomWalk)
        return changes
    }

    /// The accelerometer step: rest detection (acceleration part), inclination correction, bias estimation.
    /// `carrierAccelerationMps2` (the filter's ENU, m/s²; zero when unknown) is subtracted from the specific force
    /// before it levels the board, so that only gravity remains (a car braking at 3 m/s² would otherwise lean the
    /// estimate 17° while it lasts, less the low-pass); rest detection sees the specific force as measured.
    public mutating func updateAccelerometer(
        _ accelerationMps2: Vector3, timeS: Double, carrierAccelerationMps2: Vector3 = .zero
    ) -> Update {
        guard accelerationMps2.isFinite, timeS.isFinite, accelerationMps2 != .zero else { return .rejectedInput }
        var changes: Update = [.orientation]
        let dt = Self.interval(from: state.lastAccelerometerTimeS, to: timeS)
        state.lastAccelerometerTimeS = timeS
        if dt > 0 { followAccelerometerInterval(dt) }

        // Rest detection, acceleration part.
        let restLowPass = state.restAccelerometerLowPass.step(
            accelerationMps2, coefficients: coefficients.restAccelerometerLowPass,
            timeConstantS: parameters.restFilterTimeConstantS, intervalS: dt)
        let deviation = accelerationMps2 - restLowPass
        let wasAtRest = state.isAtRest
        if state.restDurationS == 0 { state.restAnchorMps2 = restLowPass }
        let drift = restLowPass - state.restAnchorMps2
        if deviation.dot(deviation) >= coefficients.restAccelerometerThresholdSquared
            || drift.dot(drift) > coefficients.restAccelerometerDriftSquared
        {
            state.restDurationS = 0
            state.isAtRest = false
            state.unexplainedStillS = 0
        } else {
            if state.isRateUnexplained { state.unexplainedStillS += dt }
            state.restDurationS += dt
            if state.restDurationS >= parameters.restMinimumDurationS { state.isAtRest = true }
        }
        if wasAtRest != state.isAtRest { changes.insert(.restChanged) }

        // Inclination: low-pass the specific force in the almost-inertial frame, then turn it to vertical.
        // The specific force was sensed `accelerometerDelayS` before the gyroscope's latest sample: rotate it
        // with the orientation of that instant (extrapolated back with the current rate).
        var inertial = Self.delayed(state.qGyroscope, rateRadS: state.lastRateRadS, delayS: parameters.accelerometerDelayS)
            .rotating(accelerationMps2)
        // What is left of the specific force once the carrier's own acceleration (given in the filter's ENU) is taken
        // out is gravity alone: ENU → the almost-inertial frame is the inverse of the heading and inclination
        // rotations. Only with an absolute heading: the 6D frame's horizontal axes are not East and North.
        if carrierAccelerationMps2 != .zero && state.hasHeading && state.hasInclination {
            inertial -= (headingRotation * state.qInclination).conjugate.rotating(carrierAccelerationMps2)
        }
        let filtered = state.accelerationLowPass.step(
            inertial, coefficients: coefficients.accelerometerLowPass,
            timeConstantS: parameters.accelerometerTimeConstantS,
            intervalS: dt)
        guard let earth = state.qInclination.rotating(filtered).normalized else { return changes }
        state.qInclination = Quaternion.hamilton(Self.tiltCorrection(turningToUp: earth), state.qInclination).renormalized
        state.hasInclination = true
        changes.insert(.inclinationCorrected)

        if (parameters.estimatesBiasAtRest || parameters.estimatesBiasInMotion) && dt > 0 {
            updateBias(correctionEarth: earth, intervalS: dt)
            changes.insert(.biasUpdated)
        }
        return changes
    }

    /// Follows a stream's sample interval: re-derives its coefficients and keeps its filters' outputs when the
    /// smoothed interval moved (`SampleIntervals`).
    private mutating func followGyroscopeInterval(_ dt: Double) {
        guard state.intervals.gyroscope.track(dt) else { return }
        coefficients.setGyroscope(intervalS: state.intervals.gyroscope.derivedS, parameters: parameters)
        state.restGyroscopeLowPass.settle(coefficients: coefficients.restGyroscopeLowPass)
    }

    private mutating func followAccelerometerInterval(_ dt: Double) {
        guard state.intervals.accelerometer.track(dt) else { return }
        coefficients.setAccelerometer(intervalS: state.intervals.accelerometer.derivedS, parameters: parameters)
        state.restAccelerometerLowPass.settle(coefficients: coefficients.restAccelerometerLowPass)
        state.accelerationLowPass.settle(coefficients: coefficients.accelerometerLowPass)
        state.motionBiasLowPass.settle(coefficients: coefficients.accelerometerLowPass)
    }

    private mutating func followMagnetometerInterval(_ dt: Double) {
        guard state.intervals.magnetometer.track(dt) else { return }
        coefficients.setMagnetometer(intervalS: state.intervals.magnetometer.derivedS, parameters: parameters)
        state.magnetic.normDipLowPass.settle(coefficients: coefficients.magneticCurrentLowPass)
        state.magnetic.rawNormDipLowPass.settle(coefficients: coefficients.magneticCurrentLowPass)
    }

    /// `q` (the gyroscope quaternion) as it was `delayS` seconds ago, extrapolated back with the latest rate (exact for a constant
    /// rate; the delays are milliseconds, over which the rate changes little).
    /// (Static, like the other helpers the update path calls: a method on `self` inside a mutating update can
    /// make the compiler copy the whole filter to call it.)
    static func delayed(_ q: Quaternion, rateRadS: Vector3, delayS: Double) -> Quaternion {
        guard delayS > 0 else { return q }
        return Quaternion.hamilton(q, Quaternion.exponential(ofRotationVector: rateRadS * -delayS))
    }

    /// The rotation about a horizontal axis that turns the unit vector `v` (E₆) to +z.
    static func tiltCorrection(turningToUp v: Vector3) -> Quaternion {
        let w = ((v.z + 1) / 2).squareRoot()
        guard w > 1e-6 else { return Quaternion(w: 0, x: 1, y: 0, z: 0) }
        return Quaternion(w: w, x: v.y / (2 * w), y: -v.x / (2 * w), z: 0)
    }

    /// The bias Kalman filter (VQF §3.3–3.4): at rest the low-passed rate measures the bias directly; in motion
    /// the accelerometer correction rate, matched to the same low-pass as the rotation it came through,
    /// measures the two horizontal earth-frame components `LP(R)·b`.
    private mutating func updateBias(correctionEarth earth: Vector3, intervalS dt: Double) {
        let r = Quaternion.hamilton(state.qInclination, state.qGyroscope).fastRotationMatrix
        defer {
            // For the heading variance between accelerometer samples: the bias variance about the vertical.
            state.verticalBiasVariance = r.row2.dot(Matrix3.product(state.biasCovariance, r.row2))
        }
        let bias = state.gyroscopeBiasRadS
        let packed = BiasLowPassPacking.pack(r, Matrix3.product(r, bias))
        let lowPassed = state.motionBiasLowPass.step(
            packed, coefficients: coefficients.accelerometerLowPass,
            timeConstantS: parameters.accelerometerTimeConstantS,
            intervalS: dt)
        // Variance grows by the bias random walk (capped at the initial variance).
        let growth = coefficients.biasRandomWalkVariancePerS * dt
        var p = state.biasCovariance
        if p.row0.x < coefficients.biasInitialVariance { p.row0.x += growth }
        if p.row1.y < coefficients.biasInitialVariance { p.row1.y += growth }
        if p.row2.z < coefficients.biasInitialVariance { p.row2.z += growth }

        let clip = coefficients.biasClipRadS
        let limit = coefficients.biasLimitRadS
        if state.isAtRest && parameters.estimatesBiasAtRest {
            if !state.hasRestBias {
                // The first rest: until now the bias was known only to the data sheet's tolerance (the prior the
                // motion updates started from is a tuning choice, not a measurement); start from that, so a large
                // turn-on bias is learned within about a second instead of being pulled towards the prior.
                state.hasRestBias = true
                p.row0.x = max(p.row0.x, coefficients.biasFirstRestVariance)
                p.row1.y = max(p.row1.y, coefficients.biasFirstRestVariance)
                p.row2.z = max(p.row2.z, coefficients.biasFirstRestVariance)
            }
            // H = I: the update needs no matrix products.
            let innovation = Self.clip(state.restGyroscopeLowPass.output - bias, to: limit)
            let w = coefficients.measurementVariance(steadyStateVariance: coefficients.biasRestVariance, intervalS: dt)
            guard let sInverse = (p + .diagonal(w)).inverse else { state.biasCovariance = p; return }
            let gain = Matrix3.product(p, sInverse)
            state.gyroscopeBiasRadS = Self.clip(bias + Matrix3.product(gain, innovation), to: limit)
            state.biasCovariance = (p - Matrix3.product(gain, p)).symmetrized
        } else if parameters.estimatesBiasInMotion && state.accelerationLowPass.isRunning {
            let (h, lpRb) = BiasLowPassPacking.unpack(lowPassed)
            let predicted = Matrix3.product(h, bias)
            let innovation = Self.clip(
                Vector3(
                    -earth.y / dt + lpRb.x - predicted.x, earth.x / dt + lpRb.y - predicted.y,
                    -predicted.z), to: clip)
            let w = coefficients.measurementVariance(steadyStateVariance: coefficients.biasMotionVariance, intervalS: dt)
            let noise = Vector3(w, w, w / parameters.biasVerticalForgettingFactor)
            let pht = Matrix3.productWithTranspose(p, h) // P·Hᵀ (P symmetric)
            guard let sInverse = (Matrix3.product(h, pht) + .diagonal(noise)).inverse else { state.biasCovariance = p; return }
            let gain = Matrix3.product(pht, sInverse)
            state.gyroscopeBiasRadS = Self.clip(bias + Matrix3.product(gain, innovation), to: limit)
            state.biasCovariance = (p - Matrix3.product(gain, Matrix3.product(h, p))).symmetrized
        } else {
            state.biasCovariance = p
        }
    }

    /// True when the low-passed rate `rate` (board frame, rad/s) is one a gyroscope bias could explain: every
    /// axis within ±`limitRadS` (the data sheet's tolerance) and, once the bias has been `measuredAtRest`, within
    /// max(√`deviationSquared`, 3σ) of the `estimate` per axis (σ from the bias `covariance`'s diagonal).
    @inline(__always) static func couldBeBias(
        _ rate: Vector3, estimate: Vector3, covariance p: Matrix3, measuredAtRest: Bool,
        limitRadS limit: Double, deviationSquared: Double
    ) -> Bool {
        guard abs(rate.x) <= limit, abs(rate.y) <= limit, abs(rate.z) <= limit else { return false }
        guard measuredAtRest else { return true }
        let d = rate - estimate
        return d.x * d.x <= max(deviationSquared, 9 * p.row0.x) && d.y * d.y <= max(deviationSquared, 9 * p.row1.y)
            && d.z * d.z <= max(deviationSquared, 9 * p.row2.z)
    }

    /// Each component of `v` clipped to ±`limit`.
    @inline(__always) static func clip(_ v: Vector3, to limit: Double) -> Vector3 {
        Vector3(max(-limit, min(limit, v.x)), max(-limit, min(limit, v.y)), max(-limit, min(limit, v.z)))
    }

    /// Low-passes the measured (norm µT, dip rad) for `expectedFieldHeadingVarianceRad2` (first order over
    /// `expectedFieldTimeConstantS`; the first sample starts it).
    private mutating func followMeasuredField(_ normDip: SIMD2<Double>, intervalS dt: Double) {
        guard normDip[0] > 0 else { return }
        guard let previous = state.magnetic.slowNormDip else {
            state.magnetic.slowNormDip = normDip
            return
        }
        let gain = firstOrderGain(timeConstantS: parameters.expectedFieldTimeConstantS, intervalS: dt)
        state.magnetic.slowNormDip = previous + gain * (normDip - previous)
    }

    /// The magnetometer step: sample-and-hold filter, board-fixed field tracking, disturbance detection and
    /// the heading correction.
    public mutating func updateMagnetometer(_ fieldMicroTesla: Vector3, timeS: Double) -> Update {
        guard fieldMicroTesla.isFinite, timeS.isFinite, fieldMicroTesla != .zero else { return .rejectedInput }
        guard state.hasInclination else { return [] }
        if parameters.ignoresRepeatedMagnetometerSamples, fieldMicroTesla == state.magnetic.lastRawMicroTesla {
            return .repeatedMagnetometerSample
        }
        var changes: Update = [.orientation]
        let dt = Self.interval(from: state.lastMagnetometerTimeS, to: timeS)
        state.lastMagnetometerTimeS = timeS
        state.magnetic.lastRawMicroTesla = fieldMicroTesla
        if dt > 0 { followMagnetometerInterval(dt) }

        let q6 = Quaternion.hamilton(
            state.qInclination,
            Self.delayed(state.qGyroscope, rateRadS: state.lastRateRadS, delayS: parameters.magnetometerDelayS))
        let wasDisturbed = state.magnetic.isDisturbed
        let offsetBefore = state.magnetic.offsetInUseMicroTesla
        observeMagnetometer(raw: fieldMicroTesla, orientation6D: q6, intervalS: dt)
        if wasDisturbed != state.magnetic.isDisturbed { changes.insert(.magneticDisturbanceChanged) }
        if offsetBefore != state.magnetic.offsetInUseMicroTesla { changes.insert(.boardFixedFieldChanged) }

        // Heading disagreement: azimuth of the field's horizontal part in E₆ versus the current offset.
        let corrected = fieldMicroTesla - state.magnetic.offsetInUseMicroTesla
        state.magnetic.lastCorrectedMicroTesla = corrected
        let earth = q6.rotating(corrected)
        if !state.magnetic.isDisturbed { followMeasuredField(MagneticState.normDip(earth), intervalS: dt) }
        guard earth.x != 0 || earth.y != 0 else { return changes }
        let azimuth = Double.atan2(y: earth.x, x: earth.y)
        guard state.hasHeading else {
            state.headingOffsetRad = Self.wrapPi(azimuth)
            state.hasHeading = true
            state.heading.startAbsolute(varianceRad2: coefficients.initialHeadingVariance)
            changes.insert(.headingCorrected)
            return changes
        }
        let disagreement = Self.wrapPi(azimuth - state.headingOffsetRad)
        guard let measurementVariance = headingMeasurementVariance(intervalS: dt) else { return changes }
        // Innovation gate: a field whose norm and dip look right can still point elsewhere (a magnet at some
        // orientations); a disagreement far outside what the heading's uncertainty allows is not used. The gate
        // widens as the uncertainty grows during gyroscope-only spells, so a heading that drifted is recovered.
        let gate = max(
            coefficients.magneticHeadingGateRad,
            3 * (state.heading.variance + coefficients.headingFloorVarianceRad2).squareRoot())
        guard abs(disagreement) <= gate else {
            changes.insert(.headingMeasurementGated)
            return changes
        }
        state.magnetic.disagreementVarianceRad2 +=
            firstOrderGain(timeConstantS: parameters.headingDisagreementTimeConstantS, intervalS: dt)
            * (disagreement * disagreement - state.magnetic.disagreementVarianceRad2)
        let gain = state.heading.correct(measurementVarianceRad2: measurementVariance)
        state.headingOffsetRad = Self.wrapPi(state.headingOffsetRad + gain * disagreement)
        changes.insert(.headingCorrected)
        return changes
    }

    /// `angle` wrapped into (−π, π].
    static func wrapPi(_ angle: Double) -> Double {
        var a = angle
        if a > Double.pi || a <= -Double.pi { a -= 2 * Double.pi * (a / (2 * Double.pi)).rounded() }
        return a
    }
}

/// What one `update` did (STYLE.md habit 7): diagnostics and the calibration CLI show these.
public struct OrientationFilterUpdate: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: UInt16
    /// An update from its bits.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// The orientation moved (a gyroscope step or a correction).
    public static let orientation = Self(rawValue: 1 << 0)
    /// The accelerometer corrected the inclination.
    public static let inclinationCorrected = Self(rawValue: 1 << 1)
    /// The magnetometer corrected (or set) the heading.
    public static let headingCorrected = Self(rawValue: 1 << 2)
    /// The gyroscope bias estimate was updated.
    public static let biasUpdated = Self(rawValue: 1 << 3)
    /// Rest began or ended.
    public static let restChanged = Self(rawValue: 1 << 4)
    /// A magnetic disturbance began or ended.
    public static let magneticDisturbanceChanged = Self(rawValue: 1 << 5)
    /// The board-fixed field offset removed from the magnetometer changed (found, refined or dropped).
    public static let boardFixedFieldChanged = Self(rawValue: 1 << 6)
    /// The magnetometer sample repeated the previous one bit for bit and was not used again.
    public static let repeatedMagnetometerSample = Self(rawValue: 1 << 7)
    /// A sample was not finite (or an all-zero vector, which sensors send for "no data") and was ignored.
    public static let rejectedInput = Self(rawValue: 1 << 8)
    /// The gyroscope interval exceeded `maximumGyroscopeIntervalS` (samples were lost).
    public static let gyroscopeGap = Self(rawValue: 1 << 9)
    /// The magnetometer's heading disagreed with the filter's far beyond its uncertainty and was not used.
    public static let headingMeasurementGated = Self(rawValue: 1 << 10)
}

extension OrientationFilter {
    /// What one `update` did.
    public typealias Update = OrientationFilterUpdate
}

extension SIMD3 where Scalar == Double {
    /// True when every component is finite.
    var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}

/// Packs the 9 entries of `R` and the 3 of `R·b` into one vector for a single low-pass.
enum BiasLowPassPacking {
    static func pack(_ r: Matrix3, _ rb: Vector3) -> SIMD16<Double> {
        SIMD16(
            r.row0.x, r.row0.y, r.row0.z, r.row1.x, r.row1.y, r.row1.z, r.row2.x, r.row2.y, r.row2.z,
            rb.x, rb.y, rb.z, 0, 0, 0, 0)
    }

    static func unpack(_ v: SIMD16<Double>) -> (Matrix3, Vector3) {
        (
            Matrix3(rows: Vector3(v[0], v[1], v[2]), Vector3(v[3], v[4], v[5]), Vector3(v[6], v[7], v[8])),
            Vector3(v[9], v[10], v[11])
        )
    }
}
