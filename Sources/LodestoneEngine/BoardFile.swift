import Foundation
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

    public init(name: String, summary: String = "", sensors: [SensorEntry], simulation: SimulationSettings? = nil, path: String? = nil) {
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

        public var description: String {
            switch self {
            case .spi(let p, _): p
            case .i2c(let p): p
            case let .iio(d, u): "iio \(d) (\(u))"
            case .simulated: "simulated bus"
            case let .serial(p, b): "\(p) \(b) bit/s"
            case let .gpsd(h, p): "gpsd \(h):\(p)"
            case .file(let p): p
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

        public init(id: String, chip: String, bus: BusLocation, address: UInt8?, mount: Matrix3 = .identity, rateHz: Double,
                    receiverModel: String? = nil) {
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

        public init(scenario: String, hardIronMicroTesla: Vector3 = .zero, softIron: Matrix3 = .identity) {
            self.scenario = scenario; self.hardIronMicroTesla = hardIronMicroTesla; self.softIron = softIron
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
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw BoardFileError(path: path, key: "", problem: "cannot read the file (\(Self.reason(error))); pass an existing board file, e.g. boards/simulated.json")
        }
        return try parse(data, path: path)
    }

    /// Parses and validates board JSON; `path` is used in messages only.
    public static func parse(_ data: Data, path: String) throws(BoardFileError) -> BoardDescription {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw BoardFileError(path: path, key: "", problem: "not valid JSON (\(Self.reason(error)))")
        }
        let p = Validator(path: path)
        guard let root = object as? [String: Any] else { throw p.fail("", "the top level must be a JSON object") }
        try p.allowOnly(root, ["format", "name", "description", "sensors", "simulation"], at: "")
        let format = try p.string(root, "format", at: "")
        guard format == formatTag else { throw p.fail("format", "\"\(format)\" is not supported; allowed: \"\(formatTag)\"") }
        let name = try p.string(root, "name", at: "")
        let summary = try p.optionalString(root, "description", at: "") ?? ""
        guard let list = root["sensors"] as? [Any], !list.isEmpty else {
            throw p.fail("sensors", "must be a non-empty array of sensor objects")
        }
        var sensors: [SensorEntry] = []
        var seen: Set<String> = []
        for (i, item) in list.enumerated() {
            let at = "sensors[\(i)]"
            guard let s = item as? [String: Any] else { throw p.fail(at, "must be an object") }
            try p.allowOnly(s, ["id", "chip", "bus", "address", "mount", "rateHz", "description", "model"], at: at)
            let id = try p.string(s, "id", at: at)
            guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw p.fail(at + ".id", "\"\(id)\" is not allowed; use letters, digits, - and _")
            }
            guard seen.insert(id).inserted else { throw p.fail(at + ".id", "\"\(id)\" is used twice; ids must be unique") }
            let chip = try p.string(s, "chip", at: at).lowercased()
            guard knownChips.contains(chip) else {
                throw p.fail(at + ".chip", "\"\(chip)\" is not a known chip; allowed: " + knownChips.joined(separator: ", "))
            }
            let bus = try p.bus(s["bus"], at: at + ".bus", chip: chip)
            var address: UInt8?
            if let a = s["address"] {
                guard let text = a as? String, let v = Self.parseAddress(text) else {
                    throw p.fail(at + ".address", "\(Self.show(a)) is not an I2C address; allowed: a string \"0x03\" … \"0x77\"")
                }
                address = v
            }
            if case .iio = bus, address != nil { throw p.fail(at + ".address", "not allowed for an IIO device (the kernel driver owns the address)") }
            if case .spi = bus, address != nil { throw p.fail(at + ".address", "not allowed on SPI (the chip select picks the chip)") }
            var mount = Matrix3.identity
            if let m = s["mount"] {
                guard let nums = m as? [Any], let values = Optional(nums.compactMap { ($0 as? NSNumber).map(\.doubleValue) }),
                      values.count == 9, nums.count == 9, let mm = Matrix3(rowMajor: values) else {
                    throw p.fail(at + ".mount", "must be 9 numbers, row-major, with v_board = M · v_chip (like IIO's mount_matrix)")
                }
                guard abs(abs(mm.determinant) - 1) < 1e-3 else {
                    throw p.fail(at + ".mount", "determinant \(mm.determinant) is not ±1; a mount matrix must be a rotation (or a reflection for a left-handed chip)")
                }
                mount = mm
            }
            let isGNSS = gnssChips.contains(chip)
            if isGNSS, address != nil { throw p.fail(at + ".address", "not allowed for a GNSS source") }
            let rateValue: Double
            if isGNSS && s["rateHz"] == nil {
                rateValue = defaultGNSSPollRateHz
            } else {
                guard let rate = s["rateHz"] as? NSNumber, rate.doubleValue.isFinite, rate.doubleValue > 0, rate.doubleValue <= 8000 else {
                    throw p.fail(at + ".rateHz", "\(Self.show(s["rateHz"])) is not allowed; use a number of Hz in (0, 8000]")
                }
                rateValue = rate.doubleValue
            }
            var model: String?
            if let m = s["model"] {
                guard isGNSS, chip != "gpx" else {
                    throw p.fail(at + ".model", "only a GNSS receiver (nmea, ublox, gpsd) has an energy model; remove the key")
                }
                guard let text = m as? String, !text.isEmpty,
                      text.allSatisfy({ ($0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "-" }) else {
                    throw p.fail(at + ".model", "\(Self.show(m)) is not allowed; use a receiver model name like \"ublox-m8\" or \"generic\"")
                }
                guard EnergyModel.receiver(text) != nil else {
                    throw p.fail(at + ".model", "\"\(text)\" is not a receiver the energy model knows; known: "
                                     + EnergyModel.receiverModels.joined(separator: ", "))
                }
                model = text
            }
            sensors.append(SensorEntry(id: id, chip: chip, bus: bus, address: address, mount: mount, rateHz: rateValue,
                                       receiverModel: model))
        }
        var simulation: SimulationSettings?
        if let simAny = root["simulation"] {
            guard let sim = simAny as? [String: Any] else { throw p.fail("simulation", "must be an object") }
            try p.allowOnly(sim, ["scenario", "hardIronMicroTesla", "softIron"], at: "simulation")
            let scenario = try p.string(sim, "scenario", at: "simulation")
            var hard = Vector3.zero
            if let h = sim["hardIronMicroTesla"] {
                guard let a = h as? [NSNumber], a.count == 3 else { throw p.fail("simulation.hardIronMicroTesla", "must be 3 numbers (µT, board axes)") }
                hard = Vector3(a[0].doubleValue, a[1].doubleValue, a[2].doubleValue)
            }
            var soft = Matrix3.identity
            if let sAny = sim["softIron"] {
                guard let a = sAny as? [NSNumber], let m = Matrix3(rowMajor: a.map(\.doubleValue)) else {
                    throw p.fail("simulation.softIron", "must be 9 numbers, row-major")
                }
                soft = m
            }
            simulation = SimulationSettings(scenario: scenario, hardIronMicroTesla: hard, softIron: soft)
        }
        if simulation == nil, let s = sensors.first(where: { $0.bus == .simulated }) {
            throw p.fail("simulation", "missing, but sensor \"\(s.id)\" is on the simulated bus; add \"simulation\": {\"scenario\": \"mixed-day\"}")
        }
        return BoardDescription(name: name, summary: summary, sensors: sensors, simulation: simulation, path: path)
    }

    /// Parses `0x76` / `118`; nil unless a 7-bit address in the usable range 0x03–0x77.
    public static func parseAddress(_ text: String) -> UInt8? {
        let t = text.lowercased()
        let v: Int? = t.hasPrefix("0x") ? Int(t.dropFirst(2), radix: 16) : Int(t)
        guard let v, (0x03...0x77).contains(v) else { return nil }
        return UInt8(v)
    }

    static func show(_ v: Any?) -> String {
        guard let v else { return "missing" }
        if let s = v as? String { return "\"\(s)\"" }
        return "\(v)"
    }

    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let d = ns.userInfo["NSDebugDescription"] as? String { return d }
        if let u = ns.userInfo[NSUnderlyingErrorKey] as? NSError { return u.localizedDescription }
        return ns.localizedDescription
    }
}

