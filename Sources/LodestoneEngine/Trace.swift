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
        SensorReading(timeS: timeS, pressurePa: pressurePa, temperatureC: temperatureC, accelerationMps2: accelerationMps2,
                      angularVelocityRadS: angularVelocityRadS, magneticFieldMicroTesla: magneticFieldMicroTesla)
    }
}

/// A trace that cannot be read: one line naming file, line and column.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var column: String?
    public var problem: String
    public var description: String {
        var s = path
        if let line { s += ":\(line)" }
        if let column { s += ": column \(column)" }
        return s + ": " + problem
    }
}

/// Parses trace CSV text row by row. Rows before an error are delivered; the error names the line.
public struct TraceParser: Sendable {
    public let path: String
    private var columns: [TraceColumn?] = []
    private var header: [Substring] = []
    private var lines: [Substring]
    private var index = 0
    private var sawHeader = false

    /// `text` is the whole (decompressed) file; `path` is used in messages.
    public init(text: String, path: String) {
        self.path = path
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // A final newline yields one empty trailing element: not a row.
        if let last = lines.last, last.isEmpty { lines.removeLast() }
    }

    /// Columns of the header that Lodestone understands.
    public var knownColumns: [TraceColumn] { columns.compactMap { $0 } }

    /// The next row, nil at the end.
    public mutating func next() throws(TraceError) -> TraceRow? {
        if !sawHeader {
            guard index < lines.count else { throw TraceError(path: path, line: 1, problem: "empty file: a trace starts with a header row such as \"t_s,acc_x,acc_y,acc_z\"") }
            header = lines[index].split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
            columns = header.map { TraceColumn(rawValue: String($0)) }
            index += 1
            sawHeader = true
            guard columns.contains(.timeS) else {
                throw TraceError(path: path, line: 1, problem: "no t_s column in the header; a trace needs t_s (seconds) first")
            }
        }
        while index < lines.count {
            let lineNumber = index + 1
            let raw = lines[index]
            index += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.isEmpty { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == header.count else {
                let lastLine = index == lines.count
                throw TraceError(path: path, line: lineNumber, column: fields.count < header.count ? String(header[fields.count]) : nil,
                                 problem: "\(fields.count) fields where the header has \(header.count)"
                                    + (lastLine && fields.count < header.count ? " (the file is truncated)" : ""))
            }
            var row = TraceRow(timeS: .nan)
            var truth = TraceRow.Truth()
            var hasTruth = false
            var acc = Vector3.zero, gyr = Vector3.zero, mag = Vector3.zero, q = SIMD4<Double>.zero, vel = Vector3.zero
            var accN = 0, gyrN = 0, magN = 0, qN = 0, velN = 0
            for (i, column) in columns.enumerated() {
                guard let column else { continue }
                let cell = fields[i].trimmingWhitespace
                if cell.isEmpty { continue }
                if column.isText {
                    if column == .label { row.label = String(cell) } else { truth.activity = String(cell); hasTruth = true }
                    continue
                }
                guard let v = Double(cell) else {
                    throw TraceError(path: path, line: lineNumber, column: column.rawValue, problem: "\"\(cell)\" is not a number")
                }
                if v.isNaN { continue }   // datasets write `nan` for "no value"
                guard v.isFinite else {
                    throw TraceError(path: path, line: lineNumber, column: column.rawValue, problem: "\"\(cell)\" is not finite")
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
                case .gtFloor: truth.floor = Int(v); hasTruth = true
                case .label, .gtActivity: break
                }
            }
            guard row.timeS.isFinite else {
                throw TraceError(path: path, line: lineNumber, column: "t_s", problem: "missing time; every row needs t_s")
            }
            for (name, n) in [("acc", accN), ("gyr", gyrN), ("mag", magN)] where n != 0 && n != 3 {
                throw TraceError(path: path, line: lineNumber, column: name + "_x/y/z", problem: "only \(n) of 3 axes given; give all three or none")
            }
            if accN == 3 { row.accelerationMps2 = acc }
            if gyrN == 3 { row.angularVelocityRadS = gyr }
            if magN == 3 { row.magneticFieldMicroTesla = mag }
            if qN == 4 { truth.boardToENU = Quaternion(w: q[0], x: q[1], y: q[2], z: q[3]); hasTruth = true }
            if velN == 3 { truth.velocityENUMps = vel; hasTruth = true }
            if hasTruth { row.truth = truth }
            return row
        }
        return nil
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
        var out = ""
        out.reserveCapacity(columns.count * 10)
        for (i, c) in columns.enumerated() {
            if i > 0 { out += "," }
            if let s = cell(c, row) { out += s }
        }
        return out + "\n"
    }

    private func cell(_ c: TraceColumn, _ r: TraceRow) -> String? {
        func f(_ v: Double?, _ digits: Int) -> String? { v.map { formatFixed($0, digits: digits) } }
        let t = r.truth
        switch c {
        case .timeS: return f(r.timeS, 6)
        case .accX: return f(r.accelerationMps2?.x, 5)
        case .accY: return f(r.accelerationMps2?.y, 5)
        case .accZ: return f(r.accelerationMps2?.z, 5)
        case .gyrX: return f(r.angularVelocityRadS?.x, 6)
        case .gyrY: return f(r.angularVelocityRadS?.y, 6)
        case .gyrZ: return f(r.angularVelocityRadS?.z, 6)
        case .magX: return f(r.magneticFieldMicroTesla?.x, 4)
        case .magY: return f(r.magneticFieldMicroTesla?.y, 4)
        case .magZ: return f(r.magneticFieldMicroTesla?.z, 4)
        case .pressurePa: return f(r.pressurePa, 3)
        case .temperatureC: return f(r.temperatureC, 3)
        case .speedMps: return f(r.speedMps, 3)
        case .latDeg: return f(r.latitudeDeg, 9)
        case .lonDeg: return f(r.longitudeDeg, 9)
        case .heightM: return f(r.heightM, 3)
        case .horizontalAccuracyM: return f(r.horizontalAccuracyM, 2)
        case .courseDeg: return f(r.courseDeg, 2)
        case .verticalAccuracyM: return f(r.verticalAccuracyM, 2)
        case .speedAccuracyMps: return f(r.speedAccuracyMps, 3)
        case .geoidSeparationM: return f(r.geoidSeparationM, 2)
        case .label: return r.label
        case .gtQW: return f(t?.boardToENU?.w, 7)
        case .gtQX: return f(t?.boardToENU?.x, 7)
        case .gtQY: return f(t?.boardToENU?.y, 7)
        case .gtQZ: return f(t?.boardToENU?.z, 7)
        case .gtLatDeg: return f(t?.latitudeDeg, 9)
        case .gtLonDeg: return f(t?.longitudeDeg, 9)
        case .gtHeightM: return f(t?.heightM, 3)
        case .gtVelE: return f(t?.velocityENUMps?.x, 4)
        case .gtVelN: return f(t?.velocityENUMps?.y, 4)
        case .gtVelU: return f(t?.velocityENUMps?.z, 4)
        case .gtPressurePa: return f(t?.pressurePa, 3)
        case .gtActivity: return t?.activity
        case .gtFloor: return t?.floor.map(String.init)
        }
    }
}

/// Fixed-point decimal formatting without Foundation (`formatFixed(1.5, digits: 2) == "1.50"`).
public func formatFixed(_ value: Double, digits: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e18 else { return "\(value)" }
    let n = UInt64(scaled)
    let p = UInt64(scale)
    var s = (value < 0 && n != 0 ? "-" : "") + String(n / p)
    if digits > 0 {
        let frac = String(n % p)
        s += "." + String(repeating: "0", count: digits - frac.count) + frac
    }
    return s
}

extension Substring {
    var trimmingWhitespace: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return s
    }
}
