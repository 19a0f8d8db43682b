/// The one UTC calendar of the project: Unix time ↔ civil date and time (proleptic Gregorian, POSIX seconds: 86 400
/// per day, no leap seconds), decimal years (NOAA convention, the World Magnetic Model's time argument) and ISO 8601
/// text. No Foundation: day counts after H. Hinnant, "chrono-Compatible Low-Level Date Algorithms" (2013),
/// `days_from_civil` and `civil_from_days`.
public enum UTCCalendar {
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

    /// Days from 1970-01-01 to `year`-`month`-`day` (negative before). Out-of-range months and days roll over like
    /// `timegm(3)`: month 13 is January of the next year, day 32 of January is 1 February (a midnight wrap within a
    /// receiver's epoch is carried that way).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = year + floorDivide(month - 1, 12)
        let m = month - 1 - floorDivide(month - 1, 12) * 12 + 1
        let shifted = m <= 2 ? y - 1 : y
        let era = floorDivide(shifted, 400)
        let yoe = shifted - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468 + (day - 1)
    }

    /// The civil date of a day count since 1970-01-01.
    public static func civil(days z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = floorDivide(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Seconds since 1970-01-01T00:00:00Z of a civil UTC date and time (fields roll over as in `days`).
    public static func unixSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        Int64(days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The civil date and time of `unixS` whole seconds since 1970-01-01T00:00:00Z.
    public static func civil(unixS: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let dayCount = floorDivide(unixS, 86_400)
        let secondOfDay = Int(unixS - dayCount * 86_400)
        let (year, month, day) = civil(days: Int(dayCount))
        return (year, month, day, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
    }

    /// The decimal year of a UTC date and time (NOAA convention: `year + (dayOfYear − 1 + fractionOfDay) /
    /// daysInYear`; `DecimalYear.from` in LodestoneGeomagnetism validates the fields first). Example: 2026-11-22T00:00Z
    /// = 2026 + 325/365.
    public static func decimalYear(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Double = 0) -> Double
    {
        var dayOfYear = day
        for m in 1..<max(month, 1) { dayOfYear += daysInMonth(m, year: year) }
        let fractionOfDay = (Double(hour) * 3600 + Double(minute) * 60 + second) / 86_400
        let daysInYear = isLeapYear(year) ? 366.0 : 365.0
        return Double(year) + (Double(dayOfYear - 1) + fractionOfDay) / daysInYear
    }

    /// The decimal year of a Unix time (s since 1970-01-01T00:00:00Z); `nil` when not finite or outside years
    /// 1…9999.
    public static func decimalYear(unixS: Double) -> Double? {
        guard unixS.isFinite, abs(unixS) < 2.5e11 else { return nil }
        let dayCount = (unixS / 86_400).rounded(.down)
        let seconds = unixS - dayCount * 86_400
        let (year, month, day) = civil(days: Int(dayCount))
        guard (1...9999).contains(year) else { return nil }
        let hour = Int(seconds / 3600), minute = Int((seconds - Double(hour) * 3600) / 60)
        return decimalYear(
            year: year, month: month, day: day, hour: hour, minute: minute,
            second: seconds - Double(hour) * 3600 - Double(minute) * 60)
    }

    /// The Unix time (s) of a decimal year.
    public static func unixSeconds(decimalYear: Double) -> Double {
        let year = Int(decimalYear.rounded(.down))
        let length = isLeapYear(year) ? 366.0 : 365.0
        return Double(days(year: year, month: 1, day: 1)) * 86_400 + (decimalYear - Double(year)) * length * 86_400
    }

    /// ISO 8601 text of an instant, UTC: `2026-07-02T12:00:00.250Z` with `fractionDigits` (0…9) decimals of the
    /// second, rounded half up (`2026-07-02T12:00:00Z` with none). `nanoseconds` is 0 ..< 1 000 000 000.
    public static func iso8601(unixS seconds: Int64, nanoseconds: Int32, fractionDigits: Int) -> String {
        let digits = min(max(fractionDigits, 0), 9)
        var unit = 1
        for _ in digits..<9 { unit *= 10 }
        var whole = seconds
        var fraction = (Int(nanoseconds) + unit / 2) / unit
        if fraction >= 1_000_000_000 / unit { whole += 1; fraction = 0 }
        let c = civil(unixS: whole)
        var text =
            pad(c.year, 4) + "-" + pad(c.month, 2) + "-" + pad(c.day, 2) + "T" + pad(c.hour, 2) + ":"
            + pad(c.minute, 2) + ":" + pad(c.second, 2)
        if digits > 0 { text += "." + pad(fraction, digits) }
        return text + "Z"
    }

    /// ISO 8601 text of `unixS` (s since 1970-01-01T00:00:00Z), rounded half away from zero to `fractionDigits` (0…9)
    /// decimals of the second: `iso8601(unixS: 1_782_993_600.25, fractionDigits: 3) == "2026-07-02T12:00:00.250Z"`.
    public static func iso8601(unixS: Double, fractionDigits: Int) -> String {
        let digits = min(max(fractionDigits, 0), 9)
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let units = (unixS * scale).rounded()
        let whole = (units / scale).rounded(.down)
        let fraction = units - whole * scale
        var nanoseconds = fraction
        for _ in digits..<9 { nanoseconds *= 10 }
        return iso8601(unixS: Int64(whole), nanoseconds: Int32(nanoseconds.rounded()), fractionDigits: digits)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    @inline(__always) private static func floorDivide<T: BinaryInteger>(_ a: T, _ b: T) -> T {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
