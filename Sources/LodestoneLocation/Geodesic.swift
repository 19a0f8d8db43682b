import LodestoneCore
import RealModule

/// Geodesics on an ellipsoid of revolution: the shortest path between two points, its length and azimuths
/// (the inverse problem), and the point a given distance along a given azimuth (the direct problem).
///
/// An implementation of C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87:43–55 (2013),
/// doi:10.1007/s00190-012-0578-z: the auxiliary sphere with series of order 6 in the third flattening
/// (§3; the coefficients are derived from the defining integrals by `Tests/Oracles/geodesic_series.py`), the
/// direct problem (§4), and the inverse problem by Newton's method on the azimuth (§5) with the astroid
/// starting point for nearly antipodal points (eq. 55–57) and bisection as a safeguard; areas from eq. 58–62.
/// Accurate to about 15 nm for WGS84 everywhere, including nearly antipodal points and points within
/// millimetres of a pole; checked against GeographicLib 2.1 on tables of hard cases (`Tests/Oracles/geodesic-*.csv`).
///
/// Angles are degrees: latitudes in [−90, 90], longitudes and azimuths any (results in (−180, 180]),
/// azimuths clockwise from north. Distances in metres. Allocation-free after `init`.
public struct Geodesic: Sendable {
    /// Equatorial radius a, m.
    public let equatorialRadiusM: Double
    /// Flattening f (0 ≤ f ≤ 1/50 for full accuracy; WGS84 1/298.257223563).
    public let flattening: Double
    /// Polar semi-axis b = a(1 − f), m.
    public let polarRadiusM: Double
    /// Authalic radius squared c² (the area of the ellipsoid is 4πc²), m².
    public let authalicRadiusSquaredM2: Double

    let f1: Double // 1 − f
    let e2: Double // e² = f(2 − f)
    let ep2: Double // e′² = e²/(1 − e²)
    let n: Double // third flattening f/(2 − f)
    let etol2: Double // short-line threshold of the starting guess
    let a3x: [Double] // A3 as a polynomial in ε (6 coefficients) for this n
    let c3x: [Double] // C3l, l = 1…5, each 6 coefficients in ε
    let c4x: [Double] // C4l, l = 0…5, each 6 coefficients in ε

    /// WGS84 (NIMA TR8350.2, Table 3.1): a = 6 378 137 m, 1/f = 298.257223563.
    public static let wgs84 = Geodesic(equatorialRadiusM: WGS84.semiMajorAxisM, flattening: WGS84.flattening)

    /// An ellipsoid with equatorial radius `equatorialRadiusM` (m, > 0) and flattening `flattening`
    /// (0 ≤ f < 1; the series are accurate for |f| ≤ 1/50, Karney 2013 §3).
    public init(equatorialRadiusM a: Double, flattening f: Double) {
        equatorialRadiusM = a
        flattening = f
        f1 = 1 - f
        e2 = f * (2 - f)
        ep2 = e2 / (f1 * f1)
        n = f / (2 - f)
        polarRadiusM = a * f1
        let b = a * f1
        let e = abs(e2).squareRoot()
        let ratio = e2 == 0 ? 1 : (e2 > 0 ? Double.atanh(e) / e : Double.atan(e) / e)
        authalicRadiusSquaredM2 = (a * a + b * b * ratio) / 2
        // Threshold below which the spherical starting guess of a short line is already the solution.
        etol2 =
            0.1 * GeoMath.epsilon.squareRoot()
            / (max(0.001, abs(f)) * min(1.0, 1 - f / 2) / 2).squareRoot()
        // Each table row is a polynomial in n (6 coefficients): evaluate it once for this ellipsoid.
        let third = f / (2 - f)
        func inN(_ table: [Double]) -> [Double] {
            stride(from: 0, to: table.count, by: 6).map { Self.polynomial(table, $0, 6, third) }
        }
        a3x = inN(GeodesicSeries.a3)
        c3x = inN(GeodesicSeries.c3)
        c4x = inN(GeodesicSeries.c4)
    }

    // MARK: - Series

    /// Horner evaluation of `coefficients[offset ..< offset + count]` (lowest power first) at `x`.
    @inline(__always)
    static func polynomial(_ coefficients: [Double], _ offset: Int, _ count: Int, _ x: Double) -> Double {
        var v = 0.0
        var k = offset + count - 1
        while k >= offset { v = v * x + coefficients[k]; k -= 1 }
        return v
    }

