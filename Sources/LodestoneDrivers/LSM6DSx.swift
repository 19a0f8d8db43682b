import LodestoneCore

/// The members of ST's LSM6DS family this driver knows, told apart by `WHO_AM_I` (register 0x0F).
public enum LSM6DSxVariant: String, Sendable, Hashable, Codable, CaseIterable {
    /// LSM6DS3, `WHO_AM_I` 0x69 (DocID026899 rev. 10).
    case lsm6ds3
    /// LSM6DSL, `WHO_AM_I` 0x6A (DocID028475 rev. 7); the LSM6DS3TR-C answers the same and has the same map.
    case lsm6dsl
    /// LSM6DSOX, `WHO_AM_I` 0x6C (DS12814 rev. 3).
    case lsm6dsox

    /// The `WHO_AM_I` value.
    public var whoAmI: UInt8 {
        switch self {
        case .lsm6ds3: 0x69
        case .lsm6dsl: 0x6A
        case .lsm6dsox: 0x6C
        }
    }

    /// The variant whose `WHO_AM_I` is `value`, if any.
    public init?(whoAmI value: UInt8) {
        guard let v = Self.allCases.first(where: { $0.whoAmI == value }) else { return nil }
        self = v
    }

    /// Temperature sensitivity, LSB/°C (DS3 table 5: 16; DSL table 5 and DSOX table 4: 256); 0 LSB is 25 °C.
    public var temperatureLSBPerC: Double { self == .lsm6ds3 ? 16 : 256 }
    /// Highest gyroscope output rate, Hz (DS3: 1.66 kHz; DSL, DSOX: 6.66 kHz).
    public var maximumGyroRateHz: Double { self == .lsm6ds3 ? 1660 : 6660 }
    /// The FIFO's size in 16-bit words (DS3: 8 kbyte; DSL: 4 kbyte) or in 7-byte tagged words (DSOX: 3 kbyte, 512 words).
    public var fifoWords: Int {
        switch self {
        case .lsm6ds3: 4096
        case .lsm6dsl: 2048
        case .lsm6dsox: 512
        }
    }
    /// Whether the FIFO is tagged (DSOX: a tag byte and 6 data bytes per word) rather than patterned (DS3, DSL).
    public var hasTaggedFIFO: Bool { self == .lsm6dsox }
}

