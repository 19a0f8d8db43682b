import Foundation
import LodestoneClient
import LodestoneDaemon
import LodestoneEngine
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneService
import LodestoneSockets
import LodestoneLog
import Synchronization
import Testing

/// Issue 16's surfaces in the daemon: the native protocol's monitoring messages, the daemon's answers to them (its
/// authorization, the per-client cap, when-in-use monitors ending with the connection), `LodestoneClient` as a
/// `MonitoringService`, and — through real `lodestone serve` processes killed with SIGKILL and restarted on the same
/// state directory — monitors that survive with nothing lost and nothing delivered twice, and the CLI.
@Suite(.serialized) struct MonitoringDaemonTests {
    typealias P = NativeProtocol

    // MARK: - The protocol

    static func location(_ t: Double, lat: Double = 47.3769, lon: Double = 8.5417) -> Location {
        Location(
            coordinate: Coordinate(latitudeDeg: lat, longitudeDeg: lon), altitudeMSLM: 410.5, horizontalAccuracyM: 4.25,
            speedMps: 1.25, timeS: t, utcS: t, sinceFixS: 0.2)
    }

    static func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        let line = P.line(value)
        #expect(line.hasSuffix("\n") && !line.dropLast().contains("\n"))
        return try JSONDecoder().decode(T.self, from: Data(line.utf8))
    }

    @Test func everyMonitoringRequestReadsBackAsTheDaemonDecodesIt() throws {
        let requests: [(String, P.ClientMessage)] = [
            (
                P.line(
                    P.MonitorRequest(
                        id: 1, action: .add, monitor: "places",
                        condition: P.Region(id: "home", latDeg: 47.5, lonDeg: 8.25, radiusM: 150))),
                .monitor(
                    P.MonitorRequest(
                        id: 1, action: .add, monitor: "places",
                        condition: P.Region(id: "home", latDeg: 47.5, lonDeg: 8.25, radiusM: 150)))
            ),
            (
                P.line(P.MonitorRequest(id: 2, action: .remove, monitor: "places", conditionId: "home")),
                .monitor(P.MonitorRequest(id: 2, action: .remove, monitor: "places", conditionId: "home"))
            ),
            (
                P.line(P.MonitorRequest(id: 3, action: .removeMonitor, monitor: "places")),
                .monitor(P.MonitorRequest(id: 3, action: .removeMonitor, monitor: "places"))
            ),
            (P.line(P.MonitorRequest(id: 4, action: .names)), .monitor(P.MonitorRequest(id: 4, action: .names))),
            (P.line(P.EventsRequest(id: 5, monitor: "places")), .events(P.EventsRequest(id: 5, monitor: "places"))),
            (
                P.line(P.AcknowledgeRequest(id: 6, monitor: "places", throughId: 12)),
                .acknowledge(P.AcknowledgeRequest(id: 6, monitor: "places", throughId: 12))
            ),
            (P.line(P.StreamRequest.visits(id: 7)), .visits(P.StreamRequest("VISITS", id: 7))),
            (
                P.line(P.StreamRequest.significantChanges(id: 8)),
                .significantChanges(P.StreamRequest("SIGNIFICANT_CHANGES", id: 8))
            ),
            (
                P.line(P.HistoryRequest(id: 9, kind: .activity, fromUnixS: 1_782_990_000.5, toUnixS: 1_782_993_600)),
                .history(P.HistoryRequest(id: 9, kind: .activity, fromUnixS: 1_782_990_000.5, toUnixS: 1_782_993_600))
            )
        ]
        for (line, expected) in requests {
            #expect(try P.decodeClientMessage(Array(line.utf8.dropLast())) == expected, "\(line)")
        }
        // The wire's names (docs/wire.md): snake case, units in the keys.
        let add = requests[0].0
        for key in [#""class":"MONITOR""#, #""action":"add""#, #""lat_deg":47.5"#, #""lon_deg":8.25"#, #""radius_m":150"#] {
            #expect(add.contains(key), "\(add)")
        }
        #expect(requests[1].0.contains(#""condition_id":"home""#))
        #expect(requests[2].0.contains(#""action":"remove_monitor""#))
        #expect(requests[5].0.contains(#""through_id":12"#))
        #expect(requests[8].0.contains(#""from_unix_s":1782990000.5"#))
        // Written by hand, as another language's client would: members in any order.
        let handWritten =
            #"{"monitor":"p","condition":{"radius_m":50,"id":"x","lon_deg":-1,"lat_deg":2},"action":"add","id":9,"class":"MONITOR"}"#
        #expect(
            try P.decodeClientMessage(Array(handWritten.utf8))
                == .monitor(
                    P.MonitorRequest(
                        id: 9, action: .add, monitor: "p", condition: P.Region(id: "x", latDeg: 2, lonDeg: -1, radiusM: 50))))
    }

    @Test func malformedMonitoringRequestsAreNamedInTheError() {
        func code(_ line: String) -> P.ErrorCode? {
            do {
                _ = try P.decodeClientMessage(Array(line.utf8))
                return nil
            } catch { return error.code }
        }
        #expect(code(#"{"class":"MONITOR","id":1,"action":"frobnicate","monitor":"m"}"#) == .badRequest)
        #expect(code(#"{"class":"MONITOR","action":"names"}"#) == .badRequest) // no id
        #expect(code(#"{"class":"ACK","id":1,"monitor":"m"}"#) == .badRequest) // no through_id
        #expect(code(#"{"class":"ACK","id":1,"monitor":"m","through_id":-3}"#) == .badRequest)
        #expect(code(#"{"class":"HISTORY","id":1,"kind":"sleep","from_unix_s":0,"to_unix_s":1}"#) == .badRequest)
        #expect(code(#"{"class":"EVENTS","id":1}"#) == .badRequest)
        #expect(
            code(#"{"class":"MONITOR","id":1,"action":"add","monitor":"m","condition":{"id":"x","lat_deg":"north"}}"#)
                == .badRequest)
    }

    @Test func everyMonitoringReplyReadsBackAsTheClientDecodesIt() throws {
        let t = 1_782_993_600.125
        let condition = MonitorCondition(
            region: try CircularRegion(id: "home", latitudeDeg: 47.5, longitudeDeg: 8.25, radiusM: 300),
            record: MonitorConditionRecord(state: .satisfied, changedAtS: t, location: Self.location(t)))
        let undecided = MonitorCondition(
            region: try CircularRegion(id: "far", latitudeDeg: 48, longitudeDeg: 8.25, radiusM: 1000),
            record: MonitorConditionRecord())
        let reply = P.MonitorReply(
            id: 3, action: .list, monitor: "places", conditions: [P.Condition(condition), P.Condition(undecided)])
        let back = try Self.roundTrip(reply)
        #expect(back == reply)
        #expect(try back.conditions?.map { try $0.monitorCondition() } == [condition, undecided])
        #expect(!P.line(P.Condition(undecided)).contains("changed_unix_s"), "unknown values are omitted")
        guard case .monitor(let decoded) = try P.decodeDaemonMessage(Array(P.line(reply).utf8)) else {
            Issue.record("MONITOR not decoded as one")
            return
        }
        #expect(decoded == reply)

        let event = MonitorEvent(
            id: 7, conditionId: "home", state: .unsatisfied, previousState: .satisfied, timeS: t, location: Self.location(t))
        let eventLine = P.line(P.EventMessage(id: 4, monitor: "places", event: event))
        guard case .event(let e) = try P.decodeDaemonMessage(Array(eventLine.utf8)) else {
            Issue.record("EVENT not decoded as one: \(eventLine)")
            return
        }
        #expect(e.event == event && e.id == 4 && e.monitor == "places")
        for key in [
            #""event_id":7"#, #""condition_id":"home""#, #""previous_state":"satisfied""#, #""t_unix_s":1782993600.125"#,
            #""h_acc_m":4.25"#
        ] {
            #expect(eventLine.contains(key), "\(eventLine)")
        }

        for a in [
            Acknowledgement.acknowledged(count: 3, throughId: 9), .alreadyAcknowledged(throughId: 2),
            .unknownEvent(id: 40, lastEventId: 9)
        ] {
            let line = P.line(P.AcknowledgeReply(id: 5, monitor: "m", a))
            guard case .acknowledgement(let r) = try P.decodeDaemonMessage(Array(line.utf8)) else {
                Issue.record("ACK not decoded: \(line)")
                continue
            }
            #expect(r.acknowledgement == a, "\(line)")
        }

        let visit = Visit(
            coordinate: Coordinate(latitudeDeg: 47.4, longitudeDeg: 8.5), horizontalAccuracyM: 12.5, arrivalS: t,
            departureS: t + 900, fromCoordinate: Coordinate(latitudeDeg: 47.3, longitudeDeg: 8.4), arrivedBy: .walk, dwellS: 900)
        var arriving = visit
        arriving.departureS = nil
        arriving.fromCoordinate = nil
        arriving.arrivedBy = nil
        for v in [VisitEvent.departure(visit), .arrival(arriving)] {
            let line = P.line(P.VisitMessage(id: 6, v))
            guard case .visit(let m) = try P.decodeDaemonMessage(Array(line.utf8)) else {
                Issue.record("VISIT not decoded: \(line)")
                continue
            }
            #expect(m.visitEvent == v, "\(line)")
        }

        let change = SignificantLocationChange(location: Self.location(t), distanceM: 612.5)
        guard
            case .significantChange(let c) = try P.decodeDaemonMessage(
                Array(P.line(P.SignificantChangeMessage(id: 8, change)).utf8))
        else {
            Issue.record("SIGNIFICANT_CHANGE not decoded")
            return
        }
        #expect(c.change == change)

        let steps = PedometerData(
            startTimeS: t - 3600, endTimeS: t, steps: 4321, distanceM: 3012.5, floorsAscended: 2, floorsDescended: 1,
            currentCadenceStepsPerS: nil, currentPaceSPerM: nil, averageActivePaceSPerM: 0.75)
        let history = P.HistoryReply(id: 9, kind: .steps, fromUnixS: t - 3600, toUnixS: t, pedometer: steps)
        #expect(try Self.roundTrip(history) == history)
        let segments = P.HistoryReply(
            id: 10, kind: .activity, fromUnixS: t - 3600, toUnixS: t,
            activities: [
                MotionActivity(kind: .walk, confidence: .high, startTimeS: t - 3000),
                MotionActivity(kind: .drive, confidence: .medium, startTimeS: t - 600)
            ])
        guard case .history(let h) = try P.decodeDaemonMessage(Array(P.line(segments).utf8)) else {
            Issue.record("HISTORY not decoded")
            return
        }
        #expect(h == segments)
        for name in ["EVENTS", "VISITS", "SIGNIFICANT_CHANGES"] {
            #expect(
                try P.decodeDaemonMessage(Array(P.line(P.StreamStarted(name, id: 2)).utf8))
                    == .streaming(P.StreamStarted(name, id: 2)))
        }
    }

    @Test func monitoringErrorsKeepTheirCodeOverTheWire() throws {
        let wire: [MonitoringError.Code: String] = [
            .invalid: "invalid", .notFound: "not-found", .limit: "limit", .store: "store", .denied: "denied",
            .unavailable: "unavailable"
        ]
        for (code, text) in wire {
            let line = P.line(P.ErrorMessage(MonitoringError(code, "because"), id: 3))
            #expect(line.contains(#""code":"\#(text)""#), "\(line)")
            guard case .error(let e) = try P.decodeDaemonMessage(Array(line.utf8)) else {
                Issue.record("ERROR not decoded: \(line)")
                continue
            }
            #expect(e.monitoringError == MonitoringError(code, "because") && e.id == 3)
        }
    }

    static let times: [(String, Double)] = [
        ("2026-07-02T12:00:00Z", 1_782_993_600.0), ("2026-07-02T12:00:00.25Z", 1_782_993_600.25),
        ("2026-07-02T12:00", 1_782_993_600),
        ("2026-07-02", 1_782_950_400), ("1782993600", 1_782_993_600), ("-2h", 1_783_000_000 - 7200),
        ("-30m", 1_783_000_000 - 1800),
        ("-45s", 1_783_000_000 - 45), ("-7d", 1_783_000_000 - 604_800), ("now", 1_783_000_000), ("-1.5h", 1_783_000_000 - 5400)
    ]

    @Test(arguments: times)
    func historyTimesAreReadAsDocumented(text: String, unixS: Double) {
        #expect(HistoryTime.unixS(text, nowUnixS: 1_783_000_000) == unixS)
    }

    @Test(arguments: [
        "", "yesterday", "2026-13-01", "2026-02-30", "2026-07-02T25:00", "-2y", "-h", "2026-07-02T12", "+2h", "12:00"
    ])
    func historyTimesThatAreNotTimesAreRefused(text: String) {
        #expect(HistoryTime.unixS(text, nowUnixS: 1_783_000_000) == nil)
    }

    // MARK: - The daemon in this process

    /// The test process's name in the daemon's session.
    static var ownKey: String { "uid:\(getuid())" }

    /// A policy giving every client (this process included, whatever its uid) `rule`.
    static func policy(_ rule: String) -> String { "[default]\n\(rule)\n" }

    /// A daemon in this process on the simulated board (no state directory: monitors in memory), with `configure`
    /// applied to its configuration.
    static func daemon(
        policy: String, speed: Double = 4, durationS: Double? = nil, configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) async throws -> TestDaemon {
        try await TestDaemon.start(
            speed: speed, policy: policy, scenario: "hour-errands", seed: 3, durationS: durationS, configure: configure)
    }

    static let full = "location = \"always\"\naccuracy = \"full\"\nmotion = true"

    static func region(_ id: String, lat: Double = 47.3769, lon: Double = 8.5417, radiusM: Double = 200) throws -> CircularRegion
    {
        try CircularRegion(id: id, latitudeDeg: lat, longitudeDeg: lon, radiusM: radiusM)
    }

    /// The error a monitoring call threw, or nil.
    static func error<T>(_ call: () async throws -> T) async -> MonitoringError? {
        do {
            _ = try await call()
            return nil
        } catch let e as MonitoringError {
            return e
        } catch {
            Issue.record("not a MonitoringError: \(error)")
            return nil
        }
    }

    @Test func theClientSeesWhatTheSessionHoldsForItsUid() async throws {
        let d = try await Self.daemon(policy: Self.policy(Self.full))
        defer { Task { await d.stop() } }
        let client = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { client.close() }
        try await client.addCondition(try Self.region("a"), monitor: "places")
        try await client.addCondition(try Self.region("b", lat: 48), monitor: "places")
        try await client.addCondition(try Self.region("c"), monitor: "other")
        // The daemon keeps them in the session under this process's uid: what the in-process API shows for that uid,
        // the client shows too, and an in-process program of its own (client "") sees none of them.
        let inProcess = d.session.monitoring(client: Self.ownKey)
        #expect(try await client.monitorNames().sorted() == ["other", "places"])
        #expect(try await inProcess.monitorNames().sorted() == ["other", "places"])
        #expect(try await client.monitorConditions(monitor: "places") == inProcess.monitorConditions(monitor: "places"))
        #expect(try await client.monitorConditions(monitor: "places").map(\.region.id).sorted() == ["a", "b"])
        #expect(try await d.session.monitoring().monitorNames().isEmpty)
        #expect(try await client.removeCondition("a", monitor: "places"))
        #expect(try await !client.removeCondition("a", monitor: "places"))
        #expect(try await client.removeMonitor("other"))
        #expect(try await !client.removeMonitor("other"))
        #expect(try await inProcess.monitorNames() == ["places"])
        #expect(try await client.monitorConditions(monitor: "nothing").isEmpty)
        // Without a state directory the session has no history: the client gets the session's own error.
        #expect(await Self.error { try await client.pedometerData(fromUnixS: 0, toUnixS: 1) }?.code == .unavailable)
        #expect(await Self.error { try await client.acknowledgeEvents(through: 5, monitor: "places") } == nil)
    }

    @Test func badMonitoringRequestsGetAnErrorAndTheConnectionServesOn() async throws {
        let d = try await Self.daemon(policy: Self.policy(Self.full))
        defer { Task { await d.stop() } }
        let c = try d.rawConnection()
        _ = await c.lines(timeoutS: 2) { $0.count >= 2 } // VERSION, AUTHORIZATION
        let longName = String(repeating: "n", count: 10_000)
        c.send("{\"class\":\"MONITOR\",\"id\":1,\"action\":\"frobnicate\",\"monitor\":\"m\"}\n")
        c.send(
            "{\"class\":\"MONITOR\",\"id\":2,\"action\":\"add\",\"monitor\":\"m\",\"condition\":{\"id\":\"x\",\"lat_deg\":47,\"lon_deg\":8,\"radius_m\":0.5}}\n"
        )
        c.send(
            "{\"class\":\"MONITOR\",\"id\":3,\"action\":\"add\",\"monitor\":\"m\",\"condition\":{\"id\":\"x\",\"lat_deg\":47,\"lon_deg\":8,\"radius_m\":100001}}\n"
        )
        c.send(
            "{\"class\":\"MONITOR\",\"id\":4,\"action\":\"add\",\"monitor\":\"\(longName)\",\"condition\":{\"id\":\"x\",\"lat_deg\":47,\"lon_deg\":8,\"radius_m\":100}}\n"
        )
        c.send("{\"class\":\"MONITOR\",\"id\":5,\"action\":\"add\",\"monitor\":\"m\"}\n")
        c.send(
            "{\"class\":\"MONITOR\",\"id\":6,\"action\":\"add\",\"monitor\":\"m\",\"condition\":{\"id\":\"\(longName)\",\"lat_deg\":47,\"lon_deg\":8,\"radius_m\":100}}\n"
        )
        c.send(
            "{\"class\":\"MONITOR\",\"id\":7,\"action\":\"add\",\"monitor\":\"m\",\"condition\":{\"id\":\"x\",\"lat_deg\":91,\"lon_deg\":8,\"radius_m\":100}}\n"
        )
        c.send("{\"class\":\"HISTORY\",\"id\":8,\"kind\":\"steps\",\"from_unix_s\":10,\"to_unix_s\":5}\n")
        c.send("{\"class\":\"EVENTS\",\"id\":9,\"monitor\":\"\"}\n")
        c.send("{\"class\":\"ACK\",\"id\":10,\"monitor\":\"m\"}\n")
        c.send("not json at all\n")
        c.send(
            "{\"class\":\"MONITOR\",\"id\":11,\"action\":\"add\",\"monitor\":\"m\",\"condition\":{\"id\":\"ok\",\"lat_deg\":47,\"lon_deg\":8,\"radius_m\":100}}\n"
        )
        c.send("{\"class\":\"MONITOR\",\"id\":12,\"action\":\"names\"}\n")
        let lines = await c.lines(timeoutS: 10) { $0.contains { $0.contains(#""names""#) } }.lines
        let messages = lines.compactMap { try? P.decodeDaemonMessage(Array($0.utf8)) }
        var errors: [Int: P.ErrorCode] = [:]
        var unnumbered: [P.ErrorCode] = []
        for case .error(let e) in messages {
            if let id = e.id { errors[id] = e.code } else { unnumbered.append(e.code) }
        }
        #expect(errors[1] == .badRequest, "an unknown action: \(lines)")
        #expect(errors[2] == .invalid && errors[3] == .invalid, "radius out of range: \(lines)")
        #expect(errors[4] == .invalid, "a 10 000-byte monitor name")
        #expect(errors[5] == .invalid, "add without a condition")
        #expect(errors[6] == .invalid, "a 10 000-byte condition id")
        #expect(errors[7] == .invalid, "latitude 91°")
        #expect(errors[8] == .invalid, "from after to")
        #expect(errors[9] == .invalid, "an empty monitor name")
        #expect(errors[10] == .badRequest, "ACK without through_id")
        #expect(unnumbered == [.badJSON], "\(lines)")
        #expect(errors[11] == nil && errors[12] == nil)
        let answers = messages.compactMap { m -> P.MonitorReply? in if case .monitor(let r) = m { r } else { nil } }
        #expect(answers.map(\.id) == [11, 12], "answered in order, with their ids")
        #expect(answers.last?.names == ["m"])
        // Nothing was added by the refused requests.
        #expect(try await d.session.monitoring(client: Self.ownKey).monitorConditions(monitor: "m").map(\.region.id) == ["ok"])
    }

    @Test func deniedAndReducedClientsAreDenied() async throws {
        for (rule, what) in [
            ("location = \"denied\"\nmotion = false", "denied"),
            ("location = \"always\"\naccuracy = \"reduced\"\nmotion = false", "reduced")
        ] {
            let d = try await Self.daemon(policy: Self.policy(rule))
            let client = try LodestoneClient.connect(socketPath: d.socketPath)
            #expect(
                await Self.error { try await client.addCondition(try Self.region("a"), monitor: "m") }?.code == .denied, "\(what)"
            )
            #expect(await Self.error { try await client.monitorNames() }?.code == .denied, "\(what)")
            #expect(await Self.error { try await client.acknowledgeEvents(through: 1, monitor: "m") }?.code == .denied, "\(what)")
            #expect(
                await Self.error { try await client.activities(fromUnixS: 0, toUnixS: 1) }?.code == .denied, "\(what): no motion")
            // Streams end at once, with the daemon's reason.
            var events = 0
            for await _ in client.monitorEvents(monitor: "m") { events += 1 }
            for await _ in client.visits() { events += 1 }
            for await _ in client.significantLocationChanges() { events += 1 }
            #expect(events == 0)
            #expect(client.lastError?.code == .denied, "\(what)")
            #expect(try await d.session.monitoring(client: Self.ownKey).monitorNames().isEmpty, "\(what): nothing was added")
            client.close()
            await d.stop()
        }
        // Motion alone allows the history (here the session has none: `unavailable`, not `denied`).
        let d = try await Self.daemon(policy: Self.policy("location = \"denied\"\nmotion = true"))
        defer { Task { await d.stop() } }
        let client = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { client.close() }
        #expect(await Self.error { try await client.pedometerData(fromUnixS: 0, toUnixS: 1) }?.code == .unavailable)
    }

    @Test func aWhenInUseClientsMonitorsEndWithItsLastConnection() async throws {
        let d = try await Self.daemon(policy: Self.policy("location = \"when-in-use\"\naccuracy = \"full\""))
        defer { Task { await d.stop() } }
        let first = try LodestoneClient.connect(socketPath: d.socketPath)
        let second = try LodestoneClient.connect(socketPath: d.socketPath)
        try await first.addCondition(try Self.region("a"), monitor: "m")
        #expect(try await second.monitorNames() == ["m"], "the same uid: the same monitors")
        first.close()
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await second.monitorNames() == ["m"], "not its last connection")
        second.close()
        let inProcess = d.session.monitoring(client: Self.ownKey)
        try await waitUntil(timeoutS: 5) { (try? await inProcess.monitorNames().isEmpty) == true }
        #expect(try await inProcess.monitorNames().isEmpty, "gone with the last connection")
        let third = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { third.close() }
        #expect(try await third.monitorNames().isEmpty)
        // A monitor made right after a reconnection stays (the removal is over before the new requests are answered).
        try await third.addCondition(try Self.region("b"), monitor: "n")
        #expect(try await third.monitorNames() == ["n"])
    }

    @Test func anAlwaysClientsMonitorsOutliveItsConnection() async throws {
        let d = try await Self.daemon(policy: Self.policy(Self.full))
        defer { Task { await d.stop() } }
        let first = try LodestoneClient.connect(socketPath: d.socketPath)
        try await first.addCondition(try Self.region("a"), monitor: "m")
        first.close()
        try await Task.sleep(for: .milliseconds(500))
        let second = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { second.close() }
        #expect(try await second.monitorNames() == ["m"])
    }

    @Test func aStreamOfEventsGetsEachOnceAcrossTheDaemonsRestart() async throws {
        // Virtual time: the first fixes (5 minutes in) come within seconds.
        let d = try await Self.daemon(policy: Self.policy(Self.full), speed: 0, durationS: 1200)
        defer { Task { await d.stop() } }
        let start = try #require(await d.session.truth)
        let client = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { client.close() }
        try await client.addCondition(try Self.region("home", lat: start.latDeg, lon: start.lonDeg, radiusM: 300), monitor: "m")
        try await client.addCondition(
            try Self.region("far", lat: start.latDeg + 0.5, lon: start.lonDeg, radiusM: 1000), monitor: "m")
        let received = Collected<MonitorEvent>()
        let reader = Task {
            for await e in client.monitorEvents(monitor: "m") { received.append(e) }
        }
        defer { reader.cancel() }
        try await waitUntil(timeoutS: 60) { received.count >= 2 }
        try #require(received.count == 2, "the two decisions: \(received.all)")
        // The daemon goes away and another comes on the same socket and session: the client reconnects, asks for the
        // events again, and the daemon sends the unacknowledged ones again — this stream has them already.
        d.daemon.stop()
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let replacement = try Daemon(configuration: d.daemon.configuration, session: d.session, logger: logger)
        replacement.start()
        defer { replacement.stop() }
        try await waitUntil(timeoutS: 10) { client.connectionCount >= 2 }
        #expect(client.connectionCount == 2)
        // The daemon does owe them again (a fresh stream gets them) …
        let again = await Self.collect(client.monitorEvents(monitor: "m"), count: 2, timeoutS: 10)
        #expect(again.map(\.id) == [1, 2])
        // … and the first stream, which had them, did not get them twice.
        try await Task.sleep(for: .seconds(1))
        #expect(received.all.map(\.id) == [1, 2], "\(received.all)")
    }

    @Test func significantChangesAndVisitsStreamThroughTheDaemon() async throws {
        let d = try await Self.daemon(policy: Self.policy(Self.full), speed: 0, durationS: 1200)
        defer { Task { await d.stop() } }
        let client = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { client.close() }
        // The first usable location is a significant change (the service starts by telling where the carrier is).
        let changes = await Self.collect(client.significantLocationChanges(), count: 1, timeoutS: 60)
        let first = try #require(changes.first, "a first significant change within 60 s")
        #expect(first.distanceM == nil)
        #expect(first.location.timeS > 1.7e9, "Unix time: \(first.location.timeS)")
        let truth = try #require(await d.session.truth)
        let offM = try #require(
            first.location.coordinate.distanceM(to: Coordinate(latitudeDeg: truth.latDeg, longitudeDeg: truth.lonDeg)))
        #expect(offM < 2000, "where the carrier is (\(offM) m from the truth now)")
        // Visits: the stream starts (its subscription is listed) and ends when the client unsubscribes.
        let c = try d.rawConnection()
        _ = await c.lines(timeoutS: 2) { $0.count >= 2 }
        c.send(P.line(P.StreamRequest.visits(id: 41)) + P.line(P.Query("CLIENTS")))
        let lines = await c.lines(timeoutS: 5) { $0.contains { $0.contains("VISITS") } && $0.contains { $0.contains("CLIENTS") } }
            .lines
        let messages = lines.compactMap { try? P.decodeDaemonMessage(Array($0.utf8)) }
        #expect(messages.contains(.streaming(P.StreamStarted("VISITS", id: 41))), "\(lines)")
        let listed = messages.compactMap { m -> P.Clients? in if case .clients(let l) = m { l } else { nil } }.first
        #expect(listed?.clients.contains { $0.subscriptions.contains { $0.id == 41 && $0.kind == "visits" } } == true, "\(lines)")
        c.send(P.line(P.Unsubscribe(id: 41)))
        let ended = await c.lines(timeoutS: 5) { $0.contains { $0.contains("ENDED") } }.lines
        #expect(ended.contains { $0.contains(#""class":"ENDED""#) && $0.contains("unsubscribed") }, "\(ended)")
        // A stream unsubscribed right behind its request (the daemon starts it on another task) ends, and only once.
        c.send(
            P.line(P.StreamRequest.significantChanges(id: 42)) + P.line(P.Unsubscribe(id: 42)) + P.line(P.Query("AUTHORIZATION")))
        let quick = await c.lines(timeoutS: 5) { $0.contains { $0.contains("AUTHORIZATION") } }.lines
        try await Task.sleep(for: .milliseconds(500))
        let rest = await c.lines(timeoutS: 1).lines
        let all = (quick + rest).compactMap { try? P.decodeDaemonMessage(Array($0.utf8)) }
        #expect(all.filter { if case .ended(let e) = $0 { e.id == 42 } else { false } }.count == 1, "\(quick + rest)")
        #expect(!all.contains { if case .error = $0 { true } else { false } }, "\(quick + rest)")
        #expect(!all.contains { if case .significantChange = $0 { true } else { false } }, "\(quick + rest)")
    }

    @Test func aClientsConditionsAreCappedWithLimit() async throws {
        let d = try await Self.daemon(policy: Self.policy(Self.full)) { $0.maxConditionsPerClient = 3 }
        defer { Task { await d.stop() } }
        let client = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { client.close() }
        try await client.addCondition(try Self.region("a"), monitor: "m")
        try await client.addCondition(try Self.region("b"), monitor: "m")
        try await client.addCondition(try Self.region("c"), monitor: "n")
        let refused = await Self.error { try await client.addCondition(try Self.region("d"), monitor: "n") }
        #expect(refused?.code == .limit)
        #expect(refused?.message.contains("3") == true, "\(refused?.description ?? "")")
        // Replacing one is no new one; removing one makes room; the count spans the client's connections.
        try await client.addCondition(try Self.region("a", radiusM: 500), monitor: "m")
        #expect(try await client.removeCondition("b", monitor: "m"))
        let other = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { other.close() }
        try await other.addCondition(try Self.region("d"), monitor: "n")
        #expect(await Self.error { try await client.addCondition(try Self.region("e"), monitor: "m") }?.code == .limit)
        #expect(try await client.removeMonitor("n"))
        try await client.addCondition(try Self.region("e"), monitor: "m")
        #expect(try await client.monitorConditions(monitor: "m").map(\.region.id).sorted() == ["a", "e"])
        // `lodestone clients` shows what the uid holds, on each of its native connections.
        let listed = d.daemon.clientList().clients.filter { $0.endpoint == "native" }
        #expect(listed.count == 2 && listed.allSatisfy { $0.monitorConditions == 2 }, "\(listed)")
    }
}

