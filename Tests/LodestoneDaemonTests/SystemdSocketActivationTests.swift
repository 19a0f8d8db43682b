import Glibc
import LodestoneSockets
import Testing

/// Real sockets moved to chosen descriptor numbers, as systemd passes them from fd 3 on. Each test takes its own
/// block of numbers, far above what the test process otherwise opens; the suite runs serialized besides.
private struct PassedDescriptors: ~Copyable {
    let firstFD: Int32
    private(set) var count: Int32 = 0
    private var paths: [String] = []

    init(firstFD: Int32) { self.firstFD = firstFD }

    deinit {
        for fd in firstFD..<(firstFD + count) { close(fd) }
        for path in paths { unlink(path) }
    }

    /// Moves `fd` to the next number (`dup2` leaves the copy without close-on-exec, as systemd passes it).
    mutating func pass(_ fd: Int32) throws {
        let target = firstFD + count
        try #require(dup2(fd, target) == target)
        close(fd)
        count += 1
    }

    /// A listening Unix stream socket at a fresh path (or abstract name); returns the path (`@name`).
    mutating func passUnixListener(abstract: Bool = false) throws -> String {
        let unique = "lodestone-test-listen-\(getpid())-\(firstFD + count)-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let path = abstract ? "@" + unique : "/tmp/" + unique + ".sock"
        let bytes = abstract ? [0] + Array(unique.utf8) : Array(path.utf8)
        try #require(withUnixAddress(bytes) { bind(fd, $0, $1) } == 0)
        try #require(listen(fd, 8) == 0)
        if !abstract { paths.append(path) }
        try pass(fd)
        return path
    }

    /// A listening TCP socket on loopback (IPv4 or IPv6), port chosen by the kernel; returns the port.
    mutating func passTCPListener(ipv6: Bool) throws -> UInt16 {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var bound: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        try #require(bound == 0, "bind: errno \(errno)")
        try #require(listen(fd, 8) == 0)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = withUnsafeBytes(of: storage) { bytes in
            ipv6
                ? UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port)
        }
        try pass(fd)
        return port
    }

    /// The environment systemd would set for these descriptors.
    func environment(names: String? = nil, pid: Int32 = getpid()) -> [String: String] {
        var environment = ["LISTEN_PID": "\(pid)", "LISTEN_FDS": "\(count)"]
        environment["LISTEN_FDNAMES"] = names
        return environment
    }
}

private func closeOnExec(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) & FD_CLOEXEC != 0 }

private func activationError(_ body: () throws(SystemdActivationError) -> [SystemdListeningSocket]) -> SystemdActivationError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

