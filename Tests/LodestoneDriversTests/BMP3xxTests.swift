import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// Bosch BMP388/BMP390 (BST-BMP388-DS001, BST-BMP390-DS002): calibration and compensation, bus traffic, the FIFO,
/// data-ready, round trips through the chip model, and faults.
@Suite struct BMP3xxTests {
    typealias D = BMP3xxDatasheet
    let calibration = D.Calibration.typical

    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 25, oversampling: 8),
        model: BMP3xxModel = BMP3xxModel(), variant: BMP3Variant = .bmp388
    )
        throws -> (SimulatedBus, BMP3xxModel, BMP3xx<SimulatedBus>)
    {
        try probedAndConfigured(model, at: 0x77, configuration) { BMP3xx(bus: $0, variant: variant) }
    }

    // MARK: Calibration and compensation

    @Test func calibrationDecodesTable22AndQuantizesAsSection9_1() {
        let bytes: [UInt8] = [
            0x24, 0x6D, 0x25, 0x4B, 0xF9, 0x3D, 0xFB, 0x90, 0xF4, 0x23, 0x00, 0x85, 0x63, 0x68, 0x76,
            0x03, 0xFA, 0x7F, 0x0E, 0x05, 0xC4
        ]
        #expect(bytes.withUnsafeBytes { D.Calibration(bytes: $0) } == calibration)
        var encoded = [UInt8](repeating: 0, count: 21)
        encoded.withUnsafeMutableBytes { calibration.encode(into: $0) }
        #expect(encoded == bytes)
        let q = calibration.quantized
        #expect(q.t1 == 27940 * 256) // PAR_T1 = NVM_PAR_T1 / 2^-8
        #expect(q.t2 == 19237 * 0x1p-30) // / 2^30
        #expect(q.p1 == (-1219 - 16384) * 0x1p-20) // (NVM_PAR_P1 − 2^14) / 2^20
        #expect(q.p5 == 25477 * 8) // / 2^-3
        #expect(q.p11 == -60 * 0x1p-65) // / 2^65
    }

    @Test func compensationMatchesAnIndependentEvaluationOfSections9_2And9_3() {
        // Evaluated in Python (double precision) from the datasheet's formulas with `Calibration.typical`:
        // uncomp_temp 8 500 000 → 24.093956194501516 °C; uncomp_press 6 500 000 at that t_lin → 100638.53405388222 Pa.
        let q = calibration.quantized
        let t = D.compensateTemperature(uncompensated: 8_500_000, q)
        #expect(abs(t - 24.093956194501516) < 1e-12)
        #expect(abs(D.compensatePressure(uncompensated: 6_500_000, temperatureC: t, q) - 100_638.53405388222) < 1e-8)
    }

    @Test func measurementTimeAndRateTables() {
        #expect(D.measurementTimeUs(pressure: .x8, temperature: .x1) == 234 + 392 + 16_160 + 163 + 2020)
        #expect(D.rateHz(odrSel: 0) == 200 && D.rateHz(odrSel: 3) == 25 && D.rateHz(odrSel: 17) == 200.0 / 131_072)
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let model = BMP3xxModel()
        let bus = SimulatedBus()
        bus.attach(model, at: 0x76)
        let delays = DelayRecorder()
        var driver = BMP3xx(bus: bus, address: 0x76, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "bmp388", idValue: 0x50))
        let actual = try driver.configure(SensorConfiguration(rateHz: 25, oversampling: 8))
        model.setRawADC(pressure: 6_500_000, temperature: 8_500_000)
        let r = try driver.read(timeS: 3)
        #expect(
            logLines(bus) == [
                "R 0x76 0x00 [50]", // CHIP_ID
                "R 0x76 0x03 [10]", // STATUS: cmd_rdy
                "W 0x76 0x7E [B6]", // soft reset
                "R 0x76 0x00 [50]", // CHIP_ID again after the start-up time
                "R 0x76 0x31 [24 6D 25 4B F9 3D FB 90 F4 23 00 85 63 68 76 03 FA 7F 0E 05 C4]", // NVM_PAR_T1 … P11
                "W 0x76 0x1B [03]", // PWR_CTRL: press_en, temp_en, sleep
                "W 0x76 0x17 [00]", // FIFO off
                "W 0x76 0x1C [03]", // OSR: osr_p ×8, osr_t ×1
                "W 0x76 0x1D [03]", // ODR: 25 Hz
                "W 0x76 0x1F [00]", // CONFIG: IIR off
                "W 0x76 0x1B [33]", // PWR_CTRL: normal mode
                "R 0x76 0x02 [00]", // ERR_REG: no conf_err
                "R 0x76 0x04 [A0 2E 63 20 B3 81]" // DATA_0 … DATA_5: 6 500 000, 8 500 000
            ])
        #expect(delays.delaysUs == [0, 2000])
        #expect(actual == SensorConfiguration(rateHz: 25, powerMode: .normal, oversampling: 8))
        let q = calibration.quantized
        let t = D.compensateTemperature(uncompensated: 8_500_000, q)
        #expect(r.temperatureC == t && r.pressurePa == D.compensatePressure(uncompensated: 6_500_000, temperatureC: t, q))
    }

    @Test(arguments: [1, 2, 4, 8, 16, 32])
    func roundTripIsWithinOneADCStepAtEveryOversampling(oversampling: Int) throws {
        var (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 1, oversampling: oversampling))
        bus.isLogging = false
        let q = calibration.quantized
        for temperatureC in [-40.0, 0, 25, 85] {
            for pressurePa in [30_000.0, 70_000, 101_325, 125_000] {
                model.temperatureC = temperatureC
                model.pressurePa = pressurePa
                let r = try driver.read(timeS: 0)
                let bits = 16 + Int(D.Oversampling.allCases.first { $0.factor >= oversampling }!.rawValue)
                let step = UInt32(1) << UInt32(24 - bits)
                // a pressure step at this resolution: ≈ 2.3 Pa at 16 bits … 0.07 Pa at 21 bits
                let pStep = abs(
                    D.compensatePressure(uncompensated: 6_500_000 + step, temperatureC: temperatureC, q)
                        - D.compensatePressure(uncompensated: 6_500_000, temperatureC: temperatureC, q))
                #expect(abs(r.pressurePa! - pressurePa) <= pStep, "\(pressurePa) Pa at \(temperatureC) °C read \(r.pressurePa!)")
                #expect(abs(r.temperatureC! - temperatureC) <= 0.01)
            }
        }
    }

    @Test func theBMP390IsTheSameDriverWithItsOwnID() throws {
        var (_, model, driver) = try Self.running(model: BMP3xxModel(variant: .bmp390), variant: .bmp390)
        model.pressurePa = 90_000
        #expect(driver.variant == .bmp390)
        #expect(abs(try driver.read(timeS: 0).pressurePa! - 90_000) < 1)
    }

    // MARK: Configuration

    @Test func rateAndOversamplingTables() throws {
        typealias B = BMP3xx<SimulatedBus>
        // 25 Hz → odr_sel 3; ×32 needs 234 + 392 + 64 640 + 163 + 4040 µs > 40 ms, ×16 (37.0 ms) fits
        let s = try B.registerSettings(for: SensorConfiguration(rateHz: 25, oversampling: 32))
        #expect(s.odr == 3 && s.osr == 0b001_100 && s.actual.oversampling == 16)
        // 200 Hz → odr 0 (5 ms): ×1 pressure, ×1 temperature (4.8 ms)
        let fast = try B.registerSettings(for: SensorConfiguration(rateHz: 200, oversampling: 8))
        #expect(fast.odr == 0 && fast.osr == 0 && fast.actual.rateHz == 200)
        // 0.5 Hz → odr_sel 8 (0.78 Hz)
        #expect(try B.registerSettings(for: SensorConfiguration(rateHz: 0.5)).odr == 8)
        #expect(try B.registerSettings(for: SensorConfiguration(rateHz: 10, powerMode: .lowPower, oversampling: 32)).osr == 0)
        let suspend = try B.registerSettings(for: SensorConfiguration(powerMode: .suspend))
        #expect(suspend.pwrCtrl == 0x03 && suspend.actual.rateHz == 0)
        #expect(
            thrownError { try B.registerSettings(for: SensorConfiguration(rateHz: 201)) }
                == .unsupportedConfiguration(chip: "bmp388", detail: "rate 201.0 Hz: at most 200 Hz"))
    }

    @Test func aConfigurationErrorReportedByTheChipIsAnError() throws {
        let bus = SimulatedBus()
        bus.attach(BMP3xxModel(), at: 0x77)
        var driver = BMP3xx(bus: bus)
        _ = try driver.probe()
        bus.inject(.stuck(address: 0x77, register: 0x02, value: 0x04))
        #expect(
            thrownError { try driver.configure(SensorConfiguration()) }
                == .unsupportedConfiguration(chip: "bmp388", detail: "the chip set ERR_REG to 0x04 after OSR 0x00, ODR 0x02"))
    }

    // MARK: Data-ready and the FIFO

    @Test func dataReadyIsSetByAMeasurementAndClearedByReadingTheData() throws {
        var (_, model, driver) = try Self.running()
        try expectDataReadyFollowsMeasurementsAndReads(&driver) { model.tick() }
    }

    static let fifo = SensorConfiguration(rateHz: 25, oversampling: 8, fifo: .stream)

    /// A running BMP388 with its FIFO on and emptied of the measurement that entering normal mode made.
    static func runningWithAnEmptyFIFO(_ configuration: SensorConfiguration = fifo)
        throws -> (SimulatedBus, BMP3xxModel, BMP3xx<SimulatedBus>)
    {
        var (bus, model, driver) = try running(configuration)
        #expect(try driver.fifoSampleCount() == 1)
        #expect(try drained(&driver, newestTimeS: 0).drain == FIFODrain(count: 1, overrun: false))
        return (bus, model, driver)
    }

    @Test func theFIFOIsSwitchedOnByTheConfigurationThroughAFlush() throws {
        let (bus, model, driver) = try Self.running(Self.fifo)
        #expect(driver.configuration?.fifo == .stream && driver.fifoCapacitySamples == 73)
        #expect(model.fifoFlushCount == 1)
        // Sleep with the FIFO off, OSR, ODR, CONFIG, then the FIFO (flush after cmd_rdy, FIFO_CONFIG_2, the full
        // interrupt, FIFO_CONFIG_1 with pressure and temperature in stream mode), then normal mode.
        #expect(
            Array(logLines(bus).filter { $0.hasPrefix("W") }.suffix(10))
                == [
                    "W 0x77 0x1B [03]", "W 0x77 0x17 [00]", "W 0x77 0x1C [03]", "W 0x77 0x1D [03]", "W 0x77 0x1F [00]",
                    "W 0x77 0x7E [B0]", "W 0x77 0x18 [00]", "W 0x77 0x19 [10]", "W 0x77 0x17 [19]", "W 0x77 0x1B [33]"
                ])
        var off = driver
        try off.configure(SensorConfiguration(rateHz: 25, oversampling: 8))
        #expect(off.fifoCapacitySamples == 0 && model.registers[0x17] == 0)
    }

    @Test func drainingTheFIFOGivesEverySampleOldestFirstWithTimesOnePeriodApart() throws {
        var (bus, model, driver) = try Self.runningWithAnEmptyFIFO(
            SensorConfiguration(rateHz: 25, oversampling: 2, fifo: .stream))
        var expected: [SensorReading] = []
        for k in 0..<10 {
            model.pressurePa = 100_000 + Double(k) * 10
            expected.append(try driver.read(timeS: 0))
        }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 10, capacity: driver.fifoCapacitySamples)
        #expect(drain == FIFODrain(count: 10, overrun: false))
        #expect(samples.map(\.pressurePa) == expected.map(\.pressurePa))
        let times: [Double] = (0..<10).map { (k: Int) -> Double in 10 - Double(9 - k) * 0.04 }
        #expect(samples.map(\.timeS) == times)
        #expect(logLines(bus).count == 3 && logLines(bus)[2].hasPrefix("R 0x77 0x14 [94 ")) // INT_STATUS, length, 70 bytes
        #expect(try drained(&driver, newestTimeS: 11).drain == FIFODrain(count: 0, overrun: false))
    }

    @Test func aShortBufferTakesTheOldestWholeFramesAndLeavesTheRest() throws {
        var (bus, model, driver) = try Self.runningWithAnEmptyFIFO()
        for k in 0..<10 { model.pressurePa = 95_000 + Double(k) * 100 }
        bus.clearLog()
        let first = try drained(&driver, newestTimeS: 10, capacity: 4)
        #expect(first.drain == FIFODrain(count: 4, overrun: false))
        #expect(bus.log.last?.bytes.count == 28) // four 7-byte frames, no more
        let times: [Double] = [9, 8, 7, 6].map { (k: Double) -> Double in 10 - k * 0.04 } // 10 waiting: 9…6 periods back
        #expect(first.samples.map(\.timeS) == times)
        #expect(abs(first.samples[3].pressurePa! - 95_300) < 0.6)
        let rest = try drained(&driver, newestTimeS: 10)
        #expect(rest.drain == FIFODrain(count: 6, overrun: false))
        #expect(abs(rest.samples[0].pressurePa! - 95_400) < 0.6 && rest.samples.last?.timeS == 10)
    }

    @Test func aFullFIFOReportsAnOverrunAndKeepsTheNewestFrames() throws {
        var (_, model, driver) = try Self.running(Self.fifo)
        for k in 0..<80 { model.pressurePa = 90_000 + Double(k) }
        let (drain, samples) = try drained(&driver, newestTimeS: 0)
        #expect(drain.overrun && drain.count == 73)
        #expect(abs(samples.last!.pressurePa! - 90_079) < 0.6) // ×8: 19-bit, ≈ 0.5 Pa steps
    }

    @Test func onAThirtyTwoByteBusTheFIFOIsReadInPiecesAtItsOwnRegister() throws {
        var (bus, model, driver) = try Self.runningWithAnEmptyFIFO()
        bus.maximumReadBytes = 32
        for k in 0..<10 { model.pressurePa = 95_000 + Double(k) * 100 }
        bus.clearLog()
        let (drain, samples) = try drained(&driver, newestTimeS: 0)
        #expect(drain.count == 10)
        #expect(bus.log.filter { $0.register == 0x14 }.map(\.bytes.count) == [32, 32, 6])
        #expect(abs(samples[9].pressurePa! - 95_900) < 1)
    }

    // MARK: Faults

    @Test func aBMP390WhereABMP388IsExpectedIsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(BMP3xxModel(variant: .bmp390), at: 0x77)
        var driver = BMP3xx(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "bmp388", bus: "sim", address: 0x77, register: 0x00, expected: [0x50], found: 0x60))
    }

    @Test func aChipThatNeverSetsCmdRdyIsNotReady() {
        let bus = SimulatedBus()
        bus.attach(BMP3xxModel(), at: 0x77)
        bus.inject(.stuck(address: 0x77, register: 0x03, value: 0x00))
        var driver = BMP3xx(bus: bus)
        #expect(thrownError { try driver.probe() } == .notReady(chip: "bmp388", bus: "sim", address: 0x77, waitedMs: 4))
    }

    @Test func noMeasurementYetIsAnInvalidReadingAndAVanishedChipComesBack() throws {
        let bus = SimulatedBus()
        bus.attach(BMP3xxModel(), at: 0x77)
        var driver = BMP3xx(bus: bus)
        _ = try driver.probe()
        guard case .invalidReading? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        try driver.configure(SensorConfiguration())
        bus.setPresent(false, address: 0x77)
        #expect(busError(thrownError { try driver.read(timeS: 0) })?.kind == .nack)
        bus.setPresent(true, address: 0x77)
        #expect(abs(try driver.read(timeS: 1).pressurePa! - 101_325) < 3) // ×1: 16-bit, ≈ 2.3 Pa steps
    }

    @Test func blankNVMIsInvalidTrim() {
        let bus = SimulatedBus()
        bus.attach(
            BMP3xxModel(
                calibration: D.Calibration(
                    parT1: 0, parT2: 0, parT3: 0, parP1: 0, parP2: 0, parP3: 0, parP4: 0,
                    parP5: 0, parP6: 0, parP7: 0, parP8: 0, parP9: 0, parP10: 0, parP11: 0)), at: 0x77)
        var driver = BMP3xx(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .invalidTrim(chip: "bmp388", bus: "sim", address: 0x77, detail: "all calibration bytes are 0x00"))
    }
}
