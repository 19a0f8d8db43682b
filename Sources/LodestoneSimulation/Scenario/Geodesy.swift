import LodestoneCore
import RealModule

/// The WGS84 ellipsoid and its normal gravity, as the trajectory generator uses them: `LodestoneCore`'s `WGS84`
/// (one source for the simulator and location fusion), under the simulator's name.
public typealias Geodesy = WGS84

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
