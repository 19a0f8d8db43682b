import Foundation
import LodestoneStore
import LodestoneWire
import Testing

@testable import LodestoneFleet

/// The fleet's commands outlive the daemon (SIGKILL included), and the fleet's interval reaches the scheduler's plan:
/// in `BrokerTests` (one suite, one test at a time) since each test runs real daemons against a real broker.
extension BrokerTests {
    /// The `seq` and decoded JSON object of each message on `topic` in `output` (mosquitto_sub -v).
    static func objects(_ output: String, topic: String) -> [[String: Any]] {
        payloads(output, topic: topic).compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test
    func anAcceptedCommandOutlivesSigkillAndAMalformedStoredOneFallsBackToTheConfiguration() async throws {
        try Fleet.require(["mosquitto", "mosquitto_sub", "mosquitto_pub"])
        let dir = try Fleet.temporaryDirectory("lodestone-fleet-commands")
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try Fleet.freePort()
        let broker = try await Fleet.startBroker(port: port, in: dir)
        defer { broker.kill9() }
        let sub = try Fleet.Background(
            "mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-v", "-q", "1", "-t", "lodestone/#"], in: dir, name: "sub")
        defer { sub.kill9() }
        let state = dir.appendingPathComponent("state")
        let queuePath = FleetLink.queuePath(stateDirectory: state.path)
        let toml = Self.toml(board: "van-4").replacingOccurrences(
            of: #"allow = ["accuracy", "intervals"]"#, with: #"allow = ["accuracy", "intervals", "classes"]"#)
        let base = "lodestone/van-4/"
        func received(after seq: Int64) -> [(topic: String, seq: Int64)] {
            Fleet.sequence(sub.output, topicPrefix: base).filter { $0.seq > seq }
        }
        func count(_ suffix: String, after seq: Int64) -> Int { received(after: seq).filter { $0.topic == base + suffix }.count }

        let first = try Fleet.startServe(
            mqtt: "mqtt://127.0.0.1:\(port)", toml: toml, state: state, in: dir, name: "serve-1", speed: 4)
        defer { first.kill9() }
        let publishing = await Fleet.wait(timeoutS: 60) { count("heading", after: 0) >= 2 && count("location", after: 0) >= 2 }
        #expect(publishing, "no headings and locations before the command: \(first.errors.suffix(2000))")

        // The operator narrows the board to locations (every 2 s) and plans.
        let command = #"{"id":"quiet","classes":["location","plan"],"intervals_s":{"location":2}}"#
        let pub = try await Fleet.run(
            "mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-t", base + "command", "-m", command], in: dir)
        #expect(pub.status == 0, "mosquitto_pub: \(pub.errors)")
        let accepted = await Fleet.wait(timeoutS: 20) {
            Self.objects(sub.output, topic: base + "command/reply").contains { $0["id"] as? String == "quiet" }
        }
        let reply = Self.objects(sub.output, topic: base + "command/reply").first { $0["id"] as? String == "quiet" }
        try #require(
            accepted && reply?["accepted"] as? Bool == true, "not accepted: \(reply ?? [:]) \(first.errors.suffix(2000))")
        try await Task.sleep(for: .seconds(1))

