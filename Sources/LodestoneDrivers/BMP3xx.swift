import LodestoneCore

/// The members of Bosch's BMP3 family this driver knows, told apart by `CHIP_ID` (register 0x00).
public enum BMP3Variant: String, Sendable, Hashable, Codable, CaseIterable {
    /// BMP388, `CHIP_ID` 0x50 (BST-BMP388-DS001).
    case bmp388
    /// BMP390 (and BMP390L), `CHIP_ID` 0x60 (BST-BMP390-DS002): the BMP388's register map with lower noise.
    case bmp390

    /// The `CHIP_ID` value.
    public var chipID: UInt8 { self == .bmp388 ? 0x50 : 0x60 }

    /// The variant whose `CHIP_ID` is `id`, if any.
    public init?(chipID id: UInt8) {
        guard let v = Self.allCases.first(where: { $0.chipID == id }) else { return nil }
        self = v
    }
}

/// Bosch BMP388/BMP390 register map, fields, calibration and compensation, independent of any bus.
///
/// Sources: Bosch Sensortec, *BMP388 Digital pressure sensor*, BST-BMP388-DS001 (rev. 1.6), and *BMP390*,
/// BST-BMP390-DS002; section numbers refer to the BMP388's, the BMP390's have the same content.
public enum BMP3xxDatasheet {
    /// The register map (section 4.2, table 23). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Chip identification, read-only (`BMP3Variant.chipID`).
        case chipID = 0x00
        /// `conf_err` [2], `cmd_err` [1], `fatal_err` [0]; cleared on read (section 4.3.2).
        case errReg = 0x02
        /// `drdy_temp` [6], `drdy_press` [5], `cmd_rdy` [4] (section 4.3.3).
        case status = 0x03
        /// Pressure data, 24 bits little-endian (`DATA_0` xlsb … `DATA_2` msb), then temperature (`DATA_3` … `DATA_5`).
        case data0 = 0x04
        case data3 = 0x07
        /// `por_detected` [0], cleared on read (section 4.3.6).
        case event = 0x10
        /// `drdy` [3], `ffull_int` [1], `fwm_int` [0]; cleared on read (section 4.3.7).
        case intStatus = 0x11
        /// FIFO fill level in bytes: `FIFO_LENGTH_0` [7:0], `FIFO_LENGTH_1` [0] = bit 8 (section 4.3.8).
        case fifoLength0 = 0x12
        /// FIFO read-out; the address does not auto-increment past it (section 4.3.9).
        case fifoData = 0x14
        /// FIFO watermark in bytes, 9 bits (section 4.3.10).
        case fifoWtm0 = 0x15
        /// `fifo_temp_en` [4], `fifo_press_en` [3], `fifo_time_en` [2], `fifo_stop_on_full` [1], `fifo_mode` [0].
        case fifoConfig1 = 0x17
        /// `data_select` [4:3], `fifo_subsampling` [2:0].
        case fifoConfig2 = 0x18
        /// `drdy_en` [6], `ffull_en` [4], `fwtm_en` [3], `int_latch` [2], `int_level` [1], `int_od` [0] (section 4.3.13).
        case intCtrl = 0x19
        /// `i2c_wdt_sel` [2], `i2c_wdt_en` [1], `spi3` [0].
        case ifConf = 0x1A
        /// `mode` [5:4], `temp_en` [1], `press_en` [0] (section 4.3.15).
        case pwrCtrl = 0x1B
        /// `osr_t` [5:3], `osr_p` [2:0] (section 4.3.16).
        case osr = 0x1C
        /// `odr_sel` [4:0] (section 4.3.17).
        case odr = 0x1D
        /// `iir_filter` [3:1] (section 4.3.18).
        case config = 0x1F
        /// First of the 21 calibration bytes 0x31…0x45 (`NVM_PAR_T1` LSB), section 3.11.1.
        case nvmParT1 = 0x31
        /// Commands: 0xB6 soft reset, 0xB0 FIFO flush (section 4.3.19).
        case cmd = 0x7E
    }

    /// Register fields.
    public enum Field {
        public static let confErr = BitField(mask: 0b0000_0100)
        public static let cmdErr = BitField(mask: 0b0000_0010)
        public static let fatalErr = BitField(mask: 0b0000_0001)
        public static let drdyTemp = BitField(mask: 0b0100_0000)
        public static let drdyPress = BitField(mask: 0b0010_0000)
        public static let cmdRdy = BitField(mask: 0b0001_0000)
        public static let ffullInt = BitField(mask: 0b0000_0010)
        public static let fwmInt = BitField(mask: 0b0000_0001)
        public static let fifoTempEn = BitField(mask: 0b0001_0000)
        public static let fifoPressEn = BitField(mask: 0b0000_1000)
        public static let fifoTimeEn = BitField(mask: 0b0000_0100)
        public static let fifoStopOnFull = BitField(mask: 0b0000_0010)
        public static let fifoMode = BitField(mask: 0b0000_0001)
        public static let ffullEn = BitField(mask: 0b0001_0000)
        public static let mode = BitField(mask: 0b0011_0000)
        public static let tempEn = BitField(mask: 0b0000_0010)
        public static let pressEn = BitField(mask: 0b0000_0001)
        public static let osrT = BitField(mask: 0b0011_1000)
        public static let osrP = BitField(mask: 0b0000_0111)
        public static let odrSel = BitField(mask: 0b0001_1111)
        public static let iirFilter = BitField(mask: 0b0000_1110)
    }

    /// `mode` settings (section 4.3.15); 0b10 is also forced mode.
    public enum Mode: UInt8, Sendable, CaseIterable {
        case sleep = 0b00, forced = 0b01, normal = 0b11
    }

    /// `osr_p` / `osr_t` settings (section 3.4.1, table 5): ×1 … ×32.
    public enum Oversampling: UInt8, Sendable, CaseIterable {
        case x1 = 0, x2, x4, x8, x16, x32
        /// The oversampling factor.
        public var factor: Int { 1 << Int(rawValue) }
        /// Resolution of the 24-bit ADC output at this setting, bits (table 5: 16 bits at ×1 … 21 bits at ×32).
        public var resolutionBits: Int { 16 + Int(rawValue) }
    }

    /// Commands written to `CMD`.
    public static let softResetCommand: UInt8 = 0xB6
    public static let fifoFlushCommand: UInt8 = 0xB0
    /// 7-bit I2C addresses: SDO to GND gives 0x76, SDO to VDDIO 0x77 (section 5.2).
    public static let addresses: [UInt8] = [0x77, 0x76]
    /// Start-up time after a soft reset, µs (table 2, t_startup: 2 ms).
    public static let startUpTimeUs = 2000
    /// The ADC value of a measurement not made (the data registers' reset value; Linux's driver calls it "skipped").
    public static let skippedADC: UInt32 = 0x80_0000
    /// The FIFO's size, bytes (section 3.6).
    public static let fifoSizeBytes = 512
    /// A pressure-and-temperature FIFO frame: header 0x94, 3 bytes temperature then 3 bytes pressure (section 3.6.1).
    public static let fifoFrameBytes = 7

    /// FIFO frame headers (section 3.6.1): `fh_mode` [7:6] (0b10 sensor frame, 0b01 control frame) and `fh_parm`.
    public enum FrameHeader {
        public static let pressureAndTemperature: UInt8 = 0x94
        public static let temperature: UInt8 = 0x90
        public static let pressure: UInt8 = 0x84
        public static let sensorTime: UInt8 = 0xA0
        /// Returned when the FIFO is read empty, followed by one byte.
        public static let empty: UInt8 = 0x80
        public static let configurationError: UInt8 = 0x44
        public static let configurationChange: UInt8 = 0x48
    }

    /// Output data rate of `odr_sel` (section 4.3.17): 200 Hz / 2^odr_sel, for odr_sel 0…17.
    public static func rateHz(odrSel: UInt8) -> Double { 200 / Double(1 << Int(min(odrSel, 17))) }

    /// Measurement time of one pressure-and-temperature conversion in normal mode, µs (section 3.9.2, typical):
    /// 234 + (392 + 2020 · osr_p) + (163 + 2020 · osr_t). The ODR period must be longer, or `conf_err` is set.
    public static func measurementTimeUs(pressure: Oversampling, temperature: Oversampling) -> Int {
        234 + (392 + 2020 * pressure.factor) + (163 + 2020 * temperature.factor)
    }

    /// The calibration coefficients as stored in NVM (section 3.11.1, table 22), little-endian from 0x31.
    public struct Calibration: Sendable, Hashable {
        public var parT1: UInt16, parT2: UInt16, parT3: Int8
        public var parP1: Int16, parP2: Int16, parP3: Int8, parP4: Int8, parP5: UInt16, parP6: UInt16
        public var parP7: Int8, parP8: Int8, parP9: Int16, parP10: Int8, parP11: Int8

        /// Number of calibration bytes (0x31…0x45).
        public static let byteCount = 21

        public init(
            parT1: UInt16, parT2: UInt16, parT3: Int8, parP1: Int16, parP2: Int16, parP3: Int8, parP4: Int8,
            parP5: UInt16, parP6: UInt16, parP7: Int8, parP8: Int8, parP9: Int16, parP10: Int8, parP11: Int8
        ) {
            self.parT1 = parT1; self.parT2 = parT2; self.parT3 = parT3
            self.parP1 = parP1; self.parP2 = parP2; self.parP3 = parP3; self.parP4 = parP4; self.parP5 = parP5
            self.parP6 = parP6; self.parP7 = parP7; self.parP8 = parP8; self.parP9 = parP9; self.parP10 = parP10
            self.parP11 = parP11
        }

        /// Decodes the 21 bytes read from 0x31.
        public init(bytes b: UnsafeRawBufferPointer) {
            self.init(
                parT1: Bytes.leU16(b, 0), parT2: Bytes.leU16(b, 2), parT3: Bytes.s8(b, 4),
                parP1: Bytes.leS16(b, 5), parP2: Bytes.leS16(b, 7), parP3: Bytes.s8(b, 9), parP4: Bytes.s8(b, 10),
                parP5: Bytes.leU16(b, 11), parP6: Bytes.leU16(b, 13), parP7: Bytes.s8(b, 15), parP8: Bytes.s8(b, 16),
                parP9: Bytes.leS16(b, 17), parP10: Bytes.s8(b, 19), parP11: Bytes.s8(b, 20))
        }

        /// Encodes the 21 bytes the chip holds at 0x31 (for chip models).
        public func encode(into b: UnsafeMutableRawBufferPointer) {
            Bytes.putLE16(parT1, b, 0); Bytes.putLE16(parT2, b, 2); b[4] = UInt8(bitPattern: parT3)
            Bytes.putLE16(UInt16(bitPattern: parP1), b, 5); Bytes.putLE16(UInt16(bitPattern: parP2), b, 7)
            b[9] = UInt8(bitPattern: parP3); b[10] = UInt8(bitPattern: parP4)
            Bytes.putLE16(parP5, b, 11); Bytes.putLE16(parP6, b, 13)
            b[15] = UInt8(bitPattern: parP7); b[16] = UInt8(bitPattern: parP8)
            Bytes.putLE16(UInt16(bitPattern: parP9), b, 17); b[19] = UInt8(bitPattern: parP10); b[20] = UInt8(bitPattern: parP11)
        }

        /// A plausible calibration (coefficients of the sizes real parts carry, chosen here: Bosch publishes no
        /// worked example for the BMP3 family), used by tests, the chip model and the kernel-VM preset. With it,
        /// 25 °C is a raw temperature near 8.5 M and 101 325 Pa a raw pressure near 6.5 M.
        public static let typical = Calibration(
            parT1: 27940, parT2: 19237, parT3: -7, parP1: -1219, parP2: -2928,
            parP3: 35, parP4: 0, parP5: 25477, parP6: 30312, parP7: 3, parP8: -6,
            parP9: 3711, parP10: 5, parP11: -60)

        /// Why this calibration cannot come from a working chip, or `nil`: all bytes 0x00 or 0xFF, or a zero
        /// `PAR_T1`/`PAR_T2` (temperature would not depend on the ADC).
        public var problem: String? {
            let fields: [Int] = [
                Int(parT1), Int(parT2), Int(parT3), Int(parP1), Int(parP2), Int(parP3), Int(parP4),
                Int(parP5), Int(parP6), Int(parP7), Int(parP8), Int(parP9), Int(parP10), Int(parP11)
            ]
            if fields.allSatisfy({ $0 == 0 }) { return "all calibration bytes are 0x00" }
            if parT1 == 0xFFFF && parT2 == 0xFFFF && parP5 == 0xFFFF && parP6 == 0xFFFF {
                return "all calibration bytes are 0xFF"
            }
            if parT1 == 0 { return "NVM_PAR_T1 is 0" }
            if parT2 == 0 { return "NVM_PAR_T2 is 0" }
            return nil
        }

        /// The quantized coefficients of section 9.1 (`PAR_T1 = NVM_PAR_T1 / 2⁻⁸`, `PAR_P1 = (NVM_PAR_P1 − 2¹⁴) / 2²⁰`, …).
        public var quantized: Quantized {
            Quantized(
                t1: Double(parT1) * 0x1p8, t2: Double(parT2) * 0x1p-30, t3: Double(parT3) * 0x1p-48,
                p1: (Double(parP1) - 16384) * 0x1p-20, p2: (Double(parP2) - 16384) * 0x1p-29,
                p3: Double(parP3) * 0x1p-32, p4: Double(parP4) * 0x1p-37, p5: Double(parP5) * 0x1p3,
                p6: Double(parP6) * 0x1p-6, p7: Double(parP7) * 0x1p-8, p8: Double(parP8) * 0x1p-15,
                p9: Double(parP9) * 0x1p-48, p10: Double(parP10) * 0x1p-48, p11: Double(parP11) * 0x1p-65)
        }
    }

    /// The floating-point coefficients of section 9.1.
    public struct Quantized: Sendable, Hashable {
        public var t1, t2, t3, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11: Double
    }

    /// Temperature, °C, from the raw 24-bit temperature (section 9.2, `BMP388_compensate_temperature`); this is
    /// also `t_lin`, the temperature the pressure formula takes.
    @inlinable public static func compensateTemperature(uncompensated: UInt32, _ q: Quantized) -> Double {
        let d1 = Double(uncompensated) - q.t1
        let d2 = d1 * q.t2
        return d2 + d1 * d1 * q.t3
    }

    /// Pressure, Pa, from the raw 24-bit pressure and `t_lin` (section 9.3, `BMP388_compensate_pressure`).
    @inlinable public static func compensatePressure(uncompensated: UInt32, temperatureC t: Double, _ q: Quantized) -> Double {
        let up = Double(uncompensated)
        let out1 = q.p5 + q.p6 * t + q.p7 * t * t + q.p8 * t * t * t
        let out2 = up * (q.p1 + q.p2 * t + q.p3 * t * t + q.p4 * t * t * t)
        let d4 = up * up * (q.p9 + q.p10 * t) + up * up * up * q.p11
        return out1 + out2 + d4
    }
}

