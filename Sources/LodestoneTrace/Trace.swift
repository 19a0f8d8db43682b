import LodestoneCore

/// The trace file format: one CSV (optionally gzip-compressed) with a header row, the same column names and
/// units as the datasets in `shared/datasets/` (documented in `docs/trace-format.md`).
///
/// An empty cell means "not sampled at this instant". Unknown columns are ignored. Truth columns are
/// prefixed `gt_`.
public enum TraceColumn: String, CaseIterable, Sendable {
    /// Time, s, monotonic from the start of the recording.
    case timeS = "t_s"
    /// Specific force, board frame, m/s².
    case accX = "acc_x", accY = "acc_y", accZ = "acc_z"
    /// Angular rate, board frame, rad/s.
    case gyrX = "gyr_x", gyrY = "gyr_y", gyrZ = "gyr_z"
    /// Magnetic flux density, board frame, µT.
    case magX = "mag_x", magY = "mag_y", magZ = "mag_z"
    /// Static pressure, Pa.
    case pressurePa = "pressure_pa"
    /// Temperature, °C.
    case temperatureC = "temperature_c"
    /// GNSS speed over ground, m/s.
    case speedMps = "speed_mps"
    /// GNSS position: geodetic latitude and longitude (deg, WGS84) and height above the ellipsoid (m).
    case latDeg = "lat_deg", lonDeg = "lon_deg", heightM = "height_m"
    /// GNSS horizontal accuracy (1σ), m.
    case horizontalAccuracyM = "h_acc_m"
    /// GNSS course over ground, degrees from true north; vertical accuracy, m; speed accuracy, m/s; geoid
    /// separation (geoid − ellipsoid), m.
    case courseDeg = "course_deg", verticalAccuracyM = "v_acc_m", speedAccuracyMps = "speed_acc_mps"
    case geoidSeparationM = "geoid_sep_m"
    /// Activity label of labelled datasets (`stationary`, `walk`, `run`, `cycle`, `drive`, `other`).
    case label = "label"
    /// Truth orientation, board → ENU, Hamilton, scalar first.
    case gtQW = "gt_qw", gtQX = "gt_qx", gtQY = "gt_qy", gtQZ = "gt_qz"
    /// Truth position.
    case gtLatDeg = "gt_lat_deg", gtLonDeg = "gt_lon_deg", gtHeightM = "gt_height_m"
    /// Truth velocity, ENU, m/s.
    case gtVelE = "gt_vel_e_mps", gtVelN = "gt_vel_n_mps", gtVelU = "gt_vel_u_mps"
    /// Truth static pressure, Pa.
    case gtPressurePa = "gt_pressure_pa"
    /// Truth activity.
    case gtActivity = "gt_activity"
    /// Truth floor number (0 = start floor).
    case gtFloor = "gt_floor"

    var isText: Bool { self == .label || self == .gtActivity }
}

/// One row of a trace: what was sampled at `timeS`, in board axes and SI units.
public struct TraceRow: Sendable, Hashable {
    public var timeS: Double
    public var accelerationMps2: Vector3?
    public var angularVelocityRadS: Vector3?
    public var magneticFieldMicroTesla: Vector3?
    public var pressurePa: Double?
    public var temperatureC: Double?
    public var speedMps: Double?
    public var latitudeDeg: Double?
    public var longitudeDeg: Double?
    public var heightM: Double?
    public var horizontalAccuracyM: Double?
    public var courseDeg: Double?
    public var verticalAccuracyM: Double?
    public var speedAccuracyMps: Double?
    public var geoidSeparationM: Double?
    public var label: String?
    /// Truth, when recorded.
    public var truth: Truth?

    /// Truth columns (all optional).
    public struct Truth: Sendable, Hashable {
        public var boardToENU: Quaternion?
        public var latitudeDeg: Double?
        public var longitudeDeg: Double?
        public var heightM: Double?
        public var velocityENUMps: Vector3?
        public var pressurePa: Double?
        public var activity: String?
        public var floor: Int?
        public init() {}
    }

    public init(timeS: Double) { self.timeS = timeS }

    /// The IMU/baro part as a `SensorReading`.
    public var reading: SensorReading {
        SensorReading(
            timeS: timeS, pressurePa: pressurePa, temperatureC: temperatureC, accelerationMps2: accelerationMps2,
            angularVelocityRadS: angularVelocityRadS, magneticFieldMicroTesla: magneticFieldMicroTesla)
    }
}

