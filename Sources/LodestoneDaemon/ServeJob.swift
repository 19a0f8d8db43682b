import LodestoneCore
import LodestoneEngine
import LodestoneFleet
import LodestoneLinux
import LodestoneScheduler
import LodestoneSockets
import LodestoneLog

#if canImport(Glibc)
    import Glibc
#endif

/// `lodestone serve`, testable: builds the session and the daemon, serves until SIGTERM/SIGINT (or `stop`), reloads
/// the policy on SIGHUP, and tells systemd how it goes when run under it.
public struct ServeJob: Sendable {
    public var session: SessionConfiguration
    public var daemon: DaemonConfiguration
    /// After this much session time the engine loop hangs (tests of the watchdog: `LODESTONE_TEST_STALL_ENGINE_AFTER_S`).
    public var stallEngineAfterS: Double?
    /// The fleet's MQTT link (`--mqtt`, issue 20); its outbound queue lives in the daemon's state directory.
    public var fleet: FleetConfiguration?

    public init(
        session: SessionConfiguration, daemon: DaemonConfiguration, stallEngineAfterS: Double? = nil,
        fleet: FleetConfiguration? = nil
    ) {
        self.session = session; self.daemon = daemon; self.stallEngineAfterS = stallEngineAfterS; self.fleet = fleet
    }

    /// Serves until a stop signal; returns the exit code.
    public func run(logger: Logger) async -> Int32 {
        let stall = stallEngineAfterS
        let notifier = SystemdNotifier.fromEnvironment()
        var daemon = self.daemon
        do {
            // Socket activation: systemd's descriptors replace the configured paths (by name, never by position).
            let passed = try SystemdSocketActivation.listeningSockets()
            if !passed.isEmpty { daemon.inherited = passed.map(Self.inheritedListener) }
        } catch {
            logger.critical("\(error)")
            _ = notifier?.failure(errno: EINVAL, status: error.description)
            return 1
        }
        let s: Session
        do {
            s = try Session(
                configuration: session,
                beforeEachStep: stall.map { after in
                    { @Sendable _, t in
                        // A hung engine, for the watchdog's test: the step never returns.
                        if t >= after { while true { MonotonicClock.sleep(microseconds: 1_000_000) } }
                    }
                })
        } catch {
            logger.critical("cannot start the session: \(error)")
            _ = notifier?.failure(errno: EINVAL, status: "cannot start the session: \(error)")
            return 1
        }
        let d: Daemon
        do { d = try Daemon(configuration: daemon, session: s, logger: logger) } catch {
            logger.critical("\(error)")
            _ = notifier?.failure(errno: EADDRINUSE, status: "\(error)")
            await s.stop()
            return 1
        }
        var link: FleetLink?
        if let fleet {
            do {
                link = try FleetLink(
                    configuration: fleet, session: s, stateDirectory: daemon.stateDirectory, boardName: session.board.name,
                    logger: logger)
            } catch {
                logger.critical("fleet: \(error)")
                _ = notifier?.failure(errno: EINVAL, status: "fleet: \(error)")
                d.stop()
                await s.stop()
                return 1
            }
        }
        let stop = StopRequest()
        let signals = SignalWatcher([SignalWatcher.terminate, SignalWatcher.interrupt, SignalWatcher.hangUp]) { number in
            if number == SignalWatcher.hangUp {
                _ = notifier?.reloading()
                let line = d.reloadPolicy()
                logger.notice("\(line)")
                _ = notifier?.ready(status: line)
            } else {
                stop.request()
            }
        }
        defer { signals.cancel() }
        await s.start()
        d.start()
        await link?.start()
        // The pacing origin lets a client on this machine relate an update's session time to CLOCK_MONOTONIC
        // (benchmarks/daemon measures delivery latency with it).
        let origin = await s.pacing.originS.map { "; session time 0 at CLOCK_MONOTONIC \(formatFixed($0, digits: 6)) s" }
        logger.notice(
            "ready: board \(session.board.name), listening on \(d.listening.joined(separator: ", "))\(origin ?? "")")

        _ = notifier?.ready(status: "serving board \(session.board.name) on \(d.listening.joined(separator: ", "))")

        // The watchdog's pulse: WATCHDOG=1 at half systemd's interval, and only while the session's time advances (a
        // hung engine stops it, and systemd restarts the service); an input that has ended is not a hang.
        let pingIntervalS = notifier?.watchdogPingIntervalS
        var lastPingUs = SystemdNotifier.monotonicNowUs()
        var lastTimeS = -1.0
        var progressed = false
        var lastStatus = ""
        var lastStatusUs: UInt64 = 0
        while !stop.isRequested {
            try? await Task.sleep(for: .milliseconds(250))
            guard let notifier else { continue }
            // STATUS= (`systemctl status`): the clients and what is degraded, every 5 s when it changed.
            let nowUs = SystemdNotifier.monotonicNowUs()
            if nowUs - lastStatusUs >= 5_000_000 {
                lastStatusUs = nowUs
                let line = Self.statusLine(board: session.board.name, clients: d.clientCount, sources: await s.status.sources)
                if line != lastStatus {
                    _ = notifier.status(line)
                    lastStatus = line
                }
            }
            guard let pingIntervalS else { continue }
            let t = await s.timeS
            let ended = await s.hasEnded
            if t != lastTimeS || ended {
                lastTimeS = t
                progressed = true
            }
            if progressed, Double(nowUs - lastPingUs) / 1e6 >= pingIntervalS {
                _ = notifier.watchdog()
                lastPingUs = nowUs
                progressed = false
            }
        }
        _ = notifier?.stopping(status: "stopping: \(d.clientCount) clients connected")
        logger.notice("stopping: \(d.clientCount) clients connected")
        await link?.stop()
        d.stop()
        await s.stop()
        await s.waitUntilEnded()
        let p = await s.pacing
        logger.notice(
            "stopped: \(p.steps) steps, \(p.overruns) began after the next step was due, the latest \(formatFixed(p.maxLatenessS * 1000, digits: 1)) ms late"
        )
        return 0
    }
}

