import LodestoneCore

/// Every chip Lodestone has a driver for: what it measures, where it can sit, how to recognise it, and how to
/// make its driver. `lodestone scan` and board files go through here; the "Adding a chip driver" article
/// (`LodestoneDrivers.docc/AddingADriver.md`) lists every place a new chip is registered.
public enum ChipCatalog {
    /// One chip.
    public struct Entry: Sendable, Hashable {
        /// Canonical name, as used in board files (`bmp280`).
        public var name: String
        /// What it measures.
        public var kinds: [SensorKind]
        /// 7-bit I2C addresses it can have; the first is the default.
        public var addresses: [UInt8]
        /// The register holding its identity.
        public var idRegister: UInt8
        /// The identity values that mean this chip.
        public var idValues: [UInt8]
        /// One line for people: maker, part and what it is.
        public var description: String
    }

    /// The table, one entry per driver name.
    public static let entries: [Entry] = [
        Entry(name: "bmp280", kinds: [.barometer, .thermometer], addresses: BMP280Datasheet.addresses,
              idRegister: BMP280Datasheet.Register.id.rawValue, idValues: BMP280Datasheet.chipIDs,
              description: "Bosch BMP280 barometric pressure and temperature sensor"),
        Entry(name: "lis3mdl", kinds: [.magnetometer, .thermometer], addresses: LIS3MDLDatasheet.addresses,
              idRegister: LIS3MDLDatasheet.Register.whoAmI.rawValue, idValues: [LIS3MDLDatasheet.whoAmIValue],
              description: "ST LIS3MDL 3-axis magnetometer"),
        Entry(name: "mpu6050", kinds: [.accelerometer, .gyroscope, .thermometer], addresses: MPU6xxxDatasheet.addresses,
              idRegister: MPU6xxxDatasheet.Register.whoAmI.rawValue, idValues: MPUVariant.mpu6050.whoAmIValues,
              description: "InvenSense MPU-6050 6-axis accelerometer and gyroscope"),
        Entry(name: "mpu6500", kinds: [.accelerometer, .gyroscope, .thermometer], addresses: MPU6xxxDatasheet.addresses,
              idRegister: MPU6xxxDatasheet.Register.whoAmI.rawValue, idValues: MPUVariant.mpu6500.whoAmIValues,
              description: "InvenSense MPU-6500 6-axis accelerometer and gyroscope"),
        Entry(name: "mpu9250", kinds: [.accelerometer, .gyroscope, .magnetometer, .thermometer],
              addresses: MPU6xxxDatasheet.addresses,
              idRegister: MPU6xxxDatasheet.Register.whoAmI.rawValue, idValues: MPUVariant.mpu9250.whoAmIValues,
              description: "InvenSense MPU-9250/9255 9-axis accelerometer, gyroscope and AK8963 magnetometer"),
        // Before the AK8963: an AK09916 also reads 0x48 at 0x00 (WIA1); its WIA2 (0x01) = 0x09 tells them apart.
        Entry(name: "ak09916", kinds: [.magnetometer], addresses: AK09916Datasheet.addresses,
              idRegister: AK09916Datasheet.Register.wia2.rawValue, idValues: [AK09916Datasheet.wia2Value],
              description: "AKM AK09916 3-axis magnetometer (inside the ICM-20948, at 0x0C once its bypass is on)"),
        Entry(name: "ak8963", kinds: [.magnetometer], addresses: AK8963Datasheet.addresses,
              idRegister: AK8963Datasheet.Register.wia.rawValue, idValues: [AK8963Datasheet.wiaValue],
              description: "AKM AK8963 3-axis magnetometer (inside the MPU-9250, at 0x0C once its bypass is on)"),
        // Issue 3, IMUs.
        Entry(name: "icm20948", kinds: [.accelerometer, .gyroscope, .magnetometer, .thermometer], addresses: ICM20948Datasheet.addresses,
              idRegister: ICM20948Datasheet.Register.whoAmI.rawValue, idValues: [ICM20948Datasheet.whoAmIValue],
              description: "TDK InvenSense ICM-20948 9-axis accelerometer, gyroscope and AK09916 magnetometer (read through its I2C master)"),
        Entry(name: "lsm6ds3", kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM6DSxDatasheet.addresses,
              idRegister: LSM6DSxDatasheet.Register.whoAmI.rawValue, idValues: [LSM6DSxVariant.lsm6ds3.whoAmI],
              description: "ST LSM6DS3 6-axis accelerometer and gyroscope"),
        Entry(name: "lsm6dsl", kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM6DSxDatasheet.addresses,
              idRegister: LSM6DSxDatasheet.Register.whoAmI.rawValue, idValues: [LSM6DSxVariant.lsm6dsl.whoAmI],
              description: "ST LSM6DSL (or LSM6DS3TR-C) 6-axis accelerometer and gyroscope"),
        Entry(name: "lsm6dsox", kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM6DSxDatasheet.addresses,
              idRegister: LSM6DSxDatasheet.Register.whoAmI.rawValue, idValues: [LSM6DSxVariant.lsm6dsox.whoAmI],
              description: "ST LSM6DSOX 6-axis accelerometer and gyroscope"),
        Entry(name: "lsm9ds1", kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM9DS1Datasheet.addresses,
              idRegister: LSM9DS1Datasheet.Register.whoAmI.rawValue, idValues: [LSM9DS1Datasheet.whoAmIValue],
              description: "ST LSM9DS1 accelerometer and gyroscope (its magnetometer is the separate device lsm9ds1-mag)"),
        Entry(name: "lsm9ds1-mag", kinds: [.magnetometer], addresses: LSM9DS1MagnetometerDatasheet.addresses,
              idRegister: LSM9DS1MagnetometerDatasheet.Register.whoAmI.rawValue, idValues: [LSM9DS1MagnetometerDatasheet.whoAmIValue],
              description: "ST LSM9DS1 magnetometer (same identity as the LIS3MDL: scan names it so when an LSM9DS1 shares the bus)"),
        Entry(name: "adxl345", kinds: [.accelerometer], addresses: ADXL345Datasheet.addresses,
              idRegister: ADXL345Datasheet.Register.devid.rawValue, idValues: [ADXL345Datasheet.devidValue],
              description: "Analog Devices ADXL345 3-axis accelerometer"),
    ]