/// ST LSM6DS3 / LSM6DSL / LSM6DSOX register map, fields and conversions, independent of any bus.
///
/// Sources: STMicroelectronics *LSM6DS3* DocID026899, *LSM6DSL* DocID028475 and *LSM6DSOX* DS12814 data sheets
/// (register maps in §8–§9, mechanical characteristics in table 3 or 4, FIFO in §5.5 or §6.5); ST's register header
/// files (`lsm6ds3_reg.h`, `lsm6dsl_reg.h`, `lsm6dsox_reg.h` in STMems_Standard_C_drivers) for the bit layouts.
public enum LSM6DSxDatasheet {
    /// The register map; names follow the data sheets in lowerCamelCase. Where the variants differ, the doc says so.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// DS3/DSL: `FIFO_CTRL1`…`FIFO_CTRL5` at 0x06…0x0A (`FIFO_CTRL3`: decimation, `FIFO_CTRL5`: `ODR_FIFO` [6:3],
        /// `FIFO_MODE` [2:0]). DSOX: `FIFO_CTRL1`…`FIFO_CTRL4` at 0x07…0x0A (`FIFO_CTRL3`: `BDR_GY` [7:4], `BDR_XL`
        /// [3:0]; `FIFO_CTRL4`: `FIFO_MODE` [2:0]).
        case fifoCtrl3DS3 = 0x08
        case fifoCtrl3DSOX = 0x09
        /// `FIFO_CTRL5` (DS3/DSL) and `FIFO_CTRL4` (DSOX): `FIFO_MODE` [2:0].
        case fifoMode = 0x0A
        /// `INT1_DRDY_G` [1], `INT1_DRDY_XL` [0].
        case int1Ctrl = 0x0D
        /// Identity, read-only.
        case whoAmI = 0x0F
        /// `ODR_XL` [7:4], `FS_XL` [3:2].
        case ctrl1XL = 0x10
        /// `ODR_G` [7:4], `FS_G` [3:2], `FS_125` [1].
        case ctrl2G = 0x11
        /// `BOOT` [7], `BDU` [6], `IF_INC` [2], `SW_RESET` [0]; reset value 0x04.
        case ctrl3C = 0x12
        /// `XL_HM_MODE` [4]: 1 = accelerometer high-performance off (low-power/normal modes).
        case ctrl6C = 0x15
        /// `G_HM_MODE` [7]: 1 = gyroscope high-performance off.
        case ctrl7G = 0x16
        /// `WU_IA` [3]: wake-up event.
        case wakeUpSrc = 0x1B
        /// `TDA` [2], `GDA` [1], `XLDA` [0].
        case statusReg = 0x1E
        /// Temperature, then gyroscope X…Z, then accelerometer X…Z, little-endian (0x20…0x2D).
        case outTempL = 0x20
        case outxLG = 0x22
        case outxLXL = 0x28
        /// `FIFO_STATUS1`…`4` (DS3/DSL: unread words and pattern; DSOX: `FIFO_STATUS1`/`2`, unread words). In
        /// `FIFO_STATUS2`, bit 6 is the overrun flag on all three (DS3/DSL `OVER_RUN`, DSOX `FIFO_OVR_IA`: the FIFO is
        /// full and a sample has been overwritten).
        case fifoStatus1 = 0x3A
        /// The DS3/DSL FIFO output word (a burst from here keeps reading the FIFO).
        case fifoDataOutL = 0x3E
        /// DSOX `TAP_CFG0`: `LIR` [0] (latched interrupts).
        case tapCfg0DSOX = 0x56
        /// DS3 `TAP_CFG` (`LIR` [0]), DSL `TAP_CFG` (`INTERRUPTS_ENABLE` [7], `LIR` [0]), DSOX `TAP_CFG2`
        /// (`INTERRUPTS_ENABLE` [7]).
        case tapCfg = 0x58
        /// `WK_THS` [5:0]: wake-up threshold, 1 LSB = full scale / 64.
        case wakeUpThs = 0x5B
        /// `WAKE_DUR` [6:5], `SLEEP_DUR` [3:0].
        case wakeUpDur = 0x5C
        /// `INT1_WU` [5]: wake-up on INT1.
        case md1Cfg = 0x5E
        /// DSOX `FIFO_DATA_OUT_TAG`, then `FIFO_DATA_OUT_X_L`…`Z_H` (a burst from here keeps reading the FIFO).
        case fifoDataOutTagDSOX = 0x78
    }

    /// Register fields.
    public enum Field {
        public static let odr = BitField(mask: 0b1111_0000)
        public static let fsXL = BitField(mask: 0b0000_1100)
        public static let fsG = BitField(mask: 0b0000_1100)
        public static let fs125 = BitField(mask: 0b0000_0010)
        public static let bdu = BitField(mask: 0b0100_0000)
        public static let ifInc = BitField(mask: 0b0000_0100)
        public static let swReset = BitField(mask: 0b0000_0001)
        public static let xlHmMode = BitField(mask: 0b0001_0000)
        public static let gHmMode = BitField(mask: 0b1000_0000)
        public static let int1DrdyXL = BitField(mask: 0b0000_0001)
        public static let int1DrdyG = BitField(mask: 0b0000_0010)
        public static let xlda = BitField(mask: 0b0000_0001)
        public static let gda = BitField(mask: 0b0000_0010)
        public static let tda = BitField(mask: 0b0000_0100)
        public static let wuIa = BitField(mask: 0b0000_1000)
        public static let wkThs = BitField(mask: 0b0011_1111)
        public static let interruptsEnable = BitField(mask: 0b1000_0000)
        public static let lir = BitField(mask: 0b0000_0001)
        public static let int1Wu = BitField(mask: 0b0010_0000)
        public static let fifoMode = BitField(mask: 0b0000_0111)
        /// DS3/DSL `FIFO_CTRL5.ODR_FIFO` [6:3].
        public static let odrFifo = BitField(mask: 0b0111_1000)
        /// DS3/DSL `FIFO_CTRL3.DEC_FIFO_GYRO` [5:3] and `DEC_FIFO_XL` [2:0] (1 = no decimation).
        public static let decFifoGyro = BitField(mask: 0b0011_1000)
        public static let decFifoXL = BitField(mask: 0b0000_0111)
        /// DSOX `FIFO_CTRL3.BDR_GY` [7:4], `BDR_XL` [3:0].
        public static let bdrGy = BitField(mask: 0b1111_0000)
        public static let bdrXL = BitField(mask: 0b0000_1111)
        /// DSOX `FIFO_DATA_OUT_TAG.TAG_SENSOR` [7:3].
        public static let tagSensor = BitField(mask: 0b1111_1000)
        /// `FIFO_STATUS2` bit 6: DS3/DSL `OVER_RUN`, DSOX `FIFO_OVR_IA`.
        public static let fifoOverrun = BitField(mask: 0b0100_0000)
    }

    /// `FIFO_MODE` values.
    public enum FIFOMode: UInt8, Sendable { case bypass = 0b000, continuous = 0b110 }
    /// DSOX `TAG_SENSOR` values for the words this driver batches (DS12814 table "FIFO tag").
    public enum FIFOTag: UInt8, Sendable { case gyroscope = 0x01, accelerometer = 0x02 }

    /// `ODR_XL` / `ODR_G` codes 1…10 and their rates, Hz (12.5 Hz … 6.66 kHz). Code 0 is power-down.
    public static let rateCodesHz: [(code: UInt8, rateHz: Double)] = [
        (1, 12.5), (2, 26), (3, 52), (4, 104), (5, 208), (6, 416), (7, 833), (8, 1660), (9, 3330), (10, 6660)
    ]
    /// The accelerometer's low-power rates stop at 52 Hz; above, "normal" and high-performance modes follow.
    public static let lowPowerMaximumRateHz = 52.0

    /// `FS_XL` settings: note the order (0 = ±2 g, 1 = ±16 g, 2 = ±4 g, 3 = ±8 g).
    public enum AccelFullScale: UInt8, Sendable, CaseIterable {
        case g2 = 0, g16 = 1, g4 = 2, g8 = 3
        /// ± g.
        public var rangeG: Double { [2, 16, 4, 8][Int(rawValue)] }
        /// mg/LSB (table 3/4, LA_So): 0.061, 0.488, 0.122, 0.244.
        public var sensitivityMilliGPerLSB: Double { [0.061, 0.488, 0.122, 0.244][Int(rawValue)] }
        /// The scales from smallest to largest.
        public static let ascending: [AccelFullScale] = [.g2, .g4, .g8, .g16]
    }

    /// Gyroscope full scales: `FS_125` or `FS_G` 0…3.
    public enum GyroFullScale: UInt8, Sendable, CaseIterable {
        case dps125, dps245, dps500, dps1000, dps2000
        /// ± °/s (the DSOX's 250 °/s range is the DS3/DSL's 245 with the same sensitivity).
        public var rangeDegPerS: Double { [125, 245, 500, 1000, 2000][Int(rawValue)] }
        /// mdps/LSB (table 3/4, G_So): 4.375, 8.75, 17.5, 35, 70.
        public var sensitivityMilliDegPerSPerLSB: Double { [4.375, 8.75, 17.5, 35, 70][Int(rawValue)] }
        /// `CTRL2_G` bits [3:1] for this scale.
        public var ctrl2Bits: UInt8 {
            self == .dps125 ? Field.fs125.inserting(1, into: 0) : Field.fsG.inserting(rawValue - 1, into: 0)
        }
    }

    /// 7-bit I2C addresses: SA0 low 0x6A, high 0x6B.
    public static let addresses: [UInt8] = [0x6A, 0x6B]
    /// Temperature that reads as 0 LSB, °C.
    public static let temperatureZeroC = 25.0
    /// Wait after `SW_RESET` and the trim reload, µs (the kernel's st_lsm6dsx waits 50 ms after `BOOT`; this driver
    /// waits as long after `SW_RESET`, which also reloads the trim).
    public static let resetTimeUs = 50_000

    /// Raw accelerometer value to m/s².
    @inlinable public static func accelerationMps2(raw: Int16, fullScale: AccelFullScale) -> Double {
        Double(raw) * fullScale.sensitivityMilliGPerLSB / 1000 * PhysicalConstants.standardGravityMps2
    }
    /// Raw gyroscope value to rad/s.
    @inlinable public static func angularVelocityRadS(raw: Int16, fullScale: GyroFullScale) -> Double {
        Angle.radians(fromDegrees: Double(raw) * fullScale.sensitivityMilliDegPerSPerLSB / 1000)
    }
    /// Raw temperature to °C: `25 + raw / sensitivity`.
    @inlinable public static func temperatureC(raw: Int16, variant: LSM6DSxVariant) -> Double {
        temperatureZeroC + Double(raw) / variant.temperatureLSBPerC
    }
}

