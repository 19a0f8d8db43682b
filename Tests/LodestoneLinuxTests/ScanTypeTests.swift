import Testing
@testable import LodestoneLinux

/// The kernel's scan_elements type strings (Documentation/ABI/testing/sysfs-bus-iio, "in_voltageY_type";
/// format written by iio_show_fixed_type in drivers/iio/industrialio-buffer.c).
@Suite struct ScanTypeParsing {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var endianness: IIOScanType.Endianness
        var isSigned: Bool
        var realBits: Int, storageBits: Int, shift: Int, repeatCount: Int
        var testDescription: String { text }
    }

    static let valid: [Case] = [
        Case(text: "le:s16/16>>0", endianness: .little, isSigned: true, realBits: 16, storageBits: 16, shift: 0, repeatCount: 1),
        Case(text: "be:u12/16>>4", endianness: .big, isSigned: false, realBits: 12, storageBits: 16, shift: 4, repeatCount: 1),
        Case(text: "le:s64/64>>0", endianness: .little, isSigned: true, realBits: 64, storageBits: 64, shift: 0, repeatCount: 1),
        Case(
            text: "le:s16/16X2>>0", endianness: .little, isSigned: true, realBits: 16, storageBits: 16, shift: 0, repeatCount: 2),
        Case(text: "be:S24/32>>8", endianness: .big, isSigned: true, realBits: 24, storageBits: 32, shift: 8, repeatCount: 1),
        Case(
            text: "le:U20/32>>0\n", endianness: .little, isSigned: false, realBits: 20, storageBits: 32, shift: 0, repeatCount: 1),
        Case(text: "le:u8/8>>0", endianness: .little, isSigned: false, realBits: 8, storageBits: 8, shift: 0, repeatCount: 1)
    ]

    @Test("parses kernel type strings", arguments: valid)
    func parses(_ c: Case) throws {
        let t = try IIOScanType(parsing: c.text)
        #expect(t.endianness == c.endianness)
        #expect(t.isSigned == c.isSigned)
        #expect(t.realBits == c.realBits)
        #expect(t.storageBits == c.storageBits)
        #expect(t.shift == c.shift)
        #expect(t.repeatCount == c.repeatCount)
        #expect(t.storageBytes == c.storageBits / 8)
    }

    @Test(
        "description round-trips to the canonical kernel form",
        arguments: ["le:s16/16>>0", "be:u12/16>>4", "le:s64/64>>0", "le:s16/16X2>>0"])
    func roundTrips(_ text: String) throws {
        #expect(try IIOScanType(parsing: text).description == text)
    }

    @Test(
        "rejects malformed strings with a typed error quoting them",
        arguments: [
            "", "xx:s16/16>>0", "le:x16/16>>0", "le:s16>>0", "le:s16/16", "le:s16/16>>", "le:s17/12>>0",
            "le:s16/15>>0", "le:s16/128>>0", "le:s0/16>>0", "le:s12/16>>5", "le:s16/16X0>>0", "le:s16/16>>0 junk",
            "le:s-16/16>>0"
        ])
    func rejects(_ text: String) {
        #expect {
            _ = try IIOScanType(parsing: text)
        } throws: { error in
            guard let e = error as? IIOError else { return false }
            return e.kind == .malformedValue && e.description.contains("'\(text)'")
        }
    }
}

@Suite struct ScanTypeDecoding {
    struct Case: Sendable, CustomTestStringConvertible {
        var type: String
        var bytes: [UInt8]
        var expected: Int64
        var why: String
        var testDescription: String { "\(type) \(why)" }
    }

