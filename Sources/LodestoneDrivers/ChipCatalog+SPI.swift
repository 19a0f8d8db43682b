import LodestoneCore

extension ChipCatalog {
    /// How each chip that can sit on SPI frames its register accesses (`SPIRegisterFraming`); a chip missing here is
    /// reached on I2C only (the AKM magnetometers, which sit behind an IMU; chips without an SPI interface).
    ///
    /// Sources: each chip's data sheet, SPI section (cited on `SPIRegisterFraming`'s cases). The MPU-6050 has no SPI;
    /// its SPI twin, the MPU-6000, answers the same `WHO_AM_I` and is read by the `mpu6050` driver.
    public static let spiFramings: [String: SPIRegisterFraming] = [
        "bmp280": .readBit7,
        "lis3mdl": .readBit7AutoIncrementBit6,
        "mpu6050": .readBit7,
        "mpu6500": .readBit7,
        "mpu9250": .readBit7,
        "icm20948": .readBit7,
        "lsm6ds3": .readBit7,
        "lsm6dsl": .readBit7,
        "lsm6dsox": .readBit7,
        "lsm9ds1": .readBit7,
        "lsm9ds1-mag": .readBit7AutoIncrementBit6,
        "adxl345": .readBit7MultiByteBit6,
    ]

    /// The SPI framing of `chip` (case-insensitive), or `nil` when the chip is not reached on SPI.
    public static func spiFraming(forChip chip: String) -> SPIRegisterFraming? { spiFramings[chip.lowercased()] }

    /// The catalog entries that can sit on SPI, in table order.
    public static var spiEntries: [Entry] { entries.filter { spiFramings[$0.name] != nil } }
}
