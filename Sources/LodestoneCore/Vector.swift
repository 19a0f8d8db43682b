/// A 3-vector of `Double`. The frame and unit are part of the *name* of every value that holds one
/// (`accelerationBoardMps2`, `magneticFieldENUMicroTesla`), never implicit.
public typealias Vector3 = SIMD3<Double>

extension SIMD3 where Scalar == Double {
    /// Euclidean length.
    @inlinable public var length: Double { (self * self).sum().squareRoot() }
    /// Dot product.
    @inlinable public func dot(_ other: Self) -> Double { (self * other).sum() }
    /// Cross product (right-handed).
    @inlinable public func cross(_ o: Self) -> Self {
        Self(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
    /// This vector scaled to unit length; `nil` for a (near-)zero vector.
    @inlinable public var normalized: Self? {
        let n = length
        return n > 1e-300 ? self / n : nil
    }
}

/// A 3×3 matrix stored by rows. Used for mount matrices (same convention as the kernel's IIO
/// `mount_matrix`: `v_board = M · v_chip`) and soft-iron corrections.
public struct Matrix3: Sendable, Hashable, Codable {
    public var row0: Vector3
    public var row1: Vector3
    public var row2: Vector3

    /// A matrix from three rows.
    @inlinable public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        row0 = r0; row1 = r1; row2 = r2
    }

    /// A matrix from 9 numbers in row-major order. Returns `nil` unless exactly 9 finite numbers are given.
    public init?(rowMajor v: [Double]) {
        guard v.count == 9, v.allSatisfy(\.isFinite) else { return nil }
        self.init(rows: Vector3(v[0], v[1], v[2]), Vector3(v[3], v[4], v[5]), Vector3(v[6], v[7], v[8]))
    }

    /// The identity.
    public static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    /// The 9 entries in row-major order.
    public var rowMajor: [Double] { [row0.x, row0.y, row0.z, row1.x, row1.y, row1.z, row2.x, row2.y, row2.z] }

    /// Matrix × vector.
    @inlinable public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m.row0.dot(v), m.row1.dot(v), m.row2.dot(v))
    }

    /// Matrix × matrix.
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        return Matrix3(
            rows: Vector3(a.row0.dot(bt.row0), a.row0.dot(bt.row1), a.row0.dot(bt.row2)),
            Vector3(a.row1.dot(bt.row0), a.row1.dot(bt.row1), a.row1.dot(bt.row2)),
            Vector3(a.row2.dot(bt.row0), a.row2.dot(bt.row1), a.row2.dot(bt.row2)))
    }

    /// The transpose.
    public var transposed: Matrix3 {
        Matrix3(rows: Vector3(row0.x, row1.x, row2.x), Vector3(row0.y, row1.y, row2.y), Vector3(row0.z, row1.z, row2.z))
    }

    /// The determinant.
    public var determinant: Double { row0.dot(row1.cross(row2)) }

    /// True when the matrix is a rotation (orthonormal, determinant +1) within `tolerance`.
    public func isRotation(tolerance: Double = 1e-6) -> Bool {
        let p = self * transposed
        let d = [p.row0 - Vector3(1, 0, 0), p.row1 - Vector3(0, 1, 0), p.row2 - Vector3(0, 0, 1)]
        return d.allSatisfy { abs($0.x) < tolerance && abs($0.y) < tolerance && abs($0.z) < tolerance }
            && abs(determinant - 1) < tolerance
    }
}
