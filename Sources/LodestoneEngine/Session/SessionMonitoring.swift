import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneScheduler
import LodestoneService
import LodestoneStore

/// Region monitoring, significant change, visits and the motion history of one client of a session (issue 16), like
/// Core Location's `CLMonitor` and Core Motion's history queries:
///
/// ```swift
/// let monitoring = session.monitoring()
/// try await monitoring.addCondition(try CircularRegion(id: "home", latitudeDeg: 47.3769, longitudeDeg: 8.5417, radiusM: 150),
///                                   monitor: "places")
/// for await event in monitoring.monitorEvents(monitor: "places") {
///     print(event.conditionId, event.state)
///     _ = try await monitoring.acknowledgeEvents(through: event.id, monitor: "places")
/// }
/// ```
///
/// Times are Unix seconds. With `SessionConfiguration.stateDirectory`, monitors, states and unacknowledged events are in
/// SQLite and outlive the process; without, they last as long as the session.
public struct SessionMonitoring: MonitoringService, Sendable {
    let session: Session
    /// Whose monitors these are (the daemon: "uid:1000"; in-process: "").
    public let client: String

    public func monitorConditions(monitor name: String) async throws(MonitoringError) -> [MonitorCondition] {
        await session.conditions(of: key(name))
    }

    public func addCondition(_ region: CircularRegion, monitor name: String) async throws(MonitoringError) {
        try await session.addCondition(region, to: key(name))
    }

    public func removeCondition(_ conditionId: String, monitor name: String) async throws(MonitoringError) -> Bool {
        try await session.removeCondition(conditionId, from: key(name))
    }

    public func removeMonitor(_ name: String) async throws(MonitoringError) -> Bool {
        try await session.removeMonitor(key(name))
    }

    public func monitorNames() async throws(MonitoringError) -> [String] { await session.monitorNames(client: client) }

    public func monitorEvents(monitor name: String) -> Updates<MonitorEvent> { session.monitorEventUpdates(key(name)) }

    public func acknowledgeEvents(through id: UInt64, monitor name: String) async throws(MonitoringError) -> Acknowledgement {
        try await session.acknowledge(through: id, of: key(name))
    }

    public func significantLocationChanges() -> Updates<SignificantLocationChange> { session.significantChangeUpdates() }

    public func visits() -> Updates<VisitEvent> { session.visitUpdates() }

