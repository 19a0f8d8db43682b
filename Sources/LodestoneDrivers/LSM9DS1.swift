import LodestoneCore

/// ST LSM9DS1 accelerometer/gyroscope register map, fields and conversions, independent of any bus.
///
/// Source: STMicroelectronics, *LSM9DS1 iNEMO inertial module*, DocID025715 rev. 3: table 3 (mechanical
/// characteristics), §7 (operating modes), table 21 (register map) and §7.1–§7.31 (accelerometer and gyroscope
/// register descriptions).
public enum LSM9DS1Datasheet {
    /// The accelerometer/gyroscope register map (table 21). Names follow the data sheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// `AOI_XL` [7], `6D` [6], `ZHIE_XL` [5], `ZLIE_XL` [4], `YHIE_XL` [3], `YLIE_XL` [2], `XHIE_XL` [1], `XLIE_XL` [0].
        case intGenCfgXL = 0x06
        /// Interrupt thresholds, compared with the 8 most significant bits of the (high-passed) output.
        case intGenThsXXL = 0x07
        case intGenThsYXL = 0x08
        case intGenThsZXL = 0x09
        /// `WAIT_XL` [7], `DUR_XL` [6:0].
        case intGenDurXL = 0x0A
        /// `INT1_IG_G` [7], `INT1_IG_XL` [6], …, `INT1_DRDY_G` [1], `INT1_DRDY_XL` [0].
        case int1Ctrl = 0x0C
        /// Identity, read-only, 0x68.
        case whoAmI = 0x0F
        /// `ODR_G` [7:5], `FS_G` [4:3], `BW_G` [1:0].
        case ctrlReg1G = 0x10
        /// `LP_mode` [7]: gyroscope low-power mode (ODR ≤ 119 Hz).
        case ctrlReg3G = 0x12
        /// Temperature, little-endian (0x15–0x16).
        case outTempL = 0x15
        /// `IG_XL` [6], `IG_G` [5], `INACT` [4], `BOOT_STATUS` [3], `TDA` [2], `GDA` [1], `XLDA` [0].
        case statusReg = 0x17
        /// Gyroscope X…Z, little-endian (0x18–0x1D).
        case outXLG = 0x18
        /// `Zen_G` [5], `Yen_G` [4], `Xen_G` [3] (reset 0x38), `LIR_XL1` [1]: latch the accelerometer interrupt.
        case ctrlReg4 = 0x1E
        /// `ODR_XL` [7:5] (accelerometer-only mode), `FS_XL` [4:3], `BW_SCAL_ODR` [2], `BW_XL` [1:0].
        case ctrlReg6XL = 0x20
        /// `HR` [7], `DCF` [6:5], `FDS` [2], `HPIS1` [0] (high-pass filtered data to the interrupt generator).
        case ctrlReg7XL = 0x21
        /// `BOOT` [7], `BDU` [6], `H_LACTIVE` [5], `PP_OD` [4], `SIM` [3], `IF_ADD_INC` [2], `BLE` [1],
        /// `SW_RESET` [0]; reset value 0x04.
        case ctrlReg8 = 0x22
        /// `SLEEP_G` [6], `FIFO_TEMP_EN` [4], `DRDY_mask_bit` [3], `I2C_DISABLE` [2], `FIFO_EN` [1], `STOP_ON_FTH` [0].
        case ctrlReg9 = 0x23
        /// `IA_XL` [6] and the per-axis events; reading clears a latched event.
        case intGenSrcXL = 0x26
        /// Accelerometer X…Z, little-endian (0x28–0x2D).
        case outXLXL = 0x28
    }

    /// Register fields.
    public enum Field {
        public static let odr = BitField(mask: 0b1110_0000)
        public static let fs = BitField(mask: 0b0001_1000)
        public static let lpMode = BitField(mask: 0b1000_0000)
        public static let bdu = BitField(mask: 0b0100_0000)
        public static let ifAddInc = BitField(mask: 0b0000_0100)
        public static let swReset = BitField(mask: 0b0000_0001)
        public static let i2cDisable = BitField(mask: 0b0000_0100)
        public static let hpis1 = BitField(mask: 0b0000_0001)
        /// `INT_GEN_CFG_XL` high events on X, Y and Z, OR-combined (`AOI_XL` 0).
        public static let highEvents = BitField(mask: 0b0010_1010)
        public static let int1IgXL = BitField(mask: 0b0100_0000)
        public static let int1DrdyG = BitField(mask: 0b0000_0010)
        public static let int1DrdyXL = BitField(mask: 0b0000_0001)
        public static let iaXL = BitField(mask: 0b0100_0000)
        /// `CTRL_REG4.Zen_G`, `Yen_G`, `Xen_G`.
        public static let gyroAxesEnable = BitField(mask: 0b0011_1000)
        /// `CTRL_REG4.LIR_XL1`.
        public static let lirXL1 = BitField(mask: 0b0000_0010)
        public static let xlda = BitField(mask: 0b0000_0001)
        public static let gda = BitField(mask: 0b0000_0010)
        public static let tda = BitField(mask: 0b0000_0100)
    }

    /// `ODR_G` codes 1…6 and their rates, Hz (table 46); with the gyroscope on, the accelerometer runs at the same rate.
    public static let gyroRateCodesHz: [(code: UInt8, rateHz: Double)] = [
        (1, 14.9), (2, 59.5), (3, 119), (4, 238), (5, 476), (6, 952)
    ]
    /// `ODR_XL` codes 1…6 in accelerometer-only mode, Hz (table 68).
    public static let accelRateCodesHz: [(code: UInt8, rateHz: Double)] = [
        (1, 10), (2, 50), (3, 119), (4, 238), (5, 476), (6, 952)
    ]
    /// The gyroscope's low-power mode works up to 119 Hz (§7.12, `LP_mode`).
    public static let gyroLowPowerMaximumRateHz = 119.0

    /// `FS_XL` settings (0 = ±2 g, 1 = ±16 g, 2 = ±4 g, 3 = ±8 g).
    public enum AccelFullScale: UInt8, Sendable, CaseIterable {
        case g2 = 0, g16 = 1, g4 = 2, g8 = 3
        /// ± g.
        public var rangeG: Double { [2, 16, 4, 8][Int(rawValue)] }
        /// mg/LSB (table 3, LA_So): 0.061, 0.732, 0.122, 0.244.
        public var sensitivityMilliGPerLSB: Double { [0.061, 0.732, 0.122, 0.244][Int(rawValue)] }
        /// The scales from smallest to largest.
        public static let ascending: [AccelFullScale] = [.g2, .g4, .g8, .g16]
    }

    /// `FS_G` settings (2 is not available).
    public enum GyroFullScale: UInt8, Sendable, CaseIterable {
        case dps245 = 0, dps500 = 1, dps2000 = 3
        /// ± °/s.
        public var rangeDegPerS: Double { [245, 500, 0, 2000][Int(rawValue)] }
        /// mdps/LSB (table 3, G_So): 8.75, 17.50, 70.
        public var sensitivityMilliDegPerSPerLSB: Double { [8.75, 17.5, 0, 70][Int(rawValue)] }
    }

    /// The `WHO_AM_I` value.
    public static let whoAmIValue: UInt8 = 0x68
    /// 7-bit I2C addresses: SDO_A/G low 0x6A, high 0x6B (§6.1.1; the Sense HAT and Navio2 use 0x6A / chip select).
    public static let addresses: [UInt8] = [0x6A, 0x6B]
    /// Temperature sensitivity, LSB/°C, with 0 LSB at 25 °C (table 5).
    public static let temperatureLSBPerC = 16.0
    public static let temperatureZeroC = 25.0
    /// Wait after `SW_RESET`, µs (conservative: the data sheet gives no figure; the trim reload after `BOOT` takes
    /// 20 ms at most, table 3 footnote).
    public static let resetTimeUs = 20_000

    /// Raw accelerometer value to m/s².
    @inlinable public static func accelerationMps2(raw: Int16, fullScale: AccelFullScale) -> Double {
        Double(raw) * fullScale.sensitivityMilliGPerLSB / 1000 * PhysicalConstants.standardGravityMps2
    }
    /// Raw gyroscope value to rad/s.
    @inlinable public static func angularVelocityRadS(raw: Int16, fullScale: GyroFullScale) -> Double {
        Angle.radians(fromDegrees: Double(raw) * fullScale.sensitivityMilliDegPerSPerLSB / 1000)
    }
    /// Raw temperature to °C: `25 + raw / 16`.
    @inlinable public static func temperatureC(raw: Int16) -> Double { temperatureZeroC + Double(raw) / temperatureLSBPerC }
}

