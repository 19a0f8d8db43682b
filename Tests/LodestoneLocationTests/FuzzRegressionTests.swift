import LodestoneCore
import LodestoneLocation
import Testing

/// Inputs the fuzzer (scripts/fuzz) crashed a parser with, each replayed as its target feeds it, and the cause made
/// plain by a hand-made input of its own.
@Suite struct FuzzRegressionTests {
    /// The ubx target's framing: the input as UBX frames with valid checksums (class, id, a little-endian length cut
    /// to what is left, that many payload bytes, repeated), fed to one decoder (`UBXHighRateTests.reports`).
    static func ubxTarget(_ bytes: [UInt8]) -> [GNSSFixReport] {
        var stream: [UInt8] = []
        var i = 0
        while i + 4 <= bytes.count {
            let length = min(Int(bytes[i + 2]) | Int(bytes[i + 3]) << 8, bytes.count - i - 4)
            stream += UBXFrame.frame(messageClass: bytes[i], id: bytes[i + 1], payload: Array(bytes[(i + 4)..<(i + 4 + length)]))
            i += 4 + length
        }
        return UBXHighRateTests.reports([stream])
    }

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)!
        }
    }

    /// fuzz/crashes/ubx/crash-1c25e80b (found 2026-11-29, 39 911 inputs into a 10 s run): two HNR-PVT frames (class
    /// 0x28) whose signed nanoseconds were out of the manual's ±1e9, so that a fix's nanoseconds left 0 ..< 1e9 and the
    /// two fixes' time difference overflowed Int32 (a trap: the decoder, and a daemon reading that receiver, died).
    @Test func twoHighRateFramesWithCorruptedNanosecondsDecode() {
        let input = Self.bytes(
            hex: "28004800d0f78c14e5070610172e04371d2b2374f0b0b7c25f441af8f610005e4a110021000000210000002cab66012cab6601d00b"
                + "0000a5170000230100002de0320000121d4b2801200000230100002de0320000003e5f87ff2cab660180841e0008a33b002de0320028"
                + "022400000033343630342ed0f78c140000000000000000000000000000000000000000000000002800480034f88c14e5070610172e04"
                + "372c032ba42335e9071d74f0b0b7c25f441af8f610005e4a110020fe0000210000002cab66012cab320000121d4b28012000c4f98c14"
                + "01900020000000003e5f872de03100280225130025001f190100009b010000d2f5")
        #expect(input.count == 248)
        for r in Self.ubxTarget(input) {
            if let t = r.time { #expect((0..<1_000_000_000).contains(t.nanoseconds), "\(t)") }
        }
    }

    /// NAV-PVT with any signed nanoseconds: the time is the date's second plus them, nanoseconds normalised to
    /// 0 ..< 1e9 whatever the field holds (−2.1 s … +2.1 s).
    @Test(arguments: [Int32.min, -2_000_000_000, -1_500_000_000, -1, 0, 999_999_999, 1_000_000_000, 2_100_000_000, Int32.max])
    func navPVTsNanosecondsAreNormalised(nano: Int32) throws {
        var p = [UInt8](repeating: 0, count: 92)
        func put<T: FixedWidthInteger>(_ v: T, _ o: Int) {
            for i in 0..<MemoryLayout<T>.size { p[o + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) }
        }
        put(UInt16(2021), 4); p[6] = 6; p[7] = 16; p[8] = 23; p[9] = 46; p[10] = 30
        p[11] = 0x07
        put(nano, 16)
        p[20] = 3; p[21] = 0x01; p[23] = 9
        put(Int32(-1_213_140_888), 24); put(Int32(440_688_579), 28)
        // The frame, then the next second's: the decoder compares each fix's time with the one before.
        var later = p
        later[10] = 31
        let input: [UInt8] = [0x01, 0x07, 92, 0] + p + [0x01, 0x07, 92, 0] + later
        let reports = Self.ubxTarget(input)
        let t = try #require(reports.last?.time)
        let expected = 1_623_887_191.0 + Double(nano) * 1e-9 // 2021-06-16T23:46:31Z + nano
        #expect(abs(t.secondsSince1970 - expected) < 1e-6, "\(t)")
        #expect((0..<1_000_000_000).contains(t.nanoseconds))
    }

    /// NMEA lines with their checksums made valid (the nmea target's framing), fed to one decoder.
    static func nmeaTarget(_ lines: [String]) -> [GNSSFixReport] {
        var stream: [UInt8] = []
        for line in lines {
            let body = Array(line.utf8)
            var x: UInt8 = 0
            for c in body.dropFirst() { x ^= c }
            let hex = Array("0123456789ABCDEF".utf8)
            stream += body + [0x2A, hex[Int(x >> 4)], hex[Int(x & 15)], 0x0D, 0x0A]
        }
        return UBXHighRateTests.reports([stream])
    }

    /// fuzz/crashes/nmea/timeout-2861bf8d (found 2026-11-29 in a 400 s run, from gpsd's skytraq log): a VTG whose
    /// magnetic track read "121e18.87…" (1.2e20°). Normalising a track into [0, 360) added or took 360 until it got
    /// there, and 1.2e20 − 360 is 1.2e20: the decoder, and a daemon reading that receiver, never returned. Each of
    /// these now decodes, with its tracks in [0, 360).
    @Test(arguments: ["121e18", "1e300", "-1e300", "-0.0000000001", "720", "359.99999999999994"])
    func aHugeTrackIsNormalisedInConstantTime(track: String) {
        let reports = Self.nmeaTarget([
            "$GPRMC,182139.000,A,4404.1165102,N,12118.8704702,W,012.0,329.9,290316,,,D",
            "$GPVTG,\(track),T,\(track),M,012.0,N,022.2,K,D",
            "$GPRMC,182140.000,A,4404.1165102,N,12118.8704702,W,012.0,\(track),290316,,,D"
        ])
        #expect(!reports.isEmpty)
        for r in reports {
            for deg in [r.trackDeg, r.magneticTrackDeg].compactMap({ $0 }) {
                #expect(deg >= 0 && deg < 360, "\(track): \(deg)")
            }
        }
    }
}
