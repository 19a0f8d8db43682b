import LodestoneCore
import LodestoneEngine
import LodestoneMonitoring
import LodestoneMotion
import LodestoneService
import LodestoneStore

/// Where the daemon's monitors, visits, significant changes and motion history come from: the session
/// (`Session.monitoring(client:)`), or a test's stand-in.
public protocol MonitoringProvider: Sendable {
    /// The monitoring API of one client (the daemon names its clients `uid:<uid>`, or `unidentified`).
    func monitoringService(client: String) -> any MonitoringService & Sendable
    /// Removes every monitor of `client` (a when-in-use client's last connection ended); returns how many there were.
    /// - Throws: `MonitoringError` when some could not be removed (the others are).
    func removeMonitors(client: String) async throws(MonitoringError) -> Int
}

extension Session: MonitoringProvider {
    public nonisolated func monitoringService(client: String) -> any MonitoringService & Sendable { monitoring(client: client) }
}

/// The daemon's monitoring clients, by the name the session knows them by: how many connections each has (a
/// when-in-use client's monitors end with its last one), and how many conditions each holds (the per-client cap).
final class MonitorClients: Sendable {
    /// The most conditions one client may hold over all its monitors.
    let maxConditions: Int

    private struct Entry {
        var connections = 0
        /// The removal of its monitors after its last connection closed, while it runs: the client's next requests
        /// wait for it, so that a quick reconnection does not see its new monitor removed.
        var removal: Task<Void, Never>?
        /// Condition identifiers by monitor, once loaded from the service (`nil` before).
        var conditionIds: [String: Set<String>]?
        /// Adds under way (counted against the cap before they are done).
        var reserved = 0
        var total: Int { conditionIds?.values.reduce(0) { $0 + $1.count } ?? 0 }
    }
    private let entries = Locked<[String: Entry]>([:])

    init(maxConditions: Int) { self.maxConditions = maxConditions }

    /// The name a connection's peer has in the session: its uid, or `unidentified` without peer credentials.
    static func key(uid: UInt32?) -> String { uid.map { "uid:\($0)" } ?? "unidentified" }

    /// The conditions `key` holds over all its monitors, once known to the daemon (`nil` before its first monitoring
    /// request).
    func conditionCount(_ key: String) -> Int? {
        entries.withLock { e in e[key].flatMap { $0.conditionIds == nil ? nil : $0.total } }
    }

    /// A connection of `key` opened.
    func connected(_ key: String) { entries.withLock { $0[key, default: Entry()].connections += 1 } }

    /// A connection of `key` closed. When it was the last and the client's location authorization is when-in-use, its
    /// monitors are removed (`provider.removeMonitors`), unless it connects again before that starts.
    /// `failed` hears of a removal that failed (the daemon logs it).
    func disconnected(
        _ key: String, authorization: Authorization, provider: any MonitoringProvider,
        failed: @escaping @Sendable (MonitoringError) -> Void = { _ in }
    ) {
        entries.withLock { e in
            guard var entry = e[key] else { return }
            entry.connections -= 1
            if entry.connections <= 0 && authorization.location == .whenInUse {
                let previous = entry.removal
                entry.removal = Task {
                    await previous?.value
                    guard self.entries.withLock({ ($0[key]?.connections ?? 0) == 0 }) else { return }
                    do throws(MonitoringError) { _ = try await provider.removeMonitors(client: key) } catch { failed(error) }
                    self.entries.withLock { $0[key]?.conditionIds = [:] }
                }
            }
            e[key] = entry
        }
    }

    /// Waits for a removal of `key`'s monitors that is under way.
    func settled(_ key: String) async {
        let removal = entries.withLock { $0[key]?.removal }
        await removal?.value
    }

    /// Reserves room for condition `id` in `monitor` of `key`: nil when there is room (a replacement always has), else
    /// the error to answer. Loads the client's conditions from `service` the first time.
    func reserve(
        _ id: String, monitor: String, of key: String, service: any MonitoringService & Sendable
    ) async -> MonitoringError? {
        if entries.withLock({ $0[key]?.conditionIds == nil }) {
            var loaded: [String: Set<String>] = [:]
            do {
                for name in try await service.monitorNames() {
                    loaded[name] = Set(try await service.monitorConditions(monitor: name).map(\.region.id))
                }
            } catch { return error }
            entries.withLock { e in
                if e[key, default: Entry()].conditionIds == nil { e[key, default: Entry()].conditionIds = loaded }
            }
        }
        return entries.withLock { e -> MonitoringError? in
            var entry = e[key, default: Entry()]
            defer { e[key] = entry }
            if entry.conditionIds?[monitor]?.contains(id) == true { return nil }
            guard entry.total + entry.reserved < maxConditions else {
                return MonitoringError(
                    .limit,
                    "this client holds \(entry.total) conditions, the most the daemon allows one client "
                        + "(\(maxConditions)); remove some first")
            }
            entry.reserved += 1
            return nil
        }
    }

