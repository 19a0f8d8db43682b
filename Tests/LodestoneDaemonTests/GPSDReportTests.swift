import Foundation
import LodestoneCore
import LodestoneLocation
import LodestoneOrientation
import Testing

@testable import LodestoneDaemon
@testable import LodestoneEngine

/// The report lines: member sets for every kind of location, gpsd's decimals and order, and the shape every gpsd
/// client needs (class first, compact, CR LF, never null or NaN).
@Suite struct GPSDReportTests {
    typealias D = GPSDTestData

    @Test func plainGNSSFixHasGpsdsMembersInGpsdsOrder() {
        let line = GPSDReport.tpv(
            location: D.location(0, method: .gnss), fix: D.fix(0), device: "gnss", magneticVariationDeg: 4.5)
        #expect(
            line
                == #"{"class":"TPV","device":"gnss","mode":3,"time":"2026-06-01T12:00:00.000Z","ept":0.005,"lat":52.516275000,"lon":13.377704000,"altHAE":73.7500,"altMSL":34.5000,"alt":34.5000,"epx":3.924,"epy":3.924,"epv":7.500,"track":45.0000,"magtrack":40.5000,"magvar":4.5,"speed":10.000,"climb":0.000,"epd":2.5000,"eps":0.40,"geoidSep":39.250,"eph":4.900,"sep":8.959}"#
                + "\r\n")
    }

    @Test(
        arguments: [
            (ReceiverFix.Quality.gnss, nil), (.differential, 2), (.rtkFixed, 3), (.rtkFloat, 4), (.simulated, 8)
        ] as [(ReceiverFix.Quality, Int?)])
    func gnssStatusIsTheReceiversWhenBetterThanAutonomous(_ quality: ReceiverFix.Quality, _ status: Int?) throws {
        let tpv = try Self.object(
            GPSDReport.tpv(location: D.location(1, method: .gnss), fix: D.fix(1, quality: quality), device: "gnss"))
        #expect(tpv["status"] as? Int == status)
        #expect(tpv["mode"] as? Int == 3)
    }

    @Test func fusedIsStatus6AndDeadReckoningStatus5WithTheirMode() throws {
        let fused = try Self.object(GPSDReport.tpv(location: D.location(2, method: .fused), fix: D.fix(2), device: "gnss"))
        #expect(fused["status"] as? Int == 6 && fused["mode"] as? Int == 3)
        var dr = D.location(3, method: .deadReckoning)
        dr.sinceFixS = 12
        var lost = ReceiverFix(timeS: 3, mode: .noFix)
        lost.utcS = D.startUnixS + 3
        let tpv = try Self.object(GPSDReport.tpv(location: dr, fix: lost, device: "gnss"))
        #expect(tpv["status"] as? Int == 5 && tpv["mode"] as? Int == 3)
        #expect(tpv["lat"] as? Double == D.latitude(3))
        dr.altitudeMSLM = nil
        dr.ellipsoidalAltitudeM = nil
        let flat = try Self.object(GPSDReport.tpv(location: dr, fix: lost, device: "gnss"))
        #expect(flat["mode"] as? Int == 2 && flat["status"] as? Int == 5)
        #expect(flat["alt"] == nil && flat["epv"] == nil && flat["climb"] == nil && flat["geoidSep"] == nil)
    }

    @Test func twoDimensionalReceiverFixIsMode2WithoutVerticalMembers() {
        var f = D.fix(4)
        f.mode = .twoDimensional
        let line = GPSDReport.tpv(location: D.location(4, method: .gnss), fix: f, device: "gnss")
        #expect(line.contains(#""mode":2,"#))
        for member in ["epv", "climb", "geoidSep", "sep"] { #expect(!line.contains("\"\(member)\":")) }
    }

    @Test func noLocationIsMode1WithTheReceiversTime() {
        var f = ReceiverFix(timeS: 0, mode: .noFix)
        f.utcS = D.startUnixS
        #expect(
            GPSDReport.tpv(location: nil, fix: f, device: "gnss")
                == #"{"class":"TPV","device":"gnss","mode":1,"time":"2026-06-01T12:00:00.000Z","ept":0.005}"# + "\r\n")
        #expect(GPSDReport.tpv(location: nil, fix: nil, device: nil) == #"{"class":"TPV","mode":1}"# + "\r\n")
        #expect(
            GPSDReport.tpv(location: nil, fix: ReceiverFix(timeS: 0, mode: .unknown), device: nil) == #"{"class":"TPV","mode":0}"#
                + "\r\n")
    }

    /// A reduced-accuracy client's location: coarse position, no altitude, speed or course.
    @Test func reducedLocationHasOnlyWhatIsKnown() throws {
        let reduced = Location(
            coordinate: Coordinate(latitudeDeg: 52.52, longitudeDeg: 13.38), horizontalAccuracyM: 3000, timeS: 5,
            utcS: D.startUnixS + 5,
            sourceInformation: LocationSourceInformation(
                isSimulatedBySoftware: false, isProducedByAccessory: true, method: .fused))
        let line = GPSDReport.tpv(location: reduced, fix: nil, device: "gnss")
        #expect(
            line
                == #"{"class":"TPV","device":"gnss","status":6,"mode":2,"time":"2026-06-01T12:00:05.000Z","ept":0.005,"lat":52.520000000,"lon":13.380000000,"epx":2402.194,"epy":2402.194,"eph":3000.000}"#
                + "\r\n")
        #expect(
            Set(try Self.object(line).keys) == [
                "class", "device", "status", "mode", "time", "ept", "lat", "lon", "epx", "epy", "eph"
            ])
    }

    /// Nothing that is not finite ever reaches a line; an invalid coordinate is no position.
    @Test func nonFiniteValuesAreLeftOut() throws {
        var l = D.location(5, method: .gnss)
        l.speedMps = .nan
        l.courseDeg = .infinity
        l.climbMps = -.infinity
        l.altitudeMSLM = .nan
        l.verticalAccuracyM = .nan
        l.horizontalAccuracyM = .nan
        l.utcS = .nan
        var f = D.fix(5)
        f.hdop = .nan
        f.geoidSeparationM = .infinity
        var a = GPSDAttitude()
        a.pitchDeg = .nan
        a.specificForceMps2 = Vector3(.nan, 0, 1)
        a.rotationRateDegS = Vector3(.infinity, 0, 0)
        var bad = l
        bad.coordinate.latitudeDeg = .nan
        let lines = [
            GPSDReport.tpv(location: l, fix: f, device: "gnss", magneticVariationDeg: .nan),
            GPSDReport.tpv(location: bad, fix: f, device: "gnss"),
            GPSDReport.sky(fix: f, device: "gnss", utcS: .nan),
            GPSDReport.att(a, device: "gnss", utcS: .infinity)
        ]
        for line in lines {
            for word in ["nan", "inf", "null", "NaN"] { #expect(!line.lowercased().contains(word), "\(line)") }
            _ = try Self.object(line)
        }
        #expect(lines[1].contains(#""mode":1"#) && !lines[1].contains("lat"))
        #expect(!lines[3].contains("gyro") && !lines[3].contains("acc_") && !lines[3].contains("pitch"))
    }

    @Test func skyWithoutASkyViewHasDOPsAndSatellitesUsed() {
        #expect(
            GPSDReport.sky(fix: D.fix(0), device: "gnss", utcS: D.startUnixS)
                == #"{"class":"SKY","device":"gnss","time":"2026-06-01T12:00:00.000Z","vdop":1.40,"hdop":0.90,"pdop":1.66,"uSat":9}"#
                + "\r\n")
    }

    @Test func skyViewListsEverySatelliteWithPRNAndUsed() throws {
        let sats = [
            GNSSSatellite(prn: 25, gnssID: 0, svID: 25, elevationDeg: 70, azimuthDeg: 260, signalDBHz: 46, used: true),
            GNSSSatellite(prn: 2, gnssID: 0, svID: 2, elevationDeg: 55, azimuthDeg: 52, signalDBHz: nil, used: false),
            GNSSSatellite(prn: 0, gnssID: 0, svID: 0, elevationDeg: nil, azimuthDeg: nil, signalDBHz: nil, used: false),
            GNSSSatellite(
                prn: 301, gnssID: 2, svID: 1, signalID: 1, elevationDeg: nil, azimuthDeg: 400, signalDBHz: 30, used: true)
        ]
        let line = GPSDReport.sky(fix: D.fix(0), satellites: sats, device: "gnss", utcS: nil)
        #expect(
            line
                == #"{"class":"SKY","device":"gnss","vdop":1.40,"hdop":0.90,"pdop":1.66,"nSat":3,"uSat":2,"satellites":[{"PRN":25,"el":70.0,"az":260.0,"ss":46.0,"used":true,"gnssid":0,"svid":25},{"PRN":2,"el":55.0,"az":52.0,"used":false,"gnssid":0,"svid":2},{"PRN":301,"ss":30.0,"used":true,"gnssid":2,"svid":1,"sigid":1}]}"#
                + "\r\n")
        let list = try #require(try Self.object(line)["satellites"] as? [[String: Any]])
        for s in list { #expect(s["PRN"] != nil && s["used"] != nil) }
    }

    @Test func attitudeHasOnlyDocumentedMembers() throws {
        let line = GPSDReport.att(D.attitude(0), device: "gnss", utcS: D.startUnixS)
        #expect(
            line
                == #"{"class":"ATT","device":"gnss","time":"2026-06-01T12:00:00.000Z","heading":45.000,"mag_st":"N","mheading":40.500,"pitch":1.500,"yaw":40.500,"roll":-2.250,"mag_len":49.800,"mag_x":12.000,"mag_y":18.000,"mag_z":-45.000,"acc_len":9.803,"acc_x":0.100,"acc_y":0.200,"acc_z":9.800,"gyro_x":0.000,"gyro_y":0.000,"gyro_z":1.500}"#
                + "\r\n")
        let documented: Set<String> = [
            "class", "device", "time", "timeTag", "heading", "mag_st", "mheading", "pitch", "pitch_st", "rot", "yaw", "yaw_st",
            "roll", "roll_st", "dip", "mag_len", "mag_x", "mag_y", "mag_z", "acc_len", "acc_x", "acc_y", "acc_z", "gyro_x",
            "gyro_y", "gyro_z", "depth", "temp"
        ]
        #expect(Set(try Self.object(line).keys).isSubset(of: documented))
    }

    /// From the engine's types: the accelerometer's reading (f = user − gravity), rates in deg/s, the heading's
    /// calibration flag as `mag_st`, magvar from true − magnetic.
    @Test func attitudeFromHeadingAndDeviceMotion() throws {
        let heading = HeadingUpdate(
            Heading(
                timeS: 1, magneticHeadingDeg: 350, trueHeadingDeg: 5, declinationDeg: 15, headingAccuracyDeg: 4,
                magneticFieldMicroTesla: Vector3(1, 2, 3), calibrationNeeded: true))
        let motion = DeviceMotion(
            timeS: 1, attitude: Quaternion.identity, rollDeg: 0, pitchDeg: 0, yawDeg: 0,
            rotationRateRadS: Vector3(0, 0, .pi / 180),
            gravityMps2: Vector3(0, 0, -9.81), userAccelerationMps2: Vector3(0.5, 0, 0),
            magneticFieldMicroTesla: Vector3(10, 20, -40),
            magneticFieldAccuracy: .high, headingDeg: 350)
        let a = GPSDAttitude(heading: heading, motion: motion)
        #expect(a.trueHeadingDeg == 5 && a.magneticHeadingDeg == 350 && a.magneticStatus == "C")
        #expect(a.specificForceMps2 == Vector3(0.5, 0, 9.81))
        #expect(abs((a.rotationRateDegS?.z ?? 0) - 1) < 1e-12)
        #expect(a.magneticFieldMicroTesla == Vector3(10, 20, -40))
        #expect(GPSDReport.magneticVariationDeg(from: heading) == 15)
        var relative = heading
        relative.headingAccuracyDeg = -1
        let r = GPSDAttitude(heading: relative, motion: nil)
        #expect(r.trueHeadingDeg == nil && r.magneticHeadingDeg == nil && r.magneticStatus == nil)
        #expect(GPSDReport.magneticVariationDeg(from: relative) == nil)
    }

    /// Every builder: one line, `"class"` first, compact separators, CR LF, valid JSON.
    @Test func everyLineIsCompactClassFirstJSONWithCRLF() throws {
        var s = GPSDClientSession(endpoint: D.endpoint)
        var lines = [s.banner(), GPSDReport.devices([D.device]), GPSDReport.device(D.device), GPSDReport.watch(GPSDWatch())]
        lines += s.receive(line: "?WATCH={\"enable\":true,\"json\":true};?FOO\r\n", nowUnixS: D.startUnixS)
        lines += [
            GPSDReport.error("quote \" backslash \\ tab \t"),
            GPSDReport.tpv(location: D.location(0), fix: D.fix(0), device: "dev \"x\""),
            GPSDReport.sky(fix: D.fix(0), device: "gnss", utcS: nil),
            GPSDReport.att(D.attitude(0), device: "gnss", utcS: nil)
        ]
        s.cache(tpv: lines[lines.count - 3], sky: lines[lines.count - 2])
        lines += s.receive(line: "?POLL;\n", nowUnixS: D.startUnixS)
        for line in lines {
            #expect(line.hasPrefix(#"{"class":""#), "\(line)")
            #expect(line.hasSuffix("}\r\n"))
            #expect(line.dropLast(2).firstIndex(where: { $0 == "\n" || $0 == "\r" }) == nil)
            let object = try Self.object(line)
            let compact = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            _ = compact
            #expect(!Self.outsideStrings(line).contains(" "), "\(line)")
        }
    }

    @Test func driveTranscriptIsWellFormed() throws {
        let lines = D.driveTranscript(epochs: 3).split(separator: "\n").filter { $0 != "#REPLY-END" }
        #expect(lines.count == 1 + 2 + 9)
        for l in lines { _ = try Self.object(String(l) + "\n") }
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The line with every string literal removed: what must hold no space for compact JSON.
    static func outsideStrings(_ line: String) -> String {
        var out = ""
        var inString = false
        var escape = false
        for c in line {
            if inString {
                if escape { escape = false } else if c == "\\" { escape = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else {
                out.append(c)
            }
        }
        return out
    }
}