/// Driver for ST's LSM6DS3, LSM6DSL and LSM6DSOX accelerometer/gyroscopes, generic over the bus (I2C or SPI).
///
/// Reports acceleration (m/s²), angular velocity (rad/s) and die temperature (°C) in the chip's axes, read in one
/// 14-byte burst from `OUT_TEMP_L` with `BDU` and `IF_INC` set.
///
/// - `.normal`: both sensors at the slowest ODR of at least `rateHz`, high-performance mode.
/// - `.lowPower`: the accelerometer alone in its low-power mode (`XL_HM_MODE`, at most 52 Hz), gyroscope off;
///   readings carry acceleration and temperature.
/// - `.suspend`: both sensors powered down.
/// - Data ready on INT1 (`INT1_DRDY_XL`, `INT1_DRDY_G`); `isDataReady()` polls `STATUS_REG`.
/// - Wake-on-motion: the wake-up function on the slope filter (half the sample-to-sample change) against `WK_THS`
///   (full scale / 64 per step), latched in `WAKE_UP_SRC.WU_IA` and routed to INT1.
/// - FIFO (`fifo: .stream`): continuous mode holding gyroscope and accelerometer at the ODR; drained in one burst
///   through the FIFO output window (DS3/DSL: the 2-byte `FIFO_DATA_OUT_L/H`; DSOX: the 7-byte tagged word from
///   `FIFO_DATA_OUT_TAG`), which the address wraps back over, so a bus that reads less at a time gets whole words.
///   `overrun` is `FIFO_STATUS2` bit 6.
public struct LSM6DSx<Bus: RegisterBus>: SensorDriver {
    /// The register map (`LSM6DSxDatasheet.Register`).
    public typealias Register = LSM6DSxDatasheet.Register
    typealias D = LSM6DSxDatasheet
    typealias F = LSM6DSxDatasheet.Field