/// Driver for the Bosch BMP388 and BMP390 barometers and thermometers, generic over its bus.
///
/// Normal mode at an `odr_sel` rate, pressure and temperature in one 6-byte burst, compensated with the
/// datasheet's floating-point formulas (resolution below 0.01 Pa). The IIR filter is left off. Data-ready comes
/// from `STATUS`; with `fifo: .stream` the 512-byte FIFO holds pressure-and-temperature frames (73 of them) that
/// `drainFIFO` reads in one burst from `FIFO_DATA`, a register that does not advance, so a bus that reads less at a time
/// restarts each piece there. `overrun` is `INT_STATUS.ffull_int` (the full interrupt is enabled with the FIFO), or an
/// undecodable frame. No wake-on-motion.
public struct BMP3xx<Bus: RegisterBus>: SensorDriver {
    /// The register map (`BMP3xxDatasheet.Register`).
    public typealias Register = BMP3xxDatasheet.Register
    private typealias F = BMP3xxDatasheet.Field
    private typealias O = BMP3xxDatasheet.Oversampling

    /// The first variant's name; a driver made for another variant reports `variant.rawValue`.
    public static var chipName: String { "bmp388" }
    public static var kinds: [SensorKind] { [.barometer, .thermometer] }
    public static var addresses: [UInt8] { BMP3xxDatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// The variant this driver insists on.
    public let variant: BMP3Variant
    /// Sleeps for the given number of microseconds: after the soft reset, and between `cmd_rdy` polls.
    public let delay: @Sendable (Int) -> Void
    /// The calibration read by `probe()`, quantized; `nil` before.
    public private(set) var calibration: BMP3xxDatasheet.Calibration?
    private var quantized: BMP3xxDatasheet.Quantized?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?

    /// A driver for a BMP388 (or `variant`) at `address` on `bus`. Does no I/O.
    public init(
        bus: Bus, address: UInt8 = BMP3xxDatasheet.addresses[0], variant: BMP3Variant = .bmp388,
        delay: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.bus = bus; self.address = address; self.variant = variant; self.delay = delay
    }

    private var name: String { variant.rawValue }

    /// Checks `CHIP_ID`, waits for `cmd_rdy`, soft-resets, waits the start-up time, confirms the identity, checks
    /// `ERR_REG` and reads the calibration. Leaves the chip in sleep mode with the FIFO off (the reset state).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        calibration = nil // until this probe succeeds
        quantized = nil
        configuration = nil
        let id = try bus.sensorReadByte(address: address, register: Register.chipID.rawValue)
        guard id == variant.chipID else {
            throw .wrongChipID(
                chip: name, bus: bus.name, address: address, register: Register.chipID.rawValue,
                expected: [variant.chipID], found: id)
        }
        try command(BMP3xxDatasheet.softResetCommand)
        delay(BMP3xxDatasheet.startUpTimeUs)
        let idAfterReset = try bus.sensorReadByte(address: address, register: Register.chipID.rawValue)
        guard idAfterReset == variant.chipID else {
            throw .notReady(chip: name, bus: bus.name, address: address, waitedMs: BMP3xxDatasheet.startUpTimeUs / 1000)
        }
        let bus = self.bus, address = self.address
        let calibration = try withTemporaryBytes(byteCount: BMP3xxDatasheet.Calibration.byteCount, alignment: 1) {
            (raw) throws(SensorError) -> BMP3xxDatasheet.Calibration in
            try bus.sensorRead(address: address, register: Register.nvmParT1.rawValue, into: raw)
            return BMP3xxDatasheet.Calibration(bytes: UnsafeRawBufferPointer(raw))
        }
        if let problem = calibration.problem {
            throw .invalidTrim(chip: name, bus: bus.name, address: address, detail: problem)
        }
        self.calibration = calibration
        quantized = calibration.quantized
        return ChipIdentity(chip: name, idValue: id)
    }

