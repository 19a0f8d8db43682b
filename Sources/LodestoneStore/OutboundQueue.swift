import CSQLite

/// The fleet's outbound queue (issue 20): every MQTT message a board publishes goes here first and leaves only when
/// the broker has acknowledged it (PUBACK), so that nothing is lost while the link is down or the daemon is killed.
///
/// **Order.** Each message gets the next sequence number (1, 2, …, never reused, kept across restarts) when appended;
/// `pending(after:limit:)` returns them in that order, and the publisher sends them in that order.
///
/// **Bound.** At most `capacity` messages are held: appending one more deletes the oldest, and `dropped` counts every
/// message deleted that way (kept in the file, so the count survives restarts).
///
/// **Durability.** The file is in WAL mode with `synchronous=FULL`, as the monitors' store: each append is one
/// transaction whose commit is fsync'd before `append` returns, so a message appended survives the process's SIGKILL
/// and the board's power loss. Why SQLite rather than an append-only file of our own: acknowledgement deletes from the
/// head and the bound deletes from the head too, while appends go to the tail — SQLite gives that with a crash-safe
/// journal and no compaction code of ours; at the fleet's rates (a message every few seconds) one fsync per message is
/// cheap (measured in benchmarks/fleet/results.md).
///
/// Not `Sendable`: it belongs to the one actor that publishes (`FleetPublisher`).
public final class OutboundQueue {
    /// One queued message.
    public struct Entry: Sendable, Hashable {
        /// Its sequence number (1, 2, …; also in the payload's `seq`).
        public var seq: Int64
        public var topic: String
        public var payload: String
        /// Published with the MQTT retain flag.
        public var retain: Bool
    }

    /// The most messages held; appending beyond deletes the oldest.
    public let capacity: Int
    public let path: String
    private let db: SQLiteConnection

    /// Opens (creating) the queue at `path`.
    /// - Parameter capacity: the most messages held (≥ 1).
    /// - Throws: `StoreError` naming the file (not a database, not writable).
    public init(path: String, capacity: Int) throws(StoreError) {
        guard capacity >= 1 else { throw .invalid(operation: "open the outbound queue", reason: "capacity must be at least 1") }
        self.path = path; self.capacity = capacity
        db = try SQLiteConnection(path: path, create: true)
        guard let mode = try db.statement("PRAGMA journal_mode = WAL", operation: "enter WAL mode").first(),
            mode.first == .text("wal")
        else {
            throw .sqlite(operation: "enter WAL mode", path: path, code: SQLITE_ERROR, message: "journal_mode is not wal")
        }
        try db.execute(
            """
            PRAGMA synchronous = FULL;
            CREATE TABLE IF NOT EXISTS outbound (
                seq INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload TEXT NOT NULL, retain INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
            INSERT OR IGNORE INTO counters VALUES ('next_seq', 1), ('dropped', 0);
            CREATE TABLE IF NOT EXISTS fleet_state (name TEXT PRIMARY KEY, value TEXT NOT NULL);
            """, operation: "create the outbound queue")
    }

    /// The fleet link's state kept beside the queue, by name (e.g. the fleet's accepted commands), or `nil` when none
    /// was stored. Stored with the same durability as a message: one fsync'd transaction.
    public func state(_ name: String) throws(StoreError) -> String? {
        guard
            case .text(let v) = try db.statement(
                "SELECT value FROM fleet_state WHERE name = ?", operation: "read the fleet state"
            )
            .first([.text(name)])?.first
        else { return nil }
        return v
    }

    /// Stores (`nil`: deletes) the state `name`; committed and fsync'd before it returns.
    public func setState(_ name: String, _ value: String?) throws(StoreError) {
        if let value {
            try db.statement(
                "INSERT INTO fleet_state VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                operation: "write the fleet state"
            ).run([.text(name), .text(value)])
        } else {
            try db.statement("DELETE FROM fleet_state WHERE name = ?", operation: "delete the fleet state").run([.text(name)])
        }
    }

    /// Appends one message whose payload `payload(seq)` makes from its sequence number; deletes the oldest when the queue
    /// is full. Returns the sequence number and how many were dropped by this append (0 or more).
    @discardableResult
    public func append(topic: String, retain: Bool = false, payload: (Int64) -> String) throws(StoreError) -> (
        seq: Int64, dropped: Int
    ) {
        try db.transaction("append to the outbound queue") { () throws(StoreError) -> (seq: Int64, dropped: Int) in
            let seq = try counter("next_seq")
            try db.statement("INSERT INTO outbound VALUES (?, ?, ?, ?)", operation: "append to the outbound queue").run([
                .integer(seq), .text(topic), .text(payload(seq)), .integer(retain ? 1 : 0)
            ])
            try setCounter("next_seq", seq + 1)
            let count = try db.statement("SELECT count(*) FROM outbound", operation: "count the outbound queue").first()
            var dropped = 0
            if case .integer(let n) = count?.first, n > Int64(capacity) {
                dropped = Int(n) - capacity
                try db.statement(
                    "DELETE FROM outbound WHERE seq IN (SELECT seq FROM outbound ORDER BY seq LIMIT ?)",
                    operation: "drop the oldest queued messages"
                ).run([.integer(Int64(dropped))])
                try setCounter("dropped", try counter("dropped") + Int64(dropped))
            }
            return (seq, dropped)
        }
    }

    /// Up to `limit` messages with a sequence number above `after`, oldest first.
    public func pending(after: Int64 = 0, limit: Int) throws(StoreError) -> [Entry] {
        var out: [Entry] = []
        try db.statement(
            "SELECT seq, topic, payload, retain FROM outbound WHERE seq > ? ORDER BY seq LIMIT ?",
            operation: "read the outbound queue"
        ).query([.integer(after), .integer(Int64(limit))]) { (r: Row) throws(StoreError) in
            out.append(Entry(seq: r.int64(0), topic: r.text(1), payload: r.text(2), retain: r.int64(3) != 0))
        }
        return out
    }

    /// Removes message `seq` (the broker acknowledged it). Removing one already gone (dropped) does nothing.
    public func remove(_ seq: Int64) throws(StoreError) {
        try db.statement("DELETE FROM outbound WHERE seq = ?", operation: "remove an acknowledged message").run([.integer(seq)])
    }

    /// Messages held now.
    public func count() throws(StoreError) -> Int {
        guard
            case .integer(let n) = try db.statement("SELECT count(*) FROM outbound", operation: "count the outbound queue")
                .first()?.first
        else { return 0 }
        return Int(n)
    }

    /// The sequence number of the newest message ever appended (0: none yet).
    public func lastSequence() throws(StoreError) -> Int64 { try counter("next_seq") - 1 }

    /// Messages dropped (oldest first, the queue being full) since the file was made.
    public func dropped() throws(StoreError) -> Int { Int(try counter("dropped")) }

    private func counter(_ name: String) throws(StoreError) -> Int64 {
        guard
            case .integer(let v) = try db.statement("SELECT value FROM counters WHERE name = ?", operation: "read a counter")
                .first([.text(name)])?.first
        else { throw .invalid(operation: "read the outbound queue's counter \(name)", reason: "missing") }
        return v
    }

    private func setCounter(_ name: String, _ value: Int64) throws(StoreError) {
        try db.statement("UPDATE counters SET value = ? WHERE name = ?", operation: "write a counter").run([
            .integer(value), .text(name)
        ])
    }
}