    static let cases: [Case] = [
        Case(type: "le:s16/16>>0", bytes: [0x34, 0x12], expected: 0x1234, why: "little-endian positive"),
        Case(type: "le:s16/16>>0", bytes: [0xFF, 0xFF], expected: -1, why: "sign extension of -1"),
        Case(type: "le:s16/16>>0", bytes: [0x00, 0x80], expected: -32768, why: "most negative"),
        Case(type: "le:u16/16>>0", bytes: [0x00, 0x80], expected: 32768, why: "same bits unsigned"),
        Case(type: "be:s16/16>>0", bytes: [0x80, 0x00], expected: -32768, why: "big-endian most negative"),
        Case(type: "be:s16/16>>0", bytes: [0x12, 0x34], expected: 0x1234, why: "big-endian order"),
        Case(type: "be:u12/16>>4", bytes: [0xAB, 0xC5], expected: 0xABC, why: "left-aligned 12 bits, low nibble dropped"),
        Case(type: "be:s12/16>>4", bytes: [0xFF, 0xF0], expected: -1, why: "12-bit sign extension after the shift"),
        Case(type: "be:s12/16>>4", bytes: [0x80, 0x0F], expected: -2048, why: "12-bit most negative, junk below the shift"),
        Case(type: "le:s12/16>>0", bytes: [0xFF, 0xF7], expected: 2047, why: "junk above realbits is masked"),
        Case(type: "le:s24/32>>8", bytes: [0xEE, 0x00, 0x00, 0x80], expected: -8_388_608, why: "24 of 32 bits, shifted"),
        Case(
            type: "le:s64/64>>0", bytes: [0x00, 0xCA, 0x9A, 0x3B, 0x00, 0x00, 0x00, 0x00], expected: 1_000_000_000,
            why: "timestamp 1 s in ns"),
        Case(type: "le:s64/64>>0", bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], expected: -1, why: "64-bit -1"),
        Case(
            type: "be:s64/64>>0", bytes: [0x17, 0x9B, 0x0C, 0x3A, 0x5E, 0x3F, 0x10, 0x00],
            expected: 0x179B_0C3A_5E3F_1000, why: "big-endian 64-bit"),
        Case(type: "le:u8/8>>0", bytes: [0xFE], expected: 254, why: "one byte"),
        Case(type: "le:s16/16>>0", bytes: [0x01, 0x00, 0x99], expected: 1, why: "only storage bytes are read")
    ]

    @Test("decodes", arguments: cases)
    func decodes(_ c: Case) throws {
        let t = try IIOScanType(parsing: c.type)
        #expect(t.decode(bytes: c.bytes) == c.expected)
    }

    @Test func shortBufferGivesNilInsteadOfTrapping() throws {
        #expect(try IIOScanType(parsing: "le:s64/64>>0").decode(bytes: [1, 2, 3]) == nil)
        #expect(try IIOScanType(parsing: "le:s16/16>>0").decode(bytes: []) == nil)
    }

    /// Differential test against an obviously correct reference: every 16-bit pattern, every shift and width.
    @Test func matchesBitByBitReferenceForAll16BitPatterns() throws {
        for (realBits, shift) in [(16, 0), (12, 4), (12, 0), (10, 6), (8, 8), (1, 15)] {
            for signed in [true, false] {
                for endian in ["le", "be"] {
                    let t = try IIOScanType(parsing: "\(endian):\(signed ? "s" : "u")\(realBits)/16>>\(shift)")
                    var mismatches = 0
                    for pattern in 0...0xFFFF {
                        let lo = UInt8(pattern & 0xFF), hi = UInt8(pattern >> 8)
                        let bytes: [UInt8] = endian == "le" ? [lo, hi] : [hi, lo]
                        // Reference: extract bits one at a time, then two's complement by subtraction.
                        var v: Int64 = 0
                        for bit in 0..<realBits where pattern & (1 << (bit + shift)) != 0 { v += 1 << bit }
                        if signed && v >= 1 << (realBits - 1) { v -= 1 << realBits }
                        if t.decode(bytes: bytes) != v { mismatches += 1 }
                    }
                    #expect(mismatches == 0, "\(t)")
                }
            }
        }
    }
}
