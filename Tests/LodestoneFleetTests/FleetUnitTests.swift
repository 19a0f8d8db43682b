import Foundation
import LodestoneDaemon
import LodestoneScheduler
import LodestoneStore
import LodestoneWire
import Testing

@testable import LodestoneFleet

/// The fleet link's pieces without a broker: the on-disk queue, the publishing gate, commands, URLs, the back-off, the
/// configuration file.
struct OutboundQueueTests {
    @Test
    func keepsOrderAcrossReopeningAndDropsTheOldestWhenFull() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-queue-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("q.sqlite").path
        do {
            let q = try OutboundQueue(path: path, capacity: 5)
            for i in 1...3 {
                let r = try q.append(topic: "t/\(i)") { "{\"seq\":\($0)}" }
                #expect(r.seq == Int64(i) && r.dropped == 0)
            }
            try q.remove(2)
        }
        // Reopened (a restart): the same messages, the numbering goes on.
        let q = try OutboundQueue(path: path, capacity: 5)
        #expect(try q.pending(limit: 10).map(\.seq) == [1, 3])
        #expect(try q.pending(after: 1, limit: 10).map(\.topic) == ["t/3"])
        for i in 4...8 { try q.append(topic: "t/\(i)", retain: i == 8) { "{\"seq\":\($0)}" } }
        // 8 appended in all, 1 removed: 7 > 5, so the two oldest held (1 and 3) were dropped, and counted.
        #expect(try q.pending(limit: 10).map(\.seq) == [4, 5, 6, 7, 8])
        let r = try q.append(topic: "t/9") { "{\"seq\":\($0)}" }
        #expect(r.dropped == 1)
        #expect(try q.pending(limit: 10).map(\.seq) == [5, 6, 7, 8, 9])
        #expect(try q.dropped() == 3)
        #expect(try q.count() == 5)
        #expect(try q.lastSequence() == 9)
        #expect(try q.pending(limit: 10).first { $0.seq == 8 }?.retain == true)
        #expect(try q.pending(limit: 10).last?.payload == "{\"seq\":9}")
    }

    @Test
    func refusesAZeroCapacity() {
        #expect(throws: StoreError.self) { try OutboundQueue(path: "/tmp/never-made.sqlite", capacity: 0) }
    }
}

struct PublishGateTests {
    static func location(_ t: Double, lat: Double = 45, lon: Double = 7) -> Wire.Message {
        var l = Wire.Location()
        l.tS = t; l.latDeg = lat; l.lonDeg = lon; l.horizontalAccuracyM = 5
        return .location(l)
    }

    @Test
    func eachClassAtMostOncePerIntervalActivityOnChangeAndPlanBatteryWhenDue() {
        var p = FleetConfiguration.Publish()
        p.intervalsS = [.location: 10, .heading: 60, .activity: 60, .battery: 30, .plan: 60]
        var g = PublishGate(p)
        var published: [String] = []
        var plan = Wire.Plan()
        plan.battery = .init(levelPercent: 80, charging: "discharging", source: "simulated")
        plan.tS = 0
        published += g.offer(.plan(plan)).map(\.suffix)
        for t in stride(from: 0.0, through: 35, by: 1) { published += g.offer(Self.location(t)).map(\.suffix) }
        var a = Wire.Activity()
        a.tS = 36; a.activity = "walking"
        published += g.offer(.activity(a)).map(\.suffix)
        a.tS = 37
        published += g.offer(.activity(a)).map(\.suffix) // same kind, not due: nothing
        a.tS = 38; a.activity = "cycling"
        published += g.offer(.activity(a)).map(\.suffix) // a change: published
        #expect(
            published == [
                "plan", "battery", "location", "location", "location", "location", "battery", "activity", "activity"
            ])
    }

    @Test
    func aDistanceFilterHoldsLocationsUntilTheCarrierMoved() {
        var p = FleetConfiguration.Publish()
        p.intervalsS[.location] = 1
        p.distanceFilterM = 100
        var g = PublishGate(p)
        // 0.0005° of latitude ≈ 55.6 m per step.
        let out = (0..<6).flatMap { i in g.offer(Self.location(Double(i), lat: 45 + 0.0005 * Double(i))).map(\.suffix) }
        #expect(out == ["location", "location", "location"]) // at 0, 111 m, 222 m
        #expect(abs(PublishGate.haversineM(45, 7, 45.001, 7) - 111.2) < 0.2)
    }
}

