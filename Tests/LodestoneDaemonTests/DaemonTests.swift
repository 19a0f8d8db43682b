import Foundation
import LodestoneClient
import LodestoneDaemon
import LodestoneEngine
import LodestoneSockets
import LodestoneLog
import Synchronization
import Testing

/// A daemon on the simulated board in this process, on a private socket, paced at `speed` × real time.
struct TestDaemon {
    let daemon: Daemon
    let session: Session
    let dir: URL
    var socketPath: String { dir.appendingPathComponent("s.sock").path }

    /// A daemon on the simulated board (the default scenario, or `scenario` with `seed` and `durationS`), its socket and
    /// state in a fresh directory; `policy` is the policy file's text (none: the default policy); `configure` adjusts
    /// the configuration last.
    static func start(
        speed: Double = 4, policy: String? = nil, gpsd: Bool = false, scenario: String? = nil, seed: UInt64 = 1,
        durationS: Double? = nil, configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) async throws -> TestDaemon {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-daemon-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        chmod(dir.path, 0o755)
        let board = try BoardDescription.load(path: repositoryRoot + "/boards/simulated.json")
        let session = try Session(
            configuration: SessionConfiguration(board: board, scenario: scenario, seed: seed, durationS: durationS, speed: speed))
        var policyPath = dir.appendingPathComponent("none.toml").path
        if let policy {
            policyPath = dir.appendingPathComponent("policy.toml").path
            try policy.write(toFile: policyPath, atomically: true, encoding: .utf8)
        }
        var configuration = DaemonConfiguration(
            socketPath: dir.appendingPathComponent("s.sock").path, gpsdListen: gpsd ? ["127.0.0.1:0"] : [],
            policyPath: policyPath, policyIsExplicit: policy != nil, stateDirectory: dir.path)
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let daemon = try Daemon(configuration: configuration, session: session, logger: logger)
        await session.start()
        daemon.start()
        return TestDaemon(daemon: daemon, session: session, dir: dir)
    }

    func stop() async {
        daemon.stop()
        await session.stop()
        await session.waitUntilEnded()
        try? FileManager.default.removeItem(at: dir)
    }

    /// A raw connection to the native socket, for clients that misbehave.
    func rawConnection() throws -> RawConnection { RawConnection(fd: try Sockets.connectUnix(path: socketPath)) }
}

/// A raw client socket, read without blocking a thread: a test that blocked in `read` would hold one of the
/// concurrency pool's threads (two on this machine) and starve the daemon's session, which runs on the same pool.
final class RawConnection {
    let fd: Int32
    private var pending: [UInt8] = []
    init(fd: Int32) {
        self.fd = fd
        Sockets.configure(fd)
    }
    deinit { close(fd) }

    func send(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Sockets.write(fd, $0) }
            if n < 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Lines until `until` says stop or `timeoutS` passes; `closed` when the daemon closed the connection.
    func lines(timeoutS: Double, until: ([String]) -> Bool = { _ in false }) async -> (lines: [String], closed: Bool) {
        var out: [String] = []
        let end = Date().addingTimeInterval(timeoutS)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            guard let n = Sockets.read(fd, into: buffer) else {
                // Reads once more after the deadline: a task resumed late must still see what came in time.
                if Date() >= end { break }
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            if n <= 0 { return (out, true) }
            pending += buffer[0..<n]
            while let nl = pending.firstIndex(of: 10) {
                out.append(String(decoding: pending[..<nl], as: UTF8.self))
                pending.removeSubrange(...nl)
            }
            if until(out) || Date() >= end { break }
        }
        return (out, false)
    }
}

let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        url = url.deletingLastPathComponent()
    }
    return url.path
}()

@Suite(.serialized) struct DaemonTests {

