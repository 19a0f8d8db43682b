import LodestoneCore
import LodestoneDrivers
import LodestoneEngine
import LodestoneLinux

/// `lodestone scan`: probes I2C buses at the addresses known chips use and identifies them by their ID registers,
/// identifies the chip on each SPI chip select it is given, looks behind an MPU-9250's bypass or an ICM-20948's for
/// their magnetometers, lists kernel IIO devices, and drafts a board file.
///
/// Identification only reads. Looking behind an IMU (`probesAuxiliaryBuses`, on by default) writes to that IMU: it
/// wakes it if asleep, turns its I2C master off and its bypass on, identifies the magnetometer at 0x0C, and writes
/// the IMU's registers back as they were. It is skipped for an IMU a kernel driver owns.
public struct ScanJob {
    public var i2cBuses: [String]
    /// spidev nodes to identify (SPI is never scanned unasked: a read command can mean something else to another
    /// kind of device).
    public var spiDevices: [String]
    public var iio: Bool
    public var iioURI: String
    /// Whether to look behind MPU-9250s and ICM-20948s for their magnetometers (see the type).
    public var probesAuxiliaryBuses: Bool

    public init(
        i2cBuses: [String], spiDevices: [String] = [], iio: Bool, iioURI: String = "local:",
        probesAuxiliaryBuses: Bool = true
    ) {
        self.i2cBuses = i2cBuses; self.spiDevices = spiDevices; self.iio = iio; self.iioURI = iioURI
        self.probesAuxiliaryBuses = probesAuxiliaryBuses
    }

    /// One thing found.
    public struct Finding: Sendable, Hashable {
        public var bus: BoardDescription.BusLocation
        public var address: UInt8?
        public var chip: String?
        public var detail: String
        /// Part of another finding's chip (an MPU-9250's AK8963): listed, but read through its host, so not a board
        /// file entry of its own.
        public var isInsideHost = false
    }

    /// Scans. Bus-level problems (permission, missing bus) are reported as lines in `problems`, and the scan
    /// goes on with the other buses.
    public func scan() -> (findings: [Finding], problems: [String]) {
        var findings: [Finding] = []
        var problems: [String] = []
        for path in i2cBuses {
            let bus: I2CDevBus
            do { bus = try I2CDevBus(path: path) } catch { problems.append(error.description); continue }
            let found = Self.scanI2C(bus: bus, location: .i2c(path: path), probesAuxiliaryBuses: probesAuxiliaryBuses)
            findings += found.findings
            problems += found.notes
            problems.append(contentsOf: bus.notes)
        }
        for path in spiDevices {
            var buses: [SPIRegisterFraming: SPIDevBus] = [:]
            var openError: BusError?
            let identity = Self.identifySPI { (framing, register) -> UInt8? in
                if buses[framing] == nil {
                    switch Result(catching: { () throws(BusError) -> SPIDevBus in try SPIDevBus(path: path, framing: framing) }) {
                    case .success(let bus): buses[framing] = bus
                    case .failure(let error): openError = error; return nil
                    }
                }
                return try? buses[framing]?.readByte(address: 0, register: register)
            }
            if let openError, buses.isEmpty { problems.append(openError.description); continue }
            let location = BoardDescription.BusLocation.spi(path: path, speedHz: nil)
            if let identity {
                findings.append(Finding(bus: location, address: nil, chip: identity.chip, detail: Self.describe(identity)))
            } else {
                findings.append(
                    Finding(
                        bus: location, address: nil, chip: nil,
                        detail: "no known chip answers"))
            }
        }
        if iio {
            do {
                let context = try IIOContext(uri: iioURI)
                for d in context.devices {
                    let kinds = d.kinds
                    findings.append(
                        Finding(
                            bus: .iio(device: d.name ?? d.id, uri: iioURI), address: nil,
                            chip: kinds.isEmpty ? nil : "iio",
                            detail: "\(d.id) \(d.name ?? "(no name)"): "
                                + (kinds.isEmpty ? "no motion/baro/mag channels" : kinds.map(\.rawValue).joined(separator: ", ")))
                    )
                }
            } catch { problems.append(error.description) }
        }
        return (findings, problems)
    }

