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
public actor Session {
    /// What the session was built from.
    public nonisolated let configuration: SessionConfiguration
    private var core: SessionCore
    private nonisolated let registry: SubscriptionRegistry
    private let clock: any SessionClock
    private let beforeEachStep: (@Sendable (SessionCore, Double) -> Void)?
    private var loop: Task<Void, Never>?
    private var stopRequested = false
    private var problems: [String] = []
    private var ended = false
    private var endWaiters: [CheckedContinuation<Void, Never>] = []

    /// Builds the session: opens the board's buses, the recorder and the export. Nothing is read before `start()`.
    /// - Parameter clock: paces the loop (default: the system's monotonic clock).
    /// - Parameter beforeEachStep: called in the loop before each step with the loop and the step's time (tests inject
    ///   faults on the simulated bus through `core.runtime.world`).
    /// - Throws: `SessionError.setup` saying what could not be opened or is unknown.
    public init(configuration: SessionConfiguration, clock: any SessionClock = SystemSessionClock(),
                beforeEachStep: (@Sendable (SessionCore, Double) -> Void)? = nil) throws(SessionError) {
        self.beforeEachStep = beforeEachStep
        self.configuration = configuration
        let registry = SubscriptionRegistry()
        self.registry = registry
        var c = configuration
        if c.utcAtStartS == nil, !configuration.board.sensors.contains(where: { $0.bus == .simulated }) {
            c.utcAtStartS = RealtimeClock.unixS()
        }
        core = try SessionCore(configuration: c, registry: registry)
        self.clock = clock
    }

    // MARK: - Running

    /// Starts the loop on the session's own task (a second call does nothing).
    public func start() {
        guard loop == nil, !ended else { return }
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
        let speed = core.runtime.world != nil ? configuration.speed : 1
        let paced = speed > 0
        let wallStartS = clock.nowS()
        var steps = 0
        while !stopRequested, !Task.isCancelled, let t = core.nextStepTimeS {
            if paced {
                let deadline = wallStartS + t / speed
                if deadline > clock.nowS() { await clock.sleep(untilS: deadline) }
            } else {
                // Virtual time: let other tasks (consumers, callers of this actor) in now and then, and wait for a
                // lossless consumer that has fallen a buffer behind.
                steps += 1
                if steps % 64 == 0 { await Task.yield() }
                if core.subscribers.hasLossless, let full = core.subscribers.fullLosslessBuffer() { await full.waitForSpace() }
            }
            if stopRequested { break }
            beforeEachStep?(core, t)
            core.step(at: t)
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
    /// Rows recorded so far (`nil` without a recording).
    public var recordedRowCount: Int? { core.state.recorder?.rowCount }
    /// How many subscriptions are active in the loop.
    public var subscriberCount: Int { core.subscribers.count }
    /// The board as assembled (sources and, on the simulated board, the world).
    public var boardStatuses: [Engine.SourceStatus] { core.engine.statuses }
    /// The simulated board's truth (`nil` on hardware).
    public var truth: Wire.Status.Truth? { core.runtime.world?.truthSummary }

    // MARK: - Subscriptions

    /// Live locations, like `CLLocationUpdate.liveUpdates(_:)`: one a second at most (and each new receiver fix as it
    /// arrives), only those meeting `desiredAccuracy` (default: the configuration's), after the carrier moved
    /// `distanceFilterM`; one `isStationary` update when the carrier comes to rest (then nothing until it moves, unless
    /// the configuration is `.airborne`); one `locationUnavailable` update after 10 s without a location.
    public nonisolated func locationUpdates(_ configuration: LiveConfiguration = .default, desiredAccuracy: DesiredAccuracy? = nil,
                                            distanceFilterM: Double? = nil, maximumAgeS: Double = 10,
                                            options: SubscriptionOptions = SubscriptionOptions()) -> Updates<LocationUpdate> {
        let demand = LocationDemand(desiredAccuracy: desiredAccuracy ?? configuration.desiredAccuracy, distanceFilterM: distanceFilterM,
                                    maximumAgeS: maximumAgeS)
        let o = LocationSubscriber.Options(configuration: configuration, demand: demand, timeoutS: nil)
        return make(options, kind: "location", demand: { Demand(client: $0, location: demand, foreground: options.foreground) }) {
            .location($0, o, $1)
        }
    }

    /// One location meeting `desiredAccuracy`, or the best one found by `timeoutS` (session time), like
    /// `CLLocationManager.requestLocation()`. Its receiver demand lasts only while it waits.
    /// - Throws: `SessionError.locationUnavailable` when no location at all came in time; `.sessionEnded`.
    public nonisolated func requestLocation(desiredAccuracy: DesiredAccuracy = .best, timeoutS: Double = 30,
                                            options: SubscriptionOptions = SubscriptionOptions()) async throws(SessionError) -> LocationUpdate {
        let demand = LocationDemand(desiredAccuracy: desiredAccuracy)
        let o = LocationSubscriber.Options(configuration: .default, demand: demand, timeoutS: timeoutS)
        let updates: Updates<LocationUpdate> = make(options, kind: "request", demand: {
            Demand(client: $0, location: demand, foreground: options.foreground)
        }) { .location($0, o, $1) }
        for await u in updates {
            guard u.location != nil else { throw .locationUnavailable(timeoutS: timeoutS) }
            return u
        }
        throw .sessionEnded
    }

    /// Headings (`CLHeading`) that changed by at least `filterDeg` (0: every one, at most 20 a second).
    public nonisolated func headingUpdates(filterDeg: Double = 1, trueNorth: Bool = true,
                                           options: SubscriptionOptions = SubscriptionOptions()) -> Updates<HeadingUpdate> {
        make(options, kind: "heading", demand: {
            Demand(client: $0, heading: HeadingDemand(headingFilterDeg: filterDeg, trueNorth: trueNorth), foreground: options.foreground)
        }) { .heading($0, filterDeg: filterDeg, $1) }
    }

    /// Device motion (`CMDeviceMotion`) at `rateHz` at most (as fast as the IMU is read).
    public nonisolated func deviceMotionUpdates(rateHz: Double = 50,
                                                options: SubscriptionOptions = SubscriptionOptions()) -> Updates<DeviceMotion> {
        make(options, kind: "motion", demand: {
            Demand(client: $0, heading: HeadingDemand(headingFilterDeg: 0, trueNorth: false), foreground: options.foreground)
        }) { .deviceMotion($0, rateHz: rateHz, $1) }
    }

    /// The carrier's activity (`CMMotionActivity`) at each change of kind or confidence.
    public nonisolated func activityUpdates(options: SubscriptionOptions = SubscriptionOptions()) -> Updates<ActivityUpdate> {
        make(options, kind: "activity", demand: { Demand(client: $0, activity: true, foreground: options.foreground) }) {
            .activity($0, $1)
        }
    }

    /// Steps, distance and floors since `fromS` (session time; default: when iteration starts), at most once a second
    /// while they change, and pause/resume events (`CMPedometer.startUpdates(from:)`, `startEventUpdates`).
    public nonisolated func pedometerUpdates(from fromS: Double? = nil,
                                             options: SubscriptionOptions = SubscriptionOptions()) -> Updates<PedometerUpdate> {
        make(options, kind: "pedometer", demand: { Demand(client: $0, activity: true, foreground: options.foreground) }) {
            .pedometer($0, fromS: fromS, $1)
        }
    }

    /// Relative altitude and pressure, and absolute altitude with its accuracy (`CMAltimeter`), at `rateHz`.
    public nonisolated func altitudeUpdates(rateHz: Double = 1,
                                            options: SubscriptionOptions = SubscriptionOptions()) -> Updates<AltitudeUpdate> {
        make(options, kind: "altitude", demand: { Demand(client: $0, altitude: true, foreground: options.foreground) }) {
            .altitude($0, rateHz: rateHz, $1)
        }
    }

    /// Raw readings of the sensors named (all when empty), board axes, as read. Keeps the IMU, magnetometer and
    /// barometer sampling.
    public nonisolated func sensorUpdates(_ sensorIDs: Set<String> = [],
                                          options: SubscriptionOptions = SubscriptionOptions(buffering: .newest(256))) -> Updates<SensorSample> {
        make(options, kind: "sensors", demand: {
            Demand(client: $0, heading: HeadingDemand(headingFilterDeg: 0, trueNorth: false), activity: true, altitude: true,
                   foreground: options.foreground)
        }) { .sensor($0, ids: sensorIDs, $1) }
    }

    /// The wire (`LodestoneWire`): VERSION, BOARD and CALIBRATION first, then the `classes` chosen as the session
    /// produces them (see `Wire.Class`); periodic classes at `rateHz`, ACTIVITY on change and every
    /// `activityPeriodS`. `demand`: what the stream's reader needs served (default: what its classes imply).
    public nonisolated func messages(_ classes: Set<Wire.Class> = Wire.Class.defaultSet, rateHz: Double = 1, activityPeriodS: Double = 10,
                                     demand: Demand? = nil,
                                     options: SubscriptionOptions = SubscriptionOptions(buffering: .lossless(4096))) -> Updates<Wire.Message> {
        let o = MessageSubscriber.Options(classes: classes, rateHz: rateHz, activityPeriodS: activityPeriodS)
        return make(options, kind: "wire", demand: { client in
            if var d = demand { d.client = options.client ?? d.client; return d }
            return Self.demand(for: classes, client: client, foreground: options.foreground)
        }) { .messages($0, o, $1) }
    }

    /// A status snapshot every `periodS` of session time (the live view, the quiet log). `demand`: what its reader
    /// needs served (default: nothing).
    public nonisolated func statusUpdates(periodS: Double = 1, demand: Demand? = nil,
                                          options: SubscriptionOptions = SubscriptionOptions(buffering: .newest(1))) -> Updates<SessionStatus> {
        make(options, kind: "status", demand: { client in
            guard var d = demand else { return Demand(client: client, foreground: options.foreground) }
            d.client = options.client ?? d.client
            return d
        }) { .status($0, periodS: periodS, $1) }
    }

    /// What a reader of `classes` needs served.
    public static func demand(for classes: Set<Wire.Class>, client: String, foreground: Bool = true) -> Demand {
        Demand(client: client,
               location: classes.contains(.location) || classes.contains(.delivery) ? LocationDemand(desiredAccuracy: .best) : nil,
               heading: classes.contains(.heading) || classes.contains(.attitude) ? HeadingDemand() : nil,
               activity: classes.contains(.activity) || classes.contains(.pedometer),
               altitude: classes.contains(.altitude), foreground: foreground)
    }

    private nonisolated func make<E: Sendable>(_ options: SubscriptionOptions, kind: String,
                                              demand: @escaping @Sendable (String) -> Demand,
                                              request: @escaping @Sendable (SubscriberInfo, UpdateBuffer<E>) -> SubscriberRequest) -> Updates<E> {
        let registry = self.registry
        return Updates(registry: registry, buffering: options.buffering) { buffer in
            let id = registry.makeID()
            let client = options.client ?? "\(kind)#\(id)"
            return request(SubscriberInfo(id: id, demand: demand(client)), buffer)
        }
    }
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
