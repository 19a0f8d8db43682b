import LodestoneCore
import RealModule

/// The magnetometer's side of the filter: the reference field (norm and dip), disturbance detection and
/// rejection with recovery (Laidig & Seel 2023, VQF §3.5), and the board-fixed offset found by
/// `BoardFixedFieldTracker`.
///
/// A field is undisturbed when its low-passed norm and dip (in E₆) stay within `magneticNormThreshold` and
/// `magneticDipThresholdDeg` of the reference. A disturbance ends when they come back, or when a new field
/// keeps a steady norm and dip for `magneticNewFieldTimeS` while the board turns (then it is the new
/// reference: a field that keeps its norm and dip while the board rotates is fixed to the earth), or when the
/// tracker finds a board-fixed offset that, removed, gives back the reference field (an attached magnet).
public struct MagneticState: Sendable, Hashable, Codable {
    /// Last raw magnetometer sample, µT (for the sample-and-hold test).
    public var lastRawMicroTesla: Vector3?
    /// Last sample with the board-fixed offset removed, µT.
    public var lastCorrectedMicroTesla: Vector3?
    /// Board-fixed offset removed from the magnetometer, board frame, µT.
    public var offsetInUseMicroTesla = Vector3.zero
    /// The tracker of board-fixed fields.
    public var tracker = BoardFixedFieldTracker()
    /// Low-passed (norm µT, dip rad) of the corrected field, and of the raw field while an offset is in use.
    public var normDipLowPass = LowPassVector<SIMD2<Double>>()
    public var rawNormDipLowPass = LowPassVector<SIMD2<Double>>()
    /// The reference: norm (µT) and dip (rad, positive down); `nil` until the first field is accepted.
    public var referenceNormMicroTesla: Double?
    public var referenceDipRad: Double = 0
    /// A candidate new reference, and how long it has been steady while turning, s.
    public var candidateNormMicroTesla: Double = 0
    public var candidateDipRad: Double = 0
    public var candidateDurationS: Double = 0
    /// How long the field has been back within the thresholds, s.
    public var undisturbedDurationS: Double = 0
    /// How long the magnetometer has been rejected, s (decays while undisturbed).
    public var rejectionDurationS: Double = 0
    /// True while disturbed.
    public var isDisturbed = false
    /// How long the tracker's estimate has been acceptable, s.
    public var offsetAcceptDurationS: Double = 0
    /// Variance of the heading error caused by the uncertainty of the offset in use, rad².
    public var offsetHeadingVarianceRad2: Double = 0
    /// Low-passed square of the magnetometer's disagreement with the filter's heading, rad².
    public var disagreementVarianceRad2: Double = 0
    /// Heading variance an uncalibrated board-fixed offset the tracker sees (and the filter does not remove)
    /// may cause, rad²: (offset / horizontal field)²; 0 when there is none (then no calibration is needed).
    public var suspectedOffsetHeadingVarianceRad2: Double = 0
    /// Time since the tracker was last checked for such an offset, s.
    public var calibrationCheckAgeS: Double = 0
    /// The field the board should measure where it is, from outside the filter (`OrientationFilter.setExpectedField`):
    /// norm, µT, and dip, rad (positive down), when known; `nil` when nothing is expected.
    public var expectedNormMicroTesla: Double?
    public var expectedDipRad: Double?
    /// The measured (norm µT, dip rad) in E₆, low-passed over `expectedFieldTimeConstantS` while the magnetometer is
    /// used (not while it is rejected as disturbed); `nil` before the first such sample.
    public var slowNormDip: SIMD2<Double>?

    /// No magnetometer sample yet.
    public init() {}

    /// Norm (µT) and dip (rad, positive when the field points down) of `field` (E₆).
    static func normDip(_ earth: Vector3) -> SIMD2<Double> {
        let norm = earth.length
        guard norm > 0 else { return .zero }
        return SIMD2(norm, Double.asin(max(-1, min(1, -earth.z / norm))))
    }

    /// The horizontal part of a field of `norm` µT and dip `dipRad`, at least a tenth of the field (near the magnetic
    /// poles, where a compass is worth little anyway): what a board-fixed offset's heading error is measured against.
    static func horizontalMicroTesla(norm: Double, dipRad: Double) -> Double { max(norm * Double.cos(dipRad), 0.1 * norm) }

