import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// TDK InvenSense ICM-20948 (DS-000189 rev. 1.3) with its AK09916 behind the I2C master: bank handling, exact bus
/// traffic, the data sheet's sensitivity tables, round trips through the model, FIFO, wake-on-motion, and faults.
@Suite struct ICM20948Tests {
    typealias D = ICM20948Datasheet
    let g = PhysicalConstants.standardGravityMps2

    static func running(
        _ model: ICM20948Model = ICM20948Model(), _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 100),
        transport: BusTransport = .i2c, address: UInt8 = 0x69
    ) throws -> (SimulatedBus, ICM20948<SimulatedBus>) {
        let bus = SimulatedBus(transport: transport)
        model.attach(to: bus, at: address)
        var driver = ICM20948(bus: bus, address: address)
        _ = try driver.probe()
        try driver.configure(configuration)
        return (bus, driver)
    }

    // MARK: Known answers

    /// DS-000189 table 1 (gyroscope sensitivity), table 2 (accelerometer), §8.31 (temperature), table 3 (AK09916).
    @Test func conversionsFollowTheDataSheetSensitivityTables() {
        for (fs, lsbPerG) in zip(D.AccelFullScale.allCases, [16384.0, 8192, 4096, 2048]) {
            #expect(D.accelerationMps2(raw: Int16(lsbPerG), fullScale: fs) == g)
        }
        for (fs, lsbPerDps) in zip(D.GyroFullScale.allCases, [131.0, 65.5, 32.8, 16.4]) {
            #expect(abs(D.angularVelocityRadS(raw: 1000, fullScale: fs) - Angle.radians(fromDegrees: 1000 / lsbPerDps)) < 1e-15)
        }
        #expect(D.temperatureC(raw: 0) == 21)
        #expect(abs(D.temperatureC(raw: 1335) - (21 + 1335 / 333.87)) < 1e-12)
        var bytes: [UInt8] = [0x01, 0x64, 0x00, 0x9C, 0xFF, 0x10, 0x27, 0x00, 0x00] // ST1 DRDY, 100, −100, 10000
        let m = bytes.withUnsafeBytes { AK09916Datasheet.Measurement($0, at: 0) }
        #expect(m.isReady && !m.isOverflow)
        #expect(m.fieldMicroTesla == Vector3(15, -15, 1500))
        bytes[8] = 0x08
        #expect(bytes.withUnsafeBytes { AK09916Datasheet.Measurement($0, at: 0) }.isOverflow)
        #expect(D.chipAxes(fromMagnetometerAxes: Vector3(1, 2, 3)) == Vector3(1, -2, -3))
    }

    @Test func rateSelectsBothDividersAndFilters() throws {
        typealias I = ICM20948<SimulatedBus>
        let cases: [(Double, UInt8, UInt16, Double)] = [ // rate → GYRO_SMPLRT_DIV, ACCEL_SMPLRT_DIV, reported rate
            (1100, 0, 0, 1100), (100, 10, 10, 100), (50, 21, 21, 50), (10, 109, 111, 10), (1, 255, 1124, 1100.0 / 256)
        ]
        for (rate, gyroDivider, accelDivider, actual) in cases {
            let s = try I.registerSettings(for: SensorConfiguration(rateHz: rate))
            #expect(
                s.gyroSmplrtDiv == gyroDivider && s.accelSmplrtDiv == accelDivider && s.actual.rateHz == actual, "rate \(rate)")
        }
        let s = try I.registerSettings(for: SensorConfiguration(rateHz: 100))
        #expect(s.gyroConfig1 == 0b0010_0111) // DLPFCFG 4 (23.9 Hz ≤ 50 Hz), ±2000 °/s, FCHOICE
        #expect(s.accelConfig == 0b0001_1011) // DLPFCFG 3 (50.4 Hz ≤ 102.3 / 2 Hz), ±4 g, FCHOICE
        #expect(
            thrownError { try I.registerSettings(for: SensorConfiguration(rateHz: 2000)) }
                == .unsupportedConfiguration(chip: "icm20948", detail: "rate 2000.0 Hz: at most 1100 Hz"))
    }

    // MARK: Bus traffic

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = ICM20948Model()
        model.attach(to: bus, at: 0x69)
        model.setMagneticField(chipAxesMicroTesla: Vector3(15, -30, 45))
        model.accelerationMps2 = Vector3(0, 0, g)
        let delays = DelayRecorder()
        var driver = ICM20948(bus: bus, address: 0x69, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "icm20948", idValue: 0xEA))
        let probeLog = logLines(bus)
        #expect(
            probeLog == [
                "R 0x69 0x00 [EA]", // WHO_AM_I
                "W 0x69 0x06 [80]", // PWR_MGMT_1: DEVICE_RESET
                "R 0x69 0x00 [EA]", // WHO_AM_I after the 100 ms start-up time
                "W 0x69 0x06 [01]", // wake, CLKSEL auto
                "W 0x69 0x03 [20]", // USER_CTRL: I2C_MST_EN
                "W 0x69 0x7F [30]", // bank 3
                "W 0x69 0x01 [07]", // I2C_MST_CTRL: 345.6 kHz
                "W 0x69 0x7F [00]", // bank 0
                // AK09916 WIA2 through slave 4: address (read), register, enable; status in bank 0; data in bank 3
                "W 0x69 0x7F [30]", "W 0x69 0x13 [8C]", "W 0x69 0x14 [01]", "W 0x69 0x15 [80]",
                "W 0x69 0x7F [00]", "R 0x69 0x17 [40]",
                "W 0x69 0x7F [30]", "R 0x69 0x17 [09]", "W 0x69 0x7F [00]",
                // CNTL3: SRST (a write: address without RNW, DO, then enable)
                "W 0x69 0x7F [30]", "W 0x69 0x13 [0C]", "W 0x69 0x14 [32]", "W 0x69 0x16 [01]", "W 0x69 0x15 [80]",
                "W 0x69 0x7F [00]", "R 0x69 0x17 [40]"
            ])
        #expect(delays.delaysUs == [100_000, 100])
        bus.clearLog()
        _ = try driver.configure(SensorConfiguration(rateHz: 100))
        let configureLog = logLines(bus)
        #expect(
            configureLog.prefix(20) == [
                "W 0x69 0x06 [01]", "W 0x69 0x07 [00]",
                "W 0x69 0x7F [20]", // bank 2
                "W 0x69 0x00 [0A]", // GYRO_SMPLRT_DIV 10: 1.1 kHz / 11 = 100 Hz
                "W 0x69 0x01 [27]", // GYRO_CONFIG_1
                "W 0x69 0x10 [00]", "W 0x69 0x11 [0A]", // ACCEL_SMPLRT_DIV 10: 102.3 Hz
                "W 0x69 0x14 [1B]", // ACCEL_CONFIG
                "W 0x69 0x13 [00]", "W 0x69 0x12 [00]", // wake-on-motion off
                "W 0x69 0x09 [01]", // ODR_ALIGN_EN
                "W 0x69 0x7F [00]",
                "W 0x69 0x05 [00]", // LP_CONFIG: low-noise
                "W 0x69 0x10 [00]", // INT_ENABLE
                "W 0x69 0x11 [01]", // INT_ENABLE_1: RAW_DATA_0_RDY_EN
                "W 0x69 0x67 [00]", "W 0x69 0x69 [00]", "W 0x69 0x68 [1F]", "W 0x69 0x68 [00]", // FIFO off and reset
                "W 0x69 0x03 [20]" // USER_CTRL
            ])
        // The AK09916's CNTL2 (power-down, then continuous mode 4 at 100 Hz) and slave 0 at ST1 for 9 bytes.
        #expect(configureLog.contains("W 0x69 0x16 [08]"))
        #expect(
            configureLog.suffix(5) == [
                "W 0x69 0x7F [30]", "W 0x69 0x03 [8C]", "W 0x69 0x04 [10]", "W 0x69 0x05 [89]",
                "W 0x69 0x7F [00]"
            ])
        bus.clearLog()
        let r = try driver.read(timeS: 0)
        #expect(logLines(bus).count == 1 && logLines(bus)[0].hasPrefix("R 0x69 0x2D [00 00 00 00 20 00")) // 23 bytes
        #expect(r.accelerationMps2 == Vector3(0, 0, g))
        #expect(isClose(r.magneticFieldMicroTesla, Vector3(15, -30, 45), tolerance: 0.075))
        #expect(abs(r.temperatureC! - 25) <= 1 / 333.87)
    }

    @Test func onSPITheI2CSlaveInterfaceIsDisabled() throws {
        let (bus, _) = try Self.running(transport: .spi)
        #expect(logLines(bus).contains("W 0x69 0x03 [30]")) // USER_CTRL: I2C_MST_EN | I2C_IF_DIS
        #expect(!logLines(bus).contains("W 0x69 0x03 [20]"))
    }

    @Test func aChipLeftInAnotherBankIsBroughtBackToBankZero() throws {
        let bus = SimulatedBus()
        let model = ICM20948Model()
        model.attach(to: bus, at: 0x68)
        try bus.writeByte(address: 0x68, register: 0x7F, value: 0x20) // another program left bank 2 selected
        bus.clearLog()
        var driver = ICM20948(bus: bus)
        #expect(try driver.probe().chip == "icm20948")
        #expect(logLines(bus).prefix(4) == ["R 0x68 0x00 [00]", "R 0x68 0x7F [20]", "W 0x68 0x7F [00]", "R 0x68 0x00 [EA]"])
    }

    // MARK: Round trips

    static let ranges: [(D.AccelFullScale, D.GyroFullScale)] = D.AccelFullScale.allCases.flatMap { a in
        D.GyroFullScale.allCases.map { (a, $0) }
    }

    @Test(arguments: ranges)
    func roundTripIsWithinOneLSBForEveryRange(accel: D.AccelFullScale, gyro: D.GyroFullScale) throws {
        let model = ICM20948Model()
        let accelRange = accel.rangeG * g, gyroRange = Angle.radians(fromDegrees: gyro.rangeDegPerS)
        var (_, driver) = try Self.running(
            model,
            SensorConfiguration(
                rateHz: 200, accelerationRangeMps2: accelRange,
                angularRateRangeRadS: gyroRange))
        for (a, w, b) in [
            (Vector3(0.9, -0.5, 0.1), Vector3(-0.95, 0.3, 0.02), Vector3(20, -5, 40)),
            (Vector3(-0.99, 0, 0.5), Vector3(0.5, -0.5, 0.99), Vector3(-4000, 300, 100))
        ] {
            model.accelerationMps2 = a * accelRange
            model.angularVelocityRadS = w * gyroRange
            model.setMagneticField(chipAxesMicroTesla: b)
            let r = try driver.read(timeS: 0)
            #expect(isClose(r.accelerationMps2, a * accelRange, tolerance: g / accel.sensitivityLSBPerG))
            #expect(
                isClose(
                    r.angularVelocityRadS, w * gyroRange, tolerance: Angle.radians(fromDegrees: 1 / gyro.sensitivityLSBPerDegPerS)
                ))
            #expect(isClose(r.magneticFieldMicroTesla, b, tolerance: 0.075))
        }
    }

    @Test func theFieldIsReportedOncePerMeasurement() throws {
        let model = ICM20948Model()
        var (_, driver) = try Self.running(model)
        model.setMagneticField(chipAxesMicroTesla: Vector3(10, 20, 30))
        #expect(try driver.read(timeS: 0).magneticFieldMicroTesla != nil)
        #expect(try driver.read(timeS: 0.01).magneticFieldMicroTesla == nil) // slave 0 read the same block again
        model.setMagneticField(chipAxesMicroTesla: Vector3(10, 20, 31))
        #expect(try driver.read(timeS: 0.02).magneticFieldMicroTesla != nil)
    }

    @Test func aMagneticOverflowIsAnInvalidReading() throws {
        let model = ICM20948Model()
        var (_, driver) = try Self.running(model)
        model.setMagneticField(chipAxesMicroTesla: Vector3(3000, 2000, 0))
        guard case .invalidReading(let chip, _, let address, _)? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected an overflow"); return
        }
        #expect(chip == "ak09916" && address == 0x0C)
    }

    // MARK: Power, FIFO, interrupts

    @Test func lowPowerDutyCyclesTheAccelerometerAndStopsTheGyroscope() throws {
        let model = ICM20948Model()
        var (bus, driver) = try Self.running(model)
        bus.clearLog()
        let actual = try driver.configure(SensorConfiguration(rateHz: 20, powerMode: .lowPower))
        #expect(actual.rateHz == 1125.0 / 56)
        #expect(logLines(bus).contains("W 0x69 0x05 [60]")) // LP_CONFIG: I2C_MST_CYCLE, ACCEL_CYCLE
        #expect(
            logLines(bus).suffix(2) == [
                "W 0x69 0x07 [07]", // gyroscope disabled
                "W 0x69 0x06 [29]"
            ]) // LP_EN, TEMP_DIS, CLKSEL 1
        model.accelerationMps2 = Vector3(1, 2, 3)
        let r = try driver.read(timeS: 0)
        #expect(isClose(r.accelerationMps2, Vector3(1, 2, 3), tolerance: g / 8192))
        #expect(r.angularVelocityRadS == nil && r.temperatureC == nil)
    }

    @Test func suspendSleepsTheChip() throws {
        let model = ICM20948Model()
        var (_, driver) = try Self.running(model)
        try driver.configure(SensorConfiguration(powerMode: .suspend))
        #expect(model.isAsleep)
        #expect(driver.configuration?.rateHz == 0)
    }

    @Test func theFIFOIsDrainedInOneBurstOldestFirst() throws {
        let model = ICM20948Model()
        var (bus, driver) = try Self.running(model, SensorConfiguration(rateHz: 100, fifo: .stream))
        #expect(driver.fifoCapacitySamples == 42)
        for i in 1...5 { model.accelerationMps2 = Vector3(Double(i), 0, g) }
        #expect(try driver.fifoSampleCount() >= 5)
        bus.clearLog()
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 64)
        defer { samples.deallocate() }
        let drain = try driver.drainFIFO(into: samples, newestTimeS: 10)
        let n = drain.count
        #expect(!drain.overrun)
        #expect(logLines(bus).count == 2) // FIFO_COUNTH/L, then one burst from FIFO_R_W
        #expect(logLines(bus)[1].hasPrefix("R 0x69 0x72"))
        #expect(n >= 5)
        #expect(isClose(samples[n - 1].accelerationMps2, Vector3(5, 0, g), tolerance: g / 8192))
        #expect(isClose(samples[n - 2].accelerationMps2, Vector3(4, 0, g), tolerance: g / 8192))
        #expect(samples[n - 1].timeS == 10 && abs(samples[n - 2].timeS - 9.99) < 1e-12)
        #expect(samples[n - 1].angularVelocityRadS == .zero)
        #expect(try driver.fifoSampleCount() == 0)
        #expect(model.fifoByteCount == 0)
    }

    @Test func onAThirtyTwoByteBusTheFIFOIsReadInPiecesRestartingAtFIFO_R_W() throws {
        let model = ICM20948Model()
        var (bus, driver) = try Self.running(model, SensorConfiguration(rateHz: 100, fifo: .stream))
        _ = try drained(&driver, newestTimeS: 0)
        bus.maximumReadBytes = 32
        for i in 1...6 { model.accelerationMps2 = Vector3(Double(i), 0, g) }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 1)
        #expect(drain == FIFODrain(count: 6, overrun: false))
        #expect(
            bus.log.dropFirst().map(\.register) == [0x72, 0x72, 0x72] && bus.log.dropFirst().map(\.bytes.count) == [32, 32, 8])
        #expect(
            samples.enumerated().allSatisfy { isClose($1.accelerationMps2, Vector3(Double($0 + 1), 0, g), tolerance: g / 8192) })
    }

    @Test func aFullFIFOIsAnOverrunAndAnOverflowedOneIsResetNotMisread() throws {
        let model = ICM20948Model()
        var (_, driver) = try Self.running(model, SensorConfiguration(rateHz: 100, fifo: .stream))
        _ = try drained(&driver, newestTimeS: 0)
        for i in 1...42 { model.accelerationMps2 = Vector3(Double(i % 8), 0, g) }
        let full = try drained(&driver, newestTimeS: 1)
        #expect(full.drain == FIFODrain(count: 42, overrun: true)) // 504 bytes: the next sample overflows
        #expect(isClose(full.samples[41].accelerationMps2, Vector3(2, 0, g), tolerance: g / 8192))
        // 43 frames do not fit in 512 bytes: the chip drops the oldest 4 bytes and the frames lose their alignment.
        for i in 1...43 { model.accelerationMps2 = Vector3(Double(i % 8), 0, g) }
        #expect(model.fifoByteCount == 512)
        #expect(try drained(&driver, newestTimeS: 2).drain == FIFODrain(count: 0, overrun: true))
        // FIFO_RST (written 1s, then 0s) emptied it; the model then samples once after each of the two writes.
        #expect(model.fifoByteCount == 2 * D.fifoFrameBytes)
        model.accelerationMps2 = Vector3(5, 0, g)
        let after = try drained(&driver, newestTimeS: 3)
        #expect(after.drain == FIFODrain(count: 3, overrun: false))
        #expect(isClose(after.samples.first?.accelerationMps2, Vector3(3, 0, g), tolerance: g / 8192))
        #expect(isClose(after.samples.last?.accelerationMps2, Vector3(5, 0, g), tolerance: g / 8192))
    }

    @Test func wakeOnMotionFlagsAChangeAboveTheThreshold() throws {
        let model = ICM20948Model()
        var (_, driver) = try Self.running(
            model,
            SensorConfiguration(
                rateHz: 20, powerMode: .lowPower,
                wakeOnMotionThresholdMps2: 0.2 * g))
        #expect(driver.configuration?.wakeOnMotionThresholdMps2 == 50 * 0.004 * g) // ACCEL_WOM_THR 50
        _ = try driver.motionDetected()
        model.accelerationMps2 = Vector3(0.1 * g, 0, g) // 0.1 g change: below
        #expect(try driver.motionDetected() == false)
        model.accelerationMps2 = Vector3(0.4 * g, 0, g) // 0.3 g change: above
        #expect(try driver.motionDetected() == true)
        #expect(try driver.motionDetected() == false) // cleared as read
        #expect(
            thrownError { try ICM20948<SimulatedBus>.registerSettings(for: SensorConfiguration(wakeOnMotionThresholdMps2: 20)) }
                != nil)
    }

    @Test func dataReadyIsSetBySamplesAndClearedByReadingIt() throws {
        let model = ICM20948Model()
        var (_, driver) = try Self.running(model)
        model.accelerationMps2 = Vector3(0, 1, 9)
        #expect(try driver.isDataReady())
        #expect(try driver.isDataReady() == false)
    }

    // MARK: Faults

    @Test func aWrongIdentityInEveryBankIsTheWrongChip() {
        let bus = SimulatedBus()
        let model = ICM20948Model()
        model.whoAmI = 0x71
        model.attach(to: bus, at: 0x68)
        var driver = ICM20948(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(
                    chip: "icm20948", bus: "sim", address: 0x68, register: 0x00,
                    expected: [0xEA], found: 0x71))
    }

    @Test func anAK09916ThatDoesNotAnswerTheMasterIsANackOnTheMasterBus() {
        let bus = SimulatedBus()
        let model = ICM20948Model(magnetometer: AK09916Model(wia2: 0x05))
        model.attach(to: bus, at: 0x68)
        var driver = ICM20948(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(
                    chip: "ak09916", bus: "sim 0x68 I2C master", address: 0x0C,
                    register: 0x01, expected: [0x09], found: 0x05))
        #expect(model.bank == 0)
    }

    @Test func aStuckMasterStatusTimesOutWithinItsBound() {
        let bus = SimulatedBus()
        ICM20948Model().attach(to: bus, at: 0x68)
        bus.inject(.stuck(address: 0x68, register: 0x17, value: 0x00)) // I2C_SLV4_DONE never set
        let delays = DelayRecorder()
        var driver = ICM20948(bus: bus, delay: delays.delay)
        let error = busError(thrownError { try driver.probe() })
        #expect(error?.kind == .timeout && error?.bus == "sim 0x68 I2C master" && error?.address == 0x0C)
        #expect(delays.delaysUs.filter { $0 == 1000 }.count == 19)
    }

    @Test func aResetBitThatNeverSelfClearsDoesNotStopTheProbe() throws {
        let bus = SimulatedBus()
        ICM20948Model().attach(to: bus, at: 0x68)
        bus.inject(.stuck(address: 0x68, register: 0x06, value: 0x80))
        var driver = ICM20948(bus: bus)
        #expect(try driver.probe().chip == "icm20948")
    }

    @Test func aNackOnTheHostNamesTheRegister() {
        let bus = SimulatedBus()
        ICM20948Model().attach(to: bus, at: 0x68)
        bus.inject(.failTransfer(number: 2, address: 0x68, kind: .nack))
        var driver = ICM20948(bus: bus)
        #expect(busError(thrownError { try driver.probe() })?.register == 0x06)
    }

    @Test func deviceGoneMidRunGivesNacksThenValuesAgain() throws {
        let model = ICM20948Model()
        var (bus, driver) = try Self.running(model, address: 0x68)
        bus.setPresent(false, address: 0x68)
        let error = busError(thrownError { try driver.read(timeS: 0) })
        #expect(error?.kind == .nack && error?.register == 0x2D)
        bus.setPresent(true, address: 0x68)
        model.accelerationMps2 = Vector3(0, g, 0)
        #expect(isClose(try driver.read(timeS: 1).accelerationMps2, Vector3(0, g, 0), tolerance: g / 8192))
    }

    @Test func readBeforeProbeIsACallersMistake() {
        var driver = ICM20948(bus: SimulatedBus())
        #expect(thrownError { try driver.read(timeS: 0) } != nil)
        #expect(thrownError { try driver.configure(SensorConfiguration()) } != nil)
    }
}
