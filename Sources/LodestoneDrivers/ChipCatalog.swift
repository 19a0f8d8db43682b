import LodestoneCore

/// Every chip Lodestone has a driver for: what it measures, where it can sit, how to recognise it, and how to
/// make its driver. `lodestone scan` and board files go through here; the "Adding a chip driver" article
/// (`LodestoneDrivers.docc/AddingADriver.md`) lists every place a new chip is registered.
public enum ChipCatalog {
    /// One chip.
    public struct Entry: Sendable, Hashable {
        /// The chip.
        public var id: ChipID
        /// Canonical name, as used in board files (`bmp280`).
        public var name: String { id.rawValue }
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
        /// A stronger identity check that replaces the single ID byte, for chips whose one byte is weak (or absent).
        public var signature: Signature? = nil
    }

    /// An identity check beyond one ID byte. `identify` tries these before the single-byte IDs. Reads only.
    public enum Signature: Sendable, Hashable {
        /// Consecutive identity registers from `idRegister` hold these bytes (the HMC5883L's "H43").
        case idBytes([UInt8])
        /// No identity register: the eight PROM words of an MS5611 (0xA0…0xAE) pass its CRC-4 (TE AN520) with
        /// non-zero coefficients, which the registers of the other chips at 0x76/0x77 do not.
        case ms5611PROM
    }

