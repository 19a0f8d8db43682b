import LodestoneCore

/// ST LPS25H register map, fields and conversions, independent of any bus.
///
/// Source: STMicroelectronics, *LPS25H MEMS pressure sensor: 260-1260 hPa absolute digital output barometer*,
/// DocID023722 (rev. 3); section numbers below refer to it. FIFO use follows ST application note AN4450
/// (*Hardware and software guidelines for use of LPS25H pressure sensors*), section 5.
public enum LPS25HDatasheet {
    /// The register map (section 7, table 15). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        case refPXL = 0x08
        /// Device identification, read-only, 0xBD.
        case whoAmI = 0x0F
        /// `AVGT` [3:2], `AVGP` [1:0]: internal averages (section 8.3).
        case resConf = 0x10
        /// `PD` [7], `ODR` [6:4], `DIFF_EN` [3], `BDU` [2], `RESET_AZ` [1], `SIM` [0] (section 8.4).
        case ctrlReg1 = 0x20
        /// `BOOT` [7], `FIFO_EN` [6], `WTM_EN` [5], `FIFO_MEAN_DEC` [4], `I2C_DIS` [3], `SWRESET` [2], `AUTO_ZERO` [1],
        /// `ONE_SHOT` [0] (section 8.5).
        case ctrlReg2 = 0x21
        case ctrlReg3 = 0x22
        case ctrlReg4 = 0x23
        case interruptCfg = 0x24
        case intSource = 0x25
        /// `P_OR` [5], `T_OR` [4], `P_DA` [1], `T_DA` [0] (section 8.10).
        case statusReg = 0x27
        /// Pressure, 24-bit two's complement little-endian, then temperature, 16-bit (sections 8.11–8.15).
        case pressOutXL = 0x28
        case tempOutL = 0x2B
        /// `F_MODE` [7:5], `WTM_POINT` [4:0] (section 8.16).
        case fifoCtrl = 0x2E
        /// `WTM_FIFO` [7], `FULL_FIFO` [6], `EMPTY_FIFO` [5], `DIFF_POINT` [4:0]: unread samples (section 8.17).
        case fifoStatus = 0x2F
        case thsPL = 0x30
        case thsPH = 0x31
        case rpdsL = 0x39
        case rpdsH = 0x3A
    }

    /// Register fields.
    public enum Field {
        public static let avgt = BitField(mask: 0b0000_1100)
        public static let avgp = BitField(mask: 0b0000_0011)
        public static let pd = BitField(mask: 0b1000_0000)
        public static let odr = BitField(mask: 0b0111_0000)
        public static let bdu = BitField(mask: 0b0000_0100)
        public static let boot = BitField(mask: 0b1000_0000)
        public static let fifoEn = BitField(mask: 0b0100_0000)
        public static let swreset = BitField(mask: 0b0000_0100)
        public static let oneShot = BitField(mask: 0b0000_0001)
        public static let pOR = BitField(mask: 0b0010_0000)
        public static let tOR = BitField(mask: 0b0001_0000)
        public static let pDA = BitField(mask: 0b0000_0010)
        public static let tDA = BitField(mask: 0b0000_0001)
        public static let fMode = BitField(mask: 0b1110_0000)
        public static let wtmPoint = BitField(mask: 0b0001_1111)
        public static let wtmFIFO = BitField(mask: 0b1000_0000)
        public static let fullFIFO = BitField(mask: 0b0100_0000)
        public static let emptyFIFO = BitField(mask: 0b0010_0000)
        public static let diffPoint = BitField(mask: 0b0001_1111)
    }

    /// `ODR` settings (table 18).
    public enum DataRate: UInt8, Sendable, CaseIterable {
        case oneShot = 0, hz1, hz7, hz12_5, hz25
        /// The output data rate, Hz (0 in one-shot mode).
        public var rateHz: Double {
            switch self {
            case .oneShot: 0
            case .hz1: 1
            case .hz7: 7
            case .hz12_5: 12.5
            case .hz25: 25
            }
        }
    }

    /// `AVGP` settings (table 17): internal pressure averages.
    public enum PressureAverages: UInt8, Sendable, CaseIterable {
        case avg8 = 0, avg32, avg128, avg512
        /// Number of internal averages.
        public var count: Int { 8 << (2 * Int(rawValue)) }
    }

    /// `F_MODE` settings (table 21).
    public enum FIFOMode: UInt8, Sendable, CaseIterable {
        case bypass = 0b000, fifo = 0b001, stream = 0b010, streamToFIFO = 0b011, bypassToStream = 0b100
        case fifoMean = 0b110, bypassToFIFO = 0b111
    }

    /// The `WHO_AM_I` value.
    public static let whoAmIValue: UInt8 = 0xBD
    /// 7-bit I2C addresses: SA0 low gives 0x5C (the Raspberry Pi Sense HAT), high 0x5D (section 5.2.1).
    public static let addresses: [UInt8] = [0x5C, 0x5D]
    /// Set in the I2C sub-address for a multi-byte transfer to auto-increment (section 5.2.1).
    public static let autoIncrementBit: UInt8 = 0x80
    /// Pressure sensitivity, LSB/hPa (table 3, PSens).
    public static var pressureLSBPerHPa: Double { STPressureOutput.pressureLSBPerHPa }
    /// Temperature: `T = 42.5 + TEMP_OUT / 480` °C (section 8.14, TEMP_OUT).
    public static let temperatureLSBPerC = 480.0
    public static let temperatureOffsetC = 42.5
    /// FIFO depth, pressure samples (AN4450 section 5.1: 32 slots × 24 bits; temperature is not buffered).
    public static let fifoDepth = 32
    /// Time the software reset and boot take, µs (the datasheet gives none for the reset; the boot, 2.2 ms typ).
    public static let softResetTimeUs = 4000

    /// Pressure in Pa from the 24-bit output: `raw / 4096` hPa.
    public static func pressurePa(raw: Int32) -> Double { STPressureOutput.pressurePa(raw: raw) }
    /// Temperature in °C from `TEMP_OUT`: `42.5 + raw / 480`.
    @inlinable public static func temperatureC(raw: Int16) -> Double { temperatureOffsetC + Double(raw) / temperatureLSBPerC }
}