/// Driver for the ST LSM9DS1's accelerometer and gyroscope (its magnetometer is a separate device:
/// `LSM9DS1Magnetometer`), generic over the bus (I2C or SPI).
///
/// Reports acceleration (m/s²), angular velocity (rad/s) and temperature (°C) in the chip's axes: one 9-byte burst
/// from `OUT_TEMP_L` (temperature, status, gyroscope) and one 6-byte burst from `OUT_X_L_XL`, with `BDU` and
/// `IF_ADD_INC` set.
///
/// - `.normal`: gyroscope and accelerometer together at the slowest gyroscope ODR of at least `rateHz` (14.9…952 Hz).
/// - `.lowPower`: accelerometer-only mode at the slowest `ODR_XL` of at least `rateHz` (10…952 Hz), gyroscope
///   powered down; readings carry acceleration and temperature.
/// - `.suspend`: both powered down.
/// - Wake-on-motion: the accelerometer interrupt generator on high-passed data (`HPIS1`), high events on X, Y or Z
///   over `INT_GEN_THS_x_XL` (full scale / 128 per step), `IG_XL` on INT1, `INT_GEN_SRC_XL.IA_XL` polled.
/// - Data ready on INT1 (`INT1_DRDY_XL`, `INT1_DRDY_G`); `isDataReady()` polls `STATUS_REG`.
/// - On SPI the I2C interface is disabled (`CTRL_REG9.I2C_DISABLE`).
public struct LSM9DS1<Bus: RegisterBus>: SensorDriver {
    /// The register map (`LSM9DS1Datasheet.Register`).
    public typealias Register = LSM9DS1Datasheet.Register
    typealias D = LSM9DS1Datasheet
    typealias F = LSM9DS1Datasheet.Field

