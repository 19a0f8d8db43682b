import LodestoneCore
import LodestoneDrivers

/// A simulated Bosch BMP280 built from `BMP280Datasheet`: ID, trim, soft reset, sleep/forced/normal modes,
/// `config` writes ignored in normal mode (section 5.4.6), skipped measurements reading 0x80000, and an ADC whose
/// resolution follows `osrs_t`/`osrs_p` (16 bits at ×1 … 20 bits at ×16, 20 bits with the IIR filter on; the filter's
/// smoothing itself is not modelled).
///
/// Set `pressurePa` and `temperatureC`: the model encodes them by numerically inverting the datasheet's integer
/// compensation with its own trim (default: the datasheet example), so a driver reads them back within one ADC step.
/// A conversion happens, instantly, whenever an input changes (or, once `sampleTimeS` is set, at the normal-mode rate
/// `outputDataRateHz`) or `ctrl_meas` starts one; in sleep mode the data
/// registers keep the last values.
public final class BMP280Model: SimulatedChip {
    public typealias Register = BMP280Datasheet.Register
    private typealias F = BMP280Datasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `id`.
    public var chipID: UInt8 { didSet { registers[Register.id.rawValue] = chipID } }
    /// The trim held in 0x88…0x9F.
    public var trim: BMP280Datasheet.Trim { didSet { storeTrim() } }
    /// Ambient pressure, Pa.
    public var pressurePa: Double = PhysicalConstants.seaLevelPressurePa { didSet { rawADC = nil; measureIfUntimed() } }
    /// Ambient temperature, °C.
    public var temperatureC: Double = 25 { didSet { rawADC = nil; measureIfUntimed() } }
    /// Simulated time, s. `nil` (default): in normal mode the chip converts whenever an input changes. Set (the simulated
    /// board sets it after the inputs at every advance): it converts when the time reaches its next conversion at
    /// `outputDataRateHz`.
    public var sampleTimeS: Double? { didSet { sampleIfDue() } }
    private var clock = SampleClock()
    /// Number of soft resets seen.
    public private(set) var softResetCount = 0
    /// Raw ADC values that override the physical inputs (set by `setRawADC`).
    private var rawADC: (temperature: UInt32, pressure: UInt32)?

    /// A BMP280 in its power-on state (sleep mode, data registers 0x80000).
    public init(trim: BMP280Datasheet.Trim = .datasheetExample, chipID: UInt8 = BMP280Datasheet.chipIDs[0]) {
        self.trim = trim
        self.chipID = chipID
        powerOnReset()
    }

    /// Makes the ADC report exactly `adcT` and `adcP` (20-bit values) from the next conversion on, whatever the
    /// oversampling, until a physical input is set again. A running chip converts at once.
    public func setRawADC(temperature adcT: UInt32, pressure adcP: UInt32) {
        rawADC = (adcT & 0xFFFFF, adcP & 0xFFFFF)
        measureIfRunning()
    }

