import LodestoneCore

/// A board's calibration as stored on disk: one JSON document per board, format `lodestone-calibration/1`
/// (documented in `calibration/README.md`).
///
/// **Axes**: every parameter is in **board axes**, i.e. it applies to readings after the board file's mount
/// matrix (`v_board = M · v_chip`), which is what fusion sees. Each sensor records the mount matrix it was
/// calibrated with; a board file whose mount has changed since is refused (the parameters would be in the
/// wrong axes). Sensors are identified by their board-file `id`.
///
/// Decoding is strict: unknown keys, missing keys, wrong types and impossible values are each one
/// `CalibrationDocumentError` naming the key (`sensors[1].magnetometer.softIronCorrection`).
public struct CalibrationDocument: Sendable, Hashable, Codable {
    /// The format tag every calibration file carries.
    public static let formatTag = "lodestone-calibration/1"
    /// The axes the parameters are in (the only value: `board`).
    public static let frame = "board"

    /// The board's name, as in its board file.
    public var board: String
    /// The sensors calibrated, in board order.
    public var sensors: [SensorCalibration]

    public init(board: String, sensors: [SensorCalibration] = []) {
        self.board = board
        self.sensors = sensors
    }

    /// The entry for sensor `id`, if any.
    public subscript(id: String) -> SensorCalibration? {
        get { sensors.first { $0.id == id } }
    }

    /// Replaces (or adds, keeping `order`) the entry for `entry.id`, merging with what is there: kinds not
    /// calibrated in `entry` are kept from the old entry.
    public mutating func merge(_ entry: SensorCalibration, order: [String]) {
        if let i = sensors.firstIndex(where: { $0.id == entry.id }) {
            var merged = entry
            let old = sensors[i]
            // Another kind of the same sensor stays valid only if it was made in the same axes.
            if old.mount == entry.mount && old.chip == entry.chip {
                merged.magnetometer = entry.magnetometer ?? old.magnetometer
                merged.accelerometer = entry.accelerometer ?? old.accelerometer
                merged.gyroscope = entry.gyroscope ?? old.gyroscope
                merged.barometer = entry.barometer ?? old.barometer
            }
            sensors[i] = merged
        } else {
            sensors.append(entry)
        }
        sensors.sort { (order.firstIndex(of: $0.id) ?? Int.max) < (order.firstIndex(of: $1.id) ?? Int.max) }
    }

    enum Key: String, CaseIterable { case format, frame, board, sensors }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, allowed: Key.allCases.map(\.rawValue))
        let format = try r.string("format")
        guard format == Self.formatTag else {
            throw r.fail("format", "\"\(format)\" is not supported; allowed: \"\(Self.formatTag)\"")
        }
        let frame = try r.string("frame")
        guard frame == Self.frame else {
            throw r.fail(
                "frame", "\"\(frame)\" is not supported; allowed: \"\(Self.frame)\" (parameters apply after the mount matrix)")
        }
        board = try r.string("board")
        sensors = try r.decode([SensorCalibration].self, "sensors")
        guard !sensors.isEmpty else { throw r.fail("sensors", "must list at least one sensor") }
        var seen: Set<String> = []
        for (i, s) in sensors.enumerated() where !seen.insert(s.id).inserted {
            throw r.fail("sensors", "sensors[\(i)].id \"\(s.id)\" appears twice; ids must be unique")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(Self.formatTag, forKey: AnyKey("format"))
        try c.encode(Self.frame, forKey: AnyKey("frame"))
        try c.encode(board, forKey: AnyKey("board"))
        try c.encode(sensors, forKey: AnyKey("sensors"))
    }
}

