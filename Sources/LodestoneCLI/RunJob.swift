import LodestoneCore
import LodestoneEngine
import LodestoneOrientation
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
    /// Draw the live view in place (a terminal) rather than printing frames.
    public var isTerminal: Bool
    /// What fusion is told before it starts.
    public var fusion: FusionConfiguration
    /// Where to write the fused track when the run ends (GPX, GeoJSON).
    public var export: TrackExport.Paths?
    /// The scheduler: policy, clients' demands, battery (`nil`: none; every sensor runs at the board file's rate, as
    /// before issue 8). `lodestone run` always sets one (default: adaptive, one client wanting everything).
    public var scheduling: SchedulingConfiguration?

    public init(board: BoardDescription, scenario: String? = nil, durationS: Double? = nil, seed: UInt64 = 1, json: Bool = false,
                recordPath: String? = nil, speed: Double = 1, isTerminal: Bool = false,
                fusion: FusionConfiguration = FusionConfiguration(), export: TrackExport.Paths? = nil,
                scheduling: SchedulingConfiguration? = nil) {
        self.board = board; self.scenario = scenario; self.durationS = durationS; self.seed = seed; self.json = json
        self.recordPath = recordPath; self.speed = speed; self.isTerminal = isTerminal
        self.fusion = fusion
        self.export = export
        self.scheduling = scheduling
    }
}

/// What a scheduled run looked like after one step: handed to `RunJob.run`'s `stepped` observer (the scheduler's
/// evaluation harness reads the run through it, so that it measures exactly what `lodestone run` does).
public struct RunStep {
    /// Engine time, s.
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
}

/// `lodestone run`: assembles the board, samples every sensor at its rate, shows or streams what it reads,
/// records a trace, and keeps going when a sensor fails (saying so).
public struct RunJob {
    public var options: RunOptions

    public init(options: RunOptions) { self.options = options }

