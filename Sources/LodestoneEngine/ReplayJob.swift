import LodestoneCore

/// `lodestone replay`: runs the engine over a recorded trace as fast as it can and writes one output row per
/// input row. Rows before a malformed or truncated line are processed and written; the error is then
/// reported (nothing already computed is lost).
public struct ReplayJob {
    public var inputPath: String

    public init(inputPath: String) { self.inputPath = inputPath }

    /// Output columns, in order. Later stages (orientation, altitude, activity) add theirs here.
    public static let columns = [TraceColumn.timeS, .accX, .accY, .accZ, .gyrX, .gyrY, .gyrZ, .magX, .magY, .magZ, .pressurePa]
    static let formatter = TraceFormatter(columns: columns)

    /// Processes the whole trace, calling `emit` with each output line (no newline). Returns the number of
    /// rows processed; throws the first input error after everything before it was emitted.
    public func run(emit: (String) -> Void) throws(TraceError) -> Int {
        let text = try TraceFiles.readText(path: inputPath)
        var parser = TraceParser(text: text, path: inputPath)
        emit(String(Self.formatter.header.dropLast()))
        var count = 0
        var last = -Double.infinity
        while let row = try parser.next() {
            guard row.timeS >= last else {
                throw TraceError(path: inputPath, line: count + 2, column: "t_s",
                                 problem: "time goes backwards (\(row.timeS) after \(last)); traces must be in time order")
            }
            last = row.timeS
            emit(String(Self.formatter.line(row).dropLast()))
            count += 1
        }
        return count
    }

}