/// `lodestone serve` as a process on a state directory that outlives it: started, killed with SIGKILL, started again.
struct MonitoringServe {
    let dir: URL
    let process: Process
    var socketPath: String { dir.appendingPathComponent("s.sock").path }
    var stateDirectory: String { dir.appendingPathComponent("state").path }

    /// hour-errands with seed 3: 5 minutes at rest indoors, walks, a drive of 7 km away from about 25 minutes in.
    static let scenario = "hour-errands"
    static let seed: UInt64 = 3
    /// Session seconds per second: the first fixes (5 minutes in) come in about 20 s.
    static let speed = 15.0

    /// Starts `lodestone serve` in `dir` (its log in `<name>.err`) and waits until it is ready.
    static func start(in dir: URL, name: String, policy: String) async throws -> MonitoringServe {
        let policyPath = dir.appendingPathComponent("policy.toml").path
        try policy.write(toFile: policyPath, atomically: true, encoding: .utf8)
        let arguments = [
            "serve", "--board", repositoryRoot + "/boards/simulated.json", "--socket", dir.appendingPathComponent("s.sock").path,
            "--gpsd-listen", "none", "--policy", policyPath, "--state-dir", dir.appendingPathComponent("state").path,
            "--scenario", scenario, "--speed", "\(speed)", "--seed", "\(seed)"
        ]
        let process = try GPSDClientRunner.start(LodestoneServe.executable.path, arguments, in: dir, name: name)
        let log = dir.appendingPathComponent("\(name).err")
        let deadline = Date().addingTimeInterval(60)
        // Looks once more after the deadline: a task resumed late must still see a daemon that got ready in time.
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if text.contains("ready:") { return MonitoringServe(dir: dir, process: process) }
            if !process.isRunning || Date() >= deadline {
                GPSDClientRunner.stop(process)
                Issue.record("lodestone serve did not get ready:\n\(text)")
                throw CancellationError()
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// SIGKILL: no chance to flush or close anything.
    func kill9() async {
        kill(process.processIdentifier, SIGKILL)
        _ = await GPSDClientRunner.waitForExit(process, timeoutS: 10)
    }

    /// Runs `lodestone ARGUMENTS --socket …` to its end.
    func cli(_ arguments: [String]) async throws -> GPSDClientRunner.Result {
        try await GPSDClientRunner.run(
            LodestoneServe.executable.path, arguments + ["--socket", socketPath], timeoutS: 60, in: dir)
    }
}

extension MonitoringDaemonTests {
    /// The first `count` elements of `updates`, or what came within `timeoutS` (wall clock).
    static func collect<E: Sendable>(_ updates: Updates<E>, count: Int, timeoutS: Double) async -> [E] {
        await withTaskGroup(of: [E]?.self) { group in
            group.addTask {
                var out: [E] = []
                for await e in updates {
                    out.append(e)
                    if out.count >= count { break }
                }
                return out
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(timeoutS * 1000)))
                return nil
            }
            var result: [E] = []
            while let next = await group.next() {
                if let list = next {
                    result = list
                    group.cancelAll()
                } else {
                    group.cancelAll() // the timer: the reader returns what it has
                }
            }
            return result
        }
    }

