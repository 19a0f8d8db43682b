#if canImport(Glibc)
    import Glibc
#endif
import LodestoneCore

/// What a server does with one connection's input. Called on the event loop's thread only, one call at a time: keep
/// each call short (start tasks for anything that waits).
public protocol ConnectionHandler: AnyObject {
    /// The connection was accepted (send a banner here).
    func connected(_ connection: Connection)
    /// One line arrived, without its LF (a trailing CR is kept: the protocol decides).
    func received(line: ArraySlice<UInt8>, on connection: Connection)
    /// The peer sent more than the listener's line limit without a newline. The connection closes after this call
    /// (after what this call sends has been flushed).
    func lineTooLong(on connection: Connection, limitBytes: Int)
    /// The connection is closed (by the peer, by the server, or cut off); `reason` says which.
    func closed(_ connection: Connection, reason: String)
}

/// How a listener's connections are bounded.
public struct ConnectionLimits: Sendable, Hashable {
    /// The longest line a client may send, bytes.
    public var maxLineBytes: Int
    /// The most bytes waiting for a client that does not read; past this it is cut off.
    public var maxOutboundBytes: Int

    public init(maxLineBytes: Int = 64 * 1024, maxOutboundBytes: Int = 1 << 20) {
        self.maxLineBytes = maxLineBytes; self.maxOutboundBytes = maxOutboundBytes
    }
}

/// One accepted connection. `send` may be called from any thread or task; it never blocks: what the socket does not
/// take at once waits in a bounded buffer that the event loop flushes, and a client that lets it overflow is cut off.
public final class Connection: Sendable {
    /// A number unique in this loop.
    public let id: Int
    /// Who is on the other end.
    public let peer: PeerIdentity
    /// The name of the listener it came through (`native`, `gpsd`).
    public let listenerName: String
    /// When it was accepted, s on the monotonic clock.
    public let acceptedAtS: Double
    let fd: Int32
    let limits: ConnectionLimits
    private let loop: EventLoop

    struct Outbound {
        var bytes: [UInt8] = []
        var start = 0
        var closeReason: String?
        /// Close once the buffer is flushed (true) or at once (false).
        var flushBeforeClose = false
        var wantsWrite = false
        var sentBytes = 0
        var pending: Int { bytes.count - start }
    }
    private let out = Locked(Outbound())

    init(id: Int, fd: Int32, peer: PeerIdentity, listenerName: String, limits: ConnectionLimits, loop: EventLoop) {
        self.id = id; self.fd = fd; self.peer = peer; self.listenerName = listenerName; self.limits = limits; self.loop = loop
        acceptedAtS = MonotonicTime.nowS()
    }

    /// Sends text as is (the caller adds the line end). False when the connection is closed or closing.
    @discardableResult
    public func send(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { send(UnsafeRawBufferPointer($0)) }
    }