struct FleetCommandTests {
    static let rules: FleetConfiguration.Commands = {
        var r = FleetConfiguration.Commands()
        r.allowed = [.accuracy, .intervals, .distanceFilter]
        r.finestAccuracy = .best
        r.minimumIntervalS = 30
        return r
    }()

    static func refusal(_ payload: String) -> String? {
        do {
            _ = try FleetCommand.decode(payload).applied(to: FleetConfiguration.Publish(), rules: rules)
            return nil
        } catch { return error.description }
    }

    @Test
    func appliesWhatTheConfigurationAllows() throws {
        let p = try FleetCommand.decode(#"{"id":"a","accuracy":"1km","distance_filter_m":250,"intervals_s":{"location":300}}"#)
            .applied(to: FleetConfiguration.Publish(), rules: Self.rules)
        #expect(p.desiredAccuracy == .kilometer && p.distanceFilterM == 250 && p.intervalS(.location) == 300)
        // The demand the scheduler gets from it.
        let d = FleetLink.demand(p)
        #expect(d.location?.desiredAccuracy == .kilometer && d.location?.distanceFilterM == 250)
        #expect(d.location?.maximumAgeS == 300 && d.client == "mqtt" && !d.foreground)
        #expect(d.location?.updateIntervalS == 300)
    }

    @Test
    func mergedCommandsApplyAsTheCommandsInTurnAndSurviveTheirJSON() throws {
        var rules = Self.rules
        rules.allowed = Set(FleetConfiguration.Commands.Setting.allCases)
        var configured = FleetConfiguration.Publish()
        configured.intervalsS[.heading] = 120
        let sequences: [[String]] = [
            [#"{"id":"a","accuracy":"1km","intervals_s":{"location":300}}"#, #"{"id":"b","intervals_s":{"battery":600}}"#],
            [#"{"classes":["location","plan"]}"#, #"{"distance_filter_m":50,"accuracy":"3km"}"#, #"{"distance_filter_m":0}"#],
            [#"{"accuracy":"1km","intervals_s":{"location":60}}"#, #"{"reset":true,"intervals_s":{"plan":300}}"#],
            [#"{"intervals_s":{"location":60}}"#, #"{"reset":true}"#, #"{"id":"c"}"#]
        ]
        for commands in sequences {
            var inTurn = configured
            var merged = FleetCommand()
            for text in commands {
                let c = try FleetCommand.decode(text)
                inTurn = try c.applied(to: inTurn, rules: rules, configured: configured)
                merged = merged.merging(c)
            }
            // What is stored (the merged command's JSON) gives the same settings when re-applied at the next start.
            let restored = try FleetCommand.decode(merged.json)
            #expect(restored == merged, "\(merged.json)")
            #expect(try restored.applied(to: configured, rules: rules) == inTurn, "\(commands) → \(merged.json)")
        }
        // A reset returns to the configuration's settings.
        let reset = try FleetCommand.decode(#"{"reset":true}"#).applied(
            to: FleetConfiguration.Publish(), rules: rules, configured: configured)
        #expect(reset == configured)
    }

    @Test(arguments: [
        (#"{"accuracy":"navigation"}"#, "finer than this board allows"),
        (#"{"accuracy":"5m"}"#, "accuracy \"5m\" is unknown"),
        (#"{"classes":["location"]}"#, "classes may not be set from the fleet"),
        (#"{"intervals_s":{"location":5}}"#, "shorter than this board allows (30.0 s)"),
        (#"{"intervals_s":{"speed":60}}"#, "class \"speed\" is unknown"),
        (#"{"rate_hz":5}"#, "unknown key \"rate_hz\""),
        (#"{"distance_filter_m":"far"}"#, "key \"distance_filter_m\" has the wrong type"),
        (#"not json"#, "not a JSON object")
    ])
    func refusesWithTheReason(payload: String, reason: String) {
        let r = Self.refusal(payload)
        #expect(r?.contains(reason) == true, "\(payload): \(r ?? "accepted")")
    }

    @Test
    func disabledCommandsAreAllRefused() throws {
        var rules = Self.rules
        rules.enabled = false
        #expect(throws: FleetError.self) {
            try FleetCommand.decode(#"{"accuracy":"1km"}"#).applied(to: FleetConfiguration.Publish(), rules: rules)
        }
    }
}

struct FleetConfigurationTests {
    @Test
    func brokerURLs() throws {
        let a = try BrokerURL(parsing: "mqtt://broker.example.org")
        #expect(!a.tls && a.host == "broker.example.org" && a.port == 1883 && a.username == nil)
        let b = try BrokerURL(parsing: "mqtts://bike:pa:ss@[::1]:8884/")
        #expect(b.tls && b.host == "::1" && b.port == 8884 && b.username == "bike" && b.password == "pa:ss")
        #expect(b.description == "mqtts://bike:***@[::1]:8884")
        #expect(try BrokerURL(parsing: "mqtts://h").port == 8883)
        for bad in ["http://h", "mqtt://", "mqtt://h:0", "mqtt://h:x", "mqtt://[::1"] {
            #expect(throws: FleetError.self, "\(bad)") { try BrokerURL(parsing: bad) }
        }
    }

    @Test
    func backOffDoublesToItsCeilingAndJittersDownToHalf() {
        let waits = (1...9).map { FleetPublisher.backOffS(failures: $0, initialS: 1, maximumS: 120, jitter: 1) }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 120, 120])
        #expect(FleetPublisher.backOffS(failures: 3, initialS: 1, maximumS: 120, jitter: 0) == 2)
        #expect(FleetPublisher.backOffS(failures: 200, initialS: 1, maximumS: 120, jitter: 0.5) == 90)
    }

    @Test
    func theFileSetsEveryPartAndRefusesTypos() throws {
        let c = try FleetConfigurationFile.parse(
            """
            [mqtt]
            url = "mqtt://broker:1884"
            board_id = "bike-17"
            queue_max_messages = 500
            home_assistant = false

            [publish]
            classes = ["location", "battery"]
            accuracy = "1km"
            location_interval_s = 300

            [commands]
            allow = ["intervals"]
            min_interval_s = 60
            """, origin: "mqtt.toml", url: nil, hostName: "host.local")
        #expect(c.broker.host == "broker" && c.broker.port == 1884 && c.boardID == "bike-17" && c.queueCapacity == 500)
        #expect(!c.homeAssistant && c.publish.classes == [.location, .battery] && c.publish.desiredAccuracy == .kilometer)
        #expect(c.publish.intervalS(.location) == 300 && c.commands.allowed == [.intervals] && c.commands.minimumIntervalS == 60)
        // The flag wins over the file; the host name is the default board id, as a topic level.
        let d = try FleetConfigurationFile.parse("", origin: "mqtt.toml", url: "mqtts://b", hostName: "pi.local")
        #expect(d.broker.tls && d.boardID == "pi_local")
        for (text, message) in [
            ("[mqtt]\nurl = \"mqtt://b\"\nqueue_max = 5", "mqtt.toml:3: unknown key \"queue_max\""),
            ("[publish]\nclasses = [\"speed\"]", "class \"speed\" is unknown"),
            ("[mqtt]\nboard_id = \"a/b\"", "board id \"a/b\""),
            ("", "no broker: pass --mqtt URL")
        ] {
            do {
                _ = try FleetConfigurationFile.parse(
                    text, origin: "mqtt.toml", url: text.isEmpty ? nil : "mqtt://b", hostName: "h")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
    }

    @Test
    func homeAssistantDiscoveryFollowsTheClassesPublished() throws {
        var c = FleetConfiguration(broker: try BrokerURL(parsing: "mqtt://b"), boardID: "bike-1")
        c.publish.classes = [.location, .battery]
        let m = HomeAssistantDiscovery.messages(c, boardName: "Simulated board", release: "0.1.0")
        #expect(
            m.map(\.topic) == [
                "homeassistant/device_tracker/lodestone_bike_1/lodestone_bike_1_location/config",
                "homeassistant/sensor/lodestone_bike_1/lodestone_bike_1_battery/config"
            ])
        let tracker = try #require(try JSONSerialization.jsonObject(with: Data(m[0].payload.utf8)) as? [String: Any])
        #expect(tracker["json_attributes_topic"] as? String == "lodestone/bike-1/location")
        #expect((tracker["json_attributes_template"] as? String)?.contains("\"gps_accuracy\": value_json.h_acc_m") == true)
        let battery = try #require(try JSONSerialization.jsonObject(with: Data(m[1].payload.utf8)) as? [String: Any])
        #expect(battery["device_class"] as? String == "battery" && battery["unit_of_measurement"] as? String == "%")
    }
}
