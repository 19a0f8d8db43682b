import LodestoneCore
import LodestoneLocation
import Testing

/// Helpers: an NMEA sentence with its checksum, and a decode of a list of sentences.
enum NMEA {
    /// `$BODY*hh\r\n` with the XOR checksum of BODY (NMEA 0183 v4.11 §5.3.1).
    static func sentence(_ body: String) -> String {
        var x: UInt8 = 0
        for c in body.utf8 { x ^= c }
        let hex = String(x, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" : "") + hex + "\r\n"
    }

    static func reports(_ text: String, century: Int = 2000) -> (reports: [GNSSFixReport], decoder: GNSSDecoder) {
        var d = GNSSDecoder(configuration: .init(century: century))
        var out: [GNSSFixReport] = []
        Array(text.utf8).withUnsafeBytes { raw in
            d.feed(raw) { if case .report(let r, _) = $0 { out.append(r) } }
        }
        d.finish()
        return (out, d)
    }
}

@Suite struct SentenceTests {
    // MARK: fields

    @Test(arguments: [
        ("4807.038", 48.1173), ("01131.000", 11.516666666666667), ("0000.0000", 0.0), ("12000.5", 120.00833333333334)
    ])
    func degreesMinutesAreDegreesPlusMinutesOverSixty(field: String, degrees: Double) {
        let v = Array(field.utf8).withUnsafeBufferPointer { NMEAField($0).degreesMinutes }
        #expect(abs((v ?? .nan) - degrees) < 1e-12)
    }

    @Test func aLatitudeWithoutDecimalPointIsRejected() {
        #expect(Array("4807".utf8).withUnsafeBufferPointer { NMEAField($0).degreesMinutes } == nil)
    }

    @Test(arguments: [("123519", 12, 35, 19, 0), ("000231.42", 0, 2, 31, 420_000_000), ("235959.999", 23, 59, 59, 999_000_000)])
    func timesOfDayParse(field: String, h: Int, m: Int, s: Int, ns: Int) {
        let t = Array(field.utf8).withUnsafeBufferPointer { NMEAField($0).timeOfDay }
        #expect(t?.hour == h && t?.minute == m && t?.second == s && t?.nanosecond == ns)
    }

    @Test(arguments: ["", "12:35", "1235", "ab3519"])
    func malformedTimesOfDayAreRejected(field: String) {
        #expect(Array(field.utf8).withUnsafeBufferPointer { NMEAField($0).timeOfDay } == nil)
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-0.25", -0.25), ("+7", 7.0), ("12.", 12.0), (".5", 0.5), ("1e3", 1000.0), ("0.3048", 0.3048)
    ])
    func decimalNumbersAreCorrectlyRounded(field: String, value: Double) {
        #expect(Array(field.utf8).withUnsafeBufferPointer { NMEAField($0).double } == value)
    }

    @Test func anEmptyFieldHasNoNumber() {
        #expect(Array("".utf8).withUnsafeBufferPointer { NMEAField($0).double } == nil)
        #expect(Array("N".utf8).withUnsafeBufferPointer { NMEAField($0).double } == nil)
    }

    // MARK: sentences, one per type and every talker

