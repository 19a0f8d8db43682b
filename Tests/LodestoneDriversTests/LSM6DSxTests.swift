import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// ST LSM6DS3 (DocID026899), LSM6DSL (DocID028475), LSM6DSOX (DS12814): the data sheets' sensitivity tables, exact
/// bus traffic, round trips through the model for every variant and range, power modes, FIFO (patterned and tagged),
/// wake-up, data ready, and faults.
@Suite struct LSM6DSxTests {
    typealias D = LSM6DSxDatasheet
    let g = PhysicalConstants.standardGravityMps2

    static func running(
        _ model: LSM6DSxModel, _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 100),
        address: UInt8 = 0x6A
    ) throws -> (SimulatedBus, LSM6DSx<SimulatedBus>) {
        let (bus, _, driver) = try probedAndConfigured(model, at: address, configuration) { LSM6DSx(bus: $0, address: address) }
        return (bus, driver)
    }

    // MARK: Known answers

    /// Table 3 (DS3, DSL) / table 4 (DSOX): LA_So 0.061/0.122/0.244/0.488 mg/LSB, G_So 4.375/8.75/17.5/35/70 mdps/LSB;
    /// table 5: temperature 16 LSB/°C (DS3) or 256 LSB/°C (DSL, DSOX), 0 LSB at 25 °C.
    @Test func conversionsFollowTheMechanicalCharacteristicsTables() {
        for (fs, mg) in [(D.AccelFullScale.g2, 0.061), (.g4, 0.122), (.g8, 0.244), (.g16, 0.488)] {
            #expect(abs(D.accelerationMps2(raw: 1000, fullScale: fs) - mg * g) < 1e-12, "\(fs)")
        }
        for (fs, mdps) in [(D.GyroFullScale.dps125, 4.375), (.dps245, 8.75), (.dps500, 17.5), (.dps1000, 35), (.dps2000, 70)] {
            #expect(abs(D.angularVelocityRadS(raw: 1000, fullScale: fs) - Angle.radians(fromDegrees: mdps)) < 1e-12, "\(fs)")
        }
        #expect(D.temperatureC(raw: 16, variant: .lsm6ds3) == 26)
        #expect(D.temperatureC(raw: 256, variant: .lsm6dsl) == 26)
        #expect(D.temperatureC(raw: -512, variant: .lsm6dsox) == 23)
        // FS_XL's order: 00 ±2 g, 01 ±16 g, 10 ±4 g, 11 ±8 g; FS_125 for ±125 °/s.
        #expect(D.AccelFullScale.ascending.map(\.rawValue) == [0, 2, 3, 1])
        #expect(D.GyroFullScale.dps125.ctrl2Bits == 0b0010 && D.GyroFullScale.dps2000.ctrl2Bits == 0b1100)
    }

    @Test func eachVariantIsKnownByItsWhoAmI() {
        #expect(LSM6DSxVariant.allCases.map(\.whoAmI) == [0x69, 0x6A, 0x6C])
        #expect(LSM6DSxVariant(whoAmI: 0x6A) == .lsm6dsl && LSM6DSxVariant(whoAmI: 0x68) == nil)
    }

    @Test func ratesAreTheSlowestODRAtOrAboveTheRequest() throws {
        typealias L = LSM6DSx<SimulatedBus>
        for (rate, code, actual) in [(10.0, UInt8(1), 12.5), (100, 4, 104), (104, 4, 104), (500, 7, 833), (1660, 8, 1660)] {
            let s = try L.registerSettings(for: SensorConfiguration(rateHz: rate), variant: .lsm6dsl)
            #expect(
                D.Field.odr.extract(from: s.ctrl1XL) == code && D.Field.odr.extract(from: s.ctrl2G) == code
                    && s.actual.rateHz == actual)
        }
        #expect(try L.registerSettings(for: SensorConfiguration(rateHz: 6000), variant: .lsm6dsox).actual.rateHz == 6660)
        #expect(
            thrownError { try L.registerSettings(for: SensorConfiguration(rateHz: 3000), variant: .lsm6ds3) }
                == .unsupportedConfiguration(chip: "lsm6ds3", detail: "rate 3000.0 Hz: at most 1660.0 Hz"))
        #expect(
            thrownError { try L.registerSettings(for: SensorConfiguration(rateHz: 100, powerMode: .lowPower), variant: .lsm6dsl) }
                == .unsupportedConfiguration(chip: "lsm6dsl", detail: "low-power rate 100.0 Hz: at most 52.0 Hz"))
    }

    // MARK: Bus traffic

    @Test func lsm6dslProbeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = LSM6DSxModel(variant: .lsm6dsl)
        model.angularVelocityRadS = Vector3(0.1, 0, -0.1)
        bus.attach(model, at: 0x6B)
        let delays = DelayRecorder()
        var driver = LSM6DSx(bus: bus, address: 0x6B, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "lsm6dsl", idValue: 0x6A))
        let actual = try driver.configure(SensorConfiguration(rateHz: 100))
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x6B 0x0F [6A]", // WHO_AM_I
                "W 0x6B 0x12 [05]", // CTRL3_C: IF_INC, SW_RESET
                "R 0x6B 0x0F [6A]", // identity after the reset
                "W 0x6B 0x12 [44]", // CTRL3_C: BDU, IF_INC
                "W 0x6B 0x0A [00]", // FIFO bypass
                "W 0x6B 0x08 [00]", // FIFO_CTRL3
                "W 0x6B 0x0D [03]", // INT1_CTRL: data ready (accelerometer, gyroscope)
                "W 0x6B 0x5B [00]", "W 0x6B 0x5C [00]", "W 0x6B 0x58 [00]", "W 0x6B 0x5E [00]", // wake-up off
                "W 0x6B 0x15 [00]", "W 0x6B 0x16 [00]", // high-performance
                "W 0x6B 0x11 [4C]", // CTRL2_G: 104 Hz, ±2000 °/s
                "W 0x6B 0x10 [48]", // CTRL1_XL: 104 Hz, ±4 g
                "R 0x6B 0x20 [00 00 52 00 00 00 AE FF 00 00 00 00 05 20]" // temperature, gyroscope, accelerometer
            ])
        #expect(delays.delaysUs == [50_000])
        #expect(
            actual
                == SensorConfiguration(
                    rateHz: 104, accelerationRangeMps2: 4 * g, angularRateRangeRadS: Angle.radians(fromDegrees: 2000)))
        #expect(r.temperatureC == 25)
        #expect(
            // 0.1 rad/s
            r.angularVelocityRadS == Vector3(Angle.radians(fromDegrees: 82 * 0.07), 0, Angle.radians(fromDegrees: -82 * 0.07)))
        #expect(r.accelerationMps2 == Vector3(0, 0, 8197 * 0.122 / 1000 * g)) // 1 g at 0.122 mg/LSB
    }

    // MARK: Round trips

    static let cases: [(LSM6DSxVariant, D.AccelFullScale, D.GyroFullScale)] =
        LSM6DSxVariant.allCases.flatMap { v in
            D.AccelFullScale.allCases.flatMap { a in D.GyroFullScale.allCases.map { (v, a, $0) } }
        }

    @Test(arguments: cases)
    func roundTripIsWithinOneLSBForEveryVariantAndRange(variant: LSM6DSxVariant, accel: D.AccelFullScale, gyro: D.GyroFullScale)
        throws
    {
        let model = LSM6DSxModel(variant: variant)
        let accelRange = accel.rangeG * g, gyroRange = Angle.radians(fromDegrees: gyro.rangeDegPerS)
        var (_, driver) = try Self.running(
            model,
            SensorConfiguration(
                rateHz: 200, accelerationRangeMps2: accelRange,
                angularRateRangeRadS: gyroRange))
        // Inputs stay within the nominal ranges: the 16-bit outputs reach slightly further (32767 × 0.061 mg = 1.999 g).
        for (a, w, t) in [
            (Vector3(0.9, -0.5, 0.1), Vector3(-0.95, 0.3, 0.02), 41.7), (Vector3(-0.99, 0, 0.5), Vector3(0.5, -0.5, 0.98), -20.0)
        ] {
            model.accelerationMps2 = a * accelRange
            model.angularVelocityRadS = w * gyroRange
            model.temperatureC = t
            let r = try driver.read(timeS: 0)
            #expect(isClose(r.accelerationMps2, a * accelRange, tolerance: accel.sensitivityMilliGPerLSB / 1000 * g))
            #expect(
                isClose(
                    r.angularVelocityRadS, w * gyroRange,
                    tolerance: Angle.radians(fromDegrees: gyro.sensitivityMilliDegPerSPerLSB / 1000)))
            #expect(abs(r.temperatureC! - t) <= 1 / variant.temperatureLSBPerC)
        }
    }

    // MARK: Power

    @Test func lowPowerRunsTheAccelerometerAloneInItsLowPowerMode() throws {
        let model = LSM6DSxModel(variant: .lsm6dsox)
        var (bus, driver) = try Self.running(model)
        bus.clearLog()
        let actual = try driver.configure(SensorConfiguration(rateHz: 20, powerMode: .lowPower))
        #expect(actual.rateHz == 26)
        #expect(logLines(bus).contains("W 0x6A 0x15 [10]")) // CTRL6_C: XL_HM_MODE
        #expect(logLines(bus).suffix(2) == ["W 0x6A 0x11 [0C]", "W 0x6A 0x10 [28]"]) // gyroscope off; 26 Hz, ±4 g
        #expect(model.gyroscopeRateCode == 0)
        model.accelerationMps2 = Vector3(1, -2, 3)
        let r = try driver.read(timeS: 0)
        #expect(isClose(r.accelerationMps2, Vector3(1, -2, 3), tolerance: 0.122e-3 * g))
        #expect(r.angularVelocityRadS == nil && r.temperatureC != nil)
    }

    @Test func suspendPowersBothSensorsDown() throws {
        let model = LSM6DSxModel(variant: .lsm6ds3)
        var (_, driver) = try Self.running(model)
        let actual = try driver.configure(SensorConfiguration(powerMode: .suspend))
        #expect(actual.rateHz == 0 && model.accelerometerRateCode == 0 && model.gyroscopeRateCode == 0)
    }

    // MARK: FIFO

    @Test(arguments: [LSM6DSxVariant.lsm6ds3, .lsm6dsl])
    func aPatternedFIFOIsReadFromTheStartOfASetInOneBurst(variant: LSM6DSxVariant) throws {
        let model = LSM6DSxModel(variant: variant)
        var (bus, driver) = try Self.running(model, SensorConfiguration(rateHz: 104, fifo: .stream))
        #expect(driver.fifoCapacitySamples == variant.fifoWords / 6)
        for i in 1...4 { model.accelerationMps2 = Vector3(Double(i), 0, g) }
        // Someone read two words already: the next word is the gyroscope's Z, pattern position 2.
        var twoWords = [UInt8](repeating: 0, count: 4)
        try twoWords.withUnsafeMutableBytes { try bus.read(address: 0x6A, register: 0x3E, into: $0) }
        let waiting = model.fifoWordCount
        bus.clearLog()
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 16)
        defer { samples.deallocate() }
        let drain = try driver.drainFIFO(into: samples, newestTimeS: 1)
        let n = drain.count
        #expect(!drain.overrun)
        #expect(logLines(bus).count == 2) // FIFO_STATUS1…4, then one burst
        #expect(logLines(bus)[1].hasPrefix("R 0x6A 0x3E"))
        #expect(n == (waiting - 4) / 6) // the 4 words up to the next set are dropped
        #expect(isClose(samples[n - 1].accelerationMps2, Vector3(4, 0, g), tolerance: 0.122e-3 * g))
        #expect(isClose(samples[n - 2].accelerationMps2, Vector3(3, 0, g), tolerance: 0.122e-3 * g))
        #expect(samples[n - 1].angularVelocityRadS == .zero)
        #expect(abs(samples[n - 2].timeS - (1 - 1 / 104.0)) < 1e-12)
        #expect(try driver.fifoSampleCount() == 0)
    }

    @Test func aTaggedFIFOPairsGyroscopeAndAccelerometerWords() throws {
        let model = LSM6DSxModel(variant: .lsm6dsox)
        var (bus, driver) = try Self.running(model, SensorConfiguration(rateHz: 52, fifo: .stream))
        for i in 1...3 {
            model.angularVelocityRadS = Vector3(0, 0, Double(i) / 10)
            model.accelerationMps2 = Vector3(0, Double(i), g)
        }
        let pairs = try driver.fifoSampleCount()
        #expect(pairs >= 3)
        bus.clearLog()
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 64)
        defer { samples.deallocate() }
        let drain = try driver.drainFIFO(into: samples, newestTimeS: 5)
        let n = drain.count
        #expect(!drain.overrun)
        #expect(logLines(bus).count == 2 && logLines(bus)[1].hasPrefix("R 0x6A 0x78"))
        #expect(n == pairs)
        #expect(isClose(samples[n - 1].accelerationMps2, Vector3(0, 3, g), tolerance: 0.122e-3 * g))
        #expect(isClose(samples[n - 1].angularVelocityRadS, Vector3(0, 0, 0.3), tolerance: Angle.radians(fromDegrees: 0.07)))
        #expect(samples[n - 1].timeS == 5)
    }

    @Test func onAThirtyTwoByteBusTaggedWordsAreReadWholeFromTheirWindow() throws {
        // The DSOX's word window (FIFO_DATA_OUT_TAG…Z_H) pops a word when its last byte is read: a 32-byte piece would
        // end inside the fifth word, and the next piece would read that word again from its tag.
        let model = LSM6DSxModel(variant: .lsm6dsox)
        var (bus, driver) = try Self.running(model, SensorConfiguration(rateHz: 52, fifo: .stream))
        _ = try drained(&driver, newestTimeS: 0)
        bus.maximumReadBytes = 32
        for i in 1...6 { model.accelerationMps2 = Vector3(0, Double(i), g) }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 1)
        #expect(drain == FIFODrain(count: 6, overrun: false))
        #expect(bus.log.dropFirst().allSatisfy { $0.register == 0x78 } && bus.log.dropFirst().map(\.bytes.count) == [28, 28, 28])
        #expect(
            samples.enumerated().allSatisfy {
                isClose($1.accelerationMps2, Vector3(0, Double($0 + 1), g), tolerance: 0.122e-3 * g)
            })
        #expect(samples.allSatisfy { $0.angularVelocityRadS == .zero })
    }

    @Test func aLargeDrainIsReadInKibibyteBurstsOfWholeSets() throws {
        let model = LSM6DSxModel(variant: .lsm6dsl)
        var (bus, driver) = try Self.running(model, SensorConfiguration(rateHz: 104, fifo: .stream))
        _ = try drained(&driver, newestTimeS: 0)
        for i in 1...100 { model.accelerationMps2 = Vector3(Double(i) / 16, 0, g) }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 1)
        #expect(drain == FIFODrain(count: 100, overrun: false))
        #expect(bus.log.dropFirst().map(\.bytes.count) == [85 * 12, 15 * 12]) // 1020 + 180 bytes, whole sets
        #expect(
            samples.enumerated().allSatisfy {
                isClose($1.accelerationMps2, Vector3(Double($0 + 1) / 16, 0, g), tolerance: 0.122e-3 * g)
            })
    }

    @Test(arguments: [LSM6DSxVariant.lsm6dsl, .lsm6dsox])
    func aFIFOThatOverflowedReportsAnOverrunFromFIFO_STATUS2(variant: LSM6DSxVariant) throws {
        let model = LSM6DSxModel(variant: variant)
        var (_, driver) = try Self.running(model, SensorConfiguration(rateHz: 104, fifo: .stream))
        for i in 0...driver.fifoCapacitySamples { model.accelerationMps2 = Vector3(Double(i % 7), 0, g) }
        let (drain, samples) = try drained(&driver, newestTimeS: 1, capacity: driver.fifoCapacitySamples)
        #expect(drain.overrun && drain.count == driver.fifoCapacitySamples)
        #expect(
            isClose(
                samples.last?.accelerationMps2, Vector3(Double(driver.fifoCapacitySamples % 7), 0, g), tolerance: 0.122e-3 * g))
        model.accelerationMps2 = Vector3(1, 0, g)
        #expect(try drained(&driver, newestTimeS: 2).drain.overrun == false)
    }

    @Test func theFIFOIsRefusedOutsideNormalPower() {
        #expect(
            thrownError {
                try LSM6DSx<SimulatedBus>.registerSettings(
                    for: SensorConfiguration(rateHz: 26, powerMode: .lowPower, fifo: .stream),
                    variant: .lsm6dsl)
            } != nil)
    }

    // MARK: Interrupts

    @Test(arguments: LSM6DSxVariant.allCases)
    func wakeUpFlagsAChangeAboveTheThreshold(variant: LSM6DSxVariant) throws {
        let model = LSM6DSxModel(variant: variant)
        // ±4 g: 1 LSB of WK_THS = 4 g / 64 = 62.5 mg; 0.25 g → 4.
        var (bus, driver) = try Self.running(
            model, SensorConfiguration(rateHz: 26, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.25 * g))
        #expect(driver.configuration?.wakeOnMotionThresholdMps2 == 4 * 4 * g / 64)
        #expect(logLines(bus).contains("W 0x6A 0x5B [04]") && logLines(bus).contains("W 0x6A 0x5E [20]"))
        #expect(
            logLines(bus).contains(
                variant == .lsm6ds3 ? "W 0x6A 0x58 [01]" : (variant == .lsm6dsl ? "W 0x6A 0x58 [81]" : "W 0x6A 0x58 [80]")))
        model.accelerationMps2 = Vector3(0.3 * g, 0, g) // slope 0.15 g: below
        #expect(try driver.motionDetected() == false)
        model.accelerationMps2 = Vector3(-0.3 * g, 0, g) // slope 0.3 g: above
        #expect(try driver.motionDetected() == true)
        #expect(try driver.motionDetected() == false)
    }

    @Test func dataReadyFollowsTheStatusRegister() throws {
        let model = LSM6DSxModel(variant: .lsm6dsl)
        var (_, driver) = try Self.running(model)
        model.accelerationMps2 = Vector3(0, 0, 9)
        #expect(try driver.isDataReady())
        _ = try driver.read(timeS: 0)
        #expect(try driver.isDataReady() == false)
    }

    // MARK: Faults

    @Test func anotherMemberOfTheFamilyIsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(LSM6DSxModel(variant: .lsm6dsox), at: 0x6A)
        var driver = LSM6DSx(bus: bus, variant: .lsm6dsl)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(
                    chip: "lsm6dsl", bus: "sim", address: 0x6A, register: 0x0F,
                    expected: [0x6A], found: 0x6C))
    }

    @Test func anLSM9DS1AtTheSameAddressIsRejectedWithEveryAcceptedValue() {
        let bus = SimulatedBus()
        bus.attach(LSM9DS1Model(), at: 0x6B)
        var driver = LSM6DSx(bus: bus, address: 0x6B)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(
                    chip: "lsm6dsx", bus: "sim", address: 0x6B, register: 0x0F,
                    expected: [0x69, 0x6A, 0x6C], found: 0x68))
    }

    @Test func aResetBitThatNeverSelfClearsDoesNotStopTheProbe() throws {
        let bus = SimulatedBus()
        bus.attach(LSM6DSxModel(variant: .lsm6dsl), at: 0x6A)
        bus.inject(.stuck(address: 0x6A, register: 0x12, value: 0x05))
        var driver = LSM6DSx(bus: bus)
        #expect(try driver.probe().chip == "lsm6dsl")
    }

    @Test func aChipThatLosesItsIdentityAcrossTheResetIsNotReady() {
        let bus = SimulatedBus()
        bus.attach(IdentityLostAfterWrite(LSM6DSxModel(variant: .lsm6ds3), idRegister: 0x0F), at: 0x6A)
        var driver = LSM6DSx(bus: bus)
        #expect(thrownError { try driver.probe() } == .notReady(chip: "lsm6ds3", bus: "sim", address: 0x6A, waitedMs: 50))
    }

    @Test func deviceGoneMidRunGivesNacksThenValuesAgain() throws {
        let model = LSM6DSxModel(variant: .lsm6dsl)
        var (bus, driver) = try Self.running(model)
        bus.setPresent(false, address: 0x6A)
        let error = busError(thrownError { try driver.read(timeS: 0) })
        #expect(error?.kind == .nack && error?.register == 0x20)
        bus.setPresent(true, address: 0x6A)
        model.accelerationMps2 = Vector3(0, g, 0)
        #expect(isClose(try driver.read(timeS: 1).accelerationMps2, Vector3(0, g, 0), tolerance: 0.122e-3 * g))
    }

    @Test func aNackDuringConfigureNamesTheRegister() throws {
        let bus = SimulatedBus()
        bus.attach(LSM6DSxModel(variant: .lsm6dsl), at: 0x6A)
        var driver = LSM6DSx(bus: bus)
        _ = try driver.probe()
        bus.inject(.failTransfer(number: 1, address: 0x6A, kind: .nack))
        #expect(busError(thrownError { try driver.configure(SensorConfiguration()) })?.register == 0x12)
    }
}
