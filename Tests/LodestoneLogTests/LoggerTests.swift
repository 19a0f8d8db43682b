import Glibc
import LodestoneLog
import LodestoneSockets
import Synchronization
import Testing

/// Collects the lines a logger writes.
private final class LineSink: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// 2025-05-20T07:51:13.123Z.
private let fixedUnixS = 1_747_727_473.123

private func logger(_ sink: LineSink, format: Logger.Format, level: Logger.Level = .trace) -> Logger {
    Logger(label: "lodestone.gpsd", format: format, logLevel: level, now: { fixedUnixS }, output: sink.append)
}

@Suite("journald-friendly logging (Logger)")
struct LoggerTests {
    @Test(
        "Under journald: the syslog priority prefix and no timestamp",
        arguments: [
            (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2)
        ])
    func journalFormat(level: Logger.Level, priority: Int) {
        let sink = LineSink()
        logger(sink, format: .journal).log(level: level, "client connected", metadata: ["peer": "127.0.0.1:40112"])
        #expect(sink.all == ["<\(priority)>lodestone.gpsd: client connected peer=127.0.0.1:40112\n"])
        #expect(level.syslogPriority == priority)
    }

    @Test("On a terminal or a file: an ISO 8601 UTC timestamp and the level word")
    func consoleFormat() {
        let sink = LineSink()
        let log = logger(sink, format: .console)
        log.info("client connected", metadata: ["peer": "127.0.0.1:40112"])
        log.warning("engine late", metadata: ["lateMs": "12"])
        #expect(
            sink.all == [
                "2025-05-20T07:51:13.123Z info lodestone.gpsd: client connected peer=127.0.0.1:40112\n",
                "2025-05-20T07:51:13.123Z warning lodestone.gpsd: engine late lateMs=12\n"
            ])
    }

    @Test(
        "Timestamps: UTC, milliseconds truncated, leap days, before 1970",
        arguments: [
            (1_747_727_473.123, "2025-05-20T07:51:13.123Z"), (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400.999_9, "2000-02-29T00:00:00.999Z"), (-1.5, "1969-12-31T23:59:58.500Z")
        ])
    func timestamps(unixS: Double, expected: String) {
        #expect(Logger.isoTimestamp(unixS: unixS) == expected)
    }

    @Test("Metadata: the logger's, then the message's (which wins), sorted by key; awkward values quoted")
    func metadata() {
        let sink = LineSink()
        var log = logger(sink, format: .journal)
        log[metadataKey: "session"] = "7"
        log[metadataKey: "peer"] = "unix"
        log.notice(
            "policy \"reloaded\"\nfrom disk",
            metadata: ["peer": "uid 1000", "rules": "a,b", "empty": "", "path": "/etc/lodestone/policy.toml"])
        #expect(
            sink.all == [
                #"<5>lodestone.gpsd: policy "reloaded"\nfrom disk empty="" path=/etc/lodestone/policy.toml peer="uid 1000" rules=a,b session=7"#
                    + "\n"
            ])
    }

    @Test("One message is one line: newlines in values are escaped too")
    func oneLinePerRecord() {
        let sink = LineSink()
        logger(sink, format: .journal).error("bad board file", metadata: ["detail": "line 1\nline 2\ttab"])
        #expect(sink.all == [#"<3>lodestone.gpsd: bad board file detail="line 1\nline 2\ttab""# + "\n"])
        #expect(sink.all.allSatisfy { $0.filter { $0 == "\n" }.count == 1 })
    }

    @Test("Messages below the logger's level are neither written nor built")
    func levelFilter() {
        let sink = LineSink()
        var log = logger(sink, format: .journal, level: .notice)
        let built = LineSink()
        func message(_ text: String) -> String {
            built.append(text)
            return text
        }
        log.trace(message("hidden"))
        log.debug(message("hidden"))
        log.info(message("hidden"))
        log.notice(message("shown"))
        log.critical(message("shown too"))
        #expect(sink.all == ["<5>lodestone.gpsd: shown\n", "<2>lodestone.gpsd: shown too\n"])
        #expect(built.all == ["shown", "shown too"])
        log.logLevel = .trace
        log.trace("now shown")
        #expect(sink.all.last == "<7>lodestone.gpsd: now shown\n")
    }

    @Test("Levels order from trace to critical")
    func levelOrder() {
        let ordered: [Logger.Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]
        #expect(Logger.Level.allCases == ordered)
        for (i, lower) in ordered.enumerated() {
            for higher in ordered[(i + 1)...] { #expect(lower < higher && !(higher < lower)) }
        }
    }

    @Test("The default clock reads the real time")
    func realtimeClock() {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        #expect(abs(Logger.realtimeClockS() - Double(t.tv_sec)) < 5)
    }

    @Test("JOURNAL_STREAM selects the journal format only when it names this process's standard error")
    func detectsJournalStream() throws {
        let stderrIdentity = try #require(SystemdJournalStream.identity(of: 2))
        let matching = "\(stderrIdentity.device):\(stderrIdentity.inode)"
        #expect(Logger.Format.detect(environment: ["JOURNAL_STREAM": matching]) == .journal)
        #expect(
            Logger.Format.detect(environment: [
                "JOURNAL_STREAM": "\(stderrIdentity.device):\(stderrIdentity.inode + 1)"
            ]) == .console)
        #expect(Logger.Format.detect(environment: ["JOURNAL_STREAM": "garbage"]) == .console)
        #expect(Logger.Format.detect(environment: [:]) == .console)
    }

    @Test(
        "JOURNAL_STREAM is DEVICE:INODE in decimal",
        arguments: [
            ("8:123456", SystemdJournalStream.Identity(device: 8, inode: 123_456)), ("0:0", .init(device: 0, inode: 0)),
            ("8", nil), ("8:", nil), (":5", nil), ("a:b", nil), ("1:2:3", nil), ("", nil)
        ] as [(String, SystemdJournalStream.Identity?)])
    func parsesJournalStream(value: String, expected: SystemdJournalStream.Identity?) {
        #expect(SystemdJournalStream.Identity(journalStream: value) == expected)
    }

    @Test("The standard-error writer writes whole lines to a descriptor and reports a closed one")
    func writesToDescriptor() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        #expect(SystemdJournalStream.write(Array("<6>hello\n".utf8), to: ends[1]))
        close(ends[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(ends[0], &buffer, buffer.count)
        #expect(String(decoding: buffer[0..<max(n, 0)], as: UTF8.self) == "<6>hello\n")
        #expect(!SystemdJournalStream.write(Array("lost\n".utf8), to: ends[1]))
    }
}
