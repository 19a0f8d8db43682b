import Glibc
import LodestoneCore
import Testing
@testable import LodestoneLinux

/// A private network namespace for the calling thread, with only its loopback interface, up.
///
/// iiod 0.24 has no bind-address option: it listens on `[::]` (all interfaces, IPv4 mapped). Run in a network
/// namespace of its own, it is reachable from nothing but the test's own thread over 127.0.0.1, its port can
/// never collide with another iiod (a board with Debian's `iiod.service` running holds 30431), and "nothing
/// listens on 30431" is a fact rather than a hope. Like the mount namespace, a network namespace belongs to the
/// thread that unshared it (and to children it spawns); sockets stay in the namespace they were created in.
enum NetworkNamespace {
    /// `unshare(CLONE_NEWNET)` on the calling thread, then `lo` up (a new namespace starts with it down).
    /// Looked up like `MountNamespace.unshareMountNamespace`; `CLONE_NEWNET` is 0x40000000 (`linux/sched.h`).
    static func enterWithLoopbackUp() throws {
        typealias Unshare = @convention(c) (Int32) -> Int32
        guard let symbol = dlsym(nil, "unshare") else { throw TestFailure("no unshare symbol in libc") }
        let cloneNewNet: Int32 = 0x4000_0000
        guard unsafeBitCast(symbol, to: Unshare.self)(cloneNewNet) == 0 else {
            throw TestFailure("unshare(CLONE_NEWNET) failed, errno \(errno)")
        }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket for SIOCSIFFLAGS: errno \(errno)") }
        defer { close(fd) }
        var request = ifreq()
        withUnsafeMutableBytes(of: &request.ifr_ifrn.ifrn_name) { $0.copyBytes(from: Array("lo".utf8)) }
        guard ioctl(fd, UInt(SIOCGIFFLAGS), &request) == 0 else { throw TestFailure("SIOCGIFFLAGS lo: errno \(errno)") }
        request.ifr_ifru.ifru_flags |= Int16(IFF_UP)
        guard ioctl(fd, UInt(SIOCSIFFLAGS), &request) == 0 else { throw TestFailure("SIOCSIFFLAGS lo up: errno \(errno)") }
    }

    /// True when a TCP connection to 127.0.0.1:`port` is accepted now.
    static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian // INADDR_LOOPBACK
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// Debian's `iiod` (package `iiod`, libiio 0.24) as a child of the calling thread, serving `local:` as that
/// thread's mount namespace shows it, on `port`, its output in `logPath`.
///
/// It runs under util-linux's `setpriv --pdeathsig KILL`, so even if the test process dies before `stop()` the
/// kernel kills it (the "parent" is the spawning thread, which lives until `stop()` has reaped it).
final class IIODaemon {
    let pid: pid_t
    let port: UInt16
    let logPath: String
    /// Set once `waitpid` has returned it: its pid may then be reused, so it is never signalled again.
    private var reaped = false

    /// Where Debian installs it, then the usual alternatives.
    static let candidatePaths = ["/usr/sbin/iiod", "/usr/local/sbin/iiod", "/usr/bin/iiod", "/usr/local/bin/iiod"]
    static let setprivPath = "/usr/bin/setpriv"

    static func executable() throws -> String {
        guard let path = candidatePaths.first(where: { access($0, X_OK) == 0 }) else {
            throw TestFailure(
                "iiod not found (looked in \(candidatePaths.joined(separator: ", "))): install Debian's iiod "
                    + "package (scripts/bootstrap --test, or apt-get install --no-install-recommends iiod)")
        }
        return path
    }

    private init(pid: pid_t, port: UInt16, logPath: String) {
        self.pid = pid; self.port = port; self.logPath = logPath
    }

    /// Spawns `setpriv --pdeathsig KILL -- iiod -p port` with stdin /dev/null, stdout and stderr to `logPath`,
    /// no other descriptor (so a leaked pipe of the test runner can never keep `swift test` waiting), and
    /// default signal dispositions and an empty mask (what the test process ignores or blocks is not iiod's).
    static func start(port: UInt16, logPath: String) throws -> IIODaemon {
        let iiod = try executable()
        guard access(setprivPath, X_OK) == 0 else { throw TestFailure("\(setprivPath) not found: install util-linux") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // glibc ≥ 2.34; a _GNU_SOURCE declaration Swift's Glibc module hides, hence the lookup.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), defaulted = sigset_t()
        sigemptyset(&noSignals)
        sigemptyset(&defaulted)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaulted, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaulted)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let arguments = [setprivPath, "--pdeathsig", "KILL", "--", iiod, "-p", "\(port)"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, setprivPath, &actions, &attributes, &argv, environ)
        guard spawned == 0 else { throw TestFailure("posix_spawn \(setprivPath) \(iiod): error \(spawned)") }
        return IIODaemon(pid: pid, port: port, logPath: logPath)
    }

