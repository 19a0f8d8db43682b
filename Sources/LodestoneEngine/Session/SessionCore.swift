import LodestoneCore
import LodestoneFusion
import LodestoneOrientation
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneScheduler
import LodestoneStore
import LodestoneTrace
import LodestoneWire

/// The package's one run loop, synchronous: each `step(at:)` reads the sensors due, fuses what they said, lets the
/// scheduler re-plan and apply its plan, records, and hands each subscriber what it asked for.
///
/// `Session` (an actor) runs it on its own task, paced by a clock; the evaluation harnesses and the calibration feed
/// drive it directly, as fast as it goes. Neither holds a second copy of the loop.
///
/// A step allocates nothing unless a subscriber is handed an update (or the plan changes): subscribers are kept in
/// one array per kind, and each decides from the fused state whether it has something new before anything is built
/// (benchmark `Session.stepWithSubscribers`).
public struct SessionCore: SubscriptionSource {
    /// The assembled board (sources and, on the simulated board, its world).
    public let runtime: BoardRuntime
    public let configuration: SessionConfiguration
    /// The sampling engine.
    public private(set) var engine: Engine
    /// What fusion, the scheduler and the subscribers hold.
    public internal(set) var state: State

    /// Everything but the engine (a separate value, so that one step can lend both out at once).
    public struct State {
        public internal(set) var fusion: FusionPipeline
        /// The scheduler glue (`nil`: unscheduled).
        public internal(set) var scheduling: ScheduledSampling?
        /// Location delivery for the combined demand of every client (what the live view and the harness report).
        public internal(set) var delivery: LocationDelivery?
        /// The location delivered at the last step, if any.
        public internal(set) var deliveredAtLastStep: DeliveredLocation?
        /// A new plan was applied at the last step.
        public internal(set) var planChangedAtLastStep = false
        /// Time of the latest receiver fix with a position, s.
        public internal(set) var lastFixTimeS: Double?
        /// Session time of the last step, s.
        public internal(set) var timeS = 0.0
        /// At least one sensor delivered something.
        public internal(set) var everDelivered = false
        /// The latest degraded/recovered/reconfiguration lines (at most `noteCapacity`, newest last).
        public internal(set) var notes: [String] = []
        /// Notes made since the start (the first `noteCount - notes.count` are no longer kept).
        public internal(set) var noteCount = 0
        /// The last accelerometer and gyroscope readings (board axes, as read).
        var lastAccelerationMps2: Vector3?
        var lastAngularVelocityRadS: Vector3?
        var recorder: TraceRecorder?
        var track: TrackExport?
        /// Files that stopped being written during the run (recording, track export): one line each, said again when
        /// the run ends (it then ends with an error status).
        var storageProblems: [String] = []
        /// The trace a replay reads (`SessionInput.trace`).
        var trace: TraceInput?
        var standingDemands: [Demand]
        /// Region monitors, significant change, visits and the history (issue 16).
        var monitoring: MonitoringRuntime
        /// Unix time of session time 0 when the session started (what monitoring's history is kept in).
        let utcAtStartS: Double?
        /// Unix time of session time 0 as the wall clock says now: the anchor of the wire's `time` labels, moved by
        /// `observeWallClock` when the wall clock steps (NTP, the user), s.
        public internal(set) var wallAnchorS: Double?
        /// How many wall-clock steps moved `wallAnchorS`.
        public internal(set) var wallClockSteps = 0
        let boardName: String
        let header: [Wire.Message]

        /// The UTC of session time `t` as ISO 8601, when the session knows the date.
        func utc(_ t: Double) -> String? { wallAnchorS.map { TrackExport.isoTime($0 + t) } }
    }

    /// How many notes the live view keeps.
    public static let noteCapacity = 8

    let registry: SubscriptionRegistry
    /// Where streams of this loop register (`SubscriptionSource`): a stream made here joins at the next `step`.
    public var subscriptionRegistry: SubscriptionRegistry { registry }
    /// The subscribers, one array per kind.
    var subscribers = Subscribers()
    private var lastStepS = 0.0
    private var finished = false
    /// Writing the fused track failed at `finish()`.
    public private(set) var exportError: TrackExportError?

