/// Why the World Magnetic Model could not be built or evaluated. Every case says where and what to do in
/// `description`.
///
/// Coefficient-file errors carry the 1-based line number of the offending line. Evaluation errors carry the
/// refused input and the range the model accepts.
public enum WMMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The coefficient text holds no non-blank line.
    case emptyCoefficientFile
    /// The first non-blank line is not `epoch model-name release-date` (e.g. `2025.0 WMM-2025 11/13/2024`).
    case malformedHeader(line: Int, text: String)
    /// A coefficient row is not six numbers `n m g h gdot hdot` (finite, integral degree and order).
    case malformedCoefficientRow(line: Int, text: String)
    /// A coefficient row has a degree/order other than the next in the sequence n = 1…12, m = 0…n.
    case unexpectedDegreeOrder(line: Int, expectedDegree: Int, expectedOrder: Int, foundDegree: Int, foundOrder: Int)
    /// The text ended, or an end marker came, before all 90 coefficient rows were read.
    case truncatedCoefficientFile(line: Int, rowsRead: Int)
    /// The line after the 90th coefficient row is not the `9999…` end marker (`text` is nil at end of text).
    case missingEndMarker(line: Int, text: String?)
    /// The date is outside the model's validity window `validFrom ..< validUntil` (decimal years).
    case dateOutsideValidity(decimalYear: Double, validFrom: Double, validUntil: Double)
    /// Latitude is not finite or outside −90…90°.
    case invalidLatitude(degrees: Double)
    /// Longitude is not finite.
    case invalidLongitude(degrees: Double)
    /// Height above the WGS84 ellipsoid is not finite or outside the model's −1…850 km.
    case invalidHeight(kilometres: Double)
    /// A calendar date or time of day that does not exist (month 13, 30 February, minute 60, …).
    case invalidDate(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double)

    /// One line: what is wrong, where, and what to do.
    public var description: String {
        switch self {
        case .emptyCoefficientFile:
            "WMM coefficient file is empty: expected a header line such as '2025.0 WMM-2025 11/13/2024'"
        case let .malformedHeader(line, text):
            "WMM coefficient file line \(line): '\(text)' is not a header 'epoch model-name MM/DD/YYYY' "
                + "(e.g. '2025.0 WMM-2025 11/13/2024'): is this a WMM.COF file?"
        case let .malformedCoefficientRow(line, text):
            "WMM coefficient file line \(line): '\(text)' is not a row of six numbers 'n m g h gdot hdot'"
        case let .unexpectedDegreeOrder(line, en, em, fn, fm):
            "WMM coefficient file line \(line): found degree \(fn) order \(fm), expected degree \(en) order \(em) "
                + "(rows must run n = 1…12, m = 0…n)"
        case let .truncatedCoefficientFile(line, rows):
            "WMM coefficient file line \(line): only \(rows) of 90 coefficient rows before the end: the file is truncated"
        case let .missingEndMarker(line, text):
            "WMM coefficient file line \(line): expected the '999…' end marker after 90 rows, found "
                + (text.map { "'\($0)'" } ?? "the end of the text")
        case let .dateOutsideValidity(t, from, until):
            "date \(t) (decimal year) is outside the World Magnetic Model's validity \(from) ..< \(until): "
                + "use a date in that window or a newer model"
        case let .invalidLatitude(d):
            "latitude \(d)° is not a geodetic latitude in −90…90°"
        case let .invalidLongitude(d):
            "longitude \(d)° is not a finite number"
        case let .invalidHeight(km):
            "height \(km) km above the WGS84 ellipsoid is outside the World Magnetic Model's −1…850 km"
        case let .invalidDate(y, mo, d, h, mi, s):
            "\(y)-\(mo)-\(d) \(h):\(mi):\(s) is not a valid UTC date and time"
        }
    }
}
