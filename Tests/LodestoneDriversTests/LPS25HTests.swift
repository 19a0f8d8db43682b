import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// ST LPS25H (DocID023722): sensitivities, bus traffic, averaging and rates, the pressure FIFO, data-ready, round
/// trips through the chip model, and faults.
@Suite struct LPS25HTests {
    typealias D = LPS25HDatasheet

    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 25),
        model: LPS25HModel = LPS25HModel()
    ) throws -> (SimulatedBus, LPS25HModel, LPS25H<SimulatedBus>) {
        try probedAndConfigured(model, at: 0x5C, configuration) { LPS25H(bus: $0) }
    }

    // MARK: Known answers (table 3: 4096 LSB/hPa; section 8.14: T = 42.5 + TEMP_OUT / 480)

    @Test func conversionsFollowTheDatasheet() {
        #expect(D.pressurePa(raw: 0x3F_8000) == 101_600)
        #expect(D.temperatureC(raw: 0) == 42.5)
        #expect(D.temperatureC(raw: -8400) == 25) // 42.5 − 8400/480
        #expect(D.temperatureC(raw: 480) == 43.5)
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = LPS25HModel()
        bus.attach(model, at: 0x5C)
        let delays = DelayRecorder()
        var driver = LPS25H(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "lps25h", idValue: 0xBD))
        let actual = try driver.configure(SensorConfiguration(rateHz: 10, oversampling: 4))
        model.pressurePa = 101_600
        model.temperatureC = 25
        let r = try driver.read(timeS: 7)
        #expect(
            logLines(bus) == [
                "R 0x5C 0x0F [BD]", // WHO_AM_I
                "W 0x5C 0x21 [84]", // CTRL_REG2: BOOT, SWRESET
                "R 0x5C 0x0F [BD]",
                "W 0x5C 0x20 [34]", // CTRL_REG1: power-down, ODR 12.5 Hz, BDU
                "W 0x5C 0x10 [05]", // RES_CONF: AVGT 16, AVGP 32
                "W 0x5C 0x21 [00]", // CTRL_REG2: FIFO off
                "W 0x5C 0x2E [00]", // FIFO_CTRL: bypass
                "W 0x5C 0x20 [B4]", // CTRL_REG1: active
                "R 0x5C 0xA8 [00 80 3F 30 DF]" // PRESS_OUT_XL … TEMP_OUT_H, auto-increment bit set
            ])
        #expect(delays.delaysUs == [4000])
        #expect(actual == SensorConfiguration(rateHz: 12.5, powerMode: .normal, oversampling: 4))
        #expect(r == SensorReading(timeS: 7, pressurePa: 101_600, temperatureC: 25))
    }

    @Test func roundTripIsWithinOneLSB() throws {
        var (bus, model, driver) = try Self.running()
        bus.isLogging = false
        for (p, t) in [(26_000.0, -20.0), (101_325, 21.37), (126_000, 105)] { // 16 bits reach down to −25.77 °C
            model.pressurePa = p
            model.temperatureC = t
            let r = try driver.read(timeS: 0)
            #expect(abs(r.pressurePa! - p) <= 100 / 4096.0 / 2 + 1e-9)
            #expect(abs(r.temperatureC! - t) <= 1 / 960.0 + 1e-9)
        }
    }

    @Test func averagingRateAndPowerTables() throws {
        typealias L = LPS25H<SimulatedBus>
        let cases: [(Double, Int, UInt8, UInt8, Int)] = [ // rate, oversampling → CTRL_REG1, RES_CONF, reported oversampling
            (1, 1, 0x94, 0x00, 1), (5, 4, 0xA4, 0x05, 4), (12, 16, 0xB4, 0x06, 16), (10, 64, 0xB4, 0x07, 64),
            (25, 64, 0xC4, 0x06, 16)
        ]
        for (rate, factor, ctrlReg1, resConf, reported) in cases {
            let s = try L.registerSettings(for: SensorConfiguration(rateHz: rate, oversampling: factor))
            #expect(s.ctrlReg1 == ctrlReg1 && s.resConf == resConf && s.actual.oversampling == reported, "\(rate) Hz ×\(factor)")
        }
        #expect(
            try L.registerSettings(for: SensorConfiguration(rateHz: 1, powerMode: .lowPower, oversampling: 16)).resConf == 0x00)
        let off = try L.registerSettings(for: SensorConfiguration(rateHz: 1, powerMode: .suspend))
        #expect(off.ctrlReg1 & 0x80 == 0 && off.actual.rateHz == 0)
        #expect(
            thrownError { try L.registerSettings(for: SensorConfiguration(rateHz: 30)) }
                == .unsupportedConfiguration(chip: "lps25h", detail: "rate 30.0 Hz: at most 25 Hz"))
    }

    // MARK: Data-ready and the FIFO

    @Test func dataReadyIsClearedByReadingThePressure() throws {
        var (_, model, driver) = try Self.running()
        try expectDataReadyFollowsMeasurementsAndReads(&driver) { model.pressurePa = 99_000 }
    }

    @Test func drainingTheFIFOReadsThreeBytesPerSampleAndTheTemperatureOnce() throws {
        var (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 25, fifo: .stream))
        #expect(
            Array(logLines(bus).suffix(4)) == ["W 0x5C 0x21 [40]", "W 0x5C 0x2E [00]", "W 0x5C 0x2E [40]", "W 0x5C 0x20 [C4]"])
        model.temperatureC = 30
        #expect(try drained(&driver, newestTimeS: 0).drain.count == 2) // measured on starting and on the new temperature
        for k in 0..<9 { model.pressurePa = 100_000 + Double(k) * 100 }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 2)
        #expect(drain == FIFODrain(count: 9, overrun: false))
        #expect(
            logLines(bus).count == 3 && bus.log[1].register == 0xAB && bus.log[2].register == 0xA8 && bus.log[2].bytes.count == 27
        )
        let expected: [Double?] = (0..<9).map { (k: Int) -> Double? in 100_000 + Double(k) * 100 }
        #expect(samples.map(\.pressurePa) == expected)
        #expect(samples.allSatisfy { $0.temperatureC == 30 })
        #expect(samples.first?.timeS == 2 - 8 * 0.04)
        #expect(try drained(&driver, newestTimeS: 3).drain.count == 0)
    }

    @Test func aFullStreamFIFOIsReportedAsAnOverrun() throws {
        var (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 25, fifo: .stream))
        bus.maximumReadBytes = 32
        for k in 0..<40 { model.pressurePa = 90_000 + Double(k) * 100 }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 0)
        #expect(drain == FIFODrain(count: 32, overrun: true))
        #expect(bus.log.filter { $0.register == 0xA8 }.map(\.bytes.count) == [30, 30, 30, 6])
        #expect(samples.first?.pressurePa == 90_800 && samples.last?.pressurePa == 93_900)
    }

    // MARK: Faults

    @Test func anLPS22HBAtTheAddressIsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(LPS22HBModel(), at: 0x5C)
        var driver = LPS25H(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "lps25h", bus: "sim", address: 0x5C, register: 0x0F, expected: [0xBD], found: 0xB1))
    }

    @Test func noMeasurementYetIsAnInvalidReadingAndAVanishedChipComesBack() throws {
        let bus = SimulatedBus()
        bus.attach(LPS25HModel(), at: 0x5D)
        var driver = LPS25H(bus: bus, address: 0x5D)
        _ = try driver.probe()
        guard case .invalidReading? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        try driver.configure(SensorConfiguration(rateHz: 25))
        bus.setPresent(false, address: 0x5D)
        #expect(busError(thrownError { try driver.read(timeS: 0) })?.kind == .nack)
        bus.setPresent(true, address: 0x5D)
        #expect(try driver.read(timeS: 1).pressurePa == Double((101_325.0 / 100 * 4096).rounded()) / 4096 * 100)
    }

    @Test func aStuckTemperatureByteShowsInTheBurst() throws {
        var (bus, model, driver) = try Self.running()
        model.temperatureC = 42.5
        bus.inject(.stuck(address: 0x5C, register: 0x2C, value: 0x01))
        #expect(try driver.read(timeS: 0).temperatureC == 42.5 + 256.0 / 480)
    }
}