    /// Sends bytes. False when the connection is closed or closing.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var wake = false
        let ok = out.withLock { o -> Bool in
            if o.closeReason != nil { return false }
            var rest = bytes
            if o.pending == 0 {
                let n = Sockets.write(fd, bytes)
                if n < 0 {
                    o.closeReason = "the client went away"
                    wake = true
                    return false
                }
                o.sentBytes += n
                if n == bytes.count { return true }
                rest = UnsafeRawBufferPointer(rebasing: bytes[n...])
            }
            if o.pending + rest.count > limits.maxOutboundBytes {
                o.closeReason = "cut off: it did not read \(o.pending + rest.count) bytes waiting for it"
                o.bytes = []
                o.start = 0
                wake = true
                return false
            }
            if o.start > 0 && o.start >= o.bytes.count / 2 {
                o.bytes.removeFirst(o.start)
                o.start = 0
            }
            o.bytes.append(contentsOf: rest)
            if !o.wantsWrite {
                o.wantsWrite = true
                wake = true
            }
            return true
        }
        if wake { loop.wake() }
        return ok
    }

    /// Closes the connection once what was sent before has been written (or at once when `flush` is false).
    public func close(reason: String, flush: Bool = true) {
        out.withLock { o in
            guard o.closeReason == nil else { return }
            o.closeReason = reason
            o.flushBeforeClose = flush
        }
        loop.wake()
    }

    /// True once closed or closing.
    public var isClosing: Bool { out.withLock { $0.closeReason != nil } }

    /// Bytes written so far.
    public var sentBytes: Int { out.withLock { $0.sentBytes } }

    // MARK: - The loop's side

    var wantsWrite: Bool { out.withLock { $0.wantsWrite } }

    /// Writes what waits. Called on the loop thread when the socket is writable.
    func flush() {
        out.withLock { o in
            while o.pending > 0 {
                let n = o.bytes.withUnsafeBytes { Sockets.write(fd, UnsafeRawBufferPointer(rebasing: $0[o.start...])) }
                if n < 0 {
                    o.closeReason = o.closeReason ?? "the client went away"
                    o.flushBeforeClose = false
                    o.bytes = []
                    o.start = 0
                    break
                }
                if n == 0 { break }
                o.start += n
                o.sentBytes += n
            }
            if o.pending == 0 {
                o.bytes.removeAll(keepingCapacity: o.bytes.capacity <= 64 * 1024)
                o.start = 0
                o.wantsWrite = false
            }
        }
    }

    /// The reason to close now, if the connection is to close now (closing and flushed, or closing at once).
    func closeNow() -> String? {
        out.withLock { o in
            guard let r = o.closeReason else { return nil }
            return (!o.flushBeforeClose || o.pending == 0) ? r : nil
        }
    }

    func markClosed(_ reason: String) {
        out.withLock { o in
            if o.closeReason == nil { o.closeReason = reason }
            o.flushBeforeClose = false
        }
    }
}

/// A thread running `poll()` over listening sockets and their connections: accepts, reads lines and hands them to each
/// connection's handler, flushes what `Connection.send` could not write at once, and closes what is to close.
public final class EventLoop: Sendable {
    /// A listening socket and what serves its connections.
    public struct Listener: Sendable {
        public var fd: Int32
        public var name: String
        public var limits: ConnectionLimits
        /// Identifies the peer of an accepted descriptor (peer credentials for Unix sockets, the address for TCP).
        public var identify: @Sendable (Int32) -> PeerIdentity
        /// Makes the handler of a new connection (called on the loop thread).
        public var makeHandler: @Sendable (Connection) -> any ConnectionHandler

        public init(
            fd: Int32, name: String, limits: ConnectionLimits,
            identify: @escaping @Sendable (Int32) -> PeerIdentity,
            makeHandler: @escaping @Sendable (Connection) -> any ConnectionHandler
        ) {
            self.fd = fd; self.name = name; self.limits = limits; self.identify = identify; self.makeHandler = makeHandler
        }
    }

    private struct Shared {
        var newListeners: [Listener] = []
        var stopping = false
    }
    private let shared = Locked(Shared())
    /// The self-pipe that wakes `poll()`: read end, write end.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private let thread = Locked<pthread_t?>(nil)

