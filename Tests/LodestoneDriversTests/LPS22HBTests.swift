import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// ST LPS22HB (DocID027083): sensitivities, bus traffic, the FIFO, data-ready, round trips through the chip model,
/// and faults.
@Suite struct LPS22HBTests {
    typealias D = LPS22HBDatasheet

    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 25),
        model: LPS22HBModel = LPS22HBModel()
    ) throws -> (SimulatedBus, LPS22HBModel, LPS22HB<SimulatedBus>) {
        try probedAndConfigured(model, at: 0x5D, configuration) { LPS22HB(bus: $0) }
    }

    /// `count` pressures 100 Pa apart from `from`.
    static func ramp(from base: Double, count: Int) -> [Double?] {
        (0..<count).map { (k: Int) -> Double? in base + Double(k) * 100 }
    }

    // MARK: Known answers (table 3: 4096 LSB/hPa, 100 LSB/°C)

    @Test func conversionsFollowTheSensitivitiesOfTable3() {
        #expect(D.pressurePa(raw: 4_161_536) == 101_600) // 0x3F8000 = 1016 hPa (the kernel-VM preset)
        #expect(D.pressurePa(raw: 4096) == 100) // 1 hPa
        #expect(D.temperatureC(raw: 2500) == 25)
        #expect(D.temperatureC(raw: -1050) == -10.5)
        let bytes: [UInt8] = [0x00, 0x80, 0x3F, 0xC4, 0x09] // PRESS_OUT_XL … TEMP_OUT_H as the preset holds them
        bytes.withUnsafeBytes {
            #expect(Bytes.leS24($0, 0) == 4_161_536 && Bytes.leS16($0, 3) == 2500)
        }
        [UInt8]([0xFF, 0xFF, 0xFF]).withUnsafeBytes { #expect(Bytes.leS24($0, 0) == -1) }
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = LPS22HBModel()
        bus.attach(model, at: 0x5C)
        let delays = DelayRecorder()
        var driver = LPS22HB(bus: bus, address: 0x5C, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "lps22hb", idValue: 0xB1))
        let actual = try driver.configure(SensorConfiguration(rateHz: 20))
        model.pressurePa = 101_600
        model.temperatureC = 25
        let r = try driver.read(timeS: 4)
        #expect(
            logLines(bus) == [
                "R 0x5C 0x0F [B1]", // WHO_AM_I
                "W 0x5C 0x11 [14]", // CTRL_REG2: SWRESET (IF_ADD_INC kept)
                "R 0x5C 0x0F [B1]", // WHO_AM_I again after the reset time
                "W 0x5C 0x10 [02]", // CTRL_REG1: power-down, BDU
                "W 0x5C 0x1A [00]", // RES_CONF: normal current
                "W 0x5C 0x11 [10]", // CTRL_REG2: IF_ADD_INC, FIFO off
                "W 0x5C 0x14 [00]", // FIFO_CTRL: bypass
                "W 0x5C 0x10 [32]", // CTRL_REG1: ODR 25 Hz, BDU
                "R 0x5C 0x28 [00 80 3F C4 09]" // PRESS_OUT_XL … TEMP_OUT_H
            ])
        #expect(delays.delaysUs == [4500])
        #expect(actual == SensorConfiguration(rateHz: 25, powerMode: .normal, oversampling: 1))
        #expect(r == SensorReading(timeS: 4, pressurePa: 101_600, temperatureC: 25))
    }

    @Test func roundTripIsWithinOneLSB() throws {
        var (bus, model, driver) = try Self.running()
        bus.isLogging = false
        for (p, t) in [(26_000.0, -40.0), (101_325, 21.37), (126_000, 85)] {
            model.pressurePa = p
            model.temperatureC = t
            let r = try driver.read(timeS: 0)
            #expect(abs(r.pressurePa! - p) <= 100 / 4096.0 / 2 + 1e-9)
            #expect(abs(r.temperatureC! - t) <= 0.005 + 1e-9)
        }
    }

    @Test func rateTableLowCurrentAndPowerDown() throws {
        typealias L = LPS22HB<SimulatedBus>
        let rates: [(Double, UInt8, Double)] = [(0.5, 0x12, 1), (1, 0x12, 1), (5, 0x22, 10), (30, 0x42, 50), (75, 0x52, 75)]
        for (asked, ctrlReg1, rate) in rates {
            let s = try L.registerSettings(for: SensorConfiguration(rateHz: asked))
            #expect(s.ctrlReg1 == ctrlReg1 && s.actual.rateHz == rate, "\(asked) Hz")
        }
        #expect(try L.registerSettings(for: SensorConfiguration(rateHz: 1, powerMode: .lowPower)).resConf == 0x01)
        let off = try L.registerSettings(for: SensorConfiguration(powerMode: .suspend))
        #expect(off.ctrlReg1 == 0x02 && off.actual.rateHz == 0)
        #expect(
            thrownError { try L.registerSettings(for: SensorConfiguration(rateHz: 100)) }
                == .unsupportedConfiguration(chip: "lps22hb", detail: "rate 100.0 Hz: at most 75 Hz"))
    }

    // MARK: Data-ready and the FIFO

    @Test func dataReadyIsClearedByReadingThePressure() throws {
        var (_, model, driver) = try Self.running()
        try expectDataReadyFollowsMeasurementsAndReads(&driver) { model.pressurePa = 99_000 }
    }

    /// A running LPS22HB with its FIFO on (`rateHz`) and emptied of the slot that starting to measure made.
    static func runningWithAnEmptyFIFO(rateHz: Double = 25) throws -> (SimulatedBus, LPS22HBModel, LPS22HB<SimulatedBus>) {
        var (bus, model, driver) = try running(SensorConfiguration(rateHz: rateHz, fifo: .stream))
        #expect(try drained(&driver, newestTimeS: 0).samples.map(\.pressurePa) == [101_325])
        return (bus, model, driver)
    }

    @Test func theFIFOIsSwitchedOnByTheConfigurationThroughBypass() throws {
        let (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 25, fifo: .stream))
        #expect(driver.configuration?.fifo == .stream && driver.fifoCapacitySamples == 32 && model.isFIFOActive)
        // Power-down, RES_CONF, CTRL_REG2 with FIFO_EN, FIFO_CTRL bypass (empties it) then stream, then the rate.
        #expect(
            Array(logLines(bus).suffix(6)) == [
                "W 0x5D 0x10 [02]", "W 0x5D 0x1A [00]", "W 0x5D 0x11 [50]",
                "W 0x5D 0x14 [00]", "W 0x5D 0x14 [40]", "W 0x5D 0x10 [32]"
            ])
    }

    @Test func drainingTheFIFOGivesEverySlotInOneBurst() throws {
        var (bus, model, driver) = try Self.runningWithAnEmptyFIFO(rateHz: 10)
        for k in 0..<12 { model.pressurePa = 100_000 + Double(k) * 100 }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 5, capacity: 32)
        #expect(drain == FIFODrain(count: 12, overrun: false))
        #expect(logLines(bus).count == 2 && bus.log[1].register == 0x28 && bus.log[1].bytes.count == 60)
        #expect(samples.map(\.pressurePa) == Self.ramp(from: 100_000, count: 12))
        #expect(samples.first?.timeS == 5 - 1.1 && samples.last?.timeS == 5)
        #expect(try drained(&driver, newestTimeS: 6).drain.count == 0)
    }

    @Test func aShortBufferTakesTheOldestSlotsStampedBehindTheNewest() throws {
        var (_, model, driver) = try Self.runningWithAnEmptyFIFO(rateHz: 10)
        for k in 0..<10 { model.pressurePa = 100_000 + Double(k) * 100 }
        let first = try drained(&driver, newestTimeS: 5, capacity: 4)
        #expect(first.drain == FIFODrain(count: 4, overrun: false))
        #expect(first.samples.map(\.pressurePa) == Self.ramp(from: 100_000, count: 4))
        let times: [Double] = [9, 8, 7, 6].map { (k: Double) -> Double in 5 - k * 0.1 } // 10 waiting: 9…6 periods back
        #expect(first.samples.map(\.timeS) == times)
        #expect(try driver.fifoSampleCount() == 6)
        let rest = try drained(&driver, newestTimeS: 5)
        #expect(rest.samples.map(\.pressurePa) == Self.ramp(from: 100_400, count: 6) && rest.samples.last?.timeS == 5)
    }

    @Test func aStreamFIFOThatFilledUpReportsAnOverrunAndKeepsTheNewest32() throws {
        var (_, model, driver) = try Self.running(SensorConfiguration(rateHz: 25, fifo: .stream))
        for k in 0..<40 { model.pressurePa = 90_000 + Double(k) * 100 }
        let (drain, samples) = try drained(&driver, newestTimeS: 0)
        #expect(drain == FIFODrain(count: 32, overrun: true))
        #expect(samples.first?.pressurePa == 90_800 && samples.last?.pressurePa == 93_900)
    }

    @Test func onAThirtyTwoByteBusTheFIFOIsReadInWholeSlots() throws {
        var (bus, model, driver) = try Self.runningWithAnEmptyFIFO()
        bus.maximumReadBytes = 32
        for k in 0..<15 { model.pressurePa = 95_000 + Double(k) * 100 }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 0)
        #expect(drain.count == 15)
        #expect(bus.log.filter { $0.register == 0x28 }.map(\.bytes.count) == [30, 30, 15])
        #expect(samples.map(\.pressurePa) == Self.ramp(from: 95_000, count: 15))
    }

    @Test func turningTheFIFOOffReturnsToTheNewestSample() throws {
        var (_, model, driver) = try Self.running(SensorConfiguration(rateHz: 25, fifo: .stream))
        model.pressurePa = 90_000
        model.pressurePa = 95_000
        try driver.configure(SensorConfiguration(rateHz: 25))
        #expect(try driver.read(timeS: 0).pressurePa == 95_000)
        #expect(model.fifo.isEmpty && !model.isFIFOActive && driver.fifoCapacitySamples == 0)
    }

    // MARK: Faults

    @Test func anLPS25HAtTheAddressIsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(LPS22HBModel(whoAmI: 0xBD), at: 0x5D)
        var driver = LPS22HB(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "lps22hb", bus: "sim", address: 0x5D, register: 0x0F, expected: [0xB1], found: 0xBD))
    }

    @Test func aChipThatLosesItsIdentityAcrossTheResetIsNotReady() {
        let bus = SimulatedBus()
        bus.attach(IdentityLostAfterWrite(LPS22HBModel(), idRegister: 0x0F), at: 0x5D)
        var driver = LPS22HB(bus: bus)
        #expect(thrownError { try driver.probe() } == .notReady(chip: "lps22hb", bus: "sim", address: 0x5D, waitedMs: 4))
    }

    @Test func noMeasurementYetIsAnInvalidReadingAndAStuckByteShows() throws {
        let bus = SimulatedBus()
        bus.attach(LPS22HBModel(), at: 0x5D)
        var driver = LPS22HB(bus: bus)
        _ = try driver.probe()
        guard case .invalidReading? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        try driver.configure(SensorConfiguration())
        bus.inject(.stuck(address: 0x5D, register: 0x2C, value: 0x00))
        #expect(try driver.read(timeS: 0).temperatureC == Double(Int16(0x00C4) & 0x00FF) / 100)
    }

    @Test func aNackMidRunThenValuesAgain() throws {
        var (bus, model, driver) = try Self.running()
        bus.inject(.failTransfer(number: 1, address: 0x5D, kind: .nack))
        let error = busError(thrownError { try driver.read(timeS: 0) })
        #expect(error?.kind == .nack && error?.register == 0x28)
        model.pressurePa = 100_100
        #expect(try driver.read(timeS: 1).pressurePa == 100_100)
    }
}