    public static var chipName: String { "lsm9ds1" }
    public static var kinds: [SensorKind] { [.accelerometer, .gyroscope, .thermometer] }
    public static var addresses: [UInt8] { D.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only after the reset.
    public let delay: @Sendable (Int) -> Void
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var isProbed = false
    private var accelFullScale = D.AccelFullScale.g2
    private var gyroFullScale = D.GyroFullScale.dps245
    private var powerMode = PowerMode.suspend

    /// A driver for the LSM9DS1 accelerometer/gyroscope at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = LSM9DS1Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `WHO_AM_I`, resets (`CTRL_REG8.SW_RESET`), waits and checks the identity again.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        isProbed = false
        configuration = nil
        let id = try bus.identifyAndReset(
            chip: Self.chipName, address: address, idRegister: Register.whoAmI.rawValue,
            expected: [D.whoAmIValue], resetRegister: Register.ctrlReg8.rawValue,
            resetValue: F.ifAddInc.inserting(1, into: F.swReset.inserting(1, into: 0)),
            resetTimeUs: D.resetTimeUs, delay: delay)
        isProbed = true
        accelFullScale = .g2
        gyroFullScale = .dps245
        powerMode = .suspend
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration, and what they give.
    public struct Settings: Sendable, Hashable {
        public var ctrlReg1G: UInt8
        public var ctrlReg3G: UInt8
        public var ctrlReg4: UInt8
        public var ctrlReg6XL: UInt8
        public var ctrlReg7XL: UInt8
        public var ctrlReg8: UInt8
        public var ctrlReg9: UInt8
        public var int1Ctrl: UInt8
        public var intGenCfgXL: UInt8
        /// The same threshold on X, Y and Z.
        public var intGenThsXL: UInt8
        public var accelFullScale: LSM9DS1Datasheet.AccelFullScale
        public var gyroFullScale: LSM9DS1Datasheet.GyroFullScale
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O): ranges round up (defaults ±4 g, ±2000 °/s); rates as in
    /// the type's documentation; the wake-on-motion threshold in steps of full scale / 128 (1…127).
    public static func registerSettings(for requested: SensorConfiguration, transport: BusTransport = .i2c) throws(SensorError)
        -> Settings
    {
        try validateRate(requested.rateHz, chip: chipName)
        let g = PhysicalConstants.standardGravityMps2
        let accel = try accelerationFullScale(
            D.AccelFullScale.ascending, rangeG: \.rangeG, requestedMps2: requested.accelerationRangeMps2, chip: chipName)
        let gyro = try angularRateFullScale(
            D.GyroFullScale.allCases, rangeDegPerS: \.rangeDegPerS,
            requestedRadS: requested.angularRateRangeRadS, chip: chipName)
        try rejectFeaturesNotOffered(
            requested, chip: chipName, wakeOnMotion: true, why: "the chip's FIFO is not used by this driver")
        let table = requested.powerMode == .lowPower ? D.accelRateCodesHz : D.gyroRateCodesHz
        guard let odr = table.first(where: { covers($0.rateHz, requested.rateHz) }) else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 952 Hz")
        }
        // INT_GEN_THS_x_XL steps of full scale / 128 (the 8 high bits of the output).
        let threshold =
            try wakeOnMotionSteps(
                requested.wakeOnMotionThresholdMps2, stepMps2: accel.rangeG * g / 128,
                maximumSteps: 127, chip: chipName) ?? 0
        let wom = requested.wakeOnMotionThresholdMps2 != nil
        let gyroOn = requested.powerMode == .normal
        var s = Settings(
            ctrlReg1G: F.fs.inserting(gyro.rawValue, into: F.odr.inserting(gyroOn ? odr.code : 0, into: 0)),
            ctrlReg3G: 0,
            ctrlReg4: F.gyroAxesEnable.inserting(0b111, into: F.lirXL1.inserting(wom ? 1 : 0, into: 0)),
            ctrlReg6XL: F.fs.inserting(
                accel.rawValue, into: F.odr.inserting(requested.powerMode == .lowPower ? odr.code : 0, into: 0)),
            ctrlReg7XL: F.hpis1.inserting(wom ? 1 : 0, into: 0),
            ctrlReg8: F.bdu.inserting(1, into: F.ifAddInc.inserting(1, into: 0)),
            ctrlReg9: F.i2cDisable.inserting(transport == .spi ? 1 : 0, into: 0),
            int1Ctrl: F.int1IgXL.inserting(
                wom ? 1 : 0, into: F.int1DrdyXL.inserting(1, into: F.int1DrdyG.inserting(gyroOn ? 1 : 0, into: 0))),
            intGenCfgXL: wom ? F.highEvents.mask : 0, // not a contiguous field: the three enable bits as they stand
            intGenThsXL: threshold,
            accelFullScale: accel, gyroFullScale: gyro,
            actual: SensorConfiguration(
                rateHz: odr.rateHz, powerMode: requested.powerMode, oversampling: 1,
                accelerationRangeMps2: accel.rangeG * g,
                angularRateRangeRadS: Angle.radians(fromDegrees: gyro.rangeDegPerS),
                wakeOnMotionThresholdMps2: wom ? Double(threshold) * accel.rangeG * g / 128 : nil))
        if requested.powerMode == .normal, odr.rateHz <= D.gyroLowPowerMaximumRateHz, requested.rateHz < 100 {
            // Below 100 Hz the gyroscope's low-power mode gives the same output rate for less current (table 9).
            s.ctrlReg3G = F.lpMode.inserting(1, into: 0)
        }
        if requested.powerMode == .suspend {
            s.ctrlReg1G = F.odr.inserting(0, into: s.ctrlReg1G)
            s.ctrlReg6XL = F.odr.inserting(0, into: s.ctrlReg6XL)
            s.actual.rateHz = 0
        }
        return s
    }

