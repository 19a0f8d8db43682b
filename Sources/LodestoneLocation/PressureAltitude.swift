import RealModule

/// The ISA pressure–altitude relation, as location fusion needs it (the WGS84 ellipsoid and normal gravity are
/// `LodestoneCore`'s `WGS84`).
///
/// Source: ISO 2533:1975 (International Standard Atmosphere) troposphere.
public enum PressureAltitude {
    /// ISA pressure altitude, m, of a static pressure `pressurePa` over the standard sea-level pressure
    /// 101 325 Pa (ISO 2533 troposphere: h = T0/L·(1 − (p/p0)^(R·L/(g0·M)))). Weather shifts it by ~8 m per hPa;
    /// fusion estimates that offset.
    @inlinable public static func isaAltitudeM(pressurePa: Double) -> Double {
        288.15 / 0.0065 * (1 - Double.pow(pressurePa / 101_325, 1 / 5.255877))
    }
}
