import LodestoneCore

/// Bosch BMP280 register map, trim layout and compensation formulas, independent of any bus.
///
/// Source: Bosch Sensortec, *BMP280 Digital Pressure Sensor*, BST-BMP280-DS001 (rev. 1.19 and later);
/// section numbers below refer to it.
public enum BMP280Datasheet {
    /// The memory map (section 4.2, table 18). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// calib00: first of the 24 trim bytes 0x88…0x9F (`dig_T1` LSB), section 3.11.2.
        case calib00 = 0x88
        /// Chip identification number, read-only (section 4.3.1).
        case id = 0xD0
        /// Soft reset: writing 0xB6 resets the device like a power-on reset (section 4.3.2).
        case reset = 0xE0
        /// `measuring` (bit 3) and `im_update` (bit 0), read-only (section 4.3.3).
        case status = 0xF3
        /// `osrs_t` [7:5], `osrs_p` [4:2], `mode` [1:0] (section 4.3.4).
        case ctrlMeas = 0xF4
        /// `t_sb` [7:5], `filter` [4:2], `spi3w_en` [0] (section 4.3.5).
        case config = 0xF5
        /// Pressure ADC bits 19:12 (section 4.3.6).
        case pressMsb = 0xF7
        /// Pressure ADC bits 11:4.
        case pressLsb = 0xF8
        /// Pressure ADC bits 3:0 in [7:4].
        case pressXlsb = 0xF9
        /// Temperature ADC bits 19:12 (section 4.3.7).
        case tempMsb = 0xFA
        /// Temperature ADC bits 11:4.
        case tempLsb = 0xFB
        /// Temperature ADC bits 3:0 in [7:4].
        case tempXlsb = 0xFC
    }

    /// Register fields (section 4.3).
    public enum Field {
        /// `status.measuring`: a conversion is running.
        public static let measuring = BitField(mask: 0b0000_1000)
        /// `status.im_update`: the trim NVM is being copied to the image registers.
        public static let imUpdate = BitField(mask: 0b0000_0001)
        /// `ctrl_meas.osrs_t`: temperature oversampling (`Oversampling`).
        public static let osrsT = BitField(mask: 0b1110_0000)
        /// `ctrl_meas.osrs_p`: pressure oversampling (`Oversampling`).
        public static let osrsP = BitField(mask: 0b0001_1100)
        /// `ctrl_meas.mode`: power mode (`Mode`).
        public static let mode = BitField(mask: 0b0000_0011)
        /// `config.t_sb`: standby time in normal mode (`Standby`).
        public static let tSb = BitField(mask: 0b1110_0000)
        /// `config.filter`: IIR filter coefficient (`Filter`).
        public static let filter = BitField(mask: 0b0001_1100)
        /// `config.spi3w_en`: 3-wire SPI.
        public static let spi3wEn = BitField(mask: 0b0000_0001)
    }

    /// `osrs_t` / `osrs_p` settings (tables 21 and 22).
    public enum Oversampling: UInt8, Sendable, CaseIterable {
        case skipped = 0, x1 = 1, x2 = 2, x4 = 3, x8 = 4, x16 = 5
        /// The oversampling factor (0 when skipped).
        public var factor: Int { self == .skipped ? 0 : 1 << (Int(rawValue) - 1) }
        /// ADC resolution with the IIR filter off, bits (section 3.3.1 and 3.3.2: 16 bits at ×1 up to 20 at ×16).
        public var resolutionBits: Int { self == .skipped ? 0 : 15 + Int(rawValue) }
        /// The smallest setting of at least `factor`, or `nil` above ×16.
        public static func atLeast(_ factor: Int) -> Oversampling? {
            allCases.first { $0 != .skipped && $0.factor >= factor }
        }
    }

    /// `mode` settings (table 10). 0b10 is also forced mode; this driver never writes it.
    public enum Mode: UInt8, Sendable, CaseIterable {
        case sleep = 0b00, forced = 0b01, normal = 0b11
    }

    /// `t_sb` settings (table 11).
    public enum Standby: UInt8, Sendable, CaseIterable {
        case ms0_5 = 0, ms62_5, ms125, ms250, ms500, ms1000, ms2000, ms4000
        /// The standby time between conversions in normal mode, ms.
        public var standbyMs: Double {
            switch self {
            case .ms0_5: 0.5
            case .ms62_5: 62.5
            case .ms125: 125
            case .ms250: 250
            case .ms500: 500
            case .ms1000: 1000
            case .ms2000: 2000
            case .ms4000: 4000
            }
        }
    }

    /// `filter` settings (table 7 and section 3.4.3): IIR coefficient 1 (off), 2, 4, 8, 16.
    public enum Filter: UInt8, Sendable, CaseIterable {
        case off = 0, coefficient2, coefficient4, coefficient8, coefficient16
    }

    /// Values of `id` this driver accepts: 0x58 for production parts, 0x56 and 0x57 for engineering samples.
    public static let chipIDs: [UInt8] = [0x58, 0x56, 0x57]
    /// 7-bit I2C addresses: SDO to GND gives 0x76, SDO to VDDIO 0x77 (section 5.2).
    public static let addresses: [UInt8] = [0x76, 0x77]
    /// The value written to `reset` for a soft reset (section 4.3.2).
    public static let softResetCommand: UInt8 = 0xB6
    /// The ADC value of a skipped (or not yet made) measurement (section 3.3.1, 3.3.2; the register reset value).
    public static let skippedADC: UInt32 = 0x80000
    /// Start-up time after power-on or soft reset, µs (table 2, t_startup).
    public static let startUpTimeUs = 2000

    /// Typical measurement time for the given oversampling, ms (section 3.8.1):
    /// `1 + 2·T + (2·P + 0.5)`, the last term only when pressure is measured.
    public static func measurementTimeMs(temperature: Oversampling, pressure: Oversampling) -> Double {
        let pressureMs = pressure == .skipped ? 0 : 2 * Double(pressure.factor) + 0.5
        return 1 + 2 * Double(temperature.factor) + pressureMs
    }

    /// Output data rate in normal mode, Hz: `1 / (t_measure + t_standby)` (section 3.8.2).
    public static func normalModeRateHz(temperature: Oversampling, pressure: Oversampling, standby: Standby) -> Double {
        1000 / (measurementTimeMs(temperature: temperature, pressure: pressure) + standby.standbyMs)
    }

    /// The trimming parameters (section 3.11.2, table 17), read once from 0x88…0x9F, little-endian.
    public struct Trim: Sendable, Hashable {
        public var digT1: UInt16
        public var digT2: Int16
        public var digT3: Int16
        public var digP1: UInt16
        public var digP2: Int16
        public var digP3: Int16
        public var digP4: Int16
        public var digP5: Int16
        public var digP6: Int16
        public var digP7: Int16
        public var digP8: Int16
        public var digP9: Int16

        /// Number of trim bytes (0x88…0x9F).
        public static let byteCount = 24

        public init(
            digT1: UInt16, digT2: Int16, digT3: Int16, digP1: UInt16, digP2: Int16, digP3: Int16,
            digP4: Int16, digP5: Int16, digP6: Int16, digP7: Int16, digP8: Int16, digP9: Int16
        ) {
            self.digT1 = digT1; self.digT2 = digT2; self.digT3 = digT3
            self.digP1 = digP1; self.digP2 = digP2; self.digP3 = digP3; self.digP4 = digP4; self.digP5 = digP5
            self.digP6 = digP6; self.digP7 = digP7; self.digP8 = digP8; self.digP9 = digP9
        }

        /// Decodes the 24 bytes read from 0x88 (table 17 order). `bytes.count` must be at least 24.
        public init(bytes b: UnsafeRawBufferPointer) {
            self.init(
                digT1: Bytes.leU16(b, 0), digT2: Bytes.leS16(b, 2), digT3: Bytes.leS16(b, 4),
                digP1: Bytes.leU16(b, 6), digP2: Bytes.leS16(b, 8), digP3: Bytes.leS16(b, 10),
                digP4: Bytes.leS16(b, 12), digP5: Bytes.leS16(b, 14), digP6: Bytes.leS16(b, 16),
                digP7: Bytes.leS16(b, 18), digP8: Bytes.leS16(b, 20), digP9: Bytes.leS16(b, 22))
        }

        /// Encodes the trim as the 24 bytes the chip holds at 0x88 (for chip models).
        public func encode(into b: UnsafeMutableRawBufferPointer) {
            let words: [UInt16] = [
                digT1, UInt16(bitPattern: digT2), UInt16(bitPattern: digT3), digP1,
                UInt16(bitPattern: digP2), UInt16(bitPattern: digP3), UInt16(bitPattern: digP4),
                UInt16(bitPattern: digP5), UInt16(bitPattern: digP6), UInt16(bitPattern: digP7),
                UInt16(bitPattern: digP8), UInt16(bitPattern: digP9)
            ]
            for (i, w) in words.enumerated() { Bytes.putLE16(w, b, 2 * i) }
        }

        /// Bosch's worked example (section 3.12, "Calculating pressure and temperature"): with `adc_T` 519888 and
        /// `adc_P` 415148 it gives `t_fine` 128422, 25.08 °C and 100653.27 Pa.
        public static let datasheetExample = Trim(
            digT1: 27504, digT2: 26435, digT3: -1000,
            digP1: 36477, digP2: -10685, digP3: 3024, digP4: 2855, digP5: 140, digP6: -7,
            digP7: 15500, digP8: -14600, digP9: 6000)

        /// Why this trim cannot come from a working chip, or `nil` if it can: every byte 0x00 or 0xFF (nothing
        /// answered, or blank NVM), or a zero `dig_T1` / `dig_P1` (the pressure formula divides by `dig_P1`).
        public var problem: String? {
            let words = [
                digT1, UInt16(bitPattern: digT2), UInt16(bitPattern: digT3), digP1,
                UInt16(bitPattern: digP2), UInt16(bitPattern: digP3), UInt16(bitPattern: digP4),
                UInt16(bitPattern: digP5), UInt16(bitPattern: digP6), UInt16(bitPattern: digP7),
                UInt16(bitPattern: digP8), UInt16(bitPattern: digP9)
            ]
            if words.allSatisfy({ $0 == 0 }) { return "all trim bytes are 0x00" }
            if words.allSatisfy({ $0 == 0xFFFF }) { return "all trim bytes are 0xFF" }
            if digT1 == 0 { return "dig_T1 is 0" }
            if digP1 == 0 { return "dig_P1 is 0" }
            return nil
        }
    }

    // MARK: Compensation (pure functions of raw ADC values and trim)

    /// Temperature from `adcT` with the 32-bit integer formula of section 3.11.3
    /// (`bmp280_compensate_T_int32`). Returns °C (resolution 0.01 °C) and `t_fine`, the fine temperature the
    /// pressure formulas take. Arithmetic wraps as the reference C does on two's-complement machines, so no input traps.
    public static func compensateTemperature(adcT: Int32, trim: Trim) -> (temperatureC: Double, tFine: Int32) {
        let t1 = Int32(trim.digT1), t2 = Int32(trim.digT2), t3 = Int32(trim.digT3)
        let var1 = (((adcT >> 3) &- (t1 << 1)) &* t2) >> 11
        let d = (adcT >> 4) &- t1
        let var2 = (((d &* d) >> 12) &* t3) >> 14
        let tFine = var1 &+ var2
        let centiC = (tFine &* 5 &+ 128) >> 8
        return (Double(centiC) / 100, tFine)
    }

    /// Temperature from `adcT` with the floating-point formula of section 8.1 (`bmp280_compensate_T_double`).
    /// Returns °C and the fine temperature `t_fine` unrounded. The datasheet's C code stores `t_fine` in a
    /// `BMP280_S32_t` (truncating it); the worked example's 100653.27 Pa comes from the unrounded value, and
    /// passing `tFine.rounded(.towardZero)` to `compensatePressureDouble` reproduces the C code (100653.26 Pa).
    public static func compensateTemperatureDouble(adcT: Int32, trim: Trim) -> (temperatureC: Double, tFine: Double) {
        let adc = Double(adcT), t1 = Double(trim.digT1)
        let var1 = (adc / 16384 - t1 / 1024) * Double(trim.digT2)
        let d = adc / 131072 - t1 / 8192
        let var2 = d * d * Double(trim.digT3)
        return ((var1 + var2) / 5120, var1 + var2)
    }

    /// Pressure from `adcP` with the 64-bit integer formula of section 3.11.3 (`bmp280_compensate_P_int64`):
    /// Pa in unsigned Q24.8 (divide by 256 for Pa). Returns 0 when the trim would divide by zero.
    public static func compensatePressureInt64(adcP: Int32, tFine: Int32, trim: Trim) -> UInt32 {
        var var1 = Int64(tFine) - 128000
        var var2 = var1 &* var1 &* Int64(trim.digP6)
        var2 = var2 &+ ((var1 &* Int64(trim.digP5)) << 17)
        var2 = var2 &+ (Int64(trim.digP4) << 35)
        var1 = ((var1 &* var1 &* Int64(trim.digP3)) >> 8) &+ ((var1 &* Int64(trim.digP2)) << 12)
        var1 = (((Int64(1) << 47) &+ var1) &* Int64(trim.digP1)) >> 33
        if var1 == 0 { return 0 }
        var p = 1_048_576 - Int64(adcP)
        let (quotient, overflow) = (((p << 31) &- var2) &* 3125).dividedReportingOverflow(by: var1)
        if overflow { return 0 }
        p = quotient
        var1 = (Int64(trim.digP9) &* (p >> 13) &* (p >> 13)) >> 25
        var2 = (Int64(trim.digP8) &* p) >> 19
        p = ((p &+ var1 &+ var2) >> 8) &+ (Int64(trim.digP7) << 4)
        return UInt32(truncatingIfNeeded: p)
    }

    /// Pressure from `adcP` with the floating-point formula of section 8.1 (`bmp280_compensate_P_double`), Pa,
    /// given the fine temperature from `compensateTemperatureDouble`. Returns 0 when the trim would divide by zero.
    public static func compensatePressureDouble(adcP: Int32, tFine: Double, trim: Trim) -> Double {
        var var1 = tFine / 2 - 64000
        var var2 = var1 * var1 * Double(trim.digP6) / 32768
        var2 += var1 * Double(trim.digP5) * 2
        var2 = var2 / 4 + Double(trim.digP4) * 65536
        var1 = (Double(trim.digP3) * var1 * var1 / 524288 + Double(trim.digP2) * var1) / 524288
        var1 = (1 + var1 / 32768) * Double(trim.digP1)
        if var1 == 0 { return 0 }
        var p = 1_048_576 - Double(adcP)
        p = (p - var2 / 4096) * 6250 / var1
        var1 = Double(trim.digP9) * p * p / 2_147_483_648
        var2 = p * Double(trim.digP8) / 32768
        return p + (var1 + var2 + Double(trim.digP7)) / 16
    }
}

