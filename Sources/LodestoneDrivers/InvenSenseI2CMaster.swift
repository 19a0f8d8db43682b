import LodestoneCore

/// How an InvenSense IMU's auxiliary I2C bus (where its magnetometer sits) is reached.
public enum AuxiliaryBusAccess: String, Sendable, Hashable, CaseIterable {
    /// `INT_PIN_CFG.BYPASS_EN`: the auxiliary bus is joined to the host's I2C bus, so the magnetometer answers at
    /// its own address there. I2C hosts only.
    case bypass
    /// The IMU's own I2C master: slave 4 for single-byte transfers (probe, configuration) and slave 0 reading the
    /// magnetometer's data into `EXT_SENS_DATA` at the IMU's sample rate. Works over SPI too.
    case i2cMaster
}

/// Where an InvenSense I2C master's registers are: MPU-9250 register map RM-MPU-9250A-00 registers 36–53 and
/// 99–103, ICM-20948 DS-000189 §8 (user bank 3 for the slave registers, bank 0 for the status).
public struct InvenSenseI2CMasterLayout: Sendable, Hashable {
    /// A register of the host chip: its user bank (`nil` on chips without banks) and address.
    public struct Location: Sendable, Hashable {
        public var bank: UInt8?
        public var register: UInt8
        public init(bank: UInt8?, _ register: UInt8) { self.bank = bank; self.register = register }
    }

    /// `REG_BANK_SEL` (its `USER_BANK` field is bits 5:4), on chips with banks.
    public var bankSelect: UInt8?
    public var i2cMstCtrl: Location
    public var i2cSlv0Addr: Location
    public var i2cSlv0Reg: Location
    public var i2cSlv0Ctrl: Location
    public var i2cSlv4Addr: Location
    public var i2cSlv4Reg: Location
    public var i2cSlv4Ctrl: Location
    public var i2cSlv4Do: Location
    public var i2cSlv4Di: Location
    public var i2cMstStatus: Location
    /// `EXT_SENS_DATA_00` (MPU-9250) / `EXT_SLV_SENS_DATA_00` (ICM-20948): where slave 0's bytes land.
    public var extSensData00: Location

    /// MPU-9250 / MPU-6500 (RM-MPU-9250A-00).
    public static let mpu9250 = InvenSenseI2CMasterLayout(
        bankSelect: nil, i2cMstCtrl: .init(bank: nil, 0x24),
        i2cSlv0Addr: .init(bank: nil, 0x25), i2cSlv0Reg: .init(bank: nil, 0x26), i2cSlv0Ctrl: .init(bank: nil, 0x27),
        i2cSlv4Addr: .init(bank: nil, 0x31), i2cSlv4Reg: .init(bank: nil, 0x32), i2cSlv4Ctrl: .init(bank: nil, 0x34),
        i2cSlv4Do: .init(bank: nil, 0x33), i2cSlv4Di: .init(bank: nil, 0x35), i2cMstStatus: .init(bank: nil, 0x36),
        extSensData00: .init(bank: nil, 0x49))

    /// ICM-20948 (DS-000189 §8–§14): slave registers in user bank 3, status and data in bank 0.
    public static let icm20948 = InvenSenseI2CMasterLayout(
        bankSelect: 0x7F, i2cMstCtrl: .init(bank: 3, 0x01),
        i2cSlv0Addr: .init(bank: 3, 0x03), i2cSlv0Reg: .init(bank: 3, 0x04), i2cSlv0Ctrl: .init(bank: 3, 0x05),
        i2cSlv4Addr: .init(bank: 3, 0x13), i2cSlv4Reg: .init(bank: 3, 0x14), i2cSlv4Ctrl: .init(bank: 3, 0x15),
        i2cSlv4Do: .init(bank: 3, 0x16), i2cSlv4Di: .init(bank: 3, 0x17), i2cMstStatus: .init(bank: 0, 0x17),
        extSensData00: .init(bank: 0, 0x3B))

