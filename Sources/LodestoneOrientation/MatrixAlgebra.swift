import LodestoneCore
import RealModule

// The few 3×3 operations the filter's small Kalman updates need, on Core's row-major `Matrix3`. Internal:
// they are the filter's arithmetic, not a general linear-algebra API.

extension Matrix3 {
    /// The zero matrix.
    static let zero = Matrix3(rows: .zero, .zero, .zero)

    /// `s·I`.
    static func diagonal(_ s: Double) -> Matrix3 {
        Matrix3(rows: Vector3(s, 0, 0), Vector3(0, s, 0), Vector3(0, 0, s))
    }

    /// `diag(v)`.
    static func diagonal(_ v: Vector3) -> Matrix3 {
        Matrix3(rows: Vector3(v.x, 0, 0), Vector3(0, v.y, 0), Vector3(0, 0, v.z))
    }

    /// The outer product `a·bᵀ`.
    static func outer(_ a: Vector3, _ b: Vector3) -> Matrix3 {
        Matrix3(rows: a.x * b, a.y * b, a.z * b)
    }

    static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: a.row0 + b.row0, a.row1 + b.row1, a.row2 + b.row2)
    }

    static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: a.row0 - b.row0, a.row1 - b.row1, a.row2 - b.row2)
    }

    static func * (s: Double, m: Matrix3) -> Matrix3 {
        Matrix3(rows: s * m.row0, s * m.row1, s * m.row2)
    }

    /// The diagonal.
    var diagonalEntries: Vector3 { Vector3(row0.x, row1.y, row2.z) }

    /// The trace.
    var trace: Double { row0.x + row1.y + row2.z }

    /// The inverse by the adjugate, or `nil` when the matrix is singular (|det| below `1e-300` or not finite).
    var inverse: Matrix3? {
        let c0 = row1.cross(row2), c1 = row2.cross(row0), c2 = row0.cross(row1)
        let det = row0.dot(c0)
        guard abs(det) > 1e-300, det.isFinite else { return nil }
        // The rows of the inverse are the columns of [c0 c1 c2] / det.
        let inv = 1 / det
        return Matrix3(
            rows: Vector3(c0.x, c1.x, c2.x) * inv, Vector3(c0.y, c1.y, c2.y) * inv,
            Vector3(c0.z, c1.z, c2.z) * inv)
    }

    /// `(M + Mᵀ)/2`: removes the asymmetry rounding leaves in a covariance after an update.
    var symmetrized: Matrix3 {
        let xy = (row0.y + row1.x) / 2, xz = (row0.z + row2.x) / 2, yz = (row1.z + row2.y) / 2
        return Matrix3(rows: Vector3(row0.x, xy, xz), Vector3(xy, row1.y, yz), Vector3(xz, yz, row2.z))
    }

    /// The smallest eigenvalue of a symmetric matrix (closed form for 3×3: Smith, *Eigenvalues of a symmetric
    /// 3×3 matrix*, CACM 4(4):168, 1961).
    var smallestSymmetricEigenvalue: Double {
        let p1 = row0.y * row0.y + row0.z * row0.z + row1.z * row1.z
        let q = trace / 3
        if p1 < 1e-30 { return min(row0.x, row1.y, row2.z) }
        let p2 = (row0.x - q) * (row0.x - q) + (row1.y - q) * (row1.y - q) + (row2.z - q) * (row2.z - q) + 2 * p1
        let p = (p2 / 6).squareRoot()
        let b = (1 / p) * (self - .diagonal(q))
        let r = max(-1, min(1, b.determinant / 2))
        let phi = Double.acos(r) / 3
        // The eigenvalues are q + 2p·cos(φ + 2πk/3); k = 1 gives the smallest.
        return q + 2 * p * Double.cos(phi + 2 * Double.pi / 3)
    }
}

