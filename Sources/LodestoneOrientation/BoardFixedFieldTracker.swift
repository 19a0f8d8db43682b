import LodestoneCore
import RealModule

/// Estimates a magnetic field offset fixed to the board — a magnet or a phone attached to it, hard iron that
/// appeared after calibration — from the magnetometer and the gyroscope alone, without knowing the orientation.
///
/// An earth-fixed field `B` seen by a rotating board satisfies, between an anchor sample `a` and a later sample
/// `k`, `m_k − o = C·(m_a − o)`, where `o` is the board-fixed offset and `C` the rotation of the board between
/// the two (from the gyroscope: earth-fixed vectors expressed in the board frame at `a` map to the frame at `k`
/// by `C`). That is linear in `o`: `(I − C)·o = m_k − C·m_a` (the attitude-independent form of Vasconcelos et
/// al., *Geometric approach to strapdown magnetometer calibration in sensor frame*, IEEE Trans. AES 47(2), 2011,
/// section III; also Troni & Whitcomb, *Adaptive estimation of measurement bias in three-dimensional field
/// sensors with angular-rate sensors*, ICRA 2013). The tracker accumulates the normal equations with
/// exponential forgetting; rotations about at least two axes make `o` observable. The RMS of the equations'
/// residuals says whether the disturbance is really board-fixed: a stationary magnet or a field gradient the
/// board moves through leaves large residuals.
public struct BoardFixedFieldTracker: Sendable, Hashable, Codable {
    /// Σ w·AᵀA of the equations so far, with forgetting, 1/µT² · µT² (dimensionless information per µT²).
    var information = Matrix3.zero
    /// Σ w·Aᵀy, with forgetting, 1/µT.
    var weightedRight = Vector3.zero
    /// Σ w·|y|², with forgetting (for the residual), dimensionless.
    var weightedSquares: Double = 0
    /// Σ w over the equations (their effective number, each weighted by 1/σ²), 1/µT².
    var weightSum: Double = 0
    /// The anchor sample, board frame at the anchor time, µT; `nil` until the first sample.
    var anchorMicroTesla: Vector3?
    /// Time since the anchor, s.
    var anchorAgeS: Double = 0
    /// Time since the last equation, s (equations are taken at most every `equationIntervalS`).
    var equationAgeS: Double = 0
    /// The same sums without forgetting, each equation counted as a share of its anchor (those within one anchor
    /// interval share the anchor sample's noise): what the board's turning has told of the offset for good. A
    /// `restart` keeps it; `forgetMemory` drops it.
    var memory = Memory()

    /// Σ w·AᵀA, Σ w·Aᵀy, Σ w·|y|² and Σ w, as the tracker's own sums are.
    struct Memory: Sendable, Hashable, Codable {
        var information = Matrix3.zero
        var right = Vector3.zero
        var squares: Double = 0
        var weightSum: Double = 0
    }
    /// Rotation from the board frame now to the board frame at the anchor (`v_anchor = q.rotate(v_now)`),
    /// accumulated from the gyroscope.
    var rotationToAnchor = Quaternion.identity
    /// The rate at the anchor, rad/s (to refer the rotation to the magnetometer's delayed instants).
    var anchorRateRadS = Vector3.zero

    /// Shortest time between two equations, s: 0.01 (100 equations a second).
    public static let equationIntervalS = 0.01

    /// A tracker with no equations.
    public init() {}

    /// Forgets the window's equations (a new disturbance began: what came before may belong to another offset). The
    /// memory stays: an uncalibrated offset shows as a disturbance each time the board turns, and the memory is
    /// dropped only when its own equations stop agreeing (`forgetMemory`, `memoryResidualRMSMicroTesla`).
    public mutating func restart() {
        let kept = memory
        self = BoardFixedFieldTracker()
        memory = kept
    }

    /// Forgets the memory too.
    mutating func forgetMemory() { memory = Memory() }

    /// Accumulates one gyroscope step `step` (board frame before the step → after, `v_before = step.rotate(v_after)`).
    mutating func rotate(by step: Quaternion) {
        guard anchorMicroTesla != nil else { return }
        rotationToAnchor = Quaternion.hamilton(rotationToAnchor, step)
    }

