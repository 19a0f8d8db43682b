#if canImport(Glibc)
    import Glibc
#endif
import LodestoneCore
import LodestoneSockets

/// The daemon's logger (issue 15; in house since issue 19, in place of swift-log): one line per message on standard
/// error, in the form journald wants when systemd connected standard error to the journal, and with a timestamp
/// otherwise. A value: copy it, change its level or metadata, hand it on; there is no process-wide logging system.
///
/// - ``Format/journal``: `<6>lodestone.gpsd: client connected peer=127.0.0.1:40112`. The `<N>` prefix is the syslog
///   priority (`sd-daemon(3)`: trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2), which journald
///   strips and stores as `PRIORITY=`; no timestamp, since journald adds its own.
/// - ``Format/console``: `2025-05-20T07:51:13.123Z info lodestone.gpsd: client connected peer=127.0.0.1:40112`.
///
/// Metadata follows the message as `key=value`, sorted by key; a value with spaces, quotes, `=` or control characters
/// is quoted with escapes. Newlines in a message are written as `\n`, so that one message stays one journal entry.
public struct Logger: Sendable {
    /// A message's severity, lowest first.
    public enum Level: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Step-by-step detail (syslog priority 7, like debug).
        case trace
        /// Diagnostics for developers (priority 7).
        case debug
        /// Normal operation worth a line: a client connected (priority 6).
        case info
        /// Normal but significant: started, stopping, policy reloaded (priority 5).
        case notice
        /// Something is off but the daemon carries on (priority 4).
        case warning
        /// An operation failed (priority 3).
        case error
        /// The daemon cannot go on (priority 2).
        case critical

        /// The syslog priority (`<N>` prefix, `PRIORITY=` in the journal): trace and debug 7 (debug), info 6, notice 5,
        /// warning 4, error 3, critical 2 (crit).
        public var syslogPriority: Int {
            switch self {
            case .trace, .debug: 7
            case .info: 6
            case .notice: 5
            case .warning: 4
            case .error: 3
            case .critical: 2
            }
        }

        /// Whether `lhs` is less severe than `rhs` (trace < debug < … < critical).
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.severity < rhs.severity }

        private var severity: Int {
            switch self {
            case .trace: 0
            case .debug: 1
            case .info: 2
            case .notice: 3
            case .warning: 4
            case .error: 5
            case .critical: 6
            }
        }
    }

    /// How lines are written.
    public enum Format: Sendable, Hashable {
        /// `<N>` syslog priority prefix, no timestamp (standard error is the journal stream).
        case journal
        /// ISO 8601 UTC timestamp with milliseconds and the level word.
        case console

        /// ``journal`` when `JOURNAL_STREAM` names this process's standard error (see
        /// `SystemdJournalStream.standardErrorIsJournal`), else ``console``.
        /// - Parameter environment: the variables to use instead of the process's (`JOURNAL_STREAM`).
        public static func detect(environment: [String: String]? = nil) -> Format {
            SystemdJournalStream.standardErrorIsJournal(environment: environment) ? .journal : .console
        }
    }

    /// The label (`lodestone`, `lodestone.gpsd`, …), written before the message.
    public let label: String
    /// The line format.
    public let format: Format
    /// Messages below this level are not written (nor built: the message is an autoclosure).
    public var logLevel: Level
    /// `key=value` pairs written after every message of this logger (a message's own win on the same key).
    public var metadata: [String: String] = [:]
    private let now: @Sendable () -> Double
    private let output: @Sendable (String) -> Void

    /// Creates a logger.
    /// - Parameters:
    ///   - label: written before each message.
    ///   - format: the line format (default: ``Format/detect(environment:)``, once, here).
    ///   - logLevel: the lowest level written (default `.info`).
    ///   - now: the wall clock for ``Format/console`` timestamps, seconds since 1970-01-01 UTC (tests pass a fixed one).
    ///   - output: receives each line, with its newline (default: standard error, one `write(2)` a line; tests pass a
    ///     collector).
    public init(
        label: String, format: Format = .detect(), logLevel: Level = .info,
        now: @escaping @Sendable () -> Double = { Logger.realtimeClockS() },
        output: @escaping @Sendable (String) -> Void = { SystemdJournalStream.write(Array($0.utf8)) }
    ) {
        self.label = label
        self.format = format
        self.logLevel = logLevel
        self.now = now
        self.output = output
    }

    /// Metadata of this logger by key.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line for the message when `level` is at least ``logLevel``.
    /// - Parameters:
    ///   - metadata: this message's `key=value` pairs (they win over the logger's on the same key).
    public func log(level: Level, _ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        guard level >= logLevel else { return }
        output(line(level: level, message: message(), metadata: metadata()))
    }

    /// ``log(level:_:metadata:)`` at ``Level/trace``.
    public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(level: .trace, message(), metadata: metadata())
    }
    /// ``log(level:_:metadata:)`` at ``Level/debug``.
    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(level: .debug, message(), metadata: metadata())
    }
    /// ``log(level:_:metadata:)`` at ``Level/info``.
    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(level: .info, message(), metadata: metadata())
    }
    /// ``log(level:_:metadata:)`` at ``Level/notice``.
    public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(level: .notice, message(), metadata: metadata())
    }
    /// ``log(level:_:metadata:)`` at ``Level/warning``.
    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(level: .warning, message(), metadata: metadata())
    }
    /// ``log(level:_:metadata:)`` at ``Level/error``.
    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(level: .error, message(), metadata: metadata())
    }
    /// ``log(level:_:metadata:)`` at ``Level/critical``.
    public func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:]) {
        log(level: .critical, message(), metadata: metadata())
    }

    /// The line ``log(level:_:metadata:)`` writes, with its newline (whatever ``logLevel`` is).
    public func line(level: Level, message: String, metadata own: [String: String] = [:]) -> String {
        let merged = metadata.merging(own) { _, new in new }
        var text: String
        switch format {
        case .journal: text = "<\(level.syslogPriority)>"
        case .console: text = Self.isoTimestamp(unixS: now()) + " " + level.rawValue + " "
        }
        text += label + ": " + Self.escapedMessage(message)
        for key in merged.keys.sorted() {
            text += " " + key + "=" + Self.quoted(merged[key]!)
        }
        return text + "\n"
    }

    /// `2025-05-20T07:51:13.123Z` (UTC, milliseconds, truncated) of `unixS` seconds since 1970-01-01 (negative: before).
    public static func isoTimestamp(unixS: Double) -> String {
        // Through whole microseconds first, so that 1747727473.123 (1747727473.12299990…) reads .123, not .122.
        let microseconds = Int64((unixS * 1_000_000).rounded())
        let milliseconds = microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000
        let wholeS = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let c = UTCCalendar.civil(unixS: wholeS)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
            + ".\(pad(Int(milliseconds - wholeS * 1000), 3))Z"
    }

    /// Seconds since 1970-01-01T00:00:00Z now (`clock_gettime(CLOCK_REALTIME)`): the default clock of the timestamps.
    public static func realtimeClockS() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    private static func escapedMessage(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) else { return text }
        // By scalar: "\r\n" is one Character, which a Character-wise replacement would not see.
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": escaped += "\\r"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The value as is when it has no spaces, quotes, `=` or control characters; else in double quotes with `\"`,
    /// `\\`, `\n`, `\r`, `\t` escapes.
    private static func quoted(_ text: String) -> String {
        let needsQuotes = text.isEmpty || text.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.value < 0x20 }
        guard needsQuotes else { return text }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