    /// Assembles the board and the fusion pipeline, the scheduler and the recorder of `configuration`.
    /// - Throws: `SessionError.setup` saying what could not be opened or is unknown.
    public init(configuration: SessionConfiguration) throws(SessionError) {
        try self.init(configuration: configuration, registry: SubscriptionRegistry())
    }

    init(configuration c: SessionConfiguration, registry: SubscriptionRegistry) throws(SessionError) {
        self.configuration = c
        self.registry = registry
        var trace: TraceInput?
        var fusionConfiguration = c.fusion
        if case .trace(let path) = c.input {
            do { trace = try TraceInput(path: path) } catch { throw .input(error) }
            // The location columns appear only when the trace has GNSS: the header decides the output's columns.
            fusionConfiguration.location.showsColumns = trace?.knownColumns.contains(.latDeg) ?? false
            runtime = BoardRuntime(sources: [], world: nil)
        } else {
            do {
                runtime = try BoardRuntime.assemble(c.board, seed: c.seed, scenario: c.scenario)
            } catch { throw .setup(error.message) }
        }
        // The orientation filter believes gyroscope biases up to what the board's chip allows (an MPU-6050: ±20 °/s;
        // the default 5 °/s would never see such a board at rest), unless the configuration chose a limit itself.
        if let limit = runtime.gyroscopeBiasLimitDegS,
            fusionConfiguration.orientation.parameters.biasLimitDegS == OrientationFilter.Parameters().biasLimitDegS
        {
            fusionConfiguration.orientation.parameters.biasLimitDegS = limit
        }
        // The heading accuracy includes the tilt an accelerometer offset causes (the filter levels the board on
        // gravity): what the board's calibration leaves, or the chip's tolerance without one, unless the
        // configuration set it itself. A trace replay has no chip: no such term.
        if fusionConfiguration.orientation.parameters.accelerometerOffsetSigmaMps2 == 0, let chip = runtime.accelerometerChip {
            let calibration = fusionConfiguration.calibration.document?.sensors.lazy.compactMap(\.accelerometer).first
            fusionConfiguration.orientation.parameters.accelerometerOffsetSigmaMps2 =
                AccelerometerOffsetUncertainty.sigmaMps2(chip: chip, calibration: calibration)
        }
        // Likewise a magnetometer without a calibration: its board's hard iron is unknown until the board turns.
        if fusionConfiguration.orientation.parameters.magnetometerOffsetSigmaMicroTesla == 0, runtime.hasMagnetometerChip,
            fusionConfiguration.calibration.document?.sensors.contains(where: { $0.magnetometer != nil }) != true
        {
            fusionConfiguration.orientation.parameters.magnetometerOffsetSigmaMicroTesla =
                OrientationFilter.Parameters.uncalibratedMagnetometerOffsetSigmaMicroTesla
        }
        engine = Engine(sources: runtime.sources, plausibility: c.plausibility)
        var scheduling: ScheduledSampling?
        var delivery: LocationDelivery?
        if let s = c.scheduling {
            do {
                scheduling = try ScheduledSampling(
                    sensors: runtime.plannedSensors, receiver: runtime.plannedReceiver,
                    configuration: s, systemBattery: c.systemBattery)
            } catch { throw .setup(error.message) }
            delivery = LocationDelivery(demand: scheduling?.scheduler.inputs.demand.location)
        }
        var recorder: TraceRecorder?
        if let path = c.recordPath {
            do { recorder = try TraceRecorder(path: path) } catch { throw .setup(error.description) }
        }
        var track: TrackExport?
        if let paths = c.export {
            do throws(TrackExportError) { track = try TrackExport(paths: paths, name: c.board.name) } catch {
                throw .export(path: error.path, problem: error.problem)
            }
        }
        let isSimulated = runtime.world != nil
        let utc = c.utcAtStartS ?? runtime.world.map { UTCCalendar.unixSeconds(decimalYear: $0.board.scenario.startDecimalYear) }
        var board = Wire.Board()
        board.name = c.board.name
        board.path = c.board.path
        board.sensors = runtime.sources.map { .init(id: $0.id, label: $0.label, rateHz: $0.rateHz) }
        board.scenario = runtime.world?.scenarioName
        board.seed = isSimulated ? c.seed : nil
        board.time = utc.map(TrackExport.isoTime)
        var calibration = Wire.Calibration(c.fusion.calibration)
        calibration.time = board.time
        let header: [Wire.Message] = [
            .version(Wire.Version(release: Lodestone.version, time: board.time)), .board(board),
            .calibration(calibration)
        ]
        var store: MonitorStore?
        if let directory = c.stateDirectory {
            do throws(StoreError) { store = try MonitorStore(directory: directory) } catch {
                throw .setup("the state directory \(directory): \(error)")
            }
        }
        let monitoring = try MonitoringRuntime(
            store: store, standingRegions: c.monitoredRegions, standingSignificantChange: c.significantChangeMonitoring)
        state = State(
            fusion: FusionPipeline(configuration: fusionConfiguration), scheduling: scheduling, delivery: delivery,
            recorder: recorder, track: track, trace: trace, standingDemands: c.scheduling?.demands ?? [],
            monitoring: monitoring, utcAtStartS: utc, wallAnchorS: utc, boardName: c.board.name, header: header)
    }

