import CSQLite
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneLinux
import LodestoneLocation
import LodestoneMonitoring

/// A monitor's name: the identity of its client (e.g. the Unix user, for `always` clients that get their events after
/// reconnecting) and the name the client gave it (`monitor(named:)`).
public struct MonitorKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The client's identity.
    public var client: String
    /// The monitor's name, unique per client.
    public var name: String

    /// A key; see each property.
    public init(client: String, name: String) { self.client = client; self.name = name }

    public var description: String { "\(client)/\(name)" }
}

/// The monitors' and the motion history's store (issue 16): one SQLite file under the state directory
/// (`/var/lib/lodestone/lodestone.sqlite` in the daemon) holding monitors, their conditions and states, the queue of
/// events not yet acknowledged, and 7 days of pedometer and activity history.
///
/// **Durability.** The file is in WAL mode with `synchronous=FULL`: every commit appends to the write-ahead log and
/// `fdatasync`s it before `COMMIT` returns, so a transaction the store reported is on the disk and survives a power cut,
/// not only a crash of the process. (`NORMAL` would sync only at checkpoints: after a power cut the database would be
/// consistent but could lack the last transactions — events reported and never delivered; the issue forbids that.
/// The price is one `fdatasync` per commit, i.e. per location that changed a state, not per fix.) A state change and
/// its event, and the monitor's next event id, are written in one transaction: after a crash at any moment either all
/// of them are there or none is.
///
/// **Safety of the file.** Opening reads the header and runs `PRAGMA quick_check` on an existing file; a file that is
/// not an SQLite database, is damaged, or has a schema newer than this build is refused with a `StoreError` and never
/// written to. The schema is versioned (`PRAGMA user_version`) and migrated in order (`Schema.migrations`), each step in
/// one transaction.
///
/// Statements are prepared once and reused. Not `Sendable`: one task owns the store (the daemon's monitoring actor).
public final class MonitorStore {
    /// The database's file name in the state directory.
    public static let fileName = "lodestone.sqlite"
    /// The schema version this build reads and writes.
    public static var schemaVersion: Int { Schema.currentVersion }

    /// The longest client identity and monitor name accepted, in UTF-8 bytes.
    public static let maximumKeyBytes = 256

    /// The database file.
    public let path: String
    let db: SQLiteConnection
    private var monitorIds: [MonitorKey: Int64] = [:]
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder
    /// When the history was last pruned (Unix time s of the newest row then), so that pruning runs about once an hour.
    var lastPruneS: Double = -.infinity

