import LodestoneCore
import LodestoneEngine

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
        try run(writingLines: { emit(String(decoding: $0, as: UTF8.self)) })
    }

    /// Processes the whole trace, writing each output line to `output` as bytes (`LineOutput.write(lineBytes:)`:
    /// no `String` per row). Returns the number of rows processed; throws the first input error after everything
    /// before it was written.
    public func run(output: LineOutput) throws(TraceError) -> Int {
        try run(writingLines: { output.write(lineBytes: $0) })
    }

    private func run(writingLines write: (UnsafeRawBufferPointer) -> Void) throws(TraceError) -> Int {
        var track: TrackExport?
        if let paths = export {
            do throws(TrackExportError) { track = try TrackExport(paths: paths, name: inputPath) } catch {
                throw TraceError(path: error.path, problem: error.problem)
            }
        }
        var count = 0
        do {
            count = try replay(write: write, track: track)
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

    private func replay(write: (UnsafeRawBufferPointer) -> Void, track: TrackExport?) throws(TraceError) -> Int {
        var parser = try TraceParser(reading: inputPath)
        // The location columns appear only when the trace has GNSS: the header decides the output's columns.
        var headerError: TraceError?
        do { try parser.readHeader() } catch { headerError = error }
        var configuration = configuration
        configuration.location.showsColumns = parser.knownColumns.contains(.latDeg)
        var pipeline = FusionPipeline(configuration: configuration)
        // One line buffer for every row: formatting a row allocates nothing once it has grown.
        var line = CSVLine(capacity: 512)
        if headerError == nil || !parser.knownColumns.isEmpty {
            line.append(pipeline.columns.joined(separator: ","))
            line.withUnsafeBytes(write)
        }
        if let headerError { throw headerError }
        var count = 0
        var last = -Double.infinity
        while let row = try parser.next() {
            guard row.timeS >= last else {
                throw TraceError(path: inputPath, line: count + 2, column: "t_s",
                                 problem: "time goes backwards (\(row.timeS) after \(last)); traces must be in time order")
            }
            last = row.timeS
            pipeline.process(Self.sample(row))
            track?.add(pipeline.location.latest)
            line.removeAll()
            pipeline.appendLine(timeS: row.timeS, to: &line)
            line.withUnsafeBytes(write)
            count += 1
        }
        return count
    }

    /// A trace row as a fusion sample: the sensor columns, and the GNSS columns as a receiver fix (2D without
    /// `height_m`, 3D with it); a `speed_mps` without a position is a receiver's speed alone.
    public static func sample(_ row: TraceRow) -> FusionSample {
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
