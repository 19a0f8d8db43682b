import LodestoneCore

/// The members of the InvenSense MPU-6xxx family this driver knows, told apart by `WHO_AM_I` (register 117).
public enum MPUVariant: String, Sendable, Hashable, Codable, CaseIterable {
    /// MPU-6050: accelerometer and gyroscope, `WHO_AM_I` 0x68 (RM-MPU-6000A-00).
    case mpu6050
    /// MPU-6500: accelerometer and gyroscope, `WHO_AM_I` 0x70 (RM-MPU-6500A-00).
    case mpu6500
    /// MPU-9250: an MPU-6500 with an AK8963 magnetometer behind its I2C bypass, `WHO_AM_I` 0x71 (0x73 on the
    /// MPU-9255) (RM-MPU-9250A-00, PS-MPU-9250A-01).
    case mpu9250

    /// The `WHO_AM_I` values of this variant (the first is the usual one).
    public var whoAmIValues: [UInt8] {
        switch self {
        case .mpu6050: [0x68]
        case .mpu6500: [0x70]
        case .mpu9250: [0x71, 0x73]
        }
    }

    /// The variant whose `WHO_AM_I` value is `whoAmI`, if any.
    public init?(whoAmI: UInt8) {
        guard let v = Self.allCases.first(where: { $0.whoAmIValues.contains(whoAmI) }) else { return nil }
        self = v
    }

    /// Whether an AK8963 magnetometer sits behind the I2C bypass.
    public var hasMagnetometer: Bool { self == .mpu9250 }

    /// Temperature sensitivity, LSB/°C (6050 register map, registers 65–66: 340; 6500/9250 register maps: 333.87).
    public var temperatureLSBPerC: Double { self == .mpu6050 ? 340 : 333.87 }
    /// Temperature added after scaling, °C (6050: 36.53; 6500/9250: 21, the room-temperature offset).
    public var temperatureOffsetC: Double { self == .mpu6050 ? 36.53 : 21 }
}

