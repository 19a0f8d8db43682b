import LodestoneLocation

/// The state of one monitored condition (Core Location's `CLMonitor.Event.State`).
public enum MonitorConditionState: String, Sendable, Hashable, Codable, CaseIterable {
    /// The carrier is inside the region: a fix's whole accuracy circle, widened by the margin, was inside.
    case satisfied
    /// The carrier is outside: a fix's whole widened accuracy circle was outside.
    case unsatisfied
    /// Not decided yet: no fix since the condition was added was clear of its boundary.
    case unknown
}

/// What a monitor knows of one condition: its state, when it last changed and the location that changed it.
public struct MonitorConditionRecord: Sendable, Hashable, Codable {
    /// The current state.
    public var state: MonitorConditionState
    /// Session time of the last change, s; `nil` while `unknown` since the condition was added.
    public var changedAtS: Double?
    /// The location that caused the last change; `nil` while `unknown`.
    public var location: Location?

    /// A record; see each property.
    public init(state: MonitorConditionState = .unknown, changedAtS: Double? = nil, location: Location? = nil) {
        self.state = state; self.changedAtS = changedAtS; self.location = location
    }
}

/// A change of a condition's state, as a monitor reports it (Core Location's `CLMonitor.Event`).
public struct MonitorEvent: Sendable, Hashable, Codable {
    /// The event's identifier: 1, 2, 3 … in the order the monitor made them (never reused, never out of order), so
    /// that a client can acknowledge "everything up to n".
    public var id: UInt64
    /// The condition's identifier (`CircularRegion.id`).
    public var conditionId: String
    /// The new state (`satisfied` or `unsatisfied`: a condition never goes back to `unknown`).
    public var state: MonitorConditionState
    /// The state before (`unknown` for the first decision).
    public var previousState: MonitorConditionState
    /// Session time of the change: the time of the location that caused it, s.
    public var timeS: Double
    /// The location that caused the change.
    public var location: Location

    /// An event; see each property.
    public init(
        id: UInt64, conditionId: String, state: MonitorConditionState, previousState: MonitorConditionState, timeS: Double,
        location: Location
    ) {
        self.id = id; self.conditionId = conditionId; self.state = state; self.previousState = previousState
        self.timeS = timeS; self.location = location
    }
}

/// What acknowledging did. Acknowledging is idempotent: again, or beyond the last event, changes nothing and says so.
public enum Acknowledgement: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `count` pending events with ids up to `throughId` were acknowledged and removed from the queue.
    case acknowledged(count: Int, throughId: UInt64)
    /// Nothing was pending at or below the id: everything through it was acknowledged before. Nothing changed.
    case alreadyAcknowledged(throughId: UInt64)
    /// The monitor has made no event with this id yet (its last is `lastEventId`, 0 for none): nothing was
    /// acknowledged, so that a confused client cannot drop events it never saw.
    case unknownEvent(id: UInt64, lastEventId: UInt64)

    public var description: String {
        switch self {
        case .acknowledged(let count, let id): "acknowledged \(count) event(s) through \(id)"
        case .alreadyAcknowledged(let id): "events through \(id) were already acknowledged; nothing changed"
        case .unknownEvent(let id, let last):
            "no event \(id) yet (the last is \(last)); nothing acknowledged"
        }
    }
}
