#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCore
import LodestoneDrivers
import LodestoneGNSSSources
import LodestoneLinux
import LodestoneScheduler

/// A board description: which chips sit on which bus at which address, how each is mounted, and how
/// fast to sample it. Stored as JSON in `boards/` (format documented in `boards/README.md`).
public struct BoardDescription: Sendable, Hashable {
    /// The format tag every board file starts with.
    public static let formatTag = "lodestone-board/1"

    /// Human name, e.g. "BeagleBone Blue".
    public var name: String
    /// Free text.
    public var summary: String
    /// The sensors.
    public var sensors: [SensorEntry]
    /// Present for the simulated board: the scenario and the magnetic disturbance of the simulated carrier.
    public var simulation: SimulationSettings?
    /// Where it was read from (for messages), if from a file.
    public var path: String?

    public init(
        name: String, summary: String = "", sensors: [SensorEntry], simulation: SimulationSettings? = nil, path: String? = nil
    ) {
        self.name = name; self.summary = summary; self.sensors = sensors; self.simulation = simulation; self.path = path
    }

    /// Where a sensor is reached.
    public enum BusLocation: Sendable, Hashable, CustomStringConvertible {
        /// A Linux I2C character device, e.g. `/dev/i2c-1`.
        case i2c(path: String)
        /// A kernel IIO device by name (or `iio:deviceN`), in the libiio context `uri` (`local:`, `ip:HOST`).
        case iio(device: String, uri: String)
        /// The simulator bus of the simulated board.
        case simulated
        /// A serial port (a GNSS receiver's UART or USB-serial adapter) at a baud rate, bit/s.
        case serial(path: String, baudRate: Int)
        /// A running gpsd, reached over TCP (its JSON protocol).
        case gpsd(host: String, port: Int)
        /// A file played back as the device: a recorded receiver log, or a GPX file.
        case file(path: String)
        /// A Linux spidev chip select, e.g. `/dev/spidev0.1`, at `speedHz` (nil: 1 MHz, `SPISettings`' default).
        case spi(path: String, speedHz: UInt32?)
        /// A modem's GNSS through ModemManager (`mmcli -m MODEM`): `any`, an index or a D-Bus object path.
        case modemManager(modem: String)

        public var description: String {
            switch self {
            case .spi(let p, _): p
            case .i2c(let p): p
            case let .iio(d, u): "iio \(d) (\(u))"
            case .simulated: "simulated bus"
            case let .serial(p, b): "\(p) \(b) bit/s"
            case let .gpsd(h, p): "gpsd \(h):\(p)"
            case .file(let p): p
            case .modemManager(let m): "ModemManager modem \(m)"
            }
        }
    }

    /// One sensor on the board.
    public struct SensorEntry: Sendable, Hashable {
        /// Short identifier used in output (`imu`, `baro`), unique on the board.
        public var id: String
        /// Driver name (`bmp280`, `lis3mdl`, `mpu6050`, `mpu6500`, `mpu9250`) or `iio` for a kernel IIO device.
        public var chip: String
        /// Where it is.
        public var bus: BusLocation
        /// 7-bit I2C address (nil for IIO, or the chip's default).
        public var address: UInt8?
        /// Mount matrix, `v_board = M · v_chip` (IIO `mount_matrix` convention).
        public var mount: Matrix3
        /// Sample rate, Hz.
        public var rateHz: Double
        /// A GNSS receiver's energy model (the scheduler's `EnergyModel` key, e.g. `ublox-m8`): the board file's optional
        /// `"model"`, else `BoardDescription.defaultReceiverModel(chip:)`; `nil` for other sensors and GPX tracks.
        public var receiverModel: String?

        public init(
            id: String, chip: String, bus: BusLocation, address: UInt8?, mount: Matrix3 = .identity, rateHz: Double,
            receiverModel: String? = nil
        ) {
            self.id = id; self.chip = chip; self.bus = bus; self.address = address; self.mount = mount; self.rateHz = rateHz
            self.receiverModel = receiverModel ?? BoardDescription.defaultReceiverModel(chip: chip)
        }
    }

