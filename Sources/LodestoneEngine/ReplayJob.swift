import LodestoneCore

/// `lodestone replay`: runs the fusion pipeline over a recorded trace as fast as it can and writes one output
/// row per input row (`FusionPipeline.columns`). Rows before a malformed or truncated line are processed and
/// written; the error is then reported (nothing already computed is lost).
public struct ReplayJob {
    public var inputPath: String
    public var configuration: FusionConfiguration
    /// Where to write the fused track (GPX, GeoJSON), also when the trace ends in an error.
    public var export: TrackExport.Paths?

    public init(inputPath: String, configuration: FusionConfiguration = FusionConfiguration(), export: TrackExport.Paths? = nil) {
        self.inputPath = inputPath
        self.configuration = configuration
        self.export = export
    }

    /// Processes the whole trace, calling `emit` with each output line (no newline). Returns the number of
    /// rows processed; throws the first input error after everything before it was emitted.
    public func run(emit: (String) -> Void) throws(TraceError) -> Int {
        var track: TrackExport?
        if let paths = export {
            do throws(TrackExportError) { track = try TrackExport(paths: paths, name: inputPath) } catch {
                throw TraceError(path: error.path, problem: error.problem)
            }
        }
        var count = 0
        do {
            count = try replay(emit: emit, track: track)
        } catch {
            try Self.finish(track)   // what was replayed before the error is kept
            throw error
        }
        try Self.finish(track)
        return count
    }

    private static func finish(_ track: TrackExport?) throws(TraceError) {
        do throws(TrackExportError) { try track?.write() } catch {
            throw TraceError(path: error.path, problem: error.problem)
        }
    }

    private func replay(emit: (String) -> Void, track: TrackExport?) throws(TraceError) -> Int {
        let text = try TraceFiles.readText(path: inputPath)
        var parser = TraceParser(text: text, path: inputPath)
        // The header is read with the first row: the location columns appear only when the trace has GNSS.
        var pending: TraceRow?
        var firstError: TraceError?
        do { pending = try parser.next() } catch { firstError = error }
        var configuration = configuration
        configuration.location.showsColumns = parser.knownColumns.contains(.latDeg)
        var pipeline = FusionPipeline(configuration: configuration)
        if firstError == nil || !parser.knownColumns.isEmpty { emit(pipeline.columns.joined(separator: ",")) }
        if let firstError { throw firstError }
        var count = 0
        var last = -Double.infinity
        while true {
            let next: TraceRow?
            if let p = pending { next = p; pending = nil } else { next = try parser.next() }
            guard let row = next else { break }
            guard row.timeS >= last else {
                throw TraceError(path: inputPath, line: count + 2, column: "t_s",
                                 problem: "time goes backwards (\(row.timeS) after \(last)); traces must be in time order")
            }
            last = row.timeS
            pipeline.process(Self.sample(row))
            track?.add(pipeline.location.latest)
            emit(pipeline.line(timeS: row.timeS))
            count += 1
        }
        return count
    }

    /// A trace row as a fusion sample: the sensor columns, and the GNSS columns as a receiver fix (2D without
    /// `height_m`, 3D with it); a `speed_mps` without a position is a receiver's speed alone.
    static func sample(_ row: TraceRow) -> FusionSample {
        var fix: ReceiverFix?
        if let lat = row.latitudeDeg, let lon = row.longitudeDeg {
            var f = ReceiverFix(timeS: row.timeS, mode: row.heightM == nil ? .twoDimensional : .threeDimensional)
            f.latitudeDeg = lat
            f.longitudeDeg = lon
            f.heightAboveEllipsoidM = row.heightM
            f.speedMps = row.speedMps
            f.horizontalAccuracyM = row.horizontalAccuracyM
            f.courseDeg = row.courseDeg
            f.verticalAccuracyM = row.verticalAccuracyM
            f.speedAccuracyMps = row.speedAccuracyMps
            f.geoidSeparationM = row.geoidSeparationM
            fix = f
        } else if let v = row.speedMps {
            var f = ReceiverFix(timeS: row.timeS, mode: .unknown)
            f.speedMps = v
            fix = f
        }
        return FusionSample(reading: row.reading, fix: fix)
    }
}
