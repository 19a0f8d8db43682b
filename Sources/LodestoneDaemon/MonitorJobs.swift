#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneClient
import LodestoneCore
import LodestoneEngine
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import Synchronization

/// `lodestone monitor add|remove|list|events`: the client's monitors through the daemon.
public struct MonitorJob: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Adds (or replaces) a circular condition to a monitor.
        case add(monitor: String, conditionId: String, latitudeDeg: Double, longitudeDeg: Double, radiusM: Double)
        /// Removes one condition (`conditionId`), or the whole monitor (`nil`).
        case remove(monitor: String, conditionId: String?)
        /// The conditions of one monitor, or of every monitor (`nil`).
        case list(monitor: String?)
        /// Prints the monitor's events as they come (the unacknowledged first), acknowledging each when `acknowledge`;
        /// stops after `count` events or `timeoutS` seconds (wall clock) when given.
        case events(monitor: String, acknowledge: Bool, count: Int?, timeoutS: Double?)
    }
    public var socketPath: String
    public var action: Action
    /// One JSON object per line: the daemon's `MONITOR` conditions and `EVENT` lines (docs/wire.md).
    public var json: Bool

    public init(socketPath: String, action: Action, json: Bool = false) {
        self.socketPath = socketPath; self.action = action; self.json = json
    }

    /// Runs the action; returns the exit code (0 done, 1 failed: one line on `errors` says why).
    public func run(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void) async -> Int32 {
        var region: CircularRegion?
        if case .add(_, let id, let lat, let lon, let r) = action {
            do { region = try CircularRegion(id: id, latitudeDeg: lat, longitudeDeg: lon, radiusM: r) } catch {
                errors(error.description)
                return 1
            }
        }
        let client: LodestoneClient
        do { client = try LodestoneClient.connect(socketPath: socketPath, name: "lodestone monitor") } catch {
            errors(error.description)
            return 1
        }
        defer { client.close() }
        do throws(MonitoringError) {
            switch action {
            case .add(let monitor, _, _, _, _):
                guard let region else { return 1 }
                try await client.addCondition(region, monitor: monitor)
                output(
                    "monitor \(monitor): condition \(region.id) added (\(Self.describe(region.center)), radius "
                        + "\(formatFixed(region.radiusM, digits: 1)) m)")
            case .remove(let monitor, let id?):
                guard try await client.removeCondition(id, monitor: monitor) else {
                    errors("monitor \(monitor) has no condition \(id) (lodestone monitor list \(monitor) shows its conditions)")
                    return 1
                }
                output("monitor \(monitor): condition \(id) removed")
            case .remove(let monitor, nil):
                guard try await client.removeMonitor(monitor) else {
                    errors("there is no monitor \(monitor) (lodestone monitor list shows them)")
                    return 1
                }
                output("monitor \(monitor) removed")
            case .list(let monitor):
                var names: [String]
                if let monitor { names = [monitor] } else { names = try await client.monitorNames() }
                if names.isEmpty && !json { output("no monitors") }
                for name in names {
                    let conditions = try await client.monitorConditions(monitor: name)
                    if json {
                        for c in conditions { output(String(NativeProtocol.line(NativeProtocol.Condition(c)).dropLast())) }
                        continue
                    }
                    output("monitor \(name): \(conditions.count) condition\(conditions.count == 1 ? "" : "s")")
                    for c in conditions { output("  " + Self.describe(c)) }
                }
            case .events(let monitor, let acknowledge, let count, let timeoutS):
                return try await events(
                    client, monitor: monitor, acknowledge: acknowledge, count: count, timeoutS: timeoutS, output: output)
            }
        } catch {
            errors(error.description)
            return 1
        }
        return 0
    }

    private func events(
        _ client: LodestoneClient, monitor: String, acknowledge: Bool, count: Int?, timeoutS: Double?,
        output: @escaping @Sendable (String) -> Void
    ) async throws(MonitoringError) -> Int32 {
        // The stream ends at `count` events, at the timeout (the timer closes the client), or when the daemon ends it.
        let timer = timeoutS.map { s in
            Task {
                try? await Task.sleep(for: .milliseconds(Int64(s * 1000)))
                if !Task.isCancelled { client.close() }
            }
        }
        defer { timer?.cancel() }
        var printed = 0
        for await event in client.monitorEvents(monitor: monitor) {
            output(
                json
                    ? String(NativeProtocol.line(NativeProtocol.EventMessage(id: 0, monitor: monitor, event: event)).dropLast())
                    : Self.describe(event, monitor: monitor))
            if acknowledge { _ = try await client.acknowledgeEvents(through: event.id, monitor: monitor) }
            printed += 1
            if let count, printed >= count { break }
        }
        if let e = client.lastError, printed == 0, e.id != nil {
            throw e.monitoringError
        }
        return 0
    }

    static func describe(_ c: Coordinate) -> String {
        "\(formatFixed(c.latitudeDeg, digits: 6)), \(formatFixed(c.longitudeDeg, digits: 6))"
    }

    /// `home: satisfied since 2026-07-02T12:00:04Z (47.376890, 8.541720 ±5.8 m); centre …, radius 200.0 m`.
    static func describe(_ c: MonitorCondition) -> String {
        var s = "\(c.region.id): \(c.record.state.rawValue)"
        if let t = c.record.changedAtS { s += " since \(UTCCalendar.iso8601(unixS: t, fractionDigits: 0))" }
        if let l = c.record.location {
            s += " (at \(describe(l.coordinate)) ±\(formatFixed(l.horizontalAccuracyM, digits: 1)) m)"
        }
        return s + "; centre \(describe(c.region.center)), radius \(formatFixed(c.region.radiusM, digits: 1)) m"
    }

    /// `home #3: satisfied (was unknown) at 2026-07-02T12:00:04.730Z, 47.376890, 8.541720 ±5.8 m`.
    static func describe(_ e: MonitorEvent, monitor: String) -> String {
        "\(monitor) #\(e.id) \(e.conditionId): \(e.state.rawValue) (was \(e.previousState.rawValue)) at "
            + "\(UTCCalendar.iso8601(unixS: e.timeS, fractionDigits: 3)), \(describe(e.location.coordinate)) "
            + "±\(formatFixed(e.location.horizontalAccuracyM, digits: 1)) m"
    }
}