    /// Settings of the simulated board.
    public struct SimulationSettings: Sendable, Hashable {
        /// Scenario name (see `lodestone run --help`).
        public var scenario: String
        /// Hard-iron offset of the carrier in board axes, µT.
        public var hardIronMicroTesla: Vector3
        /// Soft-iron matrix of the carrier (identity = none).
        public var softIron: Matrix3
        /// Which physical unit of its chips the board is (`SimulatedBoard.init`'s `unit`): the accelerometer's zero-g
        /// offset belongs to the unit, so a calibration of the board holds for every run's seed; `nil`: the default
        /// unit (1).
        public var unit: UInt64?

        public init(
            scenario: String, hardIronMicroTesla: Vector3 = .zero, softIron: Matrix3 = .identity, unit: UInt64? = nil
        ) {
            self.scenario = scenario; self.hardIronMicroTesla = hardIronMicroTesla; self.softIron = softIron
            self.unit = unit
        }
    }
}

/// A board file that could not be used: one line naming the file, the key and what is allowed.
public struct BoardFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var key: String
    public var problem: String
    public var description: String { "\(path): \(key.isEmpty ? "" : key + ": ")\(problem)" }
}

extension BoardDescription {
    /// The chips a board file may name: every register driver in the catalog, and `iio`.
    public static var knownChips: [String] { ChipCatalog.names + ["iio"] + gnssChips }

    /// GNSS sources: `GNSSChip`'s names.
    public static var gnssChips: [String] { GNSSChip.allCases.map(\.rawValue) }

    /// The energy model of a GNSS source without a `"model"` key (`GNSSChip.defaultReceiverModel`); `nil` for other chips.
    public static func defaultReceiverModel(chip: String) -> String? { GNSSChip(rawValue: chip)?.defaultReceiverModel }

    /// Default poll rate of GNSS sources, Hz (how often the engine looks for new bytes; not the fix rate).
    public static let defaultGNSSPollRateHz = 20.0

    /// Reads and validates a board file.
    public static func load(path: String) throws(BoardFileError) -> BoardDescription {
        let data: Data
        do { data = try Data(PlainFile.read(path: path)) } catch {
            throw BoardFileError(
                path: path, key: "",
                problem: "cannot read the file (\(Self.reason(error))); pass an existing board file, e.g. boards/simulated.json")
        }
        return try parse(data, path: path)
    }

    /// Parses and validates board JSON (`Decodable`); `path` is used in messages only.
    public static func parse(_ data: Data, path: String) throws(BoardFileError) -> BoardDescription {
        do {
            var board = try JSONDecoder().decode(BoardDescription.self, from: data)
            board.path = path
            return board
        } catch let error as DecodingError {
            throw BoardFileError(path: path, error)
        } catch {
            throw BoardFileError(path: path, key: "", problem: "not valid JSON (\(Self.reason(error)))")
        }
    }

    /// Parses `0x76` / `118`; nil unless a 7-bit address in the usable range 0x03–0x77.
    public static func parseAddress(_ text: String) -> UInt8? {
        let t = text.lowercased()
        let v: Int? = t.hasPrefix("0x") ? Int(t.dropFirst(2), radix: 16) : Int(t)
        guard let v, (0x03...0x77).contains(v) else { return nil }
        return UInt8(v)
    }

    /// What went wrong, in a few words: a file error without its path (the message names the file), a JSON error's
    /// own description.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let e as FileError: return e.problemDescription
        case DecodingError.dataCorrupted(let context): return context.underlyingError.map(reason) ?? context.debugDescription
        case let e as any CustomDebugStringConvertible: return e.debugDescription
        default: return "\(error)"
        }
    }
}

// MARK: - Decoding
//
// The board file is `Decodable`: each type reads its own keys through a keyed container, refuses keys it does not
// know, and reports a value it cannot use as a `DecodingError.dataCorrupted` at the key's coding path, whose
// description says what is wrong and what is allowed. `BoardFileError(path:_:)` turns the coding path into the key
// of the one-line message (`sensors[0].bus.spi`).

