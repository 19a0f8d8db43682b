import LodestoneCore

/// One line of CSV output (`lodestone replay`'s rows, a recording's rows) assembled as UTF-8 bytes in a buffer that
/// is reused from line to line: once the buffer has grown to the longest line, appending allocates nothing.
///
/// Numbers are written with `appendFixed`/`appendCell`, which write exactly the text of `formatFixed` (the value
/// rounded half away from zero to a fixed number of decimals; `-` only when the rounded value is not zero)
/// straight into the buffer, without a `String` per cell.
public struct CSVLine: Sendable {
    /// The bytes; `storage[..<count]` is the line. `storage.count` is the capacity, kept zero-filled beyond `count`.
    private var storage: [UInt8]
    /// The length of the line in bytes.
    public private(set) var count = 0

    /// The longest cell `appendCell(_:digits:)` writes: `,` `-`, 19 digits of the scaled value and the point.
    private static let longestNumberCell = 24

    /// An empty line with room for `capacity` bytes (it grows as needed).
    public init(capacity: Int = 256) {
        storage = Array(repeating: 0, count: max(capacity, Self.longestNumberCell))
    }

    /// Empties the line, keeping its buffer.
    public mutating func removeAll() { count = 0 }

    /// The line as a `String` (allocates; for tests and the `String` interfaces).
    public var text: String {
        storage.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[..<count]), as: UTF8.self) }
    }

    /// Calls `body` with the line's bytes (valid only during the call).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    // MARK: cells

    /// Appends `,` and the value with `digits` decimals (as `appendFixed`), or just `,` when the value is `nil` or
    /// not finite: the cell of a value that is unknown is empty, never `nan`.
    public mutating func appendCell(_ value: Double?, digits: Int) {
        precondition((0...19).contains(digits), "appendCell: digits must be 0…19")
        guard let value, value.isFinite else { return append(byte: UInt8(ascii: ",")) }
        let scaled = abs(value) * DecimalParsing.exactPowerOfTen(digits)
        guard scaled < 9e18 else {
            append(byte: UInt8(ascii: ","))
            return append("\(value)")
        }
        reserve(Self.longestNumberCell)
        count = storage.withUnsafeMutableBufferPointer { p in
            var end = count
            p[end] = UInt8(ascii: ",")
            end += 1
            return Self.writeFixed(scaled: scaled, negative: value < 0, digits: digits, to: p.baseAddress.unsafelyUnwrapped + end)
                + end
        }
    }

    /// Appends `,` and the integer in decimal, or just `,` when it is `nil`.
    public mutating func appendCell(_ value: Int?) {
        append(byte: UInt8(ascii: ","))
        if let value { appendInteger(value) }
    }

    /// Appends `,` and the text as it is (no quoting: trace and replay cells never hold `,` or line ends), or just
    /// `,` when it is `nil`.
    public mutating func appendCell(_ text: String?) {
        append(byte: UInt8(ascii: ","))
        if let text { append(text) }
    }

    /// Appends `n` empty cells (`n` commas).
    public mutating func appendEmptyCells(_ n: Int) {
        reserve(n)
        storage.withUnsafeMutableBufferPointer { p in
            for i in count..<(count + n) { p[i] = UInt8(ascii: ",") }
        }
        count += n
    }

    // MARK: raw text

    /// Appends the UTF-8 bytes of `text`.
    public mutating func append(_ text: some StringProtocol) {
        var text = String(text)
        text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Appends `bytes`.
    public mutating func append(bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        storage.withUnsafeMutableBytes { p in
            UnsafeMutableRawBufferPointer(rebasing: p[count..<(count + bytes.count)]).copyMemory(from: bytes)
        }
        count += bytes.count
    }

    /// Appends one byte.
    public mutating func append(byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    // MARK: numbers

    /// Appends the integer in decimal (`String(value)`'s text).
    public mutating func appendInteger(_ value: Int) {
        reserve(Self.longestNumberCell)
        count = storage.withUnsafeMutableBufferPointer { p in
            var end = count
            if value < 0 {
                p[end] = UInt8(ascii: "-")
                end += 1
            }
            return Self.writeDecimal(UInt64(value.magnitude), fractionDigits: 0, to: p.baseAddress.unsafelyUnwrapped + end) + end
        }
    }

    /// Appends the value rounded to `digits` decimals (0…19): `formatFixed(value, digits:)`'s text, e.g. `1.50`
    /// for (1.5, 2), `-0.01` for (−0.006, 2), `0.00` for (−0.004, 2); `nan`, `inf`, `-inf` for non-finite values.
    /// A value whose scaled magnitude reaches 9·10¹⁸ is written as Swift's `description` (as `formatFixed` does).
    public mutating func appendFixed(_ value: Double, digits: Int) {
        precondition((0...19).contains(digits), "appendFixed: digits must be 0…19")
        guard value.isFinite else { return append(value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf")) }
        let scaled = abs(value) * DecimalParsing.exactPowerOfTen(digits)
        guard scaled < 9e18 else { return append("\(value)") }
        reserve(Self.longestNumberCell)
        count = storage.withUnsafeMutableBufferPointer { p in
            Self.writeFixed(scaled: scaled, negative: value < 0, digits: digits, to: p.baseAddress.unsafelyUnwrapped + count)
                + count
        }
    }

    /// Writes `scaled` (= |value|·10^digits, finite, below 9·10¹⁸) rounded half away from zero, as a decimal with
    /// `digits` decimals, `-` first when `negative` and the rounded value is not zero. Returns the bytes written
    /// (at most `longestNumberCell - 1`).
    ///
    /// formatFixed has always rounded with `scaled.rounded()`; below 9·10¹⁸ (< 2^63) truncating to an integer and
    /// comparing the exact remainder `scaled − t` with ½ gives the same integer without a call into libm.
    @inline(__always)
    private static func writeFixed(scaled: Double, negative: Bool, digits: Int, to output: UnsafeMutablePointer<UInt8>) -> Int {
        let truncated = Int64(scaled) // scaled < 9·10¹⁸ < 2^63: a plain conversion, no unsigned fix-up
        let n = UInt64(truncatingIfNeeded: scaled - Double(truncated) >= 0.5 ? truncated + 1 : truncated)
        var start = output
        if negative && n != 0 {
            start.pointee = UInt8(ascii: "-")
            start += 1
        }
        return writeDecimal(n, fractionDigits: digits, to: start) + (start - output)
    }

    /// Writes `n / 10^fractionDigits` in decimal with exactly `fractionDigits` decimals and at least one integer
    /// digit, right to left, two digits at a time. Returns the bytes written.
    @inline(__always)
    private static func writeDecimal(_ n: UInt64, fractionDigits: Int, to output: UnsafeMutablePointer<UInt8>) -> Int {
        let unit = integerPowerOfTen(fractionDigits)
        var integer = n / unit
        var fraction = n - integer * unit
        var integerLength = 1
        var shorter = integer / 10
        while shorter > 0 {
            integerLength += 1
            shorter /= 10
        }
        let total = integerLength + (fractionDigits > 0 ? fractionDigits + 1 : 0)
        var position = output + total
        if fractionDigits > 0 {
            var remaining = fractionDigits
            while remaining >= 2 {
                position -= 2
                writePair(Int(fraction % 100), to: position)
                fraction /= 100
                remaining -= 2
            }
            if remaining == 1 {
                position -= 1
                position.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction)
            }
            position -= 1
            position.pointee = UInt8(ascii: ".")
        }
        var remaining = integerLength
        while remaining >= 2 {
            position -= 2
            writePair(Int(integer % 100), to: position)
            integer /= 100
            remaining -= 2
        }
        if remaining == 1 { (position - 1).pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: integer) }
        return total
    }

    /// Writes the two decimal digits of `pair` (0…99).
    @inline(__always)
    private static func writePair(_ pair: Int, to output: UnsafeMutablePointer<UInt8>) {
        let tens = pair / 10
        output[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: tens)
        output[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: pair - tens * 10)
    }

    /// Makes room for `n` more bytes, doubling the buffer when it is too small.
    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > storage.count { grow(toHold: count + n) }
    }

    private mutating func grow(toHold needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(needed, 2 * storage.count) - storage.count))
    }

    /// 10^k for k in 0…19 (k ≥ 19 gives 10^19).
    @inline(__always)
    private static func integerPowerOfTen(_ k: Int) -> UInt64 {
        switch k {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }
}