    /// Ends a reservation: the add succeeded (`added`) or not.
    func finish(_ id: String, monitor: String, of key: String, added: Bool) {
        entries.withLock { e in
            guard var entry = e[key] else { return }
            entry.reserved = max(0, entry.reserved - 1)
            if added { entry.conditionIds?[monitor, default: []].insert(id) }
            e[key] = entry
        }
    }

    func removed(_ id: String, monitor: String, of key: String) {
        entries.withLock { _ = $0[key]?.conditionIds?[monitor]?.remove(id) }
    }
    func removedMonitor(_ monitor: String, of key: String) {
        entries.withLock { _ = $0[key]?.conditionIds?.removeValue(forKey: monitor) }
    }
}

/// A provider that serves nothing: every request is `unavailable` (a daemon built without monitoring, tests).
public struct UnavailableMonitoring: MonitoringProvider {
    struct Service: MonitoringService, Sendable {
        static let error = MonitoringError(.unavailable, "this daemon's session does not serve monitoring")
        func monitorConditions(monitor name: String) async throws(MonitoringError) -> [MonitorCondition] { throw Self.error }
        func addCondition(_ region: CircularRegion, monitor name: String) async throws(MonitoringError) { throw Self.error }
        func removeCondition(_ conditionId: String, monitor name: String) async throws(MonitoringError) -> Bool {
            throw Self.error
        }
        func removeMonitor(_ name: String) async throws(MonitoringError) -> Bool { throw Self.error }
        func monitorNames() async throws(MonitoringError) -> [String] { throw Self.error }
        func monitorEvents(monitor name: String) -> Updates<MonitorEvent> { Updates(buffering: .newest(1)) { $0.finish() } }
        func acknowledgeEvents(through id: UInt64, monitor name: String) async throws(MonitoringError) -> Acknowledgement {
            throw Self.error
        }
        func significantLocationChanges() -> Updates<SignificantLocationChange> {
            Updates(buffering: .newest(1)) { $0.finish() }
        }
        func visits() -> Updates<VisitEvent> { Updates(buffering: .newest(1)) { $0.finish() } }
        func pedometerData(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> PedometerData {
            throw Self.error
        }
        func activities(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> [MotionActivity] {
            throw Self.error
        }
    }
    public init() {}
    public func monitoringService(client: String) -> any MonitoringService & Sendable { Service() }
    public func removeMonitors(client: String) async throws(MonitoringError) -> Int { 0 }
}

/// One native connection's monitoring requests (`MONITOR`, `EVENTS`, `ACK`, `VISITS`, `SIGNIFICANT_CHANGES`,
/// `HISTORY`), answered in the order they came on one task of their own (the event loop never waits for the store).
/// The streams are the connection's subscriptions: `UNSUBSCRIBE` ends them, a disconnection cancels them.
final class NativeMonitoring: Sendable {
    let daemon: Daemon
    let client: Client
    /// The client's name in the session: `uid:<uid>` or `unidentified`.
    let key: String
    let service: any MonitoringService & Sendable
    private let requests: AsyncStream<NativeProtocol.ClientMessage>.Continuation
    private let worker: Task<Void, Never>

    /// The longest monitor name, UTF-8 bytes (the store's key limit).
    static let maximumNameBytes = MonitorStore.maximumKeyBytes

    init(daemon: Daemon, client: Client) {
        self.daemon = daemon; self.client = client
        key = MonitorClients.key(uid: client.connection.peer.uid)
        service = daemon.monitoring.monitoringService(client: key)
        let (stream, continuation) = AsyncStream.makeStream(of: NativeProtocol.ClientMessage.self, bufferingPolicy: .unbounded)
        requests = continuation
        let handler = Handler(daemon: daemon, client: client, key: key, service: service)
        worker = Task {
            for await message in stream { await handler.handle(message) }
        }
    }