    /// Scans one I2C bus: every address a catalog chip can have, identified by ID registers; an LIS3MDL identity
    /// next to an LSM9DS1 named as the LSM9DS1's magnetometer (they answer alike); then, when asked, the
    /// magnetometers behind MPU-9250s and ICM-20948s that a kernel driver does not own.
    public static func scanI2C<Bus: RegisterBus>(
        bus: Bus, location: BoardDescription.BusLocation,
        probesAuxiliaryBuses: Bool
    ) -> (findings: [Finding], notes: [String]) {
        var findings: [Finding] = []
        var notes: [String] = []
        let candidates = Array(Set(ChipCatalog.entries.flatMap(\.addresses))).sorted()
        for address in candidates where bus.isPresent(address: address) {
            if let id = ChipCatalog.identify(bus: bus, address: address) {
                findings.append(Finding(bus: location, address: address, chip: id.chip, detail: describe(id)))
            } else {
                findings.append(Finding(bus: location, address: address, chip: nil, detail: "a device answers, not identified"))
            }
        }
        if findings.contains(where: { $0.chip == "lsm9ds1" }) {
            for i in findings.indices where findings[i].chip == "lis3mdl" {
                findings[i].chip = "lsm9ds1-mag"
                findings[i].detail =
                    "lsm9ds1-mag (ID 0x3D, as a LIS3MDL's: named the LSM9DS1's magnetometer because an LSM9DS1 is on this bus)"
            }
        }
        guard probesAuxiliaryBuses else { return (findings, notes) }
        let forced = (bus as? I2CDevBus)?.forcedAddresses ?? []
        for host in findings where host.chip == "mpu9250" || host.chip == "icm20948" {
            guard let hostAddress = host.address, let chip = host.chip else { continue }
            if findings.contains(where: { $0.address == AuxiliaryProbe.magnetometerAddress }) { continue } // already answers
            if forced.contains(hostAddress) {
                notes.append(
                    "\(bus.name) \(hex(hostAddress)): \(chip) is claimed by a kernel driver; its magnetometer was not looked for")
                continue
            }
            switch AuxiliaryProbe.identify(bus: bus, hostAddress: hostAddress, hostChip: chip) {
            case .success(let id?):
                findings.append(
                    Finding(
                        bus: location, address: AuxiliaryProbe.magnetometerAddress, chip: id.chip,
                        detail: describe(id)
                            + ", behind the \(chip) at \(hex(hostAddress)) (its bypass, opened and closed again by the scan)",
                        isInsideHost: true))
            case .success(nil):
                notes.append(
                    "\(bus.name) \(hex(hostAddress)): no magnetometer answered behind the \(chip)'s bypass: "
                        + "a clone without one, or the part is not what its WHO_AM_I says")
            case .failure(let error):
                notes.append("\(bus.name) \(hex(hostAddress)): looking behind the \(chip) failed: \(error.description)")
            }
        }
        return (findings, notes)
    }

    /// Identifies the chip on one SPI chip select: for each catalog chip that can sit on SPI, in table order, its ID
    /// register is read with that chip's framing (`read(framing, register)`, nil when the read fails) and compared.
    /// Each framing and register is read once.
    public static func identifySPI(read: (SPIRegisterFraming, UInt8) -> UInt8?) -> ChipIdentity? {
        var cache: [Int: UInt8?] = [:]
        for entry in ChipCatalog.spiEntries {
            guard let framing = ChipCatalog.spiFraming(forChip: entry.name) else { continue }
            let key = Int(entry.idRegister) << 8 | Int(SPIRegisterFraming.allCases.firstIndex(of: framing) ?? 0)
            let value: UInt8?
            if let cached = cache[key] {
                value = cached
            } else {
                value = read(framing, entry.idRegister)
                cache[key] = .some(value)
            }
            if let value, entry.idValues.contains(value) { return ChipIdentity(chip: entry.name, idValue: value) }
        }
        return nil
    }

    static func describe(_ id: ChipIdentity) -> String {
        // A chip recognised by its PROM (the MS5611) has no ID value to show.
        let how = ChipCatalog.entry(named: id.chip)?.signature == .ms5611PROM ? "PROM CRC-4 valid" : "ID \(hex(id.idValue))"
        return "\(id.chip) (\(how))"
    }