    /// Fields shared by both chips.
    public enum Field {
        /// `I2C_SLVx_ADDR.I2C_SLVx_RNW`: 1 = read from the slave.
        public static let rnw = BitField(mask: 0b1000_0000)
        /// `I2C_SLVx_CTRL.I2C_SLVx_EN`.
        public static let slvEn = BitField(mask: 0b1000_0000)
        /// `I2C_SLV0_CTRL.I2C_SLV0_LENG`: bytes slave 0 reads each sample (0…15).
        public static let slvLeng = BitField(mask: 0b0000_1111)
        /// `I2C_MST_STATUS.I2C_SLV4_DONE`.
        public static let slv4Done = BitField(mask: 0b0100_0000)
        /// `I2C_MST_STATUS.I2C_SLV4_NACK`.
        public static let slv4Nack = BitField(mask: 0b0001_0000)
        /// `I2C_MST_CTRL.I2C_MST_CLK`: 7 gives 345.6 kHz on the ICM-20948 (its recommended value), 13 gives 400 kHz
        /// on the MPU-9250.
        public static let i2cMstClk = BitField(mask: 0b0000_1111)
        /// `REG_BANK_SEL.USER_BANK`.
        public static let userBank = BitField(mask: 0b0011_0000)
    }
}

/// A `RegisterBus` on an InvenSense IMU's auxiliary I2C bus, through the IMU's I2C master: each byte is one slave-4
/// transaction (write `I2C_SLV4_ADDR`, `_REG`, `_DO`, `_CTRL.EN`; wait for `I2C_MST_STATUS.I2C_SLV4_DONE`; a read
/// then fetches `I2C_SLV4_DI`). Slow (a few transfers and up to a sample period per byte): for probing and
/// configuring a magnetometer, never the sample path, which uses slave 0 and `EXT_SENS_DATA`.
///
/// The host driver enables the master (`USER_CTRL.I2C_MST_EN`) and its clock first. On chips with register banks
/// this bus leaves the host in bank 0, the bank the host's sample path uses. A slave that does not answer gives a
/// `.nack` error naming this bus and the slave's address; a master that never reports done gives `.timeout`.
public final class InvenSenseI2CMaster<Host: RegisterBus>: RegisterBus {
    /// `<host bus> <host address> I2C master`, e.g. `/dev/spidev0.1 0x68 I2C master`.
    public let name: String
    /// The bus the IMU is on.
    public let host: Host
    /// The IMU's address on `host`.
    public let hostAddress: UInt8
    /// The IMU's register layout.
    public let layout: InvenSenseI2CMasterLayout
    /// Sleeps for the given microseconds between polls of `I2C_MST_STATUS`.
    public let delay: @Sendable (Int) -> Void
    /// Polls of `I2C_MST_STATUS` before giving up on one transaction.
    public let pollAttempts: Int
    /// Time between polls, µs: the slave-4 transaction runs at the master's next cycle (≤ 1 ms at the 1 kHz and
    /// 1.1 kHz internal rates).
    public let pollIntervalUs: Int

    /// A bus through the I2C master of the IMU at `hostAddress` on `host`. Does no I/O.
    public init(
        host: Host, hostAddress: UInt8, layout: InvenSenseI2CMasterLayout, pollAttempts: Int = 20,
        pollIntervalUs: Int = 1000, delay: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.host = host; self.hostAddress = hostAddress; self.layout = layout
        self.pollAttempts = max(1, pollAttempts); self.pollIntervalUs = pollIntervalUs; self.delay = delay
        self.name = "\(host.name) \(hex(hostAddress)) I2C master"
    }

    /// The auxiliary bus is I2C, whatever the host's wire.
    public var transport: BusTransport { .i2c }

    /// Reads `buffer.count` registers from `register` on, one slave-4 read each.
    public func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(BusError) {
        for i in 0..<buffer.count {
            buffer[i] = try transaction(address: address, register: register &+ UInt8(truncatingIfNeeded: i), write: nil)
        }
    }

    /// Writes `bytes` to `register` on, one slave-4 write each.
    public func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws(BusError) {
        for i in 0..<bytes.count {
            _ = try transaction(address: address, register: register &+ UInt8(truncatingIfNeeded: i), write: bytes[i])
        }
    }

