import LodestoneCore

/// ST LIS3MDL register map, fields and conversion constants, independent of any bus.
///
/// Source: STMicroelectronics, *LIS3MDL digital output magnetic sensor*, DocID024204 (rev. 5 and later);
/// section and table numbers below refer to it.
public enum LIS3MDLDatasheet {
    /// The register address map (section 7). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Device identification, read-only, 0x3D (section 8.1).
        case whoAmI = 0x0F
        /// `TEMP_EN` [7], `OM` [6:5], `DO` [4:2], `FAST_ODR` [1], `ST` [0] (section 8.2).
        case ctrlReg1 = 0x20
        /// `FS` [6:5], `REBOOT` [3], `SOFT_RST` [2] (section 8.3).
        case ctrlReg2 = 0x21
        /// `LP` [5], `SIM` [2], `MD` [1:0] (section 8.4).
        case ctrlReg3 = 0x22
        /// `OMZ` [3:2], `BLE` [1] (section 8.5).
        case ctrlReg4 = 0x23
        /// `FAST_READ` [7], `BDU` [6] (section 8.6).
        case ctrlReg5 = 0x24
        /// `ZYXOR`, `ZOR`, `YOR`, `XOR`, `ZYXDA`, `ZDA`, `YDA`, `XDA`, read-only (section 8.7).
        case statusReg = 0x27
        /// X output, two's complement, low byte (section 8.8).
        case outXL = 0x28
        case outXH = 0x29
        /// Y output (section 8.9).
        case outYL = 0x2A
        case outYH = 0x2B
        /// Z output (section 8.10).
        case outZL = 0x2C
        case outZH = 0x2D
        /// Temperature output, two's complement, 8 LSB/°C (section 8.11).
        case tempOutL = 0x2E
        case tempOutH = 0x2F
        /// Interrupt configuration (section 8.12).
        case intCfg = 0x30
        /// Interrupt source, read-only (section 8.13).
        case intSrc = 0x31
        /// Interrupt threshold (section 8.14).
        case intThsL = 0x32
        case intThsH = 0x33
    }

    /// Register fields (section 8).
    public enum Field {
        /// `CTRL_REG1.TEMP_EN`: temperature sensor enable.
        public static let tempEn = BitField(mask: 0b1000_0000)
        /// `CTRL_REG1.OM`: X/Y operating mode (`OperatingMode`, section 8.2).
        public static let om = BitField(mask: 0b0110_0000)
        /// `CTRL_REG1.DO`: output data rate (`DataRate`, section 8.2).
        public static let dataRate = BitField(mask: 0b0001_1100)
        /// `CTRL_REG1.FAST_ODR`: data rates above 80 Hz, set by the operating mode.
        public static let fastODR = BitField(mask: 0b0000_0010)
        /// `CTRL_REG1.ST`: self-test.
        public static let selfTest = BitField(mask: 0b0000_0001)
        /// `CTRL_REG2.FS`: full scale (`FullScale`, section 8.3).
        public static let fs = BitField(mask: 0b0110_0000)
        /// `CTRL_REG2.REBOOT`: reload the trim from memory.
        public static let reboot = BitField(mask: 0b0000_1000)
        /// `CTRL_REG2.SOFT_RST`: reset configuration and user registers; clears itself.
        public static let softRst = BitField(mask: 0b0000_0100)
        /// `CTRL_REG3.LP`: low-power (0.625 Hz) mode.
        public static let lp = BitField(mask: 0b0010_0000)
        /// `CTRL_REG3.SIM`: SPI 3-wire.
        public static let sim = BitField(mask: 0b0000_0100)
        /// `CTRL_REG3.MD`: measurement mode (`MeasurementMode`, section 8.4).
        public static let md = BitField(mask: 0b0000_0011)
        /// `CTRL_REG4.OMZ`: Z operating mode (`OperatingMode`, section 8.5).
        public static let omz = BitField(mask: 0b0000_1100)
        /// `CTRL_REG4.BLE`: big-endian output (0 = little-endian, the reset value).
        public static let ble = BitField(mask: 0b0000_0010)
        /// `CTRL_REG5.FAST_READ`: read only the high bytes.
        public static let fastRead = BitField(mask: 0b1000_0000)
        /// `CTRL_REG5.BDU`: block data update (output registers not updated until both bytes are read).
        public static let bdu = BitField(mask: 0b0100_0000)
        /// `STATUS_REG.ZYXOR`: X, Y and Z data overrun.
        public static let zyxor = BitField(mask: 0b1000_0000)
        /// `STATUS_REG.ZOR`, `YOR`, `XOR`: per-axis overrun.
        public static let zor = BitField(mask: 0b0100_0000)
        public static let yor = BitField(mask: 0b0010_0000)
        public static let xor = BitField(mask: 0b0001_0000)
        /// `STATUS_REG.ZYXDA`: new X, Y and Z data available.
        public static let zyxda = BitField(mask: 0b0000_1000)
        /// `STATUS_REG.ZDA`, `YDA`, `XDA`: per-axis new data.
        public static let zda = BitField(mask: 0b0000_0100)
        public static let yda = BitField(mask: 0b0000_0010)
        public static let xda = BitField(mask: 0b0000_0001)
    }

    /// `FS` settings (section 8.3) with their sensitivities (table 3).
    public enum FullScale: UInt8, Sendable, CaseIterable {
        case gauss4 = 0b00, gauss8 = 0b01, gauss12 = 0b10, gauss16 = 0b11
        /// The full scale, ± gauss.
        public var rangeGauss: Double {
            switch self {
            case .gauss4: 4
            case .gauss8: 8
            case .gauss12: 12
            case .gauss16: 16
            }
        }
        /// The typical sensitivity, LSB/gauss (table 3, GN).
        public var sensitivityLSBPerGauss: Double {
            switch self {
            case .gauss4: 6842
            case .gauss8: 3421
            case .gauss12: 2281
            case .gauss16: 1711
            }
        }
    }

    /// `OM` / `OMZ` settings (sections 8.2 and 8.5), with the data rate each gives with `FAST_ODR` (section 8.2).
    public enum OperatingMode: UInt8, Sendable, CaseIterable {
        case lowPower = 0b00, mediumPerformance = 0b01, highPerformance = 0b10, ultraHighPerformance = 0b11
        /// The output data rate with `FAST_ODR` set, Hz.
        public var fastODRRateHz: Double {
            switch self {
            case .lowPower: 1000
            case .mediumPerformance: 560
            case .highPerformance: 300
            case .ultraHighPerformance: 155
            }
        }
    }

    /// `DO` settings without `FAST_ODR` (section 8.2).
    public enum DataRate: UInt8, Sendable, CaseIterable {
        case hz0_625 = 0, hz1_25, hz2_5, hz5, hz10, hz20, hz40, hz80
        /// The output data rate, Hz.
        public var rateHz: Double { 0.625 * Double(1 << Int(rawValue)) }
    }

    /// `MD` settings (section 8.4). 0b10 is also power-down; this driver writes 0b11, the reset value.
    public enum MeasurementMode: UInt8, Sendable, CaseIterable {
        case continuous = 0b00, single = 0b01, powerDown = 0b11
    }

    /// The `WHO_AM_I` value.
    public static let whoAmIValue: UInt8 = 0x3D
    /// 7-bit I2C addresses: SDO/SA1 to GND gives 0x1C, to VDD 0x1E (section 5.1.1).
    public static let addresses: [UInt8] = [0x1C, 0x1E]
    /// Set in the I2C sub-address for a multi-byte transfer to auto-increment (section 5.1.1).
    public static let autoIncrementBit: UInt8 = 0x80
    /// Temperature sensitivity, LSB/°C (table 3, TSDr).
    public static let temperatureLSBPerC = 8.0
    /// Temperature that reads as 0 LSB, °C.
    public static let temperatureZeroC = 25.0
    /// Time a soft reset takes before registers can be written, µs (conservative: the datasheet gives none).
    public static let softResetTimeUs = 1000

    /// Converts a raw axis value to µT for `fullScale`: `raw / GN · 100 µT/gauss`.
    @inlinable public static func magneticFieldMicroTesla(raw: Int16, fullScale: FullScale) -> Double {
        Double(raw) / fullScale.sensitivityLSBPerGauss * PhysicalConstants.microTeslaPerGauss
    }

    /// Converts `TEMP_OUT` to °C: `25 + raw / 8`.
    @inlinable public static func temperatureC(raw: Int16) -> Double {
        temperatureZeroC + Double(raw) / temperatureLSBPerC
    }
}