extension BoardFileError {
    /// The one line for a decoding failure of the file at `path`.
    init(path: String, _ error: DecodingError) {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Every problem the decoding itself finds has a key: at the top level it is the JSON text.
            let reason = context.underlyingError.map(BoardDescription.reason) ?? context.debugDescription
            self.init(path: path, key: "", problem: "not valid JSON (\(reason))")
        case .dataCorrupted(let context):
            self.init(path: path, key: Self.key(context.codingPath), problem: context.debugDescription)
        case .typeMismatch(let type, let context):
            let problem = context.codingPath.isEmpty ? "the top level must be a JSON object" : "must be " + Self.describe(type)
            self.init(path: path, key: Self.key(context.codingPath), problem: problem)
        case .valueNotFound(let type, let context):
            self.init(path: path, key: Self.key(context.codingPath), problem: "must be " + Self.describe(type) + ", not null")
        case .keyNotFound(let key, let context):
            self.init(path: path, key: Self.key(context.codingPath + [key]), problem: "missing")
        @unknown default:
            self.init(path: path, key: "", problem: "not a valid board file (\(error))")
        }
    }

    /// `sensors[0].bus.spi` for a coding path.
    static func key(_ path: [any CodingKey]) -> String {
        var key = ""
        for k in path {
            if let i = k.intValue { key += "[\(i)]" } else { key += (key.isEmpty ? "" : ".") + k.stringValue }
        }
        return key
    }

    private static func describe(_ type: Any.Type) -> String {
        if type == String.self { return "a string" }
        if type == Bool.self { return "true or false" }
        if type == Double.self || type == Int.self { return "a number" }
        if type is [Any].Type { return "an array" }
        return "an object"
    }
}

/// Any key of a JSON object, so that a container can list the keys it was given.
struct BoardFileKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

/// A JSON value as the file has it, to say in a message what was given (`-1 is not allowed`).
enum BoardFileValue: Decodable, CustomStringConvertible {
    case null, bool(Bool), number(Double), string(String), array([BoardFileValue]), object([String: BoardFileValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([BoardFileValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: BoardFileValue].self))
        }
    }

    var number: Double? { if case .number(let n) = self { n } else { nil } }
    var string: String? { if case .string(let s) = self { s } else { nil } }

    /// The value as the message quotes it: `"text"`, `12.5`, `-1`, `true`.
    var description: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : "\(n)"
        case .string(let s): "\"\(s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension KeyedDecodingContainer where Key == BoardFileKey {
    /// A `dataCorrupted` error at `key` (the container itself for `""`) saying `problem`.
    func fail(_ key: String, _ problem: String) -> DecodingError {
        DecodingError.dataCorrupted(
            .init(codingPath: codingPath + (key.isEmpty ? [] : [BoardFileKey(key)]), debugDescription: problem))
    }

    /// Refuses the first key (in sorted order) that is not in `keys`.
    func allowOnly(_ keys: [String]) throws {
        for k in allKeys.map(\.stringValue).sorted() where !keys.contains(k) {
            throw fail(k, "unknown key; allowed here: " + keys.joined(separator: ", "))
        }
    }

    /// The value at `key` as given, `nil` when absent.
    func value(_ key: String) throws -> BoardFileValue? { try decodeIfPresent(BoardFileValue.self, forKey: BoardFileKey(key)) }

    /// A required string.
    func string(_ key: String) throws -> String {
        guard let v = try value(key) else { throw fail(key, "missing; a string is required") }
        guard let s = v.string else { throw fail(key, "\(v) must be a string") }
        return s
    }

    /// An optional string.
    func optionalString(_ key: String) throws -> String? {
        guard try value(key) != nil else { return nil }
        return try string(key)
    }

    /// `count` numbers, or `nil` when the value is anything else.
    func numbers(_ key: String, count: Int) throws -> [Double]? {
        guard case .array(let items)? = try value(key), items.count == count else { return nil }
        let values = items.compactMap(\.number)
        return values.count == count ? values : nil
    }
}

/// What a board file's `chip` names: a register chip (`ChipCatalog`), a kernel IIO device, or a GNSS source.
enum BoardChip: Equatable {
    case register(ChipID), iio, gnss(GNSSChip)

    init?(_ name: String) {
        if name == "iio" {
            self = .iio
        } else if let g = GNSSChip(rawValue: name) {
            self = .gnss(g)
        } else if let id = ChipID(rawValue: name) {
            self = .register(id)
        } else {
            return nil
        }
    }
}