/// Driver for the ST LPS25H barometer and thermometer (DocID023722), generic over its bus; the Raspberry Pi Sense
/// HAT carries one at 0x5C.
///
/// Active mode at an `ODR` rate with `BDU` set, internal averaging from `oversampling`, pressure and temperature
/// in one 5-byte burst (sub-address bit 7 set for auto-increment). Data-ready is `STATUS_REG.P_DA`; with
/// `fifo: .stream` the 32-sample pressure FIFO runs in stream mode and `drainFIFO` reads it in one burst (with the
/// FIFO on, the address rolls back from `PRESS_OUT_H` to `PRESS_OUT_XL`, AN4450 figure 8, so a bus that reads less
/// at a time gets whole 3-byte samples), with the temperature read once beside it. The chip has no overrun flag for
/// its FIFO: `overrun` is `FIFO_STATUS.FULL_FIFO` (in stream mode the next sample overwrites the oldest). No
/// wake-on-motion.
public struct LPS25H<Bus: RegisterBus>: SensorDriver {
    /// The register map (`LPS25HDatasheet.Register`).
    public typealias Register = LPS25HDatasheet.Register
    private typealias F = LPS25HDatasheet.Field

    public static var chipName: String { "lps25h" }
    public static var kinds: [SensorKind] { [.barometer, .thermometer] }
    public static var addresses: [UInt8] { LPS25HDatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only after the software reset in `probe()`.
    public let delay: @Sendable (Int) -> Void
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var isProbed = false

    /// A driver for the LPS25H at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = LPS25HDatasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `WHO_AM_I`, software-resets (`CTRL_REG2.SWRESET` with `BOOT`), waits and checks `WHO_AM_I` again.
    /// Leaves the chip in power-down (its reset state).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        isProbed = false
        configuration = nil
        let id = try bus.identifyAndReset(
            chip: Self.chipName, address: address, idRegister: Register.whoAmI.rawValue,
            expected: [LPS25HDatasheet.whoAmIValue], resetRegister: Register.ctrlReg2.rawValue,
            resetValue: F.boot.mask | F.swreset.mask, resetTimeUs: LPS25HDatasheet.softResetTimeUs,
            delay: delay)
        isProbed = true
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration and what they give.
    public struct Settings: Sendable, Hashable {
        public var resConf: UInt8
        public var ctrlReg1: UInt8
        /// `CTRL_REG2`: `FIFO_EN` with the FIFO on, else 0.
        public var ctrlReg2: UInt8
        /// `FIFO_CTRL` after the bypass that empties the FIFO: stream mode, or 0 (bypass) with the FIFO off.
        public var fifoCtrl: UInt8
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - Rate: the slowest `ODR` of at least `rateHz` (1, 7, 12.5, 25 Hz).
    /// - `oversampling` (relative to the least averaging) selects `AVGP`: 1 → 8 internal averages, up to 4 → 32,
    ///   up to 16 → 128, more → 512 (not at 25 Hz, section 8.3); `AVGT` 16 (its reset value), 8 with 8 pressure
    ///   averages. The reported `oversampling` is `AVGP / 8`.
    /// - `.lowPower`: 8 and 8 averages (the least current, table 4); `.suspend`: power-down (`PD` 0; rate 0).
    /// - `fifo: .stream`: `CTRL_REG2.FIFO_EN` and `FIFO_CTRL.F_MODE` stream (AN4450 section 5.1).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName, fifo: true)
        guard
            let dataRate = LPS25HDatasheet.DataRate.allCases.first(where: {
                $0 != .oneShot && covers($0.rateHz, requested.rateHz)
            })
        else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 25 Hz")
        }
        guard requested.oversampling >= 1 else {
            throw .unsupportedConfiguration(chip: chipName, detail: "oversampling \(requested.oversampling): use 1 to 64")
        }
        typealias A = LPS25HDatasheet.PressureAverages
        var averages: A =
            requested.powerMode == .lowPower
            ? .avg8
            : (A.allCases.first { $0.count >= 8 * requested.oversampling } ?? .avg512)
        if averages == .avg512 && dataRate == .hz25 { averages = .avg128 }
        let avgt: UInt8 = averages == .avg8 ? 0b00 : 0b01
        let active = requested.powerMode != .suspend
        let ctrlReg1 = F.pd.inserting(active ? 1 : 0, into: F.bdu.inserting(1, into: F.odr.inserting(dataRate.rawValue, into: 0)))
        let fifo = requested.fifo == .stream
        return Settings(
            resConf: F.avgt.inserting(avgt, into: F.avgp.inserting(averages.rawValue, into: 0)), ctrlReg1: ctrlReg1,
            ctrlReg2: F.fifoEn.inserting(fifo ? 1 : 0, into: 0),
            fifoCtrl: fifo ? F.fMode.inserting(LPS25HDatasheet.FIFOMode.stream.rawValue, into: 0) : 0,
            actual: SensorConfiguration(
                rateHz: active ? dataRate.rateHz : 0, powerMode: requested.powerMode,
                oversampling: averages.count / 8, fifo: requested.fifo))
    }

