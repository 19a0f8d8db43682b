import Foundation
import LodestoneCore
import Testing

/// The SPI command byte per chip family, from each data sheet's SPI section, and the configuration's compatible
/// extension.
@Suite struct SPIRegisterFramingTests {
    /// PS-MPU-9250A-01 §7.5 / DS-000189 §6.4: read `WHO_AM_I` (0x75 / 0x00) is 0xF5 / 0x80; a write keeps bit 7 clear.
    /// The ST accelerometer/gyroscopes (IF_INC) and the BMP280 frame the same way.
    @Test func readBit7SetsOnlyTheReadFlag() {
        let f = SPIRegisterFraming.readBit7
        #expect(f.commandByte(register: 0x75, byteCount: 1, isRead: true) == 0xF5)
        #expect(f.commandByte(register: 0x3B, byteCount: 14, isRead: true) == 0xBB)
        #expect(f.commandByte(register: 0x6B, byteCount: 1, isRead: false) == 0x6B)
        #expect(f.commandByte(register: 0x00, byteCount: 1, isRead: true) == 0x80)
        #expect(f.highestRegister == 0x7F)
    }

    /// LIS3MDL DocID024204 §6.2 and LSM9DS1 DocID025715 §6.2.1: bit 7 R/W, bit 6 M/S (increment), 6-bit address. The
    /// driver's I2C auto-increment request (sub-address bit 7, as in `0x28 | 0x80`) becomes M/S.
    @Test func readBit7AutoIncrementBit6MovesST_sI2CIncrementBitToBit6() {
        let f = SPIRegisterFraming.readBit7AutoIncrementBit6
        #expect(f.commandByte(register: 0x28 | 0x80, byteCount: 6, isRead: true) == 0xE8)
        #expect(f.commandByte(register: 0x28, byteCount: 6, isRead: true) == 0xA8) // no increment asked: repeats OUT_X_L
        #expect(f.commandByte(register: 0x0F, byteCount: 1, isRead: true) == 0x8F)
        #expect(f.commandByte(register: 0x22, byteCount: 1, isRead: false) == 0x22)
        #expect(f.commandByte(register: 0x20 | 0x80, byteCount: 2, isRead: false) == 0x60)
        #expect(f.highestRegister == 0x3F)
    }

    /// ADXL345 rev. G, "SPI": bit 7 R/W, bit 6 MB for any multi-byte transfer, figures 37–39.
    @Test func readBit7MultiByteBit6SetsMBForBursts() {
        let f = SPIRegisterFraming.readBit7MultiByteBit6
        #expect(f.commandByte(register: 0x32, byteCount: 6, isRead: true) == 0xF2)
        #expect(f.commandByte(register: 0x00, byteCount: 1, isRead: true) == 0x80)
        #expect(f.commandByte(register: 0x2D, byteCount: 1, isRead: false) == 0x2D)
        #expect(f.commandByte(register: 0x1E, byteCount: 3, isRead: false) == 0x5E)
    }

    @Test func aConfigurationWrittenBeforeFIFOAndWakeOnMotionExistedStillDecodes() throws {
        let old = #"{"rateHz":100,"powerMode":"lowPower","oversampling":1,"accelerationRangeMps2":39.2}"#
        let c = try JSONDecoder().decode(SensorConfiguration.self, from: Data(old.utf8))
        #expect(c == SensorConfiguration(rateHz: 100, powerMode: .lowPower, accelerationRangeMps2: 39.2))
        #expect(c.fifo == .off && c.wakeOnMotionThresholdMps2 == nil)
        let new = SensorConfiguration(rateHz: 52, fifo: .stream, wakeOnMotionThresholdMps2: 0.5)
        #expect(try JSONDecoder().decode(SensorConfiguration.self, from: JSONEncoder().encode(new)) == new)
    }
}
