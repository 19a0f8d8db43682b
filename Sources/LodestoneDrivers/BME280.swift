import LodestoneCore

/// Bosch BME280 register map, humidity trim and compensation, independent of any bus. Pressure and temperature
/// are the BMP280's: same registers, same trim layout at 0x88…0x9F, same formulas (`BMP280Datasheet`).
///
/// Source: Bosch Sensortec, *BME280 Combined humidity and pressure sensor*, BST-BME280-DS002 (rev. 1.6 and
/// later); section numbers below refer to it.
public enum BME280Datasheet {
    /// The memory map (section 5.3, table 18). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// calib00: first of the trim bytes 0x88…0xA1 (`dig_T1` LSB; the BMP280 layout up to 0x9F), section 4.2.2.
        case calib00 = 0x88
        /// calib25: `dig_H1`.
        case calib25 = 0xA1
        /// Chip identification number, read-only, 0x60 (section 5.4.1).
        case id = 0xD0
        /// Soft reset: writing 0xB6 resets the device (section 5.4.2).
        case reset = 0xE0
        /// calib26: first of the humidity trim bytes 0xE1…0xE7 (`dig_H2` LSB).
        case calib26 = 0xE1
        /// `osrs_h` [2:0]; takes effect at the next write of `ctrl_meas` (section 5.4.3).
        case ctrlHum = 0xF2
        /// `measuring` [3], `im_update` [0] (section 5.4.4).
        case status = 0xF3
        /// `osrs_t` [7:5], `osrs_p` [4:2], `mode` [1:0] (section 5.4.5), as the BMP280's.
        case ctrlMeas = 0xF4
        /// `t_sb` [7:5], `filter` [4:2], `spi3w_en` [0] (section 5.4.6).
        case config = 0xF5
        /// Pressure, temperature (20 bits each, as the BMP280) and humidity (16 bits) data, 0xF7…0xFE.
        case pressMsb = 0xF7
        case tempMsb = 0xFA
        case humMsb = 0xFD
        case humLsb = 0xFE
    }

    /// `ctrl_hum.osrs_h` (humidity oversampling, table 20); its values are `BMP280Datasheet.Oversampling`'s.
    public static let osrsH = BitField(mask: 0b0000_0111)

    /// `t_sb` settings (table 27): the BME280's differ from the BMP280's in the last two (10 and 20 ms instead of
    /// 2 and 4 s).
    public enum Standby: UInt8, Sendable, CaseIterable {
        case ms0_5 = 0, ms62_5, ms125, ms250, ms500, ms1000, ms10, ms20
        /// The standby time between conversions in normal mode, ms.
        public var standbyMs: Double {
            switch self {
            case .ms0_5: 0.5
            case .ms62_5: 62.5
            case .ms125: 125
            case .ms250: 250
            case .ms500: 500
            case .ms1000: 1000
            case .ms10: 10
            case .ms20: 20
            }
        }
    }

    /// The chip ID (section 5.4.1).
    public static let chipID: UInt8 = 0x60
    /// 7-bit I2C addresses: SDO to GND gives 0x76, SDO to VDDIO 0x77 (section 6.2).
    public static let addresses: [UInt8] = [0x76, 0x77]
    /// The humidity ADC value of a skipped measurement (the register reset value, section 5.4.9).
    public static let skippedHumidityADC: UInt32 = 0x8000
    /// The number of trim bytes read from 0x88 (`dig_T1` … `dig_H1`).
    public static let lowTrimByteCount = 26
    /// The number of humidity trim bytes read from 0xE1 (`dig_H2` … `dig_H6`).
    public static let highTrimByteCount = 7

    /// Typical measurement time, ms (section 9.1): `1 + 2·T + (2·P + 0.5) + (2·H + 0.5)`, a term only when its
    /// measurement is on.
    public static func measurementTimeMs(
        temperature: BMP280Datasheet.Oversampling, pressure: BMP280Datasheet.Oversampling,
        humidity: BMP280Datasheet.Oversampling
    ) -> Double {
        func term(_ o: BMP280Datasheet.Oversampling, _ extra: Double) -> Double {
            o == .skipped ? 0 : 2 * Double(o.factor) + extra
        }
        return 1 + term(temperature, 0) + term(pressure, 0.5) + term(humidity, 0.5)
    }

    /// The humidity trimming parameters (section 4.2.2, table 16).
    public struct HumidityTrim: Sendable, Hashable {
        public var digH1: UInt8
        public var digH2: Int16
        public var digH3: UInt8
        /// 12-bit signed: 0xE4 [7:0] → bits 11:4, 0xE5 [3:0] → bits 3:0.
        public var digH4: Int16
        /// 12-bit signed: 0xE6 [7:0] → bits 11:4, 0xE5 [7:4] → bits 3:0.
        public var digH5: Int16
        public var digH6: Int8

        public init(digH1: UInt8, digH2: Int16, digH3: UInt8, digH4: Int16, digH5: Int16, digH6: Int8) {
            self.digH1 = digH1; self.digH2 = digH2; self.digH3 = digH3; self.digH4 = digH4; self.digH5 = digH5; self.digH6 = digH6
        }

        /// Decodes `dig_H1` (the byte at 0xA1) and the 7 bytes read from 0xE1.
        public init(digH1: UInt8, bytesFromE1 b: UnsafeRawBufferPointer) {
            let e4 = Int16(Bytes.s8(b, 3)), e5 = Int16(b[4]), e6 = Int16(Bytes.s8(b, 5))
            self.init(
                digH1: digH1, digH2: Bytes.leS16(b, 0), digH3: b[2],
                digH4: (e4 << 4) | (e5 & 0x0F), digH5: (e6 << 4) | (e5 >> 4), digH6: Bytes.s8(b, 6))
        }

        /// Encodes the 7 bytes the chip holds at 0xE1 (for chip models).
        public func encodeE1(into b: UnsafeMutableRawBufferPointer) {
            Bytes.putLE16(UInt16(bitPattern: digH2), b, 0)
            b[2] = digH3
            b[3] = UInt8(truncatingIfNeeded: digH4 >> 4)
            b[4] = UInt8(truncatingIfNeeded: (digH4 & 0x0F) | ((digH5 & 0x0F) << 4))
            b[5] = UInt8(truncatingIfNeeded: digH5 >> 4)
            b[6] = UInt8(bitPattern: digH6)
        }

        /// The humidity trim of the kernel-VM tool's `bme280` preset (`../shared/tools/kernel-vm`), with which
        /// Linux's `bmp280` driver reports 45.641 % for `adc_H` 0x6FA0 and the BMP280 datasheet example's `t_fine`.
        public static let kernelVMPreset = HumidityTrim(
            digH1: 0x4B, digH2: 0x016A, digH3: 0x00, digH4: 0x13D, digH5: 0x032, digH6: 0x1E)

        /// Why this trim cannot come from a working chip, or `nil`: all humidity trim zero (blank NVM, or a BMP280
        /// answering as a BME280) or `dig_H2` zero (humidity would not depend on the ADC).
        public var problem: String? {
            if digH1 == 0 && digH2 == 0 && digH3 == 0 && digH4 == 0 && digH5 == 0 && digH6 == 0 {
                return "all humidity trim bytes are 0"
            }
            if digH2 == 0 { return "dig_H2 is 0" }
            return nil
        }
    }

    /// Relative humidity from `adcH` with the 32-bit integer formula of section 4.2.3 (`BME280_compensate_H_int32`),
    /// clamped to 0…100 % as the datasheet's code does, in Q22.10 percent (divide by 1024). Wraps like the
    /// reference C on two's-complement machines, so no input traps.
    public static func compensateHumidity(adcH: Int32, tFine: Int32, trim: HumidityTrim) -> UInt32 {
        let h1 = Int32(trim.digH1), h2 = Int32(trim.digH2), h3 = Int32(trim.digH3)
        let h4 = Int32(trim.digH4), h5 = Int32(trim.digH5), h6 = Int32(trim.digH6)
        var v = tFine &- 76800
        let a = (((adcH << 14) &- (h4 << 20) &- (h5 &* v)) &+ 16384) >> 15
        let b = ((((((v &* h6) >> 10) &* (((v &* h3) >> 11) &+ 32768)) >> 10) &+ 2_097_152) &* h2 &+ 8192) >> 14
        v = a &* b
        v = v &- (((((v >> 15) &* (v >> 15)) >> 7) &* h1) >> 4)
        v = min(max(v, 0), 419_430_400)
        return UInt32(v >> 12)
    }
}