    /// Applies `configuration`: `CTRL_REG8`/`9`, interrupts, then the accelerometer and the gyroscope last.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration, transport: bus.transport)
        try write(.ctrlReg8, s.ctrlReg8)
        try write(.ctrlReg9, s.ctrlReg9)
        try write(.intGenThsXXL, s.intGenThsXL)
        try write(.intGenThsYXL, s.intGenThsXL)
        try write(.intGenThsZXL, s.intGenThsXL)
        try write(.intGenDurXL, 0)
        try write(.intGenCfgXL, s.intGenCfgXL)
        try write(.int1Ctrl, s.int1Ctrl)
        try write(.ctrlReg7XL, s.ctrlReg7XL)
        try write(.ctrlReg4, s.ctrlReg4)
        try write(.ctrlReg3G, s.ctrlReg3G)
        try write(.ctrlReg6XL, s.ctrlReg6XL)
        try write(.ctrlReg1G, s.ctrlReg1G)
        accelFullScale = s.accelFullScale
        gyroFullScale = s.gyroFullScale
        powerMode = configuration.powerMode
        self.configuration = s.actual
        return s.actual
    }

    /// Reads temperature, status and gyroscope (9 bytes from `OUT_TEMP_L`) and the accelerometer (6 bytes from
    /// `OUT_X_L_XL`). Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let accelFullScale = self.accelFullScale, gyroFullScale = self.gyroFullScale
        var reading = try withTemporaryBytes(byteCount: 15, alignment: 1) {
            (raw) throws(SensorError) -> SensorReading in
            // 0x15–0x1D: OUT_TEMP (2), STATUS_REG (1), gyroscope (6); then 0x28–0x2D: accelerometer (6).
            try bus.sensorRead(
                address: address, register: Register.outTempL.rawValue, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<9]))
            try bus.sensorRead(
                address: address, register: Register.outXLXL.rawValue, into: UnsafeMutableRawBufferPointer(rebasing: raw[9..<15]))
            let b = UnsafeRawBufferPointer(raw)
            return SensorReading(
                timeS: timeS, temperatureC: D.temperatureC(raw: Bytes.leS16(b, 0)),
                accelerationMps2: axisTriple(b, at: 9) { D.accelerationMps2(raw: $0, fullScale: accelFullScale) },
                angularVelocityRadS: axisTriple(b, at: 3) { D.angularVelocityRadS(raw: $0, fullScale: gyroFullScale) })
        }
        if powerMode == .lowPower { reading.angularVelocityRadS = nil }
        return reading
    }

    private func write(_ register: Register, _ value: UInt8) throws(SensorError) {
        try bus.sensorWriteByte(address: address, register: register.rawValue, value: value)
    }
}

