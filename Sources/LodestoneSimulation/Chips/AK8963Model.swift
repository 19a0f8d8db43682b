import LodestoneCore
import LodestoneDrivers

/// A simulated AKM AK8963 built from `AK8963Datasheet`: `WIA`, soft reset, power-down / single / continuous /
/// fuse-ROM modes, `ST1.DRDY` and `DOR` set by a measurement and cleared by reading `ST2`, `HOFL` when
/// |X| + |Y| + |Z| ≥ 4912 µT, outputs divided by the per-axis sensitivity (so a driver applying `ASA` reads the true
/// field), quantised to 16 bits (0.15 µT/LSB) or 14 bits (0.6 µT/LSB) and saturated.
///
/// Inside an MPU-9250 it answers only while the MPU's bypass is on (`isResponding`); attach it at 0x0C with
/// `MPUModel.attach(to:at:)`.
public final class AK8963Model: SimulatedChip {
    public typealias Register = AK8963Datasheet.Register
    private typealias F = AK8963Datasheet.Field

    /// The register file (for tests to inspect; `ASA` values live in `sensitivityAdjustment`).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The fuse-ROM sensitivity adjustment values.
    public var sensitivityAdjustment: AK8963Datasheet.SensitivityAdjustment
    /// The value of `WIA`.
    public var wia: UInt8 { didSet { registers[Register.wia.rawValue] = wia } }
    /// Magnetic flux density in the AK8963's axes, µT.
    public var magneticFieldMicroTesla = Vector3.zero { didSet { measureIfRunning() } }
    /// Number of soft resets seen.
    public private(set) var softResetCount = 0
    /// The MPU whose bypass this chip sits behind (set by `MPUModel`); `nil` when stand-alone.
    weak var host: MPUModel?

    /// An AK8963 in its power-on state (power-down). The default `ASA` values are typical of real parts.
    public init(
        sensitivityAdjustment: AK8963Datasheet.SensitivityAdjustment = .init(asax: 176, asay: 177, asaz: 165),
        wia: UInt8 = AK8963Datasheet.wiaValue
    ) {
        self.sensitivityAdjustment = sensitivityAdjustment
        self.wia = wia
        powerOnReset()
    }

    /// Answers only while the host MPU's I2C bypass is on (always when stand-alone).
    public var isResponding: Bool { host?.isBypassEnabled ?? true }

    /// The current `CNTL1.MODE` (unknown codes read as power-down).
    public var mode: AK8963Datasheet.Mode {
        AK8963Datasheet.Mode(rawValue: F.mode.extract(from: registers[Register.cntl1.rawValue])) ?? .powerDown
    }

    /// AKM's read pointer: it wraps 0x0C → 0x00 and 0x12 → 0x00.
    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        var r = start
        for _ in 0..<offset { r = (r == Register.astc.rawValue || r >= Register.asaz.rawValue) ? 0 : r + 1 }
        return r
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            let r = registerAddress(start: register, offset: i)
            buffer[i] = value(of: r)
            if r == Register.st2.rawValue {
                // Reading ST2 ends the data read: DRDY and DOR clear.
                registers[Register.st1.rawValue] = 0
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            switch Register(rawValue: r) {
            case .cntl1:
                registers[r] = value
                switch mode {
                case .singleMeasurement:
                    measure()
                    registers[r] = F.mode.inserting(AK8963Datasheet.Mode.powerDown.rawValue, into: registers[r])
                case .continuous1, .continuous2: measure()
                default: break
                }
            case .cntl2:
                if F.srst.extract(from: value) == 1 { softResetCount += 1; powerOnReset() }
            case .astc, .i2cdis:
                registers[r] = value
            default:
                break // read-only or test registers
            }
        }
    }

    private func value(of r: UInt8) -> UInt8 {
        switch Register(rawValue: r) {
        case .asax: mode == .fuseROMAccess ? sensitivityAdjustment.asax : 0
        case .asay: mode == .fuseROMAccess ? sensitivityAdjustment.asay : 0
        case .asaz: mode == .fuseROMAccess ? sensitivityAdjustment.asaz : 0
        default: registers[r]
        }
    }

    private func measureIfRunning() {
        if mode == .continuous1 || mode == .continuous2 { measure() }
    }

    /// One measurement: data, `ST2` (`BITM`, `HOFL`) and `ST1` (`DRDY`, `DOR` if the last one was not read).
    private func measure() {
        let is16Bit = F.bit.extract(from: registers[Register.cntl1.rawValue]) == 1
        let lsb = is16Bit ? AK8963Datasheet.microTeslaPerLSB16Bit : AK8963Datasheet.microTeslaPerLSB14Bit
        let limit: Int16 = is16Bit ? 32760 : 8190
        let h = magneticFieldMicroTesla
        let adjust = sensitivityAdjustment
        registers.storeLE16(
            saturatedRaw(h.x / (lsb * AK8963Datasheet.sensitivityFactor(asa: adjust.asax)), limit: limit),
            at: Register.hxl.rawValue)
        registers.storeLE16(
            saturatedRaw(h.y / (lsb * AK8963Datasheet.sensitivityFactor(asa: adjust.asay)), limit: limit),
            at: Register.hyl.rawValue)
        registers.storeLE16(
            saturatedRaw(h.z / (lsb * AK8963Datasheet.sensitivityFactor(asa: adjust.asaz)), limit: limit),
            at: Register.hzl.rawValue)
        let overflow = abs(h.x) + abs(h.y) + abs(h.z) >= AK8963Datasheet.rangeMicroTesla
        registers[Register.st2.rawValue] = F.hofl.inserting(overflow ? 1 : 0, into: F.bitm.inserting(is16Bit ? 1 : 0, into: 0))
        let st1 = registers[Register.st1.rawValue]
        registers[Register.st1.rawValue] = F.drdy.inserting(1, into: F.dor.inserting(F.drdy.extract(from: st1), into: st1))
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.wia.rawValue] = wia
        registers[Register.info.rawValue] = 0x9A
    }
}
