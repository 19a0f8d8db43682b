import CSQLite

/// Why the store failed: the operation it was doing, the file, and SQLite's own result code and message.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// SQLite refused `operation` on the database at `path` with `code` (its primary or extended result code) and
    /// `message` (`sqlite3_errmsg`).
    case sqlite(operation: String, path: String, code: Int32, message: String)
    /// The file at `path` is not an SQLite database, or is one whose pages are damaged (`SQLITE_NOTADB`,
    /// `SQLITE_CORRUPT`, or `PRAGMA quick_check` found a problem). The file is left exactly as it was.
    case notADatabase(path: String, message: String)
    /// The database at `path` was written by a newer Lodestone (schema `foundVersion`; this build knows up to
    /// `supportedVersion`). It is left as it was.
    case newerSchema(path: String, foundVersion: Int, supportedVersion: Int)
    /// The request itself is wrong (what, and why); nothing was written.
    case invalid(operation: String, reason: String)

    public var description: String {
        switch self {
        case .sqlite(let operation, let path, let code, let message):
            "\(path): \(operation) failed: \(message) (SQLite error \(code))"
        case .notADatabase(let path, let message):
            "\(path) is not a usable SQLite database (\(message)); it was left untouched — move it aside to start "
                + "a new store, or restore it from a backup"
        case .newerSchema(let path, let found, let supported):
            "\(path) has schema version \(found), newer than this Lodestone knows (\(supported)); it was left "
                + "untouched — run the newer Lodestone, or move the file aside"
        case .invalid(let operation, let reason): "\(operation): \(reason)"
        }
    }
}

/// One SQLite connection: the only place that calls SQLite's C API. Statements are prepared once per SQL text and
/// reused (`statement(_:)`); every failure becomes a `StoreError` naming the operation and carrying SQLite's message.
///
/// Not `Sendable`: a connection belongs to the one task that owns its store (SQLite's connection is not used from two
/// threads at once; Debian builds SQLite serialized anyway, but the store's transactions assume a single writer).
final class SQLiteConnection {
    let path: String
    private let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    /// Opens (creating when `create`) the database at `path`. Opening does not read the file: `validate` does.
    init(path: String, create: Bool) throws(StoreError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw .sqlite(operation: "open", path: path, code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Wait up to 5 s for a lock another process holds (a second `lodestone` reading the store) instead of failing.
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit {
        for statement in statements.values { statement.finalize() }
        sqlite3_close_v2(handle)
    }

    /// The error for result `code` of `operation`; damaged or foreign files get their own case.
    func error(_ operation: String, _ code: Int32) -> StoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        let primary = code & 0xFF
        if primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT {
            return .notADatabase(path: path, message: message)
        }
        return .sqlite(operation: operation, path: path, code: code, message: message)
    }

    /// Runs `sql` (one or more statements, no parameters, no rows wanted) for `operation`.
    func execute(_ sql: String, operation: String) throws(StoreError) {
        var messagePointer: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &messagePointer)
        if let messagePointer { sqlite3_free(messagePointer) }
        guard rc == SQLITE_OK else { throw error(operation, rc) }
    }

    /// The prepared statement for `sql`, prepared at its first use and kept for the connection's life.
    func statement(_ sql: String, operation: String) throws(StoreError) -> Statement {
        if let s = statements[sql] { return s }
        var pointer: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard rc == SQLITE_OK, let pointer else { throw error(operation, rc) }
        let s = Statement(pointer, connection: self, operation: operation)
        statements[sql] = s
        return s
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE` … `COMMIT`): all of it is written or none. A throw rolls back.
    func transaction<T>(_ operation: String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try statement("BEGIN IMMEDIATE", operation: operation).run()
        do throws(StoreError) {
            let value = try body()
            try statement("COMMIT", operation: operation).run()
            return value
        } catch {
            // After some errors SQLite has already rolled back; then ROLLBACK fails, harmlessly.
            if sqlite3_get_autocommit(handle) == 0 { _ = try? statement("ROLLBACK", operation: operation).run() }
            throw error
        }
    }

    /// The rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A prepared statement, reused: each use binds, steps and resets it.
final class Statement {
    private let pointer: OpaquePointer
    private unowned let connection: SQLiteConnection
    private let operation: String

    init(_ pointer: OpaquePointer, connection: SQLiteConnection, operation: String) {
        self.pointer = pointer; self.connection = connection; self.operation = operation
    }

    func finalize() { sqlite3_finalize(pointer) }

    /// A value bound to a parameter or read from a column.
    enum Value: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
    }

    private func bind(_ values: [Value]) throws(StoreError) {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
        for (i, value) in values.enumerated() {
            let at = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(pointer, at)
            case .integer(let v): rc = sqlite3_bind_int64(pointer, at, v)
            case .real(let v): rc = sqlite3_bind_double(pointer, at, v)
            case .text(let v): rc = sqlite3_bind_text(pointer, at, v, -1, lodestone_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw connection.error(operation, rc) }
        }
    }

    /// Runs the statement with `values` bound, expecting no rows.
    func run(_ values: [Value] = []) throws(StoreError) {
        try bind(values)
        defer { sqlite3_reset(pointer) }
        let rc = sqlite3_step(pointer)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw connection.error(operation, rc) }
    }

    /// Runs the statement with `values` bound and calls `row` with each result row.
    func query(_ values: [Value] = [], row: (Row) throws(StoreError) -> Void) throws(StoreError) {
        try bind(values)
        defer { sqlite3_reset(pointer) }
        while true {
            let rc = sqlite3_step(pointer)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw connection.error(operation, rc) }
            try row(Row(pointer: pointer))
        }
    }

    /// The first row's values, or `nil` when there is none.
    func first(_ values: [Value] = []) throws(StoreError) -> [Value]? {
        var out: [Value]?
        try query(values) { (r: Row) throws(StoreError) in
            if out == nil { out = (0..<r.count).map { r[$0] } }
        }
        return out
    }
}

/// One result row, valid inside `Statement.query`'s closure only.
struct Row {
    fileprivate let pointer: OpaquePointer

    var count: Int { Int(sqlite3_column_count(pointer)) }

    subscript(_ column: Int) -> Statement.Value {
        let c = Int32(column)
        switch sqlite3_column_type(pointer, c) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(pointer, c))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(pointer, c))
        case SQLITE_NULL: return .null
        default:
            guard let text = sqlite3_column_text(pointer, c) else { return .null }
            return .text(String(cString: text))
        }
    }

    func int64(_ column: Int) -> Int64 { sqlite3_column_int64(pointer, Int32(column)) }
    func double(_ column: Int) -> Double { sqlite3_column_double(pointer, Int32(column)) }
    func optionalDouble(_ column: Int) -> Double? {
        sqlite3_column_type(pointer, Int32(column)) == SQLITE_NULL ? nil : double(column)
    }
    func text(_ column: Int) -> String {
        sqlite3_column_text(pointer, Int32(column)).map { String(cString: $0) } ?? ""
    }
    func optionalText(_ column: Int) -> String? {
        sqlite3_column_text(pointer, Int32(column)).map { String(cString: $0) }
    }
}
