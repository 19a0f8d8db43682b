#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCore
import LodestoneSockets
import Logging

/// The daemon's swift-log handler: one line per record on standard error, in the form journald wants when systemd
/// connected standard error to the journal, and with a timestamp otherwise.
///
/// - ``Format/journal``: `<6>lodestone.gpsd: client connected peer=127.0.0.1:40112`. The `<N>` prefix is the syslog
///   priority (`sd-daemon(3)`: trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2), which journald
///   strips and stores as `PRIORITY=`; no timestamp, since journald adds its own.
/// - ``Format/console``: `2025-05-20T07:51:13.123Z info lodestone.gpsd: client connected peer=127.0.0.1:40112`.
///
/// Metadata follows the message as `key=value`, sorted by key; a value with spaces, quotes, `=` or control characters
/// is quoted with escapes. Newlines in a message are written as `\n`, so that one record stays one journal entry.
/// `LoggingSystem.bootstrap` may run once per process: tests construct the handler directly, with their own output.
public struct JournalLogHandler: LogHandler {
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

    /// The logger's label (`lodestone.server`, `lodestone.gpsd`, …), written before the message.
    public let label: String
    /// The line format.
    public let format: Format
    /// Records below this level are not written (swift-log checks it before calling ``log(event:)``).
    public var logLevel: Logger.Level
    /// Metadata of every record of this handler.
    public var metadata: Logger.Metadata = [:]
    /// Metadata added from the task context at each record.
    public var metadataProvider: Logger.MetadataProvider?
    private let now: @Sendable () -> Double
    private let output: @Sendable (String) -> Void

    /// Creates a handler.
    /// - Parameters:
    ///   - label: the logger's label.
    ///   - format: the line format (default: ``Format/detect(environment:)``).
    ///   - logLevel: the lowest level written (default `.info`).
    ///   - metadataProvider: task-context metadata, if any.
    ///   - now: the wall clock for ``Format/console`` timestamps, seconds since 1970-01-01 UTC (tests pass a fixed one).
    ///   - output: receives each line, with its newline (default: standard error, one `write(2)` a line).
    public init(
        label: String, format: Format = .detect(), logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        output: @escaping @Sendable (String) -> Void = { SystemdJournalStream.write(Array($0.utf8)) }
    ) {
        self.label = label
        self.format = format
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
        self.now = now
        self.output = output
    }

    /// Bootstraps swift-log with this handler for every logger of the process (call once, at startup: swift-log traps on
    /// a second bootstrap). The format is detected once, here.
    /// - Parameters:
    ///   - logLevel: the lowest level written.
    ///   - environment: the variables to detect the format from instead of the process's.
    public static func bootstrap(logLevel: Logger.Level = .info, environment: [String: String]? = nil) {
        let format = Format.detect(environment: environment)
        LoggingSystem.bootstrap { label in JournalLogHandler(label: label, format: format, logLevel: logLevel) }
    }

    /// Metadata of this handler by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line for the record.
    public func log(event: LogEvent) {
        output(line(for: event))
    }

    /// The line ``log(event:)`` writes, with its newline.
    public func line(for event: LogEvent) -> String {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        var text: String
        switch format {
        case .journal: text = "<\(Self.syslogPriority(event.level))>"
        case .console: text = Self.isoTimestamp(unixS: now()) + " " + event.level.rawValue + " "
        }
        text += label + ": " + Self.escapedMessage(event.message.description)
        for key in merged.keys.sorted() {
            text += " " + key + "=" + Self.quoted(Self.flattened(merged[key]!))
        }
        if let error = event.error { text += " error=" + Self.quoted(String(describing: error)) }
        return text + "\n"
    }

    /// The syslog priority of a level (`<N>` prefix, `PRIORITY=` in the journal): trace and debug 7 (debug),
    /// info 6, notice 5, warning 4, error 3, critical 2 (crit).
    public static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
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

    private static func flattened(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): "[" + values.map(flattened).joined(separator: ",") + "]"
        case .dictionary(let values):
            "{" + values.keys.sorted().map { "\($0):\(flattened(values[$0]!))" }.joined(separator: ",") + "}"
        }
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
