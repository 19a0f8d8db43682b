import LodestoneCore
import LodestoneDrivers

/// A simulated TE MS5611-01BA03 built from `MS5611Datasheet`: a command-driven chip with no registers. PROM reads
/// answer one big-endian word each; reset reloads the PROM and forgets any result; a D1/D2 conversion command
/// converts the physical inputs; an ADC read returns the last finished conversion once and 0 after that (and 0,
/// spoiling the running conversion, when it comes too early), as the datasheet's "ADC read" describes.
///
/// Set `pressurePa` and `temperatureC`: a conversion encodes them by numerically inverting the datasheet's
/// integer compensation (second order included) with the model's own PROM, so a driver reads them back within one
/// ADC step. Conversions finish at once unless `conversionsFinishInstantly` is false; then the running conversion
/// finishes only at `finishConversion()`.
public final class MS5611Model: SimulatedChip {
    public typealias Command = MS5611Datasheet.Command

    /// The PROM.
    public var calibration: MS5611Datasheet.Calibration
    /// Ambient pressure, Pa.
    public var pressurePa: Double = PhysicalConstants.seaLevelPressurePa
    /// Die temperature, °C.
    public var temperatureC: Double = 25
    /// Raw D1/D2 values that override the physical inputs (`setRawADC`).
    private var rawADC: (d1: UInt32, d2: UInt32)?
    /// Whether a conversion finishes when commanded (true) or only at `finishConversion()`.
    public var conversionsFinishInstantly = true
    /// Number of reset commands seen.
    public private(set) var resetCount = 0
    /// Number of conversions commanded, and the OSR of the last one.
    public private(set) var conversionCount = 0
    public private(set) var lastOversampling: MS5611Datasheet.Oversampling?

    /// The finished result waiting for an ADC read (24-bit), if any.
    private var result: UInt32?
    /// The running conversion (D1 when true), if any, and whether an early ADC read spoiled it.
    private var running: (isPressure: Bool, spoiled: Bool)?

    /// An MS5611 after power-on, with `calibration` in its PROM (default: the datasheet's example coefficients).
    public init(calibration: MS5611Datasheet.Calibration = .datasheetExample) {
        self.calibration = calibration
    }

    /// Makes the next conversions report exactly `d1` and `d2` (24-bit) until a physical input is set again.
    public func setRawADC(d1: UInt32, d2: UInt32) { rawADC = (d1 & 0xFF_FFFF, d2 & 0xFF_FFFF) }

    /// Ends the running conversion (when `conversionsFinishInstantly` is false).
    public func finishConversion() {
        guard let r = running else { return }
        running = nil
        result = r.spoiled ? 0x12_3456 : code(pressure: r.isPressure) // a spoiled conversion gives a wrong value
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count { buffer[i] = 0 }
        switch register {
        case Command.adcRead.rawValue:
            if running != nil {
                running?.spoiled = true
                return
            }
            let value = result ?? 0
            result = nil
            for i in 0..<min(buffer.count, 3) { buffer[i] = UInt8(truncatingIfNeeded: value >> (16 - 8 * UInt32(i))) }
        case Command.promRead.rawValue...0xAE where register & 1 == 0:
            let word = calibration.word(Int(register - Command.promRead.rawValue) / 2)
            if buffer.count > 0 { buffer[0] = UInt8(truncatingIfNeeded: word >> 8) }
            if buffer.count > 1 { buffer[1] = UInt8(truncatingIfNeeded: word) }
        default:
            break // not a read command: the chip sends nothing useful
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        guard bytes.isEmpty else { return } // commands carry no data
        switch register {
        case Command.reset.rawValue:
            resetCount += 1
            result = nil
            running = nil
        case Command.convertD1.rawValue...0x48 where register & 1 == 0,
            Command.convertD2.rawValue...0x58 where register & 1 == 0:
            guard running == nil else { return } // a command during a conversion is lost
            let isPressure = register < Command.convertD2.rawValue
            conversionCount += 1
            lastOversampling = MS5611Datasheet.Oversampling(rawValue: (register & 0x0F) / 2)
            result = nil
            running = (isPressure, false)
            if conversionsFinishInstantly { finishConversion() }
        default:
            break
        }
    }

    /// The D1 (pressure) or D2 (temperature) code for the inputs.
    private func code(pressure: Bool) -> UInt32 {
        if let raw = rawADC { return pressure ? raw.d1 : raw.d2 }
        let c = calibration
        let d2 = nearestCode(in: 1...0xFF_FFFF, increasing: true, target: temperatureC * 100) {
            Double(MS5611Datasheet.compensate(d1: 0, d2: UInt32($0), calibration: c).temperatureCentiC)
        }
        guard pressure else { return UInt32(d2) }
        let d1 = nearestCode(in: 1...0xFF_FFFF, increasing: true, target: pressurePa) {
            Double(MS5611Datasheet.compensate(d1: UInt32($0), d2: UInt32(d2), calibration: c).pressurePa)
        }
        return UInt32(d1)
    }
}