/// Driver for the Bosch BME280 humidity, pressure and temperature sensor (BST-BME280-DS002), generic over its bus.
///
/// Pressure and temperature come from the BMP280's integer formulas (`BMP280Datasheet`); relative humidity
/// (which `SensorReading` has no field for) from `relativeHumidityPercent` after each read, or from
/// `readWithHumidity(timeS:)`. The IIR filter is left off.
public struct BME280<Bus: RegisterBus>: SensorDriver {
    /// The register map (`BME280Datasheet.Register`).
    public typealias Register = BME280Datasheet.Register
    private typealias O = BMP280Datasheet.Oversampling

    public static var chipName: String { "bme280" }
    public static var kinds: [SensorKind] { [.barometer, .thermometer] }
    public static var addresses: [UInt8] { BME280Datasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only between status polls in `probe()`.
    public let delay: @Sendable (Int) -> Void
    /// The pressure/temperature trim and the humidity trim read by `probe()`; `nil` before.
    public private(set) var trim: (pressureTemperature: BMP280Datasheet.Trim, humidity: BME280Datasheet.HumidityTrim)?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    /// Relative humidity of the last `read`, percent (0…100); `nil` before the first read or when humidity is off.
    public private(set) var relativeHumidityPercent: Double?

    /// A driver for the BME280 at `address` on `bus`. Does no I/O.
    /// - Parameter delay: sleeps for the given microseconds (the engine passes a real sleep; the default does not wait).
    public init(bus: Bus, address: UInt8 = BME280Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `id`, soft-resets, waits (bounded) for `status.im_update` to clear and reads both trim blocks.
    /// Leaves the chip in sleep mode (its reset state).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        trim = nil // until this probe succeeds
        relativeHumidityPercent = nil
        let id = try bus.sensorReadByte(address: address, register: Register.id.rawValue)
        guard id == BME280Datasheet.chipID else {
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: Register.id.rawValue,
                expected: [BME280Datasheet.chipID], found: id)
        }
        try bus.sensorWriteByte(address: address, register: Register.reset.rawValue, value: BMP280Datasheet.softResetCommand)
        try bus.pollRegister(
            chip: Self.chipName, address: address, register: Register.status.rawValue,
            initialDelayUs: BMP280Datasheet.startUpTimeUs, attempts: 5, intervalUs: 1000, delay: delay
        ) {
            BMP280Datasheet.Field.imUpdate.extract(from: $0) == 0
        }
        let bus = self.bus, address = self.address
        let trim = try withTemporaryBytes(
            byteCount: BME280Datasheet.lowTrimByteCount + BME280Datasheet.highTrimByteCount,
            alignment: 1
        ) {
            (raw) throws(SensorError) -> (BMP280Datasheet.Trim, BME280Datasheet.HumidityTrim) in
            let low = UnsafeMutableRawBufferPointer(rebasing: raw[0..<BME280Datasheet.lowTrimByteCount])
            let high = UnsafeMutableRawBufferPointer(rebasing: raw[BME280Datasheet.lowTrimByteCount...])
            try bus.sensorRead(address: address, register: Register.calib00.rawValue, into: low)
            try bus.sensorRead(address: address, register: Register.calib26.rawValue, into: high)
            return (
                BMP280Datasheet.Trim(bytes: UnsafeRawBufferPointer(low)),
                BME280Datasheet.HumidityTrim(
                    digH1: low[BME280Datasheet.lowTrimByteCount - 1], bytesFromE1: UnsafeRawBufferPointer(high))
            )
        }
        if let problem = trim.0.problem ?? trim.1.problem {
            throw .invalidTrim(chip: Self.chipName, bus: bus.name, address: address, detail: problem)
        }
        self.trim = trim
        configuration = nil
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration and what they give.
    public struct Settings: Sendable, Hashable {
        public var ctrlHum: UInt8
        public var ctrlMeas: UInt8
        public var config: UInt8
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - `oversampling` selects `osrs_p` (the nearest of ×1…×16 at or above); `osrs_t` is ×2 with ×16 pressure and
    ///   ×1 otherwise; humidity ×1 (section 3.5's recommended settings use ×1 for humidity).
    /// - `.normal` → normal mode with the longest standby whose rate `1 / (t_measure + t_sb)` (section 3.3.4) is at
    ///   least `rateHz`, or the fastest when none is.
    /// - `.lowPower` → ×1 for all three (section 3.5.1, "weather monitoring"), normal mode as above.
    /// - `.suspend` → sleep mode (reported rate 0).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        let pressure: BMP280Datasheet.Oversampling
        if requested.powerMode == .lowPower {
            pressure = .x1
        } else {
            guard requested.oversampling >= 1, let p = O.atLeast(requested.oversampling) else {
                throw .unsupportedConfiguration(
                    chip: chipName, detail: "oversampling \(requested.oversampling): use 1, 2, 4, 8 or 16")
            }
            pressure = p
        }
        let temperature: O = pressure == .x16 ? .x2 : .x1
        let humidity: O = .x1
        let measureMs = BME280Datasheet.measurementTimeMs(temperature: temperature, pressure: pressure, humidity: humidity)
        func rate(_ s: BME280Datasheet.Standby) -> Double { 1000 / (measureMs + s.standbyMs) }
        let standby =
            BME280Datasheet.Standby.allCases.sorted { $0.standbyMs > $1.standbyMs }
            .first { covers(rate($0), requested.rateHz) } ?? .ms0_5
        let mode: BMP280Datasheet.Mode = requested.powerMode == .suspend ? .sleep : .normal
        typealias F = BMP280Datasheet.Field
        let ctrlMeas = F.mode.inserting(
            mode.rawValue,
            into: F.osrsP.inserting(
                pressure.rawValue,
                into: F.osrsT.inserting(temperature.rawValue, into: 0)))
        let config = F.filter.inserting(BMP280Datasheet.Filter.off.rawValue, into: F.tSb.inserting(standby.rawValue, into: 0))
        let actual = SensorConfiguration(
            rateHz: mode == .normal ? rate(standby) : 0, powerMode: requested.powerMode,
            oversampling: pressure.factor)
        return Settings(
            ctrlHum: BME280Datasheet.osrsH.inserting(humidity.rawValue, into: 0), ctrlMeas: ctrlMeas,
            config: config, actual: actual)
    }

    /// Applies `configuration` (see `registerSettings(for:)`): `ctrl_meas` in sleep mode first (`config` writes may
    /// be ignored in normal mode, section 5.4.6), `ctrl_hum`, `config`, then `ctrl_meas` with the mode, which also
    /// makes the `ctrl_hum` change take effect (section 5.4.3).
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard trim != nil else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        let sleeping = BMP280Datasheet.Field.mode.inserting(BMP280Datasheet.Mode.sleep.rawValue, into: s.ctrlMeas)
        try bus.sensorWriteByte(address: address, register: Register.ctrlMeas.rawValue, value: sleeping)
        try bus.sensorWriteByte(address: address, register: Register.ctrlHum.rawValue, value: s.ctrlHum)
        try bus.sensorWriteByte(address: address, register: Register.config.rawValue, value: s.config)
        try bus.sensorWriteByte(address: address, register: Register.ctrlMeas.rawValue, value: s.ctrlMeas)
        self.configuration = s.actual
        return s.actual
    }

