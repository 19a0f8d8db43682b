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
/// file, a bad cell, time going backwards) ends the input after every row before it; the error is kept. The rows are
/// read and parsed on a thread of their own, a few hundred ahead (`TracePrefetcher`).
struct TraceInput {
    /// The parser, on its thread; `nil` when the header could not be read (then there are no rows).
    private let prefetcher: TracePrefetcher?
    let path: String
    /// The row the next step processes, in place in the prefetcher's batch: a `TraceRow` is over 500 bytes, and passing
    /// it by value copied it about seven times a step (`memmove` was 17.6 % of a replay).
    private var pending: UnsafeMutablePointer<TraceRow>?
    /// The time of the pending row, s.
    var pendingTimeS: Double? { pending?.pointee.timeS }
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
        var parser = try TraceParser(reading: path)
        var headerError: TraceError?
        do { try parser.readHeader() } catch { headerError = error }
        knownColumns = parser.knownColumns
        headerUnreadable = headerError != nil && knownColumns.isEmpty
        error = headerError
        prefetcher = headerError == nil ? TracePrefetcher(parser: parser) : nil
        if headerError == nil { readAhead(after: -Double.infinity) }
    }

    /// The pending row as a fusion sample (read in place), and the next row read.
    mutating func takeSample() -> FusionSample? {
        guard let row = pending else { return nil }
        let sample = FusionSample(inPlace: &row.pointee)
        count += 1
        readAhead(after: row.pointee.timeS)
        return sample
    }

    private mutating func readAhead(after lastS: Double) {
        pending = nil
        guard let prefetcher else { return }
        guard let row = prefetcher.nextRow() else {
            error = prefetcher.error
            return
        }
        guard row.pointee.timeS >= lastS else {
            error = TraceError(
                path: path, line: count + 2, column: "t_s",
                problem: "time goes backwards (\(row.pointee.timeS) after \(lastS)); traces must be in time order")
            return
        }
        pending = row
    }
}

extension FusionSample {
    /// A trace row as a fusion sample: the sensor columns, and the GNSS columns as a receiver fix (2D without
    /// `height_m`, 3D with it); a `speed_mps` without a position is a receiver's speed alone.
    public init(traceRow row: borrowing TraceRow) {
        var row = copy row
        self.init(inPlace: &row)
    }

    /// `init(traceRow:)` reading `row` where it is: `inout` only so that the row (over 500 bytes) is not copied for the
    /// call, as a borrowed stored property was; `row` is not changed.
    init(inPlace row: inout TraceRow) {
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