    /// Runs until the duration is over or `shouldStop()` is true. Returns the process exit status.
    /// - Parameter assembled: called once with the assembled board before the first sample (tests use it to
    ///   reach the simulator bus and inject faults).
    /// - Parameter stepped: called after every step of a scheduled run (the evaluation harness); `nil` costs nothing.
    /// - Parameter systemBattery: reads the system's battery for `--battery auto` (`nil`: none present).
    public func run(output: LineOutput, errors: LineOutput, clock: EngineClock, shouldStop: () -> Bool,
                    assembled: (BoardRuntime) -> Void = { _ in }, stepped: ((RunStep) -> Void)? = nil,
                    systemBattery: (() -> BatteryState?)? = nil) throws(JobError) -> Int32 {
        let runtime = try BoardRuntime.assemble(options.board, seed: options.seed, scenario: options.scenario)
        assembled(runtime)
        var engine = Engine(sources: runtime.sources)
        var scheduling: ScheduledSampling?
        var delivery: LocationDelivery?
        if let c = options.scheduling {
            scheduling = try ScheduledSampling(sensors: runtime.plannedSensors, receiver: runtime.plannedReceiver,
                                               configuration: c, systemBattery: systemBattery)
            delivery = LocationDelivery(demand: scheduling?.scheduler.inputs.demand.location)
        }
        var lastFixTimeS: Double?
        let isSimulated = runtime.world != nil
        let speed = isSimulated ? options.speed : 1
        var recorder: TraceRecorder?
        if let path = options.recordPath {
            do { recorder = try TraceRecorder(path: path) } catch { throw JobError(error.description) }
            if !options.json { errors.write("recording to \(path)") }
        }
        if options.json {
            output.write(Wire.line(Wire.Version.current))
            output.write(Wire.line(Wire.Board(board: options.board, sources: runtime.sources,
                                              scenario: runtime.world?.scenarioName, seed: isSimulated ? options.seed : nil)))
            output.write(Wire.line(Wire.Calibration(options.fusion.calibration)))
        } else if options.fusion.calibration.document != nil || options.fusion.calibration.disabled {
            errors.write(options.fusion.calibration.summary)
        }
        var view = HumanView(boardName: options.board.name, isTerminal: options.isTerminal)
        var fusion = FusionPipeline(configuration: options.fusion)
        var track: TrackExport?
        if let paths = options.export {
            do throws(TrackExportError) { track = try TrackExport(paths: paths, name: options.board.name) } catch {
                throw JobError(error.description)
            }
        }
        var notes: [String] = []
        let wallStartS = clock.nowS()
        var nextStatusS = 1.0
        var nextRedrawWallS = wallStartS
        var everDelivered = false
        var lastStatusS = -Double.infinity
        let duration = options.durationS ?? .infinity

        var lastStepS = 0.0
        while !shouldStop() {
            let due = engine.nextDueS
            // A scheduled run steps at least once a second: the scheduler's timers run even while every sensor sleeps.
            let t = scheduling == nil ? due : min(due, lastStepS + ScheduledSampling.heartbeatS)
            guard t.isFinite, t <= duration + 1e-9 else { break }
            lastStepS = t
            if speed > 0 { clock.sleep(untilS: wallStartS + t / speed) }
            if t < due { runtime.world?.advance(toTimeS: t) } else {
            engine.step(prepare: { runtime.world?.advance(toTimeS: $0) }) { event in
                scheduling?.observe(event)
                switch event {
                case let .reading(sensor, r):
                    everDelivered = true
                    recorder?.add(r, from: sensor)
                    fusion.process(FusionSample(reading: r, sensor: sensor))
                    scheduling?.observe(activity: fusion.context.activity, timeS: r.timeS)
                    track?.add(fusion.location.latest)
                    if options.json { output.write(Wire.line(Wire.Sample(sensor: sensor, reading: r, messageClass: "SAMPLE"))) }
                case let .fix(sensor, f):
                    everDelivered = true
                    recorder?.add(f)
                    fusion.process(FusionSample(reading: SensorReading(timeS: f.timeS), fix: f))
                    if f.hasPosition { lastFixTimeS = f.timeS }
                    track?.add(fusion.location.latest)
                    if options.json { output.write(Wire.line(Wire.Fix(sensor: sensor, fix: f))) }
                case let .degraded(sensor, message, timeS):
                    let line = "\(sensor) degraded at t=\(formatFixed(timeS, digits: 2)) s: \(message); retrying"
                    if options.json {
                        output.write(Wire.line(Wire.Notice(messageClass: "DEGRADED", tS: timeS, sensor: sensor, message: message)))
                    } else { notes.append(line) }
                    errors.write(line)
                case let .recovered(sensor, timeS):
                    let line = "\(sensor) recovered at t=\(formatFixed(timeS, digits: 2)) s"
                    if options.json {
                        output.write(Wire.line(Wire.Notice(messageClass: "RECOVERED", tS: timeS, sensor: sensor, message: "delivering again")))
                    } else { notes.append(line) }
                    errors.write(line)
                case .motionWake: break   // the scheduler consumes it (ScheduledSampling.observe)
                }
            }
            }
            var planChanged = false
            var delivered: DeliveredLocation?
            if scheduling != nil {
                if case .changed(let failures) = scheduling?.update(engine: &engine, timeS: t), let s = scheduling {
                    planChanged = true
                    if options.json { output.write(Wire.line(Wire.Plan(s, timeS: t, failures: failures))) }
                    for f in failures {
                        let line = "\(f.sensor) reconfiguration failed at t=\(formatFixed(t, digits: 2)) s, rolled back: \(f.message)"
                        if !options.json { notes.append(line) }
                        errors.write(line)
                    }
                }
                let inputs = scheduling?.scheduler.inputs
                delivered = delivery?.offer(fusion.location.latest, timeS: t, stationary: inputs?.motion == .stationary,
                                            receiverOff: scheduling?.receiverState == .off)
                if options.json, let d = delivered { output.write(Wire.line(Wire.Delivery(d))) }
                if let stepped {
                    stepped(RunStep(timeS: t, context: fusion.context, heading: fusion.orientation.heading,
                                    location: fusion.location.latest, delivered: delivered, delivery: delivery, scheduling: scheduling,
                                    planChanged: planChanged, lastFixTimeS: lastFixTimeS, statuses: engine.statuses))
                }
            }
            if let world = runtime.world, recorder != nil { recorder?.add(truth: world.truthRow, timeS: t) }
            if t >= nextStatusS {
                nextStatusS += 1
                lastStatusS = t
                if options.json { output.write(Wire.line(status(t, engine, runtime, scheduling))) }
                if options.json, let l = fusion.location.latest { output.write(Wire.line(Wire.Location(l))) }
                if let e = recorder?.error { errors.write(e); recorder = nil }
            }
            if !options.json {
                let now = clock.nowS()
                if now >= nextRedrawWallS {
                    nextRedrawWallS = now + (options.isTerminal ? 0.25 : 1.0)
                    output.writeRaw(view.frame(view.render(timeS: t, statuses: engine.statuses, truth: runtime.world?.truthSummary, fusion: fusion.liveLines,
                                                           plan: Self.planLines(scheduling, delivery, timeS: t), notes: notes)))
                    output.flush()
                }
            } else if speed > 0 {
                output.flush()
            }
        }
        recorder?.close()
        if let e = recorder?.error { errors.write(e) }
        if options.json {
            if lastStatusS != lastStepS { output.write(Wire.line(status(lastStepS, engine, runtime, scheduling))) }
        } else {
            output.writeRaw(view.frame(view.render(timeS: lastStepS, statuses: engine.statuses, truth: runtime.world?.truthSummary, fusion: fusion.liveLines,
                                                   plan: Self.planLines(scheduling, delivery, timeS: lastStepS), notes: notes)))
        }
        output.flush()
        if let r = recorder { errors.write("recorded \(r.rowCount) rows to \(r.path)") }
        if let track {
            do throws(TrackExportError) { try track.write() } catch {
                errors.write(error.description)
                return 1
            }
        }
        guard everDelivered else {
            errors.write("no sensor delivered a sample: " + engine.statuses.map { "\($0.id): \($0.health)" }.joined(separator: "; "))
            return 1
        }
        return 0
    }

    /// The plan's lines and the delivery line for the live view (none in an unscheduled run).
    static func planLines(_ scheduling: ScheduledSampling?, _ delivery: LocationDelivery?, timeS: Double) -> [String] {
        guard let scheduling else { return [] }
        return scheduling.liveLines + (delivery?.liveLine(atS: timeS).map { ["          " + $0] } ?? [])
    }

    private func status(_ t: Double, _ engine: Engine, _ runtime: BoardRuntime, _ scheduling: ScheduledSampling?) -> Wire.Status {
        Wire.Status(tS: t, statuses: engine.statuses, truth: runtime.world?.truthSummary, plan: scheduling.map(Wire.PlanSummary.init))
    }
}
