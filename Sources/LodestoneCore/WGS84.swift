import RealModule

/// The WGS84 ellipsoid: its defining constants, radii of curvature and normal gravity — one source for the
/// simulator's trajectories (`LodestoneSimulation`, which calls it `Geodesy`) and location fusion
/// (`LodestoneLocation`).
///
/// Source: NIMA TR8350.2, *Department of Defense World Geodetic System 1984*, 3rd edition (2000):
/// defining parameters (Table 3.1) and derived constants, the standard radii of curvature, Somigliana's
/// normal gravity formula (eq. 4-1) and its height correction (eq. 4-3).
public enum WGS84 {
    /// Semi-major axis a, m.
    public static let semiMajorAxisM = 6_378_137.0
    /// Flattening f.
    public static let flattening = 1 / 298.257223563
    /// First eccentricity squared e² = f(2 − f).
    public static let eccentricitySquared = flattening * (2 - flattening)
    /// Normal gravity at the equator γe, m/s² (TR8350.2 derived physical constants).
    public static let equatorialGravityMps2 = 9.7803253359
    /// Somigliana's constant k (TR8350.2 derived physical constants).
    public static let somiglianaConstant = 0.00193185265241
    /// m = ω²a²b/GM (TR8350.2 derived physical constants).
    public static let gravityRatioM = 0.00344978650684

    /// Meridian radius of curvature M = a(1 − e²)/(1 − e² sin²φ)^{3/2}, m, at geodetic latitude `latitudeRad`.
    @inlinable public static func meridianRadiusM(latitudeRad: Double) -> Double {
        let s = Double.sin(latitudeRad)
        let w = 1 - eccentricitySquared * s * s
        return semiMajorAxisM * (1 - eccentricitySquared) / (w * w.squareRoot())
    }

    /// Prime-vertical radius of curvature N = a/(1 − e² sin²φ)^{1/2}, m, at geodetic latitude `latitudeRad`.
    @inlinable public static func primeVerticalRadiusM(latitudeRad: Double) -> Double {
        let s = Double.sin(latitudeRad)
        return semiMajorAxisM / (1 - eccentricitySquared * s * s).squareRoot()
    }

    /// Meridian (M) and prime-vertical (N) radii of curvature at geodetic latitude `latitudeRad`, m.
    @inlinable public static func radiiOfCurvatureM(latitudeRad: Double) -> (meridian: Double, primeVertical: Double) {
        (meridianRadiusM(latitudeRad: latitudeRad), primeVerticalRadiusM(latitudeRad: latitudeRad))
    }

    /// Normal gravity magnitude, m/s², at geodetic latitude `latitudeRad` and `heightM` above the ellipsoid:
    /// Somigliana's closed formula with the second-order free-air correction (TR8350.2 eq. 4-1, 4-3).
    /// Directed along −up of the local ENU frame. 9.7803 m/s² at the equator, 9.8322 m/s² at the poles,
    /// −3.086e-6 m/s² per metre up.
    @inlinable public static func normalGravityMps2(latitudeRad: Double, heightM: Double) -> Double {
        let s2 = Double.sin(latitudeRad) * Double.sin(latitudeRad)
        let surface = equatorialGravityMps2 * (1 + somiglianaConstant * s2) / (1 - eccentricitySquared * s2).squareRoot()
        let a = semiMajorAxisM
        return surface
            * (1 - 2 / a * (1 + flattening + gravityRatioM - 2 * flattening * s2) * heightM
                + 3 / (a * a) * heightM * heightM)
    }
}