    /// The table, one entry per driver name.
    public static let entries: [Entry] = [
        Entry(
            id: .bmp280, kinds: [.barometer, .thermometer], addresses: BMP280Datasheet.addresses,
            idRegister: BMP280Datasheet.Register.id.rawValue, idValues: BMP280Datasheet.chipIDs,
            description: "Bosch BMP280 barometric pressure and temperature sensor"),
        Entry(
            id: .lis3mdl, kinds: [.magnetometer, .thermometer], addresses: LIS3MDLDatasheet.addresses,
            idRegister: LIS3MDLDatasheet.Register.whoAmI.rawValue, idValues: [LIS3MDLDatasheet.whoAmIValue],
            description: "ST LIS3MDL 3-axis magnetometer"),
        Entry(
            id: .mpu6050, kinds: [.accelerometer, .gyroscope, .thermometer], addresses: MPU6xxxDatasheet.addresses,
            idRegister: MPU6xxxDatasheet.Register.whoAmI.rawValue, idValues: MPUVariant.mpu6050.whoAmIValues,
            description: "InvenSense MPU-6050 6-axis accelerometer and gyroscope"),
        Entry(
            id: .mpu6500, kinds: [.accelerometer, .gyroscope, .thermometer], addresses: MPU6xxxDatasheet.addresses,
            idRegister: MPU6xxxDatasheet.Register.whoAmI.rawValue, idValues: MPUVariant.mpu6500.whoAmIValues,
            description: "InvenSense MPU-6500 6-axis accelerometer and gyroscope"),
        Entry(
            id: .mpu9250, kinds: [.accelerometer, .gyroscope, .magnetometer, .thermometer],
            addresses: MPU6xxxDatasheet.addresses,
            idRegister: MPU6xxxDatasheet.Register.whoAmI.rawValue, idValues: MPUVariant.mpu9250.whoAmIValues,
            description: "InvenSense MPU-9250/9255 9-axis accelerometer, gyroscope and AK8963 magnetometer"),
        // Before the AK8963: an AK09916 also reads 0x48 at 0x00 (WIA1); its WIA2 (0x01) = 0x09 tells them apart.
        Entry(
            id: .ak09916, kinds: [.magnetometer], addresses: AK09916Datasheet.addresses,
            idRegister: AK09916Datasheet.Register.wia2.rawValue, idValues: [AK09916Datasheet.wia2Value],
            description: "AKM AK09916 3-axis magnetometer (inside the ICM-20948, at 0x0C once its bypass is on)"),
        Entry(
            id: .ak8963, kinds: [.magnetometer], addresses: AK8963Datasheet.addresses,
            idRegister: AK8963Datasheet.Register.wia.rawValue, idValues: [AK8963Datasheet.wiaValue],
            description: "AKM AK8963 3-axis magnetometer (inside the MPU-9250, at 0x0C once its bypass is on)"),
        // Issue 3, IMUs.
        Entry(
            id: .icm20948, kinds: [.accelerometer, .gyroscope, .magnetometer, .thermometer],
            addresses: ICM20948Datasheet.addresses,
            idRegister: ICM20948Datasheet.Register.whoAmI.rawValue, idValues: [ICM20948Datasheet.whoAmIValue],
            description:
                "TDK InvenSense ICM-20948 9-axis accelerometer, gyroscope and AK09916 magnetometer (read through its I2C master)"),
        Entry(
            id: .lsm6ds3, kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM6DSxDatasheet.addresses,
            idRegister: LSM6DSxDatasheet.Register.whoAmI.rawValue, idValues: [LSM6DSxVariant.lsm6ds3.whoAmI],
            description: "ST LSM6DS3 6-axis accelerometer and gyroscope"),
        Entry(
            id: .lsm6dsl, kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM6DSxDatasheet.addresses,
            idRegister: LSM6DSxDatasheet.Register.whoAmI.rawValue, idValues: [LSM6DSxVariant.lsm6dsl.whoAmI],
            description: "ST LSM6DSL (or LSM6DS3TR-C) 6-axis accelerometer and gyroscope"),
        Entry(
            id: .lsm6dsox, kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM6DSxDatasheet.addresses,
            idRegister: LSM6DSxDatasheet.Register.whoAmI.rawValue, idValues: [LSM6DSxVariant.lsm6dsox.whoAmI],
            description: "ST LSM6DSOX 6-axis accelerometer and gyroscope"),
        Entry(
            id: .lsm9ds1, kinds: [.accelerometer, .gyroscope, .thermometer], addresses: LSM9DS1Datasheet.addresses,
            idRegister: LSM9DS1Datasheet.Register.whoAmI.rawValue, idValues: [LSM9DS1Datasheet.whoAmIValue],
            description: "ST LSM9DS1 accelerometer and gyroscope (its magnetometer is the separate device lsm9ds1-mag)"),
        Entry(
            id: .lsm9ds1Magnetometer, kinds: [.magnetometer], addresses: LSM9DS1MagnetometerDatasheet.addresses,
            idRegister: LSM9DS1MagnetometerDatasheet.Register.whoAmI.rawValue,
            idValues: [LSM9DS1MagnetometerDatasheet.whoAmIValue],
            description: "ST LSM9DS1 magnetometer (same identity as the LIS3MDL: scan names it so when an LSM9DS1 shares the bus)"
        ),
        Entry(
            id: .adxl345, kinds: [.accelerometer], addresses: ADXL345Datasheet.addresses,
            idRegister: ADXL345Datasheet.Register.devid.rawValue, idValues: [ADXL345Datasheet.devidValue],
            description: "Analog Devices ADXL345 3-axis accelerometer"),
        // Barometers and magnetometers of the driver catalogue (issue 3, part A).
        Entry(
            id: .bme280, kinds: [.barometer, .thermometer], addresses: BME280Datasheet.addresses,
            idRegister: BME280Datasheet.Register.id.rawValue, idValues: [BME280Datasheet.chipID],
            description: "Bosch BME280 pressure, temperature and humidity sensor"),
        Entry(
            id: .bmp388, kinds: [.barometer, .thermometer], addresses: BMP3xxDatasheet.addresses,
            idRegister: BMP3xxDatasheet.Register.chipID.rawValue, idValues: [BMP3Variant.bmp388.chipID],
            description: "Bosch BMP388 barometric pressure and temperature sensor"),
        Entry(
            id: .bmp390, kinds: [.barometer, .thermometer], addresses: BMP3xxDatasheet.addresses,
            idRegister: BMP3xxDatasheet.Register.chipID.rawValue, idValues: [BMP3Variant.bmp390.chipID],
            description: "Bosch BMP390 barometric pressure and temperature sensor"),
        Entry(
            id: .ms5611, kinds: [.barometer, .thermometer], addresses: MS5611Datasheet.addresses,
            idRegister: MS5611Datasheet.promAddress(word: 7), idValues: [],
            description: "TE MS5611-01BA03 barometric pressure sensor (no ID register: recognised by its PROM CRC-4; "
                + "a part that has not been reset since power-on may not show its PROM until `lodestone read` resets it)",
            signature: .ms5611PROM),
        Entry(
            id: .lps22hb, kinds: [.barometer, .thermometer], addresses: LPS22HBDatasheet.addresses,
            idRegister: LPS22HBDatasheet.Register.whoAmI.rawValue, idValues: [LPS22HBDatasheet.whoAmIValue],
            description: "ST LPS22HB barometric pressure sensor"),
        Entry(
            id: .lps25h, kinds: [.barometer, .thermometer], addresses: LPS25HDatasheet.addresses,
            idRegister: LPS25HDatasheet.Register.whoAmI.rawValue, idValues: [LPS25HDatasheet.whoAmIValue],
            description: "ST LPS25H barometric pressure sensor (Raspberry Pi Sense HAT)"),
        Entry(
            id: .hmc5883l, kinds: [.magnetometer], addresses: HMC5883LDatasheet.addresses,
            idRegister: HMC5883LDatasheet.Register.identificationA.rawValue, idValues: [HMC5883LDatasheet.identification[0]],
            description: "Honeywell HMC5883L 3-axis magnetometer", signature: .idBytes(HMC5883LDatasheet.identification)),
        Entry(
            id: .qmc5883l, kinds: [.magnetometer], addresses: QMC5883LDatasheet.addresses,
            idRegister: QMC5883LDatasheet.Register.chipID.rawValue, idValues: [QMC5883LDatasheet.chipIDValue],
            description: "QST QMC5883L 3-axis magnetometer (on many \"HMC5883L\" GY-271 boards)"),
        Entry(
            id: .mmc5983ma, kinds: [.magnetometer], addresses: MMC5983MADatasheet.addresses,
            idRegister: MMC5983MADatasheet.Register.productID.rawValue, idValues: [MMC5983MADatasheet.productIDValue],
            description: "MEMSIC MMC5983MA 3-axis magnetometer")
    ]

