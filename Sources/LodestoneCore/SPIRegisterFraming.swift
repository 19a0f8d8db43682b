/// How a chip family frames a register access on SPI: the first byte of every transfer (chip select held low)
/// carries the register address and the read and increment flags; the data bytes follow.
///
/// Drivers name registers as they would on I2C, so they stay bus-agnostic: the register as sent on I2C, including
/// ST's I2C auto-increment request in bit 7 of the sub-address for the parts that have one (LIS3MDL, LSM9DS1
/// magnetometer). A `RegisterBus` on SPI turns that into the command byte with `commandByte(register:byteCount:isRead:)`.
public enum SPIRegisterFraming: String, Sendable, Hashable, Codable, CaseIterable {
    /// Bit 7 = 1 to read, 0 to write; bits 6…0 the register; the address increments over a multi-byte transfer.
    /// InvenSense MPU-6000/6500/9250 (PS-MPU-9250A-01 §7.5) and ICM-20948 (DS-000189 §6.4), Bosch BMP280
    /// (BST-BMP280-DS001 §5.3), ST LSM6DS3/DSL/DSOX (their `IF_INC` bit, set at reset) and the LSM9DS1
    /// accelerometer/gyroscope (`IF_ADD_INC`, set at reset).
    case readBit7
    /// Bit 7 = read, bit 6 (`M/S`) = increment the address, bits 5…0 the register: ST LIS3MDL (DocID024204 §6.2)
    /// and the LSM9DS1 magnetometer (DocID025715 §6.2.1). The I2C auto-increment request a driver puts in bit 7 of
    /// the register becomes bit 6; without it a multi-byte transfer reads one register again and again.
    case readBit7AutoIncrementBit6
    /// Bit 7 = read, bit 6 (`MB`) = multi-byte, bits 5…0 the register: ADI ADXL345 (data sheet rev. G, "SPI",
    /// figures 37–39). `MB` is set for every transfer of more than one byte.
    case readBit7MultiByteBit6

    /// The read flag, bit 7, common to all three framings.
    public static let readFlag: UInt8 = 0x80
    /// The increment (`M/S`) or multi-byte (`MB`) flag, bit 6.
    public static let incrementFlag: UInt8 = 0x40

    /// The first byte of an SPI transfer of `byteCount` data bytes to or from `register` (I2C form, see the type).
    @inlinable public func commandByte(register: UInt8, byteCount: Int, isRead: Bool) -> UInt8 {
        let read = isRead ? Self.readFlag : 0
        switch self {
        case .readBit7:
            return (register & 0x7F) | read
        case .readBit7AutoIncrementBit6:
            let increment = register & 0x80 != 0 ? Self.incrementFlag : 0
            return (register & 0x3F) | increment | read
        case .readBit7MultiByteBit6:
            return (register & 0x3F) | (byteCount > 1 ? Self.incrementFlag : 0) | read
        }
    }

    /// The highest register the framing can address: 0x7F, or 0x3F where bit 6 is a flag.
    public var highestRegister: UInt8 { self == .readBit7 ? 0x7F : 0x3F }
}
