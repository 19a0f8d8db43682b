import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// InvenSense MPU-6050 / 6500 / 9250 (register maps RM-MPU-6000A-00, RM-MPU-6500A-00, RM-MPU-9250A-00): bus
/// traffic, configuration tables, round trips through the chip model, and faults.
@Suite struct MPU6xxxTests {
    typealias D = MPU6xxxDatasheet
    let g = PhysicalConstants.standardGravityMps2

    /// A probed and configured driver on a fresh bus with `model` (and its magnetometer) attached at 0x68.
    static func running(_ model: MPUModel, _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 100))
        throws -> (SimulatedBus, MPU6xxx<SimulatedBus>)
    {
        let bus = SimulatedBus()
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus)
        _ = try driver.probe()
        try driver.configure(configuration)
        return (bus, driver)
    }

    @Test func mpu6050ProbeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = MPUModel(variant: .mpu6050)
        model.angularVelocityRadS = Vector3(0.1, -0.2, 0)
        model.attach(to: bus)
        let delays = DelayRecorder()
        var driver = MPU6xxx(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "mpu6050", idValue: 0x68))
        #expect(driver.variant == .mpu6050)
        let actual = try driver.configure(SensorConfiguration(rateHz: 100))
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x68 0x75 [68]", // WHO_AM_I
                "W 0x68 0x6B [80]", // PWR_MGMT_1: DEVICE_RESET
                "R 0x68 0x75 [68]", // WHO_AM_I again after the 100 ms reset time
                "W 0x68 0x6B [01]", // wake, CLKSEL = PLL
                "W 0x68 0x6B [01]", // configure: awake
                "W 0x68 0x19 [09]", // SMPLRT_DIV: 1 kHz / 10 = 100 Hz
                "W 0x68 0x1A [03]", // CONFIG: DLPF_CFG 3 (42 Hz ≤ 50 Hz)
                "W 0x68 0x1B [18]", // GYRO_CONFIG: ±2000 °/s
                "W 0x68 0x1C [08]", // ACCEL_CONFIG: ±4 g
                "W 0x68 0x6C [00]", // PWR_MGMT_2: all axes on
                "R 0x68 0x3B [00 00 00 00 20 00 F0 B0 00 5E FF 44 00 00]" // accel, temp, gyro
            ])
        #expect(delays.delaysUs == [100_000])
        #expect(
            actual
                == SensorConfiguration(
                    rateHz: 100, accelerationRangeMps2: 4 * g,
                    angularRateRangeRadS: Angle.radians(fromDegrees: 2000)))
        #expect(r.accelerationMps2 == Vector3(0, 0, 8192.0 / 8192 * g))
        #expect(r.temperatureC == -3920.0 / 340 + 36.53)
        #expect(
            r.angularVelocityRadS == Vector3(Angle.radians(fromDegrees: 94 / 16.4), Angle.radians(fromDegrees: -188 / 16.4), 0))
        #expect(r.magneticFieldMicroTesla == nil)
    }

    @Test func mpu9250ProbeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let magnetometer = AK8963Model() // ASA 176, 177, 165
        let model = MPUModel(variant: .mpu9250, magnetometer: magnetometer)
        magnetometer.magneticFieldMicroTesla = Vector3(10, 20, -30)
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu9250)
        #expect(try driver.probe() == ChipIdentity(chip: "mpu9250", idValue: 0x71))
        _ = try driver.configure(SensorConfiguration(rateHz: 100))
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x68 0x75 [71]", // WHO_AM_I
                "W 0x68 0x6B [80]", // H_RESET
                "R 0x68 0x75 [71]", // WHO_AM_I again after the reset time
                "W 0x68 0x6B [01]", // CLKSEL = auto/PLL
                "W 0x68 0x37 [02]", // INT_PIN_CFG: BYPASS_EN
                "R 0x0C 0x00 [48]", // AK8963 WIA
                "W 0x0C 0x0B [01]", // CNTL2: SRST
                "W 0x0C 0x0A [0F]", // CNTL1: fuse ROM access
                "R 0x0C 0x10 [B0 B1 A5]", // ASAX, ASAY, ASAZ
                "W 0x0C 0x0A [00]", // power-down
                "W 0x68 0x6B [01]",
                "W 0x68 0x19 [09]",
                "W 0x68 0x1A [03]", // DLPF_CFG 3 (41 Hz)
                "W 0x68 0x1B [18]",
                "W 0x68 0x1C [08]",
                "W 0x68 0x1D [03]", // ACCEL_CONFIG2: A_DLPF_CFG 3 (44.8 Hz)
                "W 0x68 0x6C [00]",
                "W 0x0C 0x0A [00]", // CNTL1: power-down before a mode change
                "W 0x0C 0x0A [16]", // CNTL1: 16-bit, continuous mode 2 (100 Hz)
                "R 0x68 0x3B [00 00 00 00 20 00 05 37 00 00 00 00 00 00]",
                "R 0x0C 0x02 [01 38 00 70 00 51 FF 10]" // ST1 DRDY, HX, HY, HZ, ST2 BITM
            ])
        #expect(r.temperatureC == 1335 / 333.87 + 21)
        // AK8963 (56, 112, −175) LSB × 0.15 µT × ASA factor, then x_MPU = y_AK, y_MPU = x_AK, z_MPU = −z_AK
        let expected = Vector3(
            112 * 0.15 * AK8963Datasheet.sensitivityFactor(asa: 177),
            56 * 0.15 * AK8963Datasheet.sensitivityFactor(asa: 176),
            175 * 0.15 * AK8963Datasheet.sensitivityFactor(asa: 165))
        #expect(isClose(r.magneticFieldMicroTesla, expected, tolerance: 1e-12))
        #expect(isClose(r.magneticFieldMicroTesla, Vector3(20, 10, 30), tolerance: 0.15 * 1.2))
    }

    static let rangeCases: [(MPUVariant, D.AccelFullScale, D.GyroFullScale)] =
        MPUVariant.allCases.flatMap { v in D.AccelFullScale.allCases.flatMap { a in D.GyroFullScale.allCases.map { (v, a, $0) } }
        }

    @Test(arguments: rangeCases)
    func roundTripIsWithinOneLSBForEveryVariantAndRange(variant: MPUVariant, accel: D.AccelFullScale, gyro: D.GyroFullScale)
        throws
    {
        let model = MPUModel(variant: variant, magnetometer: variant.hasMagnetometer ? AK8963Model() : nil)
        let accelRange = accel.rangeG * g, gyroRange = Angle.radians(fromDegrees: gyro.rangeDegPerS)
        var (_, driver) = try Self.running(
            model,
            SensorConfiguration(
                rateHz: 200, accelerationRangeMps2: accelRange, angularRateRangeRadS: gyroRange))
        let accelLSB = g / accel.sensitivityLSBPerG
        let gyroLSB = Angle.radians(fromDegrees: 1 / gyro.sensitivityLSBPerDegPerS)
        for (a, w, t) in [
            (Vector3(0.9, -0.5, 0.1), Vector3(-0.95, 0.3, 0.02), 41.7), (Vector3(-0.99, 0, 0.5), Vector3(0.5, -0.5, 0.99), -20.0)
        ] {
            model.accelerationMps2 = a * accelRange
            model.angularVelocityRadS = w * gyroRange
            model.temperatureC = t
            let r = try driver.read(timeS: 0)
            #expect(isClose(r.accelerationMps2, a * accelRange, tolerance: accelLSB))
            #expect(isClose(r.angularVelocityRadS, w * gyroRange, tolerance: gyroLSB))
            #expect(abs(r.temperatureC! - t) <= 1 / variant.temperatureLSBPerC)
        }
    }

    @Test func beyondTheConfiguredRangeTheOutputsSaturate() throws {
        let model = MPUModel(variant: .mpu6500)
        var (_, driver) = try Self.running(model, SensorConfiguration(accelerationRangeMps2: 2 * g))
        model.accelerationMps2 = Vector3(3 * g, -3 * g, 0)
        let r = try driver.read(timeS: 0)
        #expect(r.accelerationMps2 == Vector3(32767.0 / 16384 * g, -32768.0 / 16384 * g, 0))
    }

    @Test func rateSelectsTheDividerAndTheWidestDLPFBelowNyquist() throws {
        let cases: [(Double, UInt8, UInt8, Double)] = [ // rate → SMPLRT_DIV, DLPF_CFG (6050), actual
            (1000, 0, 1, 1000), (500, 1, 1, 500), (200, 4, 2, 200), (100, 9, 3, 100), (30, 32, 5, 1000.0 / 33),
            (10, 99, 6, 10), (1, 255, 6, 1000.0 / 256)
        ]
        for (rate, divider, dlpf, actual) in cases {
            let s = try MPU6xxx<SimulatedBus>.registerSettings(for: SensorConfiguration(rateHz: rate), variant: .mpu6050)
            #expect(s.smplrtDiv == divider && s.config == dlpf && s.actual.rateHz == actual, "rate \(rate) Hz")
        }
        #expect(
            thrownError { try MPU6xxx<SimulatedBus>.registerSettings(for: SensorConfiguration(rateHz: 2000), variant: .mpu6050) }
                == .unsupportedConfiguration(chip: "mpu6050", detail: "rate 2000.0 Hz: at most 1000 Hz with the DLPF on"))
    }

    @Test func rangesRoundUpAndRejectWhatTheChipCannotMeasure() throws {
        typealias M = MPU6xxx<SimulatedBus>
        let s = try M.registerSettings(
            for: SensorConfiguration(accelerationRangeMps2: 50, angularRateRangeRadS: 5), variant: .mpu6500)
        #expect(s.accelFullScale == .g8 && s.gyroFullScale == .dps500) // 5.1 g, 286 °/s
        #expect(
            thrownError { try M.registerSettings(for: SensorConfiguration(accelerationRangeMps2: 200), variant: .mpu6500) } != nil
        )
        #expect(
            thrownError { try M.registerSettings(for: SensorConfiguration(angularRateRangeRadS: 40), variant: .mpu6500) } != nil)
        #expect(
            thrownError { try M.registerSettings(for: SensorConfiguration(magneticRangeMicroTesla: 5000), variant: .mpu9250) }
                != nil)
    }

    @Test func mpu6050LowPowerIsCycleModeWithTheGyroscopeInStandby() throws {
        let model = MPUModel(variant: .mpu6050)
        var (bus, driver) = try Self.running(model)
        bus.clearLog()
        let actual = try driver.configure(SensorConfiguration(rateHz: 10, powerMode: .lowPower))
        #expect(actual.rateHz == 20)
        #expect(
            logLines(bus).suffix(2) == [
                "W 0x68 0x6C [87]", // LP_WAKE_CTRL 2 (20 Hz), STBY_XG|YG|ZG
                "W 0x68 0x6B [28]"
            ]) // CYCLE, TEMP_DIS, internal oscillator
        model.accelerationMps2 = Vector3(1, 2, 3)
        let r = try driver.read(timeS: 0)
        #expect(isClose(r.accelerationMps2, Vector3(1, 2, 3), tolerance: g / 8192))
        #expect(r.angularVelocityRadS == nil && r.temperatureC == nil)
        #expect(thrownError { try driver.configure(SensorConfiguration(rateHz: 50, powerMode: .lowPower)) } != nil)
    }

    @Test func mpu6500LowPowerIsTheLowPowerAccelerometerMode() throws {
        let s = try MPU6xxx<SimulatedBus>.registerSettings(
            for: SensorConfiguration(rateHz: 50, powerMode: .lowPower), variant: .mpu6500)
        #expect(s.accelConfig2 == 0x09) // ACCEL_FCHOICE_B, A_DLPF_CFG 1
        #expect(s.lpAccelOdr == 8) // 62.5 Hz
        #expect(s.pwrMgmt2 == 0x07) // gyroscope disabled
        #expect(s.pwrMgmt1 == 0x29) // CYCLE, PD_PTAT, CLKSEL 1
        #expect(s.actual.rateHz == 62.5)
    }

    @Test func suspendSetsSleepAndTheRegistersKeepTheLastSample() throws {
        let model = MPUModel(variant: .mpu6500)
        var (_, driver) = try Self.running(model)
        model.accelerationMps2 = Vector3(1, 0, 0)
        try driver.configure(SensorConfiguration(powerMode: .suspend))
        #expect(model.isAsleep)
        model.accelerationMps2 = Vector3(5, 0, 0)
        #expect(isClose(try driver.read(timeS: 0).accelerationMps2, Vector3(1, 0, 0), tolerance: g / 8192))
    }

    @Test func theModelIgnoresWritesToRegistersThe6050DoesNotHave() throws {
        let (bus, _) = try Self.running(MPUModel(variant: .mpu6050))
        try bus.writeByte(address: 0x68, register: 0x1D, value: 0x09)
        #expect(try bus.readByte(address: 0x68, register: 0x1D) == 0)
    }

    @Test func dataReadyIsClearedByReadingIntStatus() throws {
        let model = MPUModel(variant: .mpu6050)
        let (bus, _) = try Self.running(model)
        #expect(try bus.readByte(address: 0x68, register: 0x3A) == 0x01)
        #expect(try bus.readByte(address: 0x68, register: 0x3A) == 0x00)
    }

    // MARK: Identity

    @Test func anMPU9255IsAcceptedAsAnMPU9250() throws {
        let model = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        model.whoAmI = 0x73
        let bus = SimulatedBus()
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu9250)
        #expect(try driver.probe() == ChipIdentity(chip: "mpu9250", idValue: 0x73))
        #expect(driver.variantKinds.contains(.magnetometer))
    }

    @Test func askingForOneVariantAndFindingAnotherIsTheWrongChip() {
        let bus = SimulatedBus()
        MPUModel(variant: .mpu9250, magnetometer: AK8963Model()).attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu6500)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "mpu6500", bus: "sim", address: 0x68, register: 0x75, expected: [0x70], found: 0x71))
    }

    @Test func anUnknownWhoAmIListsEveryAcceptedValue() {
        let bus = SimulatedBus()
        let model = MPUModel(variant: .mpu6050)
        model.whoAmI = 0x12
        model.attach(to: bus, at: 0x69)
        var driver = MPU6xxx(bus: bus, address: 0x69)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(
                    chip: "mpu6050", bus: "sim", address: 0x69, register: 0x75, expected: [0x68, 0x70, 0x71, 0x73], found: 0x12))
    }

    // MARK: Faults

    @Test func nackOnTheThirdTransferNamesTheIdentityRecheck() {
        let bus = SimulatedBus()
        MPUModel(variant: .mpu6050).attach(to: bus)
        bus.inject(.failTransfer(number: 3, address: 0x68, kind: .nack))
        var driver = MPU6xxx(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .bus(
                    BusError(
                        kind: .nack, bus: "sim", address: 0x68, register: 0x75, errno: BusError.Errno.EREMOTEIO,
                        operation: "read 1 byte")))
    }

    @Test func aChipThatLosesItsIdentityAcrossTheResetGivesNotReady() {
        let bus = SimulatedBus()
        let model = MPUModel(variant: .mpu6500)
        bus.attach(IdentityLostAfterWrite(model, idRegister: 0x75), at: 0x68)
        let delays = DelayRecorder()
        var driver = MPU6xxx(bus: bus, delay: delays.delay)
        #expect(thrownError { try driver.probe() } == .notReady(chip: "mpu6500", bus: "sim", address: 0x68, waitedMs: 100))
        #expect(logLines(bus) == ["R 0x68 0x75 [70]", "W 0x68 0x6B [80]", "R 0x68 0x75 [FF]"])
        #expect(delays.delaysUs == [100_000])
    }

    /// A register file that emulates no self-clearing bits (like the kernel's i2c-stub): a reset write leaves
    /// DEVICE_RESET set. The driver must not wait for it to clear.
    @Test func aResetBitThatNeverSelfClearsDoesNotStopTheProbe() throws {
        let bus = SimulatedBus()
        MPUModel(variant: .mpu6050).attach(to: bus)
        bus.inject(.stuck(address: 0x68, register: 0x6B, value: 0x80))
        var driver = MPU6xxx(bus: bus)
        #expect(try driver.probe() == ChipIdentity(chip: "mpu6050", idValue: 0x68))
    }

    @Test func anIOErrorInTheMagnetometerReadIsReportedAgainstTheAK8963() throws {
        let model = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        var (bus, driver) = try Self.running(model)
        bus.inject(.failTransfer(number: 1, address: 0x0C, kind: .io))
        #expect(
            thrownError { try driver.read(timeS: 0) }
                == .bus(
                    BusError(
                        kind: .io, bus: "sim", address: 0x0C, register: 0x02, errno: BusError.Errno.EIO, operation: "read 8 bytes"
                    )))
        #expect(try driver.read(timeS: 1).accelerationMps2 != nil)
    }

    @Test func deviceGoneMidRunGivesNacksThenValuesAgain() throws {
        let model = MPUModel(variant: .mpu6050)
        var (bus, driver) = try Self.running(model)
        bus.setPresent(false, address: 0x68)
        for t in 0..<3 {
            let error = busError(thrownError { try driver.read(timeS: Double(t)) })
            #expect(error?.kind == .nack && error?.register == 0x3B)
        }
        bus.setPresent(true, address: 0x68)
        model.accelerationMps2 = Vector3(0, g, 0)
        #expect(isClose(try driver.read(timeS: 4).accelerationMps2, Vector3(0, g, 0), tolerance: g / 8192))
    }
}
