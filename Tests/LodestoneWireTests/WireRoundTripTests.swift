import Foundation
import LodestoneWire
import Testing

/// Every class of the wire survives encode → decode unchanged, keys carry their units, unknown values are omitted,
/// and a reader copes with what it does not know.
struct WireRoundTripTests {
    static func messages() -> [Wire.Message] {
        var board = Wire.Board()
        board.name = "simulated"; board.path = "boards/simulated.json"; board.scenario = "walk"; board.seed = 7
        board.sensors = [.init(id: "imu", label: "mpu9250 @ sim 0x68", rateHz: 100)]
        var calibration = Wire.Calibration()
        calibration.path = "/var/lib/lodestone/simulated.json"; calibration.sensors = [.init(id: "mag", kinds: ["magnetometer"])]
        var sample = Wire.Sample()
        sample.class = "SAMPLE"; sample.tS = 1.25; sample.sensor = "imu"; sample.accXMps2 = 0.1; sample.accZMps2 = 9.81
        sample.gyrYRadS = -0.002; sample.magXMicroTesla = 21.5
        var fix = Wire.Fix()
        fix.tS = 2; fix.sensor = "gnss"; fix.mode = 3; fix.latDeg = 47.3769; fix.lonDeg = 8.5417; fix.heightM = 455.2
        fix.horizontalAccuracyM = 3.1
        var status = Wire.Status()
        status.tS = 3; status.time = "2026-05-01T08:00:03.000Z"
        status.sensors = [.init(id: "baro", health: "degraded", message: "NACK at 0x76", rateHz: 0, samples: 50, failures: 3)]
        status.degraded = ["baro"]
        status.truth = .init(activity: "walk", segment: "walk", floor: 0, latDeg: 47.1, lonDeg: 8.2, heightM: 440, headingDeg: 91)
        var summary = Wire.PlanSummary()
        summary.generation = 2; summary.policy = "adaptive"; summary.predictedMA = 1.2; summary.motion = "walk";
        summary.tier = "unrestricted"
        status.plan = summary
        var plan = Wire.Plan()
        plan.tS = 0.01; plan.generation = 1; plan.policy = "adaptive"; plan.causes = ["heading wanted"];
        plan.tier = "unrestricted"
        plan.motion = "unknown"; plan.predictedMA = 4.5; plan.predictedMW = 14.9
        plan.sensors = [
            .init(
                id: "imu", enabled: true, rateHz: 100, readRateHz: 100, powerMode: "normal", oversampling: 1,
                fifoDepth: nil, wakeThresholdMps2: nil, predictedMA: 3.2, predictedMW: 10.6)
        ]
        plan.gnss = .init(id: "gnss", mode: "power-save", updatePeriodS: 10, powerState: "tracking", predictedMA: 7)
        plan.battery = .init(levelPercent: 80, charging: "discharging", source: "simulated")
        plan.failures = ["mag: NACK"]
        var location = Wire.Location()
        location.tS = 4; location.time = "2026-05-01T08:00:04.000Z"; location.latDeg = 47.37; location.lonDeg = 8.54
        location.horizontalAccuracyM = 4.2; location.speedMps = 1.4; location.method = "fused"; location.sinceFixS = 0.3
        var delivery = Wire.Delivery()
        delivery.tS = 4; delivery.location = location; delivery.ageS = 0.3
        var attitude = Wire.Attitude()
        attitude.tS = 5; attitude.qw = 0.7071; attitude.qz = 0.7071; attitude.yawDeg = 270
        var heading = Wire.Heading()
        heading.tS = 5; heading.magneticDeg = 91.2; heading.trueDeg = 93.9; heading.accuracyDeg = 4.1;
        heading.declinationDeg = 2.7
        heading.fieldXMicroTesla = 20; heading.fieldYMicroTesla = 1; heading.fieldZMicroTesla = -43
        var activity = Wire.Activity()
        activity.tS = 6; activity.activity = "walk"; activity.confidence = "high"; activity.startTS = 1.5
        var pedometer = Wire.Pedometer()
        pedometer.tS = 7; pedometer.steps = 12; pedometer.distanceM = 8.9; pedometer.cadenceSpm = 110; pedometer.paceSPerM = 0.8
        pedometer.floorsUp = 1; pedometer.event = "resume"
        var altitude = Wire.Altitude()
        altitude.tS = 8; altitude.relativeAltitudeM = 3.1; altitude.pressurePa = 96_500; altitude.altitudeM = 440.2
        altitude.altitudeAccuracyM = 2.5
        return [
            .version(Wire.Version(release: "0.1.0", time: "2026-05-01T08:00:00.000Z")), .board(board), .calibration(calibration),
            .sample(sample), .fix(fix), .status(status), .plan(plan), .delivery(delivery), .location(location),
            .notice(Wire.Notice(messageClass: "DEGRADED", tS: 3, sensor: "baro", message: "NACK at 0x76")),
            .notice(Wire.Notice(messageClass: "RECOVERED", tS: 6, sensor: "baro", message: "delivering again")),
            .attitude(attitude), .heading(heading), .activity(activity), .pedometer(pedometer), .altitude(altitude)
        ]
    }

    @Test func everyClassRoundTrips() throws {
        let messages = Self.messages()
        // Every class is represented.
        #expect(Set(messages.compactMap(\.messageClass)) == Set(Wire.Class.allCases))
        for m in messages {
            let line = m.line
            #expect(!line.contains("\n"))
            #expect(try Wire.Message.decode(line) == m, "\(line)")
        }
    }

    @Test func everyMessageHasClassAndSessionTime() throws {
        for m in Self.messages() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(m.line.utf8)) as? [String: Any])
            #expect(object["class"] as? String == m.messageClass?.rawValue)
            #expect(object["t_s"] is Double || object["t_s"] is Int, "\(m.line)")
        }
    }

    @Test func unknownValuesAreOmittedNotNull() {
        var heading = Wire.Heading()
        heading.magneticDeg = 10
        let line = Wire.line(heading)
        #expect(!line.contains("null"))
        #expect(!line.contains("true_deg"))
        #expect(line.contains("\"magnetic_deg\":10"))
    }

    @Test func readerKeepsUnknownClassesAndNamesWhatIsWrong() throws {
        let future = #"{"class":"VISIT","t_s":1,"arrival_t_s":0}"#
        #expect(try Wire.Message.decode(future) == .unknown(class: "VISIT", line: future))
        // Unknown keys of a known class are ignored.
        let extra = try Wire.Message.decode(
            #"{"class":"ACTIVITY","t_s":1,"activity":"run","confidence":"low","start_t_s":0,"new_key":3}"#)
        guard case .activity(let a) = extra else { Issue.record("not an activity: \(extra)"); return }
        #expect(a.activity == "run")
        #expect(throws: WireError.self) { try Wire.Message.decode("not json") }
        do {
            _ = try Wire.Message.decode(#"{"class":"HEADING","t_s":"soon"}"#)
            Issue.record("a string t_s was accepted")
        } catch {
            #expect(error.message.contains("t_s"), "\(error.message)")
        }
    }

    @Test func classListsParseAndNameTheAllowedOnes() throws {
        #expect(try Wire.Class.parseList("heading, activity") == [.heading, .activity])
        #expect(!Wire.Class.defaultSet.contains(.sample))
        do {
            _ = try Wire.Class.parseList("HEADING,COMPASS")
            Issue.record("COMPASS accepted")
        } catch {
            #expect(error.message.contains("COMPASS") && error.message.contains("ATTITUDE"))
        }
    }
}
