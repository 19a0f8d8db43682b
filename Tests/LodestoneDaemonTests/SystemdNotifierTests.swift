import Glibc
import LodestoneSockets
import Testing

/// A real `AF_UNIX`/`SOCK_DGRAM` socket standing in for systemd's notify socket, at a path or an abstract name.
final class NotifyReceiver {
    let fd: Int32
    /// The value for `NOTIFY_SOCKET`: the path, or `@name`.
    let notifySocket: String

    init(abstract: Bool) throws {
        let unique = "lodestone-test-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        notifySocket = abstract ? "@" + unique : "/tmp/" + unique + ".sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        let pathBytes = abstract ? [0] + Array(unique.utf8) : Array(notifySocket.utf8)
        let bound = withUnixAddress(pathBytes) { bind(fd, $0, $1) }
        try #require(bound == 0, "bind \(notifySocket): errno \(errno)")
    }

    deinit {
        close(fd)
        if notifySocket.hasPrefix("/") { unlink(notifySocket) }
    }

    /// The next datagram, or `nil` after `timeoutMs`.
    func receive(timeoutMs: Int32 = 2000) -> String? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMs) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n >= 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }
}

/// Calls `body` with a `sockaddr_un` holding `pathBytes` (a leading 0 for an abstract name) and its exact length.
func withUnixAddress<Result>(_ pathBytes: [UInt8], _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + pathBytes.count)
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
}

@Suite("systemd notify protocol (SystemdNotifier)")
struct SystemdNotifierTests {
    @Test(
        "NOTIFY_SOCKET: an absolute path or @abstract name; anything else is no notifier",
        arguments: [
            ("/run/systemd/notify", SystemdNotifier.Address.path("/run/systemd/notify")),
            ("@/org/freedesktop/systemd1/notify/42", .abstract("/org/freedesktop/systemd1/notify/42")),
            ("", nil), ("run/systemd/notify", nil), ("@", nil),
            ("/" + String(repeating: "a", count: 106), .path("/" + String(repeating: "a", count: 106))),
            ("/" + String(repeating: "a", count: 107), nil)
        ] as [(String, SystemdNotifier.Address?)])
    func parsesNotifySocket(value: String, expected: SystemdNotifier.Address?) {
        #expect(SystemdNotifier.Address(notifySocket: value) == expected)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": value], processID: 1)?.address == expected)
    }

    @Test("Not under systemd (no NOTIFY_SOCKET): no notifier")
    func nilWithoutNotifySocket() {
        #expect(SystemdNotifier(environment: [:], processID: getpid()) == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000"], processID: getpid()) == nil)
    }

    @Test(
        "WATCHDOG_USEC in seconds, only for this process (WATCHDOG_PID) and only when positive",
        arguments: [
            (["WATCHDOG_USEC": "10000000"], 10.0), (["WATCHDOG_USEC": "500000", "WATCHDOG_PID": "42"], 0.5),
            (["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "43"], nil), (["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "x"], nil),
            (["WATCHDOG_USEC": "0"], nil), (["WATCHDOG_USEC": "-5"], nil), (["WATCHDOG_USEC": "10 s"], nil),
            (["WATCHDOG_PID": "42"], nil), ([:], nil)
        ] as [([String: String], Double?)])
    func watchdogInterval(environment: [String: String], expectedS: Double?) throws {
        #expect(SystemdNotifier.watchdogIntervalS(environment: environment, processID: 42) == expectedS)
        var withSocket = environment
        withSocket["NOTIFY_SOCKET"] = "/run/systemd/notify"
        let notifier = try #require(SystemdNotifier(environment: withSocket, processID: 42))
        #expect(notifier.watchdogIntervalS == expectedS)
        #expect(notifier.watchdogPingIntervalS == expectedS.map { $0 / 2 })
    }

    @Test("Each message arrives as one datagram at a path socket and at an abstract one", arguments: [false, true])
    func sendsDatagrams(abstract: Bool) throws {
        let receiver = try NotifyReceiver(abstract: abstract)
        let notifier = try #require(
            SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket], processID: getpid()))
        #expect(notifier.ready(status: "Serving 3 sockets"))
        #expect(receiver.receive() == "READY=1\nSTATUS=Serving 3 sockets")
        #expect(notifier.watchdog())
        #expect(receiver.receive() == "WATCHDOG=1")
        #expect(notifier.status("2 clients"))
        #expect(receiver.receive() == "STATUS=2 clients")
        #expect(notifier.reloading(monotonicUs: 123_456_789))
        #expect(receiver.receive() == "RELOADING=1\nMONOTONIC_USEC=123456789")
        #expect(notifier.stopping())
        #expect(receiver.receive() == "STOPPING=1")
        #expect(notifier.failure(errno: ENOENT, status: "no board file"))
        #expect(receiver.receive() == "ERRNO=2\nSTATUS=no board file")
        #expect(notifier.notify("READY=1\nSTATUS=a\nEXTEND_TIMEOUT_USEC=5000000"))
        #expect(receiver.receive() == "READY=1\nSTATUS=a\nEXTEND_TIMEOUT_USEC=5000000")
    }

    @Test("RELOADING=1 carries CLOCK_MONOTONIC now, in microseconds")
    func reloadingUsesMonotonicClock() throws {
        let receiver = try NotifyReceiver(abstract: true)
        let notifier = try #require(
            SystemdNotifier(address: .abstract(String(receiver.notifySocket.dropFirst())), watchdogIntervalS: nil))
        let beforeUs = SystemdNotifier.monotonicNowUs()
        #expect(notifier.reloading())
        let afterUs = SystemdNotifier.monotonicNowUs()
        let message = try #require(receiver.receive())
        let sentUs = try #require(UInt64(message.split(separator: "=").last!))
        #expect(message.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(beforeUs <= sentUs && sentUs <= afterUs)
    }

    @Test("No manager listening: notify returns false and does not throw")
    func falseWithoutReceiver() throws {
        let gone = "/tmp/lodestone-test-notify-gone-\(getpid()).sock"
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": gone], processID: getpid()))
        #expect(!notifier.notify("READY=1"))
        let abstract = try #require(
            SystemdNotifier(address: .abstract("lodestone-test-nobody-\(getpid())"), watchdogIntervalS: nil))
        #expect(!abstract.watchdog())
    }

    @Test("A manager that stops reading never blocks the sender: the full queue drops messages")
    func neverBlocksOnFullQueue() throws {
        let receiver = try NotifyReceiver(abstract: false)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.notifySocket], processID: getpid()))
        let clock = ContinuousClock()
        var sent = 0
        var dropped = 0
        let elapsed = clock.measure {
            for _ in 0..<5000 {
                if notifier.watchdog() { sent += 1 } else { dropped += 1 }
            }
        }
        #expect(sent > 0)
        #expect(dropped > 0, "the receiver's queue (net.unix.max_dgram_qlen) never filled")
        #expect(elapsed < .seconds(5))
        #expect(receiver.receive() == "WATCHDOG=1")
    }
}