/// A trace that cannot be read: one line naming file, line and column.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var column: String?
    public var problem: String

    /// A problem with `path`, at `line` (1 = the header) and `column` when known.
    public init(path: String, line: Int? = nil, column: String? = nil, problem: String) {
        self.path = path; self.line = line; self.column = column; self.problem = problem
    }

    public var description: String {
        var s = path
        if let line { s += ":\(line)" }
        if let column { s += ": column \(column)" }
        return s + ": " + problem
    }
}

/// Parses a trace row by row from its UTF-8 bytes: from memory (`init(text:path:)`, `init(bytes:path:)`) or
/// streamed (`init(reading:path:chunkBytes:)`; a plain or gzip file through LodestoneEngine's `init(reading:)`),
/// never held whole.
///
/// Rows before an error are delivered; the error names the line (and the column). Lines end in `\n` or `\r\n`.
/// Once the buffers have grown to the longest line, a row is parsed without allocating (only a `label` or
/// `gt_activity` longer than 15 bytes allocates its `String`). Numbers are read as `Double(String)` reads them
/// (`DecimalParsing`). A parser reading a file shares the file with its copies: advance only one of them.
public struct TraceParser {
    public let path: String
    private var columns: [TraceColumn?] = []
    private var header: [String] = []
    /// The known columns and their field index, in header order.
    private var cells: [(field: Int, column: TraceColumn)] = []
    private var input: TraceInput
    /// Offsets in `input` of the current line's commas (the first `header.count` of them; reused).
    private var commas: [Int] = []
    /// Number of the last line read (1 = the header).
    private var lineNumber = 0
    private var sawHeader = false

    /// `text` is the whole (decompressed) file; `path` is used in messages.
    public init(text: String, path: String) {
        self.init(bytes: Array(text.utf8), path: path)
    }

    /// `bytes` is the whole (decompressed) file, UTF-8; `path` is used in messages.
    public init(bytes: [UInt8], path: String) {
        self.path = path
        input = TraceInput(bytes: bytes)
    }

    /// Streams the trace read from `reader`, `chunkBytes` at a time; `path` is used in messages. (LodestoneEngine's
    /// `init(reading: path)` streams a plain or gzip file.)
    /// - Throws: nothing here; `reader`'s errors come from `next()`, after the rows before them.
    public init(reading reader: any TraceByteReader, path: String, chunkBytes: Int = TraceParser.chunkBytes) {
        self.path = path
        input = TraceInput(reader: reader, chunkBytes: chunkBytes)
    }

    /// Bytes read per refill when streaming.
    public static var chunkBytes: Int { TraceInput.chunkBytes }

    /// Columns of the header that Lodestone understands.
    public var knownColumns: [TraceColumn] { columns.compactMap { $0 } }

    /// The next row, nil at the end.
    public mutating func next() throws(TraceError) -> TraceRow? {
        var row = TraceRow(timeS: .nan)
        return try next(into: &row) ? row : nil
    }

    /// Reads the next row into `row` (replacing all of it) and returns true; false at the end. The loop of a replay
    /// reads this way: a `TraceRow` is over 500 bytes, and handing each one out by value copied it several times.
    /// After an error `row` holds part of the bad line: use it only after a `true`.
    public mutating func next(into row: inout TraceRow) throws(TraceError) -> Bool {
        if !sawHeader { try readHeader() }
        while let line = try nextLine() {
            if line.end == line.start { continue }
            if line.commas + 1 != header.count { throw try fieldCountError(line) }
            let lineNumber = self.lineNumber, path = self.path, cells = self.cells
            // The error carried out of the closures: Swift 6.0's withUnsafeBufferPointer rethrows `any Error`.
            var failure: TraceError?
            input.bytes.withUnsafeBufferPointer { bytes in
                commas.withUnsafeBufferPointer { commas in
                    do throws(TraceError) {
                        try Self.fill(
                            &row, bytes: bytes, line: line, commas: commas, cells: cells, lineNumber: lineNumber, path: path)
                    } catch { failure = error }
                }
            }
            if let failure { throw failure }
            return true
        }
        return false
    }

