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
        try run(writingLines: { emit(String(decoding: $0, as: UTF8.self)) })
    }

    /// Processes the whole trace, writing each output line to `output` as bytes (`LineOutput.write(lineBytes:)`:
    /// no `String` per row). Returns the number of rows processed; throws the first input error after everything
    /// before it was written. Stops early, after the row that found it, once `output` is broken (the reader of
    /// standard output went away, the output file's disk is full): the rest would be written nowhere.
    public func run(output: LineOutput) throws(TraceError) -> Int {
        try run(writingLines: { output.write(lineBytes: $0) }, shouldStop: { output.isBroken })
    }

    private func run(
        writingLines write: (UnsafeRawBufferPointer) -> Void, shouldStop: () -> Bool = { false }
    ) throws(TraceError) -> Int {
        // The session's loop over the trace: each row one step, fused as `run` fuses, unscheduled, as fast as it goes.
        var configuration = SessionConfiguration(
            board: BoardDescription(name: inputPath, sensors: []), speed: 0,
            fusion: configuration, scheduling: nil, export: export)
        configuration.input = .trace(path: inputPath)
        var core: SessionCore
        do { core = try SessionCore(configuration: configuration) } catch {
            switch error {
            case .input(let e): throw e
            case .export(let path, let problem): throw TraceError(path: path, problem: problem)
            default: throw TraceError(path: inputPath, problem: error.description)
            }
        }
        // One line buffer for every row: formatting a row allocates nothing once it has grown.
        var line = CSVLine(capacity: 512)
        if !core.inputHeaderUnreadable {
            line.append(core.columns.joined(separator: ","))
            line.withUnsafeBytes(write)
        }
        // Region monitoring over each new fused location (the identifiers were checked unique by `RegionsCSV`).
        var monitor = RegionMonitor()
        for r in regions { try? monitor.add(r) }
        var lastMonitoredS = -Double.infinity
        while !shouldStop(), let t = core.nextStepTimeS {
            core.step(at: t)
            if let onMonitorEvent, let location = core.state.fusion.location.latest, location.timeS > lastMonitoredS {
                lastMonitoredS = location.timeS
                monitor.evaluate(location, onEvent: onMonitorEvent)
            }
            line.removeAll()
            core.appendLine(to: &line)
            line.withUnsafeBytes(write)
        }
        let count = core.inputRowCount
        // The track is written also when the trace ends in an error: what was replayed before it is kept.
        core.finish()
        if let e = core.inputError { throw e }
        if let e = core.exportError { throw TraceError(path: e.path, problem: e.problem) }
        return count
    }
}