    /// The current `ctrl_meas.mode`.
    public var mode: BMP280Datasheet.Mode {
        switch F.mode.extract(from: registers[Register.ctrlMeas.rawValue]) {
        case 0b00: .sleep
        case 0b11: .normal
        default: .forced
        }
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            buffer[i] = registers[UInt8(truncatingIfNeeded: Int(register) + i)]
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            switch Register(rawValue: r) {
            case .reset:
                if value == BMP280Datasheet.softResetCommand { softResetCount += 1; powerOnReset() }
            case .ctrlMeas:
                registers[r] = value
                switch mode {
                case .sleep: break
                case .normal: measure()
                case .forced:
                    measure()
                    registers[r] = F.mode.inserting(BMP280Datasheet.Mode.sleep.rawValue, into: registers[r])
                }
            case .config:
                if mode != .normal { registers[r] = value }
            default:
                break // id, calibration, status and data are read-only; other addresses are reserved
            }
        }
        clock.restart() // a timed chip starts the new settings' grid at the next advance
    }

    /// One conversion in normal mode (forced mode converts when `ctrl_meas` is written).
    private func measureIfRunning() {
        if mode == .normal { measure() }
    }

    private func measureIfUntimed() {
        if sampleTimeS == nil { measureIfRunning() }
    }

    /// The normal-mode conversion rate, Hz: `1 / (t_measure + t_standby)` (BST-BMP280-DS001 section 3.8.2); `nil` in
    /// sleep and forced mode (no conversions of its own).
    public var outputDataRateHz: Double? {
        guard mode == .normal else { return nil }
        let ctrl = registers[Register.ctrlMeas.rawValue]
        let osrsT = BMP280Datasheet.Oversampling(rawValue: min(F.osrsT.extract(from: ctrl), 5)) ?? .x16
        let osrsP = BMP280Datasheet.Oversampling(rawValue: min(F.osrsP.extract(from: ctrl), 5)) ?? .x16
        let standby = BMP280Datasheet.Standby(rawValue: F.tSb.extract(from: registers[Register.config.rawValue])) ?? .ms0_5
        return BMP280Datasheet.normalModeRateHz(temperature: osrsT, pressure: osrsP, standby: standby)
    }

    private func sampleIfDue() {
        guard let t = sampleTimeS, let rateHz = outputDataRateHz else { return }
        for _ in 0..<clock.samplesDue(atTimeS: t, rateHz: rateHz) { measure() }
    }

    /// Converts the inputs and latches them into the data registers.
    private func measure() {
        let ctrl = registers[Register.ctrlMeas.rawValue]
        let filterOn = F.filter.extract(from: registers[Register.config.rawValue]) != 0
        let osrsT = BMP280Datasheet.Oversampling(rawValue: min(F.osrsT.extract(from: ctrl), 5)) ?? .x16
        let osrsP = BMP280Datasheet.Oversampling(rawValue: min(F.osrsP.extract(from: ctrl), 5)) ?? .x16
        var adcT = BMP280Datasheet.skippedADC
        var adcP = BMP280Datasheet.skippedADC
        if osrsT != .skipped {
            adcT =
                rawADC?.temperature
                ?? Self.adcT(forTemperatureC: temperatureC, trim: trim, bits: filterOn ? 20 : osrsT.resolutionBits)
        }
        if osrsP != .skipped {
            if let raw = rawADC {
                adcP = raw.pressure
            } else {
                // The die has a temperature even when its conversion is skipped; the code depends on it.
                let exactT =
                    adcT != BMP280Datasheet.skippedADC
                    ? adcT : Self.adcT(forTemperatureC: temperatureC, trim: trim, bits: 20)
                let tFine = BMP280Datasheet.compensateTemperature(adcT: Int32(exactT), trim: trim).tFine
                adcP = Self.adcP(forPressurePa: pressurePa, tFine: tFine, trim: trim, bits: filterOn ? 20 : osrsP.resolutionBits)
            }
        }
        store(adc: adcP, at: Register.pressMsb.rawValue)
        store(adc: adcT, at: Register.tempMsb.rawValue)
    }

    private func store(adc: UInt32, at register: UInt8) {
        registers[register] = UInt8(truncatingIfNeeded: adc >> 12)
        registers[register + 1] = UInt8(truncatingIfNeeded: adc >> 4)
        registers[register + 2] = UInt8(truncatingIfNeeded: adc << 4)
    }

    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.id.rawValue] = chipID
        storeTrim()
        store(adc: BMP280Datasheet.skippedADC, at: Register.pressMsb.rawValue)
        store(adc: BMP280Datasheet.skippedADC, at: Register.tempMsb.rawValue)
    }

    private func storeTrim() {
        let base = Int(Register.calib00.rawValue)
        registers.bytes.withUnsafeMutableBytes { all in
            trim.encode(into: UnsafeMutableRawBufferPointer(rebasing: all[base..<(base + BMP280Datasheet.Trim.byteCount)]))
        }
    }

    // MARK: Inverse compensation

    /// The `bits`-bit ADC code (left-aligned in 20 bits) whose integer-compensated `t_fine` is nearest
    /// `temperatureC · 5120`, by bisection (t_fine rises with adc_T for any real trim).
    public static func adcT(forTemperatureC temperatureC: Double, trim: BMP280Datasheet.Trim, bits: Int) -> UInt32 {
        let target = temperatureC * 5120
        return nearestCode(bits: bits, increasing: true, target: target) {
            Double(BMP280Datasheet.compensateTemperature(adcT: Int32($0), trim: trim).tFine)
        }
    }

    /// The `bits`-bit ADC code (left-aligned in 20 bits) whose 64-bit-compensated pressure is nearest `pressurePa`
    /// at `tFine`, by bisection (pressure falls as adc_P rises).
    public static func adcP(forPressurePa pressurePa: Double, tFine: Int32, trim: BMP280Datasheet.Trim, bits: Int) -> UInt32 {
        nearestCode(bits: bits, increasing: false, target: pressurePa) {
            Double(BMP280Datasheet.compensatePressureInt64(adcP: Int32($0), tFine: tFine, trim: trim)) / 256
        }
    }

    /// Bisection over the codes `k << (20 − bits)` for the one whose `value` is nearest `target`, avoiding the
    /// 0x80000 "skipped" code (a neighbour is used instead).
    private static func nearestCode(bits: Int, increasing: Bool, target: Double, value: (UInt32) -> Double) -> UInt32 {
        let shift = UInt32(20 - min(max(bits, 16), 20))
        let maxCode = (UInt32(1) << (20 - shift)) - 1
        // smallest k whose value is at or past the target
        var low: UInt32 = 0, high = maxCode
        while low < high {
            let mid = (low + high) / 2
            let v = value(mid << shift)
            if increasing ? v >= target : v <= target { high = mid } else { low = mid + 1 }
        }
        var best = low
        if low > 0, abs(value((low - 1) << shift) - target) < abs(value(low << shift) - target) { best = low - 1 }
        if best << shift == BMP280Datasheet.skippedADC {
            let below = (best - 1) << shift, above = (best + 1) << shift
            best = abs(value(below) - target) <= abs(value(above) - target) ? best - 1 : best + 1
        }
        return best << shift
    }
}
