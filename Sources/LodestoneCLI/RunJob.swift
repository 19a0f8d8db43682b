import LodestoneCore
import LodestoneEngine
import LodestoneFusion
import LodestoneOrientation
import LodestoneWire
import LodestoneLocation
import LodestoneScheduler

/// What `lodestone run` was asked to do.
public struct RunOptions: Sendable {
    public var board: BoardDescription
    public var scenario: String?
    public var durationS: Double?
    public var seed: UInt64
    public var json: Bool
    public var recordPath: String?
    /// Simulation speed: 1 = real time, 10 = ten times faster, 0 = as fast as possible. Hardware runs at 1.
    public var speed: Double
    /// Draw the live view in place (a terminal); otherwise, without `json`, log one line per state change.
    public var isTerminal: Bool
    /// The terminal's size, asked before every frame of the live view, which is fitted to it (`nil`: drawn unfitted).
    public var terminalSize: (@Sendable () -> HumanView.Size?)?
    /// What fusion is told before it starts.
    public var fusion: FusionConfiguration
    /// Where to write the fused track when the run ends (GPX, GeoJSON).
    public var export: TrackExport.Paths?
    /// The scheduler: policy, clients' demands, battery (`nil`: none; every sensor runs at the board file's rate, as
    /// before issue 8). `lodestone run` always sets one (default: adaptive, one client wanting everything).
    public var scheduling: SchedulingConfiguration?
    /// The wire classes `json` writes (default: all but SAMPLE).
    public var classes: Set<Wire.Class>

    public init(
        board: BoardDescription, scenario: String? = nil, durationS: Double? = nil, seed: UInt64 = 1, json: Bool = false,
        recordPath: String? = nil, speed: Double = 1, isTerminal: Bool = false,
        fusion: FusionConfiguration = FusionConfiguration(), export: TrackExport.Paths? = nil,
        scheduling: SchedulingConfiguration? = nil, classes: Set<Wire.Class> = Wire.Class.defaultSet
    ) {
        self.board = board; self.scenario = scenario; self.durationS = durationS; self.seed = seed; self.json = json
        self.recordPath = recordPath; self.speed = speed; self.isTerminal = isTerminal
        self.fusion = fusion
        self.export = export
        self.scheduling = scheduling
        self.classes = classes
    }
}

/// What a scheduled run looked like after one step: what the scheduler's evaluation harness reads of the loop
/// (`SessionCore`), so that it measures exactly what `lodestone run` runs.
public struct RunStep {
    /// Session time, s.
    public var timeS: Double
    /// What fusion estimated so far (orientation, activity, altitude, position).
    public var context: FusionContext
    /// The latest heading (`nil` before the orientation filter gives one).
    public var heading: Heading?
    /// The latest fused location.
    public var location: Location?
    /// The location delivered to the clients at this step, if one was.
    public var delivered: DeliveredLocation?
    /// The delivery's state and counters.
    public var delivery: LocationDelivery?
    /// The scheduler glue (plan, inputs, energy so far); `nil` in an unscheduled run.
    public var scheduling: ScheduledSampling?
    /// A new plan was applied at this step.
    public var planChanged: Bool
    /// Time of the latest receiver fix the engine delivered, s.
    public var lastFixTimeS: Double?
    /// The engine's sources now.
    public var statuses: [Engine.SourceStatus]

    /// The loop's state after its last step.
    public init(_ core: SessionCore) {
        let s = core.state
        timeS = s.timeS; context = s.fusion.context; heading = s.fusion.orientation.heading; location = s.fusion.location.latest
        delivered = s.deliveredAtLastStep; delivery = s.delivery; scheduling = s.scheduling; planChanged = s.planChangedAtLastStep
        lastFixTimeS = s.lastFixTimeS; statuses = core.engine.statuses
    }
}

/// `lodestone run`: a client of one `Session` on the board. With `json`, it reads the session's wire stream and writes
/// each message as a line; otherwise it draws the live view (a terminal) or logs one line per state change. It keeps
/// going when a sensor fails (saying so on standard error).
public struct RunJob {
    public var options: RunOptions

    public init(options: RunOptions) { self.options = options }

