import Foundation
import LodestoneStore
import LodestoneWire
import Testing

@testable import LodestoneFleet

/// `lodestone serve --mqtt` against Debian's real mosquitto, started here on a free loopback port: what is published
/// and retained, the fleet's commands, the broker stopped and restarted mid-run, the daemon killed with messages
/// queued, TLS with a test CA. Every message's `seq` is accounted for: delivered once and in order, or still on disk.
@Suite(.serialized) struct BrokerTests {
    /// Short intervals so that a few seconds carry every class (session time; the daemon runs at --speed).
    static func toml(board: String, extra: String = "") -> String {
        """
        [mqtt]
        board_id = "\(board)"
        reconnect_initial_s = 1
        reconnect_max_s = 2
        keepalive_s = 5
        \(extra)
        [publish]
        location_interval_s = 1
        heading_interval_s = 1
        activity_interval_s = 5
        pedometer_interval_s = 2
        altitude_interval_s = 2
        battery_interval_s = 2
        plan_interval_s = 1

        [commands]
        allow = ["accuracy", "intervals"]
        finest_accuracy = "best"
        min_interval_s = 1
        """
    }

    /// The lines `topic payload` of `output` on `topic`.
    static func payloads(_ output: String, topic: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            line.hasPrefix(topic + " ") ? String(line.dropFirst(topic.count + 1)) : nil
        }
    }

    /// Whether `xs` is `from, from + 1, from + 2, …` (true when empty).
    static func isRun(_ xs: [Int64], from: Int64) -> Bool {
        xs.enumerated().allSatisfy { $0.element == from + Int64($0.offset) }
    }

    /// Checks that the seqs received are 1…n, once each, in order, with n at least `atLeast`; returns n.
    static func expectContiguous(_ seqs: [Int64], atLeast: Int64, _ what: String) -> Int64 {
        let n = Int64(seqs.count)
        #expect(isRun(seqs, from: 1), "\(what): seqs not 1…\(n) in order, once each: \(seqs.prefix(200))")
        #expect(n >= atLeast, "\(what): only \(n) messages, expected at least \(atLeast)")
        return seqs.last ?? 0
    }

    @Test
    func publishesEveryClassRetainsStatusAndDiscoveryAndAnswersCommands() async throws {
        try Fleet.require(["mosquitto", "mosquitto_sub", "mosquitto_pub", "mosquitto_passwd"])
        let dir = try Fleet.temporaryDirectory("lodestone-fleet-classes")
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try Fleet.freePort()
        // user/password authentication: the broker refuses anonymous clients.
        let passwords = dir.appendingPathComponent("passwd").path
        let pw = try await Fleet.run("mosquitto_passwd", ["-b", "-c", passwords, "fleet", "s3cret pass"], in: dir)
        try #require(pw.status == 0, "mosquitto_passwd: \(pw.errors)")
        let broker = try await Fleet.startBroker(port: port, in: dir, extra: ["password_file \(passwords)"], anonymous: false)
        defer { broker.kill9() }
        let auth = ["-h", "127.0.0.1", "-p", "\(port)", "-u", "fleet", "-P", "s3cret pass"]
        let sub = try Fleet.Background(
            "mosquitto_sub", auth + ["-v", "-q", "1", "-t", "lodestone/#", "-t", "homeassistant/#"], in: dir, name: "sub")
        defer { sub.kill9() }
        let password = dir.appendingPathComponent("mqtt.password")
        try "s3cret pass\n".write(to: password, atomically: true, encoding: .utf8)
        let serve = try Fleet.startServe(
            mqtt: "mqtt://fleet@127.0.0.1:\(port)",
            toml: Self.toml(board: "bike-1", extra: "password_file = \"\(password.path)\""),
            state: dir.appendingPathComponent("state"), in: dir, name: "serve", speed: 4)
        defer { serve.kill9() }

        let base = "lodestone/bike-1/"
        let all = ["location", "heading", "activity", "pedometer", "altitude", "battery", "plan"]
        let everyClass = await Fleet.wait(timeoutS: 60) {
            let out = sub.output
            return all.allSatisfy { !Self.payloads(out, topic: base + $0).isEmpty }
        }
        #expect(everyClass, "not every class arrived: \(sub.output.suffix(3000))\n\(serve.errors.suffix(3000))")

        // Publishing is a client demand: the scheduler's plan names the fleet link (client `mqtt`) as who wants locations.
        let plan = try #require(Self.payloads(sub.output, topic: base + "plan").first)
        guard case .plan(let p) = try Wire.Message.decode(plan) else {
            Issue.record("not a PLAN: \(plan)")
            return
        }
        #expect(p.causes.contains { $0.hasPrefix("mqtt wants location") }, "plan causes: \(p.causes)")

        // The in-test client (libmosquitto through LodestoneFleet's connection) reads a location and decodes it.
        var configuration = FleetConfiguration(broker: try BrokerURL(parsing: "mqtt://127.0.0.1:\(port)"), boardID: "reader")
        configuration.username = "fleet"; configuration.password = "s3cret pass"
        let reader = try MosquittoConnection(configuration: configuration, will: ("test/reader/status", "gone"))
        var readLocation: Wire.Location?
        let readerTimeout = Task {
            try? await Task.sleep(for: .seconds(20))
            reader.inject(.disconnected(code: -1))
        }
        for await event in reader.events {
            if case .connected(0, _) = event { try reader.subscribe(base + "location") }
            if case .message(let topic, let payload) = event, topic == base + "location" {
                if case .location(let l) = try Wire.Message.decode(String(decoding: payload, as: UTF8.self)) { readLocation = l }
                break
            }
            if case .disconnected = event { break }
        }
        readerTimeout.cancel()
        reader.close(graceful: true)
        let l = try #require(readLocation, "the in-test client read no location")
        #expect(l.latDeg.isFinite && abs(l.latDeg) <= 90 && l.horizontalAccuracyM > 0)

        // Commands: one refused (finer than allowed), one refused (a setting not allowed), one accepted.
        for command in [
            #"{"id":"fine","accuracy":"navigation"}"#, #"{"id":"cls","classes":["location"]}"#,
            #"{"id":"slow","intervals_s":{"location":3}}"#
        ] {
            let r = try await Fleet.run(
                "mosquitto_pub", auth + ["-q", "1", "-t", base + "command", "-m", command], in: dir)
            #expect(r.status == 0, "mosquitto_pub: \(r.errors)")
        }
        let replied = await Fleet.wait(timeoutS: 20) { Self.payloads(sub.output, topic: base + "command/reply").count >= 3 }
        #expect(replied, "fewer than 3 replies: \(sub.output.suffix(2000))")
        let replies = Self.payloads(sub.output, topic: base + "command/reply").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        let byID = Dictionary(replies.map { (($0["id"] as? String) ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byID["fine"]?["accepted"] as? Bool == false)
        #expect((byID["fine"]?["reason"] as? String)?.contains("finer than this board allows") == true, "\(byID["fine"] ?? [:])")
        #expect(byID["cls"]?["accepted"] as? Bool == false)
        #expect((byID["cls"]?["reason"] as? String)?.contains("classes may not be set") == true, "\(byID["cls"] ?? [:])")
        #expect(byID["slow"]?["accepted"] as? Bool == true, "\(byID["slow"] ?? [:])")
        #expect((byID["slow"]?["intervals_s"] as? [String: Any])?["location"] as? Double == 3)

        // Home Assistant discovery: a device_tracker and the five sensors, retained, with the board's availability.
        let discovery = sub.output.split(separator: "\n").filter { $0.hasPrefix("homeassistant/") }
        let node = "lodestone_bike_1"
        for (component, object) in [
            ("device_tracker", "location"), ("sensor", "heading"), ("sensor", "activity"), ("sensor", "steps"),
            ("sensor", "altitude"), ("sensor", "battery")
        ] {
            let topic = "homeassistant/\(component)/\(node)/\(node)_\(object)/config"
            let config = try #require(Self.payloads(sub.output, topic: topic).first, "no discovery on \(topic): \(discovery)")
            let json = try #require((try? JSONSerialization.jsonObject(with: Data(config.utf8))) as? [String: Any])
            #expect(json["availability_topic"] as? String == base + "status")
            #expect(json["unique_id"] as? String == "\(node)_\(object)")
            #expect((json["device"] as? [String: Any])?["identifiers"] as? [String] == [node])
            if component == "device_tracker" {
                #expect(json["json_attributes_topic"] as? String == base + "location")
                #expect(json["source_type"] as? String == "gps")
            } else {
                #expect(json["state_topic"] is String && json["value_template"] is String)
            }
        }
        #expect(Self.payloads(sub.output, topic: base + "status").first == "online")

        // Every message's seq, over all classes: 1, 2, 3, … in order, once each.
        let seqs = Fleet.sequence(sub.output, topicPrefix: base).map(\.seq)
        _ = Self.expectContiguous(seqs, atLeast: 10, "connected throughout")

        // A clean stop says offline, retained.
        #expect(await serve.stop(), "lodestone serve did not stop on SIGTERM")
        let status = try await Fleet.run("mosquitto_sub", auth + ["-C", "1", "-W", "10", "-t", base + "status"], in: dir)
        #expect(status.output.trimmingCharacters(in: .whitespacesAndNewlines) == "offline", "status: \(status.output)")
    }

    @Test
    func brokerStoppedAndRestartedMidRunLosesNothing() async throws {
        try Fleet.require(["mosquitto", "mosquitto_sub"])
        let dir = try Fleet.temporaryDirectory("lodestone-fleet-restart")
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try Fleet.freePort()
        var broker = try await Fleet.startBroker(port: port, in: dir)
        defer { broker.kill9() }
        // A persistent session (clean session off, QoS 1): the broker keeps, across its own restart (persistence on),
        // what arrives while the subscriber is away. Debian's mosquitto_sub does not reconnect by itself: a second one
        // with the same client id takes the session over after the restart.
        let subArguments = [
            "-h", "127.0.0.1", "-p", "\(port)", "-v", "-q", "1", "-c", "-i", "fleet-test-sub", "-t", "lodestone/#"
        ]
        let sub = try Fleet.Background("mosquitto_sub", subArguments, in: dir, name: "sub")
        defer { sub.kill9() }
        let state = dir.appendingPathComponent("state")
        let serve = try Fleet.startServe(
            mqtt: "mqtt://127.0.0.1:\(port)", toml: Self.toml(board: "buoy-7"), state: state, in: dir, name: "serve", speed: 4)
        defer { serve.kill9() }
        let base = "lodestone/buoy-7/"
        let before = await Fleet.wait(timeoutS: 60) { Fleet.sequence(sub.output, topicPrefix: base).count >= 10 }
        #expect(before, "fewer than 10 messages before the outage: \(serve.errors.suffix(2000))")

        // The broker goes away for 4 s; the daemon queues.
        #expect(await broker.stop(), "mosquitto did not stop")
        sub.kill9()
        let seenBeforeStop = Fleet.sequence(sub.output, topicPrefix: base).map(\.seq).max() ?? 0
        try await Task.sleep(for: .seconds(4))
        let lost = await Fleet.wait(timeoutS: 10) { serve.errors.contains("fleet: lost") }
        #expect(lost, "the daemon did not notice the broker going: \(serve.errors.suffix(2000))")
        broker = try await Fleet.startBroker(port: port, in: dir, name: "mosquitto-2")
        let sub2 = try Fleet.Background("mosquitto_sub", subArguments, in: dir, name: "sub-2")
        defer { sub2.kill9() }

        // Back: the queue drains in order, then live messages follow.
        func received() -> [Int64] { Fleet.sequence(sub.output + sub2.output, topicPrefix: base).map(\.seq) }
        let after = await Fleet.wait(timeoutS: 40) { (received().max() ?? 0) >= seenBeforeStop + 40 }
        #expect(after, "the daemon did not deliver after the broker came back: \(serve.errors.suffix(2000))")
        // The reconnection found messages waiting on disk (queued while the broker was away).
        let connects = serve.errors.split(separator: "\n").filter { $0.contains("fleet: connected") }
        #expect(connects.count >= 2, "no reconnection logged: \(serve.errors.suffix(2000))")
        let waiting = connects.last.flatMap { line in
            line.split(separator: ";").last?.split(separator: " ").first.flatMap { Int($0) }
        }
        #expect((waiting ?? 0) > 0, "nothing was queued during the outage: \(connects)")
        #expect(await serve.stop(), "lodestone serve did not stop on SIGTERM")
        try await Task.sleep(for: .milliseconds(500))

        // QoS 1 is at least once: only a message in flight when the broker went (at most max_inflight, 16, after the
        // last one seen) may come twice. Everything else, and every message published during the outage, comes once;
        // the first arrivals are in order; none is missing.
        let seqs = received()
        var firsts: [Int64] = []
        var seen = Set<Int64>()
        var repeats: [Int64] = []
        for q in seqs {
            if seen.insert(q).inserted { firsts.append(q) } else { repeats.append(q) }
        }
        let n = firsts.last ?? 0
        #expect(Self.isRun(firsts, from: 1), "not 1…\(n) in order: \(firsts.prefix(300))")
        #expect(repeats.allSatisfy { $0 <= seenBeforeStop + 16 }, "repeated beyond the in-flight window: \(repeats)")
        #expect(n >= seenBeforeStop + 40)
        // What was not delivered is still on disk, next in order.
        let queue = try OutboundQueue(path: FleetLink.queuePath(stateDirectory: state.path), capacity: 100_000)
        let remaining = try queue.pending(limit: 10_000).map(\.seq)
        let last = try queue.lastSequence()
        // (A clean stop waits for the acknowledgements in flight, so this is normally empty.)
        #expect(Self.isRun(remaining, from: remaining.first ?? n + 1), "left on disk: \(remaining)")
        #expect(
            (remaining.first ?? n + 1) <= n + 1 && (remaining.last ?? n) == last,
            "delivered 1…\(n), queued \(remaining), published \(last)")
    }

    @Test
    func killedWithMessagesQueuedDeliversThemAfterRestart() async throws {
        try Fleet.require(["mosquitto", "mosquitto_sub"])
        let dir = try Fleet.temporaryDirectory("lodestone-fleet-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try Fleet.freePort()
        let state = dir.appendingPathComponent("state")
        let toml = Self.toml(board: "tractor-3")
        let base = "lodestone/tractor-3/"
        // No broker yet: everything queues.
        let first = try Fleet.startServe(
            mqtt: "mqtt://127.0.0.1:\(port)", toml: toml, state: state, in: dir, name: "serve-1", speed: 4)
        defer { first.kill9() }
        let queuePath = FleetLink.queuePath(stateDirectory: state.path)
        let queued = await Fleet.wait(timeoutS: 60) {
            guard FileManager.default.fileExists(atPath: queuePath) else { return false }
            return ((try? OutboundQueue(path: queuePath, capacity: 100_000).count()) ?? 0) >= 15
        }
        #expect(queued, "fewer than 15 messages queued: \(first.errors.suffix(2000))")
        await first.stop(signal: SIGKILL)
        let beforeRestart = try OutboundQueue(path: queuePath, capacity: 100_000)
        let killedWith = try beforeRestart.count()
        #expect(try beforeRestart.lastSequence() == Int64(killedWith), "messages went missing before any broker existed")

        let broker = try await Fleet.startBroker(port: port, in: dir)
        defer { broker.kill9() }
        let sub = try Fleet.Background(
            "mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-v", "-q", "1", "-t", "lodestone/#"], in: dir, name: "sub")
        defer { sub.kill9() }
        try await Task.sleep(for: .milliseconds(500))
        let second = try Fleet.startServe(
            mqtt: "mqtt://127.0.0.1:\(port)", toml: toml, state: state, in: dir, name: "serve-2", speed: 4)
        defer { second.kill9() }
        let delivered = await Fleet.wait(timeoutS: 40) {
            Fleet.sequence(sub.output, topicPrefix: base).count >= killedWith + 10
        }
        #expect(delivered, "the queued messages did not arrive after the restart: \(second.errors.suffix(2000))")
        #expect(Self.payloads(sub.output, topic: base + "status").last == "online")

        // Killed again while connected: the broker publishes the last will (offline, retained).
        await second.stop(signal: SIGKILL)
        let will = await Fleet.wait(timeoutS: 15) { Self.payloads(sub.output, topic: base + "status").last == "offline" }
        #expect(will, "no last will after SIGKILL: \(Self.payloads(sub.output, topic: base + "status"))")

        let received = Fleet.sequence(sub.output, topicPrefix: base).map(\.seq)
        let n = Self.expectContiguous(received, atLeast: Int64(killedWith) + 10, "across SIGKILL and restart")
        let queue = try OutboundQueue(path: queuePath, capacity: 100_000)
        let remaining = try queue.pending(limit: 10_000).map(\.seq)
        let last = try queue.lastSequence()
        // At least once: a message the broker had taken when the kill came may still be on disk (sent again next time).
        #expect(Set(remaining).union(Set(1...max(n, 1))) == Set(1...max(last, 1)), "neither delivered nor queued: \(remaining)")
    }

    @Test
    func aFullQueueDropsTheOldestCountsAndReportsThem() async throws {
        try Fleet.require(["mosquitto", "mosquitto_sub"])
        let dir = try Fleet.temporaryDirectory("lodestone-fleet-full")
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try Fleet.freePort()
        let state = dir.appendingPathComponent("state")
        let base = "lodestone/farm-9/"
        // The subscriber's session is made first and kept by the broker across its restart: it gets everything the
        // daemon sends once the broker is back, however soon the daemon reconnects.
        let subArguments = [
            "-h", "127.0.0.1", "-p", "\(port)", "-v", "-q", "1", "-c", "-i", "fleet-full-sub", "-t", "lodestone/#"
        ]
        let firstBroker = try await Fleet.startBroker(port: port, in: dir)
        let firstSub = try Fleet.Background("mosquitto_sub", subArguments, in: dir, name: "sub-0")
        try await Task.sleep(for: .milliseconds(500))
        firstSub.kill9()
        #expect(await firstBroker.stop(), "mosquitto did not stop")
        // No broker now, and room for 20 messages only.
        let serve = try Fleet.startServe(
            mqtt: "mqtt://127.0.0.1:\(port)", toml: Self.toml(board: "farm-9", extra: "queue_max_messages = 20"), state: state,
            in: dir, name: "serve", speed: 4)
        defer { serve.kill9() }
        let queuePath = FleetLink.queuePath(stateDirectory: state.path)
        let overflowed = await Fleet.wait(timeoutS: 60) {
            guard FileManager.default.fileExists(atPath: queuePath) else { return false }
            return ((try? OutboundQueue(path: queuePath, capacity: 100_000).lastSequence()) ?? 0) >= 35
        }
        #expect(overflowed, "fewer than 35 messages made: \(serve.errors.suffix(2000))")
        #expect(try OutboundQueue(path: queuePath, capacity: 100_000).count() <= 20)

        let broker = try await Fleet.startBroker(port: port, in: dir, name: "mosquitto-2")
        defer { broker.kill9() }
        let sub = try Fleet.Background("mosquitto_sub", subArguments, in: dir, name: "sub")
        defer { sub.kill9() }
        let reported = await Fleet.wait(timeoutS: 30) { !Self.payloads(sub.output, topic: base + "queue").isEmpty }
        #expect(reported, "no report on …/queue: \(serve.errors.suffix(2000))")
        #expect(await serve.stop())

        // What arrives starts after the dropped ones and runs on without a gap; the report counts exactly those dropped.
        let seqs = Fleet.sequence(sub.output, topicPrefix: base).map(\.seq)
        let first = try #require(seqs.first)
        #expect(first > 1 && Self.isRun(seqs, from: first), "received: \(seqs)")
        let report = try #require(Self.payloads(sub.output, topic: base + "queue").first)
        let json = try #require((try? JSONSerialization.jsonObject(with: Data(report.utf8))) as? [String: Any])
        #expect((json["dropped"] as? NSNumber)?.int64Value == first - 1, "report \(report), first delivered \(first)")
        #expect((json["capacity"] as? NSNumber)?.intValue == 20)
        #expect(serve.errors.contains("the outbound queue is full"), "no warning logged")
    }

    @Test
    func tlsWithATestCAAndAClientCertificate() async throws {
        try Fleet.require(["mosquitto", "mosquitto_sub", "openssl"])
        let dir = try Fleet.temporaryDirectory("lodestone-fleet-tls")
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        func openssl(_ arguments: [String]) async throws {
            let r = try await Fleet.run("openssl", arguments, in: dir)
            try #require(r.status == 0, "openssl \(arguments.joined(separator: " ")): \(r.errors)")
        }
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: path("san.ext"), atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await openssl(
            ["req", "-x509"] + ec + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "1", "-subj", "/CN=Lodestone test CA"
            ])
        for (name, extra) in [("server", ["-extfile", path("san.ext")]), ("client", [])] {
            try await openssl(
                ["req"] + ec + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(name)"])
            try await openssl(
                [
                    "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                    "-CAcreateserial",
                    "-out", path("\(name).pem"), "-days", "1"
                ] + extra)
        }
        let port = try Fleet.freePort()
        let broker = try await Fleet.startBroker(
            port: port, in: dir,
            extra: [
                "cafile \(path("ca.pem"))", "certfile \(path("server.pem"))", "keyfile \(path("server.key"))",
                "require_certificate true"
            ])
        defer { broker.kill9() }
        let tls = ["--cafile", path("ca.pem"), "--cert", path("client.pem"), "--key", path("client.key")]
        let sub = try Fleet.Background(
            "mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-v", "-q", "1", "-t", "lodestone/#"] + tls, in: dir,
            name: "sub")
        defer { sub.kill9() }
        let serve = try Fleet.startServe(
            mqtt: "mqtts://127.0.0.1:\(port)",
            toml: Self.toml(
                board: "guide-2",
                extra:
                    "ca_file = \"\(path("ca.pem"))\"\ncert_file = \"\(path("client.pem"))\"\nkey_file = \"\(path("client.key"))\""
            ),
            state: dir.appendingPathComponent("state"), in: dir, name: "serve", speed: 4)
        defer { serve.kill9() }
        let base = "lodestone/guide-2/"
        let arrived = await Fleet.wait(timeoutS: 60) { !Self.payloads(sub.output, topic: base + "location").isEmpty }
        #expect(arrived, "no location over TLS: \(sub.errors.suffix(1000))\n\(serve.errors.suffix(2000))")
        if let payload = Self.payloads(sub.output, topic: base + "location").first {
            guard case .location = try Wire.Message.decode(payload) else {
                Issue.record("not a LOCATION: \(payload)")
                return
            }
        }
        #expect(await serve.stop())
    }
}
