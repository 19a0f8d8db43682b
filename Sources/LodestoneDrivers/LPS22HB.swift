import LodestoneCore

/// ST LPS22HB register map, fields and conversions, independent of any bus.
///
/// Source: STMicroelectronics, *LPS22HB MEMS nano pressure sensor: 260-1260 hPa absolute digital output
/// barometer*, DocID027083 (rev. 6); section numbers below refer to it. FIFO use follows ST application note
/// AN4833 (*Measuring pressure data from ST's LPS22HB digital pressure sensor*).
public enum LPS22HBDatasheet {
    /// The register map (section 8, table 16). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        case interruptCfg = 0x0B
        case thsPL = 0x0C
        case thsPH = 0x0D
        /// Device identification, read-only, 0xB1.
        case whoAmI = 0x0F
        /// `ODR` [6:4], `EN_LPFP` [3], `LPFP_CFG` [2], `BDU` [1], `SIM` [0] (section 9.5).
        case ctrlReg1 = 0x10
        /// `BOOT` [7], `FIFO_EN` [6], `STOP_ON_FTH` [5], `IF_ADD_INC` [4] (reset 1), `I2C_DIS` [3], `SWRESET` [2],
        /// `ONE_SHOT` [0] (section 9.6).
        case ctrlReg2 = 0x11
        /// Interrupt control (section 9.7).
        case ctrlReg3 = 0x12
        /// `F_MODE` [7:5], `WTM` [4:0] (section 9.8).
        case fifoCtrl = 0x14
        case refPXL = 0x15
        case rpdsL = 0x18
        /// `LC_EN` [0]: low-current mode (section 9.12).
        case resConf = 0x1A
        /// `BOOT_STATUS` [7], interrupt sources (section 9.13).
        case intSource = 0x25
        /// `FTH_FIFO` [7], `OVR` [6], `FSS` [5:0]: samples stored, 0…32 (section 9.14).
        case fifoStatus = 0x26
        /// `T_OR` [5], `P_OR` [4], `T_DA` [1], `P_DA` [0] (section 9.15).
        case status = 0x27
        /// Pressure, 24-bit two's complement little-endian (`PRESS_OUT_XL`, `_L`, `_H`), then temperature,
        /// 16-bit two's complement (`TEMP_OUT_L`, `_H`).
        case pressOutXL = 0x28
        case tempOutL = 0x2B
        case tempOutH = 0x2C
        /// Reading it resets the low-pass filter.
        case lpfpRes = 0x33
    }

    /// Register fields.
    public enum Field {
        public static let odr = BitField(mask: 0b0111_0000)
        public static let enLPFP = BitField(mask: 0b0000_1000)
        public static let bdu = BitField(mask: 0b0000_0010)
        public static let fifoEn = BitField(mask: 0b0100_0000)
        public static let ifAddInc = BitField(mask: 0b0001_0000)
        public static let swreset = BitField(mask: 0b0000_0100)
        public static let oneShot = BitField(mask: 0b0000_0001)
        public static let fMode = BitField(mask: 0b1110_0000)
        public static let wtm = BitField(mask: 0b0001_1111)
        public static let lcEn = BitField(mask: 0b0000_0001)
        public static let fthFIFO = BitField(mask: 0b1000_0000)
        public static let ovr = BitField(mask: 0b0100_0000)
        public static let fss = BitField(mask: 0b0011_1111)
        public static let tOR = BitField(mask: 0b0010_0000)
        public static let pOR = BitField(mask: 0b0001_0000)
        public static let tDA = BitField(mask: 0b0000_0010)
        public static let pDA = BitField(mask: 0b0000_0001)
    }

    /// `ODR` settings (table 17).
    public enum DataRate: UInt8, Sendable, CaseIterable {
        case powerDown = 0, hz1, hz10, hz25, hz50, hz75
        /// The output data rate, Hz (0 in power-down / one-shot).
        public var rateHz: Double {
            switch self {
            case .powerDown: 0
            case .hz1: 1
            case .hz10: 10
            case .hz25: 25
            case .hz50: 50
            case .hz75: 75
            }
        }
    }

    /// `F_MODE` settings (section 9.8, table 19).
    public enum FIFOMode: UInt8, Sendable, CaseIterable {
        case bypass = 0b000, fifo = 0b001, stream = 0b010, streamToFIFO = 0b011, bypassToStream = 0b100
        case dynamicStream = 0b110, bypassToFIFO = 0b111
    }

    /// The `WHO_AM_I` value.
    public static let whoAmIValue: UInt8 = 0xB1
    /// 7-bit I2C addresses: SA0 high gives 0x5D (most breakouts), low 0x5C (section 7.2.1).
    public static let addresses: [UInt8] = [0x5D, 0x5C]
    /// Pressure sensitivity, LSB/hPa (table 3, PSens).
    public static var pressureLSBPerHPa: Double { STPressureOutput.pressureLSBPerHPa }
    /// Temperature sensitivity, LSB/°C (table 3, TSens).
    public static let temperatureLSBPerC = 100.0
    /// FIFO depth, samples of pressure and temperature (section 6.1).
    public static let fifoDepth = 32
    /// Bytes of one FIFO slot as read from `PRESS_OUT_XL` (3 pressure + 2 temperature).
    public static let fifoSlotBytes = 5
    /// Time the software reset takes, µs (the datasheet gives none; the boot time, table 4, is 4.5 ms at most).
    public static let softResetTimeUs = 4500

    /// Pressure in Pa from the 24-bit output: `raw / 4096` hPa.
    public static func pressurePa(raw: Int32) -> Double { STPressureOutput.pressurePa(raw: raw) }
    /// Temperature in °C from `TEMP_OUT`: `raw / 100`.
    @inlinable public static func temperatureC(raw: Int16) -> Double { Double(raw) / temperatureLSBPerC }
}