    /// A draft board file for what was identified (JSON text).
    public static func draftBoard(_ findings: [Finding]) -> String {
        var entries: [String] = []
        var used: [String: Int] = [:]
        for f in findings where !f.isInsideHost {
            guard let chip = f.chip else { continue }
            let kinds = Set(ChipCatalog.entry(named: chip)?.kinds ?? [])
            let (base, rate): (String, Int) =
                if chip == "iio" { ("iio", 100) } else if kinds.contains(.gyroscope) {
                    ("imu", 100)
                } else if kinds.contains(.barometer) { ("baro", 25) } else if kinds.contains(.magnetometer) {
                    ("mag", 40)
                } else if kinds.contains(.accelerometer) { ("accel", 100) } else { ("sensor", 25) }
            let n = used[base, default: 0]
            used[base] = n + 1
            let id = n == 0 ? base : "\(base)\(n + 1)"
            switch f.bus {
            case .i2c(let path):
                entries.append(
                    "    { \"id\": \"\(id)\", \"chip\": \"\(chip)\", \"bus\": { \"i2c\": \"\(path)\" }, \"address\": \"\(f.address.map(hex) ?? "")\", \"rateHz\": \(rate) }"
                )
            case .spi(let path, _):
                entries.append(
                    "    { \"id\": \"\(id)\", \"chip\": \"\(chip)\", \"bus\": { \"spi\": \"\(path)\" }, \"rateHz\": \(rate) }")
            case let .iio(device, uri):
                entries.append(
                    "    { \"id\": \"\(id)\", \"chip\": \"iio\", \"bus\": { \"iio\": \"\(device)\", \"uri\": \"\(uri)\" }, \"rateHz\": \(rate) }"
                )
            case .simulated, .serial, .gpsd, .file, .modemManager: continue
            }
        }
        return """
            {
              "format": "\(BoardDescription.formatTag)",
              "name": "Scanned board",
              "description": "Drafted by lodestone scan: check each mount matrix against how the chips sit on your board.",
              "sensors": [
            \(entries.joined(separator: ",\n"))
              ]
            }
            """
    }
}

/// Looks behind an InvenSense IMU for its magnetometer at 0x0C by opening the IMU's I2C bypass, and puts the IMU's
/// registers back afterwards.
enum AuxiliaryProbe {
    static let magnetometerAddress: UInt8 = 0x0C

    /// The registers touched, per host: (power, user control, interrupt pin configuration), all in bank 0, and the
    /// bank select on the ICM-20948 (MPU-9250: registers 107, 106, 55; ICM-20948: 0x06, 0x03, 0x0F, 0x7F).
    private struct Layout {
        var pwrMgmt1: UInt8, userCtrl: UInt8, intPinCfg: UInt8, bankSelect: UInt8?
    }

    /// The identity of the magnetometer behind the IMU at `hostAddress`, `nil` when none answers, or the bus error
    /// that stopped the look. The IMU's registers are restored in every case the bus allows.
    static func identify<Bus: RegisterBus>(bus: Bus, hostAddress: UInt8, hostChip: String) -> Result<ChipIdentity?, BusError> {
        let layout =
            hostChip == "icm20948"
            ? Layout(
                pwrMgmt1: ICM20948Datasheet.Register.pwrMgmt1.rawValue, userCtrl: ICM20948Datasheet.Register.userCtrl.rawValue,
                intPinCfg: ICM20948Datasheet.Register.intPinCfg.rawValue,
                bankSelect: ICM20948Datasheet.Register.regBankSel.rawValue)
            : Layout(
                pwrMgmt1: MPU6xxxDatasheet.Register.pwrMgmt1.rawValue, userCtrl: MPU6xxxDatasheet.Register.userCtrl.rawValue,
                intPinCfg: MPU6xxxDatasheet.Register.intPinCfg.rawValue, bankSelect: nil)
        let sleep = BitField(mask: 0b0100_0000), masterEnable = BitField(mask: 0b0010_0000), bypass = BitField(mask: 0b0000_0010)
        var saved: [(UInt8, UInt8)] = []
        do {
            if let bankSelect = layout.bankSelect {
                let bank = try bus.readByte(address: hostAddress, register: bankSelect)
                saved.append((bankSelect, bank))
                try bus.writeByte(address: hostAddress, register: bankSelect, value: 0)
            }
            let power = try bus.readByte(address: hostAddress, register: layout.pwrMgmt1)
            let user = try bus.readByte(address: hostAddress, register: layout.userCtrl)
            let pin = try bus.readByte(address: hostAddress, register: layout.intPinCfg)
            // Restored in reverse: the pin configuration, the user control, the power state, then the bank.
            saved += [(layout.pwrMgmt1, power), (layout.userCtrl, user), (layout.intPinCfg, pin)]
            if sleep.extract(from: power) == 1 {
                try bus.writeByte(address: hostAddress, register: layout.pwrMgmt1, value: sleep.inserting(0, into: power))
            }
            if masterEnable.extract(from: user) == 1 {
                try bus.writeByte(address: hostAddress, register: layout.userCtrl, value: masterEnable.inserting(0, into: user))
            }
            try bus.writeByte(address: hostAddress, register: layout.intPinCfg, value: bypass.inserting(1, into: pin))
            let identity = ChipCatalog.identify(bus: bus, address: magnetometerAddress)
            try restore(bus, hostAddress, saved)
            return .success(identity)
        } catch {
            try? restore(bus, hostAddress, saved)
            return .failure(error)
        }
    }

    private static func restore<Bus: RegisterBus>(_ bus: Bus, _ address: UInt8, _ saved: [(UInt8, UInt8)]) throws(BusError) {
        for (register, value) in saved.reversed() { try bus.writeByte(address: address, register: register, value: value) }
    }
}
