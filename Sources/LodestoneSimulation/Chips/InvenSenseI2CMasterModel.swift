import LodestoneCore
import LodestoneDrivers

/// The I2C master of a simulated InvenSense IMU (MPU-9250, ICM-20948), after `InvenSenseI2CMasterLayout`: slave-4
/// single-byte transactions run at once when `I2C_SLV4_CTRL.I2C_SLV4_EN` is written (setting `I2C_SLV4_DONE`, or
/// `I2C_SLV4_NACK` when nothing answers, and clearing `EN`), and slave 0 copies `I2C_SLV0_LENG` bytes into
/// `EXT_SENS_DATA` when the host reads them (as if the latest sample cycle had fetched them). The chip on the
/// auxiliary bus is reached directly, whatever its `isResponding` says about the host's bypass.
///
/// The host model passes accessors for its (possibly banked) register file, so this allocates nothing.
enum InvenSenseI2CMasterModel {
    typealias Location = InvenSenseI2CMasterLayout.Location
    typealias F = InvenSenseI2CMasterLayout.Field

    /// Runs the slave-4 transaction the host's registers describe, if `I2C_SLV4_EN` is set.
    static func runSlave4(
        layout: InvenSenseI2CMasterLayout, masterEnabled: Bool, auxiliary: (any SimulatedChip)?,
        auxiliaryAddress: UInt8, get: (Location) -> UInt8, set: (Location, UInt8) -> Void
    ) {
        let ctrl = get(layout.i2cSlv4Ctrl)
        guard F.slvEn.extract(from: ctrl) == 1 else { return }
        set(layout.i2cSlv4Ctrl, F.slvEn.inserting(0, into: ctrl))
        let addressByte = get(layout.i2cSlv4Addr)
        var status = get(layout.i2cMstStatus)
        guard masterEnabled, let auxiliary, addressByte & 0x7F == auxiliaryAddress else {
            set(layout.i2cMstStatus, F.slv4Nack.inserting(1, into: status))
            return
        }
        let register = get(layout.i2cSlv4Reg)
        if F.rnw.extract(from: addressByte) == 1 {
            var value: UInt8 = 0
            withUnsafeMutableBytes(of: &value) { auxiliary.read(register: register, into: $0) }
            set(layout.i2cSlv4Di, value)
        } else {
            withUnsafeBytes(of: get(layout.i2cSlv4Do)) { auxiliary.write(register: register, bytes: $0) }
        }
        status = F.slv4Nack.inserting(0, into: F.slv4Done.inserting(1, into: status))
        set(layout.i2cMstStatus, status)
    }

    /// Copies slave 0's bytes into `EXT_SENS_DATA_00…` if slave 0 is enabled and reads the auxiliary chip.
    static func runSlave0(
        layout: InvenSenseI2CMasterLayout, masterEnabled: Bool, auxiliary: (any SimulatedChip)?,
        auxiliaryAddress: UInt8, get: (Location) -> UInt8, set: (Location, UInt8) -> Void
    ) {
        let ctrl = get(layout.i2cSlv0Ctrl)
        let addressByte = get(layout.i2cSlv0Addr)
        guard masterEnabled, let auxiliary, F.slvEn.extract(from: ctrl) == 1, F.rnw.extract(from: addressByte) == 1,
            addressByte & 0x7F == auxiliaryAddress
        else { return }
        let count = Int(F.slvLeng.extract(from: ctrl))
        let register = get(layout.i2cSlv0Reg)
        withUnsafeTemporaryAllocation(byteCount: 16, alignment: 1) { buffer in
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            auxiliary.read(register: register, into: bytes)
            for i in 0..<count {
                set(Location(bank: layout.extSensData00.bank, layout.extSensData00.register + UInt8(i)), bytes[i])
            }
        }
    }

    /// Whether a read of `count` bytes from `register` (in `bank`) touches `EXT_SENS_DATA_00…`'s first bytes.
    static func readTouchesExternalData(layout: InvenSenseI2CMasterLayout, bank: UInt8?, register: UInt8, count: Int) -> Bool {
        guard bank == layout.extSensData00.bank else { return false }
        let first = Int(layout.extSensData00.register)
        return Int(register) <= first + 15 && Int(register) + count > first
    }
}
