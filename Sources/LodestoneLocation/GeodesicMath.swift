import RealModule

/// Angle arithmetic in degrees with the care the geodesic algorithms need: exact reduction of whole multiples
/// of 90° (so that sin 90° is exactly 1 and the quadrant of a longitude difference near 180° is right),
/// error-free sums, and longitude differences carried with their rounding error.
///
/// Source: C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87:43–55 (2013), §2 and the
/// "careful treatment of angles" in its appendix; written afresh here.
enum GeoMath {
    /// Radians per degree.
    static let radiansPerDegree = Double.pi / 180
    /// The machine epsilon, 2⁻⁵².
    static let epsilon = Double.ulpOfOne
    /// A tiny positive number whose square does not underflow (√ of the least normal double).
    static let tiny = Double.leastNormalMagnitude.squareRoot()

    /// The sum `u + v` and its rounding error `t`, so that `s + t == u + v` exactly (Knuth's TwoSum).
    @inline(__always)
    static func sum(_ u: Double, _ v: Double) -> (s: Double, t: Double) {
        let s = u + v
        let vPrime = s - u
        let uPrime = s - vPrime
        let t = (u - uPrime) + (v - vPrime)
        return (s, s == 0 ? s : t) // s == 0: keep the sign of an exact zero sum in t (0 or −0)
    }

    /// `x` reduced to (−180°, 180°].
    @inline(__always)
    static func normalize(degrees x: Double) -> Double {
        let y = x.remainder(dividingBy: 360)
        return abs(y) == 180 ? 180 : y
    }

    /// The difference `y − x` of two angles, reduced to [−180°, 180°], and the rounding error of that
    /// difference: `(y − x) mod 360 == d + e` exactly.
    static func difference(from x: Double, to y: Double) -> (d: Double, e: Double) {
        let (s, t) = sum((-x).remainder(dividingBy: 360), y.remainder(dividingBy: 360))
        var d = normalize(degrees: s)
        // s was in (−360, 360]; after reduction d is in (−180, 180]. A 180 with a positive error is really
        // just above 180, i.e. just above −180.
        if d == 180 && t > 0 { d = -180 }
        let (dd, e) = sum(d, t)
        return (dd, e)
    }

    /// Rounds a small angle to a multiple of 2⁻⁵⁷·… so that values within ~1e-20° of zero become exactly
    /// representable offsets from 0 and 90 (avoids spurious underflow and makes 90° − x exact for tiny x).
    @inline(__always)
    static func round(_ x: Double) -> Double {
        let z = 1.0 / 16
        var y = abs(x)
        y = y < z ? z - (z - y) : y
        return x < 0 ? -y : (x == 0 ? x : y)
    }

    /// sin and cos of an angle in degrees, exact at multiples of 90° (the argument is reduced to [−45°, 45°]
    /// first, without rounding error).
    static func sinCos(degrees x: Double) -> (sin: Double, cos: Double) {
        var r = x.remainder(dividingBy: 360) // exact, in [−180, 180]
        let quotient = (r / 90).rounded() // −2 … 2
        r -= 90 * quotient // exact, in [−45, 45]
        let q = Int(quotient) & 3 // quadrant 0 … 3 (two's complement handles negatives)
        let radians = r * radiansPerDegree
        let s = Double.sin(radians), c = Double.cos(radians)
        var sinX: Double, cosX: Double
        switch q {
        case 0: sinX = s; cosX = c
        case 1: sinX = c; cosX = -s
        case 2: sinX = -s; cosX = -c
        default: sinX = -c; cosX = s
        }
        cosX += 0 // −0 → +0
        if sinX == 0 { sinX = x < 0 ? -0.0 : 0.0 } // sin(−0) = −0; sin(180°) = +0
        return (sinX, cosX)
    }

    /// atan2(y, x) in degrees, in (−180°, 180°]; exact at multiples of 45° and quadrant-correct.
    static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        var y = y, x = x
        var q = 0
        if abs(y) > abs(x) { swap(&x, &y); q = 2 }
        if x.sign == .minus { x = -x; q += 1 }
        // Here x ≥ 0 and |y| ≤ x: the angle is in [−45°, 45°].
        var angle = Double.atan2(y: y, x: x) / radiansPerDegree
        switch q {
        case 1: angle = (y.sign == .minus ? -180 : 180) - angle
        case 2: angle = 90 - angle
        case 3: angle = -90 + angle
        default: break
        }
        return angle
    }

    /// max(0, x) as +0 for x ≤ 0 (Swift's `max(0, -0.0)` is −0, and atan2(−0, −1) = −π, not π).
    @inline(__always)
    static func positivePart(_ x: Double) -> Double { x > 0 ? x : 0 }

    /// (s, c) scaled to unit length.
    @inline(__always)
    static func normalized(_ s: Double, _ c: Double) -> (Double, Double) {
        let r = Double.hypot(s, c)
        return (s / r, c / r)
    }
}
