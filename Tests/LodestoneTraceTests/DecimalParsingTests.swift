import LodestoneSimulation
import Testing
@testable import LodestoneCore
import LodestoneTrace

/// `DecimalParsing.double` against the standard library's `Double(String)`, the oracle: the same value, bit for
/// bit (so `-0` stays negative), and the same verdict on what is not a number.
@Suite struct DecimalParsingTests {
    /// The parser's answer for `text`.
    static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { DecimalParsing.double($0) }
    }

    /// Whether `text` took the fast path (for the coverage checks below).
    static func isFast(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { DecimalParsing.fastDouble($0) } != nil
    }

    /// Same value bit for bit (any NaN matches any NaN), or both not a number.
    static func agrees(_ text: String) -> Bool {
        switch (parse(text), Double(text)) {
        case (nil, nil): true
        case let (a?, b?): a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
        default: false
        }
    }

    @Test(arguments: [
        // The datasets' shapes.
        "0", "-0", "0.0", "-0.000", "00012", "0.00320", "-40.758", "9.7541", "47.376900000", "100653.265", "nan",
        // The fast path's limits: 2^53, 2^53 + 1, 19 and 20 digits, 19 decimals.
        "9007199254740992", "9007199254740993", "900719925474099.3", "0.9007199254740993", "1234567890123456789",
        "12345678901234567890", "0.1234567890123456789", "0.0000000000000000001", "0.00000000000000000001",
        // Hard cases for a naive reader (double rounding, shortest representations).
        "0.1", "0.2", "0.3", "0.30000000000000004", "2.2250738585072011e-308", "4.9e-324", "1.7976931348623157e308",
        "123456.789e-3", "8.98846567431158e307",
        // What the standard library reads and the fast path leaves to it.
        "+1", "1.", ".5", "-.5", "1e5", "1E-5", "0x1p3", "inf", "-inf", "Infinity", "NaN", "-nan", "1e400", "-1e400",
        // Not numbers.
        "", "-", "+", ".", "-.", "1..2", "1.2.3", "--1", "1-", "1e", "e1", "1,5", " 1", "1 ", "0x", "nana", "na", "١",
        "1\u{0}", "½", "x2", "NAN(1)"
    ])
    func edgeCasesAgreeWithTheStandardLibrary(_ text: String) {
        #expect(Self.agrees(text), "\(text): \(String(describing: Self.parse(text))) vs \(String(describing: Double(text)))")
    }

    /// Random text in the shapes traces hold, and around them: up to 24 digits split at a random point, signs,
    /// leading zeros, exponents, stray characters.
    @Test func randomDecimalTextAgreesWithTheStandardLibrary() {
        var random = SeededGenerator(seed: 2024)
        var fast = 0
        for _ in 0..<60_000 {
            let text = Self.randomDecimal(&random)
            #expect(Self.agrees(text), "\(text)")
            if Self.isFast(text) { fast += 1 }
        }
        // The generator makes about 44 % of its text in the fast path's shapes (26 237 of 60 000 with this seed;
        // the rest is exponents, signs, long digit strings and junk): both paths are exercised many times.
        #expect(fast > 20_000 && fast < 50_000, "both paths must be exercised (\(fast) of 60000 fast)")
    }

    /// Every double written as Swift prints it (shortest round trip, exponents included) and with 0–12 fixed
    /// decimals as `formatFixed` writes traces.
    @Test func printedDoublesAgreeWithTheStandardLibrary() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: random.next())
            #expect(Self.agrees("\(value)"), "\(value)")
            let moderate = Double(
                sign: random.next() & 1 == 0 ? .plus : .minus,
                exponent: Int(random.next() % 80) - 40, significand: 1 + Double(random.next() >> 11) / 0x1p53)
            for digits in [0, 2, 3, 4, 5, 6, 7, 9, 12] {
                let text = formatFixed(moderate, digits: digits)
                #expect(Self.agrees(text), "\(text)")
            }
        }
    }

    static func randomDecimal(_ random: inout SeededGenerator) -> String {
        var text = ""
        switch random.next() % 10 {
        case 0: text += "-"
        case 1: text += random.next() % 2 == 0 ? "+" : ""
        default: break
        }
        let digits = Int(random.next() % 24) + 1
        var body = ""
        let leadingZeros = random.next() % 4 == 0 ? Int(random.next() % 4) : 0
        body += String(repeating: "0", count: leadingZeros)
        for _ in 0..<digits { body.append(Character(String(random.next() % 10))) }
        let point = Int(random.next() % UInt64(body.count + 2))
        if point <= body.count && random.next() % 8 != 0 {
            body.insert(".", at: body.index(body.startIndex, offsetBy: point))
        }
        text += body
        switch random.next() % 16 {
        case 0: text += "e\(Int(random.next() % 40) - 20)"
        case 1: text += ["x", " ", ".", "-", "e", "\u{E9}"][Int(random.next() % 6)]
        default: break
        }
        return text
    }

    /// The leading number of a field, as gpsd's `safe_atof` reads NMEA fields: what follows the number is ignored,
    /// an exponent counts only with digits, and the value is correctly rounded however many digits there are.
    @Test(arguments: [
        ("12.5", 12.5), (" 12.5xyz", 12.5), ("+3", 3.0), ("-.5", -0.5), ("5.", 5.0), ("1.5e", 1.5), ("1.5e2,", 150.0),
        ("4807.038", 4807.038), ("0.00320", 0.0032), ("1e-23", 1e-23), ("-0", -0.0),
        ("123456789012345678901234.5", 123456789012345678901234.5), ("0.1234567890123456789012", 0.1234567890123456789012)
    ])
    func leadingNumbersAreReadAsGpsdReadsThem(text: String, value: Double) {
        var text = text
        let v = text.withUTF8 { DecimalParsing.leadingDouble($0) }
        #expect(v?.bitPattern == value.bitPattern, "\(text): \(String(describing: v))")
    }

    @Test func aFieldWithoutANumberHasNone() {
        for text in ["", " ", ".", "-", "+.", "abc", "e5"] {
            var t = text
            #expect(t.withUTF8 { DecimalParsing.leadingDouble($0) } == nil, "\(text)")
        }
    }
}