    /// The names `makeDriver` accepts, in table order.
    public static var names: [String] { entries.map(\.name) }

    /// The entry named `name` (case-insensitive), if any.
    public static func entry(named name: String) -> Entry? {
        let key = name.lowercased()
        return entries.first { $0.name == key }
    }

    /// The entries whose chip can sit at `address`.
    public static func candidates(at address: UInt8) -> [Entry] {
        entries.filter { $0.addresses.contains(address) }
    }

    /// Identifies the chip at `address` by reading the ID register of each candidate for that address.
    /// Only reads, never writes; a NACK or any other bus error means "not this chip" and gives `nil` if no
    /// candidate matches. Each distinct ID register is read once.
    public static func identify<Bus: RegisterBus>(bus: Bus, address: UInt8) -> ChipIdentity? {
        var alreadyRead: [UInt8: UInt8?] = [:]
        for entry in candidates(at: address) {
            let value: UInt8?
            if let cached = alreadyRead[entry.idRegister] {
                value = cached
            } else {
                value = try? bus.readByte(address: address, register: entry.idRegister)
                alreadyRead[entry.idRegister] = .some(value)
            }
            if let value, entry.idValues.contains(value) {
                return ChipIdentity(chip: entry.name, idValue: value)
            }
        }
        return nil
    }

    /// Makes the driver for `chip` (one of `names`) at `address` (nil: the chip's default address) on `bus`.
    /// Does no I/O: call `probe()` next. `mpu6050`, `mpu6500` and `mpu9250` all make an `MPU6xxx` that insists on
    /// that variant.
    /// - Parameter delay: sleeps for the given microseconds, used only by `probe()` and mode changes.
    /// - Throws: `.unsupportedConfiguration` for an unknown name or an address the chip cannot have.
    public static func makeDriver<Bus: RegisterBus>(chip: String, bus: Bus, address: UInt8? = nil,
                                                    delay: @escaping @Sendable (Int) -> Void = { _ in })
        throws(SensorError) -> any SensorDriver {
        guard let entry = entry(named: chip) else {
            throw .unsupportedConfiguration(chip: chip, detail: "unknown chip; known chips: " + names.joined(separator: ", "))
        }
        let address = address ?? entry.addresses[0]
        guard entry.addresses.contains(address) else {
            throw .unsupportedConfiguration(
                chip: entry.name,
                detail: "address \(hex(address)) is not one the chip can have: "
                    + entry.addresses.map(hex).joined(separator: ", "))
        }
        switch entry.name {
        case "bmp280": return BMP280(bus: bus, address: address, delay: delay)
        case "lis3mdl": return LIS3MDL(bus: bus, address: address, delay: delay)
        case "mpu6050": return MPU6xxx(bus: bus, address: address, variant: .mpu6050, delay: delay)
        case "mpu6500": return MPU6xxx(bus: bus, address: address, variant: .mpu6500, delay: delay)
        case "mpu9250": return MPU6xxx(bus: bus, address: address, variant: .mpu9250, delay: delay)
        case "ak8963": return AK8963(bus: bus, address: address, delay: delay)
        case "ak09916": return AK09916(bus: bus, address: address, delay: delay)
        case "icm20948": return ICM20948(bus: bus, address: address, delay: delay)
        case "lsm6ds3": return LSM6DSx(bus: bus, address: address, variant: .lsm6ds3, delay: delay)
        case "lsm6dsl": return LSM6DSx(bus: bus, address: address, variant: .lsm6dsl, delay: delay)
        case "lsm6dsox": return LSM6DSx(bus: bus, address: address, variant: .lsm6dsox, delay: delay)
        case "lsm9ds1": return LSM9DS1(bus: bus, address: address, delay: delay)
        case "lsm9ds1-mag": return LSM9DS1Magnetometer(bus: bus, address: address, delay: delay)
        case "adxl345": return ADXL345(bus: bus, address: address, delay: delay)
        default:
            // Reached only if `entries` gains a name without a case here; LodestoneDrivers.docc/AddingADriver.md
            // lists both places.
            throw .unsupportedConfiguration(chip: entry.name, detail: "listed in ChipCatalog.entries but has no driver case")
        }
    }
}
