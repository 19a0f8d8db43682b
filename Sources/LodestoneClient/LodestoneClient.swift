#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import LodestoneCore
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneService
import LodestoneSockets
import LodestoneWire

/// The daemon (`lodestone serve`) as a `LodestoneService`: the same live streams as an in-process `Session`, over the
/// daemon's Unix socket. Moving an app from one to the other changes the line that makes the service:
///
/// ```swift
/// let service = try LodestoneClient.connect()          // was: let service = try Session(configuration: …)
/// for await update in service.locationUpdates(.fitness) { … }
/// ```
///
/// Each iteration of a stream subscribes (`SUBSCRIBE`), and ending it unsubscribes; the daemon withdraws the demand at
/// once. When the daemon restarts, the client reconnects (0.1 s, doubling to 2 s between attempts) and subscribes
/// every open stream again; streams see a gap, not an end. What this client may see is the daemon's decision
/// (`authorization`); a denied location stream gets one update with `authorizationDenied` and ends; a denied motion
/// stream ends at once.
///
/// It is also a `MonitoringService` with the in-process session's semantics: monitors, their events and
/// acknowledgements, visits, significant changes and the motion history, over the same connection (docs/wire.md,
/// "Monitoring"). The daemon names the client by its uid: an `always` client's monitors persist and their
/// unacknowledged events come again on the next `monitorEvents` (after a reconnection too, without repeating what this
/// iteration already delivered); a `when-in-use` client's monitors end with its last connection. A request made while
/// the daemon is not connected throws `unavailable`.
public final class LodestoneClient: LodestoneService, MonitoringService, Sendable {
    /// Where the daemon listens by default (`lodestone serve --socket`).
    public static let defaultSocketPath = "/run/lodestone/lodestone.sock"

    public let socketPath: String
    public let name: String?

    /// An open stream: the request that starts it (sent again after a reconnection), what takes its messages, what
    /// ends it.
    private struct Stream: Sendable {
        var request: @Sendable (Int) -> String
        var deliver: @Sendable (NativeProtocol.DaemonMessage) -> Void
        var end: @Sendable () -> Void
    }
    private struct State: Sendable {
        var fd: Int32 = -1
        var streams: [Int: Stream] = [:]
        var nextID = 1
        var closed = false
        var authorization: NativeProtocol.Authorization?
        var version: Wire.Version?
        var connections = 0
        var lastError: NativeProtocol.ErrorMessage?
        var clientsWaiters: [CheckedContinuation<NativeProtocol.Clients, any Error>] = []
        /// Requests waiting for their answer, by id (`nil`: the connection ended first).
        var replies: [Int: CheckedContinuation<NativeProtocol.DaemonMessage?, Never>] = [:]
    }
    private let state = Locked(State())
    private let writeLock = Locked(())

    private init(socketPath: String, name: String?) {
        self.socketPath = socketPath; self.name = name
    }

    /// Connects to the daemon.
    /// - Throws: `SessionError.service` saying why the socket could not be reached.
    public static func connect(socketPath: String = defaultSocketPath, name: String? = nil) throws(SessionError)
        -> LodestoneClient
    {
        let client = LodestoneClient(socketPath: socketPath, name: name)
        let fd: Int32
        do { fd = try Sockets.connectUnix(path: socketPath) } catch {
            throw .service("cannot reach the Lodestone daemon: \(error) (is `lodestone serve` running?)")
        }
        client.attach(fd)
        DetachedThread.start { client.readLoop() }
        return client
    }

    /// What the daemon lets this client see (`nil` until it said).
    public var authorization: NativeProtocol.Authorization? { state.withLock { $0.authorization } }
    /// The daemon's `VERSION`.
    public var daemonVersion: Wire.Version? { state.withLock { $0.version } }
    /// Connections made so far (1 + reconnections).
    public var connectionCount: Int { state.withLock { $0.connections } }
    /// The last `ERROR` the daemon sent.
    public var lastError: NativeProtocol.ErrorMessage? { state.withLock { $0.lastError } }