/// Driver for the ST LIS3MDL three-axis magnetometer (DocID024204), generic over its bus.
///
/// Reports the field in µT and the die temperature in °C, in the chip's axes. Sets `BDU` so the two bytes of an
/// axis always come from one measurement, and `TEMP_EN` so every reading carries a temperature.
public struct LIS3MDL<Bus: RegisterBus>: SensorDriver {
    /// The register map (`LIS3MDLDatasheet.Register`).
    public typealias Register = LIS3MDLDatasheet.Register

    public static var chipName: String { "lis3mdl" }
    public static var kinds: [SensorKind] { [.magnetometer, .thermometer] }
    public static var addresses: [UInt8] { LIS3MDLDatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only after the soft reset in `probe()`.
    public let delay: @Sendable (Int) -> Void
    /// The full scale in use: the reset value ±4 gauss after `probe()`, then what `configure(_:)` set; `nil` before.
    public private(set) var fullScale: LIS3MDLDatasheet.FullScale?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var isProbed = false

    /// A driver for the LIS3MDL at `address` on `bus`. Does no I/O.
    /// - Parameter delay: sleeps for the given microseconds (the engine passes a real sleep; the default does not wait).
    public init(bus: Bus, address: UInt8 = LIS3MDLDatasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `WHO_AM_I`, soft-resets (`CTRL_REG2.SOFT_RST`), waits the reset time and checks `WHO_AM_I` again.
    /// Leaves the chip in power-down (its reset state).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        isProbed = false // until this probe succeeds
        let id = try bus.sensorReadByte(address: address, register: Register.whoAmI.rawValue)
        guard id == LIS3MDLDatasheet.whoAmIValue else {
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: Register.whoAmI.rawValue,
                expected: [LIS3MDLDatasheet.whoAmIValue], found: id)
        }
        let softReset = LIS3MDLDatasheet.Field.softRst.inserting(1, into: 0)
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg2.rawValue, value: softReset)
        // Wait the datasheet's reset time, then confirm the chip answers with its identity rather than polling
        // SOFT_RST for its self-clear: a register file that does not emulate self-clearing bits (the kernel's
        // i2c-stub) would never clear it, and configure() rewrites CTRL_REG2 anyway.
        delay(LIS3MDLDatasheet.softResetTimeUs)
        let idAfterReset = try bus.sensorReadByte(address: address, register: Register.whoAmI.rawValue)
        guard idAfterReset == LIS3MDLDatasheet.whoAmIValue else {
            throw .notReady(
                chip: Self.chipName, bus: bus.name, address: address, waitedMs: max(1, LIS3MDLDatasheet.softResetTimeUs / 1000))
        }
        isProbed = true
        fullScale = .gauss4 // the reset value
        configuration = nil
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration: `CTRL_REG1`…`CTRL_REG5`, the full scale and what they give.
    public struct Settings: Sendable, Hashable {
        public var ctrlReg1: UInt8
        public var ctrlReg2: UInt8
        public var ctrlReg3: UInt8
        public var ctrlReg4: UInt8
        public var ctrlReg5: UInt8
        public var fullScale: LIS3MDLDatasheet.FullScale
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - Range: the smallest full scale of at least `magneticRangeMicroTesla` (default ±4 gauss = ±400 µT).
    /// - `.normal`: ultra-high-performance mode at the slowest `DO` rate of at least `rateHz` (up to 80 Hz); above
    ///   that the best operating mode whose `FAST_ODR` rate is enough (UHP 155, HP 300, MP 560, LP 1000 Hz).
    /// - `.lowPower`: low-power mode (`OM` = `OMZ` = LP) at the slowest `DO` rate of at least `rateHz`, or 1000 Hz.
    /// - `.suspend`: the `.normal` settings with `MD` = power-down (reported rate 0).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        let wantedMicroTesla = requested.magneticRangeMicroTesla ?? 400
        guard
            let fullScale = LIS3MDLDatasheet.FullScale.allCases.first(where: {
                covers($0.rangeGauss * PhysicalConstants.microTeslaPerGauss, wantedMicroTesla)
            })
        else {
            throw .unsupportedConfiguration(
                chip: chipName,
                detail: "magnetic range \(wantedMicroTesla) µT: at most 1600 µT (±16 gauss)")
        }
        typealias OM = LIS3MDLDatasheet.OperatingMode
        let slowMode: OM = requested.powerMode == .lowPower ? .lowPower : .ultraHighPerformance
        let fastModes: [OM] =
            requested.powerMode == .lowPower
            ? [.lowPower] : [.ultraHighPerformance, .highPerformance, .mediumPerformance, .lowPower]
        var mode = slowMode
        var dataRate = LIS3MDLDatasheet.DataRate.hz0_625
        var isFast = false
        var rateHz: Double
        if let slow = LIS3MDLDatasheet.DataRate.allCases.first(where: { covers($0.rateHz, requested.rateHz) }) {
            dataRate = slow
            rateHz = slow.rateHz
        } else if let fast = fastModes.first(where: { covers($0.fastODRRateHz, requested.rateHz) }) {
            mode = fast
            isFast = true
            rateHz = fast.fastODRRateHz
        } else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 1000 Hz")
        }
        typealias F = LIS3MDLDatasheet.Field
        var ctrlReg1 = F.tempEn.inserting(1, into: 0)
        ctrlReg1 = F.om.inserting(mode.rawValue, into: ctrlReg1)
        ctrlReg1 = F.dataRate.inserting(dataRate.rawValue, into: ctrlReg1)
        ctrlReg1 = F.fastODR.inserting(isFast ? 1 : 0, into: ctrlReg1)
        let measurement: LIS3MDLDatasheet.MeasurementMode = requested.powerMode == .suspend ? .powerDown : .continuous
        if measurement == .powerDown { rateHz = 0 }
        let actual = SensorConfiguration(
            rateHz: rateHz, powerMode: requested.powerMode, oversampling: 1,
            magneticRangeMicroTesla: fullScale.rangeGauss * PhysicalConstants.microTeslaPerGauss)
        return Settings(
            ctrlReg1: ctrlReg1,
            ctrlReg2: F.fs.inserting(fullScale.rawValue, into: 0),
            ctrlReg3: F.md.inserting(measurement.rawValue, into: 0),
            ctrlReg4: F.omz.inserting(mode.rawValue, into: 0),
            ctrlReg5: F.bdu.inserting(1, into: 0),
            fullScale: fullScale, actual: actual)
    }

    /// Applies `configuration` (see `registerSettings(for:)`): full scale, Z mode and BDU first, then the rate and
    /// X/Y mode, and the measurement mode last so the chip starts measuring with its final settings.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        try Self.write(s, ctrlReg3: s.ctrlReg3, bus: bus, address: address)
        fullScale = s.fullScale
        self.configuration = s.actual
        return s.actual
    }

    /// Writes `s` in `configure(_:)`'s order, with `ctrlReg3` for `CTRL_REG3` (a chip with this register map that
    /// keeps other bits there, as the LSM9DS1's magnetometer does, passes its own value).
    static func write(_ s: Settings, ctrlReg3: UInt8, bus: Bus, address: UInt8) throws(SensorError) {
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg2.rawValue, value: s.ctrlReg2)
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg4.rawValue, value: s.ctrlReg4)
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg5.rawValue, value: s.ctrlReg5)
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg1.rawValue, value: s.ctrlReg1)
        try bus.sensorWriteByte(address: address, register: Register.ctrlReg3.rawValue, value: ctrlReg3)
    }

    /// Reads X, Y, Z and temperature in one 8-byte auto-incrementing burst from `OUT_X_L` (sub-address bit 7 set).
    /// Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let fullScale else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let start = Register.outXL.rawValue | LIS3MDLDatasheet.autoIncrementBit
        return try withTemporaryBytes(byteCount: 8, alignment: 1) { (raw) throws(SensorError) -> SensorReading in
            try bus.sensorRead(address: address, register: start, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            let field = axisTriple(b, at: 0) { LIS3MDLDatasheet.magneticFieldMicroTesla(raw: $0, fullScale: fullScale) }
            return SensorReading(
                timeS: timeS, temperatureC: LIS3MDLDatasheet.temperatureC(raw: Bytes.leS16(b, 6)),
                magneticFieldMicroTesla: field)
        }
    }
}

extension LIS3MDL: DataReadyReporting {
    /// `STATUS_REG.ZYXDA`: a sample of all three axes has not been read yet (reading the outputs clears it).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return LIS3MDLDatasheet.Field.zyxda.extract(
            from: try bus.sensorReadByte(address: address, register: Register.statusReg.rawValue)) == 1
    }
}