    /// Reads the header row if it has not been read yet (`next()` reads it with the first row): afterwards
    /// `knownColumns` lists the columns.
    /// - Throws: `TraceError` for an empty file or a header without `t_s` (`knownColumns` is then what the header
    ///   had), or when the file cannot be read.
    public mutating func readHeader() throws(TraceError) {
        guard !sawHeader else { return }
        guard let line = try nextLine() else {
            throw TraceError(
                path: path, line: 1, problem: "empty file: a trace starts with a header row such as \"t_s,acc_x,acc_y,acc_z\"")
        }
        header = input.bytes[line.start..<line.end].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map {
            name in
            name.withUnsafeBufferPointer { String(decoding: Self.trimmingWhitespace($0), as: UTF8.self) }
        }
        columns = header.map { TraceColumn(rawValue: $0) }
        cells = columns.enumerated().compactMap { i, c in c.map { (i, $0) } }
        commas = Array(repeating: 0, count: header.count)
        sawHeader = true
        guard columns.contains(.timeS) else {
            throw TraceError(path: path, line: 1, problem: "no t_s column in the header; a trace needs t_s (seconds) first")
        }
    }

    /// One line of `input.bytes`: `start..<end` without its line end (`\n`, and a `\r` before it), the number
    /// of commas in it, and whether a `\n` ended it.
    private struct Line {
        var start: Int, end: Int, commas: Int, terminated: Bool
    }

    /// The next line, its commas recorded in `commas`; nil at the end of the input.
    private mutating func nextLine() throws(TraceError) -> Line? {
        var inputEnded = false
        while true {
            let from = input.start, to = input.end
            let (stop, commaCount) = input.bytes.withUnsafeBufferPointer { bytes in
                commas.withUnsafeMutableBufferPointer { offsets in
                    var i = from, n = 0
                    while i < to {
                        let b = bytes[i]
                        if b == UInt8(ascii: "\n") { break }
                        if b == UInt8(ascii: ",") {
                            if n < offsets.count { offsets[n] = i }
                            n += 1
                        }
                        i += 1
                    }
                    return (i, n)
                }
            }
            let terminated = stop < to
            // A line not ended yet: read more and scan it again. Scan it again also when the file has ended:
            // `readMore` moves the unconsumed bytes to the front of the window before it finds the end, so the
            // offsets just found are stale.
            if !terminated && !inputEnded {
                if try !input.readMore() { inputEnded = true }
                continue
            }
            if !terminated && from == to { return nil }
            lineNumber += 1
            input.start = terminated ? stop + 1 : stop
            var end = stop
            if end > from && input.bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            return Line(start: from, end: end, commas: commaCount, terminated: terminated)
        }
    }

    /// The error for a line whose field count is not the header's; a short last line is a truncated file.
    private mutating func fieldCountError(_ line: Line) throws(TraceError) -> TraceError {
        let fields = line.commas + 1
        let lastLine = line.terminated ? try input.isExhausted() : true
        return TraceError(
            path: path, line: lineNumber, column: fields < header.count ? header[fields] : nil,
            problem: "\(fields) fields where the header has \(header.count)"
                + (lastLine && fields < header.count ? " (the file is truncated)" : ""))
    }

