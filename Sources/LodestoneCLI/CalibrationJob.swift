#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCalibration
import LodestoneCore
import LodestoneDrivers
import LodestoneEngine
import LodestoneGeomagnetism
import LodestoneSimulation

/// Lines a person types, for the guided calibration. Injected: the terminal in the CLI, a script in tests.
public protocol PromptInput: AnyObject {
    /// A line typed since the last call (without its newline), or `nil` when none is waiting. Never blocks.
    func pollLine() -> String?
    /// Waits for a line; `nil` at the end of the input or when interrupted (Ctrl-C).
    func waitForLine() -> String?
}

/// What `lodestone calibrate` was asked to do.
public struct CalibrationOptions: Sendable {
    /// The kind of calibration, as named on the command line.
    public enum Kind: String, Sendable, CaseIterable {
        case magnetometer = "mag", accelerometer = "accel", gyroscope = "gyro", barometer = "baro"

        /// The quantity calibrated.
        public var sensorKind: SensorKind {
            switch self {
            case .magnetometer: .magnetometer
            case .accelerometer: .accelerometer
            case .gyroscope: .gyroscope
            case .barometer: .barometer
            }
        }

        /// The simulated board's scenario for this calibration: the simulated person does what the guide asks.
        public var simulatedScenario: String {
            switch self {
            case .magnetometer: "calibrate-mag"
            case .accelerometer: "calibrate-accel"
            case .gyroscope, .barometer: "stationary"
            }
        }
    }

    public var kind: Kind
    public var board: BoardDescription
    /// Where the result is saved (merged into the board's document there).
    public var outputPath: String
    /// Calibrate from this recording instead of the live board.
    public var tracePath: String?
    /// Guide a person at a terminal (prompts, live view, a question before saving); otherwise run through and
    /// save when every sensor succeeded.
    public var interactive: Bool
    /// Redraw the live view in place (a terminal that can move its cursor); otherwise print progress lines.
    public var liveView: Bool
    public var style: CalibrationStyle
    /// Board ids to calibrate; empty = every sensor of the board with that kind.
    public var sensorIDs: [String]
    /// Simulated board: scenario (default: the kind's calibration motion), seed, speed (1 real time, 0 as fast
    /// as possible).
    public var scenario: String?
    public var seed: UInt64
    public var speed: Double
    /// Magnetometer and accelerometer: give up after this long, s (`.infinity`: never, e.g. for a trace).
    public var timeoutS: Double
    /// Gyroscope and barometer: capture length, s (defaults 10 s).
    public var durationS: Double?
    /// The board's position for the WMM and gravity, when not known from a receiver (deg, deg, m above the ellipsoid).
    public var latitudeDeg: Double?
    public var longitudeDeg: Double?
    public var heightM: Double?
    /// Barometer reference.
    public var altitudeMSLM: Double?
    public var qnhPa: Double?
    /// The document's time stamp, UTC `YYYY-MM-DDTHH:MM:SSZ`; also the date of the WMM (the simulated
    /// board uses its scenario's date instead).
    public var date: String

    /// `date` as a decimal year (NOAA convention); 2026.5 if it does not parse.
    public var decimalYear: Double {
        let parts = date.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int($0) }
        guard parts.count == 6 else { return 2026.5 }
        return
            (try? DecimalYear.from(
                year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4],
                second: Double(parts[5]))) ?? 2026.5
    }

    public init(
        kind: Kind, board: BoardDescription, outputPath: String, tracePath: String? = nil, interactive: Bool = false,
        liveView: Bool = false, style: CalibrationStyle = .plain, sensorIDs: [String] = [], scenario: String? = nil,
        seed: UInt64 = 1,
        speed: Double = 1, timeoutS: Double = 120, durationS: Double? = nil, latitudeDeg: Double? = nil,
        longitudeDeg: Double? = nil, heightM: Double? = nil,
        altitudeMSLM: Double? = nil, qnhPa: Double? = nil, date: String = "2026-07-02T10:00:00Z"
    ) {
        self.kind = kind; self.board = board; self.outputPath = outputPath; self.tracePath = tracePath
        self.interactive = interactive; self.liveView = liveView; self.style = style; self.sensorIDs = sensorIDs;
        self.scenario = scenario
        self.seed = seed; self.speed = speed; self.timeoutS = timeoutS; self.durationS = durationS
        self.latitudeDeg = latitudeDeg; self.longitudeDeg = longitudeDeg; self.heightM = heightM
        self.altitudeMSLM = altitudeMSLM; self.qnhPa = qnhPa; self.date = date
    }
}

