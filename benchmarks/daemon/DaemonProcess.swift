import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The `lodestone serve` under test: a child process started with `posix_spawn`, its standard output and error in a
/// log file, its CPU time and memory read from `/proc/PID`.
final class DaemonProcess {
    let pid: pid_t
    let logPath: String
    /// What the daemon has logged so far (`readLog()` appends).
    private(set) var log = ""
    private var logOffset = 0
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`; standard input is /dev/null, output and error go to `logPath`.
    /// - Throws: `HarnessError` naming the executable and errno.
    init(executable: String, arguments: [String], logPath: String) throws(HarnessError) {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child = pid_t()
        let rc = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard rc == 0 else { throw HarnessError("cannot start \(executable): errno \(rc)") }
        pid = child
    }

    /// Reads what the daemon logged since the last call and returns it.
    @discardableResult
    func readLog() -> String {
        let fd = open(logPath, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(logOffset + bytes.count)) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        // Only whole lines: the daemon may be in the middle of one.
        guard let lastNewline = bytes.lastIndex(of: 10) else { return "" }
        let text = String(decoding: bytes[...lastNewline], as: UTF8.self)
        logOffset += lastNewline + 1
        log += text
        return text
    }

    /// The first logged line containing `marker`, waiting up to `timeoutS` for it; `nil` when it did not come or the
    /// daemon ended.
    func waitForLine(containing marker: String, timeoutS: Double) -> String? {
        let deadline = Clock.nowS() + timeoutS
        while true {
            readLog()
            if let line = log.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
            if !isRunning || Clock.nowS() > deadline { return nil }
            Clock.sleep(seconds: 0.05)
        }
    }

    /// True until the child has ended (reaps it).
    var isRunning: Bool {
        if exitStatus != nil { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        return true
    }

    /// CPU time the daemon has used so far, user + system, s (`/proc/PID/stat` fields 14 and 15).
    func cpuTimeS() -> Double? {
        guard let stat = readProcFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        // After the command's closing parenthesis: field 3 (state) onward, so utime (14) is the 12th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The daemon's resident set now, its anonymous part (heap, stacks) and its peak, bytes (`VmRSS`, `RssAnon`,
    /// `VmHWM` of `/proc/PID/status`). The rest of the resident set is file-backed: the pages of the binary and the
    /// libraries (Swift's runtime, Foundation) that were touched, clean and shared with any other process mapping them.
    func memory() -> (rssBytes: Int, anonymousBytes: Int, peakRSSBytes: Int)? {
        guard let status = readProcFile("/proc/\(pid)/status") else { return nil }
        func kibibytes(_ key: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        guard let rss = kibibytes("VmRSS"), let anonymous = kibibytes("RssAnon"), let hwm = kibibytes("VmHWM") else {
            return nil
        }
        return (rss * 1024, anonymous * 1024, hwm * 1024)
    }

    /// Threads the daemon runs now (`Threads:` of `/proc/PID/status`).
    func threadCount() -> Int? {
        guard let status = readProcFile("/proc/\(pid)/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") })
        else { return nil }
        return line.split(separator: "\t").last.flatMap { Int($0.trimmingSpaces) }
    }

    /// Sends SIGTERM and waits up to `timeoutS` for the child to end; SIGKILL after that. Returns its exit status
    /// (`nil` when it had to be killed).
    @discardableResult
    func stop(timeoutS: Double) -> Int32? {
        guard isRunning else { return exitStatus.map(Self.exitCode) }
        kill(pid, SIGTERM)
        let deadline = Clock.nowS() + timeoutS
        while isRunning {
            if Clock.nowS() > deadline {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                return nil
            }
            Clock.sleep(seconds: 0.05)
        }
        readLog()
        return exitStatus.map(Self.exitCode)
    }

    /// `WEXITSTATUS`, or 128 + the signal for a child ended by one.
    private static func exitCode(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// A whole small file (`/proc` files report size 0, so it is read until end of file).
func readProcFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}

/// `CLOCK_MONOTONIC`, the clock the daemon paces its session on (its log states where session time 0 falls on it).
enum Clock {
    static func nowS() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
    static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// Why the harness could not measure.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