    /// The names `makeDriver` accepts, in table order.
    public static var names: [String] { entries.map(\.name) }

    /// The entry named `name` (case-insensitive), if any.
    public static func entry(named name: String) -> Entry? {
        ChipID(name: name).map(entry)
    }

    /// The entry of `id`.
    public static func entry(_ id: ChipID) -> Entry {
        // Every ChipID has an entry (ChipCatalogTests checks the table against ChipID.allCases).
        entries.first { $0.id == id }!
    }

    /// The initial zero-rate output (bias) tolerance of `id`'s gyroscope at 25 °C, °/s, as its data sheet bounds it;
    /// `nil` for chips without a gyroscope and for those whose data sheet gives only a typical zero-rate level, not
    /// a bound (the ST parts): the orientation filter then keeps its default. The filter believes biases up to this
    /// (`OrientationFilter.Parameters.biasLimitDegS`), so an uncalibrated MPU-6050 is not vetoed at rest for good.
    /// - MPU-6000/6050: ±20 °/s (Product Specification PS-MPU-6000A-00 rev. 3.4, §6.1 "Initial ZRO Tolerance");
    /// - MPU-6500, MPU-9250: ±5 °/s (PS-MPU-6500A-01 rev. 1.1 and PS-MPU-9250A-01 rev. 1.1, §3.1);
    /// - ICM-20948: ±5 °/s (DS-000189 rev. 1.3, Table 1 "Initial ZRO Tolerance").
    public static func gyroscopeZeroRateToleranceDegS(_ id: ChipID) -> Double? {
        switch id {
        case .mpu6050: 20
        case .mpu6500, .mpu9250, .icm20948: 5
        default: nil
        }
    }

    /// The initial zero-g offset tolerance of `id`'s accelerometer on its horizontal (X, Y) axes at 25 °C, mg, as its
    /// data sheet bounds it; `nil` for chips without an accelerometer and for those whose data sheet gives only a
    /// typical offset. An uncalibrated board's heading accuracy includes the tilt this can cause
    /// (`OrientationFilter.Parameters.accelerometerOffsetSigmaMps2`).
    /// - MPU-6000/6050: ±50 mg (PS-MPU-6000A-00 rev. 3.4, §6.2 "Zero-G Initial Calibration Tolerance", X and Y);
    /// - MPU-6500, MPU-9250: ±60 mg (PS-MPU-6500A-01 rev. 1.1 and PS-MPU-9250A-01 rev. 1.0, §3.2, X and Y).
    public static func accelerometerZeroGToleranceMg(_ id: ChipID) -> Double? {
        switch id {
        case .mpu6050: 50
        case .mpu6500, .mpu9250: 60
        default: nil
        }
    }

    /// The entries whose chip can sit at `address`.
    public static func candidates(at address: UInt8) -> [Entry] {
        entries.filter { $0.addresses.contains(address) }
    }

