import LodestoneCore
import LodestoneLinux
import LodestoneLocation
import LodestoneScheduler
import LodestoneWire

/// The engine as a library: one board, its fusion, its scheduler and its clock, serving any number of live streams.
///
/// ```swift
/// let session = try Session(configuration: SessionConfiguration(board: try BoardDescription.load(path: "boards/simulated.json")))
/// await session.start()
/// for await update in session.locationUpdates(.fitness) {
///     if let l = update.location { print(l.coordinate, l.horizontalAccuracyM) }
/// }
/// ```
///
/// Each stream (`locationUpdates`, `headingUpdates`, `deviceMotionUpdates`, `activityUpdates`, `pedometerUpdates`,
/// `altitudeUpdates`, `sensorUpdates`, `messages`, `statusUpdates`) registers its demand with the scheduler while it
/// is iterated and withdraws it when the loop ends or its task is cancelled: the next step re-plans, so the last
/// location stream ending turns the receiver off or down. Streams can be made before or after `start()`, from any
/// task.
///
/// The session runs its loop (`SessionCore`, synchronous and allocation-free per sample) on its own task, paced by its
/// clock: real time on hardware, `speed` × real time or as fast as possible (virtual time) on the simulated board.
public actor Session: SubscriptionSource {
    /// What the session was built from.
    public nonisolated let configuration: SessionConfiguration
    var core: SessionCore
    private nonisolated let registry: SubscriptionRegistry
    private let clock: any SessionClock
    private let beforeEachStep: (@Sendable (SessionCore, Double) -> Void)?
    /// The wall clock the `time` labels follow (`nil`: they come from the scenario or the configuration, no clock).
    private let wallClock: (any WallClock)?
    private var loop: Task<Void, Never>?
    private var stopRequested = false
    private var problems: [String] = []
    private var ended = false
    /// How the loop kept pace with its clock so far.
    public private(set) var pacing = Pacing()
    private var endWaiters: [CheckedContinuation<Void, Never>] = []

    /// Builds the session: opens the board's buses, the recorder and the export. Nothing is read before `start()`.
    /// - Parameter clock: paces the loop (default: the system's monotonic clock).
    /// - Parameter beforeEachStep: called in the loop before each step with the loop and the step's time (tests inject
    ///   faults on the simulated bus through `core.runtime.world`).
    /// - Parameter wallClock: the wall clock that labels the wire's `time` (default: `CLOCK_REALTIME` on hardware when
    ///   the configuration gives no `utcAtStartS`; none on the simulated board, whose date is its scenario's). A paced
    ///   loop reads it before every step and follows its steps (`SessionCore.observeWallClock`).
    /// - Throws: `SessionError.setup` saying what could not be opened or is unknown.
    public init(
        configuration: SessionConfiguration, clock: any SessionClock = SystemSessionClock(),
        wallClock: (any WallClock)? = nil,
        beforeEachStep: (@Sendable (SessionCore, Double) -> Void)? = nil
    ) throws(SessionError) {
        self.beforeEachStep = beforeEachStep
        self.configuration = configuration
        let registry = SubscriptionRegistry()
        self.registry = registry
        var c = configuration
        var wall = wallClock
        if wall == nil, c.utcAtStartS == nil, !configuration.board.sensors.contains(where: { $0.bus == .simulated }) {
            wall = SystemWallClock()
        }
        if let wall, c.utcAtStartS == nil { c.utcAtStartS = wall.unixS() }
        self.wallClock = wall
        // A program that did not choose a calibration gets the board's, found as `lodestone run` finds it: the
        // readings of a board that was calibrated are corrected in every program, not only in the CLI's.
        if c.input == .board, c.fusion.calibration.isUnchosen {
            do { c.fusion.calibration = try CalibrationFiles.resolve(board: c.board, explicitPath: nil, disabled: false) } catch {
                throw .setup(error.message)
            }
        }
        core = try SessionCore(configuration: c, registry: registry)
        self.clock = clock
    }

    // MARK: - Running

    /// Starts the loop on the session's own task (a second call does nothing).
    public func start() {
        guard loop == nil, !ended else { return }
        let speed = core.runtime.world != nil ? configuration.speed : 1
        if speed > 0 { pacing.originS = clock.nowS() }
        pacing.speed = speed
        loop = Task { await self.runLoop() }
    }

    /// Runs the loop until the duration is over, the input ends or `stop()` is called, and returns the problems met
    /// (one line each; empty when all went well).
    @discardableResult
    public func run() async -> [String] {
        start()
        await waitUntilEnded()
        return problems
    }

    /// Asks the loop to end after its current step; every stream then ends.
    public func stop() { stopRequested = true }

    /// Waits until the loop has ended.
    public func waitUntilEnded() async {
        if ended { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    /// True once the loop has ended.
    public var hasEnded: Bool { ended }

    /// Problems met (recording, export, no sensor ever delivering), once the loop has ended.
    public var endProblems: [String] { problems }

    private func runLoop() async {
        let speed = pacing.speed
        let wallStartS = pacing.originS
        var steps = 0
        var previousBeganS = -Double.infinity
        while !stopRequested, !Task.isCancelled, let t = core.nextStepTimeS {
            if let wallStartS {
                let deadline = wallStartS + t / speed
                if deadline > clock.nowS() {
                    await clock.sleep(untilS: deadline)
                } else {
                    // Behind the wall clock (a slow machine): still let callers of this actor in now and then, or a
                    // watchdog that asks `timeS` would wait for as long as the engine is behind.
                    steps += 1
                    if steps % 16 == 0 { await Task.yield() }
                }
                if previousBeganS > deadline { pacing.overruns += 1 }
                previousBeganS = clock.nowS()
                pacing.maxLatenessS = max(pacing.maxLatenessS, previousBeganS - deadline)
            } else {
                // Virtual time: let other tasks (consumers, callers of this actor) in now and then, and wait for a
                // lossless consumer that has fallen a buffer behind.
                steps += 1
                if steps % 64 == 0 { await Task.yield() }
                if let full = core.subscribers.fullLosslessBuffer() { await full.waitForSpace() }
            }
            if stopRequested { break }
            if let wallClock, let wallStartS {
                // Both clocks read back to back: what the wall clock says session time is now.
                let sessionNowS = (clock.nowS() - wallStartS) * speed
                core.observeWallClock(unixS: wallClock.unixS(), atSessionS: sessionNowS)
            }
            beforeEachStep?(core, t)
            core.step(at: t)
            pacing.steps += 1
        }
        problems = core.finish()
        ended = true
        for w in endWaiters { w.resume() }
        endWaiters.removeAll()
    }

    // MARK: - Snapshots

    /// Session time of the last step, s.
    public var timeS: Double { core.state.timeS }
    /// The status now (sources, plan, fusion's lines).
    public var status: SessionStatus { core.status }
    /// The scheduler's current plan (`nil` when unscheduled).
    public var plan: Plan? { core.state.scheduling?.scheduler.plan }
    /// The plan applied to the chips last (`nil` before the first or when unscheduled).
    public var appliedPlan: Plan? { core.state.scheduling?.applied }
    /// The receiver's power state at the last accounting.
    public var receiverState: GNSSPowerState? { core.state.scheduling?.receiverState }
    /// The combined demand the scheduler serves now.
    public var demand: CombinedDemand? { core.state.scheduling?.scheduler.inputs.demand }
    /// The latest fused location.
    public var latestLocation: Location? { core.state.fusion.location.latest }
    /// What fusion runs with: the configuration's, with what the session completed (the board's calibration when the
    /// configuration chose none, and what the board's chips leave uncertain). `fusion.calibration.summary` says which
    /// calibration is applied.
    public var fusion: FusionConfiguration { core.state.fusion.configuration }
    /// Rows recorded so far (`nil` without a recording).
    public var recordedRowCount: Int? { core.state.recorder?.rowCount }
    /// How many subscriptions are active in the loop.
    public var subscriberCount: Int { core.subscribers.count }
    /// The board as assembled (sources and, on the simulated board, the world).
    public var boardStatuses: [Engine.SourceStatus] { core.engine.statuses }
    /// The simulated board's truth (`nil` on hardware).
    public var truth: Wire.Status.Truth? { core.runtime.world?.truthSummary }

    /// Where the session's streams register (`SubscriptionSource`).
    public nonisolated var subscriptionRegistry: SubscriptionRegistry { registry }
}

extension Session {
    /// How a session's loop kept pace with its clock: what `lodestone serve` logs, so that a client on the same machine
    /// can relate an update's session time to the monotonic clock (benchmarks/daemon measures delivery latency so).
    public struct Pacing: Sendable, Equatable {
        /// The session clock's time (s; `CLOCK_MONOTONIC` with `SystemSessionClock`) at which session time 0 was due:
        /// a step at session time `t` is due at `originS + t / speed`. `nil` before `start()` and on virtual time.
        public var originS: Double?
        /// Session seconds per clock second (1 on hardware; 0 on virtual time).
        public var speed = 1.0
        /// Steps run so far.
        public var steps = 0
        /// Paced steps that began after the next step was already due: the loop was a whole step behind its clock (on
        /// hardware, a polled sensor may have replaced its sample before it was read). A late step still reads every
        /// sample: it runs at its session time, so nothing is skipped, only delivered late.
        public var overruns = 0
        /// The most any paced step began after it was due, s.
        public var maxLatenessS = 0.0
        public init() {}
    }
}

/// The wall clock (UTC) a session labels its wire messages' `time` with; it can step, as when NTP corrects it.
public protocol WallClock: Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    func unixS() -> Double
}

/// The system's wall clock, `CLOCK_REALTIME`.
public struct SystemWallClock: WallClock {
    public init() {}
    public func unixS() -> Double { RealtimeClock.unixS() }
}

/// What paces a session: a monotonic clock it can sleep on.
public protocol SessionClock: Sendable {
    /// Seconds on a monotonic clock.
    func nowS() -> Double
    /// Suspends (without blocking a thread) until `nowS() >= deadlineS`, or the task is cancelled.
    func sleep(untilS deadlineS: Double) async
}

/// The system's monotonic clock.
public struct SystemSessionClock: SessionClock {
    public init() {}
    public func nowS() -> Double { MonotonicClock.nowS() }
    public func sleep(untilS deadlineS: Double) async {
        let s = deadlineS - MonotonicClock.nowS()
        guard s > 0 else { return }
        try? await Task.sleep(for: .nanoseconds(Int64(s * 1e9)))
    }
}