    /// Reads pressure, temperature and humidity in one 8-byte burst from `press_msb` and compensates them; the
    /// humidity goes to `relativeHumidityPercent`. Throws `.invalidReading` for a skipped pressure or temperature
    /// (0x80000). Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        try readWithHumidity(timeS: timeS).reading
    }

    /// `read(timeS:)` with the relative humidity, percent (`nil` when the humidity measurement was skipped).
    public mutating func readWithHumidity(timeS: Double) throws(SensorError) -> (
        reading: SensorReading, relativeHumidityPercent: Double?
    ) {
        guard let trim else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let (adcP, adcT, adcH) = try withTemporaryBytes(byteCount: 8, alignment: 1) {
            (raw) throws(SensorError) -> (UInt32, UInt32, UInt32) in
            try bus.sensorRead(address: address, register: Register.pressMsb.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            return (Bytes.beU20(b, 0), Bytes.beU20(b, 3), UInt32(Bytes.beU16(b, 6)))
        }
        if adcT == BMP280Datasheet.skippedADC || adcP == BMP280Datasheet.skippedADC {
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address,
                detail: "ADC value 0x80000: measurement skipped or not yet made; is the chip configured?")
        }
        let t = BMP280Datasheet.compensateTemperature(adcT: Int32(adcT), trim: trim.pressureTemperature)
        let pressureQ24_8 = BMP280Datasheet.compensatePressureInt64(
            adcP: Int32(adcP), tFine: t.tFine, trim: trim.pressureTemperature)
        if pressureQ24_8 == 0 {
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address, detail: "pressure compensation divided by zero")
        }
        var humidity: Double?
        if adcH != BME280Datasheet.skippedHumidityADC {
            humidity = Double(BME280Datasheet.compensateHumidity(adcH: Int32(adcH), tFine: t.tFine, trim: trim.humidity)) / 1024
        }
        relativeHumidityPercent = humidity
        return (SensorReading(timeS: timeS, pressurePa: Double(pressureQ24_8) / 256, temperatureC: t.temperatureC), humidity)
    }
}