    /// Applies `configuration` (see `registerSettings(for:)`): power-down first, `RES_CONF`, `CTRL_REG2` (`FIFO_EN`),
    /// `FIFO_CTRL` bypass (which empties the FIFO: modes change through bypass, AN4450 section 5.1) and stream mode if
    /// the FIFO is on, then `CTRL_REG1` with `PD` and the rate.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(
            address: address, register: Register.ctrlReg1.rawValue, value: F.pd.inserting(0, into: s.ctrlReg1))
        try bus.sensorWriteByte(address: address, register: Register.resConf.rawValue, value: s.resConf)
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg2.rawValue, value: s.ctrlReg2)
        try bus.sensorWriteByte(address: address, register: Register.fifoCtrl.rawValue, value: 0)
        if s.fifoCtrl != 0 { try bus.sensorWriteByte(address: address, register: Register.fifoCtrl.rawValue, value: s.fifoCtrl) }
        if F.pd.extract(from: s.ctrlReg1) == 1 {
            try bus.sensorWriteByte(address: address, register: Register.ctrlReg1.rawValue, value: s.ctrlReg1)
        }
        self.configuration = s.actual
        return s.actual
    }

    /// Reads pressure and temperature in one 5-byte auto-incrementing burst from `PRESS_OUT_XL`. Throws
    /// `.invalidReading` for a pressure of 0 or below (no measurement yet: the range starts at 260 hPa).
    /// Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let raw = try STPressureOutput.readRaw(
            bus: bus, address: address, register: Register.pressOutXL.rawValue | LPS25HDatasheet.autoIncrementBit,
            chip: Self.chipName)
        return SensorReading(
            timeS: timeS, pressurePa: STPressureOutput.pressurePa(raw: raw.pressure),
            temperatureC: LPS25HDatasheet.temperatureC(raw: raw.temperature))
    }
}

