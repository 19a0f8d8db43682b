import Foundation
import Testing

/// Processes of the fleet tests: Debian's mosquitto broker on a free loopback port with a configuration of the test's,
/// mosquitto_sub/mosquitto_pub, and `lodestone serve --mqtt`. Every wait is bounded and sleeps the task, not a thread.
enum Fleet {
    /// What `scripts/bootstrap --test` installs for these tests (Debian 12).
    static let packages = "mosquitto mosquitto-clients openssl"

    /// The built `lodestone` executable beside the test bundle.
    static var lodestone: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: dir.appendingPathComponent("lodestone").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("lodestone").path
    }

    /// The path of `name` on PATH or in the sbin directories (Debian's mosquitto is /usr/sbin/mosquitto), or `nil`.
    static func which(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
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

    static func temporaryDirectory(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A free loopback TCP port: bound to port 0 and released (another process could take it meanwhile, which a test
    /// would see as the broker failing to listen).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FleetTestError("socket: errno \(errno)") }
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(fd, p, len) == 0 && getsockname(fd, p, &len) == 0
            }
        }
        guard bound else { throw FleetTestError("bind: errno \(errno)") }
        return Int(UInt16(bigEndian: a.sin_port))
    }

    /// Whether something accepts TCP connections on the loopback port.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Waits (at most `timeoutS`) until `condition` holds; looks once more after the deadline.
    static func wait(timeoutS: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeoutS)
        while true {
            if try await condition() { return true }
            if Date() >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// A background process whose output goes to `<dir>/<name>.out` and `.err`.
    final class Background: Sendable {
        let process: Process
        let out: URL
        let err: URL
        init(_ program: String, _ arguments: [String], in dir: URL, name: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Fleet.which(program) ?? program)
            p.arguments = arguments
            out = dir.appendingPathComponent("\(name).out"); err = dir.appendingPathComponent("\(name).err")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            p.standardOutput = try FileHandle(forWritingTo: out)
            p.standardError = try FileHandle(forWritingTo: err)
            p.standardInput = FileHandle.nullDevice
            try p.run()
            process = p
        }
        var pid: Int32 { process.processIdentifier }
        var output: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        var errors: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

        /// Sends `signal` and waits (at most `timeoutS`, then SIGKILL) for the end; returns whether it ended in time.
        @discardableResult
        func stop(signal: Int32 = SIGTERM, timeoutS: Double = 10) async -> Bool {
            guard process.isRunning else { return true }
            kill(pid, signal)
            let ended = await Fleet.wait(timeoutS: timeoutS) { !process.isRunning }
            if !ended {
                kill(pid, SIGKILL)
                _ = await Fleet.wait(timeoutS: 5) { !process.isRunning }
            }
            return ended
        }

        /// For a `defer`: SIGKILL if still running.
        func kill9() {
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    /// Runs a program to its end (at most `timeoutS`, then SIGKILL); returns its status and output.
    static func run(_ program: String, _ arguments: [String], in dir: URL, timeoutS: Double = 30) async throws -> (
        status: Int32, output: String, errors: String
    ) {
        let b = try Background(program, arguments, in: dir, name: "run-\(UUID().uuidString.prefix(8))")
        if !(await wait(timeoutS: timeoutS) { !b.process.isRunning }) { b.kill9() }
        return (b.process.terminationStatus, b.output, b.errors)
    }

    /// Debian's mosquitto on `port` with `extra` configuration lines (persistence in `dir`); waits until it listens.
    static func startBroker(
        port: Int, in dir: URL, extra: [String] = [], anonymous: Bool = true, name: String = "mosquitto"
    ) async throws -> Background {
        let conf = dir.appendingPathComponent("\(name).conf")
        let lines =
            [
                "listener \(port) 127.0.0.1", "allow_anonymous \(anonymous)", "persistence true",
                "persistence_location \(dir.path)/", "log_dest stderr",
                // Started as root, mosquitto would switch to its own user and could read neither the test's keys nor
                // its persistence directory: it stays the test's user.
                "user \(ProcessInfo.processInfo.userName)"
            ] + extra
        try (lines.joined(separator: "\n") + "\n").write(to: conf, atomically: true, encoding: .utf8)
        // The test runner's threads block SIGTERM, and a spawned child inherits the mask: mosquitto (signal handlers, not
        // a signalfd as `lodestone serve`) would never see the SIGTERM that makes it save its sessions and exit. A
        // python3 exec shim clears the mask first.
        let mosquitto = Fleet.which("mosquitto") ?? "/usr/sbin/mosquitto"
        let b = try Background(
            "/usr/bin/python3",
            [
                "-c",
                "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); os.execv(sys.argv[1], sys.argv[1:])",
                mosquitto, "-c", conf.path
            ], in: dir, name: name)
        guard await wait(timeoutS: 15, { accepts(port) }) else {
            b.kill9()
            throw FleetTestError("mosquitto did not listen on \(port): \(b.errors)")
        }
        return b
    }

    /// `lodestone serve` on the simulated board with the fleet settings `mqttTOML`, its state in `state`.
    static func startServe(
        mqtt url: String, toml: String, state: URL, in dir: URL, name: String, speed: Double = 1
    ) throws -> Background {
        let conf = dir.appendingPathComponent("\(name).toml")
        try toml.write(to: conf, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        return try Background(
            lodestone,
            [
                "serve", "--socket", dir.appendingPathComponent("\(name).sock").path, "--gpsd-listen", "none", "--state-dir",
                state.path, "--mqtt", url, "--mqtt-config", conf.path, "--speed", "\(speed)"
            ], in: dir, name: name)
    }

    /// The `seq` of each line `topic payload` (mosquitto_sub -v) whose payload is a JSON object with one, in order.
    static func sequence(_ output: String, topicPrefix: String) -> [(topic: String, seq: Int64)] {
        var out: [(String, Int64)] = []
        for line in output.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            let topic = String(line[..<space])
            guard topic.hasPrefix(topicPrefix) else { continue }
            let payload = line[line.index(after: space)...]
            guard let data = payload.data(using: .utf8),
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                let seq = (object["seq"] as? NSNumber)?.int64Value
            else { continue }
            out.append((topic, seq))
        }
        return out
    }
}

struct FleetTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
