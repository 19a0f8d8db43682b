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
    /// (no pipe can fill up).
    static func run(_ program: String, _ arguments: [String], timeoutS: Double, in dir: URL) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: which(program) ?? program)
        p.arguments = arguments
        let tag = UUID().uuidString
        let out = dir.appendingPathComponent("\(tag).out"), err = dir.appendingPathComponent("\(tag).err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeoutS)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        var timedOut = false
        if p.isRunning {
            timedOut = true
            kill(p.processIdentifier, SIGKILL)
        }
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "", timedOut: timedOut)
    }

    /// Starts a program in the background (its output to files in `dir`); the caller stops it with `stop`.
    static func start(_ program: String, _ arguments: [String], in dir: URL, name: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: which(program) ?? program)
        p.arguments = arguments
        let out = dir.appendingPathComponent("\(name).out"), err = dir.appendingPathComponent("\(name).err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Stops a process started by `start` (SIGTERM, then SIGKILL after a second).
    static func stop(_ p: Process) {
        guard p.isRunning else { return }
        p.terminate()
        let deadline = Date().addingTimeInterval(1)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Waits at most `timeoutS` for a file to exist with content; returns it.
    static func waitForFile(_ url: URL, timeoutS: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeoutS)
        while Date() < deadline {
            if let s = try? String(contentsOf: url, encoding: .utf8), !s.isEmpty { return s }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    /// A fresh temporary directory.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `cc` builds our libgps client into `dir`.
    static func buildLibgpsClient(in dir: URL) throws -> String {
        let exe = dir.appendingPathComponent("libgps_client").path
        let r = try run(
            "cc", ["-Wall", "-o", exe, scripts.appendingPathComponent("libgps_client.c").path, "-lgps", "-lm"], timeoutS: 60,
            in: dir)
        #expect(r.status == 0, "cc: \(r.stderr)")
        return exe
    }

    /// Runs `cgps -s` against `port` in a detached tmux session on a private tmux socket, and returns the screen once
    /// it shows `expected` (or after `timeoutS`, the last screen).
    static func cgpsScreen(port: Int, expected: [String], timeoutS: Double, in dir: URL) throws -> String {
        let socket = dir.appendingPathComponent("tmux.sock").path
        let session = "cgps"
        let cgps = which("cgps") ?? "cgps"
        _ = try run(
            "tmux", ["-S", socket, "new-session", "-d", "-s", session, "-x", "100", "-y", "45", "\(cgps) -s 127.0.0.1:\(port)"],
            timeoutS: 10, in: dir)
        defer { _ = try? run("tmux", ["-S", socket, "kill-server"], timeoutS: 10, in: dir) }
        var screen = ""
        let deadline = Date().addingTimeInterval(timeoutS)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
            screen = (try? run("tmux", ["-S", socket, "capture-pane", "-p", "-t", session], timeoutS: 10, in: dir).stdout) ?? ""
            if expected.allSatisfy({ screen.contains($0) }) { break }
        }
        return screen
    }
}