/// `lodestone history steps|activity --from T --to T`: the motion history through the daemon.
public struct HistoryJob: Sendable {
    public var socketPath: String
    public var kind: NativeProtocol.HistoryRequest.Kind
    public var fromUnixS: Double
    public var toUnixS: Double
    /// The daemon's `HISTORY` line as JSON.
    public var json: Bool

    public init(socketPath: String, kind: NativeProtocol.HistoryRequest.Kind, fromUnixS: Double, toUnixS: Double, json: Bool) {
        self.socketPath = socketPath; self.kind = kind; self.fromUnixS = fromUnixS; self.toUnixS = toUnixS; self.json = json
    }

    public func run(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void) async -> Int32 {
        let client: LodestoneClient
        do { client = try LodestoneClient.connect(socketPath: socketPath, name: "lodestone history") } catch {
            errors(error.description)
            return 1
        }
        defer { client.close() }
        let span =
            "\(UTCCalendar.iso8601(unixS: fromUnixS, fractionDigits: 0)) to \(UTCCalendar.iso8601(unixS: toUnixS, fractionDigits: 0))"
        do throws(MonitoringError) {
            var reply = NativeProtocol.HistoryReply(id: 0, kind: kind, fromUnixS: fromUnixS, toUnixS: toUnixS)
            switch kind {
            case .steps:
                let d = try await client.pedometerData(fromUnixS: fromUnixS, toUnixS: toUnixS)
                reply.pedometer = d
                if !json {
                    output(
                        "\(d.steps) steps, \(formatFixed(d.distanceM, digits: 1)) m, \(d.floorsAscended) floors up, "
                            + "\(d.floorsDescended) down (\(span))")
                }
            case .activity:
                let segments = try await client.activities(fromUnixS: fromUnixS, toUnixS: toUnixS)
                reply.activities = segments
                if !json {
                    if segments.isEmpty { output("no activity recorded from \(span)") }
                    for a in segments {
                        output(
                            "\(UTCCalendar.iso8601(unixS: a.startTimeS, fractionDigits: 0)) \(a.kind.rawValue) (\(a.confidence.rawValue))"
                        )
                    }
                }
            }
            if json { output(String(NativeProtocol.line(reply).dropLast())) }
        } catch {
            errors(error.description)
            return 1
        }
        return 0
    }
}

/// The times `lodestone history` takes: ISO 8601 UTC (`2026-07-02T12:00:00Z`, `2026-07-02T12:00`, `2026-07-02`), a
/// time before now (`-2h`, `-30m`, `-45s`, `-7d`), `now`, or Unix seconds (`1782993600`).
public enum HistoryTime {
    /// The Unix time `text` names, s; `nil` when it names none.
    public static func unixS(_ text: String, nowUnixS: Double) -> Double? {
        let t = text.trimmingHorizontalSpace()
        if t == "now" { return nowUnixS }
        if t.hasPrefix("-"), let unit = t.last, let scale = ["s": 1.0, "m": 60, "h": 3600, "d": 86_400][String(unit)],
            let amount = Double(t.dropFirst().dropLast()), amount.isFinite, amount >= 0
        {
            return nowUnixS - amount * scale
        }
        if let v = Double(t), v.isFinite, t.allSatisfy({ $0.isNumber || $0 == "." }) { return v }
        return iso8601(t)
    }

    /// `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z]`, UTC.
    static func iso8601(_ text: String) -> Double? {
        var t = Substring(text)
        if t.hasSuffix("Z") { t = t.dropLast() }
        let parts = t.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
            let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]), (1...12).contains(month),
            (1...UTCCalendar.daysInMonth(month, year: year)).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0.0
        if parts.count == 2 {
            let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(time.count), time[0].count == 2, time[1].count == 2, let h = Int(time[0]),
                let m = Int(time[1]),
                (0..<24).contains(h), (0..<60).contains(m)
            else { return nil }
            hour = h
            minute = m
            if time.count == 3 {
                guard time[2].count >= 2, let s = Double(time[2]), s >= 0, s < 61 else { return nil }
                second = s
            }
        }
        return Double(UTCCalendar.unixSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: 0))
            + second
    }
}

extension StringProtocol {
    /// The text without the spaces and tabs around it (what Foundation's `trimmingCharacters(in: .whitespaces)`
    /// removes: Unicode's space separators and the tab, not line breaks).
    fileprivate func trimmingHorizontalSpace() -> String {
        func isSpace(_ c: Character) -> Bool {
            c.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
