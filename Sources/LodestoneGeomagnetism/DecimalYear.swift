/// Calendar dates as decimal years, the time argument of the World Magnetic Model.
///
/// NOAA convention (WMM2025 README; NOAA `geomaglib.util.calc_dec_year`): `year + (dayOfYear − 1 +
/// fractionOfDay) / daysInYear`, with 365 or 366 days (Gregorian leap years), UTC.
/// Example: 2026-11-22T00:00Z = 2026 + 325/365 = 2026.890411.
public enum DecimalYear {
    /// True for Gregorian leap years (divisible by 4, except centuries not divisible by 400).
    @inlinable public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// Days in `month` (1…12) of `year`; 0 for a month outside 1…12.
    public static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: 31
        case 4, 6, 9, 11: 30
        case 2: isLeapYear(year) ? 29 : 28
        default: 0
        }
    }

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
    public static func from(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0,
                            second: Double = 0) throws(WMMError) -> Double {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= daysInMonth(month, year: year),
              (0...23).contains(hour), (0...59).contains(minute),
              second.isFinite, second >= 0, second < 61
        else {
            throw .invalidDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }
        var dayOfYear = day
        for m in 1..<month { dayOfYear += daysInMonth(m, year: year) }
        let fractionOfDay = (Double(hour) * 3600 + Double(minute) * 60 + second) / 86_400
        let daysInYear = isLeapYear(year) ? 366.0 : 365.0
        return Double(year) + (Double(dayOfYear - 1) + fractionOfDay) / daysInYear
    }
}