    /// Where hour-errands (seed 3) starts, from the simulator's truth.
    static func scenarioStart() async throws -> Coordinate {
        let board = try BoardDescription.load(path: repositoryRoot + "/boards/simulated.json")
        let session = try Session(
            configuration: SessionConfiguration(
                board: board, scenario: MonitoringServe.scenario, seed: MonitoringServe.seed, durationS: 1, speed: 0))
        await session.run()
        let truth = try #require(await session.truth)
        return Coordinate(latitudeDeg: truth.latDeg, longitudeDeg: truth.lonDeg)
    }

    @Test func aDaemonKilledWithSIGKILLKeepsMonitorsAndOwesExactlyTheUnacknowledgedEvents() async throws {
        let dir = try GPSDClientRunner.temporaryDirectory("lodestone-mondaemon")
        defer { try? FileManager.default.removeItem(at: dir) }
        let start = try await Self.scenarioStart()
        let policy = Self.policy(Self.full)
        let first = try await MonitoringServe.start(in: dir, name: "serve1", policy: policy)
        defer { GPSDClientRunner.stop(first.process) }

        let client = try LodestoneClient.connect(socketPath: first.socketPath)
        try await client.addCondition(
            try Self.region("home", lat: start.latitudeDeg, lon: start.longitudeDeg, radiusM: 300), monitor: "places")
        try await client.addCondition(
            try Self.region("far", lat: start.latitudeDeg + 0.5, lon: start.longitudeDeg, radiusM: 1000), monitor: "places")
        // Both decided at the first fixes: home satisfied (the carrier is there), far unsatisfied (55 km away).
        let before = await Self.collect(client.monitorEvents(monitor: "places"), count: 2, timeoutS: 120)
        try #require(before.count == 2, "two decisions within 120 s: \(before)")
        #expect(
            Set(before.map { "\($0.conditionId) \($0.previousState.rawValue)→\($0.state.rawValue)" })
                == ["home unknown→satisfied", "far unknown→unsatisfied"])
        #expect(before.map(\.id) == [1, 2])
        for e in before { #expect(e.timeS > 1.7e9 && e.location.timeS == e.timeS, "Unix times: \(e)") }
        #expect(try await client.acknowledgeEvents(through: 1, monitor: "places") == .acknowledged(count: 1, throughId: 1))
        let conditions = try await client.monitorConditions(monitor: "places")
        for e in before {
            let c = try #require(conditions.first { $0.region.id == e.conditionId })
            #expect(
                c.record.state == e.state && c.record.changedAtS == e.timeS
                    && c.record.location?.coordinate == e.location.coordinate)
        }
        client.close()