    public init() throws(SocketError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SocketError(call: "pipe", subject: "event loop", errno: Glibc.errno) }
        Sockets.configure(ends[0])
        Sockets.configure(ends[1])
        wakeFD = ends[0]
        wakeWriteFD = ends[1]
    }

    /// Serves a listening socket from the loop's next turn on.
    public func add(_ listener: Listener) {
        shared.withLock { $0.newListeners.append(listener) }
        wake()
    }

    /// Starts the loop's thread.
    public func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let r = pthread_create(
            &tid, nil,
            { arg in
                let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
                loop.run()
                return nil
            }, box)
        precondition(r == 0, "pthread_create failed: \(r)")
        thread.withLock { $0 = tid }
    }

    /// Closes every connection and listener and ends the thread; returns once it has ended.
    public func stop() {
        shared.withLock { $0.stopping = true }
        wake()
        if let tid = thread.withLock({ t -> pthread_t? in
            defer { t = nil }; return t
        }) {
            pthread_join(tid, nil)
        }
    }

    /// Wakes the loop (new output to flush, a connection to close).
    public func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeWriteFD, &one, 1) // a full pipe already wakes the loop
    }

    private final class Entry {
        let connection: Connection
        let handler: any ConnectionHandler
        var inbound: [UInt8] = []
        init(connection: Connection, handler: any ConnectionHandler) { self.connection = connection; self.handler = handler }
    }

    private func run() {
        var listeners: [Listener] = []
        var entries: [Int32: Entry] = [:]
        var nextID = 1
        var fds: [pollfd] = []
        let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { readBuffer.deallocate() }

        func closeEntry(_ fd: Int32, _ reason: String) {
            guard let e = entries.removeValue(forKey: fd) else { return }
            e.connection.markClosed(reason)
            Sockets.close(fd)
            e.handler.closed(e.connection, reason: reason)
        }

        while true {
            let (stopping, added) = shared.withLock { s -> (Bool, [Listener]) in
                defer { s.newListeners.removeAll() }
                return (s.stopping, s.newListeners)
            }
            listeners.append(contentsOf: added)
            if stopping { break }

            // Close what is to close (flushed, cut off, or asked to).
            for (fd, e) in entries {
                if let reason = e.connection.closeNow() { closeEntry(fd, reason) }
            }

            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            for l in listeners { fds.append(pollfd(fd: l.fd, events: Int16(POLLIN), revents: 0)) }
            for (fd, e) in entries {
                var events = Int16(POLLIN)
                if e.connection.wantsWrite { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: fd, events: events, revents: 0))
            }
            let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), -1) }
            if n < 0 { continue } // EINTR

            if fds[0].revents != 0 {
                var drain = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
                while Glibc.read(wakeFD, &drain, 32) == 32 {}
            }
            for (i, l) in listeners.enumerated() where fds[1 + i].revents & Int16(POLLIN) != 0 {
                while let fd = Sockets.accept(l.fd) {
                    let connection = Connection(
                        id: nextID, fd: fd, peer: l.identify(fd), listenerName: l.name, limits: l.limits, loop: self)
                    nextID += 1
                    let entry = Entry(connection: connection, handler: l.makeHandler(connection))
                    entries[fd] = entry
                    entry.handler.connected(connection)
                }
            }
            for p in fds.dropFirst(1 + listeners.count) where p.revents != 0 {
                guard let e = entries[p.fd] else { continue }
                if p.revents & Int16(POLLOUT) != 0 { e.connection.flush() }
                guard p.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
                guard let got = Sockets.read(p.fd, into: readBuffer) else { continue }
                if got <= 0 {
                    closeEntry(p.fd, got == 0 ? "disconnected" : "read error")
                    continue
                }
                if e.connection.isClosing { continue } // closing: input is no longer read into lines
                var bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<got])
                while let nl = bytes.firstIndex(of: 10) {
                    if e.inbound.isEmpty {
                        e.handler.received(line: ArraySlice(bytes[bytes.startIndex..<nl]), on: e.connection)
                    } else {
                        e.inbound.append(contentsOf: bytes[bytes.startIndex..<nl])
                        e.handler.received(line: e.inbound[...], on: e.connection)
                        e.inbound.removeAll(keepingCapacity: true)
                    }
                    bytes = UnsafeRawBufferPointer(rebasing: bytes[(nl + 1)...])
                    if e.connection.isClosing { break }
                }
                if e.connection.isClosing { continue }
                if e.inbound.count + bytes.count > e.connection.limits.maxLineBytes {
                    e.inbound = []
                    e.handler.lineTooLong(on: e.connection, limitBytes: e.connection.limits.maxLineBytes)
                    e.connection.close(reason: "sent a line over \(e.connection.limits.maxLineBytes) bytes")
                } else {
                    e.inbound.append(contentsOf: bytes)
                }
            }
        }
        for fd in Array(entries.keys) { closeEntry(fd, "the daemon is stopping") }
        for l in listeners { Sockets.close(l.fd) }
    }
}

/// The monotonic clock, s.
public enum MonotonicTime {
    public static func nowS() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
