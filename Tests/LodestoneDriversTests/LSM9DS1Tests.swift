import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// ST LSM9DS1 (DocID025715 rev. 3): the accelerometer/gyroscope and the magnetometer, each its own device on the bus.
@Suite struct LSM9DS1Tests {
    typealias D = LSM9DS1Datasheet
    typealias M = LSM9DS1MagnetometerDatasheet
    let g = PhysicalConstants.standardGravityMps2

    static func running(
        _ model: LSM9DS1Model, _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 100),
        transport: BusTransport = .i2c
    ) throws -> (SimulatedBus, LSM9DS1<SimulatedBus>) {
        let (bus, _, driver) = try probedAndConfigured(model, at: 0x6A, transport: transport, configuration) { LSM9DS1(bus: $0) }
        return (bus, driver)
    }

    static func runningMagnetometer(
        _ model: LSM9DS1MagnetometerModel, transport: BusTransport = .i2c,
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 40)
    )
        throws -> (SimulatedBus, LSM9DS1Magnetometer<SimulatedBus>)
    {
        let (bus, _, driver) = try probedAndConfigured(model, at: 0x1C, transport: transport, configuration) {
            LSM9DS1Magnetometer(bus: $0)
        }
        return (bus, driver)
    }

    // MARK: Known answers

    /// Table 3: LA_So 0.061/0.122/0.244/0.732 mg/LSB, G_So 8.75/17.50/70 mdps/LSB, M_GN 0.14/0.29/0.43/0.58
    /// mgauss/LSB; table 5: temperature 16 LSB/°C with 0 LSB at 25 °C.
    @Test func conversionsFollowTable3() {
        for (fs, mg) in [(D.AccelFullScale.g2, 0.061), (.g4, 0.122), (.g8, 0.244), (.g16, 0.732)] {
            #expect(abs(D.accelerationMps2(raw: 1000, fullScale: fs) - mg * g) < 1e-12)
        }
        for (fs, mdps) in [(D.GyroFullScale.dps245, 8.75), (.dps500, 17.5), (.dps2000, 70)] {
            #expect(abs(D.angularVelocityRadS(raw: 1000, fullScale: fs) - Angle.radians(fromDegrees: mdps)) < 1e-12)
        }
        #expect(D.temperatureC(raw: -80) == 20)
        for (fs, mgauss) in [(LIS3MDLDatasheet.FullScale.gauss4, 0.14), (.gauss8, 0.29), (.gauss12, 0.43), (.gauss16, 0.58)] {
            #expect(abs(M.magneticFieldMicroTesla(raw: 1000, fullScale: fs) - mgauss * 100) < 1e-12) // 1 gauss = 100 µT
        }
    }

    @Test func ratesFollowTheGyroscopeTableOrTheAccelerometerOnlyTable() throws {
        typealias L = LSM9DS1<SimulatedBus>
        #expect(try L.registerSettings(for: SensorConfiguration(rateHz: 100)).actual.rateHz == 119)
        #expect(try L.registerSettings(for: SensorConfiguration(rateHz: 100)).ctrlReg1G == 0b011_11_000) // 119 Hz, ±2000 °/s
        #expect(try L.registerSettings(for: SensorConfiguration(rateHz: 40)).ctrlReg3G == 0x80) // gyroscope low-power mode
        #expect(try L.registerSettings(for: SensorConfiguration(rateHz: 40, powerMode: .lowPower)).actual.rateHz == 50)
        #expect(thrownError { try L.registerSettings(for: SensorConfiguration(rateHz: 1000)) } != nil)
        #expect(thrownError { try L.registerSettings(for: SensorConfiguration(fifo: .stream)) } != nil)
    }

    // MARK: Accelerometer and gyroscope

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = LSM9DS1Model()
        bus.attach(model, at: 0x6A)
        var driver = LSM9DS1(bus: bus)
        #expect(try driver.probe() == ChipIdentity(chip: "lsm9ds1", idValue: 0x68))
        _ = try driver.configure(SensorConfiguration(rateHz: 100))
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x6A 0x0F [68]",
                "W 0x6A 0x22 [05]", // CTRL_REG8: IF_ADD_INC, SW_RESET
                "R 0x6A 0x0F [68]",
                "W 0x6A 0x22 [44]", // BDU, IF_ADD_INC
                "W 0x6A 0x23 [00]", // CTRL_REG9
                "W 0x6A 0x07 [00]", "W 0x6A 0x08 [00]", "W 0x6A 0x09 [00]", "W 0x6A 0x0A [00]", "W 0x6A 0x06 [00]",
                "W 0x6A 0x0C [03]", // INT1: data ready
                "W 0x6A 0x21 [00]", "W 0x6A 0x1E [38]", "W 0x6A 0x12 [00]",
                "W 0x6A 0x20 [10]", // CTRL_REG6_XL: ±4 g (rate from the gyroscope)
                "W 0x6A 0x10 [78]", // CTRL_REG1_G: 119 Hz, ±2000 °/s
                // temperature, status (TDA cleared by the temperature bytes), gyroscope
                "R 0x6A 0x15 [00 00 03 00 00 00 00 00 00]",
                "R 0x6A 0x28 [00 00 00 00 05 20]" // accelerometer: 1 g = 8197 × 0.122 mg
            ])
        #expect(r.accelerationMps2 == Vector3(0, 0, 8197 * 0.122e-3 * g) && r.temperatureC == 25)
    }

    // Every pair (Swift Testing's product of two collections; a closure here crashed Swift 6.0.3's emit-module).
    @Test(arguments: D.AccelFullScale.allCases, D.GyroFullScale.allCases)
    func roundTripIsWithinOneLSBForEveryRange(accel: D.AccelFullScale, gyro: D.GyroFullScale) throws {
        let model = LSM9DS1Model()
        let accelRange = accel.rangeG * g, gyroRange = Angle.radians(fromDegrees: gyro.rangeDegPerS)
        var (_, driver) = try Self.running(
            model,
            SensorConfiguration(
                rateHz: 200, accelerationRangeMps2: accelRange,
                angularRateRangeRadS: gyroRange))
        for (a, w) in [(Vector3(0.9, -0.5, 0.1), Vector3(-0.95, 0.3, 0.02)), (Vector3(-0.99, 0, 0.5), Vector3(0.5, -0.5, 0.98))] {
            model.accelerationMps2 = a * accelRange
            model.angularVelocityRadS = w * gyroRange
            let r = try driver.read(timeS: 0)
            #expect(isClose(r.accelerationMps2, a * accelRange, tolerance: accel.sensitivityMilliGPerLSB / 1000 * g))
            #expect(
                isClose(
                    r.angularVelocityRadS, w * gyroRange,
                    tolerance: Angle.radians(fromDegrees: gyro.sensitivityMilliDegPerSPerLSB / 1000)))
        }
    }

    @Test func lowPowerIsTheAccelerometerOnlyMode() throws {
        let model = LSM9DS1Model()
        var (_, driver) = try Self.running(model, SensorConfiguration(rateHz: 10, powerMode: .lowPower))
        #expect(!model.isGyroscopeOn && model.isAccelerometerOn)
        model.accelerationMps2 = Vector3(2, 0, 9)
        let r = try driver.read(timeS: 0)
        #expect(isClose(r.accelerationMps2, Vector3(2, 0, 9), tolerance: 0.122e-3 * g) && r.angularVelocityRadS == nil)
        try driver.configure(SensorConfiguration(powerMode: .suspend))
        #expect(!model.isAccelerometerOn)
    }

    @Test func onSPITheI2CInterfaceIsDisabled() throws {
        let (bus, _) = try Self.running(LSM9DS1Model(), transport: .spi)
        #expect(logLines(bus).contains("W 0x6A 0x23 [04]"))
    }

    @Test func wakeOnMotionUsesTheInterruptGeneratorOnHighPassedData() throws {
        let model = LSM9DS1Model()
        // ±4 g: one threshold step is 4 g / 128 = 31.25 mg; 0.25 g → 8.
        var (bus, driver) = try Self.running(
            model, SensorConfiguration(rateHz: 50, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.25 * g))
        #expect(
            logLines(bus).contains("W 0x6A 0x07 [08]") && logLines(bus).contains("W 0x6A 0x06 [2A]")
                && logLines(bus).contains("W 0x6A 0x21 [01]") && logLines(bus).contains("W 0x6A 0x0C [41]"))
        model.accelerationMps2 = Vector3(0, 0.2 * g, g)
        #expect(try driver.motionDetected() == false)
        model.accelerationMps2 = Vector3(0, 0.6 * g, g)
        #expect(try driver.motionDetected() == true)
        #expect(try driver.motionDetected() == false)
    }

    @Test func faultsAreTypedAndTheChipComesBack() throws {
        let bus = SimulatedBus()
        bus.attach(LSM6DSxModel(variant: .lsm6dsl), at: 0x6A)
        var wrong = LSM9DS1(bus: bus)
        #expect(
            thrownError { try wrong.probe() }
                == .wrongChipID(
                    chip: "lsm9ds1", bus: "sim", address: 0x6A, register: 0x0F,
                    expected: [0x68], found: 0x6A))
        let model = LSM9DS1Model()
        var (other, driver) = try Self.running(model)
        other.setPresent(false, address: 0x6A)
        #expect(busError(thrownError { try driver.read(timeS: 0) })?.kind == .nack)
        other.setPresent(true, address: 0x6A)
        #expect(try driver.read(timeS: 1).accelerationMps2 != nil)
        other.inject(.failTransfer(number: 1, address: 0x6A, kind: .io))
        #expect(
            busError(thrownError { try driver.read(timeS: 2) })
                == BusError(
                    kind: .io, bus: "sim", address: 0x6A, register: 0x15,
                    errno: BusError.Errno.EIO, operation: "read 9 bytes"))
    }

    // MARK: Magnetometer

    @Test func magnetometerProbeConfigureAndReadOnI2C() throws {
        let model = LSM9DS1MagnetometerModel()
        model.magneticFieldMicroTesla = Vector3(20, -10, 40)
        var (bus, driver) = try Self.runningMagnetometer(model)
        #expect(logLines(bus).prefix(3) == ["R 0x1C 0x0F [3D]", "W 0x1C 0x21 [04]", "R 0x1C 0x0F [3D]"])
        bus.clearLog()
        let r = try driver.read(timeS: 0)
        #expect(logLines(bus).count == 1 && logLines(bus)[0].hasPrefix("R 0x1C 0xA8 ")) // OUT_X_L_M with the I2C increment bit
        #expect(isClose(r.magneticFieldMicroTesla, Vector3(20, -10, 40), tolerance: 0.014))
        #expect(r.temperatureC == nil)
    }

    @Test func onSPITheMagnetometerDisablesItsI2CInterface() throws {
        let model = LSM9DS1MagnetometerModel()
        model.magneticFieldMicroTesla = Vector3(20, -10, 40)
        var (bus, driver) = try Self.runningMagnetometer(model, transport: .spi)
        #expect(logLines(bus).last == "W 0x1C 0x22 [80]") // CTRL_REG3_M: I2C_DISABLE, continuous
        #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, Vector3(20, -10, 40), tolerance: 0.014))
    }

    @Test(arguments: LIS3MDLDatasheet.FullScale.allCases)
    func magnetometerRoundTripIsWithinOneLSBForEveryRange(fullScale: LIS3MDLDatasheet.FullScale) throws {
        let model = LSM9DS1MagnetometerModel()
        let range = fullScale.rangeGauss * 100
        var (_, driver) = try Self.runningMagnetometer(model, SensorConfiguration(rateHz: 40, magneticRangeMicroTesla: range))
        for b in [Vector3(0.9, -0.5, 0.1), Vector3(-0.3, 0.99, -0.7)] {
            model.magneticFieldMicroTesla = b * range
            #expect(
                isClose(
                    try driver.read(timeS: 0).magneticFieldMicroTesla, b * range,
                    tolerance: M.sensitivityMilliGaussPerLSB(fullScale) / 10))
        }
    }

    @Test func theMagnetometerRefusesWhatItDoesNotHave() throws {
        var (_, driver) = try Self.runningMagnetometer(LSM9DS1MagnetometerModel())
        #expect(thrownError { try driver.configure(SensorConfiguration(fifo: .stream)) } != nil)
        #expect(thrownError { try driver.configure(SensorConfiguration(wakeOnMotionThresholdMps2: 1)) } != nil)
    }
}