/// InvenSense MPU-6050/6500/9250 register map, fields and conversions, independent of any bus.
///
/// Sources: *MPU-6000 and MPU-6050 Register Map and Descriptions* RM-MPU-6000A-00 rev. 4.2, *MPU-6500 Register Map*
/// RM-MPU-6500A-00, *MPU-9250 Register Map* RM-MPU-9250A-00 rev. 1.4 and *MPU-9250 Product Specification*
/// PS-MPU-9250A-01. Registers are cited by their decimal number, as the register maps do.
public enum MPU6xxxDatasheet {
    /// The register map. Names follow the datasheets in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Register 25: sample rate = internal rate / (1 + `SMPLRT_DIV`).
        case smplrtDiv = 0x19
        /// Register 26: `EXT_SYNC_SET` [5:3], `DLPF_CFG` [2:0].
        case config = 0x1A
        /// Register 27: self-test [7:5], `FS_SEL` [4:3] (`GYRO_FS_SEL`), `FCHOICE_B` [1:0] (6500/9250).
        case gyroConfig = 0x1B
        /// Register 28: self-test [7:5], `AFS_SEL` [4:3] (`ACCEL_FS_SEL`).
        case accelConfig = 0x1C
        /// Register 29 (6500/9250 only): `ACCEL_FCHOICE_B` [3], `A_DLPF_CFG` [2:0].
        case accelConfig2 = 0x1D
        /// Register 30 (6500/9250 only): `LPOSC_CLKSEL` [3:0], the low-power accelerometer rate.
        case lpAccelOdr = 0x1E
        /// Register 31: `WOM_THR` (6500/9250: wake-on-motion threshold, 4 mg/LSB, RM-MPU-9250A-00 register 31) or
        /// `MOT_THR` (6050: motion detection threshold, 2 mg/LSB, RM-MPU-6000A-00 rev. 3.2 register 31).
        case womThr = 0x1F
        /// Register 32 (6050 only): `MOT_DUR`, motion detection duration, 1 ms/LSB (RM-MPU-6000A-00 rev. 3.2).
        case motDur = 0x20
        /// Register 55: `INT_RD_CLEAR` [4], `I2C_BYPASS_EN` [1].
        case intPinCfg = 0x37
        /// Register 56: interrupt enables.
        case intEnable = 0x38
        /// Register 58: `DATA_RDY_INT` [0], read-only, cleared by reading it.
        case intStatus = 0x3A
        /// Registers 59–64: accelerometer, big-endian two's complement.
        case accelXoutH = 0x3B
        case accelXoutL = 0x3C
        case accelYoutH = 0x3D
        case accelYoutL = 0x3E
        case accelZoutH = 0x3F
        case accelZoutL = 0x40
        /// Registers 65–66: temperature.
        case tempOutH = 0x41
        case tempOutL = 0x42
        /// Registers 67–72: gyroscope.
        case gyroXoutH = 0x43
        case gyroXoutL = 0x44
        case gyroYoutH = 0x45
        case gyroYoutL = 0x46
        case gyroZoutH = 0x47
        case gyroZoutL = 0x48
        /// Register 104: signal path reset.
        case signalPathReset = 0x68
        /// Register 105 (6500/9250): `ACCEL_INTEL_CTRL`: `ACCEL_INTEL_EN` [7], `ACCEL_INTEL_MODE` [6]. (On the 6050 this
        /// address is `MOT_DETECT_CTRL`, which this driver leaves at its default.)
        case accelIntelCtrl = 0x69
        /// Register 106: `I2C_MST_EN` [5] (must be 0 for the bypass).
        case userCtrl = 0x6A
        /// Register 107: `DEVICE_RESET` [7], `SLEEP` [6], `CYCLE` [5], `GYRO_STANDBY` [4] (6500/9250),
        /// `TEMP_DIS` [3] (`PD_PTAT`), `CLKSEL` [2:0].
        case pwrMgmt1 = 0x6B
        /// Register 108: `LP_WAKE_CTRL` [7:6] (6050 only), `STBY_XA`…`STBY_ZG` [5:0] (`DIS_XA`… on 6500/9250).
        case pwrMgmt2 = 0x6C
        /// Register 117: identity, read-only.
        case whoAmI = 0x75
    }

    /// Register fields.
    public enum Field {
        /// `CONFIG.DLPF_CFG`.
        public static let dlpfCfg = BitField(mask: 0b0000_0111)
        /// `GYRO_CONFIG.FS_SEL`.
        public static let fsSel = BitField(mask: 0b0001_1000)
        /// `GYRO_CONFIG.FCHOICE_B` (6500/9250): non-zero bypasses the DLPF.
        public static let fchoiceB = BitField(mask: 0b0000_0011)
        /// `ACCEL_CONFIG.AFS_SEL`.
        public static let afsSel = BitField(mask: 0b0001_1000)
        /// `ACCEL_CONFIG2.ACCEL_FCHOICE_B` (6500/9250).
        public static let accelFchoiceB = BitField(mask: 0b0000_1000)
        /// `ACCEL_CONFIG2.A_DLPF_CFG` (6500/9250).
        public static let aDlpfCfg = BitField(mask: 0b0000_0111)
        /// `LP_ACCEL_ODR.LPOSC_CLKSEL` (6500/9250).
        public static let lposcClksel = BitField(mask: 0b0000_1111)
        /// `INT_PIN_CFG.INT_RD_CLEAR`: any read clears the interrupt status.
        public static let intRdClear = BitField(mask: 0b0001_0000)
        /// `INT_PIN_CFG.I2C_BYPASS_EN`: connects the auxiliary I2C bus to the host bus.
        public static let bypassEn = BitField(mask: 0b0000_0010)
        /// `INT_STATUS.DATA_RDY_INT`.
        public static let dataRdyInt = BitField(mask: 0b0000_0001)
        /// `INT_ENABLE.WOM_EN` (6500/9250) / `MOT_EN` (6050): the motion interrupt on INT.
        public static let womEn = BitField(mask: 0b0100_0000)
        /// `INT_STATUS.WOM_INT` (6500/9250) / `MOT_INT` (6050): motion seen; cleared by reading `INT_STATUS`.
        public static let womInt = BitField(mask: 0b0100_0000)
        /// `ACCEL_INTEL_CTRL.ACCEL_INTEL_EN` (6500/9250): the wake-on-motion logic on.
        public static let accelIntelEn = BitField(mask: 0b1000_0000)
        /// `ACCEL_INTEL_CTRL.ACCEL_INTEL_MODE` (6500/9250): 1 compares each sample with the previous one.
        public static let accelIntelMode = BitField(mask: 0b0100_0000)
        /// `ACCEL_CONFIG.ACCEL_HPF` (6050): the motion detector's high-pass filter; 7 = hold (each sample is compared
        /// with the one held when the filter was set).
        public static let accelHpf = BitField(mask: 0b0000_0111)
        /// `USER_CTRL.I2C_MST_EN`.
        public static let i2cMstEn = BitField(mask: 0b0010_0000)
        /// `USER_CTRL.I2C_IF_DIS` (6000/6500/9250): SPI only, the I2C slave interface off.
        public static let i2cIfDis = BitField(mask: 0b0001_0000)
        /// `PWR_MGMT_1.DEVICE_RESET` (`H_RESET`); clears itself when the reset is done.
        public static let deviceReset = BitField(mask: 0b1000_0000)
        /// `PWR_MGMT_1.SLEEP`.
        public static let sleep = BitField(mask: 0b0100_0000)
        /// `PWR_MGMT_1.CYCLE`: duty-cycled accelerometer measurements.
        public static let cycle = BitField(mask: 0b0010_0000)
        /// `PWR_MGMT_1.GYRO_STANDBY` (6500/9250).
        public static let gyroStandby = BitField(mask: 0b0001_0000)
        /// `PWR_MGMT_1.TEMP_DIS` (`PD_PTAT` on 6500/9250): temperature sensor off.
        public static let tempDis = BitField(mask: 0b0000_1000)
        /// `PWR_MGMT_1.CLKSEL`: 0 internal oscillator, 1 PLL (X gyro on 6050; auto-select on 6500/9250).
        public static let clksel = BitField(mask: 0b0000_0111)
        /// `PWR_MGMT_2.LP_WAKE_CTRL` (6050 only): cycle-mode wake-up rate (`lpWakeRatesHz`).
        public static let lpWakeCtrl = BitField(mask: 0b1100_0000)
        /// `PWR_MGMT_2.STBY_XA|YA|ZA`: accelerometer axes in standby.
        public static let standbyAccel = BitField(mask: 0b0011_1000)
        /// `PWR_MGMT_2.STBY_XG|YG|ZG`: gyroscope axes in standby.
        public static let standbyGyro = BitField(mask: 0b0000_0111)
        /// `PWR_MGMT_2.STBY_XA` … `STBY_ZG` (`DIS_XA` … `DIS_ZG` on 6500/9250): one axis in standby.
        public static let stbyXA = BitField(mask: 0b0010_0000)
        public static let stbyYA = BitField(mask: 0b0001_0000)
        public static let stbyZA = BitField(mask: 0b0000_1000)
        public static let stbyXG = BitField(mask: 0b0000_0100)
        public static let stbyYG = BitField(mask: 0b0000_0010)
        public static let stbyZG = BitField(mask: 0b0000_0001)
    }

    /// `FS_SEL` settings (register 27; 6050 product spec table 6.1).
    public enum GyroFullScale: UInt8, Sendable, CaseIterable {
        case dps250 = 0, dps500, dps1000, dps2000
        /// The full scale, ± °/s.
        public var rangeDegPerS: Double { 250 * Double(1 << Int(rawValue)) }
        /// The sensitivity, LSB/(°/s).
        public var sensitivityLSBPerDegPerS: Double {
            switch self {
            case .dps250: 131
            case .dps500: 65.5
            case .dps1000: 32.8
            case .dps2000: 16.4
            }
        }
    }

    /// `AFS_SEL` settings (register 28; 6050 product spec table 6.2).
    public enum AccelFullScale: UInt8, Sendable, CaseIterable {
        case g2 = 0, g4, g8, g16
        /// The full scale, ± g.
        public var rangeG: Double { 2 * Double(1 << Int(rawValue)) }
        /// The sensitivity, LSB/g.
        public var sensitivityLSBPerG: Double { 16384 / Double(1 << Int(rawValue)) }
    }

    /// Gyroscope output rate with the DLPF on (`DLPF_CFG` 1…6), Hz.
    public static let internalSampleRateHz = 1000.0
    /// Gyroscope DLPF bandwidth by `DLPF_CFG` 0…6, Hz (6050 register 26 table).
    public static let gyroBandwidthHz6050: [Double] = [256, 188, 98, 42, 20, 10, 5]
    /// Gyroscope DLPF bandwidth by `DLPF_CFG` 0…6 with `FCHOICE_B` = 0, Hz (6500/9250 register 26 table).
    public static let gyroBandwidthHz6500: [Double] = [250, 184, 92, 41, 20, 10, 5]
    /// Accelerometer DLPF bandwidth by `A_DLPF_CFG` 0…6 with `ACCEL_FCHOICE_B` = 0, Hz (6500/9250 register 29 table).
    public static let accelBandwidthHz6500: [Double] = [218.1, 218.1, 99, 44.8, 21.2, 10.2, 5.05]
    /// Cycle-mode wake-up rates by `LP_WAKE_CTRL` 0…3, Hz (6050 register 108).
    public static let lpWakeRatesHz: [Double] = [1.25, 5, 20, 40]
    /// Low-power accelerometer rates by `LPOSC_CLKSEL` 0…11, Hz (6500/9250 register 30).
    public static let lpAccelRatesHz: [Double] = [0.24, 0.49, 0.98, 1.95, 3.91, 7.81, 15.63, 31.25, 62.5, 125, 250, 500]
    /// Wake-on-motion threshold step of the 6500/9250, m/s² (`WOM_THR`: 4 mg/LSB, 0…1020 mg; RM-MPU-9250A-00 register 31).
    public static let wakeOnMotionThresholdStepMps2 = 0.004 * PhysicalConstants.standardGravityMps2
    /// Motion detection threshold step of the 6050, m/s² (`MOT_THR`: 2 mg/LSB; RM-MPU-6000A-00 rev. 3.2 register 31).
    public static let motionThresholdStep6050Mps2 = 0.002 * PhysicalConstants.standardGravityMps2

    /// Time a device reset takes before registers answer, µs (start-up time, 100 ms).
    public static let resetTimeUs = 100_000
    /// 7-bit I2C addresses: AD0 low 0x68, high 0x69.
    public static let addresses: [UInt8] = [0x68, 0x69]
    /// The AK8963's address behind the MPU-9250's bypass (PS-MPU-9250A-01 section 4.11).
    public static let magnetometerAddress: UInt8 = 0x0C

    /// Big-endian raw accelerometer value to m/s² (`raw / sensitivity · g`, g = 9.80665 m/s²).
    @inlinable public static func accelerationMps2(raw: Int16, fullScale: AccelFullScale) -> Double {
        Double(raw) / fullScale.sensitivityLSBPerG * PhysicalConstants.standardGravityMps2
    }

    /// Raw gyroscope value to rad/s.
    @inlinable public static func angularVelocityRadS(raw: Int16, fullScale: GyroFullScale) -> Double {
        Angle.radians(fromDegrees: Double(raw) / fullScale.sensitivityLSBPerDegPerS)
    }

    /// Raw temperature to °C: `raw / 340 + 36.53` (6050) or `raw / 333.87 + 21` (6500/9250).
    @inlinable public static func temperatureC(raw: Int16, variant: MPUVariant) -> Double {
        Double(raw) / variant.temperatureLSBPerC + variant.temperatureOffsetC
    }

    /// A vector in the AK8963's axes expressed in the MPU-9250's accelerometer/gyroscope axes:
    /// x_MPU = y_AK, y_MPU = x_AK, z_MPU = −z_AK (PS-MPU-9250A-01 section 9.1, orientation of axes).
    @inlinable public static func mpuAxes(fromMagnetometerAxes v: Vector3) -> Vector3 {
        Vector3(v.y, v.x, -v.z)
    }
}

