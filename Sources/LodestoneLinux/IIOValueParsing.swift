import LodestoneCore

/// The IIO `mount_matrix` attribute (Documentation/ABI/testing/sysfs-bus-iio, "in_accel_mount_matrix"):
/// `"x1, y1, z1; x2, y2, z2; x3, y3, z3"`, rows separated by `;`, entries by `,`.
///
/// Rows become `Matrix3` rows, so that `v_board = M · v_chip` (`SensorReading.mounted(by:)`), the kernel's
/// convention. A device without the attribute has the identity mounting.
public enum IIOMountMatrix {
    /// Parses the attribute text (surrounding whitespace and sysfs's trailing newline are ignored).
    /// - Throws: `IIOError.Kind.malformedValue` unless there are exactly 3 rows of 3 finite numbers.
    public static func parse(_ text: String) throws(IIOError) -> Matrix3 {
        func malformed(_ why: String) -> IIOError {
            IIOError(kind: .malformedValue, attribute: "mount_matrix", detail: "mount matrix '\(text)' is malformed: \(why)")
        }
        let rows = text.split(separator: ";", omittingEmptySubsequences: false)
        guard rows.count == 3 else { throw malformed("expected 3 rows separated by ';', found \(rows.count)") }
        var values: [Double] = []
        values.reserveCapacity(9)
        for (r, row) in rows.enumerated() {
            let entries = row.split(separator: ",", omittingEmptySubsequences: false)
            guard entries.count == 3 else {
                throw malformed("row \(r + 1) has \(entries.count) entries, expected 3 separated by ','")
            }
            for entry in entries {
                let trimmed = entry.trimmingWhitespace
                guard let v = Double(trimmed), v.isFinite else { throw malformed("'\(trimmed)' is not a finite number") }
                values.append(v)
            }
        }
        guard let matrix = Matrix3(rowMajor: values) else { throw malformed("expected 9 finite numbers") }
        return matrix
    }
}

/// What an `*_available` attribute offers: a list (`"12.5 26 52"`) or a range (`"[min step max]"`), per the
/// IIO ABI (Documentation/ABI/testing/sysfs-bus-iio, "*_available").
public enum IIOAvailableValues: Sendable, Hashable {
    /// Discrete values, in the driver's order.
    case list([Double])
    /// Every value from `minimum` to `maximum` in steps of `step`.
    case range(minimum: Double, step: Double, maximum: Double)

    /// Parses the attribute text.
    /// - Throws: `IIOError.Kind.malformedValue` for a non-number, an empty list, or a range without 3 numbers.
    public static func parse(_ text: String) throws(IIOError) -> IIOAvailableValues {
        func malformed(_ why: String) -> IIOError {
            IIOError(kind: .malformedValue, detail: "available values '\(text)' are malformed: \(why)")
        }
        let trimmed = Substring(text).trimmingWhitespace
        let isRange = trimmed.hasPrefix("[")
        if isRange && !trimmed.hasSuffix("]") { throw malformed("a range must end with ']'") }
        let body = isRange ? trimmed.dropFirst().dropLast() : trimmed
        var numbers: [Double] = []
        for token in body.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            guard let v = Double(token), v.isFinite else { throw malformed("'\(token)' is not a number") }
            numbers.append(v)
        }
        if isRange {
            guard numbers.count == 3 else { throw malformed("a range needs [minimum step maximum]") }
            return .range(minimum: numbers[0], step: numbers[1], maximum: numbers[2])
        }
        guard !numbers.isEmpty else { throw malformed("no values") }
        return .list(numbers)
    }
}

/// Numbers written to IIO attributes.
enum IIOAttributeText {
    /// `value` in plain decimal with at most 6 fractional digits and no exponent: "100", "12.5", "0.625".
    /// Integral values carry no fraction, because some drivers parse rate attributes with `kstrtouint`, which
    /// rejects "100.000000"; the IIO core's own parser (`iio_str_to_fixpoint`) takes either. `nil` when not
    /// finite or too large for the kernel's integer part.
    static func decimal(_ value: Double) -> String? {
        guard value.isFinite, abs(value) < 1e12 else { return nil }
        let micros = Int64((abs(value) * 1_000_000).rounded())
        let whole = micros / 1_000_000
        let fraction = micros % 1_000_000
        var text = (value < 0 && micros != 0 ? "-" : "") + String(whole)
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }
}

extension Substring {
    /// Without leading and trailing whitespace (sysfs values end in a newline).
    var trimmingWhitespace: Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}
