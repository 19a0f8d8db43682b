import LodestoneCore

/// TDK InvenSense ICM-20948 register map (four user banks), fields and conversions, independent of any bus.
///
/// Source: *ICM-20948 Data Sheet* DS-000189 rev. 1.3: §3 (specifications, tables 1–2), §4.16 (FIFO), §5.5 (I2C
/// master), §7 (register map, table 14 onwards) and §8–§11 (register descriptions per bank). Registers are named as
/// there, in lowerCamelCase, and grouped by bank.
public enum ICM20948Datasheet {
    /// User bank 0: identity, power, interrupts, data, FIFO.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Identity, read-only, 0xEA (§8.1).
        case whoAmI = 0x00
        /// `DMP_EN` [7], `FIFO_EN` [6], `I2C_MST_EN` [5], `I2C_IF_DIS` [4], `DMP_RST` [3], `SRAM_RST` [2],
        /// `I2C_MST_RST` [1] (§8.2).
        case userCtrl = 0x03
        /// `I2C_MST_CYCLE` [6], `ACCEL_CYCLE` [5], `GYRO_CYCLE` [4]: duty-cycled (low-power) operation (§8.3).
        case lpConfig = 0x05
        /// `DEVICE_RESET` [7], `SLEEP` [6], `LP_EN` [5], `TEMP_DIS` [3], `CLKSEL` [2:0]; reset value 0x41 (§8.4).
        case pwrMgmt1 = 0x06
        /// `DISABLE_ACCEL` [5:3], `DISABLE_GYRO` [2:0] (§8.5).
        case pwrMgmt2 = 0x07
        /// `INT1_ACTL` [7] … `INT_ANYRD_2CLEAR` [4] … `BYPASS_EN` [1] (§8.6).
        case intPinCfg = 0x0F
        /// `WOM_INT_EN` [3], `I2C_MST_INT_EN` [0] (§8.7).
        case intEnable = 0x10
        /// `RAW_DATA_0_RDY_EN` [0]: data ready on INT1 (§8.8).
        case intEnable1 = 0x11
        /// `FIFO_OVERFLOW_EN` [4:0] (§8.9).
        case intEnable2 = 0x12
        /// `I2C_SLV4_DONE` [6], `I2C_SLV4_NACK` [4], … (§8.11).
        case i2cMstStatus = 0x17
        /// `WOM_INT` [3], cleared by reading (§8.12).
        case intStatus = 0x19
        /// `RAW_DATA_0_RDY_INT` [0], cleared by reading (§8.13).
        case intStatus1 = 0x1A
        /// `FIFO_OVERFLOW_INT` [4:0] (§8.14).
        case intStatus2 = 0x1B
        /// Accelerometer, big-endian two's complement, X high byte first (§8.18–8.23).
        case accelXoutH = 0x2D
        /// Gyroscope, big-endian (§8.24–8.29).
        case gyroXoutH = 0x33
        /// Temperature, big-endian (§8.30–8.31).
        case tempOutH = 0x39
        /// First of 24 bytes the I2C master's slaves read (§8.32).
        case extSlvSensData00 = 0x3B
        /// `SLV_3_FIFO_EN` … `SLV_0_FIFO_EN` [3:0] (§8.56).
        case fifoEn1 = 0x66
        /// `ACCEL_FIFO_EN` [4], `GYRO_Z_FIFO_EN` [3], `GYRO_Y_FIFO_EN` [2], `GYRO_X_FIFO_EN` [1], `TEMP_FIFO_EN` [0] (§8.57).
        case fifoEn2 = 0x67
        /// `FIFO_RESET` [4:0]: write 1s then 0s (§8.58).
        case fifoRst = 0x68
        /// `FIFO_MODE` [4:0]: 0 stream (overwrite oldest), 1 snapshot (stop when full) (§8.59).
        case fifoMode = 0x69
        /// FIFO byte count, `FIFO_CNT` [12:8] then [7:0], big-endian (§8.60).
        case fifoCountH = 0x70
        case fifoCountL = 0x71
        /// The FIFO's read/write port (§8.62).
        case fifoRW = 0x72
        /// `REG_BANK_SEL.USER_BANK` [5:4], present in every bank (§8.65).
        case regBankSel = 0x7F
    }

    /// User bank 2: rates, ranges, filters, wake-on-motion (§10).
    public enum Bank2Register: UInt8, Sendable, CaseIterable {
        /// Gyroscope ODR = 1.1 kHz / (1 + `GYRO_SMPLRT_DIV`) (§10.1).
        case gyroSmplrtDiv = 0x00
        /// `GYRO_DLPFCFG` [5:3], `GYRO_FS_SEL` [2:1], `GYRO_FCHOICE` [0] (§10.2).
        case gyroConfig1 = 0x01
        /// `GYRO_AVGCFG` [2:0]: averaging in low-power mode (§10.3).
        case gyroConfig2 = 0x02
        /// `ODR_ALIGN_EN` [0]: start the sensors' ODR counters together (§10.10).
        case odrAlignEn = 0x09
        /// `ACCEL_SMPLRT_DIV` [11:8] (§10.11).
        case accelSmplrtDiv1 = 0x10
        /// `ACCEL_SMPLRT_DIV` [7:0]; accelerometer ODR = 1.125 kHz / (1 + `ACCEL_SMPLRT_DIV`) (§10.12).
        case accelSmplrtDiv2 = 0x11
        /// `ACCEL_INTEL_EN` [1], `ACCEL_INTEL_MODE_INT` [0]: wake-on-motion logic (§10.13).
        case accelIntelCtrl = 0x12
        /// Wake-on-motion threshold, 4 mg/LSB, 0…1020 mg (§10.14).
        case accelWomThr = 0x13
        /// `ACCEL_DLPFCFG` [5:3], `ACCEL_FS_SEL` [2:1], `ACCEL_FCHOICE` [0] (§10.15).
        case accelConfig = 0x14
        /// `DEC3_CFG` [1:0]: averaging in low-power mode (§10.16).
        case accelConfig2 = 0x15
    }

    /// Register fields.
    public enum Field {
        public static let userBank = BitField(mask: 0b0011_0000)
        public static let fifoEn = BitField(mask: 0b0100_0000)
        public static let i2cMstEn = BitField(mask: 0b0010_0000)
        public static let i2cIfDis = BitField(mask: 0b0001_0000)
        public static let i2cMstCycle = BitField(mask: 0b0100_0000)
        public static let accelCycle = BitField(mask: 0b0010_0000)
        public static let gyroCycle = BitField(mask: 0b0001_0000)
        public static let deviceReset = BitField(mask: 0b1000_0000)
        public static let sleep = BitField(mask: 0b0100_0000)
        public static let lpEn = BitField(mask: 0b0010_0000)
        public static let tempDis = BitField(mask: 0b0000_1000)
        public static let clksel = BitField(mask: 0b0000_0111)
        public static let disableAccel = BitField(mask: 0b0011_1000)
        public static let disableGyro = BitField(mask: 0b0000_0111)
        public static let bypassEn = BitField(mask: 0b0000_0010)
        public static let womIntEn = BitField(mask: 0b0000_1000)
        public static let rawData0RdyEn = BitField(mask: 0b0000_0001)
        public static let womInt = BitField(mask: 0b0000_1000)
        public static let rawData0RdyInt = BitField(mask: 0b0000_0001)
        public static let accelFifoEn = BitField(mask: 0b0001_0000)
        public static let gyroXYZFifoEn = BitField(mask: 0b0000_1110)
        public static let fifoReset = BitField(mask: 0b0001_1111)
        public static let fifoCountHigh = BitField(mask: 0b0001_1111)
        /// `GYRO_CONFIG_1` / `ACCEL_CONFIG` DLPF configuration [5:3].
        public static let dlpfCfg = BitField(mask: 0b0011_1000)
        /// `GYRO_FS_SEL` / `ACCEL_FS_SEL` [2:1].
        public static let fsSel = BitField(mask: 0b0000_0110)
        /// `GYRO_FCHOICE` / `ACCEL_FCHOICE` [0]: 1 = DLPF in the path.
        public static let fchoice = BitField(mask: 0b0000_0001)
        public static let accelSmplrtDivHigh = BitField(mask: 0b0000_1111)
        public static let accelIntelEn = BitField(mask: 0b0000_0010)
        public static let accelIntelModeInt = BitField(mask: 0b0000_0001)
        public static let odrAlignEn = BitField(mask: 0b0000_0001)
    }

    /// `ACCEL_FS_SEL` (table 2): ±2…±16 g.
    public enum AccelFullScale: UInt8, Sendable, CaseIterable {
        case g2 = 0, g4, g8, g16
        /// ± g.
        public var rangeG: Double { 2 * Double(1 << Int(rawValue)) }
        /// LSB/g: 16384, 8192, 4096, 2048.
        public var sensitivityLSBPerG: Double { 16384 / Double(1 << Int(rawValue)) }
    }

    /// `GYRO_FS_SEL` (table 1): ±250…±2000 °/s.
    public enum GyroFullScale: UInt8, Sendable, CaseIterable {
        case dps250 = 0, dps500, dps1000, dps2000
        /// ± °/s.
        public var rangeDegPerS: Double { 250 * Double(1 << Int(rawValue)) }
        /// LSB/(°/s): 131, 65.5, 32.8, 16.4.
        public var sensitivityLSBPerDegPerS: Double { [131, 65.5, 32.8, 16.4][Int(rawValue)] }
    }

    /// `WHO_AM_I`.
    public static let whoAmIValue: UInt8 = 0xEA
    /// 7-bit I2C addresses: AD0 low 0x68, high 0x69 (SparkFun's breakout defaults to 0x69) (§6.9).
    public static let addresses: [UInt8] = [0x68, 0x69]
    /// Gyroscope internal rate with the DLPF on, Hz (§10.1).
    public static let gyroBaseRateHz = 1100.0
    /// Accelerometer internal rate with the DLPF on, Hz (§10.12).
    public static let accelBaseRateHz = 1125.0
    /// Gyroscope DLPF 3 dB bandwidth by `GYRO_DLPFCFG` 0…7, Hz (§10.2 table).
    public static let gyroBandwidthHz: [Double] = [196.6, 151.8, 119.5, 51.2, 23.9, 11.6, 5.7, 361.4]
    /// Accelerometer DLPF 3 dB bandwidth by `ACCEL_DLPFCFG` 0…7, Hz (§10.15 table).
    public static let accelBandwidthHz: [Double] = [246.0, 246.0, 111.4, 50.4, 23.9, 11.5, 5.7, 473]
    /// Temperature sensitivity, LSB/°C, and the temperature at 0 LSB, °C (§3.2, §8.31).
    public static let temperatureLSBPerC = 333.87
    public static let temperatureOffsetC = 21.0
    /// Wake-on-motion threshold step, g (§10.14: 4 mg/LSB).
    public static let wakeOnMotionStepG = 0.004
    /// FIFO size, bytes (§4.16).
    public static let fifoSizeBytes = 512
    /// Bytes of one FIFO frame as this driver fills it: accelerometer X…Z then gyroscope X…Z, big-endian (the FIFO
    /// takes the enabled outputs in register order, §8.57).
    public static let fifoFrameBytes = 12
    /// Reset time before registers answer, µs (§3.1 start-up time, 100 ms).
    public static let resetTimeUs = 100_000
    /// The AK09916's axes in the ICM-20948's accelerometer axes: x = x_AK, y = −y_AK, z = −z_AK (§11, orientation of
    /// axes: the magnetometer's Y and Z point against the accelerometer's).
    @inlinable public static func chipAxes(fromMagnetometerAxes v: Vector3) -> Vector3 { Vector3(v.x, -v.y, -v.z) }

    /// Raw accelerometer value to m/s².
    @inlinable public static func accelerationMps2(raw: Int16, fullScale: AccelFullScale) -> Double {
        Double(raw) / fullScale.sensitivityLSBPerG * PhysicalConstants.standardGravityMps2
    }
    /// Raw gyroscope value to rad/s.
    @inlinable public static func angularVelocityRadS(raw: Int16, fullScale: GyroFullScale) -> Double {
        Angle.radians(fromDegrees: Double(raw) / fullScale.sensitivityLSBPerDegPerS)
    }
    /// Raw temperature to °C: `raw / 333.87 + 21` (§8.31, RoomTemp_Offset 0).
    @inlinable public static func temperatureC(raw: Int16) -> Double { Double(raw) / temperatureLSBPerC + temperatureOffsetC }
}

