import LodestoneCore
import LodestoneGeomagnetism
import RealModule

/// The magnetic declination for true heading: from the World Magnetic Model at the best known position and
/// date, or a fixed override.
///
/// The model is evaluated only when the position moves by more than `recomputeDistanceDeg` (0.01° of latitude,
/// about 1 km; the declination changes by far less than the model's own error over that distance) or the date by
/// more than `recomputeYears` (0.01 year, about 4 days); between those, the cached value is returned, so the
/// per-sample path costs a few comparisons.
public struct MagneticDeclination: Sendable {
    /// Movement that re-evaluates the model, degrees of latitude or longitude·cos(latitude).
    public static let recomputeDistanceDeg = 0.01
    /// Date change that re-evaluates the model, years.
    public static let recomputeYears = 0.01

    /// A fixed declination (degrees east) that replaces the model, e.g. 0 for a lab whose north is magnetic.
    public var overrideDeg: Double?
    private let model: WorldMagneticModel
    private var cached:
        (
            latitudeDeg: Double, longitudeDeg: Double, heightKm: Double, decimalYear: Double, declinationDeg: Double?,
            totalMicroTesla: Double?
        )?

    /// The model's total intensity at the position and date of the last evaluation, µT; `nil` when the model was not
    /// evaluated (an override, no position or date, outside the model).
    public var totalIntensityMicroTesla: Double? { overrideDeg == nil ? cached?.totalMicroTesla : nil }

    /// A declination source using `model` (default WMM2025) unless `overrideDeg` is set.
    public init(overrideDeg: Double? = nil, model: WorldMagneticModel = .wmm2025) {
        self.overrideDeg = overrideDeg
        self.model = model
    }

    /// The declination in degrees east of true north, or `nil` when it cannot be known: no override and no
    /// position or date, or a date or place outside the model (WMM2025: 2024-11-13 to 2030).
    ///
    /// - Parameters: geodetic latitude and longitude (deg, WGS84), height above the ellipsoid (m; 0 when
    ///   unknown: the declination barely depends on it near the ground), date as a decimal year.
    public mutating func declinationDeg(
        latitudeDeg: Double?, longitudeDeg: Double?, heightM: Double?,
        decimalYear: Double?
    ) -> Double? {
        if let overrideDeg { return overrideDeg }
        guard let lat = latitudeDeg, let lon = longitudeDeg, let year = decimalYear else { return nil }
        let heightKm = (heightM ?? 0) / 1000
        if let c = cached, abs(c.latitudeDeg - lat) < Self.recomputeDistanceDeg,
            abs(Angle.wrap180(c.longitudeDeg - lon)) * max(0.01, Double.cos(Angle.radians(fromDegrees: lat)))
                < Self.recomputeDistanceDeg,
            abs(c.heightKm - heightKm) < 1, abs(c.decimalYear - year) < Self.recomputeYears
        {
            return c.declinationDeg
        }
        let elements = try? model.elements(latitudeDeg: lat, longitudeDeg: lon, heightKm: heightKm, decimalYear: year)
        cached = (lat, lon, heightKm, year, elements?.declinationDeg, elements.map { $0.totalNT / 1000 })
        return elements?.declinationDeg
    }

    /// The decimal year of a calendar date (UTC midnight), or `nil` when the date does not exist.
    public static func decimalYear(year: Int, month: Int, day: Int) -> Double? {
        try? DecimalYear.from(year: year, month: month, day: day)
    }

    /// The decimal year (UTC, NOAA convention) of a time in seconds since 1970-01-01T00:00:00Z, or `nil` for a
    /// non-finite or pre-1970 time (`UTCCalendar.decimalYear(unixS:)`).
    public static func decimalYear(unixTimeS: Double) -> Double? {
        guard unixTimeS.isFinite, unixTimeS >= 0 else { return nil }
        return UTCCalendar.decimalYear(unixS: unixTimeS)
    }
}
