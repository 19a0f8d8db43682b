import LodestoneCore
import LodestoneEngine
import LodestoneMonitoring

/// `lodestone replay`: runs the fusion pipeline over a recorded trace as fast as it can and writes one output
/// row per input row (`FusionPipeline.columns`). Rows before a malformed or truncated line are processed and
/// written; the error is then reported (nothing already computed is lost).
public struct ReplayJob {
    public var inputPath: String
    public var configuration: FusionConfiguration
    /// Where to write the fused track (GPX, GeoJSON), also when the trace ends in an error.
    public var export: TrackExport.Paths?
    /// Regions to monitor over the fused locations (`--regions`); each state change goes to `onMonitorEvent`.
    public var regions: [CircularRegion]
    /// Called with each event of the region monitor, in order (`--events-out`).
    public var onMonitorEvent: ((MonitorEvent) -> Void)?

    public init(
        inputPath: String, configuration: FusionConfiguration = FusionConfiguration(), export: TrackExport.Paths? = nil,
        regions: [CircularRegion] = [], onMonitorEvent: ((MonitorEvent) -> Void)? = nil
    ) {
        self.inputPath = inputPath
        self.configuration = configuration
        self.export = export
        self.regions = regions
        self.onMonitorEvent = onMonitorEvent
    }

    /// Processes the whole trace, calling `emit` with each output line (no newline). Returns the number of
    /// rows processed; throws the first input error after everything before it was emitted.
    public func run(emit: (String) -> Void) throws(TraceError) -> Int {
        try withoutActuallyEscaping(emit) { emit throws(TraceError) in
            let writer = DirectRowWriter(write: { emit(String(decoding: $0, as: UTF8.self)) })
            return try run(header: { emit($0) }, writer: writer)
        }
    }

    /// Processes the whole trace, writing each output line to `output` as bytes (`LineOutput.write(lineBytes:)`:
    /// no `String` per row), formatted and written on a thread of its own (`ThreadedRowWriter`). Returns the number
    /// of rows processed; throws the first input error after everything before it was written. Stops early once
    /// `output` is broken (the reader of standard output went away, the output file's disk is full): the rest would
    /// be written nowhere.
    public func run(output: LineOutput) throws(TraceError) -> Int {
        try run(header: { output.write($0) }, writer: ThreadedRowWriter(output: output))
    }

    private func run(header: (String) -> Void, writer: some ReplayRowWriter) throws(TraceError) -> Int {
        // The session's loop over the trace: each row one step, fused as `run` fuses, unscheduled, as fast as it goes.
        var configuration = SessionConfiguration(
            board: BoardDescription(name: inputPath, sensors: []), speed: 0,
            fusion: configuration, scheduling: nil, export: export)
        configuration.input = .trace(path: inputPath)
        var core: SessionCore
        do { core = try SessionCore(configuration: configuration) } catch {
            writer.finish()
            switch error {
            case .input(let e): throw e
            case .export(let path, let problem): throw TraceError(path: path, problem: problem)
            default: throw TraceError(path: inputPath, problem: error.description)
            }
        }
        // The header goes out before the writer's first row (its thread writes nothing until a tape is handed over).
        if !core.inputHeaderUnreadable { header(core.columns.joined(separator: ",")) }
        // Region monitoring over each new fused location (the identifiers were checked unique by `RegionsCSV`).
        var monitor = RegionMonitor()
        for r in regions { try? monitor.add(r) }
        var lastMonitoredS = -Double.infinity
        while let t = core.nextStepTimeS {
            core.step(at: t)
            if let onMonitorEvent, let location = core.state.fusion.location.latest, location.timeS > lastMonitoredS {
                lastMonitoredS = location.timeS
                monitor.evaluate(location, onEvent: onMonitorEvent)
            }
            core.appendLine(to: &writer.tape.pointee)
            guard writer.rowRecorded() else { break }
        }
        // Every row is written before the track, the monitor's last events and the error (what came before is kept).
        writer.finish()
        let count = core.inputRowCount
        // The track is written also when the trace ends in an error: what was replayed before it is kept.
        core.finish()
        if let e = core.inputError { throw e }
        if let e = core.exportError { throw TraceError(path: e.path, problem: e.problem) }
        return count
    }
}