@Suite("systemd socket activation (SystemdSocketActivation)", .serialized)
struct SystemdSocketActivationTests {
    @Test("Unix, abstract, IPv4 and IPv6 listeners are classified and named, and made close-on-exec")
    func classifiesPassedSockets() throws {
        var passed = PassedDescriptors(firstFD: 600)
        let path = try passed.passUnixListener()
        let abstract = try passed.passUnixListener(abstract: true)
        let port4 = try passed.passTCPListener(ipv6: false)
        let port6 = try passed.passTCPListener(ipv6: true)
        for fd in 600..<Int32(604) { #expect(!closeOnExec(fd)) }

        let sockets = try SystemdSocketActivation.listeningSockets(
            environment: passed.environment(names: "native:native:gpsd:gpsd"), processID: getpid(), firstFD: 600)

        #expect(
            sockets == [
                SystemdListeningSocket(fd: 600, name: "native", endpoint: .unix(path: path)),
                SystemdListeningSocket(fd: 601, name: "native", endpoint: .unix(path: abstract)),
                SystemdListeningSocket(fd: 602, name: "gpsd", endpoint: .tcp(address: "127.0.0.1", port: port4)),
                SystemdListeningSocket(fd: 603, name: "gpsd", endpoint: .tcp(address: "::1", port: port6))
            ])
        for fd in 600..<Int32(604) { #expect(closeOnExec(fd)) }
        #expect(sockets[2].endpoint.description == "127.0.0.1:\(port4)")
        #expect(sockets[3].endpoint.description == "[::1]:\(port6)")
        #expect(sockets[0].description == "fd 600 (native) unix:\(path)")
    }

    @Test("Without LISTEN_FDNAMES the sockets have no names")
    func unnamedSockets() throws {
        var passed = PassedDescriptors(firstFD: 620)
        _ = try passed.passTCPListener(ipv6: false)
        let sockets = try SystemdSocketActivation.listeningSockets(
            environment: passed.environment(), processID: getpid(), firstFD: 620)
        #expect(sockets.count == 1)
        #expect(sockets.first?.name == nil)
    }

    @Test(
        "Not socket-activated: no variables, or LISTEN_FDS=0",
        arguments: [[:], ["LISTEN_FDS": "0"], ["LISTEN_FDS": "0", "LISTEN_FDNAMES": ""]] as [[String: String]])
    func notActivated(variables: [String: String]) throws {
        // LISTEN_PID added here, not in the arguments: Swift 6.0.3 crashes on string interpolation in @Test(arguments:).
        var environment = variables
        if !environment.isEmpty { environment["LISTEN_PID"] = String(getpid()) }
        #expect(try SystemdSocketActivation.listeningSockets(environment: environment, processID: getpid(), firstFD: 640).isEmpty)
    }

    @Test(
        "Malformed or foreign variables are errors that name the variable",
        arguments: [
            (["LISTEN_PID": "4242", "LISTEN_FDS": "1"], SystemdActivationError.wrongProcess(listenPID: 4242, processID: 77)),
            (["LISTEN_PID": "abc", "LISTEN_FDS": "1"], .invalidPID("abc")),
            (["LISTEN_PID": "0", "LISTEN_FDS": "1"], .invalidPID("0")),
            (["LISTEN_PID": "77", "LISTEN_FDS": "x"], .invalidCount("x")),
            (["LISTEN_PID": "77", "LISTEN_FDS": "-1"], .invalidCount("-1")),
            (["LISTEN_PID": "77", "LISTEN_FDS": "70000"], .invalidCount("70000")),
            (["LISTEN_FDS": "1"], .incompleteEnvironment(missing: "LISTEN_PID")),
            (["LISTEN_PID": "77"], .incompleteEnvironment(missing: "LISTEN_FDS")),
            (["LISTEN_PID": "77", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "native"], .nameCountMismatch(descriptors: 2, names: 1)),
            (["LISTEN_PID": "77", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "a:b"], .nameCountMismatch(descriptors: 1, names: 2))
        ] as [([String: String], SystemdActivationError)])
    func environmentErrors(environment: [String: String], expected: SystemdActivationError) {
        let error = activationError { () throws(SystemdActivationError) in
            try SystemdSocketActivation.listeningSockets(environment: environment, processID: 77, firstFD: 660)
        }
        #expect(error == expected)
        #expect(error?.description.hasPrefix("socket activation: ") == true)
    }

    @Test("A passed descriptor that is closed, not a socket, not listening or not a stream is an error naming it")
    func descriptorErrors() throws {
        // Closed.
        #expect(
            activationError { () throws(SystemdActivationError) in
                try SystemdSocketActivation.listeningSockets(
                    environment: ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "1"], processID: getpid(), firstFD: 680)
            } == .notOpen(fd: 680))

        // A pipe.
        var pipePassed = PassedDescriptors(firstFD: 690)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        try pipePassed.pass(ends[0])
        close(ends[1])
        #expect(
            activationError { () throws(SystemdActivationError) in
                try SystemdSocketActivation.listeningSockets(
                    environment: pipePassed.environment(), processID: getpid(), firstFD: 690)
            } == .notASocket(fd: 690))

        // A stream socket that never listened, after a good one: the second descriptor is named.
        var idle = PassedDescriptors(firstFD: 700)
        _ = try idle.passTCPListener(ipv6: false)
        try idle.pass(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        #expect(
            activationError { () throws(SystemdActivationError) in
                try SystemdSocketActivation.listeningSockets(environment: idle.environment(), processID: getpid(), firstFD: 700)
            } == .notListening(fd: 701))

        // A datagram socket (ListenDatagram=).
        var datagram = PassedDescriptors(firstFD: 710)
        try datagram.pass(socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0))
        let error = activationError { () throws(SystemdActivationError) in
            try SystemdSocketActivation.listeningSockets(environment: datagram.environment(), processID: getpid(), firstFD: 710)
        }
        #expect(error == .notAStreamSocket(fd: 710, type: Int32(SOCK_DGRAM.rawValue)))
        #expect(error?.description.contains("ListenStream=") == true)
    }

    @Test("The descriptors of the sockets stay usable: a client connects through the classified endpoint")
    func classifiedEndpointAccepts() throws {
        var passed = PassedDescriptors(firstFD: 720)
        let port = try passed.passTCPListener(ipv6: false)
        let sockets = try SystemdSocketActivation.listeningSockets(
            environment: passed.environment(), processID: getpid(), firstFD: 720)
        guard case .tcp(_, let listenPort)? = sockets.first?.endpoint else {
            Issue.record("not TCP: \(sockets)")
            return
        }
        #expect(listenPort == port)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        let accepted = accept(sockets[0].fd, nil, nil)
        #expect(accepted >= 0)
        close(accepted)
    }
}
