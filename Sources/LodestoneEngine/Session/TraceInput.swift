import LodestoneCore
import LodestoneFusion
import LodestoneTrace

/// Where a session's samples come from.
public enum SessionInput: Sendable, Hashable {
    /// The board's sensors, through the sampling engine (on the simulated board, its world).
    case board
    /// A recorded trace (CSV, plain or gzip), row by row as fast as the loop goes (`lodestone replay`): each row is one
    /// step, its sensor columns one reading, its GNSS columns a fix. The board file, when given, only names the
    /// calibration's sensors.
    case trace(path: String)
}

/// A trace read one row ahead, so that the loop knows when its next step is due. A row that cannot be read (a cut
/// file, a bad cell, time going backwards) ends the input after every row before it; the error is kept.
struct TraceInput {
    private var parser: TraceParser
    let path: String
    /// The row the next step processes.
    private(set) var pending: TraceRow?
    /// The time of `pending`, s (read once per step without copying the row).
    var pendingTimeS: Double? { pending?.timeS }
    /// The first input error (the header's, a row's); reading stops there.
    private(set) var error: TraceError?
    /// Rows processed.
    private(set) var count = 0
    /// The header's columns (the location columns of `replay` appear only when the trace has GNSS).
    let knownColumns: [TraceColumn]
    /// The header could not be read and named no column: no row, no output header.
    let headerUnreadable: Bool

    init(path: String) throws(TraceError) {
        self.path = path
        parser = try TraceParser(reading: path)
        var headerError: TraceError?
        do { try parser.readHeader() } catch { headerError = error }
        knownColumns = parser.knownColumns
        headerUnreadable = headerError != nil && knownColumns.isEmpty
        error = headerError
        if headerError == nil { readAhead(after: -Double.infinity) }
    }

    /// Takes the pending row and reads the next one.
    mutating func take() -> TraceRow? {
        guard let row = pending else { return nil }
        count += 1
        readAhead(after: row.timeS)
        return row
    }

    private mutating func readAhead(after lastS: Double) {
        pending = nil
        do {
            guard let row = try parser.next() else { return }
            guard row.timeS >= lastS else {
                error = TraceError(
                    path: path, line: count + 2, column: "t_s",
                    problem: "time goes backwards (\(row.timeS) after \(lastS)); traces must be in time order")
                return
            }
            pending = row
        } catch { self.error = error }
    }

}

extension FusionSample {
    /// A trace row as a fusion sample: the sensor columns, and the GNSS columns as a receiver fix (2D without
    /// `height_m`, 3D with it); a `speed_mps` without a position is a receiver's speed alone.
    public init(traceRow row: TraceRow) {
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
        self.init(reading: row.reading, fix: fix)
    }
}