/// The calibration of one sensor of the board (by its board-file id), per kind of quantity it measures.
public struct SensorCalibration: Sendable, Hashable, Codable {
    /// The board file's sensor id.
    public var id: String
    /// The chip name in the board file (`lis3mdl`, `mpu9250`, `iio`).
    public var chip: String
    /// Which chip exactly, as the engine named it (`lis3mdl @ /dev/i2c-1 0x1C`), when known.
    public var identity: String?
    /// The mount matrix the board file had when this was made (`v_board = M · v_chip`).
    public var mount: Matrix3
    public var magnetometer: MagnetometerCalibration?
    public var accelerometer: AccelerometerCalibration?
    public var gyroscope: GyroscopeCalibration?
    public var barometer: BarometerCalibration?

    public init(id: String, chip: String, identity: String? = nil, mount: Matrix3 = .identity) {
        self.id = id; self.chip = chip; self.identity = identity; self.mount = mount
    }

    /// The kinds calibrated, in a fixed order.
    public var kinds: [SensorKind] {
        var k: [SensorKind] = []
        if magnetometer != nil { k.append(.magnetometer) }
        if accelerometer != nil { k.append(.accelerometer) }
        if gyroscope != nil { k.append(.gyroscope) }
        if barometer != nil { k.append(.barometer) }
        return k
    }

    enum Key: String, CaseIterable { case id, chip, identity, mount, magnetometer, accelerometer, gyroscope, barometer }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, allowed: Key.allCases.map(\.rawValue))
        id = try r.string("id")
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw r.fail("id", "\"\(id)\" is not a sensor id; use the board file's id (letters, digits, - and _)")
        }
        chip = try r.string("chip")
        identity = try r.optionalString("identity")
        mount = try r.matrix("mount")
        guard abs(abs(mount.determinant) - 1) < 1e-3 else {
            throw r.fail("mount", "determinant \(mount.determinant) is not ±1; a mount matrix is a rotation (or a reflection)")
        }
        magnetometer = try r.decodeIfPresent(MagnetometerCalibration.self, "magnetometer")
        accelerometer = try r.decodeIfPresent(AccelerometerCalibration.self, "accelerometer")
        gyroscope = try r.decodeIfPresent(GyroscopeCalibration.self, "gyroscope")
        barometer = try r.decodeIfPresent(BarometerCalibration.self, "barometer")
        guard !kinds.isEmpty else {
            throw r.fail("", "calibrates nothing; give at least one of magnetometer, accelerometer, gyroscope, barometer")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(id, forKey: AnyKey("id"))
        try c.encode(chip, forKey: AnyKey("chip"))
        try c.encodeIfPresent(identity, forKey: AnyKey("identity"))
        try c.encode(mount.rowMajor, forKey: AnyKey("mount"))
        try c.encodeIfPresent(magnetometer, forKey: AnyKey("magnetometer"))
        try c.encodeIfPresent(accelerometer, forKey: AnyKey("accelerometer"))
        try c.encodeIfPresent(gyroscope, forKey: AnyKey("gyroscope"))
        try c.encodeIfPresent(barometer, forKey: AnyKey("barometer"))
    }
}

/// A magnetometer's hard and soft iron: calibrated = `softIronCorrection · (raw − hardIronMicroTesla)`.
public struct MagnetometerCalibration: Sendable, Hashable, Codable {
    /// When it was made, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    public var date: String
    /// Mean sensor temperature during the session, °C, when the chip reports one.
    public var temperatureC: Double?
    public var grade: CalibrationGrade
    /// Hard-iron offset, µT, board axes.
    public var hardIronMicroTesla: Vector3
    /// Soft-iron correction W: symmetric, positive definite, determinant 1 (9 numbers row-major in the file).
    public var softIronCorrection: Matrix3
    /// Field strength the calibrated sensor saw, µT.
    public var fieldStrengthMicroTesla: Double
    /// The WMM's field strength at the board then, µT, when the position was known.
    public var expectedFieldMicroTesla: Double?
    /// Where (geodetic, WGS84), when known.
    public var latitudeDeg: Double?
    public var longitudeDeg: Double?
    /// Fit residual (RMS), µT: ≤ 1.0 good, ≤ 1.6 acceptable.
    public var residualMicroTesla: Double
    /// Covered share of the sphere of directions, %.
    public var coveragePercent: Double
    /// Samples fitted, and rejected as outliers.
    public var samples: Int
    public var outliers: Int
    /// Seconds of motion the session took, when it was guided live.
    public var motionS: Double?
    /// What the mounting check found, in words.
    public var mountingCheck: String