    /// The family's name; `variant` says which member was found.
    public static var chipName: String { "lsm6dsx" }
    public static var kinds: [SensorKind] { [.accelerometer, .gyroscope, .thermometer] }
    public static var addresses: [UInt8] { D.addresses }

    public let bus: Bus
    public let address: UInt8
    /// The variant asked for, or `nil` to accept any.
    public let requestedVariant: LSM6DSxVariant?
    /// Sleeps for the given number of microseconds; used only after the reset.
    public let delay: @Sendable (Int) -> Void
    /// The variant `probe()` found; `nil` before.
    public private(set) var variant: LSM6DSxVariant?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var accelFullScale = D.AccelFullScale.g2
    private var gyroFullScale = D.GyroFullScale.dps245
    private var powerMode = PowerMode.suspend

    /// A driver for an LSM6DS3/DSL/DSOX at `address` on `bus`. Does no I/O.
    /// - Parameter variant: the member expected (`probe()` throws `wrongChipID` for another), or `nil` for any.
    public init(
        bus: Bus, address: UInt8 = LSM6DSxDatasheet.addresses[0], variant: LSM6DSxVariant? = nil,
        delay: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.bus = bus; self.address = address; self.requestedVariant = variant; self.delay = delay
    }

    /// Checks `WHO_AM_I`, resets (`CTRL3_C.SW_RESET`), waits and checks the identity again (not the self-clearing
    /// bit, which a plain register file such as the kernel's i2c-stub never clears). Both sensors are then
    /// powered down, as after power-on.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        variant = nil
        configuration = nil
        let id = try bus.sensorReadByte(address: address, register: Register.whoAmI.rawValue)
        guard let found = LSM6DSxVariant(whoAmI: id), requestedVariant.map({ $0 == found }) ?? true else {
            let expected = requestedVariant.map { [$0.whoAmI] } ?? LSM6DSxVariant.allCases.map(\.whoAmI)
            throw .wrongChipID(
                chip: requestedVariant?.rawValue ?? Self.chipName, bus: bus.name, address: address,
                register: Register.whoAmI.rawValue, expected: expected, found: id)
        }
        try write(.ctrl3C, F.ifInc.inserting(1, into: F.swReset.inserting(1, into: 0)))
        delay(D.resetTimeUs)
        guard try bus.sensorReadByte(address: address, register: Register.whoAmI.rawValue) == id else {
            throw .notReady(chip: found.rawValue, bus: bus.name, address: address, waitedMs: D.resetTimeUs / 1000)
        }
        variant = found
        accelFullScale = .g2
        gyroFullScale = .dps245
        powerMode = .suspend
        return ChipIdentity(chip: found.rawValue, idValue: id)
    }

    /// Register values for a configuration, and what they give.
    public struct Settings: Sendable, Hashable {
        public var ctrl1XL: UInt8
        public var ctrl2G: UInt8
        public var ctrl3C: UInt8
        public var ctrl6C: UInt8
        public var ctrl7G: UInt8
        public var int1Ctrl: UInt8
        /// `TAP_CFG` (DS3, DSL) or `TAP_CFG2` (DSOX).
        public var tapCfg: UInt8
        /// DSOX `TAP_CFG0` (`nil` on the others).
        public var tapCfg0: UInt8?
        public var wakeUpThs: UInt8
        public var md1Cfg: UInt8
        /// DS3/DSL `FIFO_CTRL3` (decimation) or DSOX `FIFO_CTRL3` (batch rates).
        public var fifoCtrl3: UInt8
        /// DS3/DSL `FIFO_CTRL5` or DSOX `FIFO_CTRL4`.
        public var fifoMode: UInt8
        public var accelFullScale: LSM6DSxDatasheet.AccelFullScale
        public var gyroFullScale: LSM6DSxDatasheet.GyroFullScale
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` on `variant` (pure; no I/O).
    ///
    /// - Ranges: the smallest full scale covering the request; defaults ±4 g and ±2000 °/s.
    /// - Rates: the slowest ODR of at least `rateHz` (12.5 Hz … the variant's gyroscope maximum; in `.lowPower`
    ///   12.5…52 Hz).
    /// - Wake-on-motion: `WK_THS` = threshold / (full scale / 64), rounded to the nearest step (1…63).
    public static func registerSettings(for requested: SensorConfiguration, variant: LSM6DSxVariant) throws(SensorError)
        -> Settings
    {
        let chip = variant.rawValue
        try validateRate(requested.rateHz, chip: chip)
        let g = PhysicalConstants.standardGravityMps2
        let accel = try accelerationFullScale(
            D.AccelFullScale.ascending, rangeG: \.rangeG, requestedMps2: requested.accelerationRangeMps2, chip: chip)
        let gyro = try angularRateFullScale(
            D.GyroFullScale.allCases, rangeDegPerS: \.rangeDegPerS,
            requestedRadS: requested.angularRateRangeRadS, chip: chip)
        let maximumHz = requested.powerMode == .lowPower ? D.lowPowerMaximumRateHz : variant.maximumGyroRateHz
        guard let odr = D.rateCodesHz.first(where: { covers($0.rateHz, requested.rateHz) }), odr.rateHz <= maximumHz else {
            let mode = requested.powerMode == .lowPower ? "low-power rate" : "rate"
            throw .unsupportedConfiguration(chip: chip, detail: "\(mode) \(requested.rateHz) Hz: at most \(maximumHz) Hz")
        }
        // WK_THS steps of full scale / 64.
        let wakeUpThreshold =
            try wakeOnMotionSteps(
                requested.wakeOnMotionThresholdMps2, stepMps2: accel.rangeG * g / 64,
                maximumSteps: 63, chip: chip) ?? 0
        let wom = requested.wakeOnMotionThresholdMps2 != nil
        let fifo = requested.fifo == .stream
        if fifo, requested.powerMode != .normal {
            throw .unsupportedConfiguration(
                chip: chip, detail: "the FIFO needs .normal power (it batches the gyroscope, which is off otherwise)")
        }
        let accelOn = requested.powerMode != .suspend, gyroOn = requested.powerMode == .normal
        var s = Settings(
            ctrl1XL: F.fsXL.inserting(accel.rawValue, into: F.odr.inserting(accelOn ? odr.code : 0, into: 0)),
            ctrl2G: gyro.ctrl2Bits | F.odr.inserting(gyroOn ? odr.code : 0, into: 0),
            ctrl3C: F.bdu.inserting(1, into: F.ifInc.inserting(1, into: 0)),
            ctrl6C: F.xlHmMode.inserting(requested.powerMode == .lowPower ? 1 : 0, into: 0),
            ctrl7G: 0,
            int1Ctrl: F.int1DrdyXL.inserting(1, into: F.int1DrdyG.inserting(gyroOn ? 1 : 0, into: 0)),
            tapCfg: 0, tapCfg0: variant == .lsm6dsox ? 0 : nil,
            wakeUpThs: F.wkThs.inserting(wakeUpThreshold, into: 0),
            md1Cfg: F.int1Wu.inserting(wom ? 1 : 0, into: 0),
            fifoCtrl3: 0, fifoMode: 0,
            accelFullScale: accel, gyroFullScale: gyro,
            actual: SensorConfiguration(
                rateHz: accelOn ? odr.rateHz : 0, powerMode: requested.powerMode, oversampling: 1,
                accelerationRangeMps2: accel.rangeG * g,
                angularRateRangeRadS: Angle.radians(fromDegrees: gyro.rangeDegPerS),
                fifo: requested.fifo,
                wakeOnMotionThresholdMps2: wom ? Double(wakeUpThreshold) * accel.rangeG * g / 64 : nil))
        if wom {
            switch variant {
            case .lsm6ds3: s.tapCfg = F.lir.inserting(1, into: 0)
            case .lsm6dsl: s.tapCfg = F.interruptsEnable.inserting(1, into: F.lir.inserting(1, into: 0))
            case .lsm6dsox:
                s.tapCfg = F.interruptsEnable.inserting(1, into: 0)
                s.tapCfg0 = F.lir.inserting(1, into: 0)
            }
        }
        if fifo {
            s.fifoMode = F.fifoMode.inserting(D.FIFOMode.continuous.rawValue, into: 0)
            if variant.hasTaggedFIFO {
                s.fifoCtrl3 = F.bdrGy.inserting(odr.code, into: F.bdrXL.inserting(odr.code, into: 0))
            } else {
                s.fifoCtrl3 = F.decFifoGyro.inserting(1, into: F.decFifoXL.inserting(1, into: 0))
                s.fifoMode = F.odrFifo.inserting(odr.code, into: s.fifoMode)
            }
        }
        return s
    }

    /// Applies `configuration` (see `registerSettings(for:variant:)`): `CTRL3_C`, the FIFO (reset through bypass
    /// first), interrupts and wake-up, then the modes and the ODRs last so the sensors start with their final settings.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard let variant else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration, variant: variant)
        try write(.ctrl3C, s.ctrl3C)
        try write(.fifoMode, 0) // bypass empties the FIFO
        try write(variant.hasTaggedFIFO ? .fifoCtrl3DSOX : .fifoCtrl3DS3, s.fifoCtrl3)
        try write(.int1Ctrl, s.int1Ctrl)
        try write(.wakeUpThs, s.wakeUpThs)
        try write(.wakeUpDur, 0)
        if let tapCfg0 = s.tapCfg0 { try write(.tapCfg0DSOX, tapCfg0) }
        try write(.tapCfg, s.tapCfg)
        try write(.md1Cfg, s.md1Cfg)
        try write(.ctrl6C, s.ctrl6C)
        try write(.ctrl7G, s.ctrl7G)
        try write(.ctrl2G, s.ctrl2G)
        try write(.ctrl1XL, s.ctrl1XL)
        if s.fifoMode != 0 { try write(.fifoMode, s.fifoMode) }
        accelFullScale = s.accelFullScale
        gyroFullScale = s.gyroFullScale
        powerMode = configuration.powerMode
        self.configuration = s.actual
        return s.actual
    }

    /// Reads temperature, gyroscope and accelerometer in one 14-byte burst from `OUT_TEMP_L`. Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let variant else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let accelFullScale = self.accelFullScale, gyroFullScale = self.gyroFullScale
        var reading = try withTemporaryBytes(byteCount: 14, alignment: 1) {
            (raw) throws(SensorError) -> SensorReading in
            try bus.sensorRead(address: address, register: Register.outTempL.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            return SensorReading(
                timeS: timeS, temperatureC: D.temperatureC(raw: Bytes.leS16(b, 0), variant: variant),
                accelerationMps2: Self.acceleration(b, 8, accelFullScale),
                angularVelocityRadS: Self.angularVelocity(b, 2, gyroFullScale))
        }
        if powerMode == .lowPower { reading.angularVelocityRadS = nil } // gyroscope powered down
        return reading
    }

    @inline(__always)
    static func acceleration(_ b: UnsafeRawBufferPointer, _ o: Int, _ fs: D.AccelFullScale) -> Vector3 {
        axisTriple(b, at: o) { D.accelerationMps2(raw: $0, fullScale: fs) }
    }

    @inline(__always)
    static func angularVelocity(_ b: UnsafeRawBufferPointer, _ o: Int, _ fs: D.GyroFullScale) -> Vector3 {
        axisTriple(b, at: o) { D.angularVelocityRadS(raw: $0, fullScale: fs) }
    }

    private func write(_ register: Register, _ value: UInt8) throws(SensorError) {
        try bus.sensorWriteByte(address: address, register: register.rawValue, value: value)
    }
}

extension LSM6DSx: DataReadyReporting {
    /// `STATUS_REG.XLDA` (and `GDA` while the gyroscope runs): new data waits (reading the outputs clears them).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard variant != nil else { throw notProbed(chip: Self.chipName) }
        let status = try bus.sensorReadByte(address: address, register: Register.statusReg.rawValue)
        return F.xlda.extract(from: status) == 1 && (powerMode != .normal || F.gda.extract(from: status) == 1)
    }
}

extension LSM6DSx: MotionWakeReporting {
    /// `WAKE_UP_SRC.WU_IA` (latched; reading clears it).
    public mutating func motionDetected() throws(SensorError) -> Bool {
        guard variant != nil else { throw notProbed(chip: Self.chipName) }
        return F.wuIa.extract(from: try bus.sensorReadByte(address: address, register: Register.wakeUpSrc.rawValue)) == 1
    }
}

extension LSM6DSx: FIFOBuffering {
    /// Samples (a gyroscope and an accelerometer word each) the FIFO holds when full, while it is on; else 0.
    public var fifoCapacitySamples: Int {
        guard let variant else { return 0 }
        return fifoCapacity(variant.hasTaggedFIFO ? variant.fifoWords / 2 : variant.fifoWords / 6, configuration)
    }

    /// Complete samples waiting.
    public mutating func fifoSampleCount() throws(SensorError) -> Int {
        guard let variant else { throw notProbed(chip: Self.chipName) }
        guard fifoSamplePeriodS(configuration) != nil else { return 0 }
        let status = try fifoStatus(variant)
        return variant.hasTaggedFIFO ? status.words / 2 : max(status.words - status.skip, 0) / 6
    }

    /// Reads the waiting samples (up to `samples.count`) in one burst after one status read (in 1 KiB bursts when more
    /// wait, `fifoBurstBytes`, so that the bytes stay on the stack). DS3/DSL: the words up to
    /// the next whole gyroscope-then-accelerometer set (`FIFO_PATTERN`) are read and dropped, then whole sets. DSOX:
    /// tagged words, at most two per sample of `samples`, paired into samples (a word whose partner is not in the burst
    /// becomes a sample of its own; should unpaired words make more samples than `samples` holds, the extra are lost
    /// and `overrun` says so).
    public mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> FIFODrain
    {
        guard let variant else { throw notProbed(chip: Self.chipName) }
        guard let periodS = fifoSamplePeriodS(configuration), samples.count > 0 else {
            return FIFODrain(count: 0, overrun: false)
        }
        let status = try fifoStatus(variant)
        let bus = self.bus, address = self.address
        let accelFullScale = self.accelFullScale, gyroFullScale = self.gyroFullScale
        var produced = 0, waiting = 0, lost = false
        // Bursts of at most `fifoBurstBytes`, so that the bytes stay on the stack (a full DS3 FIFO is 8 KiB).
        if variant.hasTaggedFIFO {
            // Two words a sample: a buffer of `fifoCapacitySamples` takes a full FIFO.
            let words = min(status.words, 2 * samples.count)
            guard words > 0 else { return FIFODrain(count: 0, overrun: status.overrun) }
            var pending = SensorReading()
            func emit() {
                if produced < samples.count { samples[produced] = pending; produced += 1 } else { lost = true }
                pending = SensorReading()
            }
            var done = 0
            while done < words {
                let n = min(words - done, fifoBurstBytes / 7)
                try withTemporaryBytes(byteCount: fifoBurstBytes, alignment: 1) { (raw) throws(SensorError) in
                    let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[0..<(n * 7)])
                    try bus.sensorReadFIFO(
                        address: address, register: Register.fifoDataOutTagDSOX.rawValue, frameBytes: 7, into: bytes)
                    let b = UnsafeRawBufferPointer(bytes)
                    for w in 0..<n {
                        let o = w * 7
                        switch D.FIFOTag(rawValue: F.tagSensor.extract(from: b[o])) {
                        case .gyroscope?:
                            if pending.angularVelocityRadS != nil { emit() }
                            pending.angularVelocityRadS = Self.angularVelocity(b, o + 1, gyroFullScale)
                        case .accelerometer?:
                            if pending.accelerationMps2 != nil { emit() }
                            pending.accelerationMps2 = Self.acceleration(b, o + 1, accelFullScale)
                        case nil:
                            continue // a word this driver does not batch
                        }
                        if pending.accelerationMps2 != nil, pending.angularVelocityRadS != nil { emit() }
                    }
                }
                done += n
            }
            if pending.accelerationMps2 != nil || pending.angularVelocityRadS != nil { emit() }
            // Every two words a sample (a lone word rounds up), the drained ones first.
            waiting = max(produced, (status.words + 1) / 2)
        } else {
            waiting = max(status.words - status.skip, 0) / 6
            let sets = min(waiting, samples.count)
            guard sets > 0 else { return FIFODrain(count: 0, overrun: status.overrun) }
            var skipBytes = status.skip * 2
            while produced < sets {
                let n = min(sets - produced, (fifoBurstBytes - skipBytes) / 12)
                try withTemporaryBytes(byteCount: fifoBurstBytes, alignment: 1) { (raw) throws(SensorError) in
                    let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[0..<(skipBytes + n * 12)])
                    try bus.sensorReadFIFO(address: address, register: Register.fifoDataOutL.rawValue, frameBytes: 2, into: bytes)
                    let b = UnsafeRawBufferPointer(bytes)
                    for i in 0..<n {
                        let o = skipBytes + i * 12
                        samples[produced + i] = SensorReading(
                            accelerationMps2: Self.acceleration(b, o + 6, accelFullScale),
                            angularVelocityRadS: Self.angularVelocity(b, o, gyroFullScale))
                    }
                }
                produced += n
                skipBytes = 0
            }
        }
        stampFIFOSamples(samples, count: produced, waiting: waiting, newestTimeS: newestTimeS, periodS: periodS)
        return FIFODrain(count: produced, overrun: status.overrun || lost)
    }

    /// Unread words, for DS3/DSL the words to drop to reach the start of a gyroscope-then-accelerometer set, and the
    /// overrun flag (`FIFO_STATUS2` bit 6).
    private func fifoStatus(_ variant: LSM6DSxVariant) throws(SensorError) -> (words: Int, skip: Int, overrun: Bool) {
        let bus = self.bus, address = self.address
        return try withTemporaryBytes(byteCount: 4, alignment: 1) {
            (raw) throws(SensorError) -> (words: Int, skip: Int, overrun: Bool) in
            let count = variant.hasTaggedFIFO ? 2 : 4
            try bus.sensorRead(
                address: address, register: Register.fifoStatus1.rawValue,
                into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
            let overrun = F.fifoOverrun.extract(from: raw[1]) == 1
            switch variant {
            case .lsm6dsox: return (Int(raw[1] & 0b11) << 8 | Int(raw[0]), 0, overrun)
            case .lsm6ds3, .lsm6dsl:
                let highMask: UInt8 = variant == .lsm6ds3 ? 0b1111 : 0b0111
                // DIFF_FIFO is one bit too narrow for a full FIFO (4096 words in 12 bits, 2048 in 11): with the
                // overrun flag, 0 words is a full FIFO, not an empty one.
                let counted = Int(raw[1] & highMask) << 8 | Int(raw[0])
                let words = counted == 0 && overrun ? variant.fifoWords : counted
                let pattern = Int(raw[3] & 0b11) << 8 | Int(raw[2])
                return (words, (6 - pattern % 6) % 6, overrun)
            }
        }
    }
}
