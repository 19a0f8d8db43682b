import LodestoneCore
import LodestoneDrivers

/// A simulated Bosch BMP388/BMP390 built from `BMP3xxDatasheet`: `CHIP_ID`, soft reset and FIFO flush commands
/// with `cmd_rdy`, sleep/forced/normal modes, `ERR_REG.conf_err` when the ODR period is shorter than the
/// measurement time, data registers reading 0x800000 until a measurement, `drdy_press`/`drdy_temp` cleared by
/// reading the data, and the 512-byte FIFO: pressure-and-temperature (or single) frames pushed per measurement,
/// stream or stop-on-full, `ffull_int`, an empty frame (0x80 0x00) when read empty, no auto-increment past
/// `FIFO_DATA`.
///
/// Set `pressurePa` and `temperatureC`: a running chip makes one measurement per change (a FIFO gains one frame),
/// encoding them by inverting the datasheet's compensation with the model's calibration at the resolution of the
/// configured oversampling.
public final class BMP3xxModel: SimulatedChip {
    public typealias Register = BMP3xxDatasheet.Register
    private typealias F = BMP3xxDatasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `CHIP_ID`.
    public let chipID: UInt8
    /// The calibration in NVM.
    public let calibration: BMP3xxDatasheet.Calibration
    /// Ambient pressure, Pa.
    public var pressurePa: Double = PhysicalConstants.seaLevelPressurePa { didSet { rawADC = nil; measureIfRunning() } }
    /// Ambient temperature, °C.
    public var temperatureC: Double = 25 { didSet { rawADC = nil; measureIfRunning() } }
    /// Number of soft resets and FIFO flushes seen.
    public private(set) var softResetCount = 0
    public private(set) var fifoFlushCount = 0
    /// The FIFO's bytes, oldest first.
    public private(set) var fifo: [UInt8] = []
    private var rawADC: (pressure: UInt32, temperature: UInt32)?

    /// A chip after power-on. Default: a BMP388 with `Calibration.typical`.
    public init(variant: BMP3Variant = .bmp388, calibration: BMP3xxDatasheet.Calibration = .typical) {
        chipID = variant.chipID
        self.calibration = calibration
        fifo.reserveCapacity(BMP3xxDatasheet.fifoSizeBytes + BMP3xxDatasheet.fifoFrameBytes)
        powerOnReset()
    }

    /// Makes the ADC report exactly these 24-bit values from the next measurement on, until an input is set again.
    public func setRawADC(pressure: UInt32, temperature: UInt32) {
        rawADC = (pressure & 0xFF_FFFF, temperature & 0xFF_FFFF)
        measureIfRunning()
    }

    /// One more measurement of the current inputs in normal mode (as time passing by one ODR period).
    public func tick() { measureIfRunning() }

    /// The current `PWR_CTRL.mode`.
    public var mode: BMP3xxDatasheet.Mode {
        switch F.mode.extract(from: registers[Register.pwrCtrl.rawValue]) {
        case 0b00: .sleep
        case 0b11: .normal
        default: .forced
        }
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        var r = register
        for i in 0..<buffer.count {
            if r == Register.fifoData.rawValue {
                buffer[i] = popFIFO()
                continue // no auto-increment past FIFO_DATA
            }
            buffer[i] = registers[r]
            switch Register(rawValue: r) {
            case .errReg, .event, .intStatus: registers[r] = 0 // cleared on read
            case .data0: registers[Register.status.rawValue] &= ~F.drdyPress.mask
            case .data3: registers[Register.status.rawValue] &= ~F.drdyTemp.mask
            default: break
            }
            r &+= 1
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            switch Register(rawValue: r) {
            case .cmd:
                switch value {
                case BMP3xxDatasheet.softResetCommand:
                    softResetCount += 1
                    powerOnReset()
                case BMP3xxDatasheet.fifoFlushCommand:
                    fifoFlushCount += 1
                    fifo.removeAll(keepingCapacity: true)
                default:
                    registers[Register.errReg.rawValue] |= F.cmdErr.mask
                }
            case .pwrCtrl:
                registers[r] = value & 0b0011_0011
                checkConfiguration()
                switch mode {
                case .sleep: break
                case .normal: measure()
                case .forced:
                    measure()
                    registers[r] = F.mode.inserting(0, into: registers[r])
                }
            case .osr, .odr, .config, .fifoConfig1, .fifoConfig2, .fifoWtm0, .intCtrl, .ifConf:
                registers[r] = value
            default:
                break // read-only or reserved
            }
        }
    }