    /// A disagreement between the wall clock and the session's clock beyond this re-anchors the wire's `time` labels,
    /// s (the pacing's lateness and the two clocks' reads stay far below it; an NTP step or `date -s` is above).
    public static let wallClockStepThresholdS = 0.5

    /// Tells the loop what the wall clock says: `unixS` (`CLOCK_REALTIME`) read while session time was `sessionS`
    /// (from the monotonic clock that paces it). When the two disagree with the anchor of the `time` labels by more
    /// than `wallClockStepThresholdS` (the wall clock was stepped), the labels follow the wall clock from this step on
    /// and a note says so; sample times, pacing and every `t_s` stay on the monotonic clock. Does nothing when the
    /// session knows no date. Allocates nothing unless the clock stepped.
    public mutating func observeWallClock(unixS: Double, atSessionS sessionS: Double) {
        guard let anchor = state.wallAnchorS, unixS.isFinite, sessionS.isFinite else { return }
        let observedS = unixS - sessionS
        let stepS = observedS - anchor
        guard abs(stepS) > Self.wallClockStepThresholdS else { return }
        state.wallAnchorS = observedS
        state.wallClockSteps += 1
        state.note(
            "the wall clock stepped by \(formatFixed(stepS, digits: 3)) s at t=\(formatFixed(sessionS, digits: 2)) s: "
                + "time labels follow it; sample times and pacing stay on the monotonic clock")
    }

    /// The Unix time the wire labels session time `t` with (`nil`: the session knows no date), s.
    public func labelUnixS(atSessionS t: Double) -> Double? { state.wallAnchorS.map { $0 + t } }

    /// Whether the loop has ended (duration over, no source left to read, or `finish()` called).
    public var isFinished: Bool { finished }

    /// When the next step is due, s; `nil` when the loop has ended.
    public var nextStepTimeS: Double? {
        guard !finished else { return nil }
        // `state.trace?.pendingTimeS`, not `if let trace = state.trace`: binding the trace would copy its parser
        // and pending row (and retain their buffers) once per row of a replay.
        if state.trace != nil {
            guard let t = state.trace?.pendingTimeS, t <= (configuration.durationS ?? .infinity) + 1e-9 else { return nil }
            return t
        }
        let due = engine.nextDueS
        // A scheduled session steps at least once a second: the scheduler's timers run even while every sensor sleeps.
        let t = state.scheduling == nil ? due : min(due, lastStepS + ScheduledSampling.heartbeatS)
        guard t.isFinite, t <= (configuration.durationS ?? .infinity) + 1e-9 else { return nil }
        return t
    }

