#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol (`sd_notify(3)`), written directly: one `AF_UNIX`/`SOCK_DGRAM` datagram of
/// newline-separated `KEY=VALUE` fields to the socket named by `NOTIFY_SOCKET`.
///
/// `Type=notify` services tell the manager `READY=1` once they serve, `STATUS=…` for `systemctl status`,
/// `WATCHDOG=1` while they make progress (`WatchdogSec=`), `STOPPING=1` when they begin to shut down and
/// `RELOADING=1` with `MONOTONIC_USEC=` when they reload. Sending never blocks (a non-blocking socket: a full queue
/// drops the message) and never throws: ``notify(_:)`` says whether the datagram went out. Without systemd there is
/// no notifier (``fromEnvironment()`` is `nil`), so callers write `notifier?.notify("READY=1")`.
///
/// Sendable: every stored property is immutable, and `sendto(2)` on one datagram socket from several threads is safe
/// (each call is one whole datagram).
public final class SystemdNotifier: Sendable {
    /// Where the manager listens: `NOTIFY_SOCKET` is a file system path (`/run/systemd/notify`) or, with a leading `@`,
    /// a name in the abstract namespace (sent as a leading NUL byte).
    public enum Address: Sendable, Hashable, CustomStringConvertible {
        /// A socket file, an absolute path.
        case path(String)
        /// An abstract socket name, without the leading `@` (or NUL).
        case abstract(String)

        /// Parses `NOTIFY_SOCKET`: an absolute path or `@name`; `nil` for anything else (empty, relative, too long
        /// for `sockaddr_un`: 107 bytes of path, or 107 of abstract name after its NUL).
        public init?(notifySocket value: String) {
            if value.hasPrefix("/") {
                guard value.utf8.count <= Self.maximumPathBytes else { return nil }
                self = .path(value)
            } else if value.hasPrefix("@") {
                let name = String(value.dropFirst())
                guard !name.isEmpty, name.utf8.count <= Self.maximumPathBytes else { return nil }
                self = .abstract(name)
            } else {
                return nil
            }
        }

        /// `sun_path` is 108 bytes; a path keeps one for its terminating NUL, an abstract name one for its leading NUL.
        static let maximumPathBytes = 107

        /// The value as `NOTIFY_SOCKET` writes it.
        public var description: String {
            switch self {
            case .path(let path): path
            case .abstract(let name): "@" + name
            }
        }
    }

    /// The manager's notify socket.
    public let address: Address
    /// The watchdog limit the manager enforces (`WatchdogSec=`, from `WATCHDOG_USEC`), seconds; `nil` when the
    /// watchdog is off or meant for another process (`WATCHDOG_PID`). Ping with `WATCHDOG=1` at about half of it.
    public let watchdogIntervalS: Double?
    /// The sending socket: `SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC`, unbound.
    private let fd: Int32

    /// The notifier of this process: `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from the environment;
    /// `nil` when not started by systemd as a notify service (no or an unusable `NOTIFY_SOCKET`).
    public static func fromEnvironment() -> SystemdNotifier? {
        SystemdNotifier(environment: SystemdEnvironment.current(SystemdNotifier.environmentNames), processID: getpid())
    }

    /// The variables ``fromEnvironment()`` reads.
    public static let environmentNames = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// A notifier from the given variables (the testable core of ``fromEnvironment()``); `nil` without a usable
    /// `NOTIFY_SOCKET`, or when no socket can be made.
    /// - Parameters:
    ///   - environment: at least `NOTIFY_SOCKET`; `WATCHDOG_USEC` (microseconds, > 0) and `WATCHDOG_PID` optional.
    ///   - processID: this process; the watchdog is ours only when `WATCHDOG_PID` is absent or equal to it.
    public convenience init?(environment: [String: String], processID: Int32) {
        guard let value = environment["NOTIFY_SOCKET"], let address = Address(notifySocket: value) else { return nil }
        self.init(
            address: address,
            watchdogIntervalS: Self.watchdogIntervalS(environment: environment, processID: processID))
    }

    /// A notifier sending to `address`; `nil` when `socket(2)` fails (no descriptors left).
    /// - Parameter watchdogIntervalS: the manager's watchdog limit, seconds, or `nil`.
    public init?(address: Address, watchdogIntervalS: Double?) {
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.address = address
        self.watchdogIntervalS = watchdogIntervalS
    }