    /// The end of iiod's output, for failure messages.
    var logTail: String {
        let log = TestFS.readText(logPath) ?? "(no log)"
        return log.count > 600 ? "…" + log.suffix(600) : log
    }

    /// Waits until iiod accepts TCP connections on 127.0.0.1:`port`, polling every 10 ms for at most
    /// `timeoutS`; fails at once if iiod exits (e.g. it cannot bind, or sees no /sys/bus/iio/devices).
    func waitUntilAccepting(timeoutS: Double) throws {
        let deadline = MonotonicClock.nowS() + timeoutS
        while !NetworkNamespace.accepts(port: port) {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = true
                throw TestFailure("iiod exited before accepting connections (wait status \(status)); its output: \(logTail)")
            }
            guard MonotonicClock.nowS() < deadline else {
                throw TestFailure(
                    "iiod did not accept connections on 127.0.0.1:\(port) within \(timeoutS) s; its output: \(logTail)")
            }
            usleep(10_000)
        }
    }

    struct Stopped: Sendable {
        /// `waitpid` status; `nil` when iiod had already exited and been reaped before `stop()`.
        var status: Int32?
        var seconds: Double
        /// True when iiod was still running until the SIGKILL (it did not crash while serving).
        var wasRunning: Bool { status.map { $0 & 0x7F == SIGKILL } ?? false }
    }

    /// SIGKILL and reap. Not SIGTERM: iiod 0.24 handles it by joining its Avahi publisher thread, which without
    /// an avahi-daemon keeps retrying ("Avahi didn't start, try again later") and let iiod exit only 54 s after
    /// SIGTERM here (measured); iiod keeps no state worth a clean exit. A SIGKILLed process is reaped promptly.
    func stop() -> Stopped {
        guard !reaped else { return Stopped(status: nil, seconds: 0) }
        reaped = true
        let start = MonotonicClock.nowS()
        var status: Int32 = 0
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Stopped(status: status, seconds: MonotonicClock.nowS() - start)
    }
}

/// libiio's real network backend (`ip:`) against Debian's real `iiod`, which serves the same fake sysfs that
/// `LibiioLocalBackendOnFakeSysfs` reads through the local backend.
///
/// Topology: one test thread unshares a mount namespace (tmpfs on /sys, `FakeSysfs.build()`) and a network
/// namespace (loopback only), spawns iiod there (it inherits both), and is also the client: `IIOContext(uri:
/// "ip:127.0.0.1:PORT")` connects over loopback to iiod, which reads the fake files. The same thread also opens
/// `local:` on the same tree, so the two backends are compared value for value. Nothing of it is visible to the
/// rest of the process or the host, and it all disappears when iiod is reaped and the thread exits.
@Suite(.serialized) struct LibiioNetworkBackendThroughIIOD {
    /// Skipped only without root; as root, a missing or failing iiod (or namespace) is a failure with its reason.
    static let rootReason: Comment =
        "needs root: runs Debian's iiod on a fake sysfs in private mount and network namespaces (unshare, mount tmpfs)"

    /// Not 30431, iiod's default, so `-p` and libiio's `ip:HOST:PORT` form are exercised too.
    static let port: UInt16 = 30_432

    struct Readings: Equatable {
        var imu: SensorReading
        var accelMount: Matrix3?
        var magnetometer: SensorReading
        var magnMount: Matrix3?
        var barometer: SensorReading
        var humidityPercent: Double?

        init(_ context: IIOContext) throws {
            let imu = try IIOSensor(context: context, device: "iio:device0")
            self.imu = try imu.read(timeS: 12.5)
            accelMount = try imu.mountMatrix(for: .acceleration)
            let magnetometer = try IIOSensor(context: context, device: "lis3mdl") // by name
            self.magnetometer = try magnetometer.read()
            magnMount = try magnetometer.mountMatrix(for: .magneticField)
            let barometer = try IIOSensor(context: context, device: "iio:device2")
            self.barometer = try barometer.read()
            humidityPercent = try barometer.relativeHumidityPercent()
        }
    }

    struct Observed {
        var uri = ""
        var connectS = 0.0
        var remoteDevices: [IIODeviceInfo] = []
        var localDevices: [IIODeviceInfo] = []
        var remote: Readings?
        var local: Readings?
        var accelRateSetHz: Double?
        var accelRateFile: String?
        var stopped: IIODaemon.Stopped?
        var log = ""
    }

