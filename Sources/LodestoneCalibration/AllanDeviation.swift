import LodestoneCore
import RealModule

/// Overlapping Allan deviation of a rate signal and the noise figures read from it.
///
/// Source: IEEE Std 952-1997 (R2008), *IEEE Standard Specification Format Guide and Test Procedure for
/// Single-Axis Interferometric Fiber Optic Gyros*, Annex C: with θₖ the integrated rate (`τ₀·Σ ωᵢ`),
/// σ²(τ = mτ₀) = Σₖ (θₖ₊₂ₘ − 2θₖ₊ₘ + θₖ)² / (2τ²(N − 2m)) (eq. C.11); white rate noise gives
/// σ(τ) = N/√τ (angle random walk N, read at τ = 1 s), flicker gives the floor 0.664·B (bias instability B,
/// eq. C.20), rate random walk gives σ(τ) = K·√(τ/3) (eq. C.24).
///
/// N and K are fitted together with the floor, as the model σ²(τ) = N²/τ + (0.664 B)² + K²τ/3, by least
/// squares over clusters up to N/9 samples, each point weighted by its certainty: the relative error of an
/// Allan variance from N samples in clusters of m is about 1/√(2(N/m − 1)) (Annex C.3), so the weight is
/// (N/m − 1)/σ⁴. A term whose fitted square comes out negative is dropped and the rest refitted. B is reported
/// as the curve's minimum / 0.664, the usual reading and an upper bound when the floor is hidden by the other
/// two terms.
public struct AllanDeviation: Sendable, Hashable, Codable {
    /// One point of the curve.
    public struct Point: Sendable, Hashable, Codable {
        /// Cluster time τ, s.
        public var tauS: Double
        /// Allan deviation, per axis, in the signal's unit (rad/s for a gyroscope).
        public var deviation: Vector3
    }

    /// The curve, τ ascending.
    public var points: [Point]
    /// N, angle random walk = white-noise density, per axis, rad/s/√Hz (= rad/√s). The per-sample standard
    /// deviation at rate f is N·√f.
    public var noiseDensity: Vector3
    /// B, bias instability, per axis, rad/s (minimum of the curve / 0.664).
    public var biasInstability: Vector3
    /// τ at the curve's minimum, per axis, s.
    public var biasInstabilityTauS: Vector3
    /// K, rate random walk, per axis, rad/s/√s (= rad/s²/√Hz); 0 when the capture is too short to see it.
    public var rateRandomWalk: Vector3

    /// The curve and figures for samples at a fixed interval `sampleIntervalS`; `nil` with fewer than 100 samples.
    public static func compute(samples: [Vector3], sampleIntervalS tau0: Double, pointsPerDecade: Int = 10) -> AllanDeviation? {
        let n = samples.count
        guard n >= 100, tau0 > 0, tau0.isFinite else { return nil }
        // θₖ = τ₀ Σ_{i<k} ωᵢ, k = 0…n.
        var theta = [Vector3](repeating: .zero, count: n + 1)
        for i in 0..<n { theta[i + 1] = theta[i] + samples[i] * tau0 }
        var clusters: [Int] = []
        let maximumM = n / 9
        var m = 1.0
        while Int(m) <= max(1, maximumM) {
            let mi = Int(m)
            if clusters.last != mi { clusters.append(mi) }
            m *= Double.pow(10, 1 / Double(max(pointsPerDecade, 1)))
        }
        var points: [Point] = []
        for mi in clusters where n - 2 * mi >= 1 {
            let tau = Double(mi) * tau0
            var sum = Vector3.zero
            for k in 0..<(n + 1 - 2 * mi) {
                let d = theta[k + 2 * mi] - 2 * theta[k + mi] + theta[k]
                sum += d * d
            }
            let variance = sum / (2 * tau * tau * Double(n + 1 - 2 * mi))
            points.append(Point(tauS: tau, deviation: variance.squareRoot()))
        }
        guard points.count >= 3 else { return nil }
        var density = Vector3.zero, instability = Vector3.zero, instabilityTau = Vector3.zero, walk = Vector3.zero
        for axis in 0..<3 {
            let (nCoefficient, kCoefficient) = fitModel(
                points.map { ($0.tauS, $0.deviation[axis], Double(n) * tau0 / $0.tauS - 1) })
            density[axis] = nCoefficient
            walk[axis] = kCoefficient
            let minimum = points.min { $0.deviation[axis] < $1.deviation[axis] }! // points is not empty
            instability[axis] = minimum.deviation[axis] / 0.664
            instabilityTau[axis] = minimum.tauS
        }
        return AllanDeviation(
            points: points, noiseDensity: density, biasInstability: instability,
            biasInstabilityTauS: instabilityTau, rateRandomWalk: walk)
    }

    /// Fits σ² = a/τ + b + cτ (a = N², b = floor², c = K²/3) with weights `clusters`/σ⁴; returns (N, K).
    static func fitModel(_ curve: [(tau: Double, sigma: Double, clusters: Double)]) -> (Double, Double) {
        var active = [true, true, true]
        for _ in 0..<3 {
            let indices = (0..<3).filter { active[$0] }
            guard !indices.isEmpty else { return (0, 0) }
            let count = indices.count
            var ata = [Double](repeating: 0, count: count * count), atb = [Double](repeating: 0, count: count)
            for (tau, sigma, clusters) in curve where sigma > 0 && clusters > 0 {
                let y = sigma * sigma
                let basis = [1 / tau, 1, tau]
                let w = clusters / (y * y)
                for (r, i) in indices.enumerated() {
                    atb[r] += w * basis[i] * y
                    for (c, j) in indices.enumerated() { ata[r * count + c] += w * basis[i] * basis[j] }
                }
            }
            guard let solution = solveLinearSystem(ata, atb, n: count) else { return (0, 0) }
            var coefficients = [0.0, 0, 0]
            for (r, i) in indices.enumerated() { coefficients[i] = solution[r] }
            if let negative = indices.first(where: { coefficients[$0] < 0 }) {
                active[negative] = false
                continue
            }
            return (coefficients[0].squareRoot(), (3 * coefficients[2]).squareRoot())
        }
        return (0, 0)
    }
}