    public init(
        date: String, temperatureC: Double?, grade: CalibrationGrade, hardIronMicroTesla: Vector3,
        softIronCorrection: Matrix3, fieldStrengthMicroTesla: Double, expectedFieldMicroTesla: Double?,
        latitudeDeg: Double?, longitudeDeg: Double?, residualMicroTesla: Double, coveragePercent: Double,
        samples: Int, outliers: Int, motionS: Double?, mountingCheck: String
    ) {
        self.date = date; self.temperatureC = temperatureC; self.grade = grade
        self.hardIronMicroTesla = hardIronMicroTesla; self.softIronCorrection = softIronCorrection
        self.fieldStrengthMicroTesla = fieldStrengthMicroTesla; self.expectedFieldMicroTesla = expectedFieldMicroTesla
        self.latitudeDeg = latitudeDeg; self.longitudeDeg = longitudeDeg; self.residualMicroTesla = residualMicroTesla
        self.coveragePercent = coveragePercent; self.samples = samples; self.outliers = outliers
        self.motionS = motionS; self.mountingCheck = mountingCheck
    }

    enum Key: String, CaseIterable {
        case date, temperatureC, grade, hardIronMicroTesla, softIronCorrection, fieldStrengthMicroTesla
        case expectedFieldMicroTesla, latitudeDeg, longitudeDeg, residualMicroTesla, coveragePercent, samples
        case outliers, motionS, mountingCheck
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, allowed: Key.allCases.map(\.rawValue))
        date = try r.date("date")
        temperatureC = try r.optionalNumber("temperatureC", in: -60...150)
        grade = try r.grade("grade")
        hardIronMicroTesla = try r.vector("hardIronMicroTesla")
        guard hardIronMicroTesla.length <= 2000 else {
            throw r.fail("hardIronMicroTesla", "|\(hardIronMicroTesla.length)| µT is beyond any magnetometer's range")
        }
        softIronCorrection = try r.matrix("softIronCorrection")
        let w = softIronCorrection
        guard abs(w[0, 1] - w[1, 0]) < 1e-6, abs(w[0, 2] - w[2, 0]) < 1e-6, abs(w[1, 2] - w[2, 1]) < 1e-6 else {
            throw r.fail("softIronCorrection", "must be symmetric")
        }
        guard SymmetricEigen3(w).values.min() > 0, abs(w.determinant - 1) < 0.01 else {
            throw r.fail("softIronCorrection", "must be positive definite with determinant 1 (it is \(w.determinant))")
        }
        fieldStrengthMicroTesla = try r.number("fieldStrengthMicroTesla", in: 1...1000)
        expectedFieldMicroTesla = try r.optionalNumber("expectedFieldMicroTesla", in: 1...1000)
        latitudeDeg = try r.optionalNumber("latitudeDeg", in: -90...90)
        longitudeDeg = try r.optionalNumber("longitudeDeg", in: -180...360)
        residualMicroTesla = try r.number("residualMicroTesla", in: 0...1000)
        coveragePercent = try r.number("coveragePercent", in: 0...100)
        samples = try r.integer("samples", in: 0...100_000_000)
        outliers = try r.integer("outliers", in: 0...100_000_000)
        motionS = try r.optionalNumber("motionS", in: 0...1e6)
        mountingCheck = try r.string("mountingCheck")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(date, forKey: AnyKey("date"))
        try c.encodeIfPresent(temperatureC, forKey: AnyKey("temperatureC"))
        try c.encode(grade, forKey: AnyKey("grade"))
        try c.encode([hardIronMicroTesla.x, hardIronMicroTesla.y, hardIronMicroTesla.z], forKey: AnyKey("hardIronMicroTesla"))
        try c.encode(softIronCorrection.rowMajor, forKey: AnyKey("softIronCorrection"))
        try c.encode(fieldStrengthMicroTesla, forKey: AnyKey("fieldStrengthMicroTesla"))
        try c.encodeIfPresent(expectedFieldMicroTesla, forKey: AnyKey("expectedFieldMicroTesla"))
        try c.encodeIfPresent(latitudeDeg, forKey: AnyKey("latitudeDeg"))
        try c.encodeIfPresent(longitudeDeg, forKey: AnyKey("longitudeDeg"))
        try c.encode(residualMicroTesla, forKey: AnyKey("residualMicroTesla"))
        try c.encode(coveragePercent, forKey: AnyKey("coveragePercent"))
        try c.encode(samples, forKey: AnyKey("samples"))
        try c.encode(outliers, forKey: AnyKey("outliers"))
        try c.encodeIfPresent(motionS, forKey: AnyKey("motionS"))
        try c.encode(mountingCheck, forKey: AnyKey("mountingCheck"))
    }
}

