import CLodestoneSockets

#if canImport(Glibc)
    import Glibc
#endif

/// A failed socket call: which call, on what, and the kernel's reason.
public struct SocketError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The call that failed (`bind`, `connect`, …).
    public var call: String
    /// What it was called on (a path, an address).
    public var subject: String
    /// `errno` after the call (0 for a problem found before any call).
    public var errno: Int32
    /// A sentence when `errno` says nothing (a malformed address).
    public var detail: String?

    public init(call: String, subject: String, errno: Int32, detail: String? = nil) {
        self.call = call; self.subject = subject; self.errno = errno; self.detail = detail
    }

    public var description: String {
        if let detail { return "\(subject): \(detail)" }
        return "\(subject): \(call) failed: \(String(cString: strerror(errno)))"
    }
}

/// The thin layer over the socket system calls: the only `errno` reads and EINTR loops of this target.
public enum Sockets {
    /// Runs a call, retrying on EINTR; returns its result or throws with `errno`.
    @discardableResult
    static func retrying(_ call: String, _ subject: String, _ body: () -> Int32) throws(SocketError) -> Int32 {
        while true {
            let r = body()
            if r >= 0 { return r }
            let e = Glibc.errno
            if e == EINTR { continue }
            throw SocketError(call: call, subject: subject, errno: e)
        }
    }

