import LodestoneCore
import RealModule

/// Fits a magnetometer's hard iron and soft iron: the measured field `m` lies on an ellipsoid
/// `|W·(m − h)| = F`, with `h` the hard-iron offset, `W` a symmetric positive-definite soft-iron correction
/// of determinant 1, and `F` the field strength the corrected sensor sees.
///
/// Three steps (none on a per-sample path; a fit of 4000 samples takes a few milliseconds):
/// 1. **Algebraic fit** of the general quadric `xᵀAx + 2bᵀx = 1` by linear least squares on centred, scaled
///    data (the "ellipsoid-specific" form of Li & Griffiths, *Least Squares Ellipsoid Specific Fitting*,
///    GMP 2004, without their constraint: a well-covered sphere gives an ellipsoid; anything else is
///    reported as not an ellipsoid). When coverage is too thin for 9 parameters, a sphere fit (4 linear
///    parameters: hard iron and radius, `W = I`) is used instead.
/// 2. **Geometric refinement** by Levenberg–Marquardt of the 9 parameters (h, the 6 entries of a symmetric
///    W) on the radial residual `rᵢ = |W·(mᵢ − h)| − F₀` (Moré, *The Levenberg–Marquardt algorithm:
///    implementation and theory*, 1978), then `W` renormalised to determinant 1 and `F = F₀ / det(W)^⅓`.
///    Symmetric `W` removes the rotation the ellipsoid cannot determine (any `R·W` fits as well), as in
///    Vasconcelos et al., *Geometric approach to strapdown magnetometer calibration in sensor frame*, IEEE
///    TAES 47(2), 2011.
/// 3. **Robustness**: iteratively reweighted: residuals beyond `max(outlierSigmas · 1.4826 · MAD,
///    minimumOutlierMicroTesla)` get weight 0 and the refinement is repeated (at most three rounds), so a
///    few samples taken next to a magnet or during a glitch do not bend the fit.
public struct EllipsoidFit: Sendable, Hashable, Codable {
    /// Tunables of the fit, with their defaults.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Residuals beyond this many robust standard deviations (1.4826·MAD) are outliers. Default 4.
        public var outlierSigmas = 4.0
        /// …but never below this, µT (a fit with tiny noise would otherwise call ordinary samples outliers).
        /// Default 1.5 µT.
        public var minimumOutlierMicroTesla = 1.5
        /// Refinement iterations per round, at most. Default 50.
        public var maximumIterations = 50
        /// Fit a sphere (hard iron only, `W = I`) rather than an ellipsoid. Default false.
        public var sphereOnly = false
        /// Rounds of outlier rejection and refitting, at least 1. Default 3.
        public var robustRounds = 3
        public init() {}
    }

    /// Hard-iron offset, µT, in the axes of the samples (board axes for Lodestone's magnetometers).
    public var hardIronMicroTesla: Vector3
    /// Soft-iron correction `W`, symmetric, positive definite, det 1: calibrated = `W · (raw − hardIron)`.
    public var softIronCorrection: Matrix3
    /// Field strength the calibrated sensor sees, µT: the radius of the corrected sphere.
    public var fieldStrengthMicroTesla: Double
    /// RMS of the radial residuals of the inliers, µT: how far samples lie from the fitted ellipsoid.
    public var residualMicroTesla: Double
    /// Samples used (inliers) and rejected (outliers).
    public var inlierCount: Int
    public var outlierCount: Int
    /// True when the fit fell back to a sphere (hard iron only).
    public var isSphere: Bool
    /// Samples whose radial residual is beyond this, µT, are the outliers.
    public var outlierLimitMicroTesla: Double

    /// True when `rawMicroTesla` lies within the outlier limit of the fitted ellipsoid.
    public func isInlier(_ rawMicroTesla: Vector3) -> Bool {
        abs(corrected(rawMicroTesla).length - fieldStrengthMicroTesla) <= outlierLimitMicroTesla
    }

    /// Why a fit has no answer.
    public enum Failure: Error, Sendable, Hashable {
        /// Fewer samples than the parameters need (a sphere needs 4, an ellipsoid 9; the fit wants ≥ 20).
        case tooFewSamples(count: Int)
        /// The samples do not describe an ellipsoid (not enough spread, or a degenerate arrangement).
        case notAnEllipsoid
        /// The refinement did not settle on finite parameters.
        case didNotConverge
    }

    /// Fewest samples `fit` accepts.
    public static let minimumSamples = 20

    /// The calibrated field of one raw sample, µT.
    @inlinable public func corrected(_ rawMicroTesla: Vector3) -> Vector3 {
        softIronCorrection * (rawMicroTesla - hardIronMicroTesla)
    }

    /// Fits `samples` (µT). Throws `Failure` when no ellipsoid (or sphere) fits.
    public static func fit(_ samples: [Vector3], parameters: Parameters = Parameters()) throws(Failure) -> EllipsoidFit {
        let points = samples.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
        guard points.count >= minimumSamples else { throw .tooFewSamples(count: points.count) }

        // Centre and scale for conditioning: the algebraic fit's normal equations mix x⁴ with x terms.
        var mean = Vector3.zero
        for p in points { mean += p }
        mean /= Double(points.count)
        var spread = 0.0
        for p in points { spread += (p - mean).dot(p - mean) }
        spread = (spread / Double(points.count)).squareRoot()
        guard spread > 1e-9 else { throw .notAnEllipsoid }

        var start: (center: Vector3, w: Matrix3, radius: Double)?
        var sphere = parameters.sphereOnly
        if !sphere { start = algebraicEllipsoid(points, mean: mean, scale: spread) }
        if start == nil {
            sphere = true
            start = algebraicSphere(points, mean: mean, scale: spread)
        }
        guard var (center, w, radius) = start else { throw .notAnEllipsoid }

        var weights = [Double](repeating: 1, count: points.count)
        var outliers = 0
        var limit = Double.infinity
        for _ in 0..<max(1, parameters.robustRounds) {
            guard
                let refined = refine(
                    points, weights: weights, center: center, w: w, radius: radius,
                    sphere: sphere, maximumIterations: parameters.maximumIterations)
            else { throw .didNotConverge }
            (center, w, radius) = refined
            // Robust scale of the residuals and the new weights.
            let residuals = points.map { (w * ($0 - center)).length - radius }
            let middle = median(residuals)
            let mad = median(residuals.map { abs($0 - middle) })
            limit = max(parameters.outlierSigmas * 1.4826 * mad, parameters.minimumOutlierMicroTesla)
            var changed = false
            var count = 0
            for i in points.indices {
                let keep: Double = abs(residuals[i]) <= limit ? 1 : 0
                if keep == 0 { count += 1 }
                if keep != weights[i] { changed = true; weights[i] = keep }
            }
            outliers = count
            if !changed { break }
            guard points.count - outliers >= minimumSamples else { throw .notAnEllipsoid }
        }

        // Normalise: det(W) = 1 and F the radius in those units.
        let det = w.determinant
        guard det > 0, det.isFinite else { throw .notAnEllipsoid }
        let s = Double.pow(det, 1.0 / 3)
        let wn = w * (1 / s)
        let f = radius / s
        var sum = 0.0, n = 0
        for i in points.indices where weights[i] > 0 {
            let r = (wn * (points[i] - center)).length - f
            sum += r * r
            n += 1
        }
        let result = EllipsoidFit(
            hardIronMicroTesla: center, softIronCorrection: wn, fieldStrengthMicroTesla: f,
            residualMicroTesla: (sum / Double(max(n, 1))).squareRoot(), inlierCount: n,
            outlierCount: outliers, isSphere: sphere, outlierLimitMicroTesla: limit / s)
        guard result.hardIronMicroTesla.x.isFinite, result.hardIronMicroTesla.y.isFinite, result.hardIronMicroTesla.z.isFinite,
            result.softIronCorrection.isFinite, f.isFinite, f > 0
        else { throw .didNotConverge }
        return result
    }

    /// The quadric fit; `nil` when the quadric is not an ellipsoid.
    static func algebraicEllipsoid(_ points: [Vector3], mean: Vector3, scale: Double) -> (Vector3, Matrix3, Double)? {
        // Unknowns p: a b c (x² y² z²), d e f (2xy 2xz 2yz), g h i (2x 2y 2z); equation p·v = 1.
        var ata = [Double](repeating: 0, count: 81), atb = [Double](repeating: 0, count: 9)
        var v = [Double](repeating: 0, count: 9)
        for p in points {
            let q = (p - mean) / scale
            v[0] = q.x * q.x; v[1] = q.y * q.y; v[2] = q.z * q.z
            v[3] = 2 * q.x * q.y; v[4] = 2 * q.x * q.z; v[5] = 2 * q.y * q.z
            v[6] = 2 * q.x; v[7] = 2 * q.y; v[8] = 2 * q.z
            for i in 0..<9 {
                atb[i] += v[i]
                for j in i..<9 { ata[i * 9 + j] += v[i] * v[j] }
            }
        }
        for i in 0..<9 { for j in 0..<i { ata[i * 9 + j] = ata[j * 9 + i] } }
        guard let p = solveLinearSystem(ata, atb, n: 9) else { return nil }
        let a = Matrix3.symmetric(xx: p[0], yy: p[1], zz: p[2], xy: p[3], xz: p[4], yz: p[5])
        let b = Vector3(p[6], p[7], p[8])
        guard let aInverse = a.inverted else { return nil }
        let c = -(aInverse * b)
        let k = 1 + c.dot(a * c)
        guard k > 0 else { return nil }
        let eigen = SymmetricEigen3(a * (1 / k))
        guard eigen.values.x > 0, eigen.values.min() > 1e-6 * eigen.values.max() else { return nil }
        // (q − c)ᵀ A' (q − c) = 1 in scaled units: W₀ = √A', radius 1; back to µT: centre·scale + mean, radius·scale.
        let w = eigen.map { $0.squareRoot() }
        return (c * scale + mean, w, scale)
    }

    /// The sphere fit |m − c|² = r² as the linear problem 2c·m + (r² − |c|²) = |m|²; `nil` when degenerate.
    static func algebraicSphere(_ points: [Vector3], mean: Vector3, scale: Double) -> (Vector3, Matrix3, Double)? {
        var ata = [Double](repeating: 0, count: 16), atb = [Double](repeating: 0, count: 4)
        for p in points {
            let q = (p - mean) / scale
            let v = [2 * q.x, 2 * q.y, 2 * q.z, 1]
            let rhs = q.dot(q)
            for i in 0..<4 {
                atb[i] += v[i] * rhs
                for j in 0..<4 { ata[i * 4 + j] += v[i] * v[j] }
            }
        }
        guard let s = solveLinearSystem(ata, atb, n: 4) else { return nil }
        let c = Vector3(s[0], s[1], s[2])
        let r2 = s[3] + c.dot(c)
        guard r2 > 0 else { return nil }
        return (c * scale + mean, .identity, r2.squareRoot() * scale)
    }

    /// Levenberg–Marquardt on the radial residual with `radius` held fixed (the scale of `W` is free, so all
    /// 9 parameters are identifiable); the sphere variant moves only the centre and the radius.
    static func refine(
        _ points: [Vector3], weights: [Double], center c0: Vector3, w w0: Matrix3, radius: Double,
        sphere: Bool, maximumIterations: Int
    ) -> (Vector3, Matrix3, Double)? {
        let n = sphere ? 4 : 9
        var center = c0, w = w0, r0 = radius
        func cost(_ c: Vector3, _ w: Matrix3, _ r: Double) -> Double {
            var s = 0.0
            for i in points.indices where weights[i] > 0 {
                let e = (w * (points[i] - c)).length - r
                s += e * e
            }
            return s
        }
        var current = cost(center, w, r0)
        var lambda = 1e-3
        var jtj = [Double](repeating: 0, count: n * n), jtr = [Double](repeating: 0, count: n)
        var j = [Double](repeating: 0, count: n)
        var damped = [Double](repeating: 0, count: n * n), step = [Double](repeating: 0, count: n)
        for _ in 0..<maximumIterations {
            for k in 0..<(n * n) { jtj[k] = 0 }
            for k in 0..<n { jtr[k] = 0 }
            for i in points.indices where weights[i] > 0 {
                let u = points[i] - center
                let v = w * u
                let len = v.length
                guard len > 1e-12 else { continue }
                let e = v / len
                let residual = len - r0
                let dc = -(w.transposed * e)
                j[0] = dc.x; j[1] = dc.y; j[2] = dc.z
                if sphere {
                    j[3] = -1
                } else {
                    j[3] = e.x * u.x; j[4] = e.y * u.y; j[5] = e.z * u.z
                    j[6] = e.x * u.y + e.y * u.x; j[7] = e.x * u.z + e.z * u.x; j[8] = e.y * u.z + e.z * u.y
                }
                for a in 0..<n {
                    jtr[a] += j[a] * residual
                    for b in a..<n { jtj[a * n + b] += j[a] * j[b] }
                }
            }
            for a in 0..<n { for b in 0..<a { jtj[a * n + b] = jtj[b * n + a] } }
            var improved = false
            for _ in 0..<10 {
                for k in 0..<(n * n) { damped[k] = jtj[k] }
                for a in 0..<n { damped[a * n + a] += lambda * max(jtj[a * n + a], 1e-12); step[a] = -jtr[a] }
                guard solveLinearSystemInPlace(&damped, &step, n: n) else { lambda *= 10; continue }
                let c1 = center + Vector3(step[0], step[1], step[2])
                var w1 = w, r1 = r0
                if sphere {
                    r1 = r0 + step[3]
                } else {
                    w1 = w + Matrix3.symmetric(xx: step[3], yy: step[4], zz: step[5], xy: step[6], xz: step[7], yz: step[8])
                }
                let trial = cost(c1, w1, r1)
                if trial.isFinite, trial <= current {
                    let relative = (current - trial) / max(current, 1e-300)
                    center = c1; w = w1; r0 = r1; current = trial
                    lambda = max(lambda / 10, 1e-12)
                    improved = true
                    if relative < 1e-12 { return (center, w, r0) }
                    break
                }
                lambda *= 10
            }
            if !improved { break }
        }
        guard center.x.isFinite, center.y.isFinite, center.z.isFinite, w.isFinite, r0.isFinite else { return nil }
        return (center, w, r0)
    }
}