/// `lodestone calibrate`: a guided calibration session, fed live by the engine (`Engine` over `BoardRuntime`)
/// or by a recorded trace, ending with every sensor's result or named failure, and the board's calibration
/// document saved atomically.
///
/// Exit status: 0 saved (or the person chose not to save), 1 a failure (named) or an error, 130 interrupted.
/// The previous file is never touched unless a complete new document replaces it in one rename.
public struct CalibrationJob {
    public var options: CalibrationOptions

    public init(options: CalibrationOptions) { self.options = options }

    /// Exit status for an interrupted session (128 + SIGINT).
    public static let interruptedStatus: Int32 = 130

    /// The board's sensors that measure `kind`, in board order (IIO devices count: their channels are only
    /// known once read).
    public static func sensors(of board: BoardDescription, measuring kind: SensorKind) -> [BoardDescription.SensorEntry] {
        board.sensors.filter { s in
            s.chip == "iio" || (ChipCatalog.entry(named: s.chip)?.kinds.contains(kind) ?? false)
        }
    }

    /// Runs the session. `input` is where the person's answers come from (interactive only); the live view
    /// and the result go to `output`, progress of a non-interactive run to `errors`.
    public func run(
        input: PromptInput?, output: LineOutput, errors: LineOutput, clock: EngineClock,
        shouldStop: () -> Bool, assembled: (BoardRuntime) -> Void = { _ in }
    ) throws(JobError) -> Int32 {
        let o = options
        let kind = o.kind.sensorKind
        let candidates = Self.sensors(of: o.board, measuring: kind)
        let selected: [BoardDescription.SensorEntry]
        if o.sensorIDs.isEmpty {
            // A trace has one column set per quantity: calibrate the sensor that recorded it.
            selected = o.tracePath == nil ? candidates : Array(candidates.prefix(1))
        } else {
            selected = try o.sensorIDs.map { id throws(JobError) in
                guard let s = candidates.first(where: { $0.id == id }) else {
                    throw JobError(
                        "--sensor \(id): no \(kind.rawValue) with that id on \(o.board.path ?? o.board.name); "
                            + "its \(kind.rawValue)s: "
                            + (candidates.isEmpty ? "none" : candidates.map(\.id).joined(separator: ", ")))
                }
                return s
            }
        }
        guard !selected.isEmpty else {
            throw JobError("\(o.board.path ?? o.board.name): the board has no \(kind.rawValue); nothing to calibrate")
        }
        if o.kind == .barometer, o.altitudeMSLM == nil {
            throw JobError(
                "calibrate baro needs the altitude where the board is: --altitude-m METRES (above mean sea level), and ideally --qnh-hpa"
            )
        }
        // Before anything runs: the file can be written, and an existing one is valid and this board's.
        try CalibrationFiles.checkWritable(o.outputPath)
        var document = try CalibrationFiles.existing(at: o.outputPath, board: o.board)

        // The feed.
        var feed: CalibrationFeed
        var labels: [String: String] = [:]
        var decimalYear = o.decimalYear
        var startPosition: (Double, Double, Double)?
        if let trace = o.tracePath {
            // The trace's columns of this kind are the selected sensor's (by default the one that recorded them).
            let traceFeed = try TraceCalibrationFeed(path: trace, board: o.board, assigning: kind, to: selected[0].id)
            for s in selected { labels[s.id] = "\(s.chip), from \(trace)" }
            feed = traceFeed
        } else {
            let scenario = o.scenario ?? (o.board.sensors.contains { $0.bus == .simulated } ? o.kind.simulatedScenario : nil)
            // The session's loop, unscheduled (every sensor at its board rate), no recording.
            let core: SessionCore
            do {
                core = try SessionCore(
                    configuration: SessionConfiguration(board: o.board, scenario: scenario, seed: o.seed, scheduling: nil))
            } catch { throw JobError(error.description) }
            let runtime = core.runtime
            assembled(runtime)
            for s in runtime.sources { labels[s.id] = s.label }
            if let world = runtime.world {
                decimalYear = world.board.scenario.startDecimalYear
                let t = world.board.truth
                startPosition = (t.latitudeDeg, t.longitudeDeg, t.heightM)
            }
            feed = LiveCalibrationFeed(core: core, clock: clock, speed: runtime.world == nil ? 1 : o.speed)
        }

        // What the guides need to know.
        let ids = selected.map(\.id)
        var context = GuideContext(
            style: o.interactive ? o.style : .plain, date: o.date, expectedField: nil,
            gravityMps2: PhysicalConstants.standardGravityMps2, board: o.board, labels: labels)
        func locate(_ lat: Double, _ lon: Double, _ h: Double) {
            context.expectedField = ExpectedField.worldMagneticModel(
                latitudeDeg: lat, longitudeDeg: lon, heightM: h, decimalYear: decimalYear)
            context.gravityMps2 = Geodesy.normalGravityMps2(latitudeRad: Angle.radians(fromDegrees: lat), heightM: h)
        }
        var positionKnown = false
        if let lat = o.latitudeDeg, let lon = o.longitudeDeg {
            locate(lat, lon, o.heightM ?? 0)
            positionKnown = true
        } else if let p = startPosition {
            locate(p.0, p.1, p.2)
            positionKnown = true
        }
        if let altitude = o.altitudeMSLM {
            context.barometerReference =
                o.qnhPa.map { .altitudeAndQNH(altitudeMSLM: altitude, qnhPa: $0) } ?? .altitude(altitudeMSLM: altitude)
            context.expectedPressurePa = StandardAtmosphere.pressurePa(
                altitudeMSLM: altitude, seaLevelPressurePa: o.qnhPa ?? PhysicalConstants.seaLevelPressurePa)
        }
        let duration = o.durationS ?? 10
        var guide: CalibrationGuide =
            switch o.kind {
            case .magnetometer: MagnetometerGuide(sensors: ids)
            case .accelerometer: AccelerometerGuide(sensors: ids, gravityMps2: context.gravityMps2)
            case .gyroscope: GyroscopeGuide(sensors: ids, durationS: duration, rateHz: selected.map(\.rateHz))
            case .barometer: BarometerGuide(sensors: ids, durationS: duration)
            }
        let limitS = (o.kind == .magnetometer || o.kind == .accelerometer) ? o.timeoutS : duration + 30

        // Introduction, and the go-ahead.
        let screenOut: LineOutput = o.interactive ? output : errors
        for line in guide.intro(context.style, context: context) { screenOut.write(line) }
        if o.interactive, let input {
            output.write("")
            output.write(context.style.bold("Press Enter to start") + " (q and Enter to quit).")
            output.flush()
            let answer = input.waitForLine()
            if shouldStop() || answer == nil { return interrupted(output, errors) }
            if answer?.trimmed.lowercased() == "q" { return cancelled(output) }
        }
        screenOut.flush()

        // The session.
        var view = HumanView(boardName: o.board.name, isTerminal: o.liveView)
        var firstS: Double?
        var lastS = 0.0
        var nextTickS = 0.0
        var nextRedrawWallS = clock.nowS()
        var nextProgressS = 5.0
        var nextProgressWallS = clock.nowS() + 5
        var timedOut = false
        var sensorFailure: (String, String)?
        while true {
            if shouldStop() { return interrupted(output, errors) }
            let step = try feed.step { event in
                switch event {
                case let .reading(sensor, r):
                    guide.consume(sensor: sensor, reading: r)
                case .fix(let f):
                    if !positionKnown, f.hasPosition, let lat = f.latitudeDeg, let lon = f.longitudeDeg {
                        locate(lat, lon, f.ellipsoidalHeightM ?? 0)
                        positionKnown = true
                    }
                case let .failure(sensor, message):
                    if ids.contains(sensor), sensorFailure == nil { sensorFailure = (sensor, message) }
                }
            }
            // The end of a recording is not a timeout: the recording simply holds no more.
            guard let t = step else { break }
            if firstS == nil { firstS = t; nextTickS = t + 1 }
            lastS = t
            let elapsed = t - (firstS ?? t)
            if t >= nextTickS {
                guide.tick()
                nextTickS = t + 1
            }
            if sensorFailure != nil || guide.isComplete { break }
            if elapsed >= limitS { timedOut = true; break }
            if o.interactive, let line = input?.pollLine() {
                if line.trimmed.lowercased() == "q" { return cancelled(output) }
                break
            }
            if o.liveView {
                let now = clock.nowS()
                if now >= nextRedrawWallS {
                    nextRedrawWallS = now + 0.2
                    output.writeRaw(view.frame(guide.screen(elapsedS: elapsed, context: context)))
                    output.flush()
                }
            } else if elapsed >= nextProgressS, o.tracePath == nil, clock.nowS() >= nextProgressWallS {
                // Every 5 s of the session and at most every 5 s of wall time (a fast simulation is not a flood).
                nextProgressS = elapsed + 5
                nextProgressWallS = clock.nowS() + 5
                screenOut.write(guide.progressLine(elapsedS: elapsed))
                screenOut.flush()
            }
        }
        guide.tick()
        let elapsed = lastS - (firstS ?? lastS)
        if o.liveView {
            output.writeRaw(view.frame(guide.screen(elapsedS: elapsed, context: context)))
            output.write("")
        }

        // The outcome.
        var outcomes: [SensorOutcome]
        if let (sensor, message) = sensorFailure {
            let e = CalibrationError(.sensorFailed, "\(sensor): \(message)")
            outcomes = ids.map { SensorOutcome.failed($0, e, context.style) }
        } else {
            outcomes = guide.finish(timedOut: timedOut, elapsedS: elapsed, context: context)
        }
        for outcome in outcomes { for line in outcome.lines { output.write(line) } }
        let successes = outcomes.compactMap { try? $0.result.get() }
        let failures = outcomes.count - successes.count
        guard !successes.isEmpty else {
            output.write(
                "nothing saved; \(o.outputPath) "
                    + (FileManager.default.fileExists(atPath: o.outputPath) ? "left as it was" : "not created"))
            output.flush()
            return 1
        }

        // Saving.
        if o.interactive {
            let question =
                failures == 0
                ? "Save to \(o.outputPath)? [Y/n] "
                : "Save the \(successes.count) successful calibration\(successes.count == 1 ? "" : "s") ("
                    + successes.map(\.id).joined(separator: ", ") + ") to \(o.outputPath)? [y/N] "
            output.writeRaw(question)
            output.flush()
            guard let answer = input?.waitForLine(), !shouldStop() else { return interrupted(output, errors) }
            let a = answer.trimmed.lowercased()
            let yes = a.isEmpty ? failures == 0 : (a == "y" || a == "yes")
            guard yes else {
                output.write("not saved; \(o.outputPath) left as it was")
                output.flush()
                return failures == 0 ? 0 : 1
            }
        } else if failures > 0 {
            output.write("nothing saved (\(failures) of \(outcomes.count) failed); \(o.outputPath) left as it was")
            output.flush()
            return 1
        }
        for entry in successes { document.merge(entry, order: o.board.sensors.map(\.id)) }
        try CalibrationFiles.save(document, to: o.outputPath)
        output.write(
            "saved \(o.outputPath) (" + successes.map { "\($0.id): \(o.kind.sensorKind.rawValue)" }.joined(separator: ", ") + ")")
        func absolute(_ p: String) -> String { URL(fileURLWithPath: p).standardizedFileURL.path }
        if CalibrationFiles.searchPath(for: o.board).map(absolute).contains(absolute(o.outputPath)) {
            output.write("lodestone run uses it from now on (and replay with --board \(o.board.path ?? "BOARD")).")
        } else {
            output.write("use it with: lodestone run --calibration \(o.outputPath)")
        }
        output.flush()
        return failures == 0 ? 0 : 1
    }

