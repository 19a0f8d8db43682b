#if canImport(Glibc)
    import Glibc
#endif

/// One listening socket a socket unit passed to the service (`sd_listen_fds_with_names(3)`).
public struct SystemdListeningSocket: Sendable, Hashable, CustomStringConvertible {
    /// What the socket listens on, from `getsockname(2)`.
    public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// An `AF_UNIX` stream socket: its path, or `@name` in the abstract namespace (`""` when unnamed).
        case unix(path: String)
        /// An `AF_INET`/`AF_INET6` stream socket: its numeric address (`127.0.0.1`, `::1`; no brackets) and port.
        case tcp(address: String, port: UInt16)

        /// `unix:PATH`, `127.0.0.1:2947` or `[::1]:2947`.
        public var description: String {
            switch self {
            case .unix(let path): "unix:" + path
            case .tcp(let address, let port): address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
            }
        }
    }

    /// The descriptor (3, 4, … in the order of the socket unit's `Listen*=` lines); close-on-exec.
    public var fd: Int32
    /// The socket's `FileDescriptorName=` (systemd names it after the socket unit, e.g. `lodestone.socket`, when the
    /// unit gives none); `nil` when the manager passed no `LISTEN_FDNAMES`.
    public var name: String?
    /// What it listens on.
    public var endpoint: Endpoint

    /// Creates a description of a listening socket.
    public init(fd: Int32, name: String?, endpoint: Endpoint) {
        self.fd = fd
        self.name = name
        self.endpoint = endpoint
    }

    /// `fd 3 (native) unix:/run/lodestone/lodestone.sock`.
    public var description: String { "fd \(fd)" + (name.map { " (\($0))" } ?? "") + " \(endpoint)" }
}

/// Why the inherited sockets cannot be used: an environmental error, with the variable or descriptor at fault.
public enum SystemdActivationError: Error, Equatable, CustomStringConvertible {
    /// `LISTEN_PID` is not a process id.
    case invalidPID(String)
    /// `LISTEN_PID` names another process: the variables were inherited, not meant for this one.
    case wrongProcess(listenPID: Int32, processID: Int32)
    /// `LISTEN_FDS` is not a count of descriptors (0 … 65536).
    case invalidCount(String)
    /// `LISTEN_FDS` without `LISTEN_PID`, or `LISTEN_PID` without `LISTEN_FDS`.
    case incompleteEnvironment(missing: String)
    /// `LISTEN_FDNAMES` has a different number of names than `LISTEN_FDS` says.
    case nameCountMismatch(descriptors: Int, names: Int)
    /// The descriptor is not open (`EBADF`).
    case notOpen(fd: Int32)
    /// The descriptor is open but not a socket (`ENOTSOCK`).
    case notASocket(fd: Int32)
    /// The socket is not `SOCK_STREAM` (`SO_TYPE`; e.g. a `ListenDatagram=`).
    case notAStreamSocket(fd: Int32, type: Int32)
    /// The socket is not listening (`SO_ACCEPTCONN` is 0; e.g. a connection of an `Accept=yes` unit).
    case notListening(fd: Int32)
    /// The socket's family is none of `AF_UNIX`, `AF_INET`, `AF_INET6`.
    case unsupportedFamily(fd: Int32, family: Int32)
    /// A system call failed on the descriptor.
    case systemCall(String, fd: Int32, errno: Int32)

