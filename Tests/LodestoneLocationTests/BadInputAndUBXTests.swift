import LodestoneCore
import LodestoneLocation
import Testing

@Suite struct BadInputTests {
    static let good = NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")

    func frame(_ bytes: [UInt8]) -> (sentences: [String], framer: GNSSFramer) {
        var f = GNSSFramer()
        var out: [String] = []
        for b in bytes where f.push(b) == .nmea { f.withPacket { out.append(String(decoding: $0, as: UTF8.self)) } }
        f.finish()
        return (out, f)
    }

    @Test func aBadChecksumIsCountedAndSkipped() {
        var bad = Array(Self.good.utf8)
        bad[bad.count - 3] = bad[bad.count - 3] == 0x30 ? 0x31 : 0x30
        let (s, f) = frame(bad + Array(Self.good.utf8))
        #expect(s.count == 1)
        #expect(f.count(.badChecksum) == 1)
    }

    @Test func aSentenceWithoutChecksumIsRejected() {
        let (s, f) = frame(Array("$GPTXT,TELIT SW Version\r\n".utf8) + Array(Self.good.utf8))
        #expect(s.count == 1 && f.count(.missingChecksum) == 1)
    }

    @Test func nulBytesEndASentenceAsInvalid() {
        var bytes = Array(Self.good.utf8)
        bytes.insert(0, at: 20)
        let (s, f) = frame(bytes + Array(Self.good.utf8))
        #expect(s.count == 1 && f.count(.invalidCharacter) == 1)
    }

    @Test func aSentenceFarLongerThanTheStandardIsFramedAsGpsdsLexerFramesIt() {
        // 171 characters with CR LF: gpsd's lexer has no NMEA length limit and echoes such a sentence.
        let long = NMEA.sentence("PGLOR," + String(repeating: "X,", count: 80))
        let (s, f) = frame(Array(long.utf8) + Array(Self.good.utf8))
        #expect(s.count == 2 && s[0].hasPrefix("$PGLOR,X,X") && f.badTotal == 0)
    }

    @Test func aSentenceBeyondGpsdsPacketBufferIsRejected() {
        let huge = NMEA.sentence("PGLOR," + String(repeating: "X,", count: GNSSFramer.maximumSentenceLength / 2))
        let (s, f) = frame(Array(huge.utf8) + Array(Self.good.utf8))
        #expect(s.count == 1 && f.count(.overLong) == 1)
    }