    /// Makes a descriptor non-blocking and close-on-exec.
    public static func configure(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        let fdFlags = fcntl(fd, F_GETFD)
        if fdFlags >= 0 { _ = fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) }
    }

    /// A listening Unix stream socket at `path` (mode 0666: the daemon authorizes each peer by its credentials, not by
    /// the file's mode). A stale socket file nobody listens on is replaced; a live one is an error (another daemon).
    public static func listenUnix(path: String, backlog: Int32 = 128) throws(SocketError) -> Int32 {
        guard path.utf8.count < 108 else {
            throw SocketError(call: "bind", subject: path, errno: 0, detail: "the path is longer than 107 bytes")
        }
        if (try? connectUnix(path: path)).map({ close($0) }) != nil {
            throw SocketError(call: "bind", subject: path, errno: EADDRINUSE, detail: "another process already listens there")
        }
        unlink(path)
        let fd = try retrying("socket", path) { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) }
        do {
            var addr = unixAddress(path)
            try retrying("bind", path) {
                withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            chmod(path, 0o666)
            try retrying("listen", path) { listen(fd, backlog) }
        } catch {
            close(fd)
            throw error
        }
        configure(fd)
        return fd
    }

    /// A connected Unix stream socket (blocking).
    public static func connectUnix(path: String) throws(SocketError) -> Int32 {
        guard path.utf8.count < 108 else {
            throw SocketError(call: "connect", subject: path, errno: 0, detail: "the path is longer than 107 bytes")
        }
        let fd = try retrying("socket", path) { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) }
        var addr = unixAddress(path)
        do {
            try retrying("connect", path) {
                withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
        } catch {
            close(fd)
            throw error
        }
        let fdFlags = fcntl(fd, F_GETFD)
        if fdFlags >= 0 { _ = fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) }
        return fd
    }

    /// A TCP address `host:port` or `[v6]:port` as the kernel takes it.
    public enum TCPAddress: Sendable, Hashable {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)

        public static func == (a: TCPAddress, b: TCPAddress) -> Bool { a.description == b.description }
        public func hash(into h: inout Hasher) { h.combine(description) }

        /// Parses `127.0.0.1:2947`, `[::1]:2947`, `0.0.0.0:2947`.
        public static func parse(_ text: String) throws(SocketError) -> TCPAddress {
            let bad = SocketError(
                call: "parse", subject: text, errno: 0, detail: "expected HOST:PORT, e.g. 127.0.0.1:2947 or [::1]:2947")
            guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { throw bad }
            var host = String(text[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") {
                host = String(host.dropFirst().dropLast())
                var a = sockaddr_in6()
                a.sin6_family = sa_family_t(AF_INET6)
                a.sin6_port = port.bigEndian
                guard inet_pton(AF_INET6, host, &a.sin6_addr) == 1 else { throw bad }
                return .v6(a)
            }
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else { throw bad }
            return .v4(a)
        }

        public var port: UInt16 {
            switch self {
            case .v4(let a): UInt16(bigEndian: a.sin_port)
            case .v6(let a): UInt16(bigEndian: a.sin6_port)
            }
        }

        public var description: String {
            var buffer = [CChar](repeating: 0, count: 64)
            switch self {
            case .v4(var a):
                inet_ntop(AF_INET, &a.sin_addr, &buffer, 64)
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + ":\(port)"
            case .v6(var a):
                inet_ntop(AF_INET6, &a.sin6_addr, &buffer, 64)
                return "[" + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    + "]:\(port)"
            }
        }
    }

    /// A listening TCP socket (SO_REUSEADDR; IPv6 sockets are IPv6-only, as gpsd's).
    public static func listenTCP(_ address: TCPAddress, backlog: Int32 = 128) throws(SocketError) -> Int32 {
        let subject = address.description
        let family: Int32 = if case .v6 = address { AF_INET6 } else { AF_INET }
        let fd = try retrying("socket", subject) { socket(family, Int32(SOCK_STREAM.rawValue), 0) }
        do {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            switch address {
            case .v4(var a):
                try retrying("bind", subject) {
                    withUnsafePointer(to: &a) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            case .v6(var a):
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
                try retrying("bind", subject) {
                    withUnsafePointer(to: &a) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                        }
                    }
                }
            }
            try retrying("listen", subject) { listen(fd, backlog) }
        } catch {
            close(fd)
            throw error
        }
        configure(fd)
        return fd
    }

    /// A connected TCP socket (blocking), for tests and clients.
    public static func connectTCP(_ address: TCPAddress) throws(SocketError) -> Int32 {
        let subject = address.description
        let family: Int32 = if case .v6 = address { AF_INET6 } else { AF_INET }
        let fd = try retrying("socket", subject) { socket(family, Int32(SOCK_STREAM.rawValue), 0) }
        do {
            switch address {
            case .v4(var a):
                try retrying("connect", subject) {
                    withUnsafePointer(to: &a) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            case .v6(var a):
                try retrying("connect", subject) {
                    withUnsafePointer(to: &a) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                        }
                    }
                }
            }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Accepts one pending connection (non-blocking, close-on-exec); `nil` when none waits.
    public static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = lodestone_accept_nonblocking(listener)
            if fd >= 0 { return fd }
            if Glibc.errno == EINTR { continue }
            return nil
        }
    }

    /// The address family of a socket (`AF_UNIX`, `AF_INET`, `AF_INET6`), or -1.
    public static func family(_ fd: Int32) -> Int32 {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let r = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return r == 0 ? Int32(storage.ss_family) : -1
    }

    /// The peer address of a TCP socket as `host:port`.
    public static func peerAddress(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let r = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &len) }
        }
        guard r == 0 else { return "?" }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let a = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee } }
            return TCPAddress.v4(a).description
        case AF_INET6:
            let a = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee } }
            return TCPAddress.v6(a).description
        default: return "unix"
        }
    }

    /// Reads what is there: the byte count, 0 at end of stream, `nil` when nothing waits (EAGAIN), -1 on an error.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            let e = Glibc.errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return nil }
            return -1
        }
    }

    /// Writes what the socket takes now: the byte count (0 when it is full), or -1 when the peer is gone.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        while true {
            let n = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return n }
            let e = Glibc.errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return 0 }
            return -1
        }
    }

    /// Closes a descriptor (errors ignored: nothing to do about them).
    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    private static func unixAddress(_ path: String) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        return addr
    }
}

/// This process's user.
public enum ProcessIdentity {
    public static var uid: UInt32 { getuid() }
}

/// True when something exists at `path`.
public func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// Removes the file at `path` (errors ignored).
public func removeFile(_ path: String) { unlink(path) }
