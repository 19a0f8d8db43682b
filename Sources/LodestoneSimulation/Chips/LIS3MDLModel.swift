import LodestoneCore
import LodestoneDrivers

/// A simulated ST LIS3MDL built from `LIS3MDLDatasheet`: `WHO_AM_I`, soft reset, continuous / single / power-down
/// modes, ST's I2C auto-increment rule (sub-address bit 7), `STATUS_REG` data-ready and overrun bits set by a
/// conversion and cleared as the output registers are read, and outputs quantised with the configured full scale
/// and saturated to 16 bits.
///
/// Set `magneticFieldMicroTesla` (chip axes) and `temperatureC`; without a `sampleTimeS` a running chip converts them at
/// once, with one (the simulated board sets it) at its own output data rate (`outputDataRateHz`: 0.625 Hz in low-power
/// `LP` mode); either way again after every write (as if the next sample came with the new settings). In power-down
/// the output registers keep the last values. `BDU` needs no modelling: each read is atomic here.
public final class LIS3MDLModel: SimulatedChip {
    public typealias Register = LIS3MDLDatasheet.Register
    private typealias F = LIS3MDLDatasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .whenBit7Set)
    /// The value of `WHO_AM_I`.
    public var whoAmI: UInt8 { didSet { registers[Register.whoAmI.rawValue] = whoAmI } }
    /// Magnetic flux density in the chip's axes, µT.
    public var magneticFieldMicroTesla = Vector3.zero { didSet { measureIfUntimed() } }
    /// Die temperature, °C.
    public var temperatureC = 25.0 { didSet { measureIfUntimed() } }
    /// Number of soft resets seen.
    public private(set) var softResetCount = 0

    /// A LIS3MDL in its power-on state (power-down, ±4 gauss, 10 Hz).
    public init(whoAmI: UInt8 = LIS3MDLDatasheet.whoAmIValue) {
        self.whoAmI = whoAmI
        powerOnReset()
    }

    /// The current `CTRL_REG3.MD` (0b10 reads as power-down).
    public var measurementMode: LIS3MDLDatasheet.MeasurementMode {
        LIS3MDLDatasheet.MeasurementMode(rawValue: F.md.extract(from: registers[Register.ctrlReg3.rawValue])) ?? .powerDown
    }

    /// The current full scale.
    public var fullScale: LIS3MDLDatasheet.FullScale {
        LIS3MDLDatasheet.FullScale(rawValue: F.fs.extract(from: registers[Register.ctrlReg2.rawValue])) ?? .gauss4
    }

    /// ST's I2C rule: bit 7 of the sub-address asks for auto-increment and is not part of the address.
    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        let base = start & 0x7F
        guard start & LIS3MDLDatasheet.autoIncrementBit != 0 else { return base }
        return UInt8(truncatingIfNeeded: Int(base) + offset) & 0x7F
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            let r = registerAddress(start: register, offset: i)
            buffer[i] = registers[r]
            clearStatus(afterReading: r)
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = registerAddress(start: register, offset: i)
            switch Register(rawValue: r) {
            case .ctrlReg2:
                if F.softRst.extract(from: value) == 1 {
                    softResetCount += 1
                    powerOnReset()
                } else {
                    // REBOOT reloads the trim (nothing to model) and clears itself.
                    registers[r] = F.reboot.inserting(0, into: value)
                }
            case .ctrlReg3:
                registers[r] = value
                if measurementMode == .single {
                    measure()
                    registers[r] = F.md.inserting(LIS3MDLDatasheet.MeasurementMode.powerDown.rawValue, into: registers[r])
                }
            case .ctrlReg1, .ctrlReg4, .ctrlReg5, .intCfg, .intThsL, .intThsH:
                registers[r] = value
            default:
                break // read-only or reserved
            }
        }
        // Time passes between transfers: a running chip has converted again with the new settings (and keeps the new
        // rate's grid from the next advance on).
        measureIfRunning()
        clock.restart()
    }

    private func measureIfRunning() {
        if measurementMode == .continuous { measure() }
    }

    private func measureIfUntimed() {
        if sampleTimeS == nil { measureIfRunning() }
    }

    /// Simulated time, s. `nil` (default): a continuous-mode chip converts whenever an input changes. Set (the simulated
    /// board sets it after the inputs at every advance): it converts when the time reaches its next conversion at
    /// `outputDataRateHz`.
    public var sampleTimeS: Double? { didSet { sampleIfDue() } }
    private var clock = SampleClock()

    /// The conversion rate now, Hz (`nil` unless in continuous mode): the `FAST_ODR` rate of the `OM` mode, else the
    /// `DO` rate, or 0.625 Hz with `CTRL_REG3.LP` (DocID024204 sections 8.2 and 8.4).
    public var outputDataRateHz: Double? {
        guard measurementMode == .continuous else { return nil }
        if F.lp.extract(from: registers[Register.ctrlReg3.rawValue]) == 1 { return LIS3MDLDatasheet.DataRate.hz0_625.rateHz }
        let ctrl1 = registers[Register.ctrlReg1.rawValue]
        if F.fastODR.extract(from: ctrl1) == 1 {
            return (LIS3MDLDatasheet.OperatingMode(rawValue: F.om.extract(from: ctrl1)) ?? .lowPower).fastODRRateHz
        }
        return (LIS3MDLDatasheet.DataRate(rawValue: F.dataRate.extract(from: ctrl1)) ?? .hz10).rateHz
    }

    private func sampleIfDue() {
        guard let t = sampleTimeS, let rateHz = outputDataRateHz else { return }
        for _ in 0..<clock.samplesDue(atTimeS: t, rateHz: rateHz) { measure() }
    }

    /// One conversion: outputs, temperature (if `TEMP_EN`) and status bits.
    private func measure() {
        let sensitivity = fullScale.sensitivityLSBPerGauss / PhysicalConstants.microTeslaPerGauss
        registers.storeLE16(saturatedRaw(magneticFieldMicroTesla.x * sensitivity), at: Register.outXL.rawValue)
        registers.storeLE16(saturatedRaw(magneticFieldMicroTesla.y * sensitivity), at: Register.outYL.rawValue)
        registers.storeLE16(saturatedRaw(magneticFieldMicroTesla.z * sensitivity), at: Register.outZL.rawValue)
        if F.tempEn.extract(from: registers[Register.ctrlReg1.rawValue]) == 1 {
            let raw = (temperatureC - LIS3MDLDatasheet.temperatureZeroC) * LIS3MDLDatasheet.temperatureLSBPerC
            registers.storeLE16(saturatedRaw(raw), at: Register.tempOutL.rawValue)
        }
        var status = registers[Register.statusReg.rawValue]
        if F.zyxda.extract(from: status) == 1 {
            status |= F.zyxor.mask | F.zor.mask | F.yor.mask | F.xor.mask
        }
        status |= F.zyxda.mask | F.zda.mask | F.yda.mask | F.xda.mask
        registers[Register.statusReg.rawValue] = status
    }

    /// Reading an axis's high byte clears its data-ready and overrun bits; `ZYXDA`/`ZYXOR` clear with the last axis.
    private func clearStatus(afterReading r: UInt8) {
        let cleared: UInt8
        switch Register(rawValue: r) {
        case .outXH: cleared = F.xda.mask | F.xor.mask
        case .outYH: cleared = F.yda.mask | F.yor.mask
        case .outZH: cleared = F.zda.mask | F.zor.mask
        default: return
        }
        var status = registers[Register.statusReg.rawValue] & ~cleared
        if status & (F.xda.mask | F.yda.mask | F.zda.mask) == 0 { status &= ~(F.zyxda.mask | F.zyxor.mask) }
        registers[Register.statusReg.rawValue] = status
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .whenBit7Set)
        registers[Register.whoAmI.rawValue] = whoAmI
        registers[Register.ctrlReg1.rawValue] = 0x10 // DO = 10 Hz
        registers[Register.ctrlReg3.rawValue] = 0x03 // power-down
        registers[Register.intCfg.rawValue] = 0xE8
    }
}
