import LodestoneCore
import LodestoneEngine
import LodestoneLocation

@testable import LodestoneDaemon

/// What the gpsd tests share: an endpoint, and a short made-up drive of locations with their receiver fixes.
enum GPSDTestData {
    /// 2026-06-01T12:00:00Z.
    static let startUnixS = 1_780_315_200.0
    static let device = GPSDDevice(path: "gnss", activatedUnixS: startUnixS - 60)
    static let endpoint = GPSDEndpoint(device: device)

    /// A plain GNSS 3D fix as the receiver reports it.
    static func fix(_ i: Int, quality: ReceiverFix.Quality? = .gnss) -> ReceiverFix {
        var f = ReceiverFix(timeS: Double(i), mode: .threeDimensional)
        f.utcS = startUnixS + Double(i)
        f.quality = quality
        f.latitudeDeg = latitude(i)
        f.longitudeDeg = longitude(i)
        f.altitudeMSLM = 34.5
        f.geoidSeparationM = 39.25
        f.hdop = 0.9
        f.vdop = 1.4
        f.pdop = 1.66
        f.satellitesUsed = 9
        return f
    }

    static func latitude(_ i: Int) -> Double { 52.516_275 + Double(i) * 0.000_063_5 }
    static func longitude(_ i: Int) -> Double { 13.377_704 + Double(i) * 0.000_104 }

    /// Epoch `i` of a drive north-east at 10 m/s through Berlin, 1 Hz.
    static func location(_ i: Int, method: LocationSourceInformation.Method = .fused) -> Location {
        Location(
            coordinate: Coordinate(latitudeDeg: latitude(i), longitudeDeg: longitude(i)), altitudeMSLM: 34.5,
            ellipsoidalAltitudeM: 73.75, horizontalAccuracyM: 4.9, verticalAccuracyM: 7.5, speedMps: 10,
            speedAccuracyMps: 0.4, courseDeg: 45, courseAccuracyDeg: 2.5, climbMps: 0, timeS: Double(i),
            utcS: startUnixS + Double(i), sinceFixS: 0,
            sourceInformation: LocationSourceInformation(
                isSimulatedBySoftware: false, isProducedByAccessory: true, method: method))
    }

    static func attitude(_ i: Int) -> GPSDAttitude {
        var a = GPSDAttitude()
        a.trueHeadingDeg = 45 + Double(i)
        a.magneticHeadingDeg = 40.5 + Double(i)
        a.magneticStatus = "N"
        a.pitchDeg = 1.5
        a.rollDeg = -2.25
        a.yawDeg = 40.5 + Double(i)
        a.magneticFieldMicroTesla = Vector3(12, 18, -45)
        a.specificForceMps2 = Vector3(0.1, 0.2, 9.8)
        a.rotationRateDegS = Vector3(0, 0, 1.5)
        return a
    }

    /// A made-up sky view: 11 GPS and Galileo satellites, 9 of them used.
    static let skyView: [GNSSSatellite] = (0..<11).map { i in
        let galileo = i >= 7
        let sv = galileo ? i - 6 : 2 * i + 3
        return GNSSSatellite(
            prn: galileo ? 300 + sv : sv, gnssID: galileo ? 2 : 0, svID: sv, elevationDeg: Double(10 + 7 * i),
            azimuthDeg: Double(30 * i), signalDBHz: Double(25 + i), used: i < 9)
    }

    /// What a client reads from connect to the end of a drive of `epochs` epochs: the banner, the reply to
    /// libgps's `?WATCH`, then per epoch SKY, TPV and ATT. `#REPLY-END` separates the reply from the stream (for
    /// serve_lines.py).
    static func driveTranscript(epochs: Int) -> String {
        var session = GPSDClientSession(endpoint: endpoint)
        var text = session.banner()
        text += session.receive(line: "?WATCH={\"enable\":true,\"json\":true};\n", nowUnixS: startUnixS).joined()
        text += "#REPLY-END\n"
        for i in 0..<epochs {
            let f = fix(i)
            text += GPSDReport.sky(fix: f, satellites: skyView, device: device.path, utcS: f.utcS)
            text += GPSDReport.tpv(location: location(i), fix: f, device: device.path, magneticVariationDeg: 4.5)
            text += GPSDReport.att(attitude(i), device: device.path, utcS: f.utcS)
        }
        return text
    }
}
