/// Decimal text to `Double`: the project's one decimal parser, for trace cells (`double`) and NMEA fields
/// (`leadingDouble`). Allocates nothing for the numbers those hold.
///
/// One scanner reads `[spaces] [+|-] digits [. digits] [e|E [+|-] digits]` and keeps the first 19 significant digits
/// as an integer `w` and the power of ten `e` they are scaled by. When `w ≤ 2^53` and `|e| ≤ 22`, `w` and `10^|e|`
/// are both exact doubles, so one IEEE multiplication or division gives the correctly rounded value of `w · 10^e`
/// (Clinger's fast path: W. D. Clinger, "How to read floating point numbers accurately", PLDI 1990, §5) — the value
/// `Double(String)` (a correctly rounded `strtod`) returns. Anything else goes to `Double(String)` itself.
public enum DecimalParsing {
    /// The value of the whole of `text` (ASCII/UTF-8 bytes), exactly as `Double(String(decoding: text, as: UTF8.self))`
    /// reads it: the same value bit for bit and the same verdict on what is not a number. Plain decimals
    /// (`-?digits(.digits)?`, the shape of trace cells) and the literal `nan` take the fast path; every other text
    /// (exponents, `+`, `.5`, `5.`, `inf`, hexadecimal, anything malformed) goes to `Double(String)`.
    @inline(__always)
    public static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let v = fastDouble(text) { return v }
        return standardDouble(text)
    }

    /// The leading decimal number of `text`, like gpsd's locale-independent `safe_atof` (the NMEA fields' reading):
    /// leading spaces, an optional sign, digits with an optional `.` and more digits, an optional exponent; what
    /// follows is ignored. `nil` when `text` does not start with a number. Correctly rounded.
    @inline(__always)
    public static func leadingDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let number = scan(text, allowingSpaces: true) else { return nil }
        if let v = number.exactValue { return v }
        return standardDouble(UnsafeBufferPointer(rebasing: text[number.start..<number.end]))
    }

    /// 10^k for k in 0…22, every one an exact double (5^22 < 2^53). A switch, which compiles to a constant table.
    @inline(__always)
    public static func exactPowerOfTen(_ k: Int) -> Double {
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
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// `Double(String)` itself, for what the fast path does not take.
    @inline(never)
    static func standardDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        Double(String(decoding: text, as: UTF8.self))
    }

    /// The fast path of `double`: the value when all of `text` is `-?digits(.digits)?` and exact (see the type), or
    /// `nan`; `nil` otherwise (the text may still be a number: ask `Double(String)`).
    @inline(__always)
    static func fastDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let number = scan(text, allowingSpaces: false) else {
            return text.count == 3 && text[0] == UInt8(ascii: "n") && text[1] == UInt8(ascii: "a")
                && text[2] == UInt8(ascii: "n") ? .nan : nil
        }
        // "5." and ".5" are numbers, but not the fast path's; nor are a sign `+` or an exponent.
        guard number.end == text.count, !number.plusSign, !number.hasExponent, number.integerDigits > 0,
            !number.hasPoint || number.fractionDigits > 0
        else { return nil }
        return number.exactValue
    }

    /// A decimal number at the start of some text, as `scan` found it.
    struct Number {
        /// Where the number starts (after leading spaces) and ends in the text.
        var start = 0, end = 0
        var negative = false, plusSign = false, hasPoint = false, hasExponent = false
        var integerDigits = 0, fractionDigits = 0
        /// The first 19 significant digits as an integer, how many significant digits there were in all, and the
        /// power of ten that scales the integer to the value.
        var mantissa: UInt64 = 0, significantDigits = 0, exponent = 0

        /// Takes the next digit. Digits beyond the 19th significant one only scale the value (integer part) or are
        /// dropped (fraction): the value is then not exact, and `Double(String)` reads it.
        @inline(__always)
        mutating func append(digit d: UInt8, inFraction: Bool) {
            if mantissa == 0 && d == 0 {
                if inFraction { exponent -= 1 }
                return
            }
            significantDigits += 1
            if significantDigits <= 19 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                if inFraction { exponent -= 1 }
            } else if !inFraction {
                exponent += 1
            }
        }

        /// `mantissa · 10^exponent` when Clinger's fast path makes it exact; `nil` otherwise.
        @inline(__always)
        var exactValue: Double? {
            guard significantDigits <= 19, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
            let w = Double(mantissa)
            let value = exponent < 0 ? w / exactPowerOfTen(-exponent) : w * exactPowerOfTen(exponent)
            return negative ? -value : value
        }
    }

    /// Reads the number at the start of `text` (after spaces when `allowingSpaces`); `nil` when there is no digit.
    /// An exponent counts only with digits (`1.5e` is 1.5 followed by `e`).
    @inline(__always)
    static func scan(_ text: UnsafeBufferPointer<UInt8>, allowingSpaces: Bool) -> Number? {
        let n = text.count
        var i = 0
        if allowingSpaces { while i < n, text[i] == UInt8(ascii: " ") { i += 1 } }
        var number = Number()
        number.start = i
        if i < n, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
            number.negative = text[i] == UInt8(ascii: "-")
            number.plusSign = !number.negative
            i += 1
        }
        while i < n {
            let d = text[i] &- UInt8(ascii: "0")
            guard d < 10 else { break }
            number.append(digit: d, inFraction: false)
            number.integerDigits += 1
            i += 1
        }
        if i < n, text[i] == UInt8(ascii: ".") {
            number.hasPoint = true
            i += 1
            while i < n {
                let d = text[i] &- UInt8(ascii: "0")
                guard d < 10 else { break }
                number.append(digit: d, inFraction: true)
                number.fractionDigits += 1
                i += 1
            }
        }
        guard number.integerDigits + number.fractionDigits > 0 else { return nil }
        if i < n, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            var j = i + 1
            var negativeExponent = false
            if j < n, text[j] == UInt8(ascii: "-") || text[j] == UInt8(ascii: "+") {
                negativeExponent = text[j] == UInt8(ascii: "-"); j += 1
            }
            if j < n, text[j] &- UInt8(ascii: "0") < 10 {
                var e = 0
                while j < n {
                    let d = text[j] &- UInt8(ascii: "0")
                    guard d < 10 else { break }
                    if e < 100_000 { e = e * 10 + Int(d) }
                    j += 1
                }
                number.exponent += negativeExponent ? -e : e
                number.hasExponent = true
                i = j
            }
        }
        number.end = i
        return number
    }
}
