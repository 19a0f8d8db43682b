import LodestoneSimulation
import Testing
@testable import LodestoneTrace

/// `CSVLine` and `formatFixed` (now written by `CSVLine`) against the `String`-building `formatFixed` that wrote
/// every replay and recording before them, kept below verbatim as the oracle: replay's output must not change
/// by a byte.
@Suite struct CSVLineTests {
    /// `formatFixed` as of commit 756965b (the oracle).
    static func referenceFormatFixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let n = UInt64(scaled)
        let p = UInt64(scale)
        var s = (value < 0 && n != 0 ? "-" : "") + String(n / p)
        if digits > 0 {
            let frac = String(n % p)
            s += "." + String(repeating: "0", count: digits - frac.count) + frac
        }
        return s
    }

    /// The oracle's cell: `,` and the value, or just `,` for an unknown or non-finite one.
    static func referenceCell(_ value: Double?, digits: Int) -> String {
        guard let value, value.isFinite else { return "," }
        return "," + referenceFormatFixed(value, digits: digits)
    }

    /// Values of every magnitude replay and recordings meet and beyond: zeros, halves that round away from zero,
    /// the 9·10¹⁸ limit where the text falls back to `description`, subnormals, random bit patterns.
    static func values(count: Int, seed: UInt64) -> [Double] {
        var values: [Double] = [
            0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.125, -0.125, 0.005, -0.005, 0.004, -0.004, 0.006,
            -0.006, 359.995, 9.999_999_95, 1e-9, -1e-9, 123_456.789, 100_653.265, 8.999_999_999_999e18,
            9e18, 9.000_000_000_000_001e18, 1e19, 1e300, -1e300, .leastNonzeroMagnitude,
            .greatestFiniteMagnitude, .nan, .infinity, -.infinity, 4_503_599_627_370_495.5,
            9_007_199_254_740_992, 0.1 + 0.2
        ]
        var random = SeededGenerator(seed: seed)
        while values.count < count {
            switch random.next() % 3 {
            case 0: values.append(Double(bitPattern: random.next()))
            case 1:
                let magnitude = [1e-7, 1e-3, 1, 400, 1e5, 1e9, 1e13, 1e17][Int(random.next() % 8)]
                values.append((random.uniform() - 0.5) * magnitude)
            default:
                // Exactly halfway at some decimal: k / 2 / 10^d.
                let d = Double(Int(random.next() % 8))
                values.append((Double(Int(random.next() % 2_000_001)) - 1_000_000 + 0.5) / Double.pow10(d))
            }
        }
        return values
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 17, 19])
    func fixedTextMatchesTheFormerFormatFixedExactly(_ digits: Int) {
        for value in Self.values(count: 20_000, seed: UInt64(digits) + 1) {
            #expect(
                formatFixed(value, digits: digits) == Self.referenceFormatFixed(value, digits: digits),
                "\(value) with \(digits) digits")
        }
    }

    @Test func cellsMatchTheFormerAppendCellAndIntegersMatchStringInit() {
        var line = CSVLine(capacity: 8) // small: growth is exercised too
        var expected = ""
        var random = SeededGenerator(seed: 99)
        for value in Self.values(count: 5_000, seed: 5) {
            let digits = Int(random.next() % 10)
            line.appendCell(value, digits: digits)
            expected += Self.referenceCell(value, digits: digits)
            let integer = Int(bitPattern: UInt(random.next())) >> Int(random.next() % 64)
            line.appendCell(integer)
            expected += "," + String(integer)
        }
        line.appendCell(nil as Double?, digits: 3)
        line.appendCell(nil as Int?)
        line.appendCell(Int.min)
        line.appendCell(Int.max)
        line.appendCell("walk")
        line.appendEmptyCells(3)
        expected += ",,," + String(Int.min) + "," + String(Int.max) + ",walk,,,"
        #expect(line.text == expected)
        line.removeAll()
        line.appendFixed(-0.004, digits: 2)
        line.appendCell(-0.006, digits: 2)
        #expect(line.text == "0.00,-0.01")
    }

    @Test func fastCellsWriteExactlyWhatAppendCellWrites() {
        // Property: the stages' cells (`CSVLine`) are the text the former `String.appendCell` (formatFixed) wrote,
        // byte for byte (`referenceCell` is that code).
        var values: [Double?] = [
            nil, .nan, .infinity, 0, -0.0, 0.004, -0.004, 0.005, -0.005, 1, -1, 359.995, 1e-9, -1e-9,
            123_456.789, -0.0000001, 9.999_999_95
        ]
        var seed: UInt64 = 42
        for _ in 0..<2000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(seed >> 11) / Double(1 << 53)
            values.append((unit - 0.5) * [1e-6, 1e-3, 1, 400, 1e5][Int(seed % 5)])
        }
        for digits in [0, 2, 3, 6, 7] {
            var expected = ""
            for v in values { expected += Self.referenceCell(v, digits: digits) }
            var line = CSVLine(capacity: 16)
            for v in values { line.appendCell(v, digits: digits) }
            #expect(line.text == expected, "digits \(digits)")
        }
    }
}

extension Double {
    /// 10^d for small whole d.
    static func pow10(_ d: Double) -> Double { (0..<Int(d)).reduce(1.0) { p, _ in p * 10 } }
}
