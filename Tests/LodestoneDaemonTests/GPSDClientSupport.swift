import Foundation
import Testing

/// Running Debian's gpsd clients (and our scripts for them) from the gpsd tests: bounded, loopback only.
enum GPSDClientRunner {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scripts = repositoryRoot.appendingPathComponent("Tests/Integration/gpsd")

    /// What `scripts/bootstrap --test` installs for these tests (Debian 12).
    static let packages = "gpsd gpsd-clients python3-gps libgps-dev tmux"

    /// Debian's Python, where python3-gps is (a pyenv or venv python3 first on PATH has no `gps` module).
    static var python: String {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : which("python3") ?? "python3"
    }

    /// The lines of a text, without their LF or CR LF (Swift's `split(separator: "\n")` does not split at CR LF,
    /// which is one `Character`).
    static func lines(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// The path of `name` on PATH (or the sbin directories, where Debian puts gpsd), or `nil`.
    static func which(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Fails the test naming the packages when a tool is missing.
    static func require(_ tools: [String]) throws {
        let missing = tools.filter { which($0) == nil }
        guard missing.isEmpty else {
            Issue.record("missing \(missing.joined(separator: ", ")): install \(packages) (scripts/bootstrap --test)")
            throw CancellationError()
        }
    }

    /// Runs a program to its end, at most `timeoutS` (then SIGKILL), with stdout and stderr captured through files
    /// (no pipe can fill up). It waits by sleeping the task, not the thread: a blocked test would hold one of the
    /// pool's threads (two on this machine) and starve the in-process daemons of the other suites.
    static func run(_ program: String, _ arguments: [String], timeoutS: Double, in dir: URL) async throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: which(program) ?? program)
        p.arguments = arguments
        let tag = UUID().uuidString
        let out = dir.appendingPathComponent("\(tag).out"), err = dir.appendingPathComponent("\(tag).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let (status, timedOut) = await waitForExit(p, timeoutS: timeoutS)
        return Result(
            status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "", timedOut: timedOut)
    }

    /// Waits for `p` to end (SIGKILL after `timeoutS`) and returns its exit status. The child is reaped here with
    /// `waitpid` as well as by Foundation: Foundation's own notice of a child's end was seen to never come (a
    /// `<defunct>` child, `isRunning` true for good) when the child had left a daemon behind (tmux's server).
    static func waitForExit(_ p: Process, timeoutS: Double) async -> (status: Int32, timedOut: Bool) {
        let pid = p.processIdentifier
        let deadline = Date().addingTimeInterval(timeoutS)
        var raw: Int32 = 0
        func reaped() -> Int32? {
            let r = waitpid(pid, &raw, WNOHANG)
            if r == pid { return (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f) }
            if r < 0 || !p.isRunning { return p.isRunning ? nil : p.terminationStatus } // Foundation reaped it
            return nil
        }
        while Date() < deadline {
            if let s = reaped() { return (s, false) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        // Once more after the deadline: a busy pool may resume this task late, after the child had long ended.
        if let s = reaped() { return (s, false) }
        kill(pid, SIGKILL)
        let killDeadline = Date().addingTimeInterval(5)
        while Date() < killDeadline {
            if let s = reaped() { return (s, true) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return (128 + SIGKILL, true)
    }

    /// Starts a program in the background (its output to files in `dir`); the caller stops it with `stop`.
    static func start(_ program: String, _ arguments: [String], in dir: URL, name: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: which(program) ?? program)
        p.arguments = arguments
        let out = dir.appendingPathComponent("\(name).out"), err = dir.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Stops a process started by `start` (SIGTERM, then SIGKILL after a second). Synchronous, for a `defer`: it holds
    /// its thread for at most that second.
    static func stop(_ p: Process) {
        let pid = p.processIdentifier
        var raw: Int32 = 0
        guard p.isRunning, waitpid(pid, &raw, WNOHANG) == 0 else { return }
        p.terminate()
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline, p.isRunning, waitpid(pid, &raw, WNOHANG) == 0 { Thread.sleep(forTimeInterval: 0.05) }
        guard p.isRunning, waitpid(pid, &raw, WNOHANG) == 0 else { return }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &raw, 0) // a killed child ends at once (or Foundation reaped it: ECHILD)
    }

    /// Waits at most `timeoutS` for a file to exist with content; returns it.
    static func waitForFile(_ url: URL, timeoutS: Double) async -> String? {
        let deadline = Date().addingTimeInterval(timeoutS)
        // Looks once more after the deadline: a task resumed late (a busy pool) must still see a file written in time.
        while true {
            if let s = try? String(contentsOf: url, encoding: .utf8), !s.isEmpty { return s }
            if Date() >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A fresh temporary directory.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `cc` builds our libgps client into `dir`.
    static func buildLibgpsClient(in dir: URL) async throws -> String {
        let exe = dir.appendingPathComponent("libgps_client").path
        let r = try await run(
            "cc", ["-Wall", "-o", exe, scripts.appendingPathComponent("libgps_client.c").path, "-lgps", "-lm"], timeoutS: 60,
            in: dir)
        #expect(r.status == 0, "cc: \(r.stderr)")
        return exe
    }

    /// Runs `cgps -s` against `port` in a detached tmux session (Tests/Integration/gpsd/cgps_screen.sh) and returns
    /// the screen once it shows every `expected` text (or after `timeoutS`, the last screen).
    static func cgpsScreen(port: Int, expected: [String], timeoutS: Double, in dir: URL) async throws -> String {
        let r = try await run(
            "/bin/bash", [scripts.appendingPathComponent("cgps_screen.sh").path, "\(port)", "\(Int(timeoutS))"] + expected,
            timeoutS: timeoutS + 10, in: dir)
        return r.stdout
    }
}