    /// True when (norm, dip) `value` is within the thresholds (relative norm, dip in rad) of (`norm`, `dip`).
    static func matches(_ value: SIMD2<Double>, norm: Double, dip: Double, normThreshold: Double, dipThresholdRad: Double) -> Bool
    {
        abs(value[0] - norm) < normThreshold * norm && abs(value[1] - dip) < dipThresholdRad
    }
}

// The magnetometer's logic, as methods of the filter: they read `parameters` and `coefficients` in place (passing
// those structs as arguments while `state` is being modified would copy them on every sample).
extension OrientationFilter {

    /// Takes one new raw sample: tracker, reference, disturbance, candidate and board-fixed offset.
    mutating func observeMagnetometer(raw: Vector3, orientation6D q6: Quaternion, intervalS dt: Double) {
        let normThreshold = parameters.magneticNormThreshold, dipThreshold = coefficients.magneticDipThresholdRad
        func fieldMatches(_ value: SIMD2<Double>, norm: Double, dip: Double) -> Bool {
            MagneticState.matches(value, norm: norm, dip: dip, normThreshold: normThreshold, dipThresholdRad: dipThreshold)
        }
        if parameters.tracksBoardFixedField {
            state.magnetic.tracker.add(
                raw, intervalS: dt, rateRadS: state.lastRateRadS, delayS: parameters.magnetometerDelayS,
                windowS: parameters.boardFixedFieldWindowS,
                anchorIntervalS: parameters.boardFixedFieldAnchorIntervalS,
                noiseMicroTesla: parameters.boardFixedFieldNoiseMicroTesla,
                rateNoiseMicroTeslaPerRadS: parameters.boardFixedFieldRateNoiseMicroTeslaPerRadS)
        }
        guard parameters.rejectsMagneticDisturbances else { state.magnetic.isDisturbed = false; return }
        let current = state.magnetic.normDipLowPass.step(
            MagneticState.normDip(q6.rotating(raw - state.magnetic.offsetInUseMicroTesla)),
            coefficients: coefficients.magneticCurrentLowPass, timeConstantS: parameters.magneticCurrentTimeConstantS,
            intervalS: dt)
        let gain = coefficients.magneticReferenceGain

        guard let norm = state.magnetic.referenceNormMicroTesla else {
            // No reference yet: the first steady field becomes it (the board need not turn: there is nothing better).
            if fieldMatches(current, norm: state.magnetic.candidateNormMicroTesla, dip: state.magnetic.candidateDipRad) {
                state.magnetic.candidateDurationS += dt
                state.magnetic.candidateNormMicroTesla += gain * (current[0] - state.magnetic.candidateNormMicroTesla)
                state.magnetic.candidateDipRad += gain * (current[1] - state.magnetic.candidateDipRad)
                if state.magnetic.candidateDurationS >= parameters.magneticNewFieldFirstTimeS {
                    state.magnetic.referenceNormMicroTesla = state.magnetic.candidateNormMicroTesla
                    state.magnetic.referenceDipRad = state.magnetic.candidateDipRad
                }
            } else {
                state.magnetic.candidateDurationS = 0
                state.magnetic.candidateNormMicroTesla = current[0]
                state.magnetic.candidateDipRad = current[1]
            }
            return
        }

        let wasDisturbed = state.magnetic.isDisturbed
        if fieldMatches(current, norm: norm, dip: state.magnetic.referenceDipRad) {
            state.magnetic.undisturbedDurationS += dt
            if state.magnetic.undisturbedDurationS >= parameters.magneticMinimumUndisturbedTimeS {
                state.magnetic.isDisturbed = false
                state.magnetic.referenceNormMicroTesla = norm + gain * (current[0] - norm)
                state.magnetic.referenceDipRad += gain * (current[1] - state.magnetic.referenceDipRad)
            }
        } else {
            state.magnetic.undisturbedDurationS = 0
            state.magnetic.isDisturbed = true
        }
        if state.magnetic.isDisturbed && !wasDisturbed {
            // A new disturbance: equations from before it belong to another offset.
            state.magnetic.tracker.restart()
            state.magnetic.offsetAcceptDurationS = 0
        }

        // A new, steady field while turning becomes the reference.
        if fieldMatches(current, norm: state.magnetic.candidateNormMicroTesla, dip: state.magnetic.candidateDipRad) {
            if state.restGyroscopeLowPass.output.length >= coefficients.magneticNewFieldMinimumRateRadS {
                state.magnetic.candidateDurationS += dt
            }
            state.magnetic.candidateNormMicroTesla += gain * (current[0] - state.magnetic.candidateNormMicroTesla)
            state.magnetic.candidateDipRad += gain * (current[1] - state.magnetic.candidateDipRad)
            if state.magnetic.isDisturbed && state.magnetic.candidateDurationS >= parameters.magneticNewFieldTimeS {
                state.magnetic.referenceNormMicroTesla = state.magnetic.candidateNormMicroTesla
                state.magnetic.referenceDipRad = state.magnetic.candidateDipRad
                state.magnetic.isDisturbed = false
                state.magnetic.undisturbedDurationS = parameters.magneticMinimumUndisturbedTimeS
            }
        } else {
            state.magnetic.candidateDurationS = 0
            state.magnetic.candidateNormMicroTesla = current[0]
            state.magnetic.candidateDipRad = current[1]
        }

        if parameters.tracksBoardFixedField {
            considerBoardFixedOffset(raw: raw, orientation6D: q6, intervalS: dt)
            checkCalibration(intervalS: dt)
        }
    }