    /// Streams `subscription` from the daemon (`LodestoneService`).
    public func updates<Element>(_ subscription: Subscription<Element>, options: SubscriptionOptions) -> Updates<Element> {
        Updates(buffering: options.buffering) { [self] buffer in
            let deliver: @Sendable (NativeProtocol.DaemonMessage) -> Void = { message in
                guard case .update(let u) = message else { return }
                let members: [Any?] = [u.location, u.heading, u.motion, u.activity, u.pedometer, u.altitude, u.sensor]
                for case let e as Element in members.compactMap({ $0 }) {
                    buffer.push(e)
                    return
                }
            }
            let spec = subscription.spec, foreground = options.foreground
            open(
                Stream(
                    request: { NativeProtocol.line(NativeProtocol.Subscribe(id: $0, spec: spec, foreground: foreground)) },
                    deliver: deliver, end: { buffer.finish() }), buffer: buffer)
        }
    }

    /// Sends the request `make` writes for a new id and waits for the daemon's answer with that id (`MONITOR`, `ACK`,
    /// `HISTORY` or `ERROR`); `nil` when the daemon is not connected or the connection ended first.
    func request(_ make: (Int) -> String) async -> NativeProtocol.DaemonMessage? {
        let id = state.withLock { s -> Int in
            defer { s.nextID += 1 }
            return s.nextID
        }
        let line = make(id)
        return await withCheckedContinuation { c in
            let connected = state.withLock { s -> Bool in
                guard s.fd >= 0, !s.closed else { return false }
                s.replies[id] = c
                return true
            }
            if connected { send(line) } else { c.resume(returning: nil) }
        }
    }

    /// Streams what `request` starts: each message of the stream goes through `take` (`makeTake` makes one per
    /// iteration) into the iteration's buffer.
    func stream<E>(
        buffering: UpdateBuffering, request: @escaping @Sendable (Int) -> String,
        makeTake: @escaping @Sendable () -> @Sendable (NativeProtocol.DaemonMessage, UpdateBuffer<E>) -> Void
    ) -> Updates<E> {
        Updates(buffering: buffering) { [self] buffer in
            let take = makeTake()
            open(Stream(request: request, deliver: { take($0, buffer) }, end: { buffer.finish() }), buffer: buffer)
        }
    }

    /// Registers a stream under a new id and sends its request (now if connected, else at the reconnection).
    private func open<E>(_ stream: Stream, buffer: UpdateBuffer<E>) {
        let (id, fd, closed) = state.withLock { s -> (Int, Int32, Bool) in
            let id = s.nextID
            s.nextID += 1
            if !s.closed { s.streams[id] = stream }
            return (id, s.fd, s.closed)
        }
        if closed {
            buffer.finish()
            return
        }
        buffer.onCancel { [self] in
            let known = state.withLock { $0.streams.removeValue(forKey: id) != nil }
            if known { send(NativeProtocol.line(NativeProtocol.Unsubscribe(id: id))) }
        }
        if fd >= 0 { send(stream.request(id)) }
    }

    /// The daemon's list of connected clients (root or the daemon's own user only).
    /// - Throws: `SessionError.service` with the daemon's refusal.
    public func clients() async throws -> NativeProtocol.Clients {
        try await withCheckedThrowingContinuation { c in
            state.withLock { $0.clientsWaiters.append(c) }
            send(NativeProtocol.line(NativeProtocol.Query("CLIENTS")))
        }
    }

    /// Ends every stream and closes the connection; no reconnection follows.
    public func close() {
        let (fd, streams, waiters, replies) = state.withLock { s in
            s.closed = true
            defer {
                s.streams.removeAll()
                s.clientsWaiters.removeAll()
                s.replies.removeAll()
            }
            return (s.fd, Array(s.streams.values), s.clientsWaiters, Array(s.replies.values))
        }
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
        for s in streams { s.end() }
        for w in waiters { w.resume(throwing: SessionError.service("the client was closed")) }
        for r in replies { r.resume(returning: nil) }
    }

    // MARK: - Connection

    private func attach(_ fd: Int32) {
        let streams = state.withLock { s -> [(Int, Stream)] in
            s.fd = fd
            s.connections += 1
            return s.streams.sorted { $0.key < $1.key }
        }
        send(NativeProtocol.line(NativeProtocol.Hello(client: name)))
        for (id, stream) in streams { send(stream.request(id)) }
    }

