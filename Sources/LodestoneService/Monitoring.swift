import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion

/// What a program asks of region monitoring, visits, significant change and motion history (issue 16), in-process
/// (`Session`) or through the daemon (`LodestoneClient`).
///
/// Times here are **Unix seconds** (UTC), not session time: monitors, their events and the history outlive a session,
/// and a daemon restarted tomorrow must still order yesterday's events. `Location.timeS` inside an event or a visit is
/// then the Unix time of that location too.
///
/// A monitor is named per client (`MonitorKey` in the store: the daemon names the client by its uid). Its events carry
/// ids 1, 2, 3 … per monitor; a client acknowledges "everything up to n" and, after a restart or a reconnection, gets
/// again only what it has not acknowledged.
public protocol MonitoringService {
    /// The conditions of monitor `name` with their states (empty for a monitor that does not exist yet).
    func monitorConditions(monitor name: String) async throws(MonitoringError) -> [MonitorCondition]
    /// Adds (or replaces, by `region.id`) a condition to monitor `name`, creating the monitor. Its state starts
    /// `unknown`; the first location clear of its boundary decides it (an event with `previousState` `unknown`).
    func addCondition(_ region: CircularRegion, monitor name: String) async throws(MonitoringError)
    /// Removes condition `conditionId` from monitor `name`; false when it was not there.
    func removeCondition(_ conditionId: String, monitor name: String) async throws(MonitoringError) -> Bool
    /// Removes monitor `name` with its conditions and undelivered events; false when it did not exist.
    func removeMonitor(_ name: String) async throws(MonitoringError) -> Bool
    /// The names of this client's monitors.
    func monitorNames() async throws(MonitoringError) -> [String]
    /// Monitor `name`'s events: first every event not yet acknowledged (in order, with their original times), then
    /// each new one as it happens. Iterating it keeps the monitor's demand with the scheduler only as long as the
    /// monitor has conditions (a monitor evaluates whether or not its events are being read).
    func monitorEvents(monitor name: String) -> Updates<MonitorEvent>
    /// Marks monitor `name`'s events up to and including `id` delivered: they are not sent again.
    func acknowledgeEvents(through id: UInt64, monitor name: String) async throws(MonitoringError) -> Acknowledgement
    /// Significant location changes (≥ 500 m, at most one per 5 minutes), at the lowest cost that achieves it.
    func significantLocationChanges() -> Updates<SignificantLocationChange>
    /// Visits: an event at arrival and one at departure.
    func visits() -> Updates<VisitEvent>
    /// Steps, distance and floors between two Unix times, from the history (the last 7 days).
    func pedometerData(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> PedometerData
    /// Activity segments between two Unix times, from the history: each activity as it began (the last 7 days).
    func activities(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> [MotionActivity]
}

/// One condition of a monitor and what the monitor knows of it.
public struct MonitorCondition: Sendable, Hashable, Codable {
    public var region: CircularRegion
    /// Its state, when it last changed (Unix s) and the location that changed it.
    public var record: MonitorConditionRecord
    public init(region: CircularRegion, record: MonitorConditionRecord) { self.region = region; self.record = record }
}

/// A significant change of location: when it was reported (Unix s), the location that made it (its own `timeS`, Unix
/// s, at or before the report: a fix that came a moment before the 5-minute interval ended is reported when it ends)
/// and how far it is from the previous change's, m (`nil` for the first).
public struct SignificantLocationChange: Sendable, Hashable, Codable {
    public var timeS: Double
    public var location: Location
    public var distanceM: Double?
    /// A change reported at `timeS` (by default the location's own time).
    public init(timeS: Double? = nil, location: Location, distanceM: Double?) {
        self.timeS = timeS ?? location.timeS; self.location = location; self.distanceM = distanceM
    }
}

/// Why a monitoring request failed: a code for programs and a sentence for people.
public struct MonitoringError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// A region or name that cannot be monitored (radius out of 1 m–100 km, an empty or too long name, …).
        case invalid
        /// No such monitor or condition.
        case notFound
        /// Too many conditions for this client or the daemon.
        case limit
        /// The state directory's store failed (disk full, unreadable): nothing was changed.
        case store
        /// The client may not do this (no location authorization, reduced accuracy).
        case denied
        /// The service has ended or the connection is gone.
        case unavailable
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }
    public var description: String { "\(code.rawValue): \(message)" }
}
