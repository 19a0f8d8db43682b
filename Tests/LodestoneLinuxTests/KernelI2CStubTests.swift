import Glibc
import LodestoneCore
import Testing
@testable import LodestoneLinux

/// I2CDevBus against the real kernel: i2c-dev over i2c-stub, with the bmp280 driver bound at 0x76 (so plain
/// I2C_SLAVE gives EBUSY). Runs only under the kernel-vm tool (../shared/tools/kernel-vm), which sets
/// `LODESTONE_I2C_STUB_BUS` to the stub's bus number; the register presets are the tool's `chip_bmp280`
/// (Bosch BMP280 datasheet §3.12 worked example).
@Suite(.serialized, .enabled(if: KernelStub.bus != nil, "set LODESTONE_I2C_STUB_BUS: runs in the kernel-vm QEMU guest"))
struct KernelI2CStub {
    static let bmp280: UInt8 = 0x76
    static let calibration: [UInt8] = [
        0x70, 0x6b, 0x43, 0x67, 0x18, 0xfc, 0x7d, 0x8e, 0x43, 0xd6, 0xd0, 0x0b,
        0x27, 0x0b, 0x8c, 0x00, 0xf9, 0xff, 0x8c, 0x3c, 0xf8, 0xc6, 0x70, 0x17
    ]

    func open() throws -> I2CDevBus { try I2CDevBus(path: "/dev/i2c-\(KernelStub.bus ?? -1)") }

    @Test func stubIsSMBusOnlyAndListed() throws {
        let bus = try open()
        #expect(bus.functionality.contains([.smbusReadByteData, .smbusReadI2CBlock, .smbusWriteI2CBlock, .smbusQuick]))
        #expect(!bus.functionality.contains(.i2c))
        #expect(I2CDevBus.availableBuses().contains(bus.name))
    }

    @Test func readsTheBMP280ThroughLibi2cForcingTheDriverOwnedAddress() throws {
        let bus = try open()
        #expect(try bus.readByte(address: Self.bmp280, register: 0xD0) == 0x58)
        #expect(bus.forcedAddresses == [Self.bmp280])
        #expect(bus.notes.first?.contains("I2C_SLAVE_FORCE") == true)
        var calibration = [UInt8](repeating: 0, count: 24)
        try calibration.withUnsafeMutableBytes { p in try bus.read(address: Self.bmp280, register: 0x88, into: p) }
        #expect(calibration == Self.calibration)
        var adc = [UInt8](repeating: 0, count: 6)
        try adc.withUnsafeMutableBytes { p in try bus.read(address: Self.bmp280, register: 0xF7, into: p) }
        #expect(adc == [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00])
    }

    /// Registers 0x00–0x3F are unused on the BMP280, so the driver never looks at them.
    @Test func writesAndReadsBackIncludingSplitTransfersLongerThan32Bytes() throws {
        let bus = try open()
        let pattern = (0..<40).map { UInt8(0xA0 &+ $0) }
        try pattern.withUnsafeBytes { p in try bus.write(address: Self.bmp280, register: 0x00, bytes: p) }
        var back = [UInt8](repeating: 0, count: 40)
        try back.withUnsafeMutableBytes { p in try bus.read(address: Self.bmp280, register: 0x00, into: p) }
        #expect(back == pattern)
        try bus.writeByte(address: Self.bmp280, register: 0x30, value: 0x5A)
        #expect(try bus.readByte(address: Self.bmp280, register: 0x30) == 0x5A)
        try bus.update(address: Self.bmp280, register: 0x30, field: BitField(mask: 0x0F), to: 0x3)
        #expect(try bus.readByte(address: Self.bmp280, register: 0x30) == 0x53)
    }

    /// `RegisterBus.readFIFO` on the kernel's SMBus-only adapter: every piece is one ≤ 32-byte I2C block read at the
    /// FIFO register, in whole frames. i2c-stub answers a block read at R with registers R, R+1, …, so each piece shows
    /// where it started; a plain split read would have gone on at R + 32.
    @Test func fifoReadsRestartEveryPieceAtTheFIFORegisterInWholeFrames() throws {
        let bus = try open()
        let pattern = (0..<64).map { UInt8(0x40 &+ $0) }
        try pattern.withUnsafeBytes { p in try bus.write(address: Self.bmp280, register: 0x00, bytes: p) }
        #expect(bus.maximumReadBytes == 32)
        let window = Array(pattern[0x10..<0x30])
        var slots = [UInt8](repeating: 0, count: 75) // 15 five-byte slots (an LPS22HB's FIFO window): 30 + 30 + 15
        try slots.withUnsafeMutableBytes { p in try bus.readFIFO(address: Self.bmp280, register: 0x10, frameBytes: 5, into: p) }
        #expect(slots == Array(window[0..<30] + window[0..<30] + window[0..<15]))
        var port = [UInt8](repeating: 0, count: 40) // a port that does not advance (an ICM-20948's FIFO_R_W): 32 + 8
        try port.withUnsafeMutableBytes { p in try bus.readFIFO(address: Self.bmp280, register: 0x10, frameBytes: 1, into: p) }
        #expect(port == Array(window[0..<32] + window[0..<8]))
        var plain = [UInt8](repeating: 0, count: 40)
        try plain.withUnsafeMutableBytes { p in try bus.read(address: Self.bmp280, register: 0x10, into: p) }
        #expect(plain == Array(pattern[0x10..<0x38]))
    }

    @Test func splitReadPastRegister0xFFIsRefusedNotWrapped() throws {
        let bus = try open()
        var buffer = [UInt8](repeating: 0, count: 40)
        #expect {
            try buffer.withUnsafeMutableBytes { p in try bus.read(address: Self.bmp280, register: 0xF0, into: p) }
        } throws: { error in (error as? BusError)?.kind == .unsupported }
    }

    @Test func probesLikeI2cdetectWithoutWriting() throws {
        let bus = try open()
        #expect(bus.isPresent(address: Self.bmp280)) // claimed by bmp280: "UU"
        #expect(bus.isPresent(address: 0x1C)) // lis3mdl
        #expect(!bus.isPresent(address: 0x50)) // receive-byte range, nothing there
        #expect(!bus.isPresent(address: 0x11)) // quick-write range, nothing there
        #expect(!bus.isPresent(address: 0x02)) // reserved
    }

    @Test func aMissingChipIsATypedErrorWithAddressRegisterAndErrno() throws {
        let bus = try open()
        #expect {
            _ = try bus.readByte(address: 0x11, register: 0x42)
        } throws: { error in
            guard let e = error as? BusError else { return false }
            // i2c-stub answers an empty address with ENODEV; real adapters give ENXIO or EREMOTEIO (NACK).
            return e.address == 0x11 && e.register == 0x42 && e.errno != 0 && e.operation.contains("read 1 byte")
        }
    }
}

enum KernelStub {
    static let bus: Int? = getenv("LODESTONE_I2C_STUB_BUS").flatMap { Int(String(cString: $0)) }
}