    /// Register values for a configuration and what they give.
    public struct Settings: Sendable, Hashable {
        public var pwrCtrl: UInt8
        public var osr: UInt8
        public var odr: UInt8
        public var config: UInt8
        /// `FIFO_CONFIG_1`: pressure and temperature frames in stream mode (`fifo_stop_on_full` 0: the oldest frame
        /// goes when full), no sensor time; 0 with the FIFO off.
        public var fifoConfig1: UInt8
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - Rate: the slowest `odr_sel` (200 Hz / 2ⁿ) of at least `rateHz`, up to 200 Hz.
    /// - `oversampling` selects `osr_p` (the nearest of ×1…×32 at or above), lowered until the measurement time
    ///   (section 3.9.2) fits in the ODR period; `osr_t` ×2 with ×16 or ×32 pressure and ×1 otherwise (table 9's
    ///   recommendations).
    /// - `.lowPower` → ×1/×1 (table 9, "ultra low power"); `.suspend` → sleep mode (reported rate 0).
    /// - `fifo: .stream` → `FIFO_CONFIG_1` with `fifo_mode`, `fifo_press_en`, `fifo_temp_en` (section 3.6).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName, fifo: true)
        guard
            let odrSel = (0...17).reversed().first(where: { covers(BMP3xxDatasheet.rateHz(odrSel: UInt8($0)), requested.rateHz) })
        else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 200 Hz")
        }
        guard requested.oversampling >= 1 else {
            throw .unsupportedConfiguration(
                chip: chipName, detail: "oversampling \(requested.oversampling): use 1, 2, 4, 8, 16 or 32")
        }
        let rateHz = BMP3xxDatasheet.rateHz(odrSel: UInt8(odrSel))
        var pressure: O =
            requested.powerMode == .lowPower ? .x1 : (O.allCases.first { $0.factor >= requested.oversampling } ?? .x32)
        func temperature(_ p: O) -> O { p.rawValue >= O.x16.rawValue ? .x2 : .x1 }
        while pressure != .x1,
            Double(BMP3xxDatasheet.measurementTimeUs(pressure: pressure, temperature: temperature(pressure))) >= 1e6 / rateHz,
            let lower = O(rawValue: pressure.rawValue - 1)
        {
            pressure = lower
        }
        let mode: BMP3xxDatasheet.Mode = requested.powerMode == .suspend ? .sleep : .normal
        let pwrCtrl = F.mode.inserting(mode.rawValue, into: F.pressEn.inserting(1, into: F.tempEn.inserting(1, into: 0)))
        let osr = F.osrT.inserting(temperature(pressure).rawValue, into: F.osrP.inserting(pressure.rawValue, into: 0))
        let actual = SensorConfiguration(
            rateHz: mode == .normal ? rateHz : 0, powerMode: requested.powerMode,
            oversampling: pressure.factor, fifo: requested.fifo)
        let fifoConfig1 =
            requested.fifo == .stream
            ? F.fifoMode.inserting(1, into: F.fifoPressEn.inserting(1, into: F.fifoTempEn.inserting(1, into: 0))) : 0
        return Settings(
            pwrCtrl: pwrCtrl, osr: osr, odr: F.odrSel.inserting(UInt8(odrSel), into: 0),
            config: F.iirFilter.inserting(0, into: 0), fifoConfig1: fifoConfig1, actual: actual)
    }

    /// Applies `configuration` (see `registerSettings(for:)`): sleep mode first (mode changes go through sleep,
    /// section 3.3) with the FIFO off, then `OSR`, `ODR`, `CONFIG`; with the FIFO on, a FIFO flush, `FIFO_CONFIG_2` 0 (no
    /// subsampling, unfiltered data), `INT_CTRL.ffull_en` (so that `ffull_int` reports a full FIFO) and `FIFO_CONFIG_1`;
    /// then `PWR_CTRL` with the mode. `ERR_REG.conf_err` after it means the chip rejected the combination.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard calibration != nil else { throw notProbed(chip: name) }
        let s = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(
            address: address, register: Register.pwrCtrl.rawValue, value: F.mode.inserting(0, into: s.pwrCtrl))
        try bus.sensorWriteByte(address: address, register: Register.fifoConfig1.rawValue, value: 0)
        try bus.sensorWriteByte(address: address, register: Register.osr.rawValue, value: s.osr)
        try bus.sensorWriteByte(address: address, register: Register.odr.rawValue, value: s.odr)
        try bus.sensorWriteByte(address: address, register: Register.config.rawValue, value: s.config)
        if s.fifoConfig1 != 0 {
            try command(BMP3xxDatasheet.fifoFlushCommand)
            try bus.sensorWriteByte(address: address, register: Register.fifoConfig2.rawValue, value: 0)
            try bus.sensorWriteByte(address: address, register: Register.intCtrl.rawValue, value: F.ffullEn.inserting(1, into: 0))
            try bus.sensorWriteByte(address: address, register: Register.fifoConfig1.rawValue, value: s.fifoConfig1)
        }
        try bus.sensorWriteByte(address: address, register: Register.pwrCtrl.rawValue, value: s.pwrCtrl)
        let err = try bus.sensorReadByte(address: address, register: Register.errReg.rawValue)
        if F.confErr.extract(from: err) == 1 || F.fatalErr.extract(from: err) == 1 {
            throw .unsupportedConfiguration(
                chip: name, detail: "the chip set ERR_REG to \(hex(err)) after OSR \(hex(s.osr)), ODR \(hex(s.odr))")
        }
        self.configuration = s.actual
        return s.actual
    }

    /// Reads pressure and temperature in one 6-byte burst from `DATA_0` and compensates them. Throws
    /// `.invalidReading` for the 0x800000 of a measurement not yet made. Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let q = quantized else { throw notProbed(chip: name) }
        let bus = self.bus, address = self.address
        let (up, ut) = try withTemporaryBytes(byteCount: 6, alignment: 1) {
            (raw) throws(SensorError) -> (UInt32, UInt32) in
            try bus.sensorRead(address: address, register: Register.data0.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            return (Bytes.leU24(b, 0), Bytes.leU24(b, 3))
        }
        if up == BMP3xxDatasheet.skippedADC || ut == BMP3xxDatasheet.skippedADC {
            throw .invalidReading(
                chip: name, bus: bus.name, address: address,
                detail: "ADC value 0x800000: no measurement made yet; is the chip configured?")
        }
        let t = BMP3xxDatasheet.compensateTemperature(uncompensated: ut, q)
        return SensorReading(
            timeS: timeS, pressurePa: BMP3xxDatasheet.compensatePressure(uncompensated: up, temperatureC: t, q),
            temperatureC: t)
    }

    /// Writes a command after waiting (bounded) for `STATUS.cmd_rdy` (section 4.3.3).
    private func command(_ value: UInt8) throws(SensorError) {
        try bus.pollRegister(
            chip: name, address: address, register: Register.status.rawValue, initialDelayUs: 0,
            attempts: 5, intervalUs: 1000, delay: delay
        ) { F.cmdRdy.extract(from: $0) == 1 }
        try bus.sensorWriteByte(address: address, register: Register.cmd.rawValue, value: value)
    }
}