    /// The subscription a stream request makes (id, kind and demand, as the clients list shows them); nil for the other
    /// requests.
    static func subscription(of message: NativeProtocol.ClientMessage) -> (id: Int, kind: String, demand: String)? {
        switch message {
        case .events(let e): (e.id, "monitor-events", "events of monitor \(e.monitor)")
        case .visits(let v): (v.id, "visits", "visits")
        case .significantChanges(let s): (s.id, "significant-changes", "significant location changes")
        default: nil
        }
    }

    /// Queues a request (the event loop's thread).
    func submit(_ message: NativeProtocol.ClientMessage) { requests.yield(message) }

    /// The connection closed: no more requests are answered.
    func finish() {
        requests.finish()
        worker.cancel()
    }

    /// What answers the requests, on the worker task.
    private struct Handler: Sendable {
        let daemon: Daemon
        let client: Client
        let key: String
        let service: any MonitoringService & Sendable

        func handle(_ message: NativeProtocol.ClientMessage) async {
            if Task.isCancelled { return }
            await daemon.monitorClients.settled(key)
            switch message {
            case .monitor(let m): await monitor(m)
            case .acknowledge(let a): await acknowledge(a)
            case .history(let h): await history(h)
            case .events(let e): startEvents(e)
            case .visits(let v): startVisits(v)
            case .significantChanges(let s): startSignificantChanges(s)
            case .hello, .subscribe, .unsubscribe, .authorization, .clients: break // NativeConnection's
            }
        }

        private func reply(_ error: MonitoringError, id: Int) {
            client.send(NativeProtocol.line(NativeProtocol.ErrorMessage(error, id: id)))
        }

        /// Why this client may not use monitors, visits or significant changes; nil when it may.
        static func locationDenial(_ a: Authorization, regions: Bool) -> MonitoringError? {
            if a.location == .denied {
                return MonitoringError(.denied, "location is denied to this client (\(a.decidedBy))")
            }
            if a.accuracy == .reduced {
                return MonitoringError(
                    .denied,
                    regions
                        ? "region monitoring needs full accuracy; this client has reduced accuracy (\(a.decidedBy))"
                        : "visits and significant changes need full accuracy; this client has reduced accuracy "
                            + "(\(a.decidedBy))")
            }
            return nil
        }

        /// Why `name` cannot name a monitor; nil when it can.
        static func nameProblem(_ name: String?) -> MonitoringError? {
            guard let name else { return MonitoringError(.invalid, "missing member \"monitor\"") }
            let bytes = name.utf8.count
            guard bytes >= 1, bytes <= NativeMonitoring.maximumNameBytes else {
                return MonitoringError(
                    .invalid,
                    "a monitor name must be 1 to \(NativeMonitoring.maximumNameBytes) UTF-8 bytes (this one is \(bytes))")
            }
            return nil
        }

        private func monitor(_ m: NativeProtocol.MonitorRequest) async {
            if let denied = Self.locationDenial(client.authorization, regions: true) { return reply(denied, id: m.id) }
            if m.action != .names, let problem = Self.nameProblem(m.monitor) { return reply(problem, id: m.id) }
            let name = m.monitor ?? ""
            var answer = NativeProtocol.MonitorReply(id: m.id, action: m.action, monitor: m.monitor)
            do throws(MonitoringError) {
                switch m.action {
                case .add:
                    guard let c = m.condition else {
                        return reply(MonitoringError(.invalid, "add: missing member \"condition\""), id: m.id)
                    }
                    let region: CircularRegion
                    do { region = try c.region() } catch { return reply(MonitoringError(.invalid, error.description), id: m.id) }
                    let monitors = daemon.monitorClients
                    if let full = await monitors.reserve(region.id, monitor: name, of: key, service: service) {
                        return reply(full, id: m.id)
                    }
                    do { try await service.addCondition(region, monitor: name) } catch {
                        monitors.finish(region.id, monitor: name, of: key, added: false)
                        throw error
                    }
                    monitors.finish(region.id, monitor: name, of: key, added: true)
                case .remove:
                    guard let id = m.conditionId else {
                        return reply(MonitoringError(.invalid, "remove: missing member \"condition_id\""), id: m.id)
                    }
                    answer.removed = try await service.removeCondition(id, monitor: name)
                    daemon.monitorClients.removed(id, monitor: name, of: key)
                case .removeMonitor:
                    answer.removed = try await service.removeMonitor(name)
                    daemon.monitorClients.removedMonitor(name, of: key)
                case .list:
                    answer.conditions = try await service.monitorConditions(monitor: name).map(NativeProtocol.Condition.init)
                case .names: answer.names = try await service.monitorNames()
                }
            } catch {
                return reply(error, id: m.id)
            }
            client.send(NativeProtocol.line(answer))
        }