    private func send(_ line: String) {
        writeLock.withLock { _ in
            let fd = state.withLock { $0.fd }
            guard fd >= 0 else { return }
            var bytes = Array(line.utf8)[...]
            while !bytes.isEmpty {
                let n = bytes.withUnsafeBytes { Sockets.write(fd, $0) }
                if n <= 0 { return } // the reader sees the end and reconnects
                bytes = bytes.dropFirst(n)
            }
        }
    }

    private func readLoop() {
        var backoffS = 0.1
        while true {
            let fd = state.withLock { $0.fd }
            if fd >= 0 {
                readUntilClosed(fd)
                Sockets.close(fd)
                let (waiters, replies) = state.withLock { s in
                    s.fd = -1
                    defer {
                        s.clientsWaiters.removeAll()
                        s.replies.removeAll()
                    }
                    return (s.clientsWaiters, Array(s.replies.values))
                }
                for w in waiters { w.resume(throwing: SessionError.service("the daemon closed the connection")) }
                for r in replies { r.resume(returning: nil) }
                backoffS = 0.1
            }
            if state.withLock({ $0.closed }) { return }
            usleep(UInt32(backoffS * 1e6))
            backoffS = min(2, backoffS * 2)
            if let fd = try? Sockets.connectUnix(path: socketPath) {
                if state.withLock({ $0.closed }) {
                    Sockets.close(fd)
                    return
                }
                attach(fd)
            }
        }
    }

    private func readUntilClosed(_ fd: Int32) {
        var pending: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            pending.append(contentsOf: buffer[0..<n])
            while let nl = pending.firstIndex(of: 10) {
                handle(pending[..<nl])
                pending.removeSubrange(...nl)
            }
            if pending.count > NativeProtocol.maxLineBytes { return } // not the daemon's protocol
        }
    }

    private func handle(_ line: ArraySlice<UInt8>) {
        guard let message = try? NativeProtocol.decodeDaemonMessage(line) else { return }
        switch message {
        case .version(let v): state.withLock { $0.version = v }
        case .authorization(let a): state.withLock { $0.authorization = a }
        case .subscribed, .unknown: break
        case .update(let u): deliver(message, id: u.id)
        case .event(let e): deliver(message, id: e.id)
        case .visit(let v): deliver(message, id: v.id)
        case .significantChange(let c): deliver(message, id: c.id)
        case .streaming: break
        case .monitor(let m): answer(message, id: m.id)
        case .acknowledgement(let a): answer(message, id: a.id)
        case .history(let h): answer(message, id: h.id)
        case .ended(let e):
            let stream = state.withLock { $0.streams.removeValue(forKey: e.id) }
            stream?.end()
        case .error(let e):
            let (stream, waiter) = state.withLock { s -> (Stream?, CheckedContinuation<NativeProtocol.DaemonMessage?, Never>?) in
                s.lastError = e
                return (e.id.flatMap { s.streams.removeValue(forKey: $0) }, e.id.flatMap { s.replies.removeValue(forKey: $0) })
            }
            stream?.end()
            waiter?.resume(returning: message)
            if e.code == .notPermitted {
                let waiters = state.withLock { s in
                    defer { s.clientsWaiters.removeAll() }
                    return s.clientsWaiters
                }
                for w in waiters { w.resume(throwing: SessionError.service(e.message)) }
            }
        case .clients(let c):
            let waiters = state.withLock { s in
                defer { s.clientsWaiters.removeAll() }
                return s.clientsWaiters
            }
            for w in waiters { w.resume(returning: c) }
        }
    }

    private func deliver(_ message: NativeProtocol.DaemonMessage, id: Int) {
        let stream = state.withLock { $0.streams[id] }
        stream?.deliver(message)
    }

    private func answer(_ message: NativeProtocol.DaemonMessage, id: Int) {
        let waiter = state.withLock { $0.replies.removeValue(forKey: id) }
        waiter?.resume(returning: message)
    }
}
