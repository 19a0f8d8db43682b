import LodestoneCore
import LodestoneDrivers

/// A simulated ST LPS25H built from `LPS25HDatasheet`: `WHO_AM_I`, software reset, power-down (`PD`), one-shot and
/// continuous modes, ST's sub-address bit 7 auto-increment, `STATUS_REG` data-ready and overrun bits cleared by
/// reading the outputs' high bytes, and the 32-sample pressure FIFO (bypass, FIFO, stream): `FIFO_STATUS`
/// `DIFF_POINT`/`FULL_FIFO`/`EMPTY_FIFO`, and with `FIFO_EN` the address rolling back from `PRESS_OUT_H` to
/// `PRESS_OUT_XL`, a sample popped when its `PRESS_OUT_H` is read (AN4450 section 5.1).
///
/// Set `pressurePa` and `temperatureC`: an active chip measures once per change, quantised at 4096 LSB/hPa and
/// `42.5 + raw / 480` °C and saturated to the output widths. Averaging settings do not change the values.
public final class LPS25HModel: SimulatedChip {
    public typealias Register = LPS25HDatasheet.Register
    private typealias F = LPS25HDatasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .whenBit7Set)
    /// The value of `WHO_AM_I`.
    public let whoAmI: UInt8
    /// Ambient pressure, Pa.
    public var pressurePa: Double = PhysicalConstants.seaLevelPressurePa { didSet { measureIfRunning() } }
    /// Die temperature, °C.
    public var temperatureC: Double = 25 { didSet { measureIfRunning() } }
    /// Number of software resets seen.
    public private(set) var softResetCount = 0
    /// The FIFO's raw pressures, oldest first.
    public private(set) var fifo: [Int32] = []

    /// An LPS25H in its power-on state (power-down, `RES_CONF` 0x05).
    public init(whoAmI: UInt8 = LPS25HDatasheet.whoAmIValue) {
        self.whoAmI = whoAmI
        fifo.reserveCapacity(LPS25HDatasheet.fifoDepth + 1)
        powerOnReset()
    }

    /// Whether the chip is active (`CTRL_REG1.PD`) with a continuous rate.
    public var isRunning: Bool {
        let ctrl = registers[Register.ctrlReg1.rawValue]
        return F.pd.extract(from: ctrl) == 1 && F.odr.extract(from: ctrl) != 0
    }

    /// Whether the FIFO collects samples (`FIFO_EN` and a mode other than bypass).
    public var isFIFOActive: Bool {
        F.fifoEn.extract(from: registers[Register.ctrlReg2.rawValue]) == 1 && fifoMode != .bypass
    }

    private var fifoMode: LPS25HDatasheet.FIFOMode {
        LPS25HDatasheet.FIFOMode(rawValue: F.fMode.extract(from: registers[Register.fifoCtrl.rawValue])) ?? .stream
    }

    /// ST's I2C rule; with the FIFO on, `PRESS_OUT_H` is followed by `PRESS_OUT_XL` again.
    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        let base = start & 0x7F
        guard start & LPS25HDatasheet.autoIncrementBit != 0 else { return base }
        var r = base
        for _ in 0..<offset { r = next(after: r) }
        return r
    }

    private func next(after r: UInt8) -> UInt8 {
        if F.fifoEn.extract(from: registers[Register.ctrlReg2.rawValue]) == 1 && r == 0x2A { return Register.pressOutXL.rawValue }
        return (r &+ 1) & 0x7F
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        let increments = register & LPS25HDatasheet.autoIncrementBit != 0
        var r = register & 0x7F
        for i in 0..<buffer.count {
            buffer[i] = value(at: r)
            sideEffects(ofReading: r)
            if increments { r = next(after: r) }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = registerAddress(start: register, offset: i)
            switch Register(rawValue: r) {
            case .ctrlReg1:
                registers[r] = value
                measureIfRunning()
            case .ctrlReg2:
                if F.swreset.extract(from: value) == 1 {
                    softResetCount += 1
                    powerOnReset()
                    return
                }
                registers[r] = value & ~(F.boot.mask | F.oneShot.mask) // BOOT and ONE_SHOT clear themselves
                if F.oneShot.extract(from: value) == 1 && F.pd.extract(from: registers[Register.ctrlReg1.rawValue]) == 1 {
                    measure()
                }
            case .fifoCtrl:
                registers[r] = value
                if fifoMode == .bypass { fifo.removeAll(keepingCapacity: true) }
            case .refPXL, .resConf, .ctrlReg3, .ctrlReg4, .interruptCfg, .thsPL, .thsPH, .rpdsL, .rpdsH:
                registers[r] = value
            default:
                break // read-only or reserved
            }
        }
    }

    private func value(at r: UInt8) -> UInt8 {
        if r == Register.fifoStatus.rawValue {
            let level = UInt8(fifo.count)
            let watermark = F.wtmPoint.extract(from: registers[Register.fifoCtrl.rawValue])
            var status = F.diffPoint.inserting(level, into: 0) // 32 reads as 0 in five bits, with FULL_FIFO
            if Int(level) == LPS25HDatasheet.fifoDepth { status |= F.fullFIFO.mask }
            if level == 0 { status |= F.emptyFIFO.mask }
            if watermark > 0 && level >= watermark { status |= F.wtmFIFO.mask }
            return status
        }
        if (Register.pressOutXL.rawValue...0x2A).contains(r), isFIFOActive, let head = fifo.first {
            return UInt8(truncatingIfNeeded: head >> (8 * Int(r - Register.pressOutXL.rawValue)))
        }
        return registers[r]
    }

    private func sideEffects(ofReading r: UInt8) {
        if r == 0x2A {
            registers[Register.statusReg.rawValue] &= ~(F.pDA.mask | F.pOR.mask)
            if isFIFOActive, !fifo.isEmpty { fifo.removeFirst() }
        }
        if r == 0x2C { registers[Register.statusReg.rawValue] &= ~(F.tDA.mask | F.tOR.mask) }
    }

    private func measureIfRunning() {
        if isRunning { measure() }
    }

    /// One conversion: outputs, status bits, and a FIFO sample.
    private func measure() {
        let pressure = STPressureModel.pressureCode(pressurePa)
        let temperature = saturatedRaw((temperatureC - LPS25HDatasheet.temperatureOffsetC) * LPS25HDatasheet.temperatureLSBPerC)
        STPressureModel.store(
            pressureCode: pressure, temperatureCode: temperature, in: &registers, pressure: Register.pressOutXL.rawValue,
            temperature: Register.tempOutL.rawValue, status: Register.statusReg.rawValue,
            pDA: F.pDA, pOR: F.pOR, tDA: F.tDA, tOR: F.tOR)
        guard isFIFOActive else { return }
        if fifo.count == LPS25HDatasheet.fifoDepth {
            guard fifoMode != .fifo else { return } // FIFO mode stops when full
            fifo.removeFirst()
        }
        fifo.append(pressure)
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .whenBit7Set)
        registers[Register.whoAmI.rawValue] = whoAmI
        registers[Register.resConf.rawValue] = 0x05
        fifo.removeAll(keepingCapacity: true)
    }
}
