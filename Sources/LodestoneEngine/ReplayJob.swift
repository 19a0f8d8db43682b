import LodestoneCore

/// `lodestone replay`: runs the engine over a recorded trace as fast as it can and writes one output row per
/// input row. Rows before a malformed or truncated line are processed and written; the error is then
/// reported (nothing already computed is lost).
public struct ReplayJob {
    public var inputPath: String

    public init(inputPath: String) { self.inputPath = inputPath }

    /// Output columns, in order. Later stages (orientation, altitude, activity) add theirs here.
    public static let columns = ["t_s", "acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z", "mag_x", "mag_y", "mag_z", "pressure_pa"]

    /// Processes the whole trace, calling `emit` with each output line (no newline). Returns the number of
    /// rows processed; throws the first input error after everything before it was emitted.
    public func run(emit: (String) -> Void) throws(TraceError) -> Int {
        let text = try TraceFiles.readText(path: inputPath)
        var parser = TraceParser(text: text, path: inputPath)
        emit(Self.columns.joined(separator: ","))
        var count = 0
        var last = -Double.infinity
        while let row = try parser.next() {
            guard row.timeS >= last else {
                throw TraceError(path: inputPath, line: count + 2, column: "t_s",
                                 problem: "time goes backwards (\(row.timeS) after \(last)); traces must be in time order")
            }
            last = row.timeS
            emit(Self.line(row))
            count += 1
        }
        return count
    }

    static func line(_ r: TraceRow) -> String {
        func v(_ x: Double?, _ d: Int) -> String { x.map { formatFixed($0, digits: d) } ?? "" }
        let a = r.accelerationMps2, g = r.angularVelocityRadS, m = r.magneticFieldMicroTesla
        return [formatFixed(r.timeS, digits: 6), v(a?.x, 5), v(a?.y, 5), v(a?.z, 5), v(g?.x, 6), v(g?.y, 6), v(g?.z, 6),
                v(m?.x, 4), v(m?.y, 4), v(m?.z, 4), v(r.pressurePa, 3)].joined(separator: ",")
    }
}