        await first.kill9()
        #expect(!first.process.isRunning)
        let second = try await MonitoringServe.start(in: dir, name: "serve2", policy: policy)
        defer { GPSDClientRunner.stop(second.process) }
        let again = try LodestoneClient.connect(socketPath: second.socketPath)
        // The conditions with their states, times and locations are there; only event 2 is owed, with its id and time.
        let restored = try await again.monitorConditions(monitor: "places")
        let restoredRegions: [CircularRegion] = restored.map(\.region).sorted { $0.id < $1.id }
        let regions: [CircularRegion] = conditions.map(\.region).sorted { $0.id < $1.id }
        #expect(restoredRegions == regions)
        for c in conditions {
            let r = try #require(restored.first { $0.region.id == c.region.id })
            #expect(r.record.state == c.record.state && r.record.changedAtS == c.record.changedAtS)
            #expect(r.record.location?.coordinate == c.record.location?.coordinate)
        }
        // What comes in 5 s: the owed event, and nothing new (the restarted scenario is back at home: states hold).
        let owed = await Self.collect(again.monitorEvents(monitor: "places"), count: 100, timeoutS: 5)
        #expect(owed == [before[1]], "owed exactly the unacknowledged event: \(owed)")
        #expect(try await again.acknowledgeEvents(through: 2, monitor: "places") == .acknowledged(count: 1, throughId: 2))
        #expect(try await again.acknowledgeEvents(through: 2, monitor: "places") == .alreadyAcknowledged(throughId: 2))
        let afterAck = await Self.collect(again.monitorEvents(monitor: "places"), count: 100, timeoutS: 3)
        #expect(afterAck.isEmpty, "acknowledged events are not sent again: \(afterAck)")