    /// Runs one step at `t` (`nextStepTimeS`): takes new subscriptions and drops ended ones, reads what is due, fuses
    /// it, re-plans, records and delivers. `onEvent` sees each engine event first (the calibration feed).
    public mutating func step(at t: Double, onEvent: (Engine.Event) -> Void = { _ in }) {
        lastStepS = t
        Self.updateSubscriptions(&state, &subscribers, registry: registry, timeS: t)
        Self.stepEngine(&engine, &state, &subscribers, runtime: runtime, at: t, onEvent: onEvent)
        Self.afterStep(&engine, &state, &subscribers, runtime: runtime, at: t)
    }

    /// Runs every step until the duration is over or `shouldStop()` says so, without pacing (harnesses, tests), and
    /// returns what `finish()` returns.
    @discardableResult
    public mutating func runToEnd(shouldStop: () -> Bool = { false }, afterStep: (SessionCore) -> Void = { _ in }) -> [String] {
        while !shouldStop(), let t = nextStepTimeS {
            step(at: t)
            afterStep(self)
        }
        return finish()
    }

    /// Ends the loop: the last STATUS to message subscribers, every stream finished, the recording closed and the
    /// track written. Returns the problems met (recording or export errors, no sensor ever delivering), one line each.
    @discardableResult
    public mutating func finish() -> [String] {
        guard !finished else { return [] }
        finished = true
        var problems: [String] = []
        // Subscriptions that joined after the last step still get their header and status.
        Self.updateSubscriptions(&state, &subscribers, registry: registry, timeS: lastStepS)
        subscribers.finish(state: state, engine: engine, runtime: runtime, lastStepS: lastStepS)
        state.monitoring.finishStreams()
        problems += state.storageProblems
        state.recorder?.close()
        if let e = state.recorder?.error { problems.append(e) }
        if let track = state.track {
            do throws(TrackExportError) { try track.write() } catch {
                exportError = error
                problems.append(error.description)
            }
        }
        if !state.everDelivered, state.trace == nil {
            problems.append(
                "no sensor delivered a sample: " + engine.statuses.map { "\($0.id): \($0.health)" }.joined(separator: "; "))
        }
        return problems
    }

    /// The live view's lines for the plan and the combined delivery (none when unscheduled).
    public var planLines: [String] { state.planLines }

    /// The trace's error, when a replay's input ended in one (after every row before it was processed).
    public var inputError: TraceError? { state.trace?.error }
    /// Rows of the trace processed so far.
    public var inputRowCount: Int { state.trace?.count ?? 0 }
    /// The trace's header could not be read at all (no column named): a replay writes nothing.
    public var inputHeaderUnreadable: Bool { state.trace?.headerUnreadable ?? false }

    /// The output columns of `lodestone replay`, `t_s` first.
    public var columns: [String] { state.fusion.columns }

    /// Records the replay row of the last step on `tape` (`FusionPipeline.appendLine`); allocates nothing once the
    /// tape has grown. `mutating` though it changes nothing: called on a `var` core as a plain method, it copied the
    /// three fusion stages (9 KB) once per row before formatting them.
    public mutating func appendLine(to tape: inout CellTape) { state.fusion.appendLine(timeS: state.timeS, to: &tape) }

    /// A snapshot for status consumers (the live view, the quiet log).
    public var status: SessionStatus { SessionStatus(self) }

    /// The wire's STATUS message now.
    public var statusMessage: Wire.Status {
        Self.statusMessage(state: state, engine: engine, runtime: runtime, timeS: state.timeS)
    }

    // MARK: - The step