/// Driver for the ST LPS22HB barometer and thermometer (DocID027083), generic over its bus.
///
/// Continuous mode at an `ODR` rate with `BDU` set (the bytes of one sample always come from one measurement),
/// pressure and temperature in one 5-byte burst (the chip auto-increments through `IF_ADD_INC`, on by default;
/// it does not use bit 7 of the sub-address as ST's motion sensors do). Data-ready is `STATUS.P_DA`; with
/// `fifo: .stream` the 32-slot FIFO runs in stream mode and `drainFIFO` reads it in one burst (the address rolls back
/// from `TEMP_OUT_H` to `PRESS_OUT_XL` while the FIFO is on, AN4833, so a bus that reads less at a time gets whole
/// 5-byte slots). `overrun` is `FIFO_STATUS.OVR`. No wake-on-motion.
public struct LPS22HB<Bus: RegisterBus>: SensorDriver {
    /// The register map (`LPS22HBDatasheet.Register`).
    public typealias Register = LPS22HBDatasheet.Register
    private typealias F = LPS22HBDatasheet.Field

    public static var chipName: String { "lps22hb" }
    public static var kinds: [SensorKind] { [.barometer, .thermometer] }
    public static var addresses: [UInt8] { LPS22HBDatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only after the software reset in `probe()`.
    public let delay: @Sendable (Int) -> Void
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var isProbed = false

    /// A driver for the LPS22HB at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = LPS22HBDatasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `WHO_AM_I`, software-resets (`CTRL_REG2.SWRESET`), waits and checks `WHO_AM_I` again. Leaves the
    /// chip in power-down with the FIFO off (its reset state).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        isProbed = false
        configuration = nil
        let reset = F.swreset.inserting(1, into: F.ifAddInc.inserting(1, into: 0))
        let id = try bus.identifyAndReset(
            chip: Self.chipName, address: address, idRegister: Register.whoAmI.rawValue,
            expected: [LPS22HBDatasheet.whoAmIValue], resetRegister: Register.ctrlReg2.rawValue,
            resetValue: reset, resetTimeUs: LPS22HBDatasheet.softResetTimeUs, delay: delay)
        isProbed = true
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration and what they give.
    public struct Settings: Sendable, Hashable {
        public var ctrlReg1: UInt8
        public var ctrlReg2: UInt8
        public var resConf: UInt8
        /// `FIFO_CTRL` after the bypass that empties the FIFO: stream mode, or 0 (bypass) with the FIFO off.
        public var fifoCtrl: UInt8
        public var dataRate: LPS22HBDatasheet.DataRate
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - `.normal`: the slowest `ODR` of at least `rateHz` (1, 10, 25, 50, 75 Hz), low-pass filter off.
    /// - `.lowPower`: the same rate in low-current mode (`RES_CONF.LC_EN`, section 9.12: lower current, more noise).
    /// - `.suspend`: power-down (`ODR` 0; reported rate 0).
    /// - `fifo: .stream`: `CTRL_REG2.FIFO_EN` and `FIFO_CTRL.F_MODE` stream (AN4833 section 6).
    /// The LPS22HB has no oversampling setting: `oversampling` is reported as 1.
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName, fifo: true)
        guard
            let rate = LPS22HBDatasheet.DataRate.allCases.first(where: { $0 != .powerDown && covers($0.rateHz, requested.rateHz) }
            )
        else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 75 Hz")
        }
        let dataRate: LPS22HBDatasheet.DataRate = requested.powerMode == .suspend ? .powerDown : rate
        let fifo = requested.fifo == .stream
        return Settings(
            ctrlReg1: F.bdu.inserting(1, into: F.odr.inserting(dataRate.rawValue, into: 0)),
            ctrlReg2: F.fifoEn.inserting(fifo ? 1 : 0, into: F.ifAddInc.inserting(1, into: 0)),
            resConf: F.lcEn.inserting(requested.powerMode == .lowPower ? 1 : 0, into: 0),
            fifoCtrl: fifo ? F.fMode.inserting(LPS22HBDatasheet.FIFOMode.stream.rawValue, into: 0) : 0,
            dataRate: dataRate,
            actual: SensorConfiguration(
                rateHz: dataRate.rateHz, powerMode: requested.powerMode, oversampling: 1,
                fifo: requested.fifo))
    }

    /// Applies `configuration` (see `registerSettings(for:)`): power-down first (`LC_EN` may change only in
    /// power-down, section 9.12), then `RES_CONF`, `CTRL_REG2` (`FIFO_EN`, auto-increment on), `FIFO_CTRL` bypass
    /// (which empties the FIFO: modes change through bypass, AN4833 section 6) and stream mode if the FIFO is on, and
    /// `CTRL_REG1` with the rate last.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(
            address: address, register: Register.ctrlReg1.rawValue, value: F.odr.inserting(0, into: s.ctrlReg1))
        try bus.sensorWriteByte(address: address, register: Register.resConf.rawValue, value: s.resConf)
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg2.rawValue, value: s.ctrlReg2)
        try bus.sensorWriteByte(address: address, register: Register.fifoCtrl.rawValue, value: 0)
        if s.fifoCtrl != 0 { try bus.sensorWriteByte(address: address, register: Register.fifoCtrl.rawValue, value: s.fifoCtrl) }
        if s.dataRate != .powerDown {
            try bus.sensorWriteByte(address: address, register: Register.ctrlReg1.rawValue, value: s.ctrlReg1)
        }
        self.configuration = s.actual
        return s.actual
    }

    /// Reads pressure and temperature in one 5-byte burst from `PRESS_OUT_XL`. Throws `.invalidReading` for a
    /// pressure of 0 or below, which the chip reports before its first measurement (and never measures: its range
    /// starts at 260 hPa). Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let raw = try STPressureOutput.readRaw(
            bus: bus, address: address, register: Register.pressOutXL.rawValue, chip: Self.chipName)
        return SensorReading(
            timeS: timeS, pressurePa: STPressureOutput.pressurePa(raw: raw.pressure),
            temperatureC: LPS22HBDatasheet.temperatureC(raw: raw.temperature))
    }
}