extension BoardDescription: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: BoardFileKey.self)
        try c.allowOnly(["format", "name", "description", "sensors", "simulation"])
        let format = try c.string("format")
        guard format == Self.formatTag else {
            throw c.fail("format", "\"\(format)\" is not supported; allowed: \"\(Self.formatTag)\"")
        }
        name = try c.string("name")
        summary = try c.optionalString("description") ?? ""
        guard case .array(let items)? = try c.value("sensors"), !items.isEmpty else {
            throw c.fail("sensors", "must be a non-empty array of sensor objects")
        }
        var list = try c.nestedUnkeyedContainer(forKey: BoardFileKey("sensors"))
        var sensors: [SensorEntry] = []
        var seen: Set<String> = []
        while !list.isAtEnd {
            let index = list.currentIndex
            let entry = try list.decode(SensorEntry.self)
            guard seen.insert(entry.id).inserted else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: c.codingPath + [BoardFileKey("sensors"), BoardFileKey(intValue: index)!, BoardFileKey("id")],
                        debugDescription: "\"\(entry.id)\" is used twice; ids must be unique"))
            }
            sensors.append(entry)
        }
        self.sensors = sensors
        if let v = try c.value("simulation") {
            guard case .object = v else { throw c.fail("simulation", "must be an object") }
            simulation = try c.decode(SimulationSettings.self, forKey: BoardFileKey("simulation"))
        } else {
            simulation = nil
        }
        if simulation == nil, let s = sensors.first(where: { $0.bus == .simulated }) {
            throw c.fail(
                "simulation",
                "missing, but sensor \"\(s.id)\" is on the simulated bus; add \"simulation\": {\"scenario\": \"mixed-day\"}")
        }
        path = nil
    }
}

extension BoardDescription.SensorEntry: Decodable {
    public init(from decoder: any Decoder) throws {
        let c: KeyedDecodingContainer<BoardFileKey>
        do { c = try decoder.container(keyedBy: BoardFileKey.self) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "must be an object"))
        }
        try c.allowOnly(["id", "chip", "bus", "address", "mount", "rateHz", "description", "model"])
        let id = try c.string("id")
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw c.fail("id", "\"\(id)\" is not allowed; use letters, digits, - and _")
        }
        let name = try c.string("chip").lowercased()
        guard let chip = BoardChip(name) else {
            throw c.fail(
                "chip", "\"\(name)\" is not a known chip; allowed: " + BoardDescription.knownChips.joined(separator: ", "))
        }
        guard let busValue = try c.value("bus"), case .object = busValue else {
            throw c.fail(
                "bus",
                "\((try c.value("bus")).map(\.description) ?? "missing") is not a bus; " + BoardDescription.BusLocation.allowed)
        }
        let bus = try BoardDescription.BusLocation(from: c.superDecoder(forKey: BoardFileKey("bus")), chip: chip)
        var address: UInt8?
        if let a = try c.value("address") {
            guard let text = a.string, let v = BoardDescription.parseAddress(text) else {
                throw c.fail("address", "\(a) is not an I2C address; allowed: a string \"0x03\" … \"0x77\"")
            }
            address = v
        }
        if case .iio = bus, address != nil {
            throw c.fail("address", "not allowed for an IIO device (the kernel driver owns the address)")
        }
        if case .spi = bus, address != nil { throw c.fail("address", "not allowed on SPI (the chip select picks the chip)") }
        var mount = Matrix3.identity
        if try c.value("mount") != nil {
            guard let values = try c.numbers("mount", count: 9), let m = Matrix3(rowMajor: values) else {
                throw c.fail("mount", "must be 9 numbers, row-major, with v_board = M · v_chip (like IIO's mount_matrix)")
            }
            guard abs(abs(m.determinant) - 1) < 1e-3 else {
                throw c.fail(
                    "mount",
                    "determinant \(m.determinant) is not ±1; a mount matrix must be a rotation (or a reflection for a left-handed chip)"
                )
            }
            mount = m
        }
        var gnss: GNSSChip?
        if case .gnss(let g) = chip { gnss = g }
        if gnss != nil, address != nil { throw c.fail("address", "not allowed for a GNSS source") }
        let rate = try c.value("rateHz")
        let rateHz: Double
        if gnss != nil && rate == nil {
            rateHz = BoardDescription.defaultGNSSPollRateHz
        } else {
            guard let r = rate?.number, r.isFinite, r > 0, r <= 8000 else {
                throw c.fail("rateHz", "\(rate.map(\.description) ?? "missing") is not allowed; use a number of Hz in (0, 8000]")
            }
            rateHz = r
        }
        var model: String?
        if let m = try c.value("model") {
            guard let g = gnss, g != .gpx else {
                throw c.fail(
                    "model", "only a GNSS receiver (nmea, ublox, gpsd, modemmanager) has an energy model; remove the key")
            }
            guard let text = m.string, !text.isEmpty,
                text.allSatisfy({ ($0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "-" })
            else {
                throw c.fail("model", "\(m) is not allowed; use a receiver model name like \"ublox-m8\" or \"generic\"")
            }
            guard EnergyModel.receiver(text) != nil else {
                throw c.fail(
                    "model",
                    "\"\(text)\" is not a receiver the energy model knows; known: "
                        + EnergyModel.receiverModels.joined(separator: ", "))
            }
            model = text
        }
        self.init(id: id, chip: name, bus: bus, address: address, mount: mount, rateHz: rateHz, receiverModel: model)
    }
}

