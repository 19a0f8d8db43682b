import LodestoneCore
import LodestoneDrivers

/// A simulated ST LPS22HB built from `LPS22HBDatasheet`: `WHO_AM_I`, software reset, power-down / one-shot /
/// continuous modes, `IF_ADD_INC` auto-increment, `STATUS` data-ready and overrun bits cleared by reading the
/// outputs' high bytes, low-current mode (no effect on values), and the 32-slot FIFO: bypass, FIFO (stops when
/// full) and stream (drops the oldest and sets `OVR`) modes, `FIFO_STATUS.FSS`/`OVR`/`FTH_FIFO`, slots read
/// through `PRESS_OUT_XL`…`TEMP_OUT_H` with the address rolling back to `PRESS_OUT_XL` and a slot popped when its
/// `TEMP_OUT_H` is read.
///
/// Set `pressurePa` and `temperatureC`: a running chip measures once per change (one more FIFO slot), quantised at
/// 4096 LSB/hPa and 100 LSB/°C and saturated to the output widths.
public final class LPS22HBModel: SimulatedChip {
    public typealias Register = LPS22HBDatasheet.Register
    private typealias F = LPS22HBDatasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `WHO_AM_I`.
    public let whoAmI: UInt8
    /// Ambient pressure, Pa.
    public var pressurePa: Double = PhysicalConstants.seaLevelPressurePa { didSet { measureIfRunning() } }
    /// Die temperature, °C.
    public var temperatureC: Double = 25 { didSet { measureIfRunning() } }
    /// Number of software resets seen.
    public private(set) var softResetCount = 0
    /// The FIFO's slots, oldest first: raw pressure and temperature.
    public private(set) var fifo: [(pressure: Int32, temperature: Int16)] = []
    private var fifoOverrun = false

    /// An LPS22HB in its power-on state (power-down, FIFO in bypass).
    public init(whoAmI: UInt8 = LPS22HBDatasheet.whoAmIValue) {
        self.whoAmI = whoAmI
        fifo.reserveCapacity(LPS22HBDatasheet.fifoDepth + 1)
        powerOnReset()
    }

    /// The current output data rate setting.
    public var dataRate: LPS22HBDatasheet.DataRate {
        LPS22HBDatasheet.DataRate(rawValue: F.odr.extract(from: registers[Register.ctrlReg1.rawValue])) ?? .hz75
    }

    /// Whether the FIFO collects slots (`FIFO_EN` and a mode other than bypass).
    public var isFIFOActive: Bool {
        F.fifoEn.extract(from: registers[Register.ctrlReg2.rawValue]) == 1 && fifoMode != .bypass
    }

    private var fifoMode: LPS22HBDatasheet.FIFOMode {
        LPS22HBDatasheet.FIFOMode(rawValue: F.fMode.extract(from: registers[Register.fifoCtrl.rawValue])) ?? .stream
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        let increments = F.ifAddInc.extract(from: registers[Register.ctrlReg2.rawValue]) == 1
        var r = register
        for i in 0..<buffer.count {
            buffer[i] = value(at: r)
            sideEffects(ofReading: r)
            guard increments else { continue }
            if isFIFOActive && r == Register.tempOutH.rawValue {
                r = Register.pressOutXL.rawValue // roll back through the FIFO slots (AN4833)
            } else {
                r &+= 1
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        let increments = F.ifAddInc.extract(from: registers[Register.ctrlReg2.rawValue]) == 1
        var r = register
        for value in bytes {
            switch Register(rawValue: r) {
            case .ctrlReg1:
                registers[r] = value & 0x7F
                measureIfRunning()
            case .ctrlReg2:
                if F.swreset.extract(from: value) == 1 {
                    softResetCount += 1
                    powerOnReset()
                    return
                }
                registers[r] = F.oneShot.inserting(0, into: value & 0x7F) // BOOT and ONE_SHOT clear themselves
                if F.oneShot.extract(from: value) == 1 && dataRate == .powerDown { measure() }
            case .fifoCtrl:
                registers[r] = value
                if fifoMode == .bypass {
                    fifo.removeAll(keepingCapacity: true) // bypass empties the FIFO
                    fifoOverrun = false
                }
            case .interruptCfg, .thsPL, .thsPH, .ctrlReg3, .refPXL, .rpdsL, .resConf:
                registers[r] = value
            default:
                break // read-only or reserved
            }
            if increments { r &+= 1 }
        }
    }

    private func value(at r: UInt8) -> UInt8 {
        if r == Register.fifoStatus.rawValue {
            let level = UInt8(fifo.count)
            let watermark = F.wtm.extract(from: registers[Register.fifoCtrl.rawValue])
            var status = F.fss.inserting(level, into: 0)
            if fifoOverrun { status = F.ovr.inserting(1, into: status) }
            if watermark > 0 && level >= watermark { status = F.fthFIFO.inserting(1, into: status) }
            return status
        }
        if (Register.pressOutXL.rawValue...Register.tempOutH.rawValue).contains(r), isFIFOActive, let head = fifo.first {
            let offset = Int(r - Register.pressOutXL.rawValue)
            return offset < 3
                ? UInt8(truncatingIfNeeded: head.pressure >> (8 * offset))
                : UInt8(truncatingIfNeeded: head.temperature >> (8 * (offset - 3)))
        }
        return registers[r]
    }

    private func sideEffects(ofReading r: UInt8) {
        if r == 0x2A { registers[Register.status.rawValue] &= ~(F.pDA.mask | F.pOR.mask) }
        if r == Register.tempOutH.rawValue {
            registers[Register.status.rawValue] &= ~(F.tDA.mask | F.tOR.mask)
            if isFIFOActive, !fifo.isEmpty {
                fifo.removeFirst()
                fifoOverrun = false
            }
        }
    }

    private func measureIfRunning() {
        if dataRate != .powerDown { measure() }
    }

    /// One conversion: outputs, status bits, and a FIFO slot.
    private func measure() {
        let pressure = STPressureModel.pressureCode(pressurePa)
        let temperature = saturatedRaw(temperatureC * LPS22HBDatasheet.temperatureLSBPerC)
        STPressureModel.store(
            pressureCode: pressure, temperatureCode: temperature, in: &registers, pressure: Register.pressOutXL.rawValue,
            temperature: Register.tempOutL.rawValue, status: Register.status.rawValue,
            pDA: F.pDA, pOR: F.pOR, tDA: F.tDA, tOR: F.tOR)
        guard isFIFOActive else { return }
        if fifo.count == LPS22HBDatasheet.fifoDepth {
            guard fifoMode != .fifo else { return } // FIFO mode stops when full
            fifo.removeFirst()
            fifoOverrun = true
        }
        fifo.append((pressure, temperature))
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.whoAmI.rawValue] = whoAmI
        registers[Register.ctrlReg2.rawValue] = F.ifAddInc.mask
        fifo.removeAll(keepingCapacity: true)
        fifoOverrun = false
    }
}
