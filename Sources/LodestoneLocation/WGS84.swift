import RealModule

/// The WGS84 ellipsoid's radii of curvature and normal gravity, and the ISA pressure–altitude relation, as
/// location fusion needs them.
///
/// Sources: NIMA TR8350.2, *Department of Defense World Geodetic System 1984*, 3rd ed. (2000): Table 3.1,
/// the radii of curvature, Somigliana's formula (eq. 4-1) with the free-air correction (eq. 4-3); ISO 2533:1975
/// (International Standard Atmosphere) troposphere.
public enum WGS84 {
    /// Semi-major axis a, m.
    public static let semiMajorAxisM = 6_378_137.0
    /// Flattening f.
    public static let flattening = 1 / 298.257223563
    /// First eccentricity squared e².
    public static let eccentricitySquared = flattening * (2 - flattening)

    /// Meridian (M) and prime-vertical (N) radii of curvature at geodetic latitude `latitudeRad`, m.
    @inlinable public static func radiiOfCurvatureM(latitudeRad: Double) -> (meridian: Double, primeVertical: Double) {
        let s = Double.sin(latitudeRad)
        let w = 1 - eccentricitySquared * s * s
        let n = semiMajorAxisM / w.squareRoot()
        return (n * (1 - eccentricitySquared) / w, n)
    }

    /// Normal gravity, m/s², at geodetic latitude `latitudeRad` and `heightM` above the ellipsoid (TR8350.2
    /// eq. 4-1 and 4-3): 9.7803 at the equator, 9.8322 at the poles, −3.086e-6 per metre up.
    @inlinable public static func normalGravityMps2(latitudeRad: Double, heightM: Double) -> Double {
        let s2 = Double.sin(latitudeRad) * Double.sin(latitudeRad)
        let surface = 9.7803253359 * (1 + 0.00193185265241 * s2) / (1 - eccentricitySquared * s2).squareRoot()
        let m = 0.00344978650684   // ω²a²b/GM
        let a = semiMajorAxisM
        return surface * (1 - 2 / a * (1 + flattening + m - 2 * flattening * s2) * heightM + 3 / (a * a) * heightM * heightM)
    }

    /// ISA pressure altitude, m, of a static pressure `pressurePa` over the standard sea-level pressure
    /// 101 325 Pa (ISO 2533 troposphere: h = T0/L·(1 − (p/p0)^(R·L/(g0·M)))). Weather shifts it by ~8 m per hPa;
    /// fusion estimates that offset.
    @inlinable public static func isaAltitudeM(pressurePa: Double) -> Double {
        288.15 / 0.0065 * (1 - Double.pow(pressurePa / 101_325, 1 / 5.255877))
    }
}