private struct Validator {
    let path: String

    func fail(_ key: String, _ problem: String) -> BoardFileError { BoardFileError(path: path, key: key, problem: problem) }

    func join(_ at: String, _ key: String) -> String { at.isEmpty ? key : at + "." + key }

    func allowOnly(_ o: [String: Any], _ keys: [String], at: String) throws(BoardFileError) {
        for k in o.keys.sorted() where !keys.contains(k) {
            throw fail(join(at, k), "unknown key; allowed here: " + keys.joined(separator: ", "))
        }
    }

    func string(_ o: [String: Any], _ key: String, at: String) throws(BoardFileError) -> String {
        guard let v = o[key] else { throw fail(join(at, key), "missing; a string is required") }
        guard let s = v as? String else { throw fail(join(at, key), "\(BoardDescription.show(v)) must be a string") }
        return s
    }

    func optionalString(_ o: [String: Any], _ key: String, at: String) throws(BoardFileError) -> String? {
        guard o[key] != nil else { return nil }
        return try string(o, key, at: at)
    }

    func bus(_ v: Any?, at: String, chip: String) throws(BoardFileError) -> BoardDescription.BusLocation {
        let allowed = "allowed: {\"i2c\": \"/dev/i2c-N\"}, {\"spi\": \"/dev/spidevB.C\", \"speedHz\": N}, {\"iio\": \"DEVICE\", \"uri\": \"local:\" or \"ip:HOST\"}, {\"simulated\": true}"
        guard let o = v as? [String: Any] else { throw fail(at, "\(BoardDescription.show(v)) is not a bus; " + allowed) }
        if BoardDescription.gnssChips.contains(chip) { return try gnssBus(o, at: at, chip: chip) }
        if let dev = o["i2c"] {
            try allowOnly(o, ["i2c"], at: at)
            guard let d = dev as? String, d.hasPrefix("/dev/") else { throw fail(at + ".i2c", "\(BoardDescription.show(dev)) must be a device path like \"/dev/i2c-1\"") }
            guard chip != "iio" else { throw fail(at, "chip \"iio\" needs an iio bus; " + allowed) }
            return .i2c(path: d)
        }
        if let dev = o["iio"] {
            try allowOnly(o, ["iio", "uri"], at: at)
            guard let d = dev as? String, !d.isEmpty else { throw fail(at + ".iio", "must be an IIO device name (e.g. \"lsm6dsl_accel\") or id (\"iio:device0\")") }
            let uri = (o["uri"] as? String) ?? "local:"
            guard uri.hasPrefix("local:") || uri.hasPrefix("ip:") else { throw fail(at + ".uri", "\"\(uri)\" is not allowed; use \"local:\" or \"ip:HOST\"") }
            guard chip == "iio" else { throw fail(at, "an IIO device needs \"chip\": \"iio\" (the kernel driver does the chip work)") }
            return .iio(device: d, uri: uri)
        }
        if let dev = o["spi"] {
            try allowOnly(o, ["spi", "speedHz"], at: at)
            guard let d = dev as? String, d.hasPrefix("/dev/") else { throw fail(at + ".spi", "\(BoardDescription.show(dev)) must be a device path like \"/dev/spidev0.1\"") }
            guard ChipCatalog.spiFraming(forChip: chip) != nil else {
                throw fail(at, "chip \"\(chip)\" is not read over SPI; SPI chips: " + ChipCatalog.spiEntries.map(\.name).joined(separator: ", "))
            }
            var speedHz: UInt32?
            if let v = o["speedHz"] {
                guard let n = v as? NSNumber, n.doubleValue.rounded() == n.doubleValue, n.doubleValue >= 1000, n.doubleValue <= 50_000_000 else {
                    throw fail(at + ".speedHz", "\(BoardDescription.show(v)) is not allowed; use a whole number of Hz in [1000, 50000000]")
                }
                speedHz = n.uint32Value
            }
            return .spi(path: d, speedHz: speedHz)
        }
        if let s = o["simulated"] {
            try allowOnly(o, ["simulated"], at: at)
            guard (s as? Bool) == true else { throw fail(at + ".simulated", "must be true") }
            guard chip != "iio" else { throw fail(at, "the simulated bus carries register chips, not \"iio\"") }
            return .simulated
        }
        throw fail(at, "no bus given; " + allowed)
    }

