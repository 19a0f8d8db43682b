import RealModule

/// The International Standard Atmosphere, troposphere only (ISO 2533:1975; ICAO Doc 7488): one source for the
/// simulator's true static pressure (`LodestoneSimulation`), barometric altitude (`LodestoneMotion`) and location
/// fusion's barometer (`LodestoneLocation`). p = p₀·(1 − L·h/T₀)^(g₀·M/(R·L)), and h solved from it. `p₀` is the
/// sea-level pressure the altitude refers to: the standard 101 325 Pa gives *pressure altitude*, the local QNH
/// gives altitude above mean sea level.
///
/// About 8.3 m per hPa near sea level, 9.5 m per hPa at 1500 m. Heights are geopotential, which differ from
/// geometric heights by less than 0.05 % below 11 km.
public enum StandardAtmosphere {
    /// Sea-level standard temperature T₀, K (ISO 2533).
    public static let seaLevelTemperatureK = 288.15
    /// Temperature lapse rate L of the troposphere, K/m (ISO 2533).
    public static let lapseRateKPerM = 0.0065
    /// The exponent g₀·M/(R·L) = 9.80665 · 0.0289644 / (8.31432 · 0.0065) = 5.255 877 (ISO 2533).
    public static let exponent = 5.255877
    /// Pressures accepted, Pa: 20 kPa (about 11.8 km) to 120 kPa (about −1.6 km); values outside are clamped
    /// so the result stays finite.
    public static let pressureRangePa: ClosedRange<Double> = 20_000...120_000

    /// Altitude above the level where the pressure is `seaLevelPressurePa`, m, for a static pressure
    /// `pressurePa`: h = (T₀/L)·(1 − (p/p₀)^(1/n)). ISO 2533 table values: 89 874.6 Pa → 1000 m,
    /// 54 019.9 Pa → 5000 m (p₀ = 101 325 Pa).
    @inlinable public static func altitudeM(
        pressurePa: Double,
        seaLevelPressurePa: Double = PhysicalConstants.seaLevelPressurePa
    ) -> Double {
        let p = min(max(pressurePa, pressureRangePa.lowerBound), pressureRangePa.upperBound)
        return seaLevelTemperatureK / lapseRateKPerM * (1 - Double.pow(p / seaLevelPressurePa, 1 / exponent))
    }

    /// The sea-level pressure (QNH), Pa, that makes a static pressure `pressurePa` read as altitude `altitudeM`
    /// (m above mean sea level): p₀ = p / (1 − L·h/T₀)^n. The inverse of `altitudeM(pressurePa:seaLevelPressurePa:)`
    /// in its second argument.
    @inlinable public static func seaLevelPressurePa(pressurePa: Double, altitudeM: Double) -> Double {
        let base = max(1 - lapseRateKPerM * altitudeM / seaLevelTemperatureK, 0.1)
        return pressurePa / Double.pow(base, exponent)
    }

    /// dh/dp at `pressurePa`, m per Pa (negative: altitude falls as pressure rises). Converts a pressure noise
    /// into an altitude noise: 1 Pa ≈ 0.083 m at sea level.
    @inlinable public static func metresPerPascal(
        pressurePa: Double,
        seaLevelPressurePa: Double = PhysicalConstants.seaLevelPressurePa
    ) -> Double {
        let p = min(max(pressurePa, pressureRangePa.lowerBound), pressureRangePa.upperBound)
        return -seaLevelTemperatureK / (lapseRateKPerM * exponent * p) * Double.pow(p / seaLevelPressurePa, 1 / exponent)
    }
}

extension StandardAtmosphere {
    /// Altitudes `pressurePa(altitudeMSLM:seaLevelPressurePa:)` accepts, m above MSL; inputs are clamped into this
    /// range so the result is always finite.
    public static let altitudeRangeM: ClosedRange<Double> = -5_000...11_000

    /// Static pressure, Pa, at `altitudeMSLM` (geopotential ≈ geometric height above MSL, m) when the sea-level
    /// pressure is `seaLevelPressurePa` (default ISA 101 325 Pa): p = p₀·(1 − L·h/T₀)^(g₀·M/(R·L)). About
    /// −12.0 Pa/m at sea level, −11.5 Pa/m at 400 m. The inverse of `altitudeM(pressurePa:seaLevelPressurePa:)`.
    @inlinable public static func pressurePa(
        altitudeMSLM: Double,
        seaLevelPressurePa: Double = PhysicalConstants.seaLevelPressurePa
    ) -> Double {
        let h = min(max(altitudeMSLM, altitudeRangeM.lowerBound), altitudeRangeM.upperBound)
        return seaLevelPressurePa * Double.pow(1 - lapseRateKPerM * h / seaLevelTemperatureK, exponent)
    }
}