    /// A1 − 1 (eq. 17), from (1 − ε)A1 in ε.
    @inline(__always)
    static func a1MinusOne(_ eps: Double) -> Double {
        // (1 − ε)A1 = 1 + t: A1 − 1 = (t + ε)/(1 − ε), with t evaluated without its constant 1 (precision).
        let t = eps * polynomial(GeodesicSeries.a1, 1, 6, eps)
        return (t + eps) / (1 - eps)
    }

    /// A2 − 1 (eq. 42), from A2/(1 − ε) in ε.
    @inline(__always)
    static func a2MinusOne(_ eps: Double) -> Double {
        // A2/(1 − ε) = 1 + u: A2 − 1 = u(1 − ε) − ε.
        let u = eps * polynomial(GeodesicSeries.a2, 1, 6, eps)
        return u * (1 - eps) - eps
    }

    /// The six coefficients of a table of six rows (C1, C1′, C2) at `eps`, in lanes 1…6.
    @inline(__always)
    static func sixTerms(_ table: [Double], _ eps: Double) -> SIMD8<Double> {
        var c = SIMD8<Double>.zero
        for l in 1...6 { c[l] = polynomial(table, (l - 1) * 7, 7, eps) }
        return c
    }

    @inline(__always) func a3(_ eps: Double) -> Double { Self.polynomial(a3x, 0, 6, eps) }

    /// C3l, l = 1…5, in lanes 1…5.
    @inline(__always) func c3(_ eps: Double) -> SIMD8<Double> {
        var c = SIMD8<Double>.zero
        for l in 1...5 { c[l] = Self.polynomial(c3x, (l - 1) * 6, 6, eps) }
        return c
    }

    /// C4l, l = 0…5, in lanes 0…5.
    @inline(__always) func c4(_ eps: Double) -> SIMD8<Double> {
        var c = SIMD8<Double>.zero
        for l in 0...5 { c[l] = Self.polynomial(c4x, l * 6, 6, eps) }
        return c
    }

    /// Σ_{l=1}^{6} c_l sin 2lσ by Clenshaw summation, from sin σ and cos σ.
    @inline(__always)
    static func sineSeries(_ sinS: Double, _ cosS: Double, _ c: SIMD8<Double>, terms: Int = 6) -> Double {
        let alpha = 2 * (cosS - sinS) * (cosS + sinS) // 2 cos 2σ
        var b1 = 0.0, b2 = 0.0
        var k = terms
        while k >= 1 {
            let b0 = c[k] + alpha * b1 - b2
            b2 = b1; b1 = b0
            k -= 1
        }
        return 2 * sinS * cosS * b1 // sin 2σ · b1
    }

    /// Σ_{l=0}^{5} c_l cos (2l+1)σ by Clenshaw summation, from sin σ and cos σ.
    @inline(__always)
    static func oddCosineSeries(_ sinS: Double, _ cosS: Double, _ c: SIMD8<Double>) -> Double {
        let alpha = 2 * (cosS - sinS) * (cosS + sinS)
        var b1 = 0.0, b2 = 0.0
        var k = 5
        while k >= 0 {
            let b0 = c[k] + alpha * b1 - b2
            b2 = b1; b1 = b0
            k -= 1
        }
        return cosS * (b1 - b2)
    }

    /// ε = (√(1 + k²) − 1)/(√(1 + k²) + 1), written to keep precision for small k².
    @inline(__always)
    static func epsilon(k2: Double) -> Double { k2 / (2 * (1 + (1 + k2).squareRoot()) + k2) }

    /// Distance along the geodesic (over b) and reduced length (over b) between σ1 and σ2 (eq. 7, 38–41).
    func lengths(
        eps: Double, sigma12: Double, ssig1: Double, csig1: Double, dn1: Double,
        ssig2: Double, csig2: Double, dn2: Double
    ) -> (s12b: Double, m12b: Double) {
        let a1m1 = Self.a1MinusOne(eps), a2m1 = Self.a2MinusOne(eps)
        let c1 = Self.sixTerms(GeodesicSeries.c1, eps)
        let c2 = Self.sixTerms(GeodesicSeries.c2, eps)
        let b1 = Self.sineSeries(ssig2, csig2, c1) - Self.sineSeries(ssig1, csig1, c1)
        let b2 = Self.sineSeries(ssig2, csig2, c2) - Self.sineSeries(ssig1, csig1, c2)
        let a1 = 1 + a1m1, a2 = 1 + a2m1
        let s12b = a1 * (sigma12 + b1)
        // J(σ2) − J(σ1) with J = I1 − I2 (eq. 40), the constant parts combined to keep precision.
        let j12 = (a1m1 - a2m1) * sigma12 + (a1 * b1 - a2 * b2)
        let m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return (s12b, m12b)
    }
}