/// Driver for the InvenSense MPU-6050, MPU-6500 and MPU-9250 (with its AK8963), generic over its bus.
///
/// Reports acceleration (m/s²), angular velocity (rad/s) and die temperature (°C) in the chip's axes; on the MPU-9250
/// also the magnetic field (µT) already rotated from the AK8963's axes into the accelerometer's, so one mount
/// matrix serves the whole chip. The AK8963 measures at 8 or 100 Hz: a reading has no field when there is no new one.
/// In `.lowPower` the gyroscope is in standby and the temperature sensor off, so readings carry acceleration only
/// (and the field on the MPU-9250).
public struct MPU6xxx<Bus: RegisterBus>: SensorDriver {
    /// The register map (`MPU6xxxDatasheet.Register`).
    public typealias Register = MPU6xxxDatasheet.Register

    /// The family's name; `variant` says which member was found.
    public static var chipName: String { "mpu6050" }
    /// The kinds every member reports; the MPU-9250 adds `.magnetometer` (see `variantKinds`).
    public static var kinds: [SensorKind] { [.accelerometer, .gyroscope, .thermometer] }
    public static var addresses: [UInt8] { MPU6xxxDatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// The variant asked for, or `nil` to accept any.
    public let requestedVariant: MPUVariant?
    /// Sleeps for the given number of microseconds; used only after resets.
    public let delay: @Sendable (Int) -> Void
    /// The variant `probe()` found; `nil` before.
    public private(set) var variant: MPUVariant?
    /// The MPU-9250's magnetometer behind the bypass (after `probe()` with `.bypass` access); `nil` otherwise.
    public private(set) var magnetometer: AK8963<Bus>?
    /// The MPU-9250's magnetometer behind the I2C master (after `probe()` with `.i2cMaster` access); `nil` otherwise.
    public private(set) var masterMagnetometer: AK8963<InvenSenseI2CMaster<Bus>>?
    /// How the MPU-9250's AK8963 is reached: as asked in `init`, else `.bypass` on I2C and `.i2cMaster` on SPI
    /// (the bypass cannot bridge the auxiliary bus onto SPI).
    public let magnetometerAccess: AuxiliaryBusAccess
    private var lastMagnetometerIdentity: UInt64?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var accelFullScale = MPU6xxxDatasheet.AccelFullScale.g2
    private var gyroFullScale = MPU6xxxDatasheet.GyroFullScale.dps250
    private var powerMode = PowerMode.normal
    /// Whether the last `configure` armed the motion interrupt (so that the next one disarms it).
    private var motionWakeArmed = false

    /// A driver for an MPU-6xxx at `address` on `bus`. Does no I/O.
    /// - Parameters:
    ///   - variant: the variant expected (`probe()` throws `wrongChipID` for another), or `nil` for any.
    ///   - delay: sleeps for the given microseconds (the engine passes a real sleep; the default does not wait).
    ///   - magnetometerAccess: how to reach an MPU-9250's AK8963; `nil` (default) picks by `bus.transport`.
    public init(
        bus: Bus, address: UInt8 = MPU6xxxDatasheet.addresses[0], variant: MPUVariant? = nil,
        magnetometerAccess: AuxiliaryBusAccess? = nil, delay: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.bus = bus; self.address = address; self.requestedVariant = variant; self.delay = delay
        self.magnetometerAccess = magnetometerAccess ?? (bus.transport == .spi ? .i2cMaster : .bypass)
    }

    /// The kinds the probed variant reports (`kinds`, plus `.magnetometer` on the MPU-9250).
    public var variantKinds: [SensorKind] {
        variant?.hasMagnetometer == true ? Self.kinds + [.magnetometer] : Self.kinds
    }

    /// Checks `WHO_AM_I`, resets (`PWR_MGMT_1.DEVICE_RESET`), waits bounded for the reset to finish, wakes the chip
    /// with the PLL clock (`CLKSEL` = 1) and, on SPI, disables the I2C slave interface (`USER_CTRL.I2C_IF_DIS`). On
    /// the MPU-9250 it then reaches the AK8963 at 0x0C: with `.bypass` access by enabling the I2C bypass
    /// (`INT_PIN_CFG.I2C_BYPASS_EN`), with `.i2cMaster` by enabling the I2C master at 400 kHz
    /// (`USER_CTRL.I2C_MST_EN`, `I2C_MST_CTRL.I2C_MST_CLK` = 13) and probing the AK8963 through slave 4.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        variant = nil // until this probe succeeds
        magnetometer = nil
        masterMagnetometer = nil
        lastMagnetometerIdentity = nil
        let whoAmI = Register.whoAmI.rawValue
        let id = try bus.sensorReadByte(address: address, register: whoAmI)
        guard let found = MPUVariant(whoAmI: id), requestedVariant.map({ $0 == found }) ?? true else {
            let expected = requestedVariant?.whoAmIValues ?? MPUVariant.allCases.flatMap(\.whoAmIValues)
            throw .wrongChipID(
                chip: requestedVariant?.rawValue ?? Self.chipName, bus: bus.name, address: address,
                register: whoAmI, expected: expected, found: id)
        }
        typealias F = MPU6xxxDatasheet.Field
        try write(.pwrMgmt1, F.deviceReset.inserting(1, into: 0))
        // Wait the datasheet's reset time, then confirm the chip answers with its identity, as the kernel's
        // inv_mpu6050 driver does (msleep after reset, no poll). Polling DEVICE_RESET for its self-clear would
        // hang on register files that do not emulate self-clearing bits (the kernel's i2c-stub); the CLKSEL
        // write below clears the bit in any case.
        delay(MPU6xxxDatasheet.resetTimeUs)
        let idAfterReset = try bus.sensorReadByte(address: address, register: whoAmI)
        guard idAfterReset == id else {
            throw .notReady(chip: found.rawValue, bus: bus.name, address: address, waitedMs: MPU6xxxDatasheet.resetTimeUs / 1000)
        }
        try write(.pwrMgmt1, F.clksel.inserting(1, into: 0))
        let spiOnly: UInt8 = bus.transport == .spi ? 1 : 0
        if found.hasMagnetometer, magnetometerAccess == .i2cMaster {
            try write(.userCtrl, F.i2cMstEn.inserting(1, into: F.i2cIfDis.inserting(spiOnly, into: 0)))
            try bus.sensorWriteByte(
                address: address, register: InvenSenseI2CMasterLayout.mpu9250.i2cMstCtrl.register,
                value: InvenSenseI2CMasterLayout.Field.i2cMstClk.inserting(13, into: 0))
            let auxiliary = InvenSenseI2CMaster(host: bus, hostAddress: address, layout: .mpu9250, delay: delay)
            var magnetometer = AK8963(bus: auxiliary, address: MPU6xxxDatasheet.magnetometerAddress, delay: delay)
            _ = try magnetometer.probe()
            masterMagnetometer = magnetometer
        } else {
            if spiOnly == 1 { try write(.userCtrl, F.i2cIfDis.inserting(1, into: 0)) }
            if found.hasMagnetometer {
                try write(.intPinCfg, F.bypassEn.inserting(1, into: 0))
                var magnetometer = AK8963(bus: bus, address: MPU6xxxDatasheet.magnetometerAddress, delay: delay)
                _ = try magnetometer.probe()
                self.magnetometer = magnetometer
            }
        }
        variant = found
        accelFullScale = .g2
        gyroFullScale = .dps250
        powerMode = .normal
        motionWakeArmed = false
        configuration = nil
        return ChipIdentity(chip: found.rawValue, idValue: id)
    }