extension BoardDescription.SimulationSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: BoardFileKey.self)
        try c.allowOnly(["scenario", "hardIronMicroTesla", "softIron", "unit"])
        let scenario = try c.string("scenario")
        var hard = Vector3.zero
        if try c.value("hardIronMicroTesla") != nil {
            guard let v = try c.numbers("hardIronMicroTesla", count: 3) else {
                throw c.fail("hardIronMicroTesla", "must be 3 numbers (µT, board axes)")
            }
            hard = Vector3(v[0], v[1], v[2])
        }
        var soft = Matrix3.identity
        if try c.value("softIron") != nil {
            guard let v = try c.numbers("softIron", count: 9), let m = Matrix3(rowMajor: v) else {
                throw c.fail("softIron", "must be 9 numbers, row-major")
            }
            soft = m
        }
        var unit: UInt64?
        if let v = try c.value("unit") {
            guard let n = v.number, n >= 0, n <= 1e15, n == n.rounded() else {
                throw c.fail("unit", "must be a whole number ≥ 0 (which unit of the chips the board is)")
            }
            unit = UInt64(n)
        }
        self.init(scenario: scenario, hardIronMicroTesla: hard, softIron: soft, unit: unit)
    }
}

extension BoardDescription.BusLocation {
    /// What a register chip's `bus` may be.
    static let allowed =
        "allowed: {\"i2c\": \"/dev/i2c-N\"}, {\"spi\": \"/dev/spidevB.C\", \"speedHz\": N}, {\"iio\": \"DEVICE\", \"uri\": \"local:\" or \"ip:HOST\"}, {\"simulated\": true}"