        // SIGKILL: no chance to save anything at the stop; what outlives it was stored when the command was accepted.
        await first.stop(signal: SIGKILL)
        let killedAt = try OutboundQueue(path: queuePath, capacity: 100_000).lastSequence()
        let second = try Fleet.startServe(
            mqtt: "mqtt://127.0.0.1:\(port)", toml: toml, state: state, in: dir, name: "serve-2", speed: 4)
        defer { second.kill9() }
        // Everything made after the restart: locations, no heading (the configuration publishes headings every 1 s).
        let narrowed = await Fleet.wait(timeoutS: 40) { count("location", after: killedAt) >= 6 }
        #expect(narrowed, "fewer than 6 locations after the restart: \(second.errors.suffix(2000))")
        #expect(count("heading", after: killedAt) == 0, "headings after the restart: the command was lost")
        #expect(count("altitude", after: killedAt) + count("pedometer", after: killedAt) == 0)
        #expect(second.errors.contains("fleet: restored the fleet's commands"), "\(second.errors.suffix(2000))")
        // The location interval is the command's 2 s, not the configuration's 1 s (session time, t_s).
        let times = Self.objects(sub.output, topic: base + "location").filter {
            (($0["seq"] as? NSNumber)?.int64Value ?? 0) > killedAt
        }
        .compactMap { ($0["t_s"] as? NSNumber)?.doubleValue }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0 >= 2 - 1e-6 }, "location gaps after the restart: \(gaps)")
        #expect(await second.stop(), "lodestone serve did not stop on SIGTERM")

        // A stored state that cannot be read: a clear error, the configuration's settings, no crash.
        try OutboundQueue(path: queuePath, capacity: 100_000).setState(FleetLink.commandsStateName, #"{"classes": ["location""#)
        let stoppedAt = try OutboundQueue(path: queuePath, capacity: 100_000).lastSequence()
        let third = try Fleet.startServe(
            mqtt: "mqtt://127.0.0.1:\(port)", toml: toml, state: state, in: dir, name: "serve-3", speed: 4)
        defer { third.kill9() }
        let configured = await Fleet.wait(timeoutS: 40) { count("heading", after: stoppedAt) >= 2 }
        #expect(configured, "no headings with the stored commands unreadable: \(third.errors.suffix(2000))")
        #expect(third.process.isRunning, "the daemon ended: \(third.errors.suffix(2000))")
        #expect(
            third.errors.contains(
                "fleet: the fleet's stored commands in \(queuePath) (table fleet_state) cannot be applied: not a JSON object"),
            "\(third.errors.suffix(2000))")
        #expect(await third.stop(), "lodestone serve did not stop on SIGTERM")
    }

    @Test
    func theFleetsLocationIntervalDutyCyclesTheReceiverInThePublishedPlan() async throws {
        try Fleet.require(["mosquitto", "mosquitto_sub"])
        let dir = try Fleet.temporaryDirectory("lodestone-fleet-plan")
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try Fleet.freePort()
        let broker = try await Fleet.startBroker(port: port, in: dir)
        defer { broker.kill9() }
        let sub = try Fleet.Background(
            "mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-v", "-q", "1", "-t", "lodestone/+/plan"], in: dir,
            name: "sub")
        defer { sub.kill9() }
        // Two boards, the mqtt link their only client, walking (the `walk` scenario: 10 s still, then 320 s walking);
        // the default accuracy (100 m, served as 1 km in the background). One publishes a location every 300 s, the
        // other every second.
        func toml(_ board: String, locationS: Int) -> String {
            """
            [mqtt]
            board_id = "\(board)"
            home_assistant = false
            [publish]
            classes = ["location", "plan"]
            location_interval_s = \(locationS)
            plan_interval_s = 1
            """
        }
        var boards: [Fleet.Background] = []
        defer { for b in boards { b.kill9() } }
        for (board, s) in [("every-5-min", 300), ("every-second", 1)] {
            let conf = dir.appendingPathComponent("\(board).toml")
            try toml(board, locationS: s).write(to: conf, atomically: true, encoding: .utf8)
            boards.append(
                try Fleet.Background(
                    Fleet.lodestone,
                    [
                        "serve", "--socket", dir.appendingPathComponent("\(board).sock").path, "--gpsd-listen", "none",
                        "--state-dir", dir.appendingPathComponent("state-\(board)").path, "--mqtt", "mqtt://127.0.0.1:\(port)",
                        "--mqtt-config", conf.path, "--scenario", "walk", "--speed", "4"
                    ], in: dir, name: board))
        }
        /// The receiver in each plan published while the carrier walks: (mode, update period).
        func walking(_ board: String) -> [(mode: String, periodS: Double?)] {
            Self.payloads(sub.output, topic: "lodestone/\(board)/plan").compactMap { payload in
                guard case .plan(let p) = try? Wire.Message.decode(payload), p.motion == "walk", let g = p.gnss else {
                    return nil
                }
                return (g.mode, g.updatePeriodS)
            }
        }
        // 150 s of session time walking is plenty for the motion state and a first fix.
        let planned = await Fleet.wait(timeoutS: 90) {
            walking("every-5-min").contains { $0.mode == "power-save" }
                && walking("every-second").contains { $0.mode == "continuous" }
        }
        let slow = walking("every-5-min")
        let fast = walking("every-second")
        #expect(planned, "plans while walking: 300 s \(slow), 1 s \(fast)\n\(boards.map { $0.errors.suffix(1500) })")
        // 300 s: the receiver sleeps between fixes 5 minutes apart (after the first fix; never continuous once walking
        // with a fix). 1 s: continuous, never duty-cycled.
        let slowPowerSave = slow.filter { $0.mode == "power-save" }
        #expect(!slowPowerSave.isEmpty && slowPowerSave.allSatisfy { ($0.periodS ?? 0) >= 300 }, "300 s: \(slow)")
        #expect(slow.last?.mode != "continuous", "300 s: still continuous at the end: \(slow)")
        #expect(!fast.isEmpty && fast.allSatisfy { $0.mode == "continuous" }, "1 s: \(fast)")
        for b in boards { #expect(await b.stop(), "lodestone serve did not stop on SIGTERM") }
    }
}
