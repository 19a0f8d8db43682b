import LodestoneCore

/// Calendar dates as decimal years, the time argument of the World Magnetic Model.
///
/// NOAA convention (WMM2025 README; NOAA `geomaglib.util.calc_dec_year`): `year + (dayOfYear − 1 +
/// fractionOfDay) / daysInYear`, with 365 or 366 days (Gregorian leap years), UTC.
/// Example: 2026-11-22T00:00Z = 2026 + 325/365 = 2026.890411.
public enum DecimalYear {
    /// True for Gregorian leap years (`UTCCalendar.isLeapYear`).
    @inlinable public static func isLeapYear(_ year: Int) -> Bool { UTCCalendar.isLeapYear(year) }

    /// Days in `month` (1…12) of `year`; 0 for a month outside 1…12 (`UTCCalendar.daysInMonth`).
    public static func daysInMonth(_ month: Int, year: Int) -> Int { UTCCalendar.daysInMonth(month, year: year) }

    /// The decimal year of a UTC date and time.
    ///
    /// - Parameters:
    ///   - year: 1…9999.
    ///   - month: 1…12.
    ///   - day: 1…days in that month.
    ///   - hour: 0…23, default 0.
    ///   - minute: 0…59, default 0.
    ///   - second: 0 ≤ s < 61 (a leap second counts as part of its day), default 0.
    /// - Throws: `WMMError.invalidDate` for a date or time that does not exist.
    public static func from(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0,
        second: Double = 0
    ) throws(WMMError) -> Double {
        guard (1...9999).contains(year), (1...12).contains(month),
            day >= 1, day <= daysInMonth(month, year: year),
            (0...23).contains(hour), (0...59).contains(minute),
            second.isFinite, second >= 0, second < 61
        else {
            throw .invalidDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }
        return UTCCalendar.decimalYear(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}