    /// True when a slave-4 read of register 0 at `address` is acknowledged.
    public func isPresent(address: UInt8) -> Bool {
        (try? transaction(address: address, register: 0, write: nil)) != nil
    }

    /// Points slave 0 at `register` of the slave at `address`, reading `count` (1…15) bytes into `EXT_SENS_DATA_00…`
    /// at every sample, or turns slave 0 off when `count` is 0. The host's sample path then reads them from there.
    public func setSlave0Read(address: UInt8, register: UInt8, count: Int) throws(BusError) {
        typealias F = InvenSenseI2CMasterLayout.Field
        if count > 0 {
            try hostWrite(layout.i2cSlv0Addr, F.rnw.inserting(1, into: address & 0x7F))
            try hostWrite(layout.i2cSlv0Reg, register)
            try hostWrite(layout.i2cSlv0Ctrl, F.slvEn.inserting(1, into: F.slvLeng.inserting(UInt8(min(count, 15)), into: 0)))
        } else {
            try hostWrite(layout.i2cSlv0Ctrl, 0)
        }
        try selectBank(0)
    }

    // MARK: - private

    private var currentBank: UInt8 = 0

    /// One slave-4 transaction; returns `I2C_SLV4_DI` for a read (`write == nil`). Leaves the host in bank 0,
    /// also when it fails (as far as the host still answers).
    private func transaction(address: UInt8, register: UInt8, write value: UInt8?) throws(BusError) -> UInt8 {
        do {
            let result = try unbankedTransaction(address: address, register: register, write: value)
            try selectBank(0)
            return result
        } catch {
            try? selectBank(0)
            throw error
        }
    }

    private func unbankedTransaction(address: UInt8, register: UInt8, write value: UInt8?) throws(BusError) -> UInt8 {
        typealias F = InvenSenseI2CMasterLayout.Field
        try hostWrite(layout.i2cSlv4Addr, F.rnw.inserting(value == nil ? 1 : 0, into: address & 0x7F))
        try hostWrite(layout.i2cSlv4Reg, register)
        if let value { try hostWrite(layout.i2cSlv4Do, value) }
        try hostWrite(layout.i2cSlv4Ctrl, F.slvEn.inserting(1, into: 0))
        var status: UInt8 = 0
        var attempt = 0
        repeat {
            if attempt > 0 { delay(pollIntervalUs) }
            status = try hostRead(layout.i2cMstStatus)
            attempt += 1
        } while F.slv4Done.extract(from: status) == 0 && F.slv4Nack.extract(from: status) == 0 && attempt < pollAttempts
        let what = value == nil ? "read 1 byte through the I2C master (slave 4)" : "write 1 byte through the I2C master (slave 4)"
        if F.slv4Nack.extract(from: status) == 1 {
            throw BusError(
                kind: .nack, bus: name, address: address, register: register, errno: BusError.Errno.EREMOTEIO,
                operation: what)
        }
        guard F.slv4Done.extract(from: status) == 1 else {
            throw BusError(
                kind: .timeout, bus: name, address: address, register: register, errno: BusError.Errno.ETIMEDOUT,
                operation: what + ": I2C_SLV4_DONE not set after \((pollAttempts - 1) * pollIntervalUs / 1000) ms")
        }
        return value == nil ? try hostRead(layout.i2cSlv4Di) : 0
    }

    private func selectBank(_ bank: UInt8) throws(BusError) {
        guard let bankSelect = layout.bankSelect, bank != currentBank else { return }
        try host.writeByte(
            address: hostAddress, register: bankSelect,
            value: InvenSenseI2CMasterLayout.Field.userBank.inserting(bank, into: 0))
        currentBank = bank
    }

    private func hostWrite(_ location: InvenSenseI2CMasterLayout.Location, _ value: UInt8) throws(BusError) {
        if let bank = location.bank { try selectBank(bank) }
        try host.writeByte(address: hostAddress, register: location.register, value: value)
    }

    private func hostRead(_ location: InvenSenseI2CMasterLayout.Location) throws(BusError) -> UInt8 {
        if let bank = location.bank { try selectBank(bank) }
        return try host.readByte(address: hostAddress, register: location.register)
    }
}