extension ServeJob {
    /// `Simulated board: 3 clients; degraded: baro (I2C read failed)`.
    static func statusLine(board: String, clients: Int, sources: [Engine.SourceStatus]) -> String {
        var line = "\(board): \(clients) client\(clients == 1 ? "" : "s")"
        let degraded = sources.compactMap { source -> String? in
            guard case .degraded(let why) = source.health else { return nil }
            return "\(source.id) (\(why))"
        }
        if !degraded.isEmpty { line += "; degraded: " + degraded.joined(separator: ", ") }
        return line
    }

    /// A descriptor systemd passed, as the daemon's listener: `native` and `gpsd` by their `FileDescriptorName=`, an
    /// unnamed one by what it listens on (a Unix socket speaks the native protocol, TCP gpsd's). Made non-blocking:
    /// systemd passes blocking sockets, and the event loop accepts until `EAGAIN`.
    static func inheritedListener(_ socket: SystemdListeningSocket) -> DaemonConfiguration.InheritedListener {
        Sockets.configure(socket.fd)
        let endpoint: Client.Endpoint
        switch (socket.name, socket.endpoint) {
        case ("native", _): endpoint = .native
        case ("gpsd", _): endpoint = .gpsd
        case (_, .unix): endpoint = .native
        case (_, .tcp): endpoint = .gpsd
        }
        return DaemonConfiguration.InheritedListener(fd: socket.fd, endpoint: endpoint, name: socket.endpoint.description)
    }
}

/// A stop asked by a signal handler, read by the serving loop.
final class StopRequest: Sendable {
    private let flag = Locked(false)
    func request() { flag.withLock { $0 = true } }
    var isRequested: Bool { flag.withLock { $0 } }
}