        private func acknowledge(_ a: NativeProtocol.AcknowledgeRequest) async {
            if let denied = Self.locationDenial(client.authorization, regions: true) { return reply(denied, id: a.id) }
            if let problem = Self.nameProblem(a.monitor) { return reply(problem, id: a.id) }
            do {
                let result = try await service.acknowledgeEvents(through: a.throughId, monitor: a.monitor)
                client.send(NativeProtocol.line(NativeProtocol.AcknowledgeReply(id: a.id, monitor: a.monitor, result)))
            } catch {
                reply(error, id: a.id)
            }
        }

        private func history(_ h: NativeProtocol.HistoryRequest) async {
            let auth = client.authorization
            guard auth.motion else {
                return reply(MonitoringError(.denied, "motion history is denied to this client (\(auth.decidedBy))"), id: h.id)
            }
            guard h.fromUnixS.isFinite, h.toUnixS.isFinite, h.fromUnixS <= h.toUnixS else {
                return reply(MonitoringError(.invalid, "from_unix_s must be finite and not after to_unix_s"), id: h.id)
            }
            var answer = NativeProtocol.HistoryReply(id: h.id, kind: h.kind, fromUnixS: h.fromUnixS, toUnixS: h.toUnixS)
            do {
                switch h.kind {
                case .steps: answer.pedometer = try await service.pedometerData(fromUnixS: h.fromUnixS, toUnixS: h.toUnixS)
                case .activity: answer.activities = try await service.activities(fromUnixS: h.fromUnixS, toUnixS: h.toUnixS)
                }
            } catch {
                return reply(error, id: h.id)
            }
            client.send(NativeProtocol.line(answer))
        }

        // MARK: Streams

        private func startEvents(_ e: NativeProtocol.EventsRequest) {
            if let problem = Self.locationDenial(client.authorization, regions: true) ?? Self.nameProblem(e.monitor) {
                return refuse(problem, stream: e.id)
            }
            let monitor = e.monitor
            start(
                id: e.id, started: NativeProtocol.StreamStarted("EVENTS", id: e.id, monitor: monitor), regions: true,
                service.monitorEvents(monitor: monitor)
            ) { NativeProtocol.line(NativeProtocol.EventMessage(id: e.id, monitor: monitor, event: $0)) }
        }

        private func startVisits(_ v: NativeProtocol.StreamRequest) {
            if let denied = Self.locationDenial(client.authorization, regions: false) { return refuse(denied, stream: v.id) }
            start(id: v.id, started: NativeProtocol.StreamStarted("VISITS", id: v.id), regions: false, service.visits()) {
                NativeProtocol.line(NativeProtocol.VisitMessage(id: v.id, $0))
            }
        }

        private func startSignificantChanges(_ s: NativeProtocol.StreamRequest) {
            if let denied = Self.locationDenial(client.authorization, regions: false) { return refuse(denied, stream: s.id) }
            start(
                id: s.id, started: NativeProtocol.StreamStarted("SIGNIFICANT_CHANGES", id: s.id), regions: false,
                service.significantLocationChanges()
            ) { NativeProtocol.line(NativeProtocol.SignificantChangeMessage(id: s.id, $0)) }
        }

        /// A stream that may not start: its subscription goes, the client gets the error.
        private func refuse(_ error: MonitoringError, stream id: Int) {
            client.removeSubscription(id)
            reply(error, id: id)
        }

        /// Streams `updates` to the client as subscription `id` (registered by `NativeConnection` when the request
        /// came), each as `line` makes it, until the service ends it, the client unsubscribes or disconnects, or its
        /// authorization no longer allows it.
        private func start<E: Sendable>(
            id: Int, started: NativeProtocol.StreamStarted, regions: Bool, _ updates: Updates<E>,
            line: @escaping @Sendable (E) -> String
        ) {
            guard client.hasSubscription(id) else { return } // unsubscribed before it started: ENDED was sent
            client.send(NativeProtocol.line(started))
            let task = Task { [client] in
                var reason = "the session ended"
                for await element in updates {
                    if let denied = Self.locationDenial(client.authorization, regions: regions) {
                        reason = "the client's authorization changed: \(denied.message)"
                        break
                    }
                    guard client.send(line(element)) else { return }
                }
                if Task.isCancelled { return } // unsubscribed or disconnected: the remover said so
                client.send(NativeProtocol.line(NativeProtocol.Ended(id: id, reason: reason)))
                client.removeSubscription(id)
            }
            client.attach(task, to: id)
        }
    }
}