    /// Fills `row` (all of it) from a line with the header's number of fields.
    private static func fill(
        _ row: inout TraceRow, bytes: UnsafeBufferPointer<UInt8>, line: Line, commas: UnsafeBufferPointer<Int>,
        cells: [(field: Int, column: TraceColumn)], lineNumber: Int, path: String
    ) throws(TraceError) {
        row = TraceRow(timeS: .nan)
        var truth = TraceRow.Truth()
        var hasTruth = false
        var acc = Vector3.zero, gyr = Vector3.zero, mag = Vector3.zero, q = SIMD4<Double>.zero, vel = Vector3.zero
        var accN = 0, gyrN = 0, magN = 0, qN = 0, velN = 0
        for (i, column) in cells {
            let from = i == 0 ? line.start : commas[i - 1] + 1
            let to = i == line.commas ? line.end : commas[i]
            let cell = trimmingWhitespace(UnsafeBufferPointer(rebasing: bytes[from..<to]))
            if cell.isEmpty { continue }
            if column.isText {
                let text = String(decoding: cell, as: UTF8.self)
                if column == .label { row.label = text } else { truth.activity = text; hasTruth = true }
                continue
            }
            guard let v = DecimalParsing.double(cell) else {
                throw TraceError(
                    path: path, line: lineNumber, column: column.rawValue,
                    problem: "\"\(String(decoding: cell, as: UTF8.self))\" is not a number")
            }
            if v.isNaN { continue } // datasets write `nan` for "no value"
            guard v.isFinite else {
                throw TraceError(
                    path: path, line: lineNumber, column: column.rawValue,
                    problem: "\"\(String(decoding: cell, as: UTF8.self))\" is not finite")
            }
            switch column {
            case .timeS: row.timeS = v
            case .accX: acc.x = v; accN += 1
            case .accY: acc.y = v; accN += 1
            case .accZ: acc.z = v; accN += 1
            case .gyrX: gyr.x = v; gyrN += 1
            case .gyrY: gyr.y = v; gyrN += 1
            case .gyrZ: gyr.z = v; gyrN += 1
            case .magX: mag.x = v; magN += 1
            case .magY: mag.y = v; magN += 1
            case .magZ: mag.z = v; magN += 1
            case .pressurePa: row.pressurePa = v
            case .temperatureC: row.temperatureC = v
            case .speedMps: row.speedMps = v
            case .latDeg: row.latitudeDeg = v
            case .lonDeg: row.longitudeDeg = v
            case .heightM: row.heightM = v
            case .horizontalAccuracyM: row.horizontalAccuracyM = v
            case .courseDeg: row.courseDeg = v
            case .verticalAccuracyM: row.verticalAccuracyM = v
            case .speedAccuracyMps: row.speedAccuracyMps = v
            case .geoidSeparationM: row.geoidSeparationM = v
            case .gtQW: q[0] = v; qN += 1
            case .gtQX: q[1] = v; qN += 1
            case .gtQY: q[2] = v; qN += 1
            case .gtQZ: q[3] = v; qN += 1
            case .gtLatDeg: truth.latitudeDeg = v; hasTruth = true
            case .gtLonDeg: truth.longitudeDeg = v; hasTruth = true
            case .gtHeightM: truth.heightM = v; hasTruth = true
            case .gtVelE: vel.x = v; velN += 1
            case .gtVelN: vel.y = v; velN += 1
            case .gtVelU: vel.z = v; velN += 1
            case .gtPressurePa: truth.pressurePa = v; hasTruth = true
            case .gtFloor:
                // Int(v) traps beyond Int's range: such a floor is an input error, not a crash.
                guard let floor = Int(exactly: v.rounded(.towardZero)) else {
                    throw TraceError(
                        path: path, line: lineNumber, column: column.rawValue,
                        problem: "\"\(String(decoding: cell, as: UTF8.self))\" is not a floor number")
                }
                truth.floor = floor; hasTruth = true
            case .label, .gtActivity: break
            }
        }
        guard row.timeS.isFinite else {
            throw TraceError(path: path, line: lineNumber, column: "t_s", problem: "missing time; every row needs t_s")
        }
        // A vector is given whole or not at all (checked in this order: acc, gyr, mag; no array per row).
        func partial(_ name: String, _ n: Int) -> TraceError? {
            n == 0 || n == 3
                ? nil
                : TraceError(
                    path: path, line: lineNumber, column: name + "_x/y/z",
                    problem: "only \(n) of 3 axes given; give all three or none")
        }
        if let error = partial("acc", accN) ?? partial("gyr", gyrN) ?? partial("mag", magN) { throw error }
        if accN == 3 { row.accelerationMps2 = acc }
        if gyrN == 3 { row.angularVelocityRadS = gyr }
        if magN == 3 { row.magneticFieldMicroTesla = mag }
        if qN == 4 { truth.boardToENU = Quaternion(w: q[0], x: q[1], y: q[2], z: q[3]); hasTruth = true }
        if velN == 3 { truth.velocityENUMps = vel; hasTruth = true }
        if hasTruth { row.truth = truth }
    }

    /// `text` without leading spaces and tabs and without trailing spaces, tabs and carriage returns.
    @inline(__always)
    static func trimmingWhitespace(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var from = 0, to = text.count
        while from < to && (text[from] == UInt8(ascii: " ") || text[from] == UInt8(ascii: "\t")) { from += 1 }
        while to > from {
            let b = text[to - 1]
            guard b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") else { break }
            to -= 1
        }
        return UnsafeBufferPointer(rebasing: text[from..<to])
    }
}

/// Writes trace CSV text: a header once, then one line per row.
public struct TraceFormatter: Sendable {
    /// The columns written, in order.
    public let columns: [TraceColumn]