    /// Opens the store in `directory` (creating the directory and the file when missing).
    /// - Throws: `StoreError` (see `init(path:)`).
    public convenience init(directory: String) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .invalid(operation: "create the state directory \(directory)", reason: "\(error)")
        }
        try self.init(path: directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName)
    }

    /// Opens the database at `path`, creating it when missing, and migrates it to `schemaVersion`.
    /// - Throws: `StoreError.notADatabase` for a foreign or damaged file, `.newerSchema` for one from a newer
    ///   Lodestone (both left untouched), `.sqlite` for any other failure, with SQLite's message.
    public init(path: String) throws(StoreError) {
        self.path = path
        let existed = FileManager.default.fileExists(atPath: path)
        db = try SQLiteConnection(path: path, create: true)
        encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")

        // Read before anything writes: a foreign file fails here (SQLITE_NOTADB) and is not touched.
        let version = try userVersion()
        guard version <= Schema.currentVersion else {
            throw .newerSchema(path: path, foundVersion: version, supportedVersion: Schema.currentVersion)
        }
        if existed {
            guard let row = try db.statement("PRAGMA quick_check", operation: "check the database").first(),
                case .text(let verdict) = row.first, verdict == "ok"
            else {
                let found = (try? db.statement("PRAGMA quick_check", operation: "check").first()?.first) ?? nil
                throw .notADatabase(path: path, message: "quick_check: \(found.map { "\($0)" } ?? "no answer")")
            }
        }
        guard let mode = try db.statement("PRAGMA journal_mode = WAL", operation: "enter WAL mode").first(),
            mode.first == .text("wal")
        else {
            throw .sqlite(operation: "enter WAL mode", path: path, code: SQLITE_ERROR, message: "journal_mode is not wal")
        }
        try db.execute(
            "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON",
            operation: "set the connection's pragmas")
        try migrate()
        if !existed { Self.syncDirectory(of: path) }
    }

    /// The schema version of the open file.
    public func userVersion() throws(StoreError) -> Int {
        guard let row = try db.statement("PRAGMA user_version", operation: "read the schema version").first(),
            case .integer(let v) = row.first
        else { return 0 }
        return Int(v)
    }

    private func migrate() throws(StoreError) {
        var version = try userVersion()
        while version < Schema.currentVersion {
            let target = version + 1
            try db.transaction("migrate the schema to version \(target)") { () throws(StoreError) in
                // Read again inside the write lock: another process may have migrated meanwhile.
                guard try userVersion() == version else { return }
                try db.execute(Schema.migrations[target - 1], operation: "migrate the schema to version \(target)")
                try db.execute("PRAGMA user_version = \(target)", operation: "set the schema version to \(target)")
            }
            version = try userVersion()
            guard version >= target else {
                throw .sqlite(
                    operation: "migrate the schema to version \(target)", path: path, code: SQLITE_ERROR,
                    message: "user_version is \(version) after the migration")
            }
        }
    }

    /// Makes the new file's directory entry durable (a new file's name is in its directory, which `fdatasync` of the
    /// file does not flush). The WAL's own entry SQLite syncs itself. Best effort: a failure here is not an error of
    /// the store, only a weaker guarantee for the first seconds of a new file.
    private static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        try? PlainFile.syncDirectory(directory)
    }

    // MARK: Monitors

    /// The monitor `key`'s row id, creating the monitor when `create`; `nil` when missing and not created.
    private func monitorId(_ key: MonitorKey, create: Bool) throws(StoreError) -> Int64? {
        if let id = monitorIds[key] { return id }
        let find = try db.statement("SELECT id FROM monitors WHERE client = ?1 AND name = ?2", operation: "find a monitor")
        if let row = try find.first([.text(key.client), .text(key.name)]), case .integer(let id) = row[0] {
            monitorIds[key] = id
            return id
        }
        guard create else { return nil }
        for (field, value) in [("client", key.client), ("name", key.name)]
        where value.utf8.isEmpty || value.utf8.count > Self.maximumKeyBytes {
            throw .invalid(
                operation: "create monitor \(key)", reason: "the \(field) must be 1 to \(Self.maximumKeyBytes) UTF-8 bytes")
        }
        try db.statement("INSERT INTO monitors (client, name) VALUES (?1, ?2)", operation: "create monitor \(key)")
            .run([.text(key.client), .text(key.name)])
        return try monitorId(key, create: false)
    }

    private func existingMonitorId(_ key: MonitorKey, _ operation: String) throws(StoreError) -> Int64 {
        guard let id = try monitorId(key, create: false) else {
            throw .invalid(operation: operation, reason: "there is no monitor \(key)")
        }
        return id
    }

    /// Creates the monitor `key` if it does not exist (adding a condition creates it too).
    public func createMonitor(_ key: MonitorKey) throws(StoreError) {
        _ = try db.transaction("create monitor \(key)") { () throws(StoreError) in try monitorId(key, create: true) }
    }

    /// Every monitor, by client then name.
    public func monitors() throws(StoreError) -> [MonitorKey] {
        var out: [MonitorKey] = []
        try db.statement("SELECT client, name FROM monitors ORDER BY client, name", operation: "list the monitors")
            .query { out.append(MonitorKey(client: $0.text(0), name: $0.text(1))) }
        return out
    }

    /// Removes the monitor `key` with its conditions and queued events (a `when-in-use` client's monitor ends with
    /// its connection). Returns false when there was none.
    @discardableResult
    public func removeMonitor(_ key: MonitorKey) throws(StoreError) -> Bool {
        guard let id = try monitorId(key, create: false) else { return false }
        try db.transaction("remove monitor \(key)") { () throws(StoreError) in
            try db.statement("DELETE FROM monitors WHERE id = ?1", operation: "remove monitor \(key)").run([.integer(id)])
        }
        monitorIds[key] = nil
        return true
    }

    // MARK: Conditions

    /// Adds `region` to the monitor `key` (created if missing), its state `unknown`.
    /// - Throws: `StoreError.invalid` when the monitor already has a condition with that identifier.
    public func addCondition(_ region: CircularRegion, to key: MonitorKey) throws(StoreError) {
        let operation = "add condition \(region.id) to monitor \(key)"
        let cached = monitorIds[key] != nil
        do throws(StoreError) {
            try addCondition(region, to: key, operation: operation)
        } catch {
            // A monitor created by the transaction that rolled back must not stay in the cache.
            if !cached { monitorIds[key] = nil }
            throw error
        }
    }

    private func addCondition(_ region: CircularRegion, to key: MonitorKey, operation: String) throws(StoreError) {
        try db.transaction(operation) { () throws(StoreError) in
            let monitor = try monitorId(key, create: true)!
            let exists = try db.statement(
                "SELECT 1 FROM conditions WHERE monitor_id = ?1 AND region_id = ?2", operation: operation
            ).first([.integer(monitor), .text(region.id)])
            guard exists == nil else {
                throw .invalid(operation: operation, reason: "the monitor already has it; remove it first")
            }
            try db.statement(
                "INSERT INTO conditions (monitor_id, region_id, latitude_deg, longitude_deg, radius_m) VALUES (?1, ?2, ?3, ?4, ?5)",
                operation: operation
            ).run([
                .integer(monitor), .text(region.id), .real(region.center.latitudeDeg), .real(region.center.longitudeDeg),
                .real(region.radiusM)
            ])
            try db.statement(
                "INSERT INTO condition_states (monitor_id, region_id, state) VALUES (?1, ?2, 'unknown')", operation: operation
            ).run([.integer(monitor), .text(region.id)])
        }
    }

    /// Removes the condition `id` from the monitor `key`, with its state (its queued events stay: the client is owed
    /// them). Returns false when there was no such condition.
    @discardableResult
    public func removeCondition(id: String, from key: MonitorKey) throws(StoreError) -> Bool {
        guard let monitor = try monitorId(key, create: false) else { return false }
        let operation = "remove condition \(id) from monitor \(key)"
        return try db.transaction(operation) { () throws(StoreError) in
            try db.statement("DELETE FROM conditions WHERE monitor_id = ?1 AND region_id = ?2", operation: operation)
                .run([.integer(monitor), .text(id)])
            return db.changes > 0
        }
    }

    /// The conditions of the monitor `key` with their records, by identifier; empty when there is no such monitor.
    public func conditions(of key: MonitorKey) throws(StoreError) -> [(region: CircularRegion, record: MonitorConditionRecord)] {
        guard let monitor = try monitorId(key, create: false) else { return [] }
        let operation = "list the conditions of monitor \(key)"
        var rows: [(String, Double, Double, Double, String, Double?, String?)] = []
        try db.statement(
            """
            SELECT c.region_id, c.latitude_deg, c.longitude_deg, c.radius_m, s.state, s.changed_at_s, s.location_json
            FROM conditions c JOIN condition_states s USING (monitor_id, region_id)
            WHERE c.monitor_id = ?1 ORDER BY c.region_id
            """, operation: operation
        ).query([.integer(monitor)]) { r in
            rows.append((r.text(0), r.double(1), r.double(2), r.double(3), r.text(4), r.optionalDouble(5), r.optionalText(6)))
        }
        var out: [(region: CircularRegion, record: MonitorConditionRecord)] = []
        out.reserveCapacity(rows.count)
        for (id, latitudeDeg, longitudeDeg, radiusM, stateText, changedAtS, locationJSON) in rows {
            let region: CircularRegion
            do {
                region = try CircularRegion(id: id, latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg, radiusM: radiusM)
            } catch {
                throw .notADatabase(path: path, message: "condition \(id) of monitor \(key) is invalid: \(error)")
            }
            let state = try decodeState(stateText, operation)
            var location: Location?
            if let locationJSON { location = try decodeLocation(locationJSON, operation) }
            out.append((region, MonitorConditionRecord(state: state, changedAtS: changedAtS, location: location)))
        }
        return out
    }

    // MARK: Events

    /// The id the monitor `key`'s next event will carry (1 for a new or unknown monitor).
    public func nextEventId(of key: MonitorKey) throws(StoreError) -> UInt64 {
        guard let monitor = try monitorId(key, create: false) else { return 1 }
        let row = try db.statement("SELECT next_event_id FROM monitors WHERE id = ?1", operation: "read the next event id")
            .first([.integer(monitor)])
        if case .integer(let n)? = row?.first { return UInt64(n) }
        return 1
    }

    /// The highest event id the monitor `key`'s client acknowledged (0: none, or no such monitor).
    public func acknowledgedThroughId(of key: MonitorKey) throws(StoreError) -> UInt64 {
        guard let monitor = try monitorId(key, create: false) else { return 0 }
        let row = try db.statement(
            "SELECT acknowledged_through_id FROM monitors WHERE id = ?1", operation: "read the acknowledged event id"
        ).first([.integer(monitor)])
        if case .integer(let n)? = row?.first { return UInt64(n) }
        return 0
    }

    /// Records `events` of the monitor `key` — each condition's new state, the time and the location that changed it,
    /// the event in the queue, and the monitor's next event id — in ONE transaction: all or nothing.
    /// - Throws: `StoreError.invalid` (nothing written) when an event's id is not above every id the monitor used
    ///   (ids are never reused), when the ids do not increase, or when a condition is not in the monitor.
    public func record(_ events: [MonitorEvent], of key: MonitorKey) throws(StoreError) {
        guard !events.isEmpty else { return }
        let operation = "record \(events.count) event(s) of monitor \(key)"
        try db.transaction(operation) { () throws(StoreError) in
            let monitor = try existingMonitorId(key, operation)
            var next = try nextEventId(of: key)
            for event in events {
                guard event.id >= next else {
                    throw .invalid(
                        operation: operation,
                        reason: "event id \(event.id) was already used (the next is \(next)); ids are never reused")
                }
                let json = try encodeLocation(event.location, operation)
                try db.statement(
                    """
                    UPDATE condition_states SET state = ?3, changed_at_s = ?4, location_json = ?5
                    WHERE monitor_id = ?1 AND region_id = ?2
                    """, operation: operation
                ).run([.integer(monitor), .text(event.conditionId), .text(event.state.rawValue), .real(event.timeS), .text(json)])
                guard db.changes == 1 else {
                    throw .invalid(operation: operation, reason: "monitor \(key) has no condition \(event.conditionId)")
                }
                try db.statement(
                    """
                    INSERT INTO events (monitor_id, id, region_id, state, previous_state, time_s, location_json)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                    """, operation: operation
                ).run([
                    .integer(monitor), .integer(Int64(event.id)), .text(event.conditionId), .text(event.state.rawValue),
                    .text(event.previousState.rawValue), .real(event.timeS), .text(json)
                ])
                next = event.id + 1
            }
            try db.statement("UPDATE monitors SET next_event_id = ?2 WHERE id = ?1", operation: operation)
                .run([.integer(monitor), .integer(Int64(next))])
        }
    }

    /// Evaluates `location` with `monitor` (the monitor `key`'s) and records its events before returning them, so that
    /// an event is returned — and delivered — only once it is on the disk. When recording fails, `monitor` is rebuilt
    /// from the store (the events it made are dropped with the states they changed: the next fix decides again) and
    /// the error is thrown.
    public func evaluate(_ location: Location, with monitor: inout RegionMonitor, of key: MonitorKey) throws(StoreError)
        -> [MonitorEvent]
    {
        var events: [MonitorEvent] = []
        monitor.evaluate(location) { events.append($0) }
        do throws(StoreError) {
            try record(events, of: key)
        } catch {
            monitor = try restoreMonitor(key, parameters: monitor.parameters)
            throw error
        }
        return events
    }

    /// The events of the monitor `key` not yet acknowledged, in id order, with their original times; empty when there is
    /// no such monitor.
    public func pendingEvents(of key: MonitorKey) throws(StoreError) -> [MonitorEvent] {
        guard let monitor = try monitorId(key, create: false) else { return [] }
        let operation = "read the pending events of monitor \(key)"
        var rows: [(Int64, String, String, String, Double, String)] = []
        try db.statement(
            """
            SELECT id, region_id, state, previous_state, time_s, location_json FROM events
            WHERE monitor_id = ?1 ORDER BY id
            """, operation: operation
        ).query([.integer(monitor)]) { r in
            rows.append((r.int64(0), r.text(1), r.text(2), r.text(3), r.double(4), r.text(5)))
        }
        var out: [MonitorEvent] = []
        out.reserveCapacity(rows.count)
        for (id, conditionId, state, previous, timeS, json) in rows {
            out.append(
                MonitorEvent(
                    id: UInt64(id), conditionId: conditionId, state: try decodeState(state, operation),
                    previousState: try decodeState(previous, operation), timeS: timeS,
                    location: try decodeLocation(json, operation)))
        }
        return out
    }

    /// Acknowledges every event of the monitor `key` up to and including `id`: they leave the queue. Idempotent.
    /// - Throws: `StoreError.invalid` when there is no such monitor.
    @discardableResult
    public func acknowledge(through id: UInt64, of key: MonitorKey) throws(StoreError) -> Acknowledgement {
        let operation = "acknowledge events through \(id) of monitor \(key)"
        return try db.transaction(operation) { () throws(StoreError) -> Acknowledgement in
            let monitor = try existingMonitorId(key, operation)
            let next = try nextEventId(of: key)
            guard id < next else { return .unknownEvent(id: id, lastEventId: next - 1) }
            try db.statement("DELETE FROM events WHERE monitor_id = ?1 AND id <= ?2", operation: operation)
                .run([.integer(monitor), .integer(Int64(id))])
            let count = db.changes
            try db.statement(
                "UPDATE monitors SET acknowledged_through_id = max(acknowledged_through_id, ?2) WHERE id = ?1",
                operation: operation
            ).run([.integer(monitor), .integer(Int64(id))])
            return count > 0 ? .acknowledged(count: count, throughId: id) : .alreadyAcknowledged(throughId: id)
        }
    }

    /// A `RegionMonitor` holding the monitor `key`'s conditions with their persisted states, whose next event carries
    /// the persisted next id: after a restart it continues where the previous process stopped.
    public func restoreMonitor(_ key: MonitorKey, parameters: RegionMonitor.Parameters = .default) throws(StoreError)
        -> RegionMonitor
    {
        var monitor = RegionMonitor(parameters: parameters, firstEventId: try nextEventId(of: key))
        for (region, record) in try conditions(of: key) {
            do { try monitor.add(region, record: record) } catch {
                throw .notADatabase(path: path, message: "monitor \(key): \(error)")
            }
        }
        return monitor
    }

    // MARK: Coding

    private func decodeState(_ text: String, _ operation: String) throws(StoreError) -> MonitorConditionState {
        guard let state = MonitorConditionState(rawValue: text) else {
            throw .notADatabase(path: path, message: "\(operation): unknown state \"\(text)\"")
        }
        return state
    }

    private func encodeLocation(_ location: Location, _ operation: String) throws(StoreError) -> String {
        do { return String(decoding: try encoder.encode(location), as: UTF8.self) } catch {
            throw .invalid(operation: operation, reason: "the location cannot be stored: \(error)")
        }
    }

    private func decodeLocation(_ json: String, _ operation: String) throws(StoreError) -> Location {
        do { return try decoder.decode(Location.self, from: Data(json.utf8)) } catch {
            throw .notADatabase(path: path, message: "\(operation): a stored location is not readable: \(error)")
        }
    }
}