    private func interrupted(_ output: LineOutput, _ errors: LineOutput) -> Int32 {
        output.write("")
        output.flush()
        errors.write(
            "interrupted: nothing saved; \(options.outputPath) "
                + (FileManager.default.fileExists(atPath: options.outputPath) ? "left as it was" : "not created"))
        errors.flush()
        return Self.interruptedStatus
    }

    private func cancelled(_ output: LineOutput) -> Int32 {
        output.write("")
        output.write(
            "cancelled: nothing saved; \(options.outputPath) "
                + (FileManager.default.fileExists(atPath: options.outputPath) ? "left as it was" : "not created"))
        output.flush()
        return 1
    }
}

// MARK: - Feeds

/// What a calibration session is fed.
enum CalibrationFeedEvent {
    case reading(sensor: String, SensorReading)
    case fix(ReceiverFix)
    /// A sensor of the board failed (not answering, gone).
    case failure(sensor: String, message: String)
}

/// The source of a calibration session's samples: the live board or a recording.
protocol CalibrationFeed {
    /// Advances to the next instant, handing each event to `handle`; returns that instant (s), or `nil` at the end.
    mutating func step(handle: (CalibrationFeedEvent) -> Void) throws(JobError) -> Double?
}

/// The live board through the session's loop (`SessionCore`), paced by the clock (`speed` × real time on the simulated
/// board).
struct LiveCalibrationFeed: CalibrationFeed {
    var core: SessionCore
    let clock: EngineClock
    let speed: Double
    private var wallStartS: Double?