extension LPS22HB: DataReadyReporting {
    /// `STATUS.P_DA`: a pressure sample has not been read yet.
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return F.pDA.extract(from: try bus.sensorReadByte(address: address, register: Register.status.rawValue)) == 1
    }
}

extension LPS22HB: FIFOBuffering {
    /// 32 slots of pressure and temperature while the FIFO is on, else 0.
    public var fifoCapacitySamples: Int { fifoCapacity(LPS22HBDatasheet.fifoDepth, configuration) }

    /// `FIFO_STATUS.FSS`: slots stored.
    public mutating func fifoSampleCount() throws(SensorError) -> Int {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        guard fifoSamplePeriodS(configuration) != nil else { return 0 }
        return fifoStatus(try bus.sensorReadByte(address: address, register: Register.fifoStatus.rawValue)).count
    }

    /// Reads `FIFO_STATUS` (`FSS` slots stored, `OVR`), then up to `samples.count` slots of 5 bytes in one burst from
    /// `PRESS_OUT_XL` (in whole slots when the bus reads less at a time). A slot with a pressure of 0 or below is an
    /// `.invalidReading`, and then nothing is written.
    public mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> FIFODrain
    {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        guard let periodS = fifoSamplePeriodS(configuration) else { return FIFODrain(count: 0, overrun: false) }
        let status = fifoStatus(try bus.sensorReadByte(address: address, register: Register.fifoStatus.rawValue))
        let slot = LPS22HBDatasheet.fifoSlotBytes
        let count = try STPressureOutput.drainFIFO(
            bus: bus, address: address, register: Register.pressOutXL.rawValue, slotBytes: slot, waiting: status.count,
            newestTimeS: newestTimeS, periodS: periodS, chip: Self.chipName, into: samples
        ) { b, k in LPS22HBDatasheet.temperatureC(raw: Bytes.leS16(b, k * slot + 3)) }
        return FIFODrain(count: count, overrun: status.overrun)
    }

    /// `FSS` (at most 32) and `OVR` from `FIFO_STATUS`.
    private func fifoStatus(_ value: UInt8) -> (count: Int, overrun: Bool) {
        (min(Int(F.fss.extract(from: value)), LPS22HBDatasheet.fifoDepth), F.ovr.extract(from: value) == 1)
    }
}