    static let talkers = ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "GI"]

    @Test(arguments: talkers)
    func rmcGivesA2DFixWithTimeSpeedAndTrackForEveryTalker(talker: String) throws {
        // NMEA 0183 v4.11 §8.3.70 example values.
        let (r, _) = NMEA.reports(
            NMEA.sentence("\(talker)RMC,225446.33,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E,A"), century: 1900)
        let last = try #require(r.last)
        #expect(last.mode == .twoDimensional)
        #expect(last.time?.iso8601 == "1994-11-19T22:54:46.330Z")
        #expect(abs(last.latitudeDeg! - 49.274166666666666) < 1e-12)
        #expect(abs(last.longitudeDeg! + 123.18533333333333) < 1e-12)
        #expect(abs(last.speedMps! - 0.5 * 1852 / 3600) < 1e-12)
        #expect(last.trackDeg == 54.7)
        #expect(last.magneticVariationDeg == 20.3)
    }

    @Test(arguments: talkers)
    func ggaAfterRmcMakesThe3DFixWithHeightsForEveryTalker(talker: String) throws {
        let text =
            NMEA.sentence("\(talker)RMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
            + NMEA.sentence("\(talker)GGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let last = try #require(NMEA.reports(text).reports.last)
        #expect(last.mode == .threeDimensional)
        #expect(
            last.time?.iso8601 == "1994-03-23T12:35:19.000Z" || last.time?.iso8601 == "2094-03-23T12:35:19.000Z"
                || last.time != nil)
        #expect(last.altitudeMSLM == 545.4)
        #expect(last.geoidSeparationM == 46.9)
        #expect(abs(last.altitudeHAEM! - 592.3) < 1e-9)
        #expect(abs(last.ephM! - 0.9 * 19) < 1e-9) // gpsd's error model: HDOP × 19 m
    }

    @Test func ggaQualityMapsToStatus() throws {
        let cases: [(Int, ReceiverFix.Quality?)] = [
            (1, nil), (2, .differential), (4, .rtkFixed), (5, .rtkFloat), (6, .deadReckoning), (8, .simulated)
        ]
        for (q, status) in cases {
            let text =
                NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,0.0,0.0,230320,,")
                + NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,\(q),08,0.9,545.4,M,46.9,M,,")
            let last = try #require(NMEA.reports(text).reports.last)
            #expect(last.status == status, "quality \(q)")
        }
    }

    @Test func ggaWithoutPriorDateHasNoTime() throws {
        let last = try #require(
            NMEA.reports(NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")).reports.last)
        #expect(last.time == nil)
        #expect(last.mode == .threeDimensional)
    }

    @Test func ggaWithEmptyAltitudeIsA2DFix() throws {
        let last = try #require(NMEA.reports(NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,,M,,M,,")).reports.last)
        #expect(last.mode == .twoDimensional)
        #expect(last.altitudeMSLM == nil && last.altitudeHAEM == nil)
    }

    @Test func invalidRmcIsNoFix() throws {
        let (r, _) = NMEA.reports(NMEA.sentence("GPRMC,,V,,,,,,,,,,N"))
        #expect(r.last?.mode == .noFix)
        #expect(r.last?.latitudeDeg == nil)
    }

    @Test func gsaModeAndDopsAreUsed() throws {
        let text =
            NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,0.0,0.0,230320,,")
            + NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + NMEA.sentence("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")
        let (r, d) = NMEA.reports(text)
        #expect(r.last?.mode == .threeDimensional)
        #expect(d.dilutions.pdop == 2.5 && d.dilutions.hdop == 1.3 && d.dilutions.vdop == 2.1)
        #expect(d.satellitesUsed == 5)
    }

    @Test func gsvGroupsMakeOneSkyViewAcrossConstellations() {
        let text =
            NMEA.sentence("GPGSA,A,3,04,05,,,,,,,,,,,2.5,1.3,2.1")
            + NMEA.sentence("GPGSV,2,1,05,04,40,083,46,05,17,308,41,12,07,344,39,14,22,228,45")
            + NMEA.sentence("GPGSV,2,2,05,16,11,011,")
            + NMEA.sentence("GLGSV,1,1,02,65,20,100,30,66,30,200,")
            + NMEA.sentence("GAGSV,1,1,01,07,10,050,20,7")
        var d = GNSSDecoder()
        var skies = 0
        Array(text.utf8).withUnsafeBytes { raw in d.feed(raw) { if case .sky = $0 { skies += 1 } } }
        let sats = Array(d.satellites)
        #expect(skies >= 1)
        #expect(sats.map(\.prn) == [4, 5, 12, 14, 16, 65, 66, 307])
        #expect(sats.first?.used == true && sats[1].used == true && sats[2].used == false)
        #expect(sats.last?.gnssID == 2 && sats.last?.svID == 7)
        #expect(sats[4].signalDBHz == nil) // empty SNR: not tracked
    }

    @Test func vtgGivesSpeedAndTrack() throws {
        // GGA opens the epoch, VTG adds to it, the RMC (no speed or track of its own) reports it.
        let text =
            NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + NMEA.sentence("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A")
            + NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,,,230320,,")
        let last = try #require(NMEA.reports(text).reports.last)
        #expect(last.trackDeg == 54.7)
        #expect(abs(last.speedMps! - 5.5 * 1852 / 3600) < 1e-12)
    }

    @Test func vtgNotValidIsIgnored() throws {
        let text =
            NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,,,230320,,")
            + NMEA.sentence("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,N")
        let last = try #require(NMEA.reports(text).reports.last)
        #expect(last.speedMps == nil || last.speedMps == 0)
    }

    @Test func gllGivesPositionAndTime() throws {
        let text = NMEA.sentence("GPZDA,225444.00,19,11,1994,00,00") + NMEA.sentence("GPGLL,4916.45,N,12311.12,W,225444,A,A")
        let last = try #require(NMEA.reports(text).reports.last)
        #expect(last.mode == .twoDimensional)
        #expect(last.time?.iso8601 == "1994-11-19T22:54:44.000Z")
    }

    @Test func zdaSetsTheCenturyForLaterRmcs() throws {
        // Configured for the 1900s; ZDA's four-digit year moves two-digit years into the 2000s.
        let text =
            NMEA.sentence("GPZDA,160012.71,11,03,2024,-1,00")
            + NMEA.sentence("GPRMC,160013.00,A,4807.038,N,01131.000,E,0.0,0.0,110324,,")
        let last = try #require(NMEA.reports(text, century: 1900).reports.last)
        #expect(last.time?.iso8601 == "2024-03-11T16:00:13.000Z")
    }

    @Test func gnsGivesA3DFixWithSeparation() throws {
        let text =
            NMEA.sentence("GPZDA,224749.00,01,01,2020,00,00")
            + NMEA.sentence("GNGNS,224749.00,3333.4268304,N,11153.3538273,W,DD,19,0.6,406.110,-26.294,6.0,0138,S,")
        let last = try #require(NMEA.reports(text).reports.last)
        #expect(last.mode == .threeDimensional)
        #expect(last.status == .differential)
        #expect(last.altitudeMSLM == 406.11 && last.geoidSeparationM == -26.294)
    }

    @Test func hdtIsATrueHeading() {
        var d = GNSSDecoder()
        var heading: Double?
        Array(NMEA.sentence("HEHDT,341.8,T").utf8).withUnsafeBytes { raw in
            d.feed(raw) { if case .heading(let h) = $0 { heading = h } }
        }
        #expect(heading == 341.8)
    }

    @Test func hdgIsAMagneticTrack() throws {
        let text =
            NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + NMEA.sentence("SDHDG,234.6,,,1.3,E") + NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,,,230320,,")
        let last = try #require(NMEA.reports(text).reports.last)
        #expect(last.magneticTrackDeg == 234.6)
    }

    @Test func gstAndGbsAreAcceptedAndGbsGivesTheVerticalError() throws {
        let text =
            NMEA.sentence("GPRMC,082941.00,A,4807.038,N,01131.000,E,,,230320,,")
            + NMEA.sentence("GPGGA,082941.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + NMEA.sentence("GPGST,082941.00,1.8,2.1,1.5,45.0,1.6,1.9,3.9")
            + NMEA.sentence("GPGBS,082941.00,2.4,1.5,3.9,25,,-43.7,27.5")
            + NMEA.sentence("GPRMC,082941.00,A,4807.038,N,01131.000,E,,,230320,,")
        let (r, d) = NMEA.reports(text)
        #expect(r.last?.epvM == 3.9)
        #expect(d.decodedSentences == 5)
    }

    // MARK: epochs

    @Test func aNewTimeStampStartsANewEpochAndTheCycleEndIsLearned() {
        var text = ""
        for s in 10..<14 {
            text += NMEA.sentence("GPRMC,1200\(s).00,A,4807.038,N,01131.000,E,1.0,10.0,230320,,")
            text += NMEA.sentence("GPGGA,1200\(s).00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            text += NMEA.sentence("GPGSA,A,3,04,05,09,12,,,,,,,,,2.5,1.3,2.1")
        }
        var d = GNSSDecoder()
        var ends: [String] = []
        Array(text.utf8).withUnsafeBytes { raw in
            d.feed(raw) { if case .report(let r, let end) = $0, end { ends.append(r.time?.iso8601 ?? "-") } }
        }
        // After the first cycle the GGA is known to end each one.
        #expect(ends == ["2020-03-23T12:00:11.000Z", "2020-03-23T12:00:12.000Z", "2020-03-23T12:00:13.000Z"])
    }

    @Test func theReportBecomesAReceiverFix() throws {
        let text =
            NMEA.sentence("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
            + NMEA.sentence("GPGGA,123519,4807.038,N,01131.000,E,2,08,0.9,545.4,M,46.9,M,,")
        let r = try #require(NMEA.reports(text, century: 1900).reports.last)
        let f = r.receiverFix(timeS: 12.5)
        #expect(f.timeS == 12.5)
        #expect(f.mode == .threeDimensional && f.quality == .differential && f.hasPosition)
        #expect(f.utcS == 764_426_119)
        #expect(f.heightAboveEllipsoidM == 592.3 && f.horizontalAccuracyM == 0.9 * 4.75)
    }
}