    private func measureIfRunning() {
        if mode == .normal { measure() }
    }

    /// `conf_err` when the ODR period is shorter than the measurement time in normal mode (section 3.9.2).
    private func checkConfiguration() {
        guard mode == .normal else { return }
        let osr = registers[Register.osr.rawValue]
        let p = BMP3xxDatasheet.Oversampling(rawValue: min(F.osrP.extract(from: osr), 5)) ?? .x32
        let t = BMP3xxDatasheet.Oversampling(rawValue: min(F.osrT.extract(from: osr), 5)) ?? .x32
        let periodUs = 1e6 / BMP3xxDatasheet.rateHz(odrSel: F.odrSel.extract(from: registers[Register.odr.rawValue]))
        if Double(BMP3xxDatasheet.measurementTimeUs(pressure: p, temperature: t)) >= periodUs {
            registers[Register.errReg.rawValue] |= F.confErr.mask
            registers[Register.pwrCtrl.rawValue] = F.mode.inserting(0, into: registers[Register.pwrCtrl.rawValue])
        }
    }

    /// One conversion: data registers, `STATUS` data-ready bits, `INT_STATUS.drdy`, and a FIFO frame.
    private func measure() {
        let pwr = registers[Register.pwrCtrl.rawValue]
        let osr = registers[Register.osr.rawValue]
        let pressureOn = F.pressEn.extract(from: pwr) == 1, temperatureOn = F.tempEn.extract(from: pwr) == 1
        let p = BMP3xxDatasheet.Oversampling(rawValue: min(F.osrP.extract(from: osr), 5)) ?? .x32
        let t = BMP3xxDatasheet.Oversampling(rawValue: min(F.osrT.extract(from: osr), 5)) ?? .x32
        let q = calibration.quantized
        let ut =
            temperatureOn ? (rawADC?.temperature ?? Self.uncompensatedTemperature(temperatureC, q, bits: t.resolutionBits)) : nil
        // The pressure code is chosen for the temperature the chip reports (as a driver will compensate with it);
        // with temperature off, for the die's own.
        let tLin = BMP3xxDatasheet.compensateTemperature(
            uncompensated: ut ?? Self.uncompensatedTemperature(temperatureC, q, bits: 24), q)
        let up =
            pressureOn
            ? (rawADC?.pressure ?? Self.uncompensatedPressure(pressurePa, temperatureC: tLin, q, bits: p.resolutionBits)) : nil
        if let up { store24(up, at: Register.data0.rawValue) }
        if let ut { store24(ut, at: Register.data3.rawValue) }
        var status = registers[Register.status.rawValue]
        if up != nil { status |= F.drdyPress.mask }
        if ut != nil { status |= F.drdyTemp.mask }
        registers[Register.status.rawValue] = status
        registers[Register.intStatus.rawValue] |= 0b0000_1000
        pushFrame(up: up, ut: ut)
    }

    private func pushFrame(up: UInt32?, ut: UInt32?) {
        let config1 = registers[Register.fifoConfig1.rawValue]
        guard F.fifoMode.extract(from: config1) == 1 else { return }
        let withP = F.fifoPressEn.extract(from: config1) == 1 ? up : nil
        let withT = F.fifoTempEn.extract(from: config1) == 1 ? ut : nil
        guard withP != nil || withT != nil else { return }
        let frameBytes = 1 + (withP != nil ? 3 : 0) + (withT != nil ? 3 : 0)
        if fifo.count + frameBytes > BMP3xxDatasheet.fifoSizeBytes {
            registers[Register.intStatus.rawValue] |= F.ffullInt.mask
            if F.fifoStopOnFull.extract(from: config1) == 1 { return }
            while fifo.count + frameBytes > BMP3xxDatasheet.fifoSizeBytes, !fifo.isEmpty { dropOldestFrame() }
        }
        typealias H = BMP3xxDatasheet.FrameHeader
        fifo.append(withP != nil && withT != nil ? H.pressureAndTemperature : (withP != nil ? H.pressure : H.temperature))
        func append24(_ v: UInt32?) {
            guard let v else { return }
            fifo.append(UInt8(truncatingIfNeeded: v)); fifo.append(UInt8(truncatingIfNeeded: v >> 8))
            fifo.append(UInt8(truncatingIfNeeded: v >> 16))
        }
        append24(withT) // temperature first (section 3.6.1)
        append24(withP)
        let length = UInt16(fifo.count)
        registers[Register.fifoLength0.rawValue] = UInt8(truncatingIfNeeded: length)
        registers[Register.fifoLength0.rawValue + 1] = UInt8(truncatingIfNeeded: length >> 8) & 0x01
    }