    /// Register values for a configuration, and what they give.
    public struct Settings: Sendable, Hashable {
        public var smplrtDiv: UInt8
        public var config: UInt8
        public var gyroConfig: UInt8
        public var accelConfig: UInt8
        /// `ACCEL_CONFIG2`, on the 6500/9250 only.
        public var accelConfig2: UInt8?
        /// `LP_ACCEL_ODR`, on the 6500/9250 in low power only.
        public var lpAccelOdr: UInt8?
        public var pwrMgmt1: UInt8
        public var pwrMgmt2: UInt8
        /// Wake-on-motion (when asked for): `WOM_THR` / `MOT_THR`, `INT_ENABLE`, `ACCEL_INTEL_CTRL` (6500/9250) and
        /// `MOT_DUR` (6050).
        public var womThr: UInt8?
        public var intEnable: UInt8?
        public var accelIntelCtrl: UInt8?
        public var motDur: UInt8?
        public var accelFullScale: MPU6xxxDatasheet.AccelFullScale
        public var gyroFullScale: MPU6xxxDatasheet.GyroFullScale
        /// What to ask of the AK8963 (MPU-9250 only).
        public var magnetometer: SensorConfiguration?
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` on `variant` (pure; no I/O).
    ///
    /// - Ranges: the smallest full scale covering the request; defaults ±4 g and ±2000 °/s.
    /// - `.normal`: DLPF on (1 kHz internal rate), `SMPLRT_DIV` for the slowest rate of at least `rateHz` (3.9…1000 Hz),
    ///   `DLPF_CFG` (and `A_DLPF_CFG`) for the widest bandwidth at or below half that rate.
    /// - `.lowPower`: 6050 cycle mode at the slowest `LP_WAKE_CTRL` rate of at least `rateHz` (≤ 40 Hz), gyroscope in
    ///   standby, temperature off, internal oscillator; 6500/9250 low-power accelerometer mode (`LP_ACCEL_ODR`,
    ///   ≤ 500 Hz) with the gyroscope disabled in `PWR_MGMT_2`; the AK8963 at 8 Hz.
    /// - `.suspend`: the `.normal` registers with `PWR_MGMT_1.SLEEP` set and the AK8963 powered down (rate 0).
    /// - `wakeOnMotionThresholdMps2` (`.normal` or `.lowPower`): on the 6500/9250 the data sheet's wake-on-motion
    ///   (PS-MPU-9250A-01 section 7.1 / RM-MPU-9250A-00 registers 31, 56, 105): `INT_ENABLE.WOM_EN`,
    ///   `ACCEL_INTEL_CTRL` with `ACCEL_INTEL_EN` and `ACCEL_INTEL_MODE` (each sample compared with the previous one) and
    ///   `WOM_THR` in 4 mg steps (1…255, rounded); on the 6050 motion detection (RM-MPU-6000A-00 rev. 3.2 registers 28,
    ///   31, 32, 56): `ACCEL_HPF` = hold (each sample compared with the one held when armed), `MOT_THR` in 2 mg steps,
    ///   `MOT_DUR` 1 ms and `INT_ENABLE.MOT_EN`. `INT_STATUS.WOM_INT` / `MOT_INT` latches the event.
    public static func registerSettings(for requested: SensorConfiguration, variant: MPUVariant) throws(SensorError) -> Settings {
        let chip = variant.rawValue
        try validateRate(requested.rateHz, chip: chip)
        try rejectFeaturesNotOffered(requested, chip: chip, wakeOnMotion: true, why: "the chip's FIFO is not used by this driver")
        typealias D = MPU6xxxDatasheet
        typealias F = MPU6xxxDatasheet.Field
        let accelWanted = requested.accelerationRangeMps2 ?? 4 * PhysicalConstants.standardGravityMps2
        guard
            let accel = D.AccelFullScale.allCases.first(where: {
                covers($0.rangeG * PhysicalConstants.standardGravityMps2, accelWanted)
            })
        else {
            throw .unsupportedConfiguration(
                chip: chip,
                detail: "acceleration range \(accelWanted) m/s²: at most ±16 g (156.9 m/s²)")
        }
        let gyroWantedDegPerS = Angle.degrees(fromRadians: requested.angularRateRangeRadS ?? Angle.radians(fromDegrees: 2000))
        guard let gyro = D.GyroFullScale.allCases.first(where: { covers($0.rangeDegPerS, gyroWantedDegPerS) }) else {
            throw .unsupportedConfiguration(
                chip: chip,
                detail: "angular rate range \(gyroWantedDegPerS) °/s: at most ±2000 °/s")
        }
        if variant.hasMagnetometer, let range = requested.magneticRangeMicroTesla,
            !covers(AK8963Datasheet.rangeMicroTesla, range)
        {
            throw .unsupportedConfiguration(chip: chip, detail: "magnetic range \(range) µT: at most 4912 µT")
        }
        if requested.powerMode != .lowPower, !covers(D.internalSampleRateHz, requested.rateHz) {
            throw .unsupportedConfiguration(chip: chip, detail: "rate \(requested.rateHz) Hz: at most 1000 Hz with the DLPF on")
        }
        // Sample-rate divider and DLPFs, also written in low power where the chip ignores them, so that a later
        // `.normal` only has to clear the power bits.
        let dividedRateHz = min(requested.rateHz, D.internalSampleRateHz)
        let divider = min(max(Int((D.internalSampleRateHz / dividedRateHz * (1 + 1e-9)).rounded(.down)) - 1, 0), 255)
        let sampleRateHz = D.internalSampleRateHz / Double(divider + 1)
        let gyroBandwidths = variant == .mpu6050 ? D.gyroBandwidthHz6050 : D.gyroBandwidthHz6500
        let dlpf = (1...6).first { gyroBandwidths[$0] <= sampleRateHz / 2 } ?? 6
        let accelDLPF = (1...6).first { D.accelBandwidthHz6500[$0] <= sampleRateHz / 2 } ?? 6

        var settings = Settings(
            smplrtDiv: UInt8(divider), config: F.dlpfCfg.inserting(UInt8(dlpf), into: 0),
            gyroConfig: F.fsSel.inserting(gyro.rawValue, into: 0), accelConfig: F.afsSel.inserting(accel.rawValue, into: 0),
            accelConfig2: variant == .mpu6050 ? nil : F.aDlpfCfg.inserting(UInt8(accelDLPF), into: 0), lpAccelOdr: nil,
            pwrMgmt1: F.clksel.inserting(1, into: 0), pwrMgmt2: 0, womThr: nil, intEnable: nil, accelIntelCtrl: nil, motDur: nil,
            accelFullScale: accel, gyroFullScale: gyro,
            magnetometer: nil,
            actual: SensorConfiguration(
                rateHz: sampleRateHz, powerMode: requested.powerMode, oversampling: 1,
                accelerationRangeMps2: accel.rangeG * PhysicalConstants.standardGravityMps2,
                angularRateRangeRadS: Angle.radians(fromDegrees: gyro.rangeDegPerS),
                magneticRangeMicroTesla: variant.hasMagnetometer ? AK8963Datasheet.rangeMicroTesla : nil))
        switch requested.powerMode {
        case .normal:
            break
        case .suspend:
            settings.pwrMgmt1 = F.sleep.inserting(1, into: settings.pwrMgmt1)
            settings.actual.rateHz = 0
        case .lowPower:
            if variant == .mpu6050 {
                guard let wake = D.lpWakeRatesHz.firstIndex(where: { covers($0, requested.rateHz) }) else {
                    throw .unsupportedConfiguration(chip: chip, detail: "low-power rate \(requested.rateHz) Hz: at most 40 Hz")
                }
                settings.pwrMgmt1 = F.cycle.inserting(1, into: F.tempDis.inserting(1, into: 0)) // CLKSEL 0: gyros are off
                settings.pwrMgmt2 = F.lpWakeCtrl.inserting(UInt8(wake), into: F.standbyGyro.inserting(0b111, into: 0))
                settings.actual.rateHz = D.lpWakeRatesHz[wake]
            } else {
                guard let odr = D.lpAccelRatesHz.firstIndex(where: { covers($0, requested.rateHz) }) else {
                    throw .unsupportedConfiguration(chip: chip, detail: "low-power rate \(requested.rateHz) Hz: at most 500 Hz")
                }
                settings.pwrMgmt1 = F.cycle.inserting(1, into: F.tempDis.inserting(1, into: settings.pwrMgmt1))
                settings.pwrMgmt2 = F.standbyGyro.inserting(0b111, into: 0)
                settings.accelConfig2 = F.accelFchoiceB.inserting(1, into: F.aDlpfCfg.inserting(1, into: 0))
                settings.lpAccelOdr = F.lposcClksel.inserting(UInt8(odr), into: 0)
                settings.actual.rateHz = D.lpAccelRatesHz[odr]
            }
        }
        if let threshold = requested.wakeOnMotionThresholdMps2 {
            guard requested.powerMode != .suspend else {
                throw .unsupportedConfiguration(
                    chip: chip,
                    detail: "wake-on-motion threshold \(threshold) m/s² in suspend: the "
                        + "accelerometer must sample to see motion; use .lowPower")
            }
            let step = variant == .mpu6050 ? D.motionThresholdStep6050Mps2 : D.wakeOnMotionThresholdStepMps2
            guard threshold.isFinite, threshold > 0, threshold <= 255.5 * step else {
                throw .unsupportedConfiguration(
                    chip: chip, detail: "wake-on-motion threshold \(threshold) m/s²: use (0, \(255 * step)] m/s²")
            }
            let code = UInt8(min(max((threshold / step).rounded(), 1), 255))
            settings.womThr = code
            settings.intEnable = F.womEn.inserting(1, into: 0)
            if variant == .mpu6050 {
                settings.accelConfig = F.accelHpf.inserting(7, into: settings.accelConfig)
                settings.motDur = 1
            } else {
                settings.accelIntelCtrl = F.accelIntelEn.inserting(1, into: F.accelIntelMode.inserting(1, into: 0))
            }
            settings.actual.wakeOnMotionThresholdMps2 = Double(code) * step
        }
        if variant.hasMagnetometer {
            settings.magnetometer = SensorConfiguration(rateHz: min(requested.rateHz, 100), powerMode: requested.powerMode)
        }
        return settings
    }

    /// Applies `configuration` (see `registerSettings(for:variant:)`): wakes the chip, writes rate, filters and
    /// ranges, then the power registers, arms (or disarms) wake-on-motion in the data sheet's order (`INT_ENABLE`,
    /// `ACCEL_INTEL_CTRL`, `WOM_THR`), configures the AK8963 (MPU-9250), and writes the final `PWR_MGMT_1`
    /// (sleep or cycle) last.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard let variant else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration, variant: variant)
        let awake = MPU6xxxDatasheet.Field.clksel.inserting(1, into: 0)
        try write(.pwrMgmt1, awake)
        try write(.smplrtDiv, s.smplrtDiv)
        try write(.config, s.config)
        try write(.gyroConfig, s.gyroConfig)
        try write(.accelConfig, s.accelConfig)
        if let accelConfig2 = s.accelConfig2 { try write(.accelConfig2, accelConfig2) }
        if let lpAccelOdr = s.lpAccelOdr { try write(.lpAccelOdr, lpAccelOdr) }
        try write(.pwrMgmt2, s.pwrMgmt2)
        if let womThr = s.womThr, let intEnable = s.intEnable {
            motionWakeArmed = true // from the first write on, so that a failure part-way is disarmed by the rollback
            try write(.intEnable, intEnable)
            if let accelIntelCtrl = s.accelIntelCtrl { try write(.accelIntelCtrl, accelIntelCtrl) }
            try write(.womThr, womThr)
            if let motDur = s.motDur { try write(.motDur, motDur) }
        } else if motionWakeArmed {
            try write(.intEnable, 0)
            if variant != .mpu6050 { try write(.accelIntelCtrl, 0) }
        }
        motionWakeArmed = s.womThr != nil
        if let magnetometerConfiguration = s.magnetometer {
            _ = try magnetometer?.configure(magnetometerConfiguration)
            if var master = masterMagnetometer {
                _ = try master.configure(magnetometerConfiguration)
                do {
                    try master.bus.setSlave0Read(
                        address: master.address, register: AK8963Datasheet.Register.st1.rawValue,
                        count: AK8963Datasheet.Measurement.byteCount)
                } catch { throw .bus(error) }
                masterMagnetometer = master
                lastMagnetometerIdentity = nil
            }
        }
        if s.pwrMgmt1 != awake { try write(.pwrMgmt1, s.pwrMgmt1) }
        accelFullScale = s.accelFullScale
        gyroFullScale = s.gyroFullScale
        powerMode = configuration.powerMode
        self.configuration = s.actual
        return s.actual
    }

    /// Reads accelerometer, temperature and gyroscope in one 14-byte burst from `ACCEL_XOUT_H` (register 59) and, on
    /// the MPU-9250, the AK8963: with `.bypass` access one 8-byte burst at 0x0C; with `.i2cMaster` the 8 bytes slave 0
    /// copied into `EXT_SENS_DATA_00` (register 73), read in the same burst (22 bytes), the field reported when the
    /// block holds a measurement not reported before (slave 0 samples faster than the AK8963 measures, so `ST1.DRDY`
    /// alone cannot say it). The field is rotated into the MPU's axes. Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let variant else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let accelFullScale = self.accelFullScale, gyroFullScale = self.gyroFullScale
        let throughMaster = masterMagnetometer != nil
        typealias D = MPU6xxxDatasheet
        let byteCount = throughMaster ? 14 + AK8963Datasheet.Measurement.byteCount : 14
        var (reading, measurement) = try withTemporaryBytes(byteCount: byteCount, alignment: 1) {
            (raw) throws(SensorError) -> (SensorReading, AK8963Datasheet.Measurement?) in
            try bus.sensorRead(address: address, register: Register.accelXoutH.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            let reading = SensorReading(
                timeS: timeS,
                temperatureC: D.temperatureC(raw: Bytes.beS16(b, 6), variant: variant),
                accelerationMps2: axisTriple(b, at: 0, bigEndian: true) {
                    D.accelerationMps2(raw: $0, fullScale: accelFullScale)
                },
                angularVelocityRadS: axisTriple(b, at: 8, bigEndian: true) {
                    D.angularVelocityRadS(raw: $0, fullScale: gyroFullScale)
                })
            return (reading, throughMaster ? AK8963Datasheet.Measurement(b, at: 14) : nil)
        }
        if powerMode == .lowPower {
            // Gyroscope in standby and temperature sensor off: those registers hold old values.
            reading.angularVelocityRadS = nil
            reading.temperatureC = nil
        }
        if let field = try magnetometer?.readMagneticFieldMicroTesla() {
            reading.magneticFieldMicroTesla = D.mpuAxes(fromMagnetometerAxes: field)
        }
        if let measurement, let adjustment = masterMagnetometer?.sensitivityAdjustment {
            let identity = measurement.identity
            if !(measurement.st1 == 0 && identity == 0), identity != lastMagnetometerIdentity {
                let field = try AK8963<Bus>.field(
                    of: measurement, adjustment: adjustment, bus: bus.name,
                    address: D.magnetometerAddress)
                lastMagnetometerIdentity = identity
                reading.magneticFieldMicroTesla = D.mpuAxes(fromMagnetometerAxes: field)
            }
        }
        return reading
    }

    private func write(_ register: Register, _ value: UInt8) throws(SensorError) {
        try bus.sensorWriteByte(address: address, register: register.rawValue, value: value)
    }
}

extension MPU6xxx: MotionWakeReporting {
    /// `INT_STATUS.WOM_INT` (6500/9250) or `MOT_INT` (6050), latched by the chip and cleared by this read (one byte at
    /// register 58). Allocates nothing.
    public mutating func motionDetected() throws(SensorError) -> Bool {
        guard variant != nil else { throw notProbed(chip: Self.chipName) }
        let status = try bus.sensorReadByte(address: address, register: Register.intStatus.rawValue)
        return MPU6xxxDatasheet.Field.womInt.extract(from: status) == 1
    }
}
