import LodestoneCore

// Small dense linear algebra for the fits: nothing here is on a per-sample path (fits run once a second at
// most), so plain arrays are fine. Kept internal: another module may define its own `Matrix3` helpers, and
// public extensions with the same names would collide in a module that imports both.

/// A symmetric 3×3 matrix's eigen decomposition by cyclic Jacobi rotations (Golub & Van Loan, *Matrix
/// Computations*, 4th ed., §8.5.2): `m = V · diag(values) · Vᵀ`, columns of `V` the eigenvectors.
struct SymmetricEigen3 {
    /// Eigenvalues, ascending.
    var values: Vector3
    /// Eigenvectors as the columns of this matrix (so `vectors.transposed.row0` is the first eigenvector).
    var vectors: Matrix3

    init(_ m: Matrix3) {
        var a = [[m.row0.x, m.row0.y, m.row0.z], [m.row1.x, m.row1.y, m.row1.z], [m.row2.x, m.row2.y, m.row2.z]]
        // Symmetrise: callers pass symmetric matrices up to rounding.
        for i in 0..<3 { for j in (i + 1)..<3 { let s = (a[i][j] + a[j][i]) / 2; a[i][j] = s; a[j][i] = s } }
        var v = [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            let scale = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]
            if off <= 1e-30 * max(scale, 1e-300) { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                // The rotation that zeroes a[p][q] (the stable formulas of §8.5.2).
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        let order = [0, 1, 2].sorted { a[$0][$0] < a[$1][$1] }
        values = Vector3(a[order[0]][order[0]], a[order[1]][order[1]], a[order[2]][order[2]])
        vectors = Matrix3(
            rows: Vector3(v[0][order[0]], v[0][order[1]], v[0][order[2]]),
            Vector3(v[1][order[0]], v[1][order[1]], v[1][order[2]]),
            Vector3(v[2][order[0]], v[2][order[1]], v[2][order[2]]))
    }

    /// `V · diag(f(λ)) · Vᵀ`: a function of the matrix (square root, inverse square root).
    func map(_ f: (Double) -> Double) -> Matrix3 {
        let d = Vector3(f(values.x), f(values.y), f(values.z))
        let vt = vectors.transposed
        func entry(_ i: Int, _ j: Int) -> Double {
            vt.row0[i] * vt.row0[j] * d.x + vt.row1[i] * vt.row1[j] * d.y + vt.row2[i] * vt.row2[j] * d.z
        }
        return Matrix3(
            rows: Vector3(entry(0, 0), entry(0, 1), entry(0, 2)),
            Vector3(entry(1, 0), entry(1, 1), entry(1, 2)),
            Vector3(entry(2, 0), entry(2, 1), entry(2, 2)))
    }
}

extension Matrix3 {
    /// The inverse, or `nil` when the matrix is singular (|det| below 1e-300 relative to its scale).
    var inverted: Matrix3? {
        let d = determinant
        let scale = max(row0.length, row1.length, row2.length)
        guard d.isFinite, abs(d) > 1e-12 * scale * scale * scale else { return nil }
        // Rows of the inverse are the cross products of columns… equivalently the adjugate's transpose.
        let c0 = row1.cross(row2), c1 = row2.cross(row0), c2 = row0.cross(row1)
        return Matrix3(rows: c0, c1, c2).transposed * (1 / d)
    }

    /// Every entry times `k`.
    static func * (m: Matrix3, k: Double) -> Matrix3 { Matrix3(rows: m.row0 * k, m.row1 * k, m.row2 * k) }

    /// Entry-wise sum and difference.
    static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.row0 + b.row0, a.row1 + b.row1, a.row2 + b.row2) }
    static func - (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(rows: a.row0 - b.row0, a.row1 - b.row1, a.row2 - b.row2) }

    /// Entry (row `i`, column `j`), both 0…2.
    subscript(i: Int, j: Int) -> Double {
        switch i {
        case 0: row0[j]
        case 1: row1[j]
        default: row2[j]
        }
    }

    /// The largest absolute entry.
    var maximumAbsoluteEntry: Double {
        max(row0.absoluteValues.max(), row1.absoluteValues.max(), row2.absoluteValues.max())
    }

    /// True when every entry is finite.
    var isFinite: Bool { rowMajor.allSatisfy(\.isFinite) }

    /// A symmetric matrix from its six distinct entries.
    static func symmetric(xx: Double, yy: Double, zz: Double, xy: Double, xz: Double, yz: Double) -> Matrix3 {
        Matrix3(rows: Vector3(xx, xy, xz), Vector3(xy, yy, yz), Vector3(xz, yz, zz))
    }

    /// The outer product `a · bᵀ`.
    static func outer(_ a: Vector3, _ b: Vector3) -> Matrix3 { Matrix3(rows: b * a.x, b * a.y, b * a.z) }
}

/// Solves `A·x = b` for a square system (`a` row-major, `n`×`n`) by Gaussian elimination with partial
/// pivoting; `nil` when `A` is singular to working precision.
func solveLinearSystem(_ a: [Double], _ b: [Double], n: Int) -> [Double]? {
    guard a.count == n * n, b.count == n else { return nil }
    var m = a, x = b
    return solveLinearSystemInPlace(&m, &x, n: n) ? x : nil
}

/// `solveLinearSystem` in place: `m` is destroyed, `x` holds b on entry and the solution on a `true` return.
func solveLinearSystemInPlace(_ m: inout [Double], _ x: inout [Double], n: Int) -> Bool {
    guard m.count == n * n, x.count == n else { return false }
    var scale = 0.0
    for v in m { scale = max(scale, abs(v)) }
    guard scale.isFinite, scale > 0 else { return false }
    for col in 0..<n {
        var pivot = col
        for r in (col + 1)..<max(col + 1, n) where abs(m[r * n + col]) > abs(m[pivot * n + col]) { pivot = r }
        guard abs(m[pivot * n + col]) > 1e-14 * scale else { return false }
        if pivot != col {
            for k in 0..<n { m.swapAt(col * n + k, pivot * n + k) }
            x.swapAt(col, pivot)
        }
        let d = m[col * n + col]
        for r in (col + 1)..<max(col + 1, n) {
            let f = m[r * n + col] / d
            if f == 0 { continue }
            for k in col..<n { m[r * n + k] -= f * m[col * n + k] }
            x[r] -= f * x[col]
        }
    }
    for col in stride(from: n - 1, through: 0, by: -1) {
        var s = x[col]
        for k in (col + 1)..<max(col + 1, n) { s -= m[col * n + k] * x[k] }
        x[col] = s / m[col * n + col]
    }
    return x.allSatisfy(\.isFinite)
}

/// The median of `values` (which it sorts a copy of); 0 for an empty list.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let s = values.sorted()
    let mid = s.count / 2
    return s.count % 2 == 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

extension SIMD3 where Scalar == Double {
    /// Each component's absolute value.
    var absoluteValues: Self { Self(Swift.abs(x), Swift.abs(y), Swift.abs(z)) }
}