/// Driver for the TDK InvenSense ICM-20948 9-axis IMU, generic over its bus (I2C or SPI).
///
/// Reports acceleration (m/s²), angular velocity (rad/s), die temperature (°C) and the AK09916's field (µT), all in
/// the ICM-20948's accelerometer axes. The AK09916 is reached through the ICM's own I2C master (slave 4 to probe
/// and configure it, slave 0 to copy its 9 data bytes into `EXT_SLV_SENS_DATA` every sample), so one 23-byte burst
/// in bank 0 reads everything and SPI works like I2C. The driver keeps the chip in user bank 0 between calls.
///
/// - `.normal`: both DLPFs on, rates from the dividers (gyroscope 1.1 kHz / (1 + n), accelerometer 1.125 kHz / (1 + m)).
/// - `.lowPower`: the accelerometer duty-cycled (`LP_CONFIG.ACCEL_CYCLE`, `PWR_MGMT_1.LP_EN`), gyroscope and
///   temperature off, AK09916 at 10 Hz; readings carry acceleration and field only.
/// - `.suspend`: `PWR_MGMT_1.SLEEP`, AK09916 powered down.
/// - Wake-on-motion: `ACCEL_INTEL_CTRL` compares each sample with the previous one against `ACCEL_WOM_THR` (4 mg
///   steps, at most 1.02 g) and raises `INT_STATUS.WOM_INT` and INT1.
/// - Data ready: `INT_ENABLE_1.RAW_DATA_0_RDY_EN` on INT1; `INT_STATUS_1` polled by `isDataReady()`.
/// - FIFO (`fifo: .stream`): accelerometer and gyroscope, 12 bytes a frame, 42 frames in the 512-byte FIFO, stream
///   mode; drained in one burst from `FIFO_R_W` (a register that does not advance). The chip drops the oldest *bytes*
///   when the FIFO overflows, so that the frames no longer start where the driver expects: a drain that finds a byte
///   count that is not whole frames resets the FIFO and reports `overrun` with no samples, as Linux's `inv_mpu6050`
///   driver resets its FIFO on overflow (`inv_mpu6050_ring.c`); a drain of exactly 42 frames reports `overrun` too
///   (full: the next sample overflows).
public struct ICM20948<Bus: RegisterBus>: SensorDriver {
    /// The bank-0 register map (`ICM20948Datasheet.Register`).
    public typealias Register = ICM20948Datasheet.Register
    typealias D = ICM20948Datasheet
    typealias F = ICM20948Datasheet.Field