extension BMP3xx: DataReadyReporting {
    /// `STATUS.drdy_press`: a pressure measurement has not been read yet.
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard calibration != nil else { throw notProbed(chip: name) }
        return F.drdyPress.extract(from: try bus.sensorReadByte(address: address, register: Register.status.rawValue)) == 1
    }
}

extension BMP3xx: FIFOBuffering {
    /// 73 pressure-and-temperature frames (512 bytes of 7) while the FIFO is on, else 0.
    public var fifoCapacitySamples: Int {
        fifoCapacity(BMP3xxDatasheet.fifoSizeBytes / BMP3xxDatasheet.fifoFrameBytes, configuration)
    }

    /// `FIFO_LENGTH` / 7: the frames waiting (control frames, 2 bytes, make it an estimate from above by at most one).
    public mutating func fifoSampleCount() throws(SensorError) -> Int {
        guard calibration != nil else { throw notProbed(chip: name) }
        guard fifoSamplePeriodS(configuration) != nil else { return 0 }
        return try fifoLengthBytes() / BMP3xxDatasheet.fifoFrameBytes
    }

    /// Reads `INT_STATUS` (for `ffull_int`) and `FIFO_LENGTH`, then the FIFO's bytes, at most `samples.count` frames'
    /// worth, in one burst (in pieces of `maximumReadBytes` when the bus is shorter, each at `FIFO_DATA`), and decodes
    /// its frames (section 3.6.1): pressure-and-temperature frames become readings; sensor-time, empty and control
    /// frames are skipped. An unknown header ends the decode and a frame cut off by a short `samples` is lost: both set
    /// `overrun`.
    public mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> FIFODrain
    {
        guard let q = quantized else { throw notProbed(chip: name) }
        guard let periodS = fifoSamplePeriodS(configuration) else { return FIFODrain(count: 0, overrun: false) }
        let bus = self.bus, address = self.address
        let full = F.ffullInt.extract(from: try bus.sensorReadByte(address: address, register: Register.intStatus.rawValue)) == 1
        let length = try fifoLengthBytes()
        let frameBytes = BMP3xxDatasheet.fifoFrameBytes
        let toRead = min(length, BMP3xxDatasheet.fifoSizeBytes, samples.count * frameBytes)
        guard toRead > 0 else { return FIFODrain(count: 0, overrun: full) }
        let decoded = try withTemporaryBytes(byteCount: BMP3xxDatasheet.fifoSizeBytes, alignment: 1) {
            (raw) throws(SensorError) -> (count: Int, lost: Bool) in
            let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[0..<toRead])
            try bus.sensorReadFIFO(address: address, register: Register.fifoData.rawValue, frameBytes: 1, into: bytes)
            return Self.decodeFrames(UnsafeRawBufferPointer(bytes), q, into: samples)
        }
        stampFIFOSamples(
            samples, count: decoded.count, waiting: decoded.count + (length - toRead) / frameBytes,
            newestTimeS: newestTimeS, periodS: periodS)
        return FIFODrain(count: decoded.count, overrun: full || decoded.lost)
    }

    /// `FIFO_LENGTH_0/1`: bytes in the FIFO (9 bits).
    private func fifoLengthBytes() throws(SensorError) -> Int {
        let bus = self.bus, address = self.address
        return try withTemporaryBytes(byteCount: 2, alignment: 1) { (raw) throws(SensorError) -> Int in
            try bus.sensorRead(address: address, register: Register.fifoLength0.rawValue, into: raw)
            return Int(Bytes.leU16(UnsafeRawBufferPointer(raw), 0) & 0x01FF)
        }
    }

    /// Decodes the frames in `b` (section 3.6.1) into `samples` (at most `samples.count`; time stamps left to the
    /// caller): pressure-and-temperature frames compensated with `q`; sensor-time (4 bytes), empty and control frames
    /// (2 bytes) skipped. Returns how many readings it wrote, and whether bytes were lost: an unknown header (what
    /// follows cannot be framed) or a frame cut off at the end of `b`.
    private static func decodeFrames(
        _ b: UnsafeRawBufferPointer, _ q: BMP3xxDatasheet.Quantized,
        into samples: UnsafeMutableBufferPointer<SensorReading>
    ) -> (count: Int, lost: Bool) {
        typealias H = BMP3xxDatasheet.FrameHeader
        var i = 0, k = 0
        while i < b.count {
            let size: Int
            switch b[i] {
            case H.pressureAndTemperature: size = 7
            case H.temperature, H.pressure, H.sensorTime: size = 4
            case H.empty: return (k, false)
            case H.configurationError, H.configurationChange: size = 2
            default: return (k, true)
            }
            guard i + size <= b.count else { return (k, true) }
            if b[i] == H.pressureAndTemperature, k < samples.count {
                let t = BMP3xxDatasheet.compensateTemperature(uncompensated: Bytes.leU24(b, i + 1), q)
                samples[k] = SensorReading(
                    pressurePa: BMP3xxDatasheet.compensatePressure(
                        uncompensated: Bytes.leU24(b, i + 4),
                        temperatureC: t, q),
                    temperatureC: t)
                k += 1
            }
            i += size
        }
        return (k, false)
    }
}