    /// Every `calibrationCheckIntervalS`: does the tracker see a consistent, significant board-fixed offset that is
    /// not being removed (an uncalibrated magnetometer)? Its heading effect goes into the accuracy.
    private mutating func checkCalibration(intervalS dt: Double) {
        state.magnetic.calibrationCheckAgeS += dt
        guard state.magnetic.calibrationCheckAgeS >= Self.calibrationCheckIntervalS else { return }
        state.magnetic.calibrationCheckAgeS = 0
        state.magnetic.suspectedOffsetHeadingVarianceRad2 = 0
        // The posterior of an uncalibrated magnetometer's offset (nil for a calibrated one: no prior).
        var posterior = state.magnetic.tracker.posterior(priorSigmaMicroTesla: parameters.magnetometerOffsetSigmaMicroTesla)
        if let p = posterior, let r = state.magnetic.tracker.memoryResidualRMSMicroTesla(meanMicroTesla: p.meanMicroTesla),
            r > parameters.boardFixedFieldConsistencyMicroTesla
        {
            // The memory's equations disagree: the offset changed (a magnet came or went); start over (the posterior
            // is then the prior, which shows no offset).
            state.magnetic.tracker.forgetMemory()
            posterior = nil
        }
        guard state.magnetic.offsetInUseMicroTesla == .zero, let norm = state.magnetic.referenceNormMicroTesla else { return }
        var size = 0.0
        let estimate = state.magnetic.tracker.estimate
        if let e = estimate, e.residualRMSMicroTesla > parameters.boardFixedFieldConsistencyMicroTesla { return }
        if let e = estimate, e.offsetMicroTesla.length > 5 * e.worstSigmaMicroTesla {
            size = e.offsetMicroTesla.length
            guard size > Self.calibrationOffsetFraction * norm else { return }
        } else {
            // A board turned about one axis only (a vehicle, a compass on a table) never determines the offset along
            // that axis, so there is no full estimate; but its horizontal part, the part that turns the heading, is
            // determined. Judged so only for a magnetometer the session says is uncalibrated (a prior to start from).
            guard let p = posterior else { return }
            let q = boardToENU6D.conjugate
            let up = q.rotate(Vector3(0, 0, 1)), across = q.rotate(Vector3(1, 0, 0)), along = q.rotate(Vector3(0, 1, 0))
            let horizontalPart = p.meanMicroTesla - up * up.dot(p.meanMicroTesla)
            let spread = max(
                across.dot(p.covarianceMicroTesla2 * across), along.dot(p.covarianceMicroTesla2 * along)
            ).squareRoot()
            size = horizontalPart.length
            guard size > Self.calibrationOffsetFraction * norm, size > 5 * spread else { return }
        }
        let horizontal = MagneticState.horizontalMicroTesla(norm: norm, dipRad: state.magnetic.referenceDipRad)
        let angle = Double.atan(size / horizontal)
        state.magnetic.suspectedOffsetHeadingVarianceRad2 = angle * angle
    }