    init(core: SessionCore, clock: EngineClock, speed: Double) {
        self.core = core; self.clock = clock; self.speed = speed
    }

    mutating func step(handle: (CalibrationFeedEvent) -> Void) throws(JobError) -> Double? {
        guard let t = core.nextStepTimeS else { return nil }
        let start = wallStartS ?? clock.nowS()
        wallStartS = start
        if speed > 0 { clock.sleep(untilS: start + t / speed) }
        core.step(at: t) { event in
            switch event {
            case let .reading(sensor, r): handle(.reading(sensor: sensor, r))
            case let .fix(_, f): handle(.fix(f))
            case let .degraded(sensor, message, _): handle(.failure(sensor: sensor, message: message))
            case .recovered, .motionWake: break
            }
        }
        return t
    }
}

/// A recorded trace: each quantity's columns are given to the board's first sensor measuring it (the one
/// `lodestone run --record` records) — the calibrated kind's to the sensor chosen for it —, GNSS columns
/// become fixes.
struct TraceCalibrationFeed: CalibrationFeed {
    private var parser: TraceParser
    private let route: [SensorKind: String]

    init(path: String, board: BoardDescription, assigning kind: SensorKind, to sensor: String) throws(JobError) {
        let text: String
        do { text = try TraceFiles.readText(path: path) } catch { throw JobError(error.description) }
        parser = TraceParser(text: text, path: path)
        var route: [SensorKind: String] = [:]
        for k in [SensorKind.accelerometer, .gyroscope, .magnetometer, .barometer, .thermometer] {
            let known = board.sensors.first { ChipCatalog.entry(named: $0.chip)?.kinds.contains(k) ?? false }
            if let s = known ?? board.sensors.first(where: { $0.chip == "iio" }) { route[k] = s.id }
        }
        route[kind] = sensor
        self.route = route
    }