    /// The bus of a GNSS source: `{"serial": "/dev/ttyS0", "baudRate": 9600}` or `{"file": "log.nmea"}` for
    /// `nmea`/`ublox`; `{"gpsd": "127.0.0.1:2947"}` for `gpsd`; `{"file": "track.gpx"}` for `gpx`.
    func gnssBus(_ o: [String: Any], at: String, chip: String) throws(BoardFileError) -> BoardDescription.BusLocation {
        switch chip {
        case "gpsd":
            try allowOnly(o, ["gpsd"], at: at)
            guard let text = o["gpsd"] as? String, let colon = text.lastIndex(of: ":"),
                  let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port), colon > text.startIndex else {
                throw fail(at + ".gpsd", "\(BoardDescription.show(o["gpsd"])) must be \"HOST:PORT\", e.g. \"127.0.0.1:2947\"")
            }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return .gpsd(host: host, port: port)
        case "gpx":
            try allowOnly(o, ["file"], at: at)
            guard let f = o["file"] as? String, !f.isEmpty else { throw fail(at + ".file", "must be the path of a GPX file") }
            return .file(path: f)
        default:
            if let f = o["file"] {
                try allowOnly(o, ["file"], at: at)
                guard let path = f as? String, !path.isEmpty else { throw fail(at + ".file", "must be the path of a recorded receiver log") }
                return .file(path: path)
            }
            try allowOnly(o, ["serial", "baudRate"], at: at)
            guard let d = o["serial"] as? String, d.hasPrefix("/dev/") else {
                throw fail(at + ".serial", "\(BoardDescription.show(o["serial"])) must be a device path like \"/dev/ttyS0\" (or give {\"file\": LOG})")
            }
            let baud = (o["baudRate"] as? NSNumber)?.intValue ?? 9600
            guard o["baudRate"] == nil || (o["baudRate"] is NSNumber && SerialPort.supportedBaudRates.contains(baud)) else {
                throw fail(at + ".baudRate", "\(BoardDescription.show(o["baudRate"])) is not a baud rate; allowed: 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600")
            }
            return .serial(path: d, baudRate: baud)
        }
    }
}