    /// Adopts the tracker's offset when it explains a disturbance, refines an offset in use, and drops an offset
    /// whose field is gone.
    private mutating func considerBoardFixedOffset(raw: Vector3, orientation6D q6: Quaternion, intervalS dt: Double) {
        let normThreshold = parameters.magneticNormThreshold, dipThreshold = coefficients.magneticDipThresholdRad
        func fieldMatches(_ value: SIMD2<Double>, norm: Double, dip: Double) -> Bool {
            MagneticState.matches(value, norm: norm, dip: dip, normThreshold: normThreshold, dipThresholdRad: dipThreshold)
        }
        let acceptSigma = parameters.boardFixedFieldAcceptSigmaMicroTesla
        let consistency = parameters.boardFixedFieldConsistencyMicroTesla
        guard let norm = state.magnetic.referenceNormMicroTesla else { return }
        let dip = state.magnetic.referenceDipRad
        if state.magnetic.offsetInUseMicroTesla != .zero {
            // Is the attached field gone? The raw field then matches the reference and the corrected does not.
            let rawCurrent = state.magnetic.rawNormDipLowPass.step(
                MagneticState.normDip(q6.rotating(raw)), coefficients: coefficients.magneticCurrentLowPass,
                timeConstantS: parameters.magneticCurrentTimeConstantS, intervalS: dt)
            if state.magnetic.isDisturbed, fieldMatches(rawCurrent, norm: norm, dip: dip) {
                state.magnetic.offsetInUseMicroTesla = .zero
                state.magnetic.offsetHeadingVarianceRad2 = 0
                state.magnetic.normDipLowPass.settle(at: rawCurrent, coefficients: coefficients.magneticCurrentLowPass)
                state.magnetic.rawNormDipLowPass.reset()
                state.magnetic.isDisturbed = false
                state.magnetic.undisturbedDurationS = parameters.magneticMinimumUndisturbedTimeS
                state.magnetic.tracker.restart()
                return
            }
        }
        guard state.magnetic.isDisturbed else {
            state.magnetic.offsetAcceptDurationS = 0
            // An offset in use follows the tracker while it stays well determined (the first estimate was the
            // earliest acceptable one, not the best).
            if state.magnetic.offsetInUseMicroTesla != .zero,
                let estimate = state.magnetic.tracker.acceptableEstimate(sigma: acceptSigma, residual: consistency)
            {
                let k = firstOrderGain(timeConstantS: parameters.boardFixedFieldWindowS, intervalS: dt)
                state.magnetic.offsetInUseMicroTesla += k * (estimate.offsetMicroTesla - state.magnetic.offsetInUseMicroTesla)
            }
            return
        }
        guard let estimate = state.magnetic.tracker.acceptableEstimate(sigma: acceptSigma, residual: consistency) else {
            state.magnetic.offsetAcceptDurationS = 0; return
        }
        let corrected = MagneticState.normDip(q6.rotating(raw - estimate.offsetMicroTesla))
        guard fieldMatches(corrected, norm: norm, dip: dip) else {
            state.magnetic.offsetAcceptDurationS = 0
            return
        }
        state.magnetic.offsetAcceptDurationS += dt
        guard state.magnetic.offsetAcceptDurationS >= parameters.boardFixedFieldAcceptTimeS else { return }
        state.magnetic.offsetInUseMicroTesla = estimate.offsetMicroTesla
        let horizontal = norm * Double.cos(dip)
        let sigma = estimate.worstSigmaMicroTesla
        state.magnetic.offsetHeadingVarianceRad2 = horizontal > 0 ? (sigma * sigma) / (horizontal * horizontal) : 0
        state.magnetic.normDipLowPass.settle(at: corrected, coefficients: coefficients.magneticCurrentLowPass)
        state.magnetic.rawNormDipLowPass.reset()
        state.magnetic.isDisturbed = false
        state.magnetic.undisturbedDurationS = parameters.magneticMinimumUndisturbedTimeS
        state.magnetic.offsetAcceptDurationS = 0
    }

    /// The variance of this sample's heading measurement, rad², or `nil` when it must not be used (disturbed,
    /// within the maximum rejection time). Counts the rejection time.
    mutating func headingMeasurementVariance(intervalS dt: Double) -> Double? {
        guard dt > 0 else { return nil }
        let base = coefficients.magneticHeadingNoiseDensityRad2S / dt
        guard parameters.rejectsMagneticDisturbances else { return base }
        if state.magnetic.isDisturbed {
            state.magnetic.rejectionDurationS += dt
            return state.magnetic.rejectionDurationS <= parameters.magneticMaximumRejectionTimeS
                ? nil : base * parameters.magneticRejectionVarianceFactor
        }
        state.magnetic.rejectionDurationS = max(0, state.magnetic.rejectionDurationS - dt)
        return base
    }
}