    public static var chipName: String { "icm20948" }
    public static var kinds: [SensorKind] { [.accelerometer, .gyroscope, .magnetometer, .thermometer] }
    public static var addresses: [UInt8] { D.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used after the reset and by the I2C master's polls.
    public let delay: @Sendable (Int) -> Void
    /// The AK09916 behind the I2C master; `nil` before `probe()`.
    public private(set) var magnetometer: AK09916<InvenSenseI2CMaster<Bus>>?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var accelFullScale = D.AccelFullScale.g2
    private var gyroFullScale = D.GyroFullScale.dps250
    private var powerMode = PowerMode.normal
    private var lastMagnetometerIdentity: UInt64?

    /// A driver for the ICM-20948 at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = ICM20948Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `WHO_AM_I` (after returning to bank 0 if another program left the chip in another bank), resets
    /// (`PWR_MGMT_1.DEVICE_RESET`), waits the start-up time and checks the identity again, wakes the chip with the
    /// auto clock, enables the I2C master (and `I2C_IF_DIS` on SPI) at 345.6 kHz, and probes the AK09916 through it.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        magnetometer = nil
        configuration = nil
        var id = try bus.sensorReadByte(address: address, register: Register.whoAmI.rawValue)
        if id != D.whoAmIValue {
            // WHO_AM_I is in bank 0 only; REG_BANK_SEL is readable in every bank.
            let bankSelect = try bus.sensorReadByte(address: address, register: Register.regBankSel.rawValue)
            if F.userBank.extract(from: bankSelect) != 0 {
                try write(.regBankSel, 0)
                id = try bus.sensorReadByte(address: address, register: Register.whoAmI.rawValue)
            }
        }
        guard id == D.whoAmIValue else {
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: Register.whoAmI.rawValue,
                expected: [D.whoAmIValue], found: id)
        }
        try write(.pwrMgmt1, F.deviceReset.inserting(1, into: 0))
        // As the MPU driver: wait the start-up time and confirm the identity instead of polling DEVICE_RESET, which a
        // plain register file (the kernel's i2c-stub) never clears.
        delay(D.resetTimeUs)
        guard try bus.sensorReadByte(address: address, register: Register.whoAmI.rawValue) == id else {
            throw .notReady(chip: Self.chipName, bus: bus.name, address: address, waitedMs: D.resetTimeUs / 1000)
        }
        try write(.pwrMgmt1, F.clksel.inserting(1, into: 0))
        try write(.userCtrl, userCtrl(fifo: false))
        try writeBank(
            3, InvenSenseI2CMasterLayout.icm20948.i2cMstCtrl.register,
            InvenSenseI2CMasterLayout.Field.i2cMstClk.inserting(7, into: 0))
        try write(.regBankSel, 0)
        var magnetometer = AK09916(
            bus: InvenSenseI2CMaster(host: bus, hostAddress: address, layout: .icm20948, delay: delay),
            delay: delay)
        _ = try magnetometer.probe()
        self.magnetometer = magnetometer
        accelFullScale = .g2
        gyroFullScale = .dps250
        powerMode = .normal
        lastMagnetometerIdentity = nil
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration, and what they give.
    public struct Settings: Sendable, Hashable {
        public var gyroSmplrtDiv: UInt8
        public var gyroConfig1: UInt8
        /// `ACCEL_SMPLRT_DIV` [11:0].
        public var accelSmplrtDiv: UInt16
        public var accelConfig: UInt8
        public var accelIntelCtrl: UInt8
        public var accelWomThr: UInt8
        public var lpConfig: UInt8
        public var pwrMgmt1: UInt8
        public var pwrMgmt2: UInt8
        public var intEnable: UInt8
        public var intEnable1: UInt8
        /// `FIFO_EN_2` (0 when the FIFO is off).
        public var fifoEn2: UInt8
        public var accelFullScale: ICM20948Datasheet.AccelFullScale
        public var gyroFullScale: ICM20948Datasheet.GyroFullScale
        /// What to ask of the AK09916.
        public var magnetometer: SensorConfiguration
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - Ranges: the smallest full scale covering the request; defaults ±4 g and ±2000 °/s.
    /// - Rate: the dividers give the slowest rates of at least `rateHz` (at most 1100 Hz; the reported rate is the
    ///   gyroscope's, or the accelerometer's in `.lowPower`); each DLPF at the widest bandwidth at or below half the rate.
    /// - Wake-on-motion: `ACCEL_WOM_THR` = threshold / 4 mg, rounded to the nearest step (1…255).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        let g = PhysicalConstants.standardGravityMps2
        let accel = try accelerationFullScale(
            D.AccelFullScale.allCases, rangeG: \.rangeG, requestedMps2: requested.accelerationRangeMps2, chip: chipName)
        let gyro = try angularRateFullScale(
            D.GyroFullScale.allCases, rangeDegPerS: \.rangeDegPerS,
            requestedRadS: requested.angularRateRangeRadS, chip: chipName)
        if let range = requested.magneticRangeMicroTesla, !covers(AK09916Datasheet.rangeMicroTesla, range) {
            throw .unsupportedConfiguration(chip: chipName, detail: "magnetic range \(range) µT: at most 4912 µT")
        }
        guard covers(D.gyroBaseRateHz, requested.rateHz) || requested.powerMode == .suspend else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 1100 Hz")
        }
        let rate = min(requested.rateHz, D.gyroBaseRateHz)
        let gyroDivider = min(max(Int((D.gyroBaseRateHz / rate * (1 + 1e-9)).rounded(.down)) - 1, 0), 255)
        let accelDivider = min(max(Int((D.accelBaseRateHz / rate * (1 + 1e-9)).rounded(.down)) - 1, 0), 4095)
        let gyroRateHz = D.gyroBaseRateHz / Double(gyroDivider + 1)
        let accelRateHz = D.accelBaseRateHz / Double(accelDivider + 1)
        // DLPF settings 0…6 (7 is the widest, above Nyquist for every divided rate).
        let gyroDLPF = (0...6).first { D.gyroBandwidthHz[$0] <= gyroRateHz / 2 } ?? 6
        let accelDLPF = (1...6).first { D.accelBandwidthHz[$0] <= accelRateHz / 2 } ?? 6
        let womThreshold =
            try wakeOnMotionSteps(
                requested.wakeOnMotionThresholdMps2, stepMps2: D.wakeOnMotionStepG * g,
                maximumSteps: 255, chip: chipName) ?? 0
        let wom = requested.wakeOnMotionThresholdMps2 != nil
        let fifo = requested.fifo == .stream
        var s = Settings(
            gyroSmplrtDiv: UInt8(gyroDivider),
            gyroConfig1: F.fchoice.inserting(
                1, into: F.fsSel.inserting(gyro.rawValue, into: F.dlpfCfg.inserting(UInt8(gyroDLPF), into: 0))),
            accelSmplrtDiv: UInt16(accelDivider),
            accelConfig: F.fchoice.inserting(
                1, into: F.fsSel.inserting(accel.rawValue, into: F.dlpfCfg.inserting(UInt8(accelDLPF), into: 0))),
            accelIntelCtrl: wom ? F.accelIntelEn.inserting(1, into: F.accelIntelModeInt.inserting(1, into: 0)) : 0,
            accelWomThr: womThreshold,
            lpConfig: 0,
            pwrMgmt1: F.clksel.inserting(1, into: 0), pwrMgmt2: 0,
            intEnable: F.womIntEn.inserting(wom ? 1 : 0, into: 0),
            intEnable1: F.rawData0RdyEn.inserting(1, into: 0),
            fifoEn2: fifo ? F.accelFifoEn.inserting(1, into: F.gyroXYZFifoEn.inserting(0b111, into: 0)) : 0,
            accelFullScale: accel, gyroFullScale: gyro,
            magnetometer: SensorConfiguration(rateHz: min(requested.rateHz, 100), powerMode: requested.powerMode),
            actual: SensorConfiguration(
                rateHz: gyroRateHz, powerMode: requested.powerMode, oversampling: 1,
                accelerationRangeMps2: accel.rangeG * g,
                angularRateRangeRadS: Angle.radians(fromDegrees: gyro.rangeDegPerS),
                magneticRangeMicroTesla: AK09916Datasheet.rangeMicroTesla,
                fifo: requested.fifo,
                wakeOnMotionThresholdMps2: wom
                    ? Double(womThreshold) * D.wakeOnMotionStepG * g : nil))
        switch requested.powerMode {
        case .normal:
            break
        case .lowPower:
            guard accelRateHz <= 562.5 * (1 + 1e-9) else {
                throw .unsupportedConfiguration(chip: chipName, detail: "low-power rate \(requested.rateHz) Hz: at most 562.5 Hz")
            }
            if fifo {
                throw .unsupportedConfiguration(
                    chip: chipName, detail: "the FIFO needs .normal power (the gyroscope is off in .lowPower)")
            }
            s.lpConfig = F.accelCycle.inserting(1, into: F.i2cMstCycle.inserting(1, into: 0))
            s.pwrMgmt1 = F.lpEn.inserting(1, into: F.tempDis.inserting(1, into: s.pwrMgmt1))
            s.pwrMgmt2 = F.disableGyro.inserting(0b111, into: 0)
            s.actual.rateHz = accelRateHz
        case .suspend:
            s.pwrMgmt1 = F.sleep.inserting(1, into: s.pwrMgmt1)
            s.actual.rateHz = 0
        }
        return s
    }

    /// Applies `configuration` (see `registerSettings(for:)`): wakes the chip, writes bank 2 (dividers, ranges,
    /// filters, wake-on-motion), interrupts and FIFO in bank 0, configures the AK09916 through slave 4 and points
    /// slave 0 at its data, then writes the power registers last.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard let magnetometer else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        let awake = F.clksel.inserting(1, into: 0)
        try write(.pwrMgmt1, awake)
        try write(.pwrMgmt2, 0)
        try write(.regBankSel, F.userBank.inserting(2, into: 0))
        typealias B2 = ICM20948Datasheet.Bank2Register
        try writeInBank(B2.gyroSmplrtDiv.rawValue, s.gyroSmplrtDiv)
        try writeInBank(B2.gyroConfig1.rawValue, s.gyroConfig1)
        try writeInBank(B2.accelSmplrtDiv1.rawValue, UInt8(truncatingIfNeeded: s.accelSmplrtDiv >> 8))
        try writeInBank(B2.accelSmplrtDiv2.rawValue, UInt8(truncatingIfNeeded: s.accelSmplrtDiv))
        try writeInBank(B2.accelConfig.rawValue, s.accelConfig)
        try writeInBank(B2.accelWomThr.rawValue, s.accelWomThr)
        try writeInBank(B2.accelIntelCtrl.rawValue, s.accelIntelCtrl)
        try writeInBank(B2.odrAlignEn.rawValue, F.odrAlignEn.inserting(1, into: 0))
        try write(.regBankSel, 0)
        try write(.lpConfig, s.lpConfig)
        try write(.intEnable, s.intEnable)
        try write(.intEnable1, s.intEnable1)
        let fifo = s.fifoEn2 != 0
        try write(.fifoEn2, s.fifoEn2)
        try write(.fifoMode, 0)
        try write(.fifoRst, F.fifoReset.inserting(0b11111, into: 0))
        try write(.fifoRst, 0)
        try write(.userCtrl, userCtrl(fifo: fifo))
        var mag = magnetometer
        _ = try mag.configure(s.magnetometer)
        do {
            try mag.bus.setSlave0Read(
                address: mag.address, register: AK09916Datasheet.Register.st1.rawValue,
                count: AK09916Datasheet.Measurement.byteCount)
        } catch { throw .bus(error) }
        self.magnetometer = mag
        if s.pwrMgmt2 != 0 { try write(.pwrMgmt2, s.pwrMgmt2) }
        if s.pwrMgmt1 != awake { try write(.pwrMgmt1, s.pwrMgmt1) }
        accelFullScale = s.accelFullScale
        gyroFullScale = s.gyroFullScale
        powerMode = configuration.powerMode
        lastMagnetometerIdentity = nil
        self.configuration = s.actual
        return s.actual
    }

    /// Reads accelerometer, gyroscope, temperature and the AK09916 block slave 0 copied, in one 23-byte burst from
    /// `ACCEL_XOUT_H` (bank 0). The field is reported when the block holds a measurement not reported before (slave
    /// 0 reads at the sample rate, faster than the AK09916 measures, so `ST1.DRDY` alone cannot say it). Allocates
    /// nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard magnetometer != nil else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let accelFullScale = self.accelFullScale, gyroFullScale = self.gyroFullScale
        let count = 14 + AK09916Datasheet.Measurement.byteCount
        let (reading, measurement) = try withTemporaryBytes(byteCount: count, alignment: 1) {
            (raw) throws(SensorError) -> (SensorReading, AK09916Datasheet.Measurement) in
            try bus.sensorRead(address: address, register: Register.accelXoutH.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            let r = SensorReading(
                timeS: timeS, temperatureC: D.temperatureC(raw: Bytes.beS16(b, 12)),
                accelerationMps2: Self.acceleration(b, 0, accelFullScale),
                angularVelocityRadS: Self.angularVelocity(b, 6, gyroFullScale))
            return (r, AK09916Datasheet.Measurement(b, at: 14))
        }
        var result = reading
        if powerMode == .lowPower {
            result.angularVelocityRadS = nil
            result.temperatureC = nil
        }
        let identity = measurement.identity
        let neverMeasured = measurement.st1 == 0 && identity == 0
        if !neverMeasured, identity != lastMagnetometerIdentity {
            let field = try AK09916<Bus>.field(of: measurement, bus: bus.name, address: AK09916Datasheet.addresses[0])
            lastMagnetometerIdentity = identity
            result.magneticFieldMicroTesla = D.chipAxes(fromMagnetometerAxes: field)
        }
        return result
    }

    @inline(__always)
    static func acceleration(_ b: UnsafeRawBufferPointer, _ o: Int, _ fs: D.AccelFullScale) -> Vector3 {
        axisTriple(b, at: o, bigEndian: true) { D.accelerationMps2(raw: $0, fullScale: fs) }
    }

    @inline(__always)
    static func angularVelocity(_ b: UnsafeRawBufferPointer, _ o: Int, _ fs: D.GyroFullScale) -> Vector3 {
        axisTriple(b, at: o, bigEndian: true) { D.angularVelocityRadS(raw: $0, fullScale: fs) }
    }

    private func userCtrl(fifo: Bool) -> UInt8 {
        let spiOnly: UInt8 = bus.transport == .spi ? 1 : 0
        return F.fifoEn.inserting(fifo ? 1 : 0, into: F.i2cMstEn.inserting(1, into: F.i2cIfDis.inserting(spiOnly, into: 0)))
    }

    private func write(_ register: Register, _ value: UInt8) throws(SensorError) {
        try bus.sensorWriteByte(address: address, register: register.rawValue, value: value)
    }

    private func writeInBank(_ register: UInt8, _ value: UInt8) throws(SensorError) {
        try bus.sensorWriteByte(address: address, register: register, value: value)
    }

    /// Selects `bank`, writes `register`, and leaves the bank selected.
    private func writeBank(_ bank: UInt8, _ register: UInt8, _ value: UInt8) throws(SensorError) {
        try write(.regBankSel, F.userBank.inserting(bank, into: 0))
        try writeInBank(register, value)
    }
}