    mutating func step(handle: (CalibrationFeedEvent) -> Void) throws(JobError) -> Double? {
        let row: TraceRow?
        do { row = try parser.next() } catch { throw JobError(error.description + "; nothing saved") }
        guard let row else { return nil }
        var readings: [(String, SensorReading)] = []
        func add(_ kind: SensorKind, _ set: (inout SensorReading) -> Void) {
            guard let id = route[kind] else { return }
            if let i = readings.firstIndex(where: { $0.0 == id }) {
                set(&readings[i].1)
            } else {
                var r = SensorReading(timeS: row.timeS)
                set(&r)
                readings.append((id, r))
            }
        }
        if let a = row.accelerationMps2 { add(.accelerometer) { $0.accelerationMps2 = a } }
        if let g = row.angularVelocityRadS { add(.gyroscope) { $0.angularVelocityRadS = g } }
        if let m = row.magneticFieldMicroTesla { add(.magnetometer) { $0.magneticFieldMicroTesla = m } }
        if let p = row.pressurePa { add(.barometer) { $0.pressurePa = p } }
        if let t = row.temperatureC, !readings.isEmpty { for i in readings.indices { readings[i].1.temperatureC = t } }
        for (id, r) in readings { handle(.reading(sensor: id, r)) }
        let sample = FusionSample(traceRow: row)
        if let f = sample.fix { handle(.fix(f)) }
        return row.timeS
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends.
    var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" || f == "\n" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s.removeLast() }
        return String(s)
    }
}
