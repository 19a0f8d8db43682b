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

    public init() {}

    /// Multiplier of the heading error floor's variance (1 normally).
    var floorScale: Double { 1 }

    /// Norm (µT) and dip (rad, positive when the field points down) of `field` (E₆).
    static func normDip(_ earth: Vector3) -> SIMD2<Double> {
        let norm = earth.length
        guard norm > 0 else { return .zero }
        return SIMD2(norm, Double.asin(max(-1, min(1, -earth.z / norm))))
    }

    /// True when (norm, dip) `value` is within the thresholds of (`norm`, `dip`).
    static func matches(_ value: SIMD2<Double>, norm: Double, dip: Double, parameters p: OrientationFilter.Parameters,
                        coefficients c: OrientationFilter.Coefficients) -> Bool {
        abs(value[0] - norm) < p.magneticNormThreshold * norm && abs(value[1] - dip) < c.magneticDipThresholdRad
    }

    /// Takes one new raw sample: tracker, reference, disturbance, candidate and board-fixed offset.
    mutating func observe(rawMicroTesla raw: Vector3, orientation6D q6: Quaternion, intervalS dt: Double,
                          rateRadS: Vector3, rotationRateRadS: Double, parameters p: OrientationFilter.Parameters,
                          coefficients c: OrientationFilter.Coefficients) {
        if p.tracksBoardFixedField {
            tracker.add(raw, intervalS: dt, rateRadS: rateRadS, delayS: p.magnetometerDelayS, windowS: p.boardFixedFieldWindowS,
                        anchorIntervalS: p.boardFixedFieldAnchorIntervalS, noiseMicroTesla: p.boardFixedFieldNoiseMicroTesla,
                        rateNoiseMicroTeslaPerRadS: p.boardFixedFieldRateNoiseMicroTeslaPerRadS)
        }
        guard p.rejectsMagneticDisturbances else { isDisturbed = false; return }
        let current = normDipLowPass.step(Self.normDip(q6.rotate(raw - offsetInUseMicroTesla)),
                                          coefficients: c.magneticCurrentLowPass,
                                          timeConstantS: p.magneticCurrentTimeConstantS, intervalS: dt)

        guard let norm = referenceNormMicroTesla else {
            // No reference yet: the first steady field becomes it (the board need not turn: there is nothing better).
            if Self.matches(current, norm: candidateNormMicroTesla, dip: candidateDipRad, parameters: p, coefficients: c) {
                candidateDurationS += dt
                candidateNormMicroTesla += c.magneticReferenceGain * (current[0] - candidateNormMicroTesla)
                candidateDipRad += c.magneticReferenceGain * (current[1] - candidateDipRad)
                if candidateDurationS >= p.magneticNewFieldFirstTimeS {
                    referenceNormMicroTesla = candidateNormMicroTesla
                    referenceDipRad = candidateDipRad
                }
            } else {
                candidateDurationS = 0
                candidateNormMicroTesla = current[0]
                candidateDipRad = current[1]
            }
            return
        }

        let wasDisturbed = isDisturbed
        if Self.matches(current, norm: norm, dip: referenceDipRad, parameters: p, coefficients: c) {
            undisturbedDurationS += dt
            if undisturbedDurationS >= p.magneticMinimumUndisturbedTimeS {
                isDisturbed = false
                referenceNormMicroTesla = norm + c.magneticReferenceGain * (current[0] - norm)
                referenceDipRad += c.magneticReferenceGain * (current[1] - referenceDipRad)
            }
        } else {
            undisturbedDurationS = 0
            isDisturbed = true
        }
        if isDisturbed && !wasDisturbed {
            // A new disturbance: equations from before it belong to another offset.
            tracker.restart()
            offsetAcceptDurationS = 0
        }

        // A new, steady field while turning becomes the reference.
        if Self.matches(current, norm: candidateNormMicroTesla, dip: candidateDipRad, parameters: p, coefficients: c) {
            if rotationRateRadS >= c.magneticNewFieldMinimumRateRadS { candidateDurationS += dt }
            candidateNormMicroTesla += c.magneticReferenceGain * (current[0] - candidateNormMicroTesla)
            candidateDipRad += c.magneticReferenceGain * (current[1] - candidateDipRad)
            if isDisturbed && candidateDurationS >= p.magneticNewFieldTimeS {
                referenceNormMicroTesla = candidateNormMicroTesla
                referenceDipRad = candidateDipRad
                isDisturbed = false
                undisturbedDurationS = p.magneticMinimumUndisturbedTimeS
            }
        } else {
            candidateDurationS = 0
            candidateNormMicroTesla = current[0]
            candidateDipRad = current[1]
        }

        if p.tracksBoardFixedField { considerBoardFixedOffset(raw: raw, orientation6D: q6, intervalS: dt, parameters: p, coefficients: c) }
    }

    /// Adopts the tracker's offset when it explains a disturbance, and drops an offset whose field is gone.
    private mutating func considerBoardFixedOffset(raw: Vector3, orientation6D q6: Quaternion, intervalS dt: Double,
                                                   parameters p: OrientationFilter.Parameters,
                                                   coefficients c: OrientationFilter.Coefficients) {
        guard let norm = referenceNormMicroTesla else { return }
        if offsetInUseMicroTesla != .zero {
            // Is the attached field gone? The raw field then matches the reference and the corrected does not.
            let rawCurrent = rawNormDipLowPass.step(Self.normDip(q6.rotate(raw)), coefficients: c.magneticCurrentLowPass,
                                                    timeConstantS: p.magneticCurrentTimeConstantS, intervalS: dt)
            if isDisturbed, Self.matches(rawCurrent, norm: norm, dip: referenceDipRad, parameters: p, coefficients: c) {
                offsetInUseMicroTesla = .zero
                offsetHeadingVarianceRad2 = 0
                normDipLowPass.settle(at: rawCurrent, coefficients: c.magneticCurrentLowPass)
                rawNormDipLowPass.reset()
                isDisturbed = false
                undisturbedDurationS = p.magneticMinimumUndisturbedTimeS
                tracker.restart()
                return
            }
        }
        guard isDisturbed else {
            offsetAcceptDurationS = 0
            // An offset in use follows the tracker while it stays well determined (the first estimate was the
            // earliest acceptable one, not the best).
            if offsetInUseMicroTesla != .zero, let estimate = tracker.estimate,
               estimate.worstSigmaMicroTesla <= p.boardFixedFieldAcceptSigmaMicroTesla,
               estimate.residualRMSMicroTesla <= p.boardFixedFieldConsistencyMicroTesla {
                let k = firstOrderGain(timeConstantS: p.boardFixedFieldWindowS, intervalS: dt)
                offsetInUseMicroTesla += k * (estimate.offsetMicroTesla - offsetInUseMicroTesla)
            }
            return
        }
        guard let estimate = tracker.estimate,
              estimate.worstSigmaMicroTesla <= p.boardFixedFieldAcceptSigmaMicroTesla,
              estimate.residualRMSMicroTesla <= p.boardFixedFieldConsistencyMicroTesla
        else { offsetAcceptDurationS = 0; return }
        let corrected = Self.normDip(q6.rotate(raw - estimate.offsetMicroTesla))
        guard Self.matches(corrected, norm: norm, dip: referenceDipRad, parameters: p, coefficients: c) else {
            offsetAcceptDurationS = 0
            return
        }
        offsetAcceptDurationS += dt
        guard offsetAcceptDurationS >= p.boardFixedFieldAcceptTimeS else { return }
        offsetInUseMicroTesla = estimate.offsetMicroTesla
        let horizontal = norm * Double.cos(referenceDipRad)
        let sigma = estimate.worstSigmaMicroTesla
        offsetHeadingVarianceRad2 = horizontal > 0 ? (sigma * sigma) / (horizontal * horizontal) : 0
        normDipLowPass.settle(at: corrected, coefficients: c.magneticCurrentLowPass)
        rawNormDipLowPass.reset()
        isDisturbed = false
        undisturbedDurationS = p.magneticMinimumUndisturbedTimeS
        offsetAcceptDurationS = 0
    }

    /// The variance of this sample's heading measurement, rad², or `nil` when it must not be used (disturbed,
    /// within the maximum rejection time). Counts the rejection time.
    mutating func headingMeasurementVariance(intervalS dt: Double, parameters p: OrientationFilter.Parameters,
                                             coefficients c: OrientationFilter.Coefficients) -> Double? {
        guard dt > 0 else { return nil }
        let base = c.magneticHeadingNoiseDensityRad2S / dt
        guard p.rejectsMagneticDisturbances else { return base }
        if isDisturbed {
            rejectionDurationS += dt
            return rejectionDurationS <= p.magneticMaximumRejectionTimeS ? nil : base * p.magneticRejectionVarianceFactor
        }
        rejectionDurationS = max(0, rejectionDurationS - dt)
        return base
    }
}