    private static func stepEngine(
        _ engine: inout Engine, _ state: inout State, _ subscribers: inout Subscribers, runtime: BoardRuntime, at t: Double,
        onEvent: (Engine.Event) -> Void
    ) {
        state.timeS = t
        if state.trace != nil {
            guard let sample = state.trace?.takeSample() else { return }
            state.everDelivered = true
            state.fusion.process(sample)
            state.track?.add(state.fusion.location.latest)
            if let f = sample.fix { state.lastFixTimeS = f.hasPosition ? f.timeS : state.lastFixTimeS }
            subscribers.offer(reading: sample.reading, sensor: "trace", state: state)
            return
        }
        guard t >= engine.nextDueS - 1e-9 else {
            runtime.world?.advance(toTimeS: t) // a heartbeat between sensor reads: the world moves, nothing is read
            return
        }
        engine.step(prepare: { runtime.world?.advance(toTimeS: $0) }) { event in
            onEvent(event)
            state.scheduling?.observe(event)
            switch event {
            case let .reading(sensor, r):
                state.everDelivered = true
                state.recorder?.add(r, from: sensor)
                if let a = r.accelerationMps2 { state.lastAccelerationMps2 = a }
                if let g = r.angularVelocityRadS { state.lastAngularVelocityRadS = g }
                state.fusion.process(FusionSample(reading: r, sensor: sensor))
                state.scheduling?.observe(activity: state.fusion.context.activity, timeS: r.timeS)
                state.track?.add(state.fusion.location.latest)
                subscribers.offer(reading: r, sensor: sensor, state: state)
            case let .fix(sensor, f):
                state.everDelivered = true
                state.recorder?.add(f)
                state.fusion.process(FusionSample(reading: SensorReading(timeS: f.timeS), fix: f))
                if f.hasPosition { state.lastFixTimeS = f.timeS }
                state.track?.add(state.fusion.location.latest)
                subscribers.offer(fix: f, sensor: sensor, state: state)
            case let .degraded(sensor, message, timeS):
                state.note("\(sensor) degraded at t=\(formatFixed(timeS, digits: 2)) s: \(message); retrying")
                subscribers.offer(
                    notice: Wire.Notice(
                        messageClass: "DEGRADED", tS: timeS, time: state.utc(timeS), sensor: sensor,
                        message: message))
            case let .recovered(sensor, timeS):
                state.note("\(sensor) recovered at t=\(formatFixed(timeS, digits: 2)) s")
                subscribers.offer(
                    notice: Wire.Notice(
                        messageClass: "RECOVERED", tS: timeS, time: state.utc(timeS), sensor: sensor,
                        message: "delivering again"))
            case .motionWake: break // the scheduler consumes it (ScheduledSampling.observe)
            }
        }
    }

    private static func afterStep(
        _ engine: inout Engine, _ state: inout State, _ subscribers: inout Subscribers, runtime: BoardRuntime, at t: Double
    ) {
        state.planChangedAtLastStep = false
        state.deliveredAtLastStep = nil
        var failures: [SourceError] = []
        if state.scheduling != nil {
            if case .changed(let f) = state.scheduling?.update(engine: &engine, timeS: t) {
                state.planChangedAtLastStep = true
                failures = f
                for e in f {
                    state.note(
                        "\(e.sensor) reconfiguration failed at t=\(formatFixed(t, digits: 2)) s, rolled back: \(e.message)")
                }
            }
            let inputs = state.scheduling?.scheduler.inputs
            state.deliveredAtLastStep = state.delivery?.offer(
                state.fusion.location.latest, timeS: t,
                stationary: inputs?.motion == .stationary,
                receiverOff: state.scheduling?.receiverState == .off)
        }
        if !state.monitoring.isIdle {
            Self.stepMonitoring(&state, at: t)
            if state.monitoring.demandsChanged {
                state.monitoring.demandsChanged = false
                applyDemands(&state, subscribers, timeS: t)
            }
        }
        if let world = runtime.world, state.recorder != nil { state.recorder?.add(truth: world.truthRow, timeS: t) }
        if let e = state.recorder?.error { state.noteStorageProblem(e); state.recorder = nil }
        if let track = state.track { for p in track.takeLiveProblems() { state.noteStorageProblem(p) } }
        // Without subscribers (a replay) there is nothing to hand out, and the call would copy the whole state.
        guard subscribers.count > 0 else { return }
        subscribers.afterStep(state: state, engine: engine, runtime: runtime, timeS: t, planFailures: failures)
    }

