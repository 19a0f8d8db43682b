import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// Analog Devices ADXL345 (data sheet rev. G): full-resolution scale, rate codes, bus traffic, round trips, FIFO,
/// activity, and faults.
@Suite struct ADXL345Tests {
    typealias D = ADXL345Datasheet
    let g = PhysicalConstants.standardGravityMps2

    static func running(_ model: ADXL345Model, _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 100))
        throws -> (SimulatedBus, ADXL345<SimulatedBus>)
    {
        let (bus, _, driver) = try probedAndConfigured(model, at: 0x53, configuration) { ADXL345(bus: $0) }
        return (bus, driver)
    }

    /// Table 1: 256 LSB/g (3.9 mg/LSB) at full resolution; table 7: rate = 3200 Hz / 2^(15 − code).
    @Test func scaleAndRatesFollowTheDataSheetTables() {
        #expect(D.accelerationMps2(raw: 256) == g)
        #expect(D.accelerationMps2(raw: -512) == -2 * g)
        #expect(
            (UInt8(0)...15).map { D.rateHz(code: $0) } == [
                0.09765625, 0.1953125, 0.390625, 0.78125, 1.5625, 3.125, 6.25, 12.5,
                25, 50, 100, 200, 400, 800, 1600, 3200
            ])
    }

    @Test func configurationPicksRateRangeAndLowPower() throws {
        typealias A = ADXL345<SimulatedBus>
        let s = try A.registerSettings(for: SensorConfiguration(rateHz: 100))
        #expect(s.bwRate == 0x0A && s.dataFormat == 0x09 && s.powerCtl == 0x08 && s.intEnable == 0x80 && s.actual.rateHz == 100)
        // LOW_POWER, 50 Hz
        #expect(try A.registerSettings(for: SensorConfiguration(rateHz: 30, powerMode: .lowPower)).bwRate == 0x19)
        // 1.56 Hz: normal mode
        #expect(try A.registerSettings(for: SensorConfiguration(rateHz: 1, powerMode: .lowPower)).bwRate == 0x04)
        #expect(try A.registerSettings(for: SensorConfiguration(accelerationRangeMps2: 100)).fullScale == .g16)
        #expect(
            thrownError { try A.registerSettings(for: SensorConfiguration(rateHz: 4000)) }
                == .unsupportedConfiguration(chip: "adxl345", detail: "rate 4000.0 Hz: at most 3200 Hz"))
    }

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = ADXL345Model()
        model.accelerationMps2 = Vector3(g, -g / 2, 0)
        bus.attach(model, at: 0x1D)
        var driver = ADXL345(bus: bus, address: 0x1D)
        #expect(try driver.probe() == ChipIdentity(chip: "adxl345", idValue: 0xE5))
        _ = try driver.configure(SensorConfiguration(rateHz: 100))
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x1D 0x00 [E5]", // DEVID
                "W 0x1D 0x2D [00]", // standby
                "W 0x1D 0x2D [00]",
                "W 0x1D 0x31 [09]", // DATA_FORMAT: FULL_RES, ±4 g
                "W 0x1D 0x2C [0A]", // BW_RATE: 100 Hz
                "W 0x1D 0x38 [00]", // FIFO bypass
                "W 0x1D 0x24 [00]", "W 0x1D 0x27 [00]",
                "W 0x1D 0x2F [00]", // everything on INT1
                "W 0x1D 0x2E [80]", // DATA_READY
                "W 0x1D 0x2D [08]", // Measure
                "R 0x1D 0x32 [00 01 80 FF 00 00]"
            ])
        #expect(r.accelerationMps2 == Vector3(g, -g / 2, 0))
        #expect(r.temperatureC == nil && r.angularVelocityRadS == nil)
    }

    @Test(arguments: D.FullScale.allCases)
    func roundTripIsWithinOneLSBAndSaturatesAtTheRange(fullScale: D.FullScale) throws {
        let model = ADXL345Model()
        let range = fullScale.rangeG * g
        var (_, driver) = try Self.running(model, SensorConfiguration(rateHz: 100, accelerationRangeMps2: range))
        for a in [Vector3(0.9, -0.5, 0.1), Vector3(-0.99, 0.3, 0.6)] {
            model.accelerationMps2 = a * range
            #expect(isClose(try driver.read(timeS: 0).accelerationMps2, a * range, tolerance: g / 256))
        }
        // Full resolution keeps 256 LSB/g and widens the output: 10 bits at ±2 g … 13 bits at ±16 g.
        model.accelerationMps2 = Vector3(2 * range, -2 * range, 0)
        let saturated = try driver.read(timeS: 0).accelerationMps2!
        #expect(saturated.x == Double((512 << Int(fullScale.rawValue)) - 1) / 256 * g)
        #expect(saturated.y == -Double(512 << Int(fullScale.rawValue)) / 256 * g)
    }

    @Test func theFIFOIsDrainedOneEntryPerReadOldestFirst() throws {
        let model = ADXL345Model()
        var (bus, driver) = try Self.running(model, SensorConfiguration(rateHz: 100, fifo: .stream))
        #expect(driver.fifoCapacitySamples == 32)
        for i in 1...5 { model.accelerationMps2 = Vector3(Double(i), 0, 0) }
        let waiting = try driver.fifoSampleCount()
        bus.clearLog()
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 40)
        defer { samples.deallocate() }
        let drain = try driver.drainFIFO(into: samples, newestTimeS: 2)
        let n = drain.count
        #expect(!drain.overrun)
        #expect(n == waiting && n >= 5)
        #expect(logLines(bus).count == 1 + n && logLines(bus).dropFirst().allSatisfy { $0.hasPrefix("R 0x53 0x32") })
        #expect(isClose(samples[n - 1].accelerationMps2, Vector3(5, 0, 0), tolerance: g / 256))
        #expect(isClose(samples[n - 5].accelerationMps2, Vector3(1, 0, 0), tolerance: g / 256))
        #expect(samples[n - 2].timeS == 1.99)
        #expect(model.fifoEntryCount == 0)
    }

    @Test func aFullFIFOIsReportedAsAnOverrunAndKeepsTheNewest32() throws {
        let model = ADXL345Model()
        var (_, driver) = try Self.running(model, SensorConfiguration(rateHz: 100, fifo: .stream))
        for i in 1...40 { model.accelerationMps2 = Vector3(Double(i) / 8, 0, 0) }
        let (drain, samples) = try drained(&driver, newestTimeS: 1)
        #expect(drain == FIFODrain(count: 32, overrun: true))
        #expect(isClose(samples[0].accelerationMps2, Vector3(9.0 / 8, 0, 0), tolerance: g / 256))
        #expect(isClose(samples[31].accelerationMps2, Vector3(40.0 / 8, 0, 0), tolerance: g / 256) && samples[31].timeS == 1)
        #expect(try drained(&driver, newestTimeS: 2).drain == FIFODrain(count: 0, overrun: false))
    }

    @Test func activityAboveTheThresholdWakesAndIsNotLostToADataReadyPoll() throws {
        let model = ADXL345Model()
        var (bus, driver) = try Self.running(
            model, SensorConfiguration(rateHz: 12.5, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.25 * g))
        #expect(driver.configuration?.wakeOnMotionThresholdMps2 == 4 * 0.0625 * g)
        #expect(
            logLines(bus).contains("W 0x53 0x24 [04]") && logLines(bus).contains("W 0x53 0x27 [F0]")
                && logLines(bus).contains("W 0x53 0x2E [90]"))
        model.accelerationMps2 = Vector3(0.1 * g, 0, g)
        #expect(try driver.motionDetected() == false)
        model.accelerationMps2 = Vector3(0.5 * g, 0, g)
        #expect(try driver.isDataReady()) // reads INT_SOURCE, which clears Activity in the chip…
        #expect(try driver.motionDetected() == true) // …but the driver kept it
        #expect(try driver.motionDetected() == false)
    }

    @Test func faultsAreTypedAndTheChipComesBack() throws {
        let bus = SimulatedBus()
        let impostor = ADXL345Model()
        impostor.devid = 0xE6
        bus.attach(impostor, at: 0x53)
        var wrong = ADXL345(bus: bus)
        #expect(
            thrownError { try wrong.probe() }
                == .wrongChipID(
                    chip: "adxl345", bus: "sim", address: 0x53, register: 0x00,
                    expected: [0xE5], found: 0xE6))
        let model = ADXL345Model()
        var (other, driver) = try Self.running(model)
        other.setPresent(false, address: 0x53)
        #expect(busError(thrownError { try driver.read(timeS: 0) })?.kind == .nack)
        other.setPresent(true, address: 0x53)
        #expect(try driver.read(timeS: 1).accelerationMps2 != nil)
        other.inject(.stuck(address: 0x53, register: 0x33, value: 0x7F)) // DATAX1 stuck high
        #expect(try driver.read(timeS: 2).accelerationMps2!.x > 100)
    }
}
