import LodestoneCore
import LodestoneDrivers

/// A simulated Bosch BME280 built from `BME280Datasheet`: a `BMP280Model` (same pressure/temperature registers,
/// trim, modes and side effects, with ID 0x60) plus the humidity part: `dig_H1`…`dig_H6`, `ctrl_hum` (which takes
/// effect at the next `ctrl_meas` write, section 5.4.3), and the 16-bit humidity ADC at 0xFD/0xFE, which reads
/// 0x8000 while humidity is skipped.
///
/// Set `relativeHumidityPercent` (with `pressurePa` and `temperatureC`): a conversion encodes it by inverting the
/// datasheet's integer humidity formula with the model's trim, so a driver reads it back within one ADC step.
public final class BME280Model: SimulatedChip {
    public typealias Register = BME280Datasheet.Register

    /// The pressure/temperature half of the chip.
    public let core: BMP280Model
    /// The humidity trim.
    public var humidityTrim: BME280Datasheet.HumidityTrim
    /// Ambient pressure, Pa.
    public var pressurePa: Double {
        get { core.pressurePa }
        set { core.pressurePa = newValue; measureIfRunning() }
    }
    /// Ambient temperature, °C.
    public var temperatureC: Double {
        get { core.temperatureC }
        set { core.temperatureC = newValue; measureIfRunning() }
    }
    /// Relative humidity, percent.
    public var relativeHumidityPercent: Double = 40 { didSet { rawHumidityADC = nil; measureIfRunning() } }
    /// `ctrl_hum` as written, and the humidity oversampling latched by the last `ctrl_meas` write.
    public private(set) var ctrlHum: UInt8 = 0
    private var latchedHumidity = BMP280Datasheet.Oversampling.skipped
    /// The humidity ADC register value.
    public private(set) var humidityADC: UInt16 = UInt16(BME280Datasheet.skippedHumidityADC)
    private var rawHumidityADC: UInt16?

    /// A BME280 in its power-on state. Defaults: the BMP280 datasheet example trim, and the humidity trim of the
    /// kernel-VM preset.
    public init(
        trim: BMP280Datasheet.Trim = .datasheetExample, humidityTrim: BME280Datasheet.HumidityTrim = .kernelVMPreset,
        chipID: UInt8 = BME280Datasheet.chipID
    ) {
        core = BMP280Model(trim: trim, chipID: chipID)
        self.humidityTrim = humidityTrim
    }

    /// Makes the ADCs report exactly these values (20-bit pressure and temperature, 16-bit humidity) from the next
    /// conversion on, until a physical input is set again.
    public func setRawADC(temperature: UInt32, pressure: UInt32, humidity: UInt16) {
        rawHumidityADC = humidity
        core.setRawADC(temperature: temperature, pressure: pressure)
        measureIfRunning()
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        core.read(register: register, into: buffer)
        withUnsafeTemporaryAllocation(byteCount: BME280Datasheet.highTrimByteCount, alignment: 1) { e1 in
            humidityTrim.encodeE1(into: e1)
            for i in 0..<buffer.count {
                let r = UInt8(truncatingIfNeeded: Int(register) + i)
                switch r {
                case Register.calib25.rawValue: buffer[i] = humidityTrim.digH1
                case Register.calib26.rawValue...0xE7: buffer[i] = e1[Int(r - Register.calib26.rawValue)]
                case Register.ctrlHum.rawValue: buffer[i] = ctrlHum
                case Register.humMsb.rawValue: buffer[i] = UInt8(truncatingIfNeeded: humidityADC >> 8)
                case Register.humLsb.rawValue: buffer[i] = UInt8(truncatingIfNeeded: humidityADC)
                default: break
                }
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            withUnsafeBytes(of: value) { one in core.write(register: r, bytes: one) }
            switch Register(rawValue: r) {
            case .ctrlHum:
                ctrlHum = value & BME280Datasheet.osrsH.mask
            case .ctrlMeas:
                latchedHumidity = BMP280Datasheet.Oversampling(rawValue: min(ctrlHum, 5)) ?? .x16
                // normal or forced mode converts (the core has already latched pressure and temperature)
                if BMP280Datasheet.Field.mode.extract(from: value) != BMP280Datasheet.Mode.sleep.rawValue { measureHumidity() }
            case .reset where value == BMP280Datasheet.softResetCommand:
                ctrlHum = 0
                latchedHumidity = .skipped
                humidityADC = UInt16(BME280Datasheet.skippedHumidityADC)
            default:
                break
            }
        }
    }

    private func measureIfRunning() {
        if core.mode == .normal { measureHumidity() }
    }

    /// The humidity conversion that goes with the core's conversion (normal or forced mode).
    private func measureHumidity() {
        guard latchedHumidity != .skipped else {
            humidityADC = UInt16(BME280Datasheet.skippedHumidityADC)
            return
        }
        if let raw = rawHumidityADC {
            humidityADC = raw
            return
        }
        let adcT = BMP280Model.adcT(forTemperatureC: temperatureC, trim: core.trim, bits: 20)
        let tFine = BMP280Datasheet.compensateTemperature(adcT: Int32(adcT), trim: core.trim).tFine
        let trim = humidityTrim
        let code = nearestCode(in: 0...0xFFFF, increasing: true, target: relativeHumidityPercent * 1024) {
            Double(BME280Datasheet.compensateHumidity(adcH: Int32($0), tFine: tFine, trim: trim))
        }
        humidityADC = UInt16(code == Int64(BME280Datasheet.skippedHumidityADC) ? code + 1 : code)
    }
}