        // An always client adds conditions and disconnects; they are decided while it is away; on its return its
        // events come, in order, with their original times (the CLI's view of it).
        try await again.addCondition(
            try Self.region("near", lat: start.latitudeDeg, lon: start.longitudeDeg, radiusM: 500), monitor: "away")
        try await again.addCondition(
            try Self.region("distant", lat: start.latitudeDeg - 0.5, lon: start.longitudeDeg, radiusM: 500), monitor: "away")
        again.close()
        var listed = ""
        let deadline = Date().addingTimeInterval(120)
        while true { // `monitor list` reads states without taking events
            let r = try await second.cli(["monitor", "list", "away", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            listed = r.stdout
            if !listed.contains(#""state":"unknown""#) && GPSDClientRunner.lines(listed).count == 2 { break }
            if Date() >= deadline { break }
            try await Task.sleep(for: .seconds(1))
        }
        let states = GPSDClientRunner.lines(listed).compactMap {
            try? JSONDecoder().decode(P.Condition.self, from: Data($0.utf8))
        }
        try #require(states.count == 2 && states.allSatisfy { $0.state != .unknown }, "decided while away: \(listed)")
        let printed = try await second.cli(["monitor", "events", "away", "--json", "--ack", "--count", "2"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let events = GPSDClientRunner.lines(printed.stdout).compactMap {
            try? JSONDecoder().decode(P.EventMessage.self, from: Data($0.utf8))
        }
        #expect(events.map(\.eventId) == [1, 2], "in order: \(printed.stdout)")
        for e in events {
            let c = try #require(states.first { $0.region.id == e.conditionId })
            #expect(e.tUnixS == c.changedUnixS, "the original time: \(e) \(c)")
        }
        // Acknowledged by the CLI: nothing is owed any more.
        let none = try await second.cli(["monitor", "events", "away", "--timeout", "2"])
        #expect(none.status == 0 && none.stdout.isEmpty, "\(none.stdout)\(none.stderr)")
    }

    @Test func theCommandLineAddsListsRemovesAndReadsTheHistory() async throws {
        let dir = try GPSDClientRunner.temporaryDirectory("lodestone-mondaemon-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try await MonitoringServe.start(in: dir, name: "serve", policy: Self.policy(Self.full))
        defer { GPSDClientRunner.stop(serve.process) }
        let add = try await serve.cli([
            "monitor", "add", "places", "--id", "office", "--lat", "47.39", "--lon", "8.51", "--radius", "250"
        ])
        #expect(add.status == 0 && add.stdout.contains("condition office added"), "\(add.stdout)\(add.stderr)")
        let list = try await serve.cli(["monitor", "list"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("monitor places: 1 condition") && list.stdout.contains("office: "), "\(list.stdout)")
        #expect(list.stdout.contains("radius 250.0 m"), "\(list.stdout)")

        // Failures: one line on standard error, a non-zero status.
        for (arguments, words) in [
            (["monitor", "add", "places", "--id", "x", "--lat", "47", "--lon", "8", "--radius", "0.5"], "radius"),
            (["monitor", "remove", "places", "--id", "nowhere"], "no condition nowhere"),
            (["monitor", "remove", "nothing"], "no monitor nothing"),
            (["history", "steps", "--from", "yesterday"], "--from yesterday")
        ] {
            let r = try await serve.cli(arguments)
            #expect(r.status != 0, "\(arguments)")
            #expect(GPSDClientRunner.lines(r.stderr).count >= 1 && r.stderr.contains(words), "\(arguments): \(r.stderr)")
        }
        let unreachable = try await GPSDClientRunner.run(
            LodestoneServe.executable.path, ["monitor", "list", "--socket", dir.appendingPathComponent("none.sock").path],
            timeoutS: 30, in: dir)
        #expect(unreachable.status != 0 && unreachable.stderr.contains("lodestone serve"), "\(unreachable.stderr)")

        let removed = try await serve.cli(["monitor", "remove", "places", "--id", "office"])
        #expect(removed.status == 0 && removed.stdout.contains("condition office removed"))
        #expect(try await serve.cli(["monitor", "remove", "places"]).status == 0)
        #expect(try await serve.cli(["monitor", "list"]).stdout.contains("no monitors"))

        // The history of the whole store (the simulated board's dates are the scenario's).
        let steps = try await serve.cli(["history", "steps", "--from", "0", "--to", "4000000000"])
        #expect(steps.status == 0 && steps.stdout.contains(" steps, "), "\(steps.stdout)\(steps.stderr)")
        let activity = try await serve.cli(["history", "activity", "--from", "2020-01-01", "--to", "now", "--json"])
        #expect(activity.status == 0, "\(activity.stderr)")
        let reply = try JSONDecoder().decode(P.HistoryReply.self, from: Data(activity.stdout.utf8))
        #expect(reply.kind == .activity && reply.activities != nil && reply.fromUnixS == 1_577_836_800)
    }
}

/// What a reader task has collected, for the test to look at while it reads.
final class Collected<E: Sendable>: Sendable {
    private let items = Mutex<[E]>([])
    func append(_ e: E) { items.withLock { $0.append(e) } }
    var all: [E] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}
