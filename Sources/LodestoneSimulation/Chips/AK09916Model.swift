import LodestoneCore
import LodestoneDrivers

/// A simulated AKM AK09916 built from `AK09916Datasheet`: `WIA1`/`WIA2`, soft reset (`CNTL3.SRST`), power-down /
/// single / continuous modes, `ST1.DRDY` and `DOR` set by a measurement and cleared when the data or `ST2` is read,
/// `HOFL` when |X| + |Y| + |Z| ≥ 4912 µT, AKM's register pointer (0x00…0x03, 0x10…0x18, then back to 0x00), and the
/// field quantised at 0.15 µT/LSB and saturated at ±32752.
///
/// Inside an ICM-20948 it answers on the host bus only while the ICM's bypass is on (`isResponding`); the ICM's I2C
/// master reaches it directly.
public final class AK09916Model: SimulatedMagnetometer {
    public typealias Register = AK09916Datasheet.Register
    private typealias F = AK09916Datasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `WIA2`.
    public var wia2: UInt8 { didSet { registers[Register.wia2.rawValue] = wia2 } }
    /// Magnetic flux density in the AK09916's axes, µT.
    public var magneticFieldMicroTesla = Vector3.zero { didSet { measureIfRunning() } }
    /// Number of soft resets seen.
    public private(set) var softResetCount = 0
    /// The ICM-20948 this chip sits in (set by `ICM20948Model`); `nil` when stand-alone.
    weak var host: ICM20948Model?

    /// An AK09916 in its power-on state (power-down).
    public init(wia2: UInt8 = AK09916Datasheet.wia2Value) {
        self.wia2 = wia2
        powerOnReset()
    }

    /// Answers only while the host ICM-20948's bypass is on (always when stand-alone).
    public var isResponding: Bool { host?.isBypassEnabled ?? true }

    /// The current `CNTL2.MODE` (unknown codes read as power-down).
    public var mode: AK09916Datasheet.Mode {
        AK09916Datasheet.Mode(rawValue: F.mode.extract(from: registers[Register.cntl2.rawValue])) ?? .powerDown
    }

    /// AKM's read pointer (DS-000189 §12): 0x00…0x03, then 0x10…0x18, then 0x00 again; 0x30…0x32 wraps to 0x30.
    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        var r = start
        for _ in 0..<offset {
            switch r {
            case 0x03: r = 0x10
            case 0x18: r = 0x00
            case 0x32: r = 0x30
            default: r &+= 1
            }
        }
        return r
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            let r = registerAddress(start: register, offset: i)
            buffer[i] = registers[r]
            // Reading any data register or ST2 ends the measurement's "ready" state.
            if r >= Register.hxl.rawValue && r <= Register.st2.rawValue { registers[Register.st1.rawValue] = 0 }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = registerAddress(start: register, offset: i)
            switch Register(rawValue: r) {
            case .cntl2:
                registers[r] = F.mode.inserting(F.mode.extract(from: value), into: 0)
                switch mode {
                case .singleMeasurement:
                    measure()
                    registers[r] = AK09916Datasheet.Mode.powerDown.rawValue
                case .continuous1, .continuous2, .continuous3, .continuous4: measure()
                default: break
                }
            case .cntl3:
                if F.srst.extract(from: value) == 1 { softResetCount += 1; powerOnReset() }
            default:
                break // read-only or test registers
            }
        }
    }

    private func measureIfRunning() {
        if mode.rateHz != nil { measure() }
    }

    /// One measurement: data, `ST2.HOFL`, and `ST1` (`DRDY`, `DOR` when the previous one was not read).
    private func measure() {
        let h = magneticFieldMicroTesla
        let limit: Int16 = 32752
        registers.storeLE16(saturatedRaw(h.x / AK09916Datasheet.microTeslaPerLSB, limit: limit), at: Register.hxl.rawValue)
        registers.storeLE16(saturatedRaw(h.y / AK09916Datasheet.microTeslaPerLSB, limit: limit), at: Register.hyl.rawValue)
        registers.storeLE16(saturatedRaw(h.z / AK09916Datasheet.microTeslaPerLSB, limit: limit), at: Register.hzl.rawValue)
        let overflow = abs(h.x) + abs(h.y) + abs(h.z) >= AK09916Datasheet.rangeMicroTesla
        registers[Register.st2.rawValue] = F.hofl.inserting(overflow ? 1 : 0, into: 0)
        let st1 = registers[Register.st1.rawValue]
        registers[Register.st1.rawValue] = F.drdy.inserting(1, into: F.dor.inserting(F.drdy.extract(from: st1), into: st1))
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.wia1.rawValue] = AK09916Datasheet.wia1Value
        registers[Register.wia2.rawValue] = wia2
    }
}