extension ICM20948: DataReadyReporting {
    /// `INT_STATUS_1.RAW_DATA_0_RDY_INT` (one read of bank 0; the chip clears the flag as it is read).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard magnetometer != nil else { throw notProbed(chip: Self.chipName) }
        return F.rawData0RdyInt.extract(from: try bus.sensorReadByte(address: address, register: Register.intStatus1.rawValue))
            == 1
    }
}

extension ICM20948: MotionWakeReporting {
    /// `INT_STATUS.WOM_INT` (cleared as it is read).
    public mutating func motionDetected() throws(SensorError) -> Bool {
        guard magnetometer != nil else { throw notProbed(chip: Self.chipName) }
        return F.womInt.extract(from: try bus.sensorReadByte(address: address, register: Register.intStatus.rawValue)) == 1
    }
}

extension ICM20948: FIFOBuffering {
    /// 42 frames of accelerometer and gyroscope (512 bytes / 12) while the FIFO is on, else 0.
    public var fifoCapacitySamples: Int { fifoCapacity(D.fifoSizeBytes / D.fifoFrameBytes, configuration) }

    /// Complete frames waiting: `FIFO_COUNT` / 12 (one 2-byte read).
    public mutating func fifoSampleCount() throws(SensorError) -> Int {
        guard magnetometer != nil else { throw notProbed(chip: Self.chipName) }
        guard fifoSamplePeriodS(configuration) != nil else { return 0 }
        return min(try fifoCountBytes(), D.fifoSizeBytes) / D.fifoFrameBytes
    }