/// Driver for the Bosch BMP280 barometer and thermometer (BST-BMP280-DS001), generic over its bus.
///
/// `read()` reports pressure from the 64-bit integer formula (`compensatePressureInt64` / 256, resolution
/// 1/256 Pa) and temperature from the 32-bit integer formula (resolution 0.01 °C), as Bosch recommends for
/// its reference driver. The IIR filter is left off: the fusion filters do the smoothing.
public struct BMP280<Bus: RegisterBus>: SensorDriver {
    /// The register map (`BMP280Datasheet.Register`).
    public typealias Register = BMP280Datasheet.Register
    /// The trim data (`BMP280Datasheet.Trim`).
    public typealias Trim = BMP280Datasheet.Trim

    public static var chipName: String { "bmp280" }
    public static var kinds: [SensorKind] { [.barometer, .thermometer] }
    public static var addresses: [UInt8] { BMP280Datasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only between status polls in `probe()`.
    public let delay: @Sendable (Int) -> Void
    /// The trim read by `probe()`; `nil` before.
    public private(set) var trim: Trim?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?

    /// Status polls after a soft reset before giving up (each 1 ms apart after the 2 ms start-up time).
    static var resetPollAttempts: Int { 5 }

    /// A driver for the BMP280 at `address` on `bus`. Does no I/O.
    /// - Parameter delay: sleeps for the given microseconds (the engine passes a real sleep; the default does not wait).
    public init(bus: Bus, address: UInt8 = BMP280Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `id`, soft-resets, waits (bounded) for `status.im_update` to clear and reads the trim.
    /// Leaves the chip in sleep mode (its reset state).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        trim = nil // until this probe succeeds
        let id = try bus.sensorReadByte(address: address, register: Register.id.rawValue)
        guard BMP280Datasheet.chipIDs.contains(id) else {
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: Register.id.rawValue,
                expected: BMP280Datasheet.chipIDs, found: id)
        }
        try bus.sensorWriteByte(address: address, register: Register.reset.rawValue, value: BMP280Datasheet.softResetCommand)
        try bus.pollRegister(
            chip: Self.chipName, address: address, register: Register.status.rawValue,
            initialDelayUs: BMP280Datasheet.startUpTimeUs, attempts: Self.resetPollAttempts,
            intervalUs: 1000, delay: delay
        ) {
            BMP280Datasheet.Field.imUpdate.extract(from: $0) == 0
        }
        let bus = self.bus, address = self.address
        let trim = try withTemporaryBytes(byteCount: Trim.byteCount, alignment: 1) {
            (raw) throws(SensorError) -> Trim in
            try bus.sensorRead(address: address, register: Register.calib00.rawValue, into: raw)
            return Trim(bytes: UnsafeRawBufferPointer(raw))
        }
        if let problem = trim.problem {
            throw .invalidTrim(chip: Self.chipName, bus: bus.name, address: address, detail: problem)
        }
        self.trim = trim
        configuration = nil
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// The register values for `requested`, and the configuration they give (pure; no I/O).
    ///
    /// - `oversampling` selects `osrs_p` (the nearest of ×1…×16 at or above); `osrs_t` is ×2 with ×16 pressure
    ///   and ×1 otherwise (table 7's recommendations).
    /// - `.suspend` → sleep mode (reported rate 0: the chip does not measure).
    /// - `.lowPower` → normal mode with ×1/×1 oversampling (table 7 "ultra low power") and, like `.normal`, the longest
    ///   standby that still meets `rateHz`.
    /// - `.normal` → normal mode with the longest standby whose rate (section 3.8.2) is at least `rateHz`; when
    ///   even 0.5 ms standby is too slow the fastest rate is used and reported.
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError)
        -> (ctrlMeas: UInt8, config: UInt8, actual: SensorConfiguration)
    {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        let pressure: BMP280Datasheet.Oversampling
        if requested.powerMode == .lowPower {
            pressure = .x1
        } else {
            guard requested.oversampling >= 1, let p = BMP280Datasheet.Oversampling.atLeast(requested.oversampling) else {
                throw .unsupportedConfiguration(
                    chip: chipName,
                    detail: "oversampling \(requested.oversampling): use 1, 2, 4, 8 or 16")
            }
            pressure = p
        }
        let temperature: BMP280Datasheet.Oversampling = pressure == .x16 ? .x2 : .x1
        let mode: BMP280Datasheet.Mode = requested.powerMode == .suspend ? .sleep : .normal
        let standby =
            BMP280Datasheet.Standby.allCases.last {
                covers(
                    BMP280Datasheet.normalModeRateHz(temperature: temperature, pressure: pressure, standby: $0), requested.rateHz)
            } ?? .ms0_5
        typealias F = BMP280Datasheet.Field
        let oversampling = F.osrsP.inserting(pressure.rawValue, into: F.osrsT.inserting(temperature.rawValue, into: 0))
        let ctrlMeas = F.mode.inserting(mode.rawValue, into: oversampling)
        let config = F.filter.inserting(BMP280Datasheet.Filter.off.rawValue, into: F.tSb.inserting(standby.rawValue, into: 0))
        var actual = SensorConfiguration(rateHz: 0, powerMode: requested.powerMode, oversampling: pressure.factor)
        if mode == .normal {
            actual.rateHz = BMP280Datasheet.normalModeRateHz(temperature: temperature, pressure: pressure, standby: standby)
        }
        return (ctrlMeas, config, actual)
    }

