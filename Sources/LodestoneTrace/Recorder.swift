import LodestoneCore

/// Records engine events as a trace file while the engine runs: readings that share an instant become one
/// row. Lines are handed to the sink at least once a second of data, so an interrupted run (even by `kill -9`)
/// keeps every row but the last second's, and a trace cut mid-line replays up to its last whole row; `close()`
/// flushes the rest. (The engine's file sinks also fsync every few seconds: see `docs/crash-safety.md`.) A
/// failure to write (a full disk, a file system turned read-only) is reported once, as one line naming the file
/// and the errno, and recording stops — the engine keeps running.
public final class TraceRecorder {
    public let path: String
    private let formatter: TraceFormatter
    private var sink: any TraceSink
    private var pending: TraceRow?
    /// Rows not yet written, as bytes; grows to about a second of rows once and is reused after.
    private var buffer = CSVLine(capacity: 1 << 16)
    private var lastFlushS = 0.0
    /// The first write error, if any.
    public private(set) var error: String?
    /// Rows written.
    public private(set) var rowCount = 0

    /// Records into `sink`; `path` names it in messages. (LodestoneEngine's `init(path:columns:)` opens a plain or
    /// gzip file.)
    public init(sink: any TraceSink, path: String, columns: [TraceColumn] = TraceFormatter.fullColumns) {
        self.path = path
        formatter = TraceFormatter(columns: columns)
        self.sink = sink
        buffer.append(formatter.header)
    }

    /// Which sensor fills each column: the first one to deliver that quantity. A board with two
    /// magnetometers records one of them (the first in board order), never a mix of both in one column.
    private var primary: [SensorKind: String] = [:]

    private func claims(_ kind: SensorKind, _ sensor: String) -> Bool {
        if let owner = primary[kind] { return owner == sensor }
        primary[kind] = sensor
        return true
    }

    /// Adds a reading (board axes) from `sensor` at its time.
    public func add(_ r: SensorReading, from sensor: String) {
        var row = rowFor(r.timeS)
        if let v = r.accelerationMps2, claims(.accelerometer, sensor) { row.accelerationMps2 = v }
        if let v = r.angularVelocityRadS, claims(.gyroscope, sensor) { row.angularVelocityRadS = v }
        if let v = r.magneticFieldMicroTesla, claims(.magnetometer, sensor) { row.magneticFieldMicroTesla = v }
        if let v = r.pressurePa, claims(.barometer, sensor) { row.pressurePa = v }
        if let v = r.temperatureC, claims(.thermometer, sensor) { row.temperatureC = v }
        pending = row
    }

    /// Adds a position fix at its time.
    public func add(_ f: ReceiverFix) {
        guard f.hasPosition else { return }
        var row = rowFor(f.timeS)
        row.latitudeDeg = f.latitudeDeg; row.longitudeDeg = f.longitudeDeg; row.heightM = f.ellipsoidalHeightM
        row.speedMps = f.speedMps; row.horizontalAccuracyM = f.horizontalAccuracyM
        row.courseDeg = f.courseDeg; row.verticalAccuracyM = f.verticalAccuracyM
        row.speedAccuracyMps = f.speedAccuracyMps
        row.geoidSeparationM = f.geoidSeparationM ?? f.ellipsoidalHeightM.flatMap { h in f.altitudeMSLM.map { h - $0 } }
        pending = row
    }

    /// Attaches truth to the row at `timeS` (simulated board).
    public func add(truth: TraceRow.Truth, timeS: Double) {
        var row = rowFor(timeS)
        row.truth = truth
        pending = row
    }

    private func rowFor(_ t: Double) -> TraceRow {
        if let p = pending, abs(p.timeS - t) < 1e-9 { return p }
        if let p = pending { emit(p) }
        if t - lastFlushS >= 1 { flush(); lastFlushS = t }
        return TraceRow(timeS: t)
    }

    private func emit(_ row: TraceRow) {
        // Rows with truth only (no sensor sampled at that instant) are not written.
        guard
            row.accelerationMps2 != nil || row.angularVelocityRadS != nil || row.magneticFieldMicroTesla != nil
                || row.pressurePa != nil || row.latitudeDeg != nil
        else { return }
        formatter.append(row, to: &buffer)
        rowCount += 1
    }

    /// Writes buffered rows to the file.
    public func flush() {
        guard error == nil, buffer.count > 0 else { return }
        let written = buffer.withUnsafeBytes { raw in Result { try sink.write(raw) } }
        if case .failure(let error) = written {
            self.error = "recording stopped: \(error); the run goes on without recording"
        }
        buffer.removeAll()
    }

    /// Writes the last row and closes the file.
    public func close() {
        if let p = pending { emit(p); pending = nil }
        flush()
        if error == nil {
            do { try sink.close() } catch { self.error = "\(path): recording not closed cleanly: \(error)" }
        }
    }
}

/// A byte sink for traces.
public protocol TraceSink {
    /// Writes `bytes` (valid only during the call).
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
    mutating func close() throws
}