extension Quaternion {
    /// The rotation vector `r` (rad) as a quaternion, exactly like `init(rotationVector:)`, but without a sine or
    /// cosine for the small angles of one sample (|r| < 0.1 rad, under 5.7°): Taylor series of cos(θ/2) and
    /// sin(θ/2)/θ to the θ⁶ term, whose truncation error (< 2·10⁻¹³) is below a unit-norm Double's rounding
    /// after the product. Larger angles take the exact path.
    static func exponential(ofRotationVector r: Vector3) -> Quaternion {
        let t2 = r.dot(r)
        guard t2 < 0.01 else { return Quaternion(rotationVector: r) }
        // cos(θ/2) = 1 − θ²/8 + θ⁴/384 − θ⁶/46080; sin(θ/2)/θ = 1/2 − θ²/48 + θ⁴/3840 − θ⁶/645120.
        let w = 1 + t2 * (-1.0 / 8 + t2 * (1.0 / 384 - t2 / 46_080))
        let s = 0.5 + t2 * (-1.0 / 48 + t2 * (1.0 / 3_840 - t2 / 645_120))
        return Quaternion(w: w, x: r.x * s, y: r.y * s, z: r.z * s)
    }
}

/// `exp(−x)` for the small `x` of one sample against a long time constant (x < 0.01): 1 − x + x²/2 − x³/6,
/// error below 5·10⁻¹¹; larger `x` takes the exact path.
func decayFactor(_ x: Double) -> Double {
    x < 0.01 ? 1 - x * (1 - x * (0.5 - x / 6)) : Double.exp(-x)
}

// Inlined versions of Core's matrix arithmetic for the filter's small Kalman updates: Core's `*` and
// `rotationMatrix` are not `@inlinable`, so across the module boundary each is a call that cannot be fused with
// its neighbours; these are (fileprivate names, so Core's public API keeps its meaning everywhere else).
extension Matrix3 {
    /// `a·b`, row by row: each row of the product is a combination of the rows of `b`.
    @inline(__always) static func product(_ a: Matrix3, _ b: Matrix3) -> Matrix3 {
        Matrix3(
            rows: a.row0.x * b.row0 + a.row0.y * b.row1 + a.row0.z * b.row2,
            a.row1.x * b.row0 + a.row1.y * b.row1 + a.row1.z * b.row2,
            a.row2.x * b.row0 + a.row2.y * b.row1 + a.row2.z * b.row2)
    }

    /// `m·v`.
    @inline(__always) static func product(_ m: Matrix3, _ v: Vector3) -> Vector3 {
        Vector3((m.row0 * v).sum(), (m.row1 * v).sum(), (m.row2 * v).sum())
    }

    /// `a·bᵀ`.
    @inline(__always) static func productWithTranspose(_ a: Matrix3, _ b: Matrix3) -> Matrix3 {
        Matrix3(
            rows: Vector3((a.row0 * b.row0).sum(), (a.row0 * b.row1).sum(), (a.row0 * b.row2).sum()),
            Vector3((a.row1 * b.row0).sum(), (a.row1 * b.row1).sum(), (a.row1 * b.row2).sum()),
            Vector3((a.row2 * b.row0).sum(), (a.row2 * b.row1).sum(), (a.row2 * b.row2).sum()))
    }
}

extension Quaternion {
    /// The Hamilton product `a ⊗ b`, as Core's `*`, forced inline on the per-sample path.
    @inline(__always) static func hamilton(_ a: Quaternion, _ b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// `rotate(_:)` (`q ⊗ v ⊗ q*`), forced inline.
    @inline(__always) func rotating(_ v: Vector3) -> Vector3 {
        let u = Vector3(x, y, z)
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// `normalized` with one division (the quaternions here are within rounding of unit norm, never zero).
    @inline(__always) var renormalized: Quaternion {
        let inverse = 1 / (w * w + x * x + y * y + z * z).squareRoot()
        return Quaternion(w: w * inverse, x: x * inverse, y: y * inverse, z: z * inverse)
    }

    /// `rotationMatrix`, inlined (`R·v == rotate(v)`).
    @inline(__always) var fastRotationMatrix: Matrix3 {
        Matrix3(
            rows: Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }
}