    /// Applies `configuration` (see `registerSettings(for:)`). Writes `ctrl_meas` with sleep mode first, because
    /// `config` writes may be ignored in normal mode (section 5.4.6), then `config`, then `ctrl_meas` with the mode.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard trim != nil else { throw notProbed(chip: Self.chipName) }
        let settings = try Self.registerSettings(for: configuration)
        let sleeping = BMP280Datasheet.Field.mode.inserting(BMP280Datasheet.Mode.sleep.rawValue, into: settings.ctrlMeas)
        try bus.sensorWriteByte(address: address, register: Register.ctrlMeas.rawValue, value: sleeping)
        try bus.sensorWriteByte(address: address, register: Register.config.rawValue, value: settings.config)
        if sleeping != settings.ctrlMeas {
            try bus.sensorWriteByte(address: address, register: Register.ctrlMeas.rawValue, value: settings.ctrlMeas)
        }
        self.configuration = settings.actual
        return settings.actual
    }

    /// Reads pressure and temperature in one 6-byte burst from `press_msb` (data shadowing keeps the pair
    /// consistent, section 3.9) and compensates them. Throws `.invalidReading` for a skipped (0x80000) value.
    /// Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let trim else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let (adcP, adcT) = try withTemporaryBytes(byteCount: 6, alignment: 1) {
            (raw) throws(SensorError) -> (UInt32, UInt32) in
            try bus.sensorRead(address: address, register: Register.pressMsb.rawValue, into: raw)
            let bytes = UnsafeRawBufferPointer(raw)
            return (Bytes.beU20(bytes, 0), Bytes.beU20(bytes, 3))
        }
        if adcT == BMP280Datasheet.skippedADC || adcP == BMP280Datasheet.skippedADC {
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address,
                detail: "ADC value 0x80000: measurement skipped or not yet made; is the chip configured?")
        }
        let temperature = BMP280Datasheet.compensateTemperature(adcT: Int32(adcT), trim: trim)
        let pressureQ24_8 = BMP280Datasheet.compensatePressureInt64(adcP: Int32(adcP), tFine: temperature.tFine, trim: trim)
        if pressureQ24_8 == 0 {
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address,
                detail: "pressure compensation divided by zero")
        }
        return SensorReading(timeS: timeS, pressurePa: Double(pressureQ24_8) / 256, temperatureC: temperature.temperatureC)
    }
}
