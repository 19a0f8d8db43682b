import LodestoneCore

extension ChipID {
    /// How the chip frames its register accesses on SPI (`SPIRegisterFraming`); `nil` when it is reached on I2C only
    /// (the AKM magnetometers, which sit behind an IMU; chips without an SPI interface).
    ///
    /// Sources: each chip's data sheet, SPI section (cited on `SPIRegisterFraming`'s cases). The MPU-6050 has no SPI;
    /// its SPI twin, the MPU-6000, answers the same `WHO_AM_I` and is read by the `mpu6050` driver.
    public var spiFraming: SPIRegisterFraming? {
        switch self {
        case .bmp280, .mpu6050, .mpu6500, .mpu9250, .icm20948, .lsm6ds3, .lsm6dsl, .lsm6dsox, .lsm9ds1: .readBit7
        case .lis3mdl, .lsm9ds1Magnetometer: .readBit7AutoIncrementBit6
        case .adxl345: .readBit7MultiByteBit6
        case .ak09916, .ak8963, .bme280, .bmp388, .bmp390, .ms5611, .lps22hb, .lps25h, .hmc5883l, .qmc5883l, .mmc5983ma: nil
        }
    }
}

extension ChipCatalog {
    /// The SPI framing of each chip reached on SPI, by name (`ChipID.spiFraming`).
    public static var spiFramings: [String: SPIRegisterFraming] {
        Dictionary(uniqueKeysWithValues: ChipID.allCases.compactMap { id in id.spiFraming.map { (id.rawValue, $0) } })
    }

    /// The SPI framing of `chip` (case-insensitive), or `nil` when the chip is not reached on SPI.
    public static func spiFraming(forChip chip: String) -> SPIRegisterFraming? { ChipID(name: chip)?.spiFraming }

    /// The catalog entries that can sit on SPI, in table order.
    public static var spiEntries: [Entry] { entries.filter { $0.id.spiFraming != nil } }
}