    /// Identifies the chip at `address` by reading the ID register of each candidate for that address, after the
    /// stronger `signature` checks of the candidates that have one. Only reads, never writes. A NACK means nothing
    /// answers (the search stops); any other bus error means "not this chip". `nil` if no candidate matches. Each
    /// distinct ID register is read once.
    public static func identify<Bus: RegisterBus>(bus: Bus, address: UInt8) -> ChipIdentity? {
        let candidates = candidates(at: address)
        for entry in candidates {
            switch entry.signature {
            case .idBytes(let bytes)?:
                var found = [UInt8](repeating: 0, count: bytes.count)
                let ok: Bool? = found.withUnsafeMutableBytes { buffer in
                    do throws(BusError) {
                        try bus.read(address: address, register: entry.idRegister, into: buffer)
                        return true
                    } catch {
                        return error.kind == .nack ? nil : false
                    }
                }
                guard let ok else { return nil }
                if ok, found == bytes { return ChipIdentity(chip: entry.name, idValue: bytes[0]) }
            case .ms5611PROM?:
                do {
                    _ = try bus.readByte(address: address, register: MS5611Datasheet.promAddress(word: 0))
                } catch { if error.kind == .nack { return nil } }
                if let prom = MS5611Datasheet.validPROM(bus: bus, address: address) {
                    return ChipIdentity(chip: entry.name, idValue: prom.storedCRC)
                }
            case nil:
                continue
            }
        }
        var alreadyRead: [UInt8: UInt8?] = [:]
        for entry in candidates where entry.signature == nil {
            let value: UInt8?
            if let cached = alreadyRead[entry.idRegister] {
                value = cached
            } else {
                do {
                    value = try bus.readByte(address: address, register: entry.idRegister)
                } catch {
                    if error.kind == .nack { return nil }
                    value = nil
                }
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
    public static func makeDriver<Bus: RegisterBus>(
        chip: String, bus: Bus, address: UInt8? = nil,
        delay: @escaping @Sendable (Int) -> Void = { _ in }
    )
        throws(SensorError) -> any SensorDriver
    {
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
        switch entry.id {
        case .bmp280: return BMP280(bus: bus, address: address, delay: delay)
        case .lis3mdl: return LIS3MDL(bus: bus, address: address, delay: delay)
        case .mpu6050: return MPU6xxx(bus: bus, address: address, variant: .mpu6050, delay: delay)
        case .mpu6500: return MPU6xxx(bus: bus, address: address, variant: .mpu6500, delay: delay)
        case .mpu9250: return MPU6xxx(bus: bus, address: address, variant: .mpu9250, delay: delay)
        case .ak8963: return AK8963(bus: bus, address: address, delay: delay)
        case .ak09916: return AK09916(bus: bus, address: address, delay: delay)
        case .icm20948: return ICM20948(bus: bus, address: address, delay: delay)
        case .lsm6ds3: return LSM6DSx(bus: bus, address: address, variant: .lsm6ds3, delay: delay)
        case .lsm6dsl: return LSM6DSx(bus: bus, address: address, variant: .lsm6dsl, delay: delay)
        case .lsm6dsox: return LSM6DSx(bus: bus, address: address, variant: .lsm6dsox, delay: delay)
        case .lsm9ds1: return LSM9DS1(bus: bus, address: address, delay: delay)
        case .lsm9ds1Magnetometer: return LSM9DS1Magnetometer(bus: bus, address: address, delay: delay)
        case .adxl345: return ADXL345(bus: bus, address: address, delay: delay)
        case .bme280: return BME280(bus: bus, address: address, delay: delay)
        case .bmp388: return BMP3xx(bus: bus, address: address, variant: .bmp388, delay: delay)
        case .bmp390: return BMP3xx(bus: bus, address: address, variant: .bmp390, delay: delay)
        case .ms5611: return MS5611(bus: bus, address: address, delay: delay)
        case .lps22hb: return LPS22HB(bus: bus, address: address, delay: delay)
        case .lps25h: return LPS25H(bus: bus, address: address, delay: delay)
        case .hmc5883l: return HMC5883L(bus: bus, address: address, delay: delay)
        case .qmc5883l: return QMC5883L(bus: bus, address: address, delay: delay)
        case .mmc5983ma: return MMC5983MA(bus: bus, address: address, delay: delay)
        }
    }
}