    @Test func aClientGetsLocationsAndHeadingsAndItsDemandsLeaveWithIt() async throws {
        let d = try await TestDaemon.start()
        defer { Task { await d.stop() } }
        let baseline = await d.session.subscriberCount
        let client = try LodestoneClient.connect(socketPath: d.socketPath, name: "test")
        var locations = 0
        var headings = 0
        await withTaskGroup(of: (Int, Int).self) { group in
            group.addTask {
                var n = 0
                for await u in client.locationUpdates() where u.location != nil {
                    n += 1
                    if n == 3 { break }
                }
                return (n, 0)
            }
            group.addTask {
                var n = 0
                for await _ in client.headingUpdates(filterDeg: 0) {
                    n += 1
                    if n == 5 { break }
                }
                return (0, n)
            }
            for await (l, h) in group {
                locations += l
                headings += h
            }
        }
        #expect(locations == 3)
        #expect(headings == 5)
        #expect(client.authorization?.location == "always") // root, by the shipped policy
        // While subscribed, the session serves the client's streams; after the streams end, their demands go.
        let held = client.locationUpdates()
        let task = Task { for await _ in held {} }
        var listed = false
        try await waitUntil(timeoutS: 5) {
            listed =
                (try? await client.clients())?.clients.contains { $0.subscriptions.contains { $0.kind == "location" } } ?? false
            return listed
        }
        #expect(listed, "the clients list shows the location subscription")
        try await waitUntil(timeoutS: 5) { await d.session.subscriberCount > baseline }
        #expect(await d.session.subscriberCount > baseline, "the session serves it")
        client.close()
        task.cancel()
        let closedAt = Date()
        try await waitUntil(timeoutS: 5) { await d.session.subscriberCount == baseline }
        #expect(Date().timeIntervalSince(closedAt) < 1, "demands withdrawn within 1 s of the disconnect")
    }