    /// A GGA padded to `length` characters with CR LF by extra decimals of latitude (a survey receiver's habit).
    static func paddedGGA(length: Int) -> String {
        let plain = NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let padding = String(repeating: "0", count: length - plain.utf8.count)
        return NMEA.sentence("GPGGA,123519,4807.038\(padding),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    }

    @Test func aSentenceLongerThan82CharactersIsDecodedUpToGpsdsLimit() throws {
        let rmc = NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
        let gga = Self.paddedGGA(length: GNSSDecoder.maximumDecodedSentenceLength)
        #expect(gga.utf8.count == 110)
        let (reports, decoder) = NMEA.reports(rmc + gga, century: 1900)
        #expect(decoder.overLongSentences == 0)
        #expect(try #require(reports.last).altitudeMSLM == 545.4)
    }

    @Test func aSentenceLongerThanGpsdDecodesIsFramedButNotDecoded() throws {
        // gpsd's nmea_parse drops sentences longer than NMEA_MAX (110 characters with CR LF) whole.
        let rmc = NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
        let gga = Self.paddedGGA(length: GNSSDecoder.maximumDecodedSentenceLength + 1)
        let (reports, decoder) = NMEA.reports(rmc + gga, century: 1900)
        #expect(decoder.framer.nmeaCount == 2 && decoder.overLongSentences == 1)
        let last = try #require(reports.last)
        #expect(last.mode == .twoDimensional && last.altitudeMSLM == nil)
    }

    @Test func aTruncatedSentenceGluedToTheNextIsDroppedAndTheNextKept() {
        // triton400's defect: "$GPGGA,030130$GPGLL,…" on one line.
        let glued = "$GPGGA,030130" + NMEA.sentence("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A") + Self.good
        let (s, f) = frame(Array(glued.utf8))
        #expect(s.count == 2 && s[0].hasPrefix("$GPGLL") && f.count(.truncated) == 1)
    }

    @Test func anInjectedSentenceIsSplicedOutOfTheOneItInterrupted() {
        // isync's defect: a co-processor's sentence in the middle of the receiver's.
        let outer = NMEA.sentence("GPGSV,4,1,15,02,11,115,36,05,34,060,48,07,00,023,,13,56,090,49")
        let cut = outer.index(outer.startIndex, offsetBy: 28)
        let inner = NMEA.sentence("PTNTA,20160203131539,2,T4,000000066,+107,3,0,3")
        let (s, _) = frame(Array((String(outer[..<cut]) + inner + String(outer[cut...])).utf8))
        func body(_ t: String) -> String { String(t[..<t.lastIndex(of: "*")!]) }
        #expect(s == [body(inner), body(outer)])
    }

    @Test func aFileCutMidSentenceCountsItAsTruncated() {
        let (s, f) = frame(Array((Self.good + "$GPGGA,1235").utf8))
        #expect(s.count == 1 && f.count(.truncated) == 1)
    }

    @Test func unknownTalkersAndGarbageAreSkipped() {
        let (s, f) = frame(Array((NMEA.sentence("IMGSA,A,3,,,,,,,,,,,,,1.7,1.0,1.4") + "\u{7}\u{1}garbage\r\n" + Self.good).utf8))
        #expect(s.count == 1 && f.count(.unknownTalker) == 1 && f.count(.garbage) == 1)
    }

    @Test func gpsdJSONAndCommentLinesAreSkippedQuietly() {
        let (s, f) = frame(Array(("{\"class\":\"VERSION\"}\r\n# a comment with $GPGGA inside\r\n" + Self.good).utf8))
        #expect(s.count == 1 && f.badTotal == 0 && f.jsonLinesSkipped == 1)
    }

    @Test func emptyFieldsEverywhereNeverCrashAndGiveNoFix() {
        var text = ""
        for type in ["GGA", "RMC", "GSA", "GSV", "VTG", "GLL", "GST", "ZDA", "HDT", "HDG", "GNS", "GBS"] {
            text += NMEA.sentence("GP" + type + String(repeating: ",", count: 20))
            text += NMEA.sentence("GP" + type)
        }
        let (r, d) = NMEA.reports(text)
        #expect(r.allSatisfy { $0.latitudeDeg == nil })
        #expect(d.shortSentences > 0)
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var g = SystemRandomNumberGenerator()
        var d = GNSSDecoder()
        var bytes = [UInt8](repeating: 0, count: 200_000)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &g) }
        // Sprinkle framing characters so the parser goes deep.
        for i in stride(from: 0, to: bytes.count, by: 37) { bytes[i] = [0x24, 0x2C, 0x2A, 0x0D, 0xB5, 0x62][i % 6] }
        bytes.withUnsafeBytes { raw in d.feed(raw) { _ in } }
        d.finish()
        #expect(d.framer.badTotal > 0)
    }
}