    /// Adds the equation of a new magnetometer sample `fieldMicroTesla` (raw, board frame), taken `intervalS`
    /// after the previous one.
    /// The magnetometer senses `delayS` before the gyroscope's latest sample, so the rotation between two of its
    /// samples is the gyroscope's between the two earlier instants (extrapolated with the rates `rateRadS` now
    /// and at the anchor).
    mutating func add(
        _ fieldMicroTesla: Vector3, intervalS: Double, rateRadS: Vector3, delayS: Double, windowS: Double,
        anchorIntervalS: Double, noiseMicroTesla: Double, rateNoiseMicroTeslaPerRadS: Double
    ) {
        guard let anchor = anchorMicroTesla else {
            setAnchor(fieldMicroTesla, rateRadS: rateRadS)
            return
        }
        // Consecutive samples share the anchor and differ by a sliver of rotation: beyond 100 equations a second
        // they add noise-averaging only, which the window's length already gives.
        equationAgeS += intervalS
        anchorAgeS += intervalS
        guard equationAgeS >= Self.equationIntervalS || anchorAgeS >= anchorIntervalS else { return }
        let elapsedS = equationAgeS
        equationAgeS = 0
        rotationToAnchor = rotationToAnchor.renormalized
        let delayed =
            delayS > 0
            ? Quaternion.hamilton(
                Quaternion.hamilton(Quaternion.exponential(ofRotationVector: anchorRateRadS * delayS), rotationToAnchor),
                Quaternion.exponential(ofRotationVector: rateRadS * -delayS))
            : rotationToAnchor
        // C maps earth-fixed vectors from the anchor's board frame to the current one: the transpose of the
        // rotation matrix of the rotation to the anchor.
        let c = delayed.fastRotationMatrix.transposed
        let y = fieldMicroTesla - Matrix3.product(c, anchor)
        let forget = decayFactor(elapsedS / windowS)
        // The equation's noise: the magnetometer's, plus timing and gyroscope errors that grow with the rate.
        let rate = (anchorRateRadS.length + rateRadS.length) / 2
        let sigma = noiseMicroTesla + rateNoiseMicroTeslaPerRadS * rate
        let w = 1 / (sigma * sigma)
        // With A = I − C and C a rotation (CᵀC = I): AᵀA = 2I − C − Cᵀ and Aᵀy = y − Cᵀy.
        let ct = c.transposed
        information = forget * information + w * (Matrix3.diagonal(2) - c - ct)
        weightedRight = forget * weightedRight + w * (y - Matrix3.product(ct, y))
        weightedSquares = forget * weightedSquares + w * y.dot(y)
        weightSum = forget * weightSum + w
        let share = w * min(1, Self.equationIntervalS / max(anchorIntervalS, Self.equationIntervalS))
        memory.information = memory.information + share * (Matrix3.diagonal(2) - c - ct)
        memory.right = memory.right + share * (y - Matrix3.product(ct, y))
        memory.squares += share * y.dot(y)
        memory.weightSum += share
        if anchorAgeS >= anchorIntervalS { setAnchor(fieldMicroTesla, rateRadS: rateRadS) }
    }

    private mutating func setAnchor(_ fieldMicroTesla: Vector3, rateRadS: Vector3) {
        anchorMicroTesla = fieldMicroTesla
        anchorRateRadS = rateRadS
        rotationToAnchor = .identity
        anchorAgeS = 0
        equationAgeS = 0
    }

    /// The current estimate: the offset (board frame, µT), the standard deviation in its worst-determined
    /// direction (µT) and the RMS residual of the equations (µT); `nil` before the equations determine it.
    var estimate: (offsetMicroTesla: Vector3, worstSigmaMicroTesla: Double, residualRMSMicroTesla: Double)? {
        guard weightSum > 0, let inverse = information.inverse else { return nil }
        let smallest = information.smallestSymmetricEigenvalue
        guard smallest > 0 else { return nil }
        let offset = inverse * weightedRight
        // Σw|y − A·o|² = Σw|y|² − 2·oᵀΣwAᵀy + oᵀ(ΣwAᵀA)o, with the least-squares o: Σw|y|² − oᵀΣwAᵀy.
        let squares = max(0, weightedSquares - offset.dot(weightedRight))
        let residual = (squares / weightSum).squareRoot()
        return (offset, (1 / smallest).squareRoot(), residual)
    }

    /// The offset given every equation since the last restart and a prior of `priorSigmaMicroTesla` (µT, > 0, 1σ per
    /// board axis, mean zero): its mean (board frame, µT) and covariance (µT²). With no turning it is the prior; each
    /// axis the board has turned about determines the offset across it.
    func posterior(priorSigmaMicroTesla sigma: Double) -> (meanMicroTesla: Vector3, covarianceMicroTesla2: Matrix3)? {
        guard sigma > 0, let covariance = (memory.information + Matrix3.diagonal(1 / (sigma * sigma))).inverse else {
            return nil
        }
        return (covariance * memory.right, covariance)
    }

    /// The RMS residual of the memory's equations about `posterior`'s mean, µT; `nil` without equations.
    func memoryResidualRMSMicroTesla(meanMicroTesla o: Vector3) -> Double? {
        guard memory.weightSum > 0 else { return nil }
        let squares = memory.squares - 2 * o.dot(memory.right) + o.dot(memory.information * o)
        return (max(0, squares) / memory.weightSum).squareRoot()
    }

    /// `estimate` when it is well determined (worst-direction standard deviation ≤ `sigma`, µT) and consistent
    /// (RMS residual ≤ `residual`, µT), else `nil`.
    func acceptableEstimate(sigma: Double, residual: Double)
        -> (offsetMicroTesla: Vector3, worstSigmaMicroTesla: Double, residualRMSMicroTesla: Double)?
    {
        guard let e = estimate, e.worstSigmaMicroTesla <= sigma, e.residualRMSMicroTesla <= residual else { return nil }
        return e
    }
}