    @Test func badLinesGetClearErrorsAndTheConnectionServesOn() async throws {
        let d = try await TestDaemon.start()
        defer { Task { await d.stop() } }
        let c = try d.rawConnection()
        _ = await c.lines(timeoutS: 2) { $0.count >= 2 } // VERSION, AUTHORIZATION
        c.send("this is not json\n")
        c.send(#"{"class":"FROBNICATE"}"# + "\n")
        c.send(#"{"class":"SUBSCRIBE","kind":"location"}"# + "\n")
        c.send(#"{"class":"SUBSCRIBE","id":1,"kind":"teleport"}"# + "\n")
        c.send(#"{"class":"UNSUBSCRIBE","id":42}"# + "\n")
        c.send(#"{"class":"SUBSCRIBE","id":7,"kind":"heading","rate_hz":-1}"# + "\n")
        let errors = await c.lines(timeoutS: 3) { $0.count >= 6 }.lines
        let codes = errors.compactMap { try? NativeProtocol.decodeDaemonMessage(Array($0.utf8)) }.compactMap {
            if case .error(let e) = $0 { e.code } else { nil }
        }
        #expect(codes == [.badJSON, .unknownClass, .badRequest, .badRequest, .unknownSubscription, .badRequest])
        c.send(#"{"class":"SUBSCRIBE","id":2,"kind":"heading","filter_deg":0}"# + "\n")
        let after = await c.lines(timeoutS: 5) { $0.filter { $0.contains(#""class":"UPDATE""#) }.count >= 2 }.lines
        #expect(after.first?.contains("SUBSCRIBED") == true)
        #expect(after.filter { $0.contains("UPDATE") }.count >= 2)
    }

    @Test func aLineOverTheLimitIsRefusedAndCutOffOthersNoticeNothing() async throws {
        let d = try await TestDaemon.start()
        defer { Task { await d.stop() } }
        let good = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { good.close() }
        let received = Atomic<Int>(0)
        let counter = Task {
            for await _ in good.headingUpdates(filterDeg: 0) { received.add(1, ordering: .relaxed) }
        }
        let c = try d.rawConnection()
        c.send(String(repeating: "x", count: NativeProtocol.maxLineBytes + 10))
        let r = await c.lines(timeoutS: 5) { $0.contains { $0.contains("line-too-long") } }
        #expect(r.lines.contains { $0.contains("line-too-long") })
        let end = await c.lines(timeoutS: 3)
        #expect(end.closed, "the connection is closed after the error")
        // The other client keeps getting headings after the cut-off: counted from then, not over a fixed time (a loaded
        // machine runs the debug session slowly: a CI run saw only 5 in the whole test).
        let atCutOff = received.load(ordering: .relaxed)
        let deadline = Date().addingTimeInterval(20)
        while received.load(ordering: .relaxed) < atCutOff + 5, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        good.close()
        await counter.value
        let n = received.load(ordering: .relaxed)
        #expect(n >= atCutOff + 5, "the other client got \(n - atCutOff) headings in 20 s after the cut-off (\(atCutOff) before)")
    }

    @Test func aClientThatNeverReadsIsCutOffAfterABoundedBuffer() async throws {
        let d = try await TestDaemon.start(speed: 20)
        defer { Task { await d.stop() } }
        let c = try d.rawConnection()
        c.send(#"{"class":"SUBSCRIBE","id":1,"kind":"sensors"}"# + "\n")
        try await waitUntil(timeoutS: 10) { d.daemon.clientCount == 1 }
        #expect(d.daemon.clientCount == 1, "the connection was accepted")
        // Never read: raw samples at 20× real time fill the kernel's buffer, then the daemon's 1 MiB, then it cuts off.
        try await waitUntil(timeoutS: 60) { d.daemon.clientCount == 0 }
        #expect(d.daemon.clientCount == 0)
    }

    @Test func aThousandConnectionsComeAndGoWithoutATrace() async throws {
        let d = try await TestDaemon.start()
        defer { Task { await d.stop() } }
        let fdsBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        for i in 0..<1000 {
            let fd = try Sockets.connectUnix(path: d.socketPath)
            if i % 2 == 0 {
                let line = #"{"class":"SUBSCRIBE","id":1,"kind":"heading"}"# + "\n"
                _ = line.utf8CString.withUnsafeBytes { Sockets.write(fd, UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
            }
            Sockets.close(fd)
        }
        try await waitUntil(timeoutS: 10) { d.daemon.clientCount == 0 }
        #expect(d.daemon.clientCount == 0)
        // The test process's descriptors: other suites running beside this one open and close their own (pipes of
        // child processes, sockets), so the fewest of a second's samples is compared, with a slack of 20 — a leak of
        // even 2 % of the 1 000 connections would exceed it.
        var fdsAfter = Int.max
        for _ in 0..<20 {
            fdsAfter = min(fdsAfter, try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count)
            if fdsAfter <= fdsBefore { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(fdsAfter <= fdsBefore + 20, "descriptors before \(fdsBefore), after \(fdsAfter)")
        let client = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { client.close() }
        var got = false
        for await _ in client.headingUpdates(filterDeg: 0) {
            got = true
            break
        }
        #expect(got)
    }

    @Test func aClientSendingOneByteAtATimeHoldsNobodyUp() async throws {
        let d = try await TestDaemon.start()
        defer { Task { await d.stop() } }
        let slow = try d.rawConnection()
        let good = try LodestoneClient.connect(socketPath: d.socketPath)
        defer { good.close() }
        let counter = Task {
            var n = 0
            for await _ in good.headingUpdates(filterDeg: 0) { n += 1 }
            return n
        }
        for b in #"{"class":"SUBSCRIBE","id":3,"kind":"heading"}"#.utf8.prefix(12) {
            slow.send(String(decoding: [b], as: UTF8.self))
            try await Task.sleep(for: .milliseconds(250))
        }
        good.close()
        let n = await counter.value
        #expect(n >= 10, "headings to the other client while one dribbled bytes: \(n)")
    }

    @Test func theClientReconnectsAfterADaemonRestartAndResubscribes() async throws {
        let d = try await TestDaemon.start()
        let socketPath = d.socketPath
        let client = try LodestoneClient.connect(socketPath: socketPath)
        defer { client.close() }
        let stream = client.headingUpdates(filterDeg: 0)

        let received = Task {
            var n = 0
            for await _ in stream where client.connectionCount >= 2 {
                n += 1
                if n == 20 { break }
            }
            return n
        }
        try await Task.sleep(for: .seconds(1))

        // Restart: same socket path, a new session.
        d.daemon.stop()
        await d.session.stop()
        let board = try BoardDescription.load(path: repositoryRoot + "/boards/simulated.json")
        let session2 = try Session(configuration: SessionConfiguration(board: board, speed: 4))
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let d2 = try Daemon(
            configuration: DaemonConfiguration(
                socketPath: socketPath, gpsdListen: [], policyPath: d.dir.appendingPathComponent("none.toml").path,
                stateDirectory: d.dir.path),
            session: session2, logger: logger)
        await session2.start()
        d2.start()
        let n = await received.value
        #expect(n == 20, "headings after the restart")
        #expect(client.connectionCount >= 2)
        d2.stop()
        await session2.stop()
    }
}

/// Polls `condition` every 50 ms until it holds or `timeoutS` passes.
func waitUntil(timeoutS: Double, _ condition: () async -> Bool) async throws {
    let end = Date().addingTimeInterval(timeoutS)
    while true {
        if await condition() { return }
        if Date() >= end { return }
        try await Task.sleep(for: .milliseconds(50))
    }
}