/// An accelerometer's offset, scale and cross-axis terms: calibrated = `correction · (raw − offsetMps2)`.
public struct AccelerometerCalibration: Sendable, Hashable, Codable {
    public var date: String
    public var temperatureC: Double?
    public var grade: CalibrationGrade
    /// Offset, m/s², board axes.
    public var offsetMps2: Vector3
    /// Scale and cross-axis correction T (9 numbers row-major).
    public var correction: Matrix3
    /// The gravity it was scaled to, m/s².
    public var gravityMps2: Double
    /// RMS disagreement of the six positions with the model, m/s².
    public var residualMps2: Double
    /// Positions captured (6).
    public var positions: Int

    public init(
        date: String, temperatureC: Double?, grade: CalibrationGrade, offsetMps2: Vector3, correction: Matrix3,
        gravityMps2: Double, residualMps2: Double, positions: Int
    ) {
        self.date = date; self.temperatureC = temperatureC; self.grade = grade; self.offsetMps2 = offsetMps2
        self.correction = correction; self.gravityMps2 = gravityMps2; self.residualMps2 = residualMps2
        self.positions = positions
    }

    enum Key: String, CaseIterable {
        case date, temperatureC, grade, offsetMps2, correction, gravityMps2, residualMps2, positions
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, allowed: Key.allCases.map(\.rawValue))
        date = try r.date("date")
        temperatureC = try r.optionalNumber("temperatureC", in: -60...150)
        grade = try r.grade("grade")
        offsetMps2 = try r.vector("offsetMps2")
        guard offsetMps2.length <= 20 else {
            throw r.fail("offsetMps2", "|\(offsetMps2.length)| m/s² is not an accelerometer offset")
        }
        let t = try r.matrix("correction")
        correction = t
        guard (0..<3).allSatisfy({ (0.5...1.5).contains(t[$0, $0]) }), t.inverted != nil else {
            throw r.fail("correction", "must be near the identity (diagonal within 0.5…1.5) and invertible")
        }
        gravityMps2 = try r.number("gravityMps2", in: 9.7...9.9)
        residualMps2 = try r.number("residualMps2", in: 0...10)
        positions = try r.integer("positions", in: 6...6)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(date, forKey: AnyKey("date"))
        try c.encodeIfPresent(temperatureC, forKey: AnyKey("temperatureC"))
        try c.encode(grade, forKey: AnyKey("grade"))
        try c.encode([offsetMps2.x, offsetMps2.y, offsetMps2.z], forKey: AnyKey("offsetMps2"))
        try c.encode(correction.rowMajor, forKey: AnyKey("correction"))
        try c.encode(gravityMps2, forKey: AnyKey("gravityMps2"))
        try c.encode(residualMps2, forKey: AnyKey("residualMps2"))
        try c.encode(positions, forKey: AnyKey("positions"))
    }
}