    @Test(.enabled(if: geteuid() == 0, rootReason))
    func iiodServesTheFakeSysfsInSIAndAgreesWithTheLocalBackend() throws {
        let port = Self.port
        let o = try MountNamespace.run { () throws -> Observed in
            try NetworkNamespace.enterWithLoopbackUp()
            guard mount("lodestone-fake-sysfs", "/sys", "tmpfs", 0, "mode=0755") == 0 else {
                throw TestFailure("mount tmpfs on /sys: errno \(errno)")
            }
            // Runs after iiod is reaped (below), so nothing still has the tree open.
            defer { umount2("/sys", Int32(MNT_DETACH)) }
            try FakeSysfs.build() // before iiod starts: it scans the tree once, at start-up
            let logDirectory = try TestFS.makeTemporaryDirectory("lodestone-iiod")
            defer { TestFS.removeTree(logDirectory) }

            let daemon = try IIODaemon.start(port: port, logPath: logDirectory + "/iiod.log")
            let exercised = Result { () throws -> Observed in
                try daemon.waitUntilAccepting(timeoutS: 10)
                var o = Observed()
                o.uri = "ip:127.0.0.1:\(port)"
                let start = MonotonicClock.nowS()
                let remote = try IIOContext(uri: o.uri)
                o.connectS = MonotonicClock.nowS() - start
                try remote.setTimeout(milliseconds: 2000) // every later request is bounded too
                let local = try IIOContext(uri: "local:")
                o.remoteDevices = remote.devices
                o.localDevices = local.devices
                o.remote = try Readings(remote)
                o.local = try Readings(local)
                // A write travels to iiod and lands in the file this thread sees.
                o.accelRateSetHz = try IIOSensor(context: remote, device: "bmi160").setSamplingFrequency(
                    hz: 200, for: .acceleration)
                o.accelRateFile = sysfsValue("/sys/bus/iio/devices/iio:device0/in_accel_sampling_frequency")
                return o
            }
            let stopped = daemon.stop() // on success and on failure alike
            let log = daemon.logTail
            switch exercised {
            case .success(var o):
                o.stopped = stopped
                o.log = log
                return o
            case .failure(let error):
                throw TestFailure("\(error); iiod's output: \(log)")
            }
        }

        // The network backend rebuilt the tree from iiod's XML exactly as the local backend scans it.
        #expect(o.remoteDevices.map(\.id) == ["iio:device0", "iio:device1", "iio:device2", "trigger0"])
        #expect(o.remoteDevices.map(\.name) == ["bmi160", "lis3mdl", "bme280", "tick0"])
        #expect(o.remoteDevices.map(\.isTrigger) == [false, false, false, true])
        #expect(o.remoteDevices == o.localDevices)
        #expect(o.connectS < 5, "connecting took \(o.connectS) s")

        // Same SI values as the local test expects from the same tree (its expressions, repeated here).
        let remote = try #require(o.remote)
        #expect(remote.imu.timeS == 12.5)
        #expect(remote.imu.accelerationMps2 == Vector3(1000 * 0.000598, -2000 * 0.000598, 16384 * 0.000598))
        #expect(remote.imu.angularVelocityRadS == Vector3(131 * 0.001065, -262 * 0.001065, 0))
        let imuTemperature = try #require(remote.imu.temperatureC)
        #expect(abs(imuTemperature - (-521 + 12420) * 2.941176 / 1000) < 1e-12)
        #expect(remote.accelMount == Matrix3(rows: Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, 1)))
        let field = try #require(remote.magnetometer.magneticFieldMicroTesla)
        #expect((field - Vector3(1000, -500, 2000) * 0.000146 * 100).length < 1e-12)
        #expect(remote.magnMount == Matrix3(rows: Vector3(-1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, 1)))
        let pressurePa = try #require(remote.barometer.pressurePa)
        #expect(abs(pressurePa - 100_653.253906) < 1e-6)
        #expect(remote.barometer.temperatureC == 25.08)
        #expect(remote.humidityPercent == 45.641)
        // And bit for bit what the local backend reads: both parse the same text with the same conversion.
        #expect(o.remote == o.local)

        #expect(o.accelRateSetHz == 200)
        #expect(o.accelRateFile == "200")

        let stopped = try #require(o.stopped)
        #expect(stopped.wasRunning, "iiod exited before it was stopped; its output: \(o.log)")
        #expect(stopped.seconds < 1)
    }

    struct Refused {
        var error: IIOError?
        var seconds = 0.0
    }

    @Test(.enabled(if: geteuid() == 0, rootReason))
    func noDaemonListeningIsATypedErrorNamingTheURIAndComesAtOnce() throws {
        let r = try MountNamespace.run { () throws -> Refused in
            // A fresh network namespace: nothing listens on 30431 (iiod's default port, which `ip:HOST` uses),
            // so the connection is refused at once; libiio 0.24's own connect timeout (5 s) bounds the rest.
            try NetworkNamespace.enterWithLoopbackUp()
            var r = Refused()
            let start = MonotonicClock.nowS()
            do throws(IIOError) { _ = try IIOContext(uri: "ip:127.0.0.1") } catch { r.error = error }
            r.seconds = MonotonicClock.nowS() - start
            return r
        }
        let error = try #require(r.error)
        #expect(error.kind == .contextUnavailable)
        #expect(error.uri == "ip:127.0.0.1")
        #expect(error.errno == ECONNREFUSED)
        #expect(error.description.contains("ip:127.0.0.1"))
        #expect(error.description.contains("iiod"))
        #expect(r.seconds < 2, "took \(r.seconds) s")
    }
}
