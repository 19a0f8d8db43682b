import LodestoneCore
import LodestoneEngine
import LodestoneLinux
import LodestoneScheduler
import LodestoneSockets
import Logging
import Synchronization

/// `lodestone serve`, testable: builds the session and the daemon, serves until SIGTERM/SIGINT (or `stop`), reloads
/// the policy on SIGHUP, and tells systemd how it goes when run under it.
public struct ServeJob: Sendable {
    public var session: SessionConfiguration
    public var daemon: DaemonConfiguration
    /// After this much session time the engine loop hangs (tests of the watchdog: `LODESTONE_TEST_STALL_ENGINE_AFTER_S`).
    public var stallEngineAfterS: Double?

    public init(session: SessionConfiguration, daemon: DaemonConfiguration, stallEngineAfterS: Double? = nil) {
        self.session = session; self.daemon = daemon; self.stallEngineAfterS = stallEngineAfterS
    }

    /// Serves until a stop signal; returns the exit code.
    public func run(logger: Logger) async -> Int32 {
        let stall = stallEngineAfterS
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
            return 1
        }
        let d: Daemon
        do { d = try Daemon(configuration: daemon, session: s, logger: logger) } catch {
            logger.critical("\(error)")
            return 1
        }
        let stop = StopRequest()
        let signals = SignalWatcher([SignalWatcher.terminate, SignalWatcher.interrupt, SignalWatcher.hangUp]) { number in
            if number == SignalWatcher.hangUp {
                let line = d.reloadPolicy()
                logger.notice("\(line)")
            } else {
                stop.request()
            }
        }
        defer { signals.cancel() }
        await s.start()
        d.start()
        // The pacing origin lets a client on this machine relate an update's session time to CLOCK_MONOTONIC
        // (benchmarks/daemon measures delivery latency with it).
        let origin = await s.pacing.originS.map { "; session time 0 at CLOCK_MONOTONIC \(formatFixed($0, digits: 6)) s" }
        logger.notice(
            "ready: board \(session.board.name), listening on \(d.listening.joined(separator: ", "))\(origin ?? "")")

        while !stop.isRequested { try? await Task.sleep(for: .milliseconds(250)) }
        logger.notice("stopping: \(d.clientCount) clients connected")
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

/// A stop asked by a signal handler, read by the serving loop.
final class StopRequest: Sendable {
    private let flag = Mutex(false)
    func request() { flag.withLock { $0 = true } }
    var isRequested: Bool { flag.withLock { $0 } }
}
