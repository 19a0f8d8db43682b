import RealModule

/// The solution of the direct geodesic problem: where a geodesic ends.
public struct GeodesicPosition: Sendable, Hashable {
    /// Geodetic latitude of the end point, degrees, [−90, 90].
    public var latitudeDeg: Double
    /// Longitude of the end point, degrees, (−180, 180].
    public var longitudeDeg: Double
    /// Azimuth of the geodesic at the end point (direction of travel), degrees clockwise from north, (−180, 180].
    public var azimuthDeg: Double
    /// Arc length on the auxiliary sphere from the start, degrees.
    public var arcLengthDeg: Double
}

/// One geodesic, from a start point in a start direction, set up once so that points along it are cheap
/// (Karney 2013 §4: σ1, τ1 and the series of ε are computed here; each position costs one reversion of the
/// distance series, eq. 20–21, and the longitude series, eq. 8). Allocation-free.
public struct GeodesicLine: Sendable {
    /// The ellipsoid.
    public let geodesic: Geodesic
    /// Start latitude, degrees.
    public let latitudeDeg: Double
    /// Start longitude, degrees.
    public let longitudeDeg: Double
    /// Start azimuth, degrees clockwise from north, (−180, 180].
    public let azimuthDeg: Double

    let salp0: Double, calp0: Double
    let ssig1: Double, csig1: Double
    let somg1: Double, comg1: Double
    let stau1: Double, ctau1: Double
    let a1m1: Double
    let b11: Double
    let a3c: Double
    let b31: Double
    let c1p: SIMD8<Double>
    let c3: SIMD8<Double>

    /// The geodesic leaving (`latitudeDeg`, `longitudeDeg`) on azimuth `azimuthDeg` (degrees). `nil` when an
    /// input is not finite or the latitude is outside [−90°, 90°].
    public init?(geodesic: Geodesic = .wgs84, latitudeDeg: Double, longitudeDeg: Double, azimuthDeg: Double) {
        guard latitudeDeg.isFinite, longitudeDeg.isFinite, azimuthDeg.isFinite, abs(latitudeDeg) <= 90 else { return nil }
        self.geodesic = geodesic
        self.latitudeDeg = latitudeDeg
        self.longitudeDeg = longitudeDeg
        let azimuth = GeoMath.normalize(degrees: azimuthDeg)
        self.azimuthDeg = azimuth
        let (salp1, calp1) = GeoMath.sinCos(degrees: GeoMath.round(azimuth))
        var (sbet1, cbet1) = GeoMath.sinCos(degrees: GeoMath.round(latitudeDeg))
        (sbet1, cbet1) = GeoMath.normalized(geodesic.f1 * sbet1, cbet1)
        cbet1 = max(GeoMath.tiny, cbet1)
        // Clairaut (eq. 5) and σ1, ω1 (eq. 11); at a pole heading along a meridian σ1 = ±90°.
        salp0 = salp1 * cbet1
        calp0 = Double.hypot(calp1, salp1 * sbet1)
        somg1 = salp0 * sbet1
        let c = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        comg1 = c
        (ssig1, csig1) = GeoMath.normalized(sbet1, c)
        let k2 = calp0 * calp0 * geodesic.ep2
        let eps = Geodesic.epsilon(k2: k2)
        a1m1 = Geodesic.a1MinusOne(eps)
        let c1 = Geodesic.sixTerms(GeodesicSeries.c1, eps)
        b11 = Geodesic.sineSeries(ssig1, csig1, c1)
        // τ1 = σ1 + B11 (eq. 15 over A1).
        let s = Double.sin(b11), cb = Double.cos(b11)
        stau1 = ssig1 * cb + csig1 * s
        ctau1 = csig1 * cb - ssig1 * s
        c1p = Geodesic.sixTerms(GeodesicSeries.c1p, eps)
        a3c = -geodesic.flattening * salp0 * geodesic.a3(eps)
        c3 = geodesic.c3(eps)
        b31 = Geodesic.sineSeries(ssig1, csig1, c3, terms: 5)
    }

    /// The point `distanceM` metres along the geodesic (negative: backwards). `nil` for a non-finite distance.
    public func position(distanceM s12: Double) -> GeodesicPosition? {
        guard s12.isFinite else { return nil }
        let g = geodesic
        // τ12 = s12 / (b A1), σ2 from τ2 by the reverted series (eq. 20–21).
        let tau12 = s12 / (g.polarRadiusM * (1 + a1m1))
        let s = Double.sin(tau12), c = Double.cos(tau12)
        let b12 = -Geodesic.sineSeries(stau1 * c + ctau1 * s, ctau1 * c - stau1 * s, c1p)
        let sig12 = tau12 - (b12 - b11)
        let ssig12 = Double.sin(sig12), csig12 = Double.cos(sig12)
        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12
        // β2 and α2 (eq. 12–13).
        let sbet2 = calp0 * ssig2
        var cbet2 = Double.hypot(salp0, calp0 * csig2)
        if cbet2 == 0 { cbet2 = GeoMath.tiny; csig2 = GeoMath.tiny } // at a pole: keep the azimuth defined
        let salp2 = salp0, calp2 = calp0 * csig2
        // ω2 − ω1 (eq. 14) and λ12 = ω12 − f sin α0 (I3(σ2) − I3(σ1)) (eq. 8).
        let somg2 = salp0 * ssig2, comg2 = csig2
        let omg12 = Double.atan2(y: somg2 * comg1 - comg2 * somg1, x: comg2 * comg1 + somg2 * somg1)
        let lam12 = omg12 + a3c * (sig12 + (Geodesic.sineSeries(ssig2, csig2, c3, terms: 5) - b31))
        let lon12 = lam12 / GeoMath.radiansPerDegree
        let lon2 = GeoMath.normalize(degrees: GeoMath.normalize(degrees: longitudeDeg) + GeoMath.normalize(degrees: lon12))
        return GeodesicPosition(
            latitudeDeg: GeoMath.atan2Degrees(sbet2, g.f1 * cbet2),
            longitudeDeg: lon2,
            azimuthDeg: GeoMath.atan2Degrees(salp2, calp2),
            arcLengthDeg: sig12 / GeoMath.radiansPerDegree)
    }
}

extension Geodesic {
    /// Solves the direct problem: the point `distanceM` metres from (`latitudeDeg`, `longitudeDeg`) along
    /// the geodesic leaving on `azimuthDeg` (degrees clockwise from north). `nil` when an input is not finite
    /// or the latitude is outside [−90°, 90°].
    public func direct(
        latitudeDeg: Double, longitudeDeg: Double, azimuthDeg: Double,
        distanceM: Double
    ) -> GeodesicPosition? {
        GeodesicLine(geodesic: self, latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg, azimuthDeg: azimuthDeg)?
            .position(distanceM: distanceM)
    }
}