/// A gyroscope's bias at rest and, from a long capture, its noise figures (IEEE Std 952 Allan deviation).
public struct GyroscopeCalibration: Sendable, Hashable, Codable {
    public var date: String
    public var temperatureC: Double?
    /// Bias, rad/s, board axes: calibrated = raw − bias.
    public var biasRadS: Vector3
    /// Per-sample standard deviation at rest, rad/s.
    public var noiseRMSRadS: Vector3
    /// Capture length, s.
    public var durationS: Double
    /// Angle random walk N = white-noise density, rad/s/√Hz, per axis (Allan, captures ≥ 100 s).
    public var noiseDensityRadSPerRootHz: Vector3?
    /// Bias instability B, rad/s, per axis.
    public var biasInstabilityRadS: Vector3?
    /// Rate random walk K, rad/s/√s, per axis.
    public var rateRandomWalkRadSPerRootS: Vector3?

    public init(
        date: String, temperatureC: Double?, biasRadS: Vector3, noiseRMSRadS: Vector3, durationS: Double,
        noiseDensityRadSPerRootHz: Vector3?, biasInstabilityRadS: Vector3?, rateRandomWalkRadSPerRootS: Vector3?
    ) {
        self.date = date; self.temperatureC = temperatureC; self.biasRadS = biasRadS; self.noiseRMSRadS = noiseRMSRadS
        self.durationS = durationS; self.noiseDensityRadSPerRootHz = noiseDensityRadSPerRootHz
        self.biasInstabilityRadS = biasInstabilityRadS; self.rateRandomWalkRadSPerRootS = rateRandomWalkRadSPerRootS
    }

    enum Key: String, CaseIterable {
        case date, temperatureC, biasRadS, noiseRMSRadS, durationS, noiseDensityRadSPerRootHz, biasInstabilityRadS
        case rateRandomWalkRadSPerRootS
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, allowed: Key.allCases.map(\.rawValue))
        date = try r.date("date")
        temperatureC = try r.optionalNumber("temperatureC", in: -60...150)
        biasRadS = try r.vector("biasRadS")
        guard biasRadS.length <= 1 else { throw r.fail("biasRadS", "|\(biasRadS.length)| rad/s is not a gyroscope bias") }
        noiseRMSRadS = try r.vector("noiseRMSRadS")
        durationS = try r.number("durationS", in: 0.1...1e6)
        noiseDensityRadSPerRootHz = try r.optionalVector("noiseDensityRadSPerRootHz")
        biasInstabilityRadS = try r.optionalVector("biasInstabilityRadS")
        rateRandomWalkRadSPerRootS = try r.optionalVector("rateRandomWalkRadSPerRootS")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        func v(_ x: Vector3) -> [Double] { [x.x, x.y, x.z] }
        try c.encode(date, forKey: AnyKey("date"))
        try c.encodeIfPresent(temperatureC, forKey: AnyKey("temperatureC"))
        try c.encode(v(biasRadS), forKey: AnyKey("biasRadS"))
        try c.encode(v(noiseRMSRadS), forKey: AnyKey("noiseRMSRadS"))
        try c.encode(durationS, forKey: AnyKey("durationS"))
        try c.encodeIfPresent(noiseDensityRadSPerRootHz.map(v), forKey: AnyKey("noiseDensityRadSPerRootHz"))
        try c.encodeIfPresent(biasInstabilityRadS.map(v), forKey: AnyKey("biasInstabilityRadS"))
        try c.encodeIfPresent(rateRandomWalkRadSPerRootS.map(v), forKey: AnyKey("rateRandomWalkRadSPerRootS"))
    }
}