    public init(columns: [TraceColumn]) { self.columns = columns }

    /// Sensor columns plus truth columns, for a recording of the simulated board.
    public static let fullColumns: [TraceColumn] = TraceColumn.allCases.filter { $0 != .label }

    /// The header line (with newline).
    public var header: String { columns.map(\.rawValue).joined(separator: ",") + "\n" }

    /// One row as a CSV line (with newline). Empty cells for what the row does not have.
    public func line(_ row: TraceRow) -> String {
        var line = CSVLine(capacity: columns.count * 12)
        append(row, to: &line)
        return line.text
    }

    /// Appends one row as a CSV line (with newline) to `line`. Empty cells for what the row does not have.
    public func append(_ row: TraceRow, to line: inout CSVLine) {
        for (i, c) in columns.enumerated() {
            if i > 0 { line.append(byte: UInt8(ascii: ",")) }
            appendValue(c, row, to: &line)
        }
        line.append(byte: UInt8(ascii: "\n"))
    }

    private func appendValue(_ c: TraceColumn, _ r: TraceRow, to line: inout CSVLine) {
        func f(_ v: Double?, _ digits: Int) { if let v { line.appendFixed(v, digits: digits) } }
        let t = r.truth
        switch c {
        case .timeS: f(r.timeS, 6)
        case .accX: f(r.accelerationMps2?.x, 5)
        case .accY: f(r.accelerationMps2?.y, 5)
        case .accZ: f(r.accelerationMps2?.z, 5)
        case .gyrX: f(r.angularVelocityRadS?.x, 6)
        case .gyrY: f(r.angularVelocityRadS?.y, 6)
        case .gyrZ: f(r.angularVelocityRadS?.z, 6)
        case .magX: f(r.magneticFieldMicroTesla?.x, 4)
        case .magY: f(r.magneticFieldMicroTesla?.y, 4)
        case .magZ: f(r.magneticFieldMicroTesla?.z, 4)
        case .pressurePa: f(r.pressurePa, 3)
        case .temperatureC: f(r.temperatureC, 3)
        case .speedMps: f(r.speedMps, 3)
        case .latDeg: f(r.latitudeDeg, 9)
        case .lonDeg: f(r.longitudeDeg, 9)
        case .heightM: f(r.heightM, 3)
        case .horizontalAccuracyM: f(r.horizontalAccuracyM, 2)
        case .courseDeg: f(r.courseDeg, 2)
        case .verticalAccuracyM: f(r.verticalAccuracyM, 2)
        case .speedAccuracyMps: f(r.speedAccuracyMps, 3)
        case .geoidSeparationM: f(r.geoidSeparationM, 2)
        case .label: if let text = r.label { line.append(text) }
        case .gtQW: f(t?.boardToENU?.w, 7)
        case .gtQX: f(t?.boardToENU?.x, 7)
        case .gtQY: f(t?.boardToENU?.y, 7)
        case .gtQZ: f(t?.boardToENU?.z, 7)
        case .gtLatDeg: f(t?.latitudeDeg, 9)
        case .gtLonDeg: f(t?.longitudeDeg, 9)
        case .gtHeightM: f(t?.heightM, 3)
        case .gtVelE: f(t?.velocityENUMps?.x, 4)
        case .gtVelN: f(t?.velocityENUMps?.y, 4)
        case .gtVelU: f(t?.velocityENUMps?.z, 4)
        case .gtPressurePa: f(t?.pressurePa, 3)
        case .gtActivity: if let text = t?.activity { line.append(text) }
        case .gtFloor: if let floor = t?.floor { line.appendInteger(floor) }
        }
    }
}

/// Fixed-point decimal formatting without Foundation (`formatFixed(1.5, digits: 2) == "1.50"`): the value rounded
/// half away from zero to `digits` (0…19) decimals, `-` only when the rounded value is not zero; `nan`, `inf`,
/// `-inf` for non-finite values. `CSVLine.appendFixed` writes the same text into a reused buffer.
public func formatFixed(_ value: Double, digits: Int) -> String {
    var line = CSVLine(capacity: 32)
    line.appendFixed(value, digits: digits)
    return line.text
}

extension Substring {
    /// Without leading spaces and tabs and without trailing spaces, tabs and carriage returns.
    package var trimmingWhitespace: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return s
    }
}