    /// The bus object of a sensor whose chip is `chip`.
    init(from decoder: any Decoder, chip: BoardChip) throws {
        let c = try decoder.container(keyedBy: BoardFileKey.self)
        if case .gnss(let g) = chip { self = try Self.gnss(c, chip: g); return }
        if let dev = try c.value("i2c") {
            try c.allowOnly(["i2c"])
            guard let d = dev.string, d.hasPrefix("/dev/") else {
                throw c.fail("i2c", "\(dev) must be a device path like \"/dev/i2c-1\"")
            }
            guard chip != .iio else { throw c.fail("", "chip \"iio\" needs an iio bus; " + Self.allowed) }
            self = .i2c(path: d)
        } else if let dev = try c.value("iio") {
            try c.allowOnly(["iio", "uri"])
            guard let d = dev.string, !d.isEmpty else {
                throw c.fail("iio", "must be an IIO device name (e.g. \"lsm6dsl_accel\") or id (\"iio:device0\")")
            }
            let uri = try c.value("uri")?.string ?? "local:"
            guard uri.hasPrefix("local:") || uri.hasPrefix("ip:") else {
                throw c.fail("uri", "\"\(uri)\" is not allowed; use \"local:\" or \"ip:HOST\"")
            }
            guard chip == .iio else {
                throw c.fail("", "an IIO device needs \"chip\": \"iio\" (the kernel driver does the chip work)")
            }
            self = .iio(device: d, uri: uri)
        } else if let dev = try c.value("spi") {
            try c.allowOnly(["spi", "speedHz"])
            guard let d = dev.string, d.hasPrefix("/dev/") else {
                throw c.fail("spi", "\(dev) must be a device path like \"/dev/spidev0.1\"")
            }
            guard case .register(let id) = chip, id.spiFraming != nil else {
                let name = if case .register(let id) = chip { id.rawValue } else { "iio" }
                throw c.fail(
                    "",
                    "chip \"\(name)\" is not read over SPI; SPI chips: "
                        + ChipCatalog.spiEntries.map(\.name).joined(separator: ", "))
            }
            var speedHz: UInt32?
            if let v = try c.value("speedHz") {
                guard let n = v.number, n.rounded() == n, n >= 1000, n <= 50_000_000 else {
                    throw c.fail("speedHz", "\(v) is not allowed; use a whole number of Hz in [1000, 50000000]")
                }
                speedHz = UInt32(n)
            }
            self = .spi(path: d, speedHz: speedHz)
        } else if let s = try c.value("simulated") {
            try c.allowOnly(["simulated"])
            guard case .bool(true) = s else { throw c.fail("simulated", "must be true") }
            guard chip != .iio else { throw c.fail("", "the simulated bus carries register chips, not \"iio\"") }
            self = .simulated
        } else {
            throw c.fail("", "no bus given; " + Self.allowed)
        }
    }

    /// The bus of a GNSS source: `{"serial": "/dev/ttyS0", "baudRate": 9600}` or `{"file": "log.nmea"}` for
    /// `nmea`/`ublox`; `{"gpsd": "127.0.0.1:2947"}` for `gpsd`; `{"file": "track.gpx"}` for `gpx`.
    private static func gnss(_ c: KeyedDecodingContainer<BoardFileKey>, chip: GNSSChip) throws -> Self {
        switch chip {
        case .gpsd:
            try c.allowOnly(["gpsd"])
            let given = try c.value("gpsd")
            guard let text = given?.string, let colon = text.lastIndex(of: ":"),
                let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port), colon > text.startIndex
            else {
                throw c.fail("gpsd", "\(given.map(\.description) ?? "missing") must be \"HOST:PORT\", e.g. \"127.0.0.1:2947\"")
            }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return .gpsd(host: host, port: port)
        case .modemmanager:
            try c.allowOnly(["modem"])
            let given = try c.value("modem")
            guard let modem = given?.string, !modem.isEmpty, !modem.contains(" ") else {
                throw c.fail(
                    "modem",
                    "\(given.map(\.description) ?? "missing") must name the modem as mmcli -m takes it: \"any\", an index or a D-Bus path"
                )
            }
            return .modemManager(modem: modem)
        case .gpx:
            try c.allowOnly(["file"])
            guard let f = try c.value("file")?.string, !f.isEmpty else { throw c.fail("file", "must be the path of a GPX file") }
            return .file(path: f)
        case .nmea, .ublox:
            if let f = try c.value("file") {
                try c.allowOnly(["file"])
                guard let path = f.string, !path.isEmpty else {
                    throw c.fail("file", "must be the path of a recorded receiver log")
                }
                return .file(path: path)
            }
            try c.allowOnly(["serial", "baudRate"])
            let serial = try c.value("serial")
            guard let d = serial?.string, d.hasPrefix("/dev/") else {
                throw c.fail(
                    "serial",
                    "\(serial.map(\.description) ?? "missing") must be a device path like \"/dev/ttyS0\" (or give {\"file\": LOG})"
                )
            }
            let baudValue = try c.value("baudRate")
            let baud = baudValue?.number.flatMap { Int(exactly: $0) } ?? 9600
            guard baudValue == nil || (baudValue?.number != nil && SerialPort.supportedBaudRates.contains(baud)) else {
                throw c.fail(
                    "baudRate",
                    "\(baudValue!) is not a baud rate; allowed: 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600")
            }
            return .serial(path: d, baudRate: baud)
        }
    }
}