/// A barometer's offset against a known altitude (and QNH): calibrated = raw − offsetPa.
public struct BarometerCalibration: Sendable, Hashable, Codable {
    public var date: String
    public var temperatureC: Double?
    /// Offset, Pa.
    public var offsetPa: Double
    /// The reference: altitude above MSL (m), and the QNH (Pa) when one was given. Without a QNH the offset
    /// holds the weather of the day (see `BarometerReference.altitude`).
    public var altitudeMSLM: Double
    public var qnhPa: Double?
    /// Expected and measured pressure, Pa; noise (standard deviation), Pa; capture length, s.
    public var expectedPressurePa: Double
    public var measuredPressurePa: Double
    public var noisePa: Double
    public var durationS: Double

    public init(
        date: String, temperatureC: Double?, offsetPa: Double, altitudeMSLM: Double, qnhPa: Double?,
        expectedPressurePa: Double, measuredPressurePa: Double, noisePa: Double, durationS: Double
    ) {
        self.date = date; self.temperatureC = temperatureC; self.offsetPa = offsetPa; self.altitudeMSLM = altitudeMSLM
        self.qnhPa = qnhPa; self.expectedPressurePa = expectedPressurePa; self.measuredPressurePa = measuredPressurePa
        self.noisePa = noisePa; self.durationS = durationS
    }

    enum Key: String, CaseIterable {
        case date, temperatureC, offsetPa, altitudeMSLM, qnhPa, expectedPressurePa, measuredPressurePa, noisePa, durationS
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, allowed: Key.allCases.map(\.rawValue))
        date = try r.date("date")
        temperatureC = try r.optionalNumber("temperatureC", in: -60...150)
        offsetPa = try r.number("offsetPa", in: -10_000...10_000)
        altitudeMSLM = try r.number("altitudeMSLM", in: -500...9000)
        qnhPa = try r.optionalNumber("qnhPa", in: 85_000...110_000)
        expectedPressurePa = try r.number("expectedPressurePa", in: 20_000...120_000)
        measuredPressurePa = try r.number("measuredPressurePa", in: 20_000...120_000)
        noisePa = try r.number("noisePa", in: 0...10_000)
        durationS = try r.number("durationS", in: 0...1e6)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(date, forKey: AnyKey("date"))
        try c.encodeIfPresent(temperatureC, forKey: AnyKey("temperatureC"))
        try c.encode(offsetPa, forKey: AnyKey("offsetPa"))
        try c.encode(altitudeMSLM, forKey: AnyKey("altitudeMSLM"))
        try c.encodeIfPresent(qnhPa, forKey: AnyKey("qnhPa"))
        try c.encode(expectedPressurePa, forKey: AnyKey("expectedPressurePa"))
        try c.encode(measuredPressurePa, forKey: AnyKey("measuredPressurePa"))
        try c.encode(noisePa, forKey: AnyKey("noisePa"))
        try c.encode(durationS, forKey: AnyKey("durationS"))
    }
}

/// A calibration document that is not valid: the key (`sensors[0].magnetometer.grade`) and what is wrong.
public struct CalibrationDocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Dotted key path from the document's root; "" for the root itself.
    public var key: String
    public var problem: String
    public init(key: String, problem: String) { self.key = key; self.problem = problem }
    /// `key: problem`.
    public var description: String { key.isEmpty ? problem : "\(key): \(problem)" }

    /// A dotted key path from a Codable coding path.
    public static func keyPath(_ path: [any CodingKey]) -> String {
        var s = ""
        for k in path {
            if let i = k.intValue, k.stringValue.hasPrefix("Index") || k.stringValue == "\(i)" {
                s += "[\(i)]"
            } else {
                s += (s.isEmpty ? "" : ".") + k.stringValue
            }
        }
        return s
    }
}

/// A coding key with any name.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = "Index \(intValue)"; self.intValue = intValue }
}

/// Strict reading of one JSON object: unknown keys are errors, and every failure names its key.
struct FieldReader {
    let container: KeyedDecodingContainer<AnyKey>
    let path: [any CodingKey]

