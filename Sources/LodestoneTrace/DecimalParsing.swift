/// Decimal text to `Double`, exactly as `Double(String)` reads it, fast for the text traces hold.
///
/// Trace cells are plain decimals such as `-40.758`, `0.00320` or `47.376900000`: an optional `-`, digits, and
/// optionally a point and more digits. For those, when there are at most 19 digits and together they form an
/// integer `w ≤ 2^53`, `w` and `10^f` (f ≤ 19 digits after the point) are both exact doubles, so one IEEE division
/// gives the correctly rounded value of `w / 10^f` (Clinger's fast path: W. D. Clinger, "How to read floating
/// point numbers accurately", PLDI 1990, §5) — the value `Double(String)` (a correctly rounded `strtod`) returns.
/// The literal `nan` is NaN. Every other text (exponents, `+`, `.5`, `5.`, `inf`, hexadecimal, more digits,
/// anything malformed) goes to `Double(String)` itself, so the two never disagree, on the value or on whether the
/// text is a number (`DecimalParsingTests` checks both on random and edge-case text).
enum DecimalParsing {
    /// The value of `text` (ASCII/UTF-8 bytes), as `Double(String(decoding: text, as: UTF8.self))`.
    @inline(__always)
    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let v = fastDouble(text) { return v }
        return standardDouble(text)
    }

    /// `Double(String)` itself, for what the fast path does not take.
    @inline(never)
    static func standardDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        Double(String(decoding: text, as: UTF8.self))
    }

    /// The fast path: the value when `text` is `-?digits(.digits)?` with at most 19 digits whose integer is at most
    /// 2^53, or `nan`; `nil` otherwise (the text may still be a number: ask `Double(String)`).
    @inline(__always)
    static func fastDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = text.count
        guard count > 0 else { return nil }
        let negative = text[0] == UInt8(ascii: "-")
        var i = negative ? 1 : 0
        let integerStart = i
        // Up to 19 digits, the mantissa cannot overflow; more are rejected below before it is used.
        var mantissa: UInt64 = 0
        while i < count {
            let d = text[i] &- UInt8(ascii: "0")
            guard d < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        let integerDigits = i - integerStart
        guard integerDigits > 0 else { return count == 3 && isNaNLiteral(text) ? .nan : nil }
        var fractionDigits = 0
        if i < count {
            guard text[i] == UInt8(ascii: ".") else { return nil }
            i += 1
            let fractionStart = i
            while i < count {
                let d = text[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            fractionDigits = i - fractionStart
            guard fractionDigits > 0 else { return nil }   // "5." is a number, but not the fast path's
        }
        guard integerDigits + fractionDigits <= 19, mantissa <= 1 << 53 else { return nil }
        let value = Double(mantissa) / powerOfTen(fractionDigits)
        return negative ? -value : value
    }

    private static func isNaNLiteral(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text[0] == UInt8(ascii: "n") && text[1] == UInt8(ascii: "a") && text[2] == UInt8(ascii: "n")
    }

    /// 10^k for k in 0…19, every one an exact double (5^19 < 2^53). A switch, which compiles to a constant table.
    /// Shared with `CSVLine`'s digit formatting.
    @inline(__always)
    static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        default: 1e19
        }
    }
}