    /// Reads `FIFO_COUNT`, then up to `samples.count` of the waiting frames in one burst from `FIFO_R_W`. Readings carry
    /// acceleration and angular velocity; the field and temperature are in `read(timeS:)`. A count that is not whole
    /// frames (bytes dropped by an overflow) resets the FIFO (`FIFO_RST`) and gives no samples, with `overrun`.
    public mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> FIFODrain
    {
        guard magnetometer != nil else { throw notProbed(chip: Self.chipName) }
        guard let periodS = fifoSamplePeriodS(configuration) else { return FIFODrain(count: 0, overrun: false) }
        let frameBytes = D.fifoFrameBytes, fullBytes = D.fifoSizeBytes - D.fifoSizeBytes % frameBytes
        let bytes = try fifoCountBytes()
        guard bytes % frameBytes == 0, bytes <= fullBytes else {
            try write(.fifoRst, F.fifoReset.inserting(0b11111, into: 0))
            try write(.fifoRst, 0)
            return FIFODrain(count: 0, overrun: true)
        }
        let waiting = bytes / frameBytes
        let frames = min(waiting, samples.count)
        let overrun = bytes == fullBytes
        guard frames > 0 else { return FIFODrain(count: 0, overrun: overrun) }
        let bus = self.bus, address = self.address
        let accelFullScale = self.accelFullScale, gyroFullScale = self.gyroFullScale
        try withTemporaryBytes(byteCount: frames * frameBytes, alignment: 1) { (raw) throws(SensorError) in
            // FIFO_R_W does not advance: any piece of the burst is right as long as it restarts there.
            try bus.sensorReadFIFO(address: address, register: Register.fifoRW.rawValue, frameBytes: 1, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            for i in 0..<frames {
                let o = i * frameBytes
                samples[i] = SensorReading(
                    accelerationMps2: Self.acceleration(b, o, accelFullScale),
                    angularVelocityRadS: Self.angularVelocity(b, o + 6, gyroFullScale))
            }
        }
        stampFIFOSamples(samples, count: frames, waiting: waiting, newestTimeS: newestTimeS, periodS: periodS)
        return FIFODrain(count: frames, overrun: overrun)
    }

    /// `FIFO_COUNTH/L`: bytes in the FIFO (13 bits).
    private func fifoCountBytes() throws(SensorError) -> Int {
        let bus = self.bus, address = self.address
        return try withTemporaryBytes(byteCount: 2, alignment: 1) { (raw) throws(SensorError) -> Int in
            try bus.sensorRead(address: address, register: Register.fifoCountH.rawValue, into: raw)
            return Int(F.fifoCountHigh.extract(from: raw[0])) << 8 | Int(raw[1])
        }
    }
}
