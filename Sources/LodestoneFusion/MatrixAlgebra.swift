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
        return Matrix3(rows: Vector3(c0.x, c1.x, c2.x) * inv, Vector3(c0.y, c1.y, c2.y) * inv,
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