    /// Runs until the duration is over or `shouldStop()` is true (polled every 50 ms). Returns the process exit status.
    /// - Parameter beforeEachStep: called in the loop before each step with the loop and the step's time (tests use it
    ///   to inject faults on the simulated bus through `core.runtime.world`).
    /// - Parameter systemBattery: reads the system's battery for `--battery auto` (`nil`: none present).
    public func run(
        output: LineOutput, errors: LineOutput, clock: any SessionClock = SystemSessionClock(),
        shouldStop: @escaping @Sendable () -> Bool = { false },
        beforeEachStep: (@Sendable (SessionCore, Double) -> Void)? = nil,
        systemBattery: (@Sendable () -> BatteryState?)? = nil
    ) async throws(JobError) -> Int32 {
        // The first client's demand is this stream's (withdrawn when it ends); any others (a demands file) stand.
        var scheduling = options.scheduling
        let readerDemand = scheduling?.demands.first
        if let standing = scheduling?.demands.dropFirst() { scheduling?.demands = Array(standing) }
        let configuration = SessionConfiguration(
            board: options.board, scenario: options.scenario, seed: options.seed,
            durationS: options.durationS, speed: options.speed, fusion: options.fusion,
            scheduling: scheduling, recordPath: options.recordPath, export: options.export,
            systemBattery: systemBattery)
        let session: Session
        do { session = try Session(configuration: configuration, clock: clock, beforeEachStep: beforeEachStep) } catch {
            throw JobError(error.description)
        }
        if let path = options.recordPath, !options.json { errors.write("recording to \(path)") }
        if !options.json, options.fusion.calibration.document != nil || options.fusion.calibration.disabled {
            errors.write(options.fusion.calibration.summary)
        }
        let watcher = Task {
            while !Task.isCancelled {
                if shouldStop() { await session.stop(); return }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { watcher.cancel() }
        let paced = options.speed > 0 || configuration.board.sensors.contains { $0.bus != .simulated }
        if options.json {
            let demand = readerDemand ?? Demand(client: "run")
            let stream = session.messages(
                options.classes, demand: demand,
                options: SubscriptionOptions(client: demand.client, buffering: .lossless(4096)))
            var messages = stream.makeAsyncIterator() // joins the loop before its first step
            await session.start()
            while let message = await messages.next() {
                output.write(message.line)
                if let line = Self.errorLine(message) { errors.write(line) }
                if paced { output.flush() }
                if output.isBroken { await session.stop(); break }
            }
        } else {
            // A terminal: the live view, fitted to it, four times a second. Without one: a log line per state change,
            // never the frame (lossless, so that no change is missed).
            let terminal = options.isTerminal
            var view = HumanView(boardName: options.board.name, isTerminal: true, terminalSize: options.terminalSize)
            var log = StateChangeLog()
            let stream = session.statusUpdates(
                periodS: terminal ? 0.25 : 1, demand: readerDemand ?? Demand(client: "run"),
                options: SubscriptionOptions(buffering: terminal ? .newest(1) : .lossless(64)))
            var statuses = stream.makeAsyncIterator()
            await session.start()
            var notesShown = 0
            var lastS: Double?
            func show(_ status: SessionStatus) {
                notesShown = Self.writeNewNotes(status, shown: notesShown, to: errors)
                if terminal {
                    output.writeRaw(view.frame(Self.screen(view, status)))
                } else {
                    for line in log.update(status.changes) { output.write(line) }
                }
                output.flush()
                lastS = status.timeS
            }
            while let status = await statuses.next() {
                show(status)
                if output.isBroken { await session.stop(); break }
            }
            await session.waitUntilEnded()
            let final = await session.status
            if lastS != final.timeS {
                show(final)
            } else {
                notesShown = Self.writeNewNotes(final, shown: notesShown, to: errors)
            }
            if !terminal { output.write(log.endLine(timeS: final.timeS)) }
        }
        await session.waitUntilEnded()
        output.flush()
        let problems = await session.endProblems
        if let path = options.recordPath, let rows = await session.recordedRowCount {
            errors.write("recorded \(rows) rows to \(path)")
        }
        for p in problems { errors.write(p) }
        return problems.isEmpty ? 0 : 1
    }

    /// The line for standard error a wire message calls for (a sensor degraded or recovered, a reconfiguration rolled
    /// back), as the live view says it.
    static func errorLine(_ message: Wire.Message) -> String? {
        switch message {
        case .notice(let n) where n.class == "DEGRADED":
            "\(n.sensor) degraded at t=\(formatFixed(n.tS, digits: 2)) s: \(n.message); retrying"
        case .notice(let n) where n.class == "RECOVERED":
            "\(n.sensor) recovered at t=\(formatFixed(n.tS, digits: 2)) s"
        case .plan(let p) where p.failures != nil:
            (p.failures ?? []).map { "reconfiguration failed at t=\(formatFixed(p.tS, digits: 2)) s, rolled back: \($0)" }
                .joined(separator: "\n")
        default: nil
        }
    }

    static func screen(_ view: HumanView, _ s: SessionStatus) -> HumanView.Screen {
        view.render(timeS: s.timeS, statuses: s.sources, truth: s.truth, fusion: s.fusionLines, plan: s.planLines, notes: s.notes)
    }

    /// Writes the status's notes not written yet; returns how many have been written in all.
    static func writeNewNotes(_ status: SessionStatus, shown: Int, to errors: LineOutput) -> Int {
        let fresh = min(status.noteCount - shown, status.notes.count)
        for line in status.notes.suffix(max(0, fresh)) { errors.write(line) }
        return status.noteCount
    }
}
