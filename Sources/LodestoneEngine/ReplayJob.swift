import LodestoneCore

/// `lodestone replay`: runs the fusion pipeline over a recorded trace as fast as it can and writes one output
/// row per input row (`FusionPipeline.columns`). Rows before a malformed or truncated line are processed and
/// written; the error is then reported (nothing already computed is lost).
public struct ReplayJob {
    public var inputPath: String
    public var configuration: FusionConfiguration

    public init(inputPath: String, configuration: FusionConfiguration = FusionConfiguration()) {
        self.inputPath = inputPath
        self.configuration = configuration
    }

    /// Processes the whole trace, calling `emit` with each output line (no newline). Returns the number of
    /// rows processed; throws the first input error after everything before it was emitted.
    public func run(emit: (String) -> Void) throws(TraceError) -> Int {
        let text = try TraceFiles.readText(path: inputPath)
        var parser = TraceParser(text: text, path: inputPath)
        var pipeline = FusionPipeline(configuration: configuration)
        emit(pipeline.columns.joined(separator: ","))
        var count = 0
        var last = -Double.infinity
        while let row = try parser.next() {
            guard row.timeS >= last else {
                throw TraceError(path: inputPath, line: count + 2, column: "t_s",
                                 problem: "time goes backwards (\(row.timeS) after \(last)); traces must be in time order")
            }
            last = row.timeS
            pipeline.process(Self.sample(row))
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
            fix = f
        } else if let v = row.speedMps {
            var f = ReceiverFix(timeS: row.timeS, mode: .unknown)
            f.speedMps = v
            fix = f
        }
        return FusionSample(reading: row.reading, fix: fix)
    }
}