    private static func updateSubscriptions(
        _ state: inout State, _ subscribers: inout Subscribers, registry: SubscriptionRegistry, timeS: Double
    ) {
        var changed = subscribers.pruneEnded()
        if state.monitoring.pruneEnded() { changed = true }
        if let added = registry.take() {
            for request in added where !state.monitoring.take(request, notes: &state.notes) {
                subscribers.add(request, state: state, timeS: timeS)
            }
            changed = true
        }
        guard changed else { return }
        applyDemands(&state, subscribers, timeS: timeS)
    }

    /// Hands the scheduler every demand: the configuration's, the subscribers' and monitoring's.
    static func applyDemands(_ state: inout State, _ subscribers: Subscribers, timeS: Double) {
        guard state.scheduling != nil else { return }
        state.scheduling?.setDemands(state.standingDemands + subscribers.demands + state.monitoring.demands, timeS: timeS)
        state.delivery?.demand = state.scheduling?.scheduler.inputs.demand.location
    }

    /// Monitoring after a step: evaluates a new fused location (in Unix time), records the history and, when its demand
    /// changed, re-plans.
    private static func stepMonitoring(_ state: inout State, at t: Double) {
        let location = state.fusion.location.latest
        var notes: [String] = []
        state.monitoring.afterStep(
            location: location, lastFixS: state.lastFixTimeS, activity: state.fusion.context.activity,
            totals: state.fusion.motion.estimator.pedometer.totals, speedMps: location?.speedMps, timeS: t,
            unixOffsetS: state.utcAtStartS ?? 0, notes: &notes)
        for n in notes { state.note(n) }
    }

    static func statusMessage(state: State, engine: Engine, runtime: BoardRuntime, timeS: Double) -> Wire.Status {
        var m = Wire.Status()
        m.tS = timeS
        m.time = state.utc(timeS)
        m.sensors = engine.statuses.map(Wire.Status.Sensor.init)
        m.degraded = m.sensors.filter { $0.health == "degraded" }.map(\.id)
        m.truth = runtime.world?.truthSummary
        m.plan = state.scheduling.map(Wire.PlanSummary.init)
        return m
    }
}

extension SessionCore.State {
    /// The live view's lines for the plan and the combined delivery (none when unscheduled).
    var planLines: [String] {
        guard let scheduling else { return [] }
        return scheduling.liveLines + (delivery?.liveLine(atS: timeS).map { ["          " + $0] } ?? [])
    }

    /// A file that stopped being written: a note now, a problem at the end.
    mutating func noteStorageProblem(_ line: String) {
        note(line)
        storageProblems.append(line)
    }

    mutating func note(_ line: String) {
        if notes.count >= SessionCore.noteCapacity { notes.removeFirst() }
        notes.append(line)
        noteCount += 1
    }
}

/// What the live view and the quiet log show: a snapshot of the session once per period.
public struct SessionStatus: Sendable {
    /// Session time, s.
    public var timeS: Double
    /// Each source's health, rate and latest values.
    public var sources: [Engine.SourceStatus]
    /// The simulated board's truth.
    public var truth: Wire.Status.Truth?
    /// Fusion's live lines (orientation, altitude, activity, pedometer, location).
    public var fusionLines: [String]
    /// The plan's lines.
    public var planLines: [String]
    /// The latest notes (degraded, recovered, failed reconfigurations), and how many were made since the start.
    public var notes: [String]
    public var noteCount: Int
    /// What the quiet log compares from one second to the next: activity, location accuracy, heading validity, plan,
    /// each sensor's health and the notes.
    public var changes: StateChangeLog.Snapshot

    init(_ core: SessionCore) { self.init(state: core.state, engine: core.engine, runtime: core.runtime) }

    init(state s: SessionCore.State, engine: Engine, runtime: BoardRuntime) {
        timeS = s.timeS
        sources = engine.statuses
        truth = runtime.world?.truthSummary
        fusionLines = s.fusion.liveLines
        planLines = s.planLines
        notes = s.notes
        noteCount = s.noteCount
        changes = StateChangeLog.Snapshot(
            timeS: s.timeS, boardName: s.boardName, statuses: sources, fusion: s.fusion,
            scheduling: s.scheduling, notes: s.notes, noteCount: s.noteCount)
    }
}
