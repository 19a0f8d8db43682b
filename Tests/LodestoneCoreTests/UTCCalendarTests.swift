import LodestoneCore
import Testing

@Suite struct UTCCalendarTests {
    /// Known answers from Python's `calendar.timegm` (2026-07-02T12:00:00Z, and a leap day).
    @Test func unixTimeAndDecimalYearsAgree() throws {
        #expect(UTCCalendar.days(year: 1970, month: 1, day: 1) == 0)
        #expect(UTCCalendar.days(year: 2026, month: 7, day: 2) * 86_400 + 43_200 == 1_782_993_600)
        #expect(UTCCalendar.days(year: 2024, month: 2, day: 29) * 86_400 + 21_600 == 1_709_186_400)
        #expect(UTCCalendar.civil(days: 19_782) == (2024, 2, 29))
        #expect(UTCCalendar.civil(days: -1) == (1969, 12, 31))
        // 2026.5 is day 182.5 of 365: 2026-07-02T12:00Z.
        #expect(abs(UTCCalendar.unixSeconds(decimalYear: 2026.5) - 1_782_993_600) < 1e-3)
        let year = try #require(UTCCalendar.decimalYear(unixS: 1_782_993_600))
        #expect(abs(year - 2026.5) < 1e-9)
        #expect(UTCCalendar.decimalYear(unixS: .nan) == nil)
        // NOAA's example (DecimalYear): 2026-11-22T00:00Z = 2026 + 325/365.
        #expect(UTCCalendar.decimalYear(year: 2026, month: 11, day: 22) == 2026 + 325.0 / 365)
    }

    /// Months and days out of range roll over as `timegm(3)` rolls them (a receiver's midnight wrap).
    @Test func outOfRangeFieldsRollOver() {
        #expect(
            UTCCalendar.unixSeconds(year: 2024, month: 1, day: 32, hour: 0, minute: 0, second: 0)
                == UTCCalendar.unixSeconds(year: 2024, month: 2, day: 1, hour: 0, minute: 0, second: 0))
        #expect(UTCCalendar.days(year: 2023, month: 13, day: 1) == UTCCalendar.days(year: 2024, month: 1, day: 1))
        #expect(UTCCalendar.days(year: 2024, month: 0, day: 1) == UTCCalendar.days(year: 2023, month: 12, day: 1))
        #expect(UTCCalendar.civil(unixS: -1) == (1969, 12, 31, 23, 59, 59))
    }

    /// ISO 8601 text: fractions rounded half up with carry into the second, none with 0 digits, times before 1970.
    @Test func iso8601RoundsAndPads() {
        #expect(UTCCalendar.iso8601(unixS: 1_782_993_600.25, fractionDigits: 3) == "2026-07-02T12:00:00.250Z")
        #expect(UTCCalendar.iso8601(unixS: 1_709_186_400, fractionDigits: 3) == "2024-02-29T06:00:00.000Z")
        #expect(UTCCalendar.iso8601(unixS: 1_782_993_600, fractionDigits: 0) == "2026-07-02T12:00:00Z")
        #expect(UTCCalendar.iso8601(unixS: -0.5, fractionDigits: 1) == "1969-12-31T23:59:59.5Z")
        #expect(UTCCalendar.iso8601(unixS: 59, nanoseconds: 999_600_000, fractionDigits: 3) == "1970-01-01T00:01:00.000Z")
        #expect(UTCCalendar.iso8601(unixS: 0, nanoseconds: 123_456_789, fractionDigits: 9) == "1970-01-01T00:00:00.123456789Z")
        #expect(UTCCalendar.iso8601(unixS: -62_135_596_800, nanoseconds: 0, fractionDigits: 0) == "0001-01-01T00:00:00Z")
    }
}