extension LPS25H: DataReadyReporting {
    /// `STATUS_REG.P_DA`: a pressure sample has not been read yet.
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return F.pDA.extract(from: try bus.sensorReadByte(address: address, register: Register.statusReg.rawValue)) == 1
    }
}

extension LPS25H: FIFOBuffering {
    /// 32 pressure samples while the FIFO is on, else 0.
    public var fifoCapacitySamples: Int { fifoCapacity(LPS25HDatasheet.fifoDepth, configuration) }

    /// Unread samples from `FIFO_STATUS`: 32 when `FULL_FIFO`, 0 when `EMPTY_FIFO`, else `DIFF_POINT`.
    public mutating func fifoSampleCount() throws(SensorError) -> Int {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        guard fifoSamplePeriodS(configuration) != nil else { return 0 }
        return fifoStatus(try bus.sensorReadByte(address: address, register: Register.fifoStatus.rawValue)).count
    }

    /// Reads `FIFO_STATUS`, the temperature (not buffered: it belongs to the newest sample, AN4450 section 5.1, and is
    /// given to all), then up to `samples.count` samples of 3 bytes in one burst from `PRESS_OUT_XL` (in whole samples
    /// when the bus reads less at a time). `overrun` is `FULL_FIFO`. A pressure of 0 or below is an `.invalidReading`,
    /// and then nothing is written.
    public mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> FIFODrain
    {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        guard let periodS = fifoSamplePeriodS(configuration) else { return FIFODrain(count: 0, overrun: false) }
        let bus = self.bus, address = self.address
        let status = fifoStatus(try bus.sensorReadByte(address: address, register: Register.fifoStatus.rawValue))
        guard status.count > 0, samples.count > 0 else { return FIFODrain(count: 0, overrun: status.full) }
        let temperatureRaw = try withTemporaryBytes(byteCount: 2, alignment: 1) { (raw) throws(SensorError) -> Int16 in
            try bus.sensorRead(
                address: address, register: Register.tempOutL.rawValue | LPS25HDatasheet.autoIncrementBit, into: raw)
            return Bytes.leS16(UnsafeRawBufferPointer(raw), 0)
        }
        let temperatureC = LPS25HDatasheet.temperatureC(raw: temperatureRaw)
        let count = try STPressureOutput.drainFIFO(
            bus: bus, address: address, register: Register.pressOutXL.rawValue | LPS25HDatasheet.autoIncrementBit, slotBytes: 3,
            waiting: status.count, newestTimeS: newestTimeS, periodS: periodS, chip: Self.chipName, into: samples
        ) { _, _ in temperatureC }
        return FIFODrain(count: count, overrun: status.full)
    }

    /// Unread samples and `FULL_FIFO` from `FIFO_STATUS` (`DIFF_POINT`, five bits, cannot say 32).
    private func fifoStatus(_ value: UInt8) -> (count: Int, full: Bool) {
        let full = F.fullFIFO.extract(from: value) == 1
        let count =
            full ? LPS25HDatasheet.fifoDepth : (F.emptyFIFO.extract(from: value) == 1 ? 0 : Int(F.diffPoint.extract(from: value)))
        return (count, full)
    }
}
