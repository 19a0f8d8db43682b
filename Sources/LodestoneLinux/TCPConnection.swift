import CLodestoneLinux
#if canImport(Glibc)
    import Glibc
#endif

/// A TCP client connection with non-blocking reads: how the engine talks to a running gpsd (gpsd(8) listens on
/// 127.0.0.1:2947 by default) or any other line-oriented service.
public final class TCPConnection {
    /// `host:port` as given.
    public let endpoint: String
    private var fd: Int32 = -1

    /// Connects to `host` (name or address) on `port`, waiting at most `timeoutS`.
    /// - Throws: `TCPError` (refused, unreachable, timed out, unknown host), one line.
    public init(host: String, port: Int, timeoutS: Double = 2) throws(TCPError) {
        endpoint = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw TCPError(kind: .unknownHost, endpoint: endpoint, detail: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var lastError = TCPError(kind: .refused, endpoint: endpoint, detail: "no address")
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            defer { ai = a.pointee.ai_next }
            let s: Int32
            switch Syscalls.call(
                .minusOneSetsErrno,
                {
                    socket(
                        a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                        a.pointee.ai_protocol)
                })
            {
            case .success(let d): s = d
            case .failure(let e): lastError = TCPError(e, endpoint: endpoint); continue
            }
            let r = Syscalls.call(
                .minusOneSetsErrno, retryOnInterrupt: false, { connect(s, a.pointee.ai_addr, a.pointee.ai_addrlen) })
            if case .failure(let e) = r, e.rawValue != EINPROGRESS {
                _ = Syscalls.close(s); lastError = TCPError(e, endpoint: endpoint); continue
            }
            var p = pollfd(fd: s, events: Int16(POLLOUT), revents: 0)
            let n = Syscalls.call(.minusOneSetsErrno, { poll(&p, 1, Int32(timeoutS * 1000)) })
            guard case .success(let ready) = n, ready > 0 else {
                _ = Syscalls.close(s);
                lastError = TCPError(kind: .timedOut, endpoint: endpoint, detail: "no answer in \(timeoutS) s"); continue
            }
            var soError: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(s, SOL_SOCKET, SO_ERROR, &soError, &len)
            if soError != 0 { _ = Syscalls.close(s); lastError = TCPError(Errno(soError), endpoint: endpoint); continue }
            fd = s
            return
        }
        throw lastError
    }

    deinit { close() }

    /// Reads what has arrived, without waiting; 0 when nothing is there.
    /// - Throws: `.closed` when the peer closed the connection (or reset it).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TCPError) -> Int {
        guard fd >= 0 else { throw TCPError(kind: .closed, endpoint: endpoint, detail: "not connected") }
        switch Syscalls.read(fd, into: buffer) {
        case .success(0): throw TCPError(kind: .closed, endpoint: endpoint, detail: "the peer closed the connection")
        case .success(let n): return n
        case .failure(let e) where e.rawValue == EAGAIN || e.rawValue == EWOULDBLOCK: return 0
        case .failure(let e): throw TCPError(e, endpoint: endpoint)
        }
    }

    /// Sends all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(TCPError) {
        var offset = 0
        while offset < bytes.count {
            let r = bytes.withUnsafeBytes { Syscalls.write(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch r {
            case .success(let n): offset += n
            case .failure(let e) where e.rawValue == EAGAIN:
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = Syscalls.call(.minusOneSetsErrno, { poll(&p, 1, 1000) })
            case .failure(let e): throw TCPError(e, endpoint: endpoint)
            }
        }
    }

    /// Closes the connection (idempotent).
    public func close() { if fd >= 0 { _ = Syscalls.close(fd); fd = -1 } }
}

/// A TCP failure, one line.
public struct TCPError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case refused, timedOut, unknownHost, closed, other }
    public var kind: Kind
    public var endpoint: String
    public var detail: String

    public init(kind: Kind, endpoint: String, detail: String) { self.kind = kind; self.endpoint = endpoint; self.detail = detail }

    init(_ e: Errno, endpoint: String) {
        let kind: Kind =
            switch e.rawValue {
            case ECONNREFUSED: .refused
            case ETIMEDOUT: .timedOut
            case ECONNRESET, EPIPE: .closed
            default: .other
            }
        self.init(kind: kind, endpoint: endpoint, detail: "\(e.description) [errno \(e.rawValue)]")
    }

    public var description: String {
        let what: String =
            switch kind {
            case .refused: "connection refused: is the daemon running and listening there?"
            case .timedOut: "no answer: check the address and the firewall"
            case .unknownHost: "unknown host"
            case .closed: "connection closed"
            case .other: "failed"
            }
        return "\(endpoint): \(what) (\(detail))"
    }
}