extension LSM9DS1: DataReadyReporting {
    /// `STATUS_REG.XLDA` (and `GDA` while the gyroscope runs).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let status = try bus.sensorReadByte(address: address, register: Register.statusReg.rawValue)
        return F.xlda.extract(from: status) == 1 && (powerMode != .normal || F.gda.extract(from: status) == 1)
    }
}

extension LSM9DS1: MotionWakeReporting {
    /// `INT_GEN_SRC_XL.IA_XL` (reading the register clears a latched event).
    public mutating func motionDetected() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return F.iaXL.extract(from: try bus.sensorReadByte(address: address, register: Register.intGenSrcXL.rawValue)) == 1
    }
}

/// ST LSM9DS1 magnetometer: the register map is the LIS3MDL's (`LIS3MDLDatasheet.Register`, same addresses and
/// fields, and the same rates and operating modes), with other sensitivities, no temperature output, and
/// `CTRL_REG3_M` bit 7 `I2C_DISABLE`. This driver leaves `SIM` (bit 2) at its reset value 0, as ArduPilot's
/// LSM9DS1 compass driver does on the Navio2's 4-wire SPI bus.
///
/// Source: DocID025715 rev. 3, table 3 (M_GN), table 22 (register map), §8.1–§8.15.
public enum LSM9DS1MagnetometerDatasheet {
    /// The register map, shared with the LIS3MDL.
    public typealias Register = LIS3MDLDatasheet.Register

    /// `CTRL_REG3_M.I2C_DISABLE`.
    public static let i2cDisable = BitField(mask: 0b1000_0000)
    /// The `WHO_AM_I_M` value (the LIS3MDL's too: the two cannot be told apart by identity).
    public static let whoAmIValue: UInt8 = 0x3D
    /// 7-bit I2C addresses: SDO_M low 0x1C, high 0x1E (§6.1.1; the Sense HAT's is 0x1C).
    public static let addresses: [UInt8] = [0x1C, 0x1E]

    /// Sensitivity by full scale, mgauss/LSB (table 3, M_GN): ±4 gauss 0.14, ±8 0.29, ±12 0.43, ±16 0.58.
    @inlinable public static func sensitivityMilliGaussPerLSB(_ fullScale: LIS3MDLDatasheet.FullScale) -> Double {
        switch fullScale {
        case .gauss4: 0.14
        case .gauss8: 0.29
        case .gauss12: 0.43
        case .gauss16: 0.58
        }
    }