    deinit { close(fd) }

    /// `WATCHDOG_USEC` as seconds when it is a positive integer and `WATCHDOG_PID` is absent or `processID`
    /// (`sd_watchdog_enabled(3)`); `nil` otherwise.
    public static func watchdogIntervalS(environment: [String: String], processID: Int32) -> Double? {
        guard let text = environment["WATCHDOG_USEC"], let intervalUs = UInt64(text), intervalUs > 0 else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let pid = Int32(pidText), pid == processID else { return nil }
        }
        return Double(intervalUs) / 1_000_000
    }

    /// How often to send `WATCHDOG=1`: half the manager's limit (`sd_watchdog_enabled(3)` advises pinging at half),
    /// seconds; `nil` without a watchdog.
    public var watchdogPingIntervalS: Double? { watchdogIntervalS.map { $0 / 2 } }

    /// Sends `fields` (newline-separated `KEY=VALUE`, e.g. `"READY=1\nSTATUS=Serving"`) as one datagram.
    ///
    /// Never blocks and never throws: returns `false` when the datagram was not sent (the manager is gone, its queue
    /// is full, the message is larger than a datagram may be).
    @discardableResult
    public func notify(_ fields: String) -> Bool {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        var pathBytes: [UInt8]
        switch address {
        case .path(let path): pathBytes = Array(path.utf8)
        case .abstract(let name): pathBytes = [0] + Array(name.utf8)
        }
        withUnsafeMutableBytes(of: &storage.sun_path) { sunPath in
            sunPath.copyBytes(from: pathBytes.prefix(sunPath.count))
        }
        // A path is sent with its NUL (as sd_notify does); an abstract name exactly, since every byte is part of it.
        if case .path = address { pathBytes.append(0) }
        let length = socklen_t(pathOffset + min(pathBytes.count, MemoryLayout.size(ofValue: storage.sun_path)))
        var message = Array(fields.utf8)
        return message.withUnsafeMutableBytes { body in
            withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    while true {
                        let sent = sendto(fd, body.baseAddress, body.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                        if sent >= 0 { return sent == body.count }
                        if errno != EINTR { return false }
                    }
                }
            }
        }
    }

    /// `READY=1`, with `STATUS=` when given: the service is up (`Type=notify`).
    @discardableResult
    public func ready(status: String? = nil) -> Bool {
        notify("READY=1" + (status.map { "\nSTATUS=" + $0 } ?? ""))
    }

    /// `STATUS=…`: one line for `systemctl status`.
    @discardableResult
    public func status(_ text: String) -> Bool { notify("STATUS=" + text) }

    /// `WATCHDOG=1`: the service made progress since the last ping.
    @discardableResult
    public func watchdog() -> Bool { notify("WATCHDOG=1") }

    /// `STOPPING=1`: the service begins to shut down.
    @discardableResult
    public func stopping(status: String? = nil) -> Bool {
        notify("STOPPING=1" + (status.map { "\nSTATUS=" + $0 } ?? ""))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC=` (now, `CLOCK_MONOTONIC`, as systemd 253+ requires for
    /// `Type=notify-reload`); send ``ready(status:)`` again when the reload is done.
    @discardableResult
    public func reloading(monotonicUs: UInt64 = SystemdNotifier.monotonicNowUs()) -> Bool {
        notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicUs)")
    }

    /// `ERRNO=N` (with `STATUS=` when given): why the service fails, as an `errno` value.
    @discardableResult
    public func failure(errno code: Int32, status: String? = nil) -> Bool {
        notify("ERRNO=\(code)" + (status.map { "\nSTATUS=" + $0 } ?? ""))
    }

    /// `CLOCK_MONOTONIC` now, microseconds (the clock `MONOTONIC_USEC=` is on).
    public static func monotonicNowUs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}

/// The few environment variables systemd's protocols read, through `getenv(3)` (named, never the whole `environ`).
public enum SystemdEnvironment {
    /// The values of `names` that are set in this process's environment.
    public static func current(_ names: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }

    /// Removes `names` from this process's environment (`unsetenv(3)`: call it before other threads read the
    /// environment, i.e. at startup).
    public static func unset(_ names: [String]) {
        for name in names { unsetenv(name) }
    }
}