    public func pedometerData(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> PedometerData {
        try await session.pedometerHistory(fromUnixS: fromUnixS, toUnixS: toUnixS)
    }

    public func activities(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> [MotionActivity] {
        try await session.activityHistory(fromUnixS: fromUnixS, toUnixS: toUnixS)
    }

    private func key(_ name: String) -> MonitorKey { MonitorKey(client: client, name: name) }
}

extension Session {
    /// The monitoring API for `client` (the daemon passes the peer's identity, e.g. "uid:1000"; a program in-process uses
    /// the default "").
    public nonisolated func monitoring(client: String = "") -> SessionMonitoring {
        SessionMonitoring(session: self, client: client)
    }

    /// Removes every monitor of `client` with its conditions and queued events (a `when-in-use` client's connection
    /// ended). Returns how many there were.
    /// - Throws: `MonitoringError` (`store`) when some could not be removed (the store failed): the others are removed,
    ///   and the error says how many failed and why.
    @discardableResult
    public func removeMonitors(client: String) throws(MonitoringError) -> Int {
        var removed = 0
        var failed: [String] = []
        var firstError: MonitoringError?
        for name in core.state.monitoring.names(client: client) {
            do throws(MonitoringError) {
                if try core.removeMonitor(MonitorKey(client: client, name: name)) { removed += 1 }
            } catch {
                failed.append(name)
                firstError = firstError ?? error
            }
        }
        if let firstError {
            throw MonitoringError(
                .store,
                "\(failed.count) monitor(s) of \(client) could not be removed (\(failed.joined(separator: ", "))): "
                    + firstError.message)
        }
        return removed
    }

    /// The clients that have monitors (diagnostics: `lodestone clients`).
    public var monitoringClients: [String: Int] {
        var out: [String: Int] = [:]
        for (key, monitor) in core.state.monitoring.monitors { out[key.client, default: 0] += monitor.count }
        return out
    }

    func conditions(of key: MonitorKey) -> [MonitorCondition] { core.state.monitoring.conditions(of: key) }
    func addCondition(_ region: CircularRegion, to key: MonitorKey) throws(MonitoringError) {
        try core.addCondition(region, to: key)
    }
    func removeCondition(_ id: String, from key: MonitorKey) throws(MonitoringError) -> Bool {
        try core.removeCondition(id, from: key)
    }
    func removeMonitor(_ key: MonitorKey) throws(MonitoringError) -> Bool { try core.removeMonitor(key) }
    func monitorNames(client: String) -> [String] { core.state.monitoring.names(client: client) }
    func acknowledge(through id: UInt64, of key: MonitorKey) throws(MonitoringError) -> Acknowledgement {
        try core.acknowledge(through: id, of: key)
    }
    func pedometerHistory(fromUnixS: Double, toUnixS: Double) throws(MonitoringError) -> PedometerData {
        try core.pedometerHistory(fromUnixS: fromUnixS, toUnixS: toUnixS)
    }
    func activityHistory(fromUnixS: Double, toUnixS: Double) throws(MonitoringError) -> [MotionActivity] {
        try core.activityHistory(fromUnixS: fromUnixS, toUnixS: toUnixS)
    }
}

extension Session: MonitoringService {
    public func monitorConditions(monitor name: String) async throws(MonitoringError) -> [MonitorCondition] {
        try await monitoring().monitorConditions(monitor: name)
    }
    public func addCondition(_ region: CircularRegion, monitor name: String) async throws(MonitoringError) {
        try await monitoring().addCondition(region, monitor: name)
    }
    public func removeCondition(_ conditionId: String, monitor name: String) async throws(MonitoringError) -> Bool {
        try await monitoring().removeCondition(conditionId, monitor: name)
    }
    public func removeMonitor(_ name: String) async throws(MonitoringError) -> Bool {
        try await monitoring().removeMonitor(name)
    }
    public func monitorNames() async throws(MonitoringError) -> [String] { try await monitoring().monitorNames() }
    public nonisolated func monitorEvents(monitor name: String) -> Updates<MonitorEvent> {
        monitoring().monitorEvents(monitor: name)
    }
    public func acknowledgeEvents(through id: UInt64, monitor name: String) async throws(MonitoringError) -> Acknowledgement {
        try await monitoring().acknowledgeEvents(through: id, monitor: name)
    }
    public nonisolated func significantLocationChanges() -> Updates<SignificantLocationChange> {
        monitoring().significantLocationChanges()
    }
    public nonisolated func visits() -> Updates<VisitEvent> { monitoring().visits() }
    public func pedometerData(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> PedometerData {
        try pedometerHistory(fromUnixS: fromUnixS, toUnixS: toUnixS)
    }
    public func activities(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> [MotionActivity] {
        try activityHistory(fromUnixS: fromUnixS, toUnixS: toUnixS)
    }
}

extension SessionCore {
    /// The monitoring requests, for a harness that drives the loop itself (the `Session` actor calls them between steps).
    public mutating func addCondition(_ region: CircularRegion, to key: MonitorKey) throws(MonitoringError) {
        try state.monitoring.addCondition(region, to: key)
    }
    public mutating func removeCondition(_ id: String, from key: MonitorKey) throws(MonitoringError) -> Bool {
        try state.monitoring.removeCondition(id, from: key)
    }
    public mutating func removeMonitor(_ key: MonitorKey) throws(MonitoringError) -> Bool {
        try state.monitoring.removeMonitor(key)
    }
    public mutating func acknowledge(through id: UInt64, of key: MonitorKey) throws(MonitoringError) -> Acknowledgement {
        try state.monitoring.acknowledge(through: id, of: key)
    }
    public func pedometerHistory(fromUnixS: Double, toUnixS: Double) throws(MonitoringError) -> PedometerData {
        guard let store = state.monitoring.store else {
            throw MonitoringError(.unavailable, "no motion history: the session has no state directory")
        }
        do throws(StoreError) { return try store.pedometerData(fromS: fromUnixS, toS: toUnixS) } catch {
            throw Self.monitoringError(error)
        }
    }
    public func activityHistory(fromUnixS: Double, toUnixS: Double) throws(MonitoringError) -> [MotionActivity] {
        guard let store = state.monitoring.store else {
            throw MonitoringError(.unavailable, "no motion history: the session has no state directory")
        }
        do throws(StoreError) { return try store.activities(fromS: fromUnixS, toS: toUnixS) } catch {
            throw Self.monitoringError(error)
        }
    }

    /// What monitoring made so far (at most the last 10 000 of each), times in Unix seconds: region events, significant
    /// changes and visit events (harnesses and diagnostics).
    public var monitoringLog: (events: [MonitorEvent], significantChanges: [SignificantLocationChange], visits: [VisitEvent]) {
        (state.monitoring.eventLog, state.monitoring.significantLog, state.monitoring.visitLog)
    }

    /// The demands monitoring hands the scheduler now.
    public var monitoringDemands: [Demand] { state.monitoring.demands }

    private static func monitoringError(_ error: StoreError) -> MonitoringError {
        if case .invalid(_, let reason) = error { return MonitoringError(.invalid, reason) }
        return MonitoringError(.store, "\(error)")
    }
}

extension SubscriptionSource {
    /// The events of monitor `key`: those not yet acknowledged first, then the live ones. Lossless: on virtual time the
    /// loop waits for the reader; paced, the store's queue is what keeps them.
    public func monitorEventUpdates(_ key: MonitorKey) -> Updates<MonitorEvent> {
        let registry = subscriptionRegistry
        return Updates(buffering: .lossless(1024)) { registry.add(.monitorEvents(key, $0)) }
    }

    /// Significant location changes (`SignificantChangeDetector`), with their low-power demand while iterated.
    public func significantChangeUpdates() -> Updates<SignificantLocationChange> {
        let registry = subscriptionRegistry
        return Updates(buffering: .lossless(256)) { registry.add(.significantChange($0)) }
    }

    /// Visits (`VisitDetector`): the visit in progress first, then each arrival and departure.
    public func visitUpdates() -> Updates<VisitEvent> {
        let registry = subscriptionRegistry
        return Updates(buffering: .lossless(256)) { registry.add(.visits($0)) }
    }
}