    private func dropOldestFrame() {
        let size = fifo[0] == BMP3xxDatasheet.FrameHeader.pressureAndTemperature ? 7 : 4
        fifo.removeFirst(min(size, fifo.count))
    }

    private func popFIFO() -> UInt8 {
        defer {
            let length = UInt16(fifo.count)
            registers[Register.fifoLength0.rawValue] = UInt8(truncatingIfNeeded: length)
            registers[Register.fifoLength0.rawValue + 1] = UInt8(truncatingIfNeeded: length >> 8) & 0x01
        }
        guard !fifo.isEmpty else { return emptyFrameNextByte() }
        emptyFramePosition = 0
        return fifo.removeFirst()
    }

    /// An empty FIFO answers 0x80 0x00 repeatedly.
    private var emptyFramePosition = 0
    private func emptyFrameNextByte() -> UInt8 {
        defer { emptyFramePosition = (emptyFramePosition + 1) % 2 }
        return emptyFramePosition == 0 ? BMP3xxDatasheet.FrameHeader.empty : 0x00
    }

    private func store24(_ v: UInt32, at register: UInt8) {
        registers[register] = UInt8(truncatingIfNeeded: v)
        registers[register + 1] = UInt8(truncatingIfNeeded: v >> 8)
        registers[register + 2] = UInt8(truncatingIfNeeded: v >> 16)
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.chipID.rawValue] = chipID
        registers[0x01] = chipID == BMP3Variant.bmp390.chipID ? 0x01 : 0x00 // BMP390 REV_ID
        registers[Register.status.rawValue] = F.cmdRdy.mask
        registers[Register.event.rawValue] = 0x01 // por_detected
        registers[Register.fifoConfig1.rawValue] = 0x02
        registers[Register.fifoConfig2.rawValue] = 0x02
        registers[Register.intCtrl.rawValue] = 0x02
        registers[Register.osr.rawValue] = 0x02
        store24(BMP3xxDatasheet.skippedADC, at: Register.data0.rawValue)
        store24(BMP3xxDatasheet.skippedADC, at: Register.data3.rawValue)
        fifo.removeAll(keepingCapacity: true)
        let base = Int(Register.nvmParT1.rawValue)
        registers.bytes.withUnsafeMutableBytes { all in
            calibration.encode(
                into: UnsafeMutableRawBufferPointer(rebasing: all[base..<(base + BMP3xxDatasheet.Calibration.byteCount)]))
        }
    }

    // MARK: Inverse compensation

    /// The `bits`-bit code (left-aligned in 24 bits) whose temperature is nearest `temperatureC`.
    public static func uncompensatedTemperature(_ temperatureC: Double, _ q: BMP3xxDatasheet.Quantized, bits: Int) -> UInt32 {
        let shift = Int64(24 - min(max(bits, 16), 24))
        let k = nearestCode(in: 0...((1 << (24 - shift)) - 1), increasing: true, target: temperatureC) {
            BMP3xxDatasheet.compensateTemperature(uncompensated: UInt32($0 << shift), q)
        }
        return avoidingSkipped(UInt32(k << shift), step: UInt32(1 << shift))
    }

    /// The `bits`-bit code (left-aligned in 24 bits) whose pressure at `temperatureC` is nearest `pressurePa`.
    public static func uncompensatedPressure(
        _ pressurePa: Double, temperatureC: Double, _ q: BMP3xxDatasheet.Quantized, bits: Int
    ) -> UInt32 {
        let shift = Int64(24 - min(max(bits, 16), 24))
        let increasing =
            BMP3xxDatasheet.compensatePressure(uncompensated: 0x90_0000, temperatureC: temperatureC, q)
            > BMP3xxDatasheet.compensatePressure(uncompensated: 0x70_0000, temperatureC: temperatureC, q)
        let k = nearestCode(in: 0...((1 << (24 - shift)) - 1), increasing: increasing, target: pressurePa) {
            BMP3xxDatasheet.compensatePressure(uncompensated: UInt32($0 << shift), temperatureC: temperatureC, q)
        }
        return avoidingSkipped(UInt32(k << shift), step: UInt32(1 << shift))
    }

    private static func avoidingSkipped(_ code: UInt32, step: UInt32) -> UInt32 {
        code == BMP3xxDatasheet.skippedADC ? code + step : code
    }
}
