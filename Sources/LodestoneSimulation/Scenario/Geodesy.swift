import RealModule

/// The WGS84 ellipsoid and its normal gravity, as the trajectory generator uses them.
///
/// Source: NIMA TR8350.2, *Department of Defense World Geodetic System 1984*, 3rd edition (2000):
/// defining parameters (Table 3.1) and derived constants, the standard radii of curvature, Somigliana's
/// normal gravity formula (eq. 4-1) and its height correction (eq. 4-3).
public enum Geodesy {
    /// WGS84 semi-major axis a, m.
    public static let semiMajorAxisM = 6_378_137.0
    /// WGS84 flattening f.
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

    /// Normal gravity magnitude, m/s², at geodetic latitude `latitudeRad` and `heightM` above the ellipsoid:
    /// Somigliana's closed formula with the second-order free-air correction (TR8350.2 eq. 4-1, 4-3).
    /// Directed along −up of the local ENU frame. 9.7803 m/s² at the equator, 9.8322 m/s² at the poles.
    @inlinable public static func normalGravityMps2(latitudeRad: Double, heightM: Double) -> Double {
        let s2 = Double.sin(latitudeRad) * Double.sin(latitudeRad)
        let surface = equatorialGravityMps2 * (1 + somiglianaConstant * s2) / (1 - eccentricitySquared * s2).squareRoot()
        let a = semiMajorAxisM
        return surface * (1 - 2 / a * (1 + flattening + gravityRatioM - 2 * flattening * s2) * heightM
            + 3 / (a * a) * heightM * heightM)
    }
}

/// The International Standard Atmosphere troposphere (ISO 2533:1975; ICAO Doc 7488), used for true static
/// pressure and air temperature in the simulation.
public enum StandardAtmosphere {
    /// Sea-level temperature T0, K.
    public static let seaLevelTemperatureK = 288.15
    /// Temperature lapse rate L in the troposphere, K/m.
    public static let lapseRateKPerM = 0.0065
    /// Exponent g0·M/(R·L) of the barometric formula (ISA: 5.255877).
    public static let barometricExponent = 5.255877
    /// Altitudes the troposphere formula is used for, m above MSL; inputs are clamped into this range so the
    /// result is always finite.
    public static let altitudeRangeM: ClosedRange<Double> = -5_000...11_000

    /// Static pressure, Pa, at `altitudeMSLM` (geopotential ≈ geometric height above MSL, m) when the
    /// sea-level pressure is `seaLevelPressurePa` (default ISA 101 325 Pa):
    /// p = p0·(1 − L·h/T0)^(g0·M/(R·L)). About −12.0 Pa/m at sea level, −11.5 Pa/m at 400 m.
    @inlinable public static func pressurePa(altitudeMSLM: Double,
                                             seaLevelPressurePa: Double = 101_325) -> Double {
        let h = min(max(altitudeMSLM, altitudeRangeM.lowerBound), altitudeRangeM.upperBound)
        return seaLevelPressurePa * Double.pow(1 - lapseRateKPerM * h / seaLevelTemperatureK, barometricExponent)
    }
}