@Suite struct UBXTests {
    /// A UBX frame with its Fletcher-8 checksum over class, id, length and payload (u-blox M8 Receiver
    /// Description UBX-13003221 §32.4).
    static func frame(_ cls: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [cls, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
        var a: UInt8 = 0, b: UInt8 = 0
        for c in body { a &+= c; b &+= a }
        body.append(a); body.append(b)
        return [0xB5, 0x62] + body
    }

    static func put<T: FixedWidthInteger>(_ v: T, _ p: inout [UInt8], _ o: Int) {
        for i in 0..<MemoryLayout<T>.size { p[o + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) }
    }

    /// NAV-PVT (§32.17.30) with a 3D DGNSS fix: 2017-07-19 08:50:01.000 UTC, lat −34.9062266°, lon 138.6081199°,
    /// height 25.378 m, hMSL 28.849 m (the first epoch of gpsd's ublox-neo-m8n log), hAcc 1133 mm, vAcc 1603 mm,
    /// velN 16 mm/s, velE −4 mm/s, velD 11 mm/s, gSpeed 16 mm/s, headMot 31.47181°, sAcc 170 mm/s, 12 SVs.
    static func navPVT() -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 92)
        put(UInt32(291_019_000), &p, 0)
        put(UInt16(2017), &p, 4); p[6] = 7; p[7] = 19; p[8] = 8; p[9] = 50; p[10] = 1
        p[11] = 0x07 // validDate, validTime, fullyResolved
        put(Int32(0), &p, 16)
        p[20] = 3 // 3D
        p[21] = 0x03 // gnssFixOK, diffSoln
        p[23] = 12
        put(Int32(1_386_081_199), &p, 24)
        put(Int32(-349_062_266), &p, 28)
        put(Int32(25_378), &p, 32)
        put(Int32(28_849), &p, 36)
        put(UInt32(1133), &p, 40)
        put(UInt32(1603), &p, 44)
        put(Int32(16), &p, 48); put(Int32(-4), &p, 52); put(Int32(11), &p, 56)
        put(Int32(16), &p, 60)
        put(Int32(3_147_181), &p, 64)
        put(UInt32(170), &p, 68)
        put(UInt16(180), &p, 76)
        return frame(0x01, 0x07, p)
    }

    @Test func navPVTDecodesToA3DFixWithTheReceiversAccuracies() throws {
        var d = GNSSDecoder()
        var reports: [GNSSFixReport] = []
        Self.navPVT().withUnsafeBytes { raw in d.feed(raw) { if case .report(let r, _) = $0 { reports.append(r) } } }
        let r = try #require(reports.last)
        #expect(r.mode == .threeDimensional && r.status == .differential)
        #expect(r.time?.iso8601 == "2017-07-19T08:50:01.000Z")
        #expect(abs(r.latitudeDeg! + 34.9062266) < 1e-12 && abs(r.longitudeDeg! - 138.6081199) < 1e-12)
        #expect(r.altitudeHAEM == 25.378 && r.altitudeMSLM == 28.849)
        #expect(r.ephM == 1.133 && r.epvM == 1.603 && r.epsMps == 0.17)
        #expect(r.speedMps == 0.016 && abs(r.trackDeg! - 31.47181) < 1e-9)
        let v = try #require(r.velocityNEDMps)
        #expect(v.north == 0.016 && v.east == -0.004 && v.down == 0.011)
        #expect(r.receiverFix(timeS: 0).velocityENUMps == Vector3(-0.004, 0.016, -0.011))
        #expect(d.satellitesUsed == 12)
    }

    @Test func aCorruptedUBXChecksumIsCountedAndSkipped() {
        var bytes = Self.navPVT()
        bytes[bytes.count - 1] ^= 0xFF
        var d = GNSSDecoder()
        var n = 0
        bytes.withUnsafeBytes { raw in d.feed(raw) { if case .report = $0 { n += 1 } } }
        #expect(n == 0 && d.framer.count(.ubxBadChecksum) == 1)
    }

    @Test func navSATGivesTheSkyView() {
        var p = [UInt8](repeating: 0, count: 8 + 24)
        p[4] = 1; p[5] = 2
        // GPS 5: C/N0 40, el 45, az 270, used. GLONASS 3: C/N0 30, el 10, az 90, not used.
        p[8] = 0; p[9] = 5; p[10] = 40; p[11] = 45; Self.put(Int16(270), &p, 12); Self.put(UInt32(0x08), &p, 16)
        p[20] = 6; p[21] = 3; p[22] = 30; p[23] = 10; Self.put(Int16(90), &p, 24)
        var d = GNSSDecoder()
        var sky = false
        Self.frame(0x01, 0x35, p).withUnsafeBytes { raw in d.feed(raw) { if case .sky = $0 { sky = true } } }
        #expect(sky)
        #expect(d.satellites.map(\.prn) == [5, 67])
        #expect(d.satellites.first?.used == true && d.satellites.last?.used == false)
        #expect(d.satellites.first?.azimuthDeg == 270 && d.satellites.last?.signalDBHz == 30)
    }
}
