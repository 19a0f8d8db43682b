import RealModule

/// A unit quaternion, Hamilton convention (i·j = k), scalar first.
///
/// Lodestone's orientation quaternions rotate **board-frame vectors into the earth frame (East-North-Up)**:
/// `v_enu = q ⊗ v_board ⊗ q*`. Names of stored orientations say so (`boardToENU`).
public struct Quaternion: Sendable, Hashable, Codable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w; self.x = x; self.y = y; self.z = z
    }

    /// The identity rotation.
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// A rotation of `angleRad` (right-hand rule) about `axis` (need not be normalised; a zero axis gives identity).
    @inlinable public init(axis: Vector3, angleRad: Double) {
        guard let u = axis.normalized else { self = .identity; return }
        let s = Double.sin(angleRad / 2)
        self.init(w: Double.cos(angleRad / 2), x: u.x * s, y: u.y * s, z: u.z * s)
    }

    /// The rotation vector `θ·û` as a quaternion (exponential map); exact for any magnitude.
    @inlinable public init(rotationVector r: Vector3) {
        let angle = r.length
        if angle < 1e-12 {
            self = Quaternion(w: 1, x: r.x / 2, y: r.y / 2, z: r.z / 2).normalized
        } else {
            self.init(axis: r, angleRad: angle)
        }
    }

    /// Hamilton product `a ⊗ b` (apply `b` first, then `a`).
    @inlinable public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// The conjugate (the inverse rotation for a unit quaternion).
    @inlinable public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// Euclidean norm.
    @inlinable public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// Scaled to unit norm (identity if the norm is zero).
    @inlinable public var normalized: Quaternion {
        let n = norm
        return n > 0 ? Quaternion(w: w / n, x: x / n, y: y / n, z: z / n) : .identity
    }

    /// Rotates `v` by this quaternion: `q ⊗ v ⊗ q*`.
    @inlinable public func rotate(_ v: Vector3) -> Vector3 {
        let u = Vector3(x, y, z)
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// The equivalent rotation matrix (`R · v == rotate(v)`).
    public var rotationMatrix: Matrix3 {
        Matrix3(
            rows: Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    /// Angle of the rotation taking `self` to `other`, in radians, in [0, π].
    public func angularDistanceRad(to other: Quaternion) -> Double {
        let d = abs(w * other.w + x * other.x + y * other.y + z * other.z)
        return 2 * Double.acos(min(1, d))
    }
}