    /// Raw axis value to µT: `raw · M_GN / 1000 · 100 µT/gauss`.
    @inlinable public static func magneticFieldMicroTesla(raw: Int16, fullScale: LIS3MDLDatasheet.FullScale) -> Double {
        Double(raw) * sensitivityMilliGaussPerLSB(fullScale) / 1000 * PhysicalConstants.microTeslaPerGauss
    }
}

/// Driver for the ST LSM9DS1's magnetometer, generic over the bus (I2C, or SPI with its own chip select).
///
/// Reports µT in the magnetometer's axes, which are not the accelerometer's (DocID025715 figure 1): give it its own
/// mount matrix. Configuration is the LIS3MDL's (`LIS3MDL.registerSettings`: ultra-high-performance up to 80 Hz,
/// fast ODR above, low-power mode, power-down for `.suspend`), with `TEMP_COMP` on; on SPI, `I2C_DISABLE` is set.
public struct LSM9DS1Magnetometer<Bus: RegisterBus>: SensorDriver {
    /// The register map (`LSM9DS1MagnetometerDatasheet.Register`).
    public typealias Register = LSM9DS1MagnetometerDatasheet.Register
    typealias M = LSM9DS1MagnetometerDatasheet

    public static var chipName: String { "lsm9ds1-mag" }
    public static var kinds: [SensorKind] { [.magnetometer] }
    public static var addresses: [UInt8] { M.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only after the soft reset.
    public let delay: @Sendable (Int) -> Void
    /// The full scale in use (±4 gauss after `probe()`); `nil` before.
    public private(set) var fullScale: LIS3MDLDatasheet.FullScale?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?

    /// A driver for the LSM9DS1 magnetometer at `address` on `bus`. Does no I/O.
    public init(
        bus: Bus, address: UInt8 = LSM9DS1MagnetometerDatasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// `CTRL_REG3_M` as the LIS3MDL settings give it, with `I2C_DISABLE` on SPI.
    private func ctrlReg3(_ value: UInt8) -> UInt8 {
        M.i2cDisable.inserting(bus.transport == .spi ? 1 : 0, into: value)
    }

    /// Checks `WHO_AM_I_M`, soft-resets (`CTRL_REG2_M.SOFT_RST`), waits and checks the identity again.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        fullScale = nil
        configuration = nil
        let id = try bus.identifyAndReset(
            chip: Self.chipName, address: address, idRegister: Register.whoAmI.rawValue,
            expected: [M.whoAmIValue], resetRegister: Register.ctrlReg2.rawValue,
            resetValue: LIS3MDLDatasheet.Field.softRst.inserting(1, into: 0),
            resetTimeUs: LIS3MDLDatasheet.softResetTimeUs, delay: delay)
        fullScale = .gauss4
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Applies `configuration` with the LIS3MDL's register settings (`TEMP_EN` is `TEMP_COMP` here).
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard fullScale != nil else { throw notProbed(chip: Self.chipName) }
        try rejectFeaturesNotOffered(configuration, chip: Self.chipName)
        let s = try LIS3MDL<Bus>.registerSettings(for: configuration)
        try LIS3MDL<Bus>.write(s, ctrlReg3: ctrlReg3(s.ctrlReg3), bus: bus, address: address)
        fullScale = s.fullScale
        self.configuration = s.actual
        return s.actual
    }

    /// Reads X, Y, Z in one 6-byte auto-incrementing burst from `OUT_X_L_M` (I2C sub-address bit 7 set; SPI `M/S`).
    /// Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let fullScale else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let start = Register.outXL.rawValue | LIS3MDLDatasheet.autoIncrementBit
        return try withTemporaryBytes(byteCount: 6, alignment: 1) { (raw) throws(SensorError) -> SensorReading in
            try bus.sensorRead(address: address, register: start, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            return SensorReading(
                timeS: timeS,
                magneticFieldMicroTesla: axisTriple(b, at: 0) { M.magneticFieldMicroTesla(raw: $0, fullScale: fullScale) })
        }
    }
}

extension LSM9DS1Magnetometer: DataReadyReporting {
    /// `STATUS_REG_M.ZYXDA`.
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard fullScale != nil else { throw notProbed(chip: Self.chipName) }
        return LIS3MDLDatasheet.Field.zyxda.extract(
            from: try bus.sensorReadByte(address: address, register: Register.statusReg.rawValue)) == 1
    }
}