    init(_ decoder: any Decoder, allowed: [String]) throws {
        path = decoder.codingPath
        do { container = try decoder.container(keyedBy: AnyKey.self) } catch {
            throw CalibrationDocumentError(
                key: CalibrationDocumentError.keyPath(decoder.codingPath), problem: "must be a JSON object")
        }
        for k in container.allKeys.map(\.stringValue).sorted() where !allowed.contains(k) {
            throw fail(k, "unknown key; allowed here: " + allowed.joined(separator: ", "))
        }
    }

    func fail(_ key: String, _ problem: String) -> CalibrationDocumentError {
        var p = CalibrationDocumentError.keyPath(path)
        if !key.isEmpty { p += (p.isEmpty ? "" : ".") + key }
        return CalibrationDocumentError(key: p, problem: problem)
    }

    private func value<T: Decodable>(_ type: T.Type, _ key: String, what: String) throws -> T? {
        let k = AnyKey(key)
        guard container.contains(k) else { return nil }
        if (try? container.decodeNil(forKey: k)) == true { throw fail(key, "is null; give \(what) or leave the key out") }
        do { return try container.decode(T.self, forKey: k) } catch let e as CalibrationDocumentError {
            throw e
        } catch {
            throw fail(key, "must be \(what)")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ key: String) throws -> T {
        guard let v = try value(type, key, what: "a list of sensor objects") else { throw fail(key, "missing") }
        return v
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ key: String) throws -> T? {
        try value(type, key, what: "an object")
    }

    func string(_ key: String) throws -> String {
        guard let v = try value(String.self, key, what: "a string") else { throw fail(key, "missing; a string is required") }
        return v
    }

    func optionalString(_ key: String) throws -> String? { try value(String.self, key, what: "a string") }

    func number(_ key: String, in range: ClosedRange<Double>) throws -> Double {
        guard let v = try optionalNumber(key, in: range) else { throw fail(key, "missing; a number is required") }
        return v
    }

    func optionalNumber(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let v = try value(Double.self, key, what: "a number") else { return nil }
        guard v.isFinite, range.contains(v) else {
            throw fail(key, "\(v) is out of range; allowed \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int {
        guard let v = try value(Int.self, key, what: "a whole number") else {
            throw fail(key, "missing; a whole number is required")
        }
        guard range.contains(v) else { throw fail(key, "\(v) is out of range; allowed \(range.lowerBound)…\(range.upperBound)") }
        return v
    }

    func optionalVector(_ key: String) throws -> Vector3? {
        guard let a = try value([Double].self, key, what: "3 numbers") else { return nil }
        guard a.count == 3, a.allSatisfy(\.isFinite) else { throw fail(key, "must be 3 numbers (x, y, z in board axes)") }
        return Vector3(a[0], a[1], a[2])
    }

    func vector(_ key: String) throws -> Vector3 {
        guard let v = try optionalVector(key) else { throw fail(key, "missing; 3 numbers are required") }
        return v
    }

    func matrix(_ key: String) throws -> Matrix3 {
        guard let a = try value([Double].self, key, what: "9 numbers, row-major") else {
            throw fail(key, "missing; 9 numbers (row-major) are required")
        }
        guard let m = Matrix3(rowMajor: a) else { throw fail(key, "must be 9 numbers, row-major") }
        return m
    }

    func grade(_ key: String) throws -> CalibrationGrade {
        let s = try string(key)
        guard let g = CalibrationGrade(rawValue: s) else {
            throw fail(
                key, "\"\(s)\" is not a grade; allowed: " + CalibrationGrade.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return g
    }

    /// A UTC time `YYYY-MM-DDTHH:MM:SSZ`.
    func date(_ key: String) throws -> String {
        let s = try string(key)
        let digits = Array(s.utf8)
        let shape = "dddd-dd-ddTdd:dd:ddZ".utf8.map { $0 }
        let ok =
            digits.count == shape.count
            && zip(digits, shape).allSatisfy { c, p in
                p == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) : c == p
            }
        guard ok else { throw fail(key, "\"\(s)\" is not a UTC time like 2026-07-02T10:15:00Z") }
        return s
    }
}