    /// One line: what, where, what to do.
    public var description: String {
        switch self {
        case .invalidPID(let text):
            "socket activation: LISTEN_PID=\(text) is not a process id"
        case .wrongProcess(let listenPID, let processID):
            "socket activation: LISTEN_PID=\(listenPID) is not this process (\(processID)); the variables were inherited "
                + "from the process that started this one: unset LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES there"
        case .invalidCount(let text):
            "socket activation: LISTEN_FDS=\(text) is not a count of descriptors"
        case .incompleteEnvironment(let missing):
            "socket activation: \(missing) is missing (systemd sets LISTEN_PID and LISTEN_FDS together)"
        case .nameCountMismatch(let descriptors, let names):
            "socket activation: LISTEN_FDNAMES has \(names) names for LISTEN_FDS=\(descriptors) descriptors"
        case .notOpen(let fd):
            "socket activation: fd \(fd) is not open, though LISTEN_FDS says it was passed"
        case .notASocket(let fd):
            "socket activation: fd \(fd) is not a socket; check the socket unit's Listen*= lines"
        case .notAStreamSocket(let fd, let type):
            "socket activation: fd \(fd) is not a stream socket (SO_TYPE \(type)); use ListenStream= in the socket unit"
        case .notListening(let fd):
            "socket activation: fd \(fd) is not listening; the socket unit must not say Accept=yes"
        case .unsupportedFamily(let fd, let family):
            "socket activation: fd \(fd) has address family \(family); only AF_UNIX, AF_INET and AF_INET6 are served"
        case .systemCall(let name, let fd, let code):
            "socket activation: \(name) on fd \(fd) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

/// systemd's socket-activation protocol (`sd_listen_fds(3)`), written directly: the manager passes listening sockets
/// as descriptors 3, 4, … and describes them in `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES`.
public enum SystemdSocketActivation {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstFD: Int32 = 3
    /// The variables the protocol uses.
    public static let environmentNames = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]
    /// More descriptors than this in `LISTEN_FDS` is a corrupt variable, not a socket unit.
    static let maximumCount = 65536

    /// The sockets passed to this process, each made close-on-exec; `[]` when it was not socket-activated. The
    /// variables are removed from the environment whatever the outcome, so that children do not inherit them.
    public static func listeningSockets() throws(SystemdActivationError) -> [SystemdListeningSocket] {
        let environment = SystemdEnvironment.current(environmentNames)
        defer { SystemdEnvironment.unset(environmentNames) }
        return try listeningSockets(environment: environment, processID: getpid())
    }

    /// The testable core of ``listeningSockets()``: parses `environment`, then checks and classifies descriptors
    /// `firstFD` … `firstFD + LISTEN_FDS - 1` of this process and sets close-on-exec on each. Does not touch the
    /// process environment.
    /// - Parameters:
    ///   - environment: `LISTEN_PID`, `LISTEN_FDS`, optional `LISTEN_FDNAMES` (colon-separated); without the first
    ///     two, the result is `[]`.
    ///   - processID: this process (`LISTEN_PID` must name it).
    ///   - firstFD: where the passed descriptors start (3 under systemd; tests pass their own).
    public static func listeningSockets(environment: [String: String], processID: Int32, firstFD: Int32 = firstFD)
        throws(SystemdActivationError) -> [SystemdListeningSocket]
    {
        let pidText = environment["LISTEN_PID"]
        let countText = environment["LISTEN_FDS"]
        if pidText == nil, countText == nil { return [] }
        guard let pidText else { throw .incompleteEnvironment(missing: "LISTEN_PID") }
        guard let countText else { throw .incompleteEnvironment(missing: "LISTEN_FDS") }
        guard let listenPID = Int32(pidText), listenPID > 0 else { throw .invalidPID(pidText) }
        guard listenPID == processID else { throw .wrongProcess(listenPID: listenPID, processID: processID) }
        guard let count = Int(countText), count >= 0, count <= maximumCount, Int(firstFD) + count <= Int(Int32.max) else {
            throw .invalidCount(countText)
        }
        var names: [String?] = Array(repeating: nil, count: count)
        if let namesText = environment["LISTEN_FDNAMES"] {
            let split = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            // An empty LISTEN_FDNAMES with no descriptors is consistent; "" splits into one empty name.
            let given = (count == 0 && namesText.isEmpty) ? [] : split
            guard given.count == count else { throw .nameCountMismatch(descriptors: count, names: given.count) }
            names = given
        }
        var sockets: [SystemdListeningSocket] = []
        for index in 0..<count {
            let fd = firstFD + Int32(index)
            try setCloseOnExec(fd)
            sockets.append(SystemdListeningSocket(fd: fd, name: names[index], endpoint: try endpoint(of: fd)))
        }
        return sockets
    }

    /// Sets `FD_CLOEXEC` (systemd passes the descriptors without it, so that they survive its `execve`).
    static func setCloseOnExec(_ fd: Int32) throws(SystemdActivationError) {
        let flags = fcntl(fd, F_GETFD)
        guard flags >= 0 else { throw errno == EBADF ? .notOpen(fd: fd) : .systemCall("fcntl(F_GETFD)", fd: fd, errno: errno) }
        if flags & FD_CLOEXEC == 0, fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0 {
            throw .systemCall("fcntl(F_SETFD)", fd: fd, errno: errno)
        }
    }

    /// Classifies a passed descriptor: a listening stream socket on a Unix path or a TCP address, or an error.
    public static func endpoint(of fd: Int32) throws(SystemdActivationError) -> SystemdListeningSocket.Endpoint {
        let type = try integerOption(SO_TYPE, fd: fd)
        guard type == Int32(SOCK_STREAM.rawValue) else { throw .notAStreamSocket(fd: fd, type: type) }
        guard try integerOption(SO_ACCEPTCONN, fd: fd) != 0 else { throw .notListening(fd: fd) }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw .systemCall("getsockname", fd: fd, errno: errno) }
        switch Int32(storage.ss_family) {
        case AF_UNIX:
            return .unix(path: unixPath(storage, length: Int(length)))
        case AF_INET:
            let address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
            let text = withUnsafeBytes(of: address.sin_addr) { numeric(AF_INET, $0) }
            return .tcp(address: text, port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
            let text = withUnsafeBytes(of: address.sin6_addr) { numeric(AF_INET6, $0) }
            return .tcp(address: text, port: UInt16(bigEndian: address.sin6_port))
        case let family:
            throw .unsupportedFamily(fd: fd, family: family)
        }
    }

    private static func integerOption(_ option: Int32, fd: Int32) throws(SystemdActivationError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, option, &value, &length) == 0 else {
            switch errno {
            case ENOTSOCK: throw .notASocket(fd: fd)
            case EBADF: throw .notOpen(fd: fd)
            case let code: throw .systemCall("getsockopt", fd: fd, errno: code)
            }
        }
        return value
    }

    /// `sun_path` of a `getsockname` result: up to the first NUL for a path, `@` and the rest for an abstract name.
    private static func unixPath(_ storage: sockaddr_storage, length: Int) -> String {
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        guard length > pathOffset else { return "" }
        let bytes = withUnsafeBytes(of: storage) { Array($0[pathOffset..<min(length, MemoryLayout<sockaddr_storage>.size)]) }
        if bytes.first == 0 { return "@" + String(decoding: bytes.dropFirst(), as: UTF8.self) }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// `inet_ntop(3)` of an `in_addr` or `in6_addr`.
    private static func numeric(_ family: Int32, _ address: UnsafeRawBufferPointer) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, address.baseAddress, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
