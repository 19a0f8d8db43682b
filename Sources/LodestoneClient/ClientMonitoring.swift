import LodestoneCore
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneService

/// `MonitoringService` over the daemon's protocol (docs/wire.md, "Monitoring"): each call is one request answered by
/// the daemon, each stream one `EVENTS`, `VISITS` or `SIGNIFICANT_CHANGES` subscription.
extension LodestoneClient {
    /// Event streams hold this many events their consumer has not taken yet; a consumer further behind loses the oldest
    /// from its iteration (they stay unacknowledged: the next `monitorEvents` gets them again).
    public static let monitorEventBufferCapacity = 1024

    private static let notConnected = MonitoringError(.unavailable, "the Lodestone daemon is not connected")

    /// The answer to a request, or the error the daemon (or the lost connection) gave.
    private func answer(_ make: (Int) -> String) async throws(MonitoringError) -> NativeProtocol.DaemonMessage {
        guard let reply = await request(make) else { throw Self.notConnected }
        if case .error(let e) = reply { throw e.monitoringError }
        return reply
    }

    private func monitorReply(_ r: NativeProtocol.MonitorRequest) async throws(MonitoringError) -> NativeProtocol.MonitorReply {
        let reply = try await answer { id in
            var r = r
            r.id = id
            return NativeProtocol.line(r)
        }
        guard case .monitor(let m) = reply else {
            throw MonitoringError(.unavailable, "the daemon answered MONITOR with \(reply)")
        }
        return m
    }

    public func monitorConditions(monitor name: String) async throws(MonitoringError) -> [MonitorCondition] {
        let m = try await monitorReply(NativeProtocol.MonitorRequest(id: 0, action: .list, monitor: name))
        var conditions: [MonitorCondition] = []
        for c in m.conditions ?? [] {
            do { conditions.append(try c.monitorCondition()) } catch {
                throw MonitoringError(.unavailable, "the daemon sent a condition out of range: \(error)")
            }
        }
        return conditions
    }

    public func addCondition(_ region: CircularRegion, monitor name: String) async throws(MonitoringError) {
        _ = try await monitorReply(
            NativeProtocol.MonitorRequest(id: 0, action: .add, monitor: name, condition: NativeProtocol.Region(region)))
    }

    public func removeCondition(_ conditionId: String, monitor name: String) async throws(MonitoringError) -> Bool {
        let m = try await monitorReply(
            NativeProtocol.MonitorRequest(id: 0, action: .remove, monitor: name, conditionId: conditionId))
        return m.removed ?? false
    }

    public func removeMonitor(_ name: String) async throws(MonitoringError) -> Bool {
        try await monitorReply(NativeProtocol.MonitorRequest(id: 0, action: .removeMonitor, monitor: name)).removed ?? false
    }

    public func monitorNames() async throws(MonitoringError) -> [String] {
        try await monitorReply(NativeProtocol.MonitorRequest(id: 0, action: .names)).names ?? []
    }

    public func acknowledgeEvents(through id: UInt64, monitor name: String) async throws(MonitoringError) -> Acknowledgement {
        let reply = try await answer {
            NativeProtocol.line(NativeProtocol.AcknowledgeRequest(id: $0, monitor: name, throughId: id))
        }
        guard case .acknowledgement(let a) = reply, let result = a.acknowledgement else {
            throw MonitoringError(.unavailable, "the daemon answered ACK with \(reply)")
        }
        return result
    }

    /// Monitor `name`'s events (`MonitoringService`). After a reconnection the daemon sends the unacknowledged events
    /// again; this iteration skips those it has delivered already (by id), so each comes once.
    public func monitorEvents(monitor name: String) -> Updates<MonitorEvent> {
        stream(
            buffering: .newest(Self.monitorEventBufferCapacity),
            request: { NativeProtocol.line(NativeProtocol.EventsRequest(id: $0, monitor: name)) },
            makeTake: {
                let highest = Watermark()
                return { message, buffer in
                    guard case .event(let e) = message, highest.advance(to: e.eventId) else { return }
                    buffer.push(e.event)
                }
            })
    }

    public func significantLocationChanges() -> Updates<SignificantLocationChange> {
        stream(
            buffering: .newest(64), request: { NativeProtocol.line(NativeProtocol.StreamRequest.significantChanges(id: $0)) },
            makeTake: {
                { message, buffer in
                    if case .significantChange(let c) = message { buffer.push(c.change) }
                }
            })
    }

    public func visits() -> Updates<VisitEvent> {
        stream(
            buffering: .newest(64), request: { NativeProtocol.line(NativeProtocol.StreamRequest.visits(id: $0)) },
            makeTake: {
                { message, buffer in
                    if case .visit(let v) = message, let e = v.visitEvent { buffer.push(e) }
                }
            })
    }

    public func pedometerData(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> PedometerData {
        let reply = try await answer {
            NativeProtocol.line(NativeProtocol.HistoryRequest(id: $0, kind: .steps, fromUnixS: fromUnixS, toUnixS: toUnixS))
        }
        guard case .history(let h) = reply, let data = h.pedometer else {
            throw MonitoringError(.unavailable, "the daemon answered HISTORY steps with \(reply)")
        }
        return data
    }

    public func activities(fromUnixS: Double, toUnixS: Double) async throws(MonitoringError) -> [MotionActivity] {
        let reply = try await answer {
            NativeProtocol.line(NativeProtocol.HistoryRequest(id: $0, kind: .activity, fromUnixS: fromUnixS, toUnixS: toUnixS))
        }
        guard case .history(let h) = reply, let activities = h.activities else {
            throw MonitoringError(.unavailable, "the daemon answered HISTORY activity with \(reply)")
        }
        return activities
    }
}

/// The highest event id one stream iteration delivered: events come in id order, so one the daemon sends again after a
/// reconnection is at or below it.
private final class Watermark: Sendable {
    private let highest = Locked<UInt64>(0)
    /// Records `id`; false when it is not above what was recorded.
    func advance(to id: UInt64) -> Bool {
        highest.withLock { h in
            guard id > h else { return false }
            h = id
            return true
        }
    }
}
