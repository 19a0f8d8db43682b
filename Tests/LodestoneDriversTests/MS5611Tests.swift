import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// TE MS5611-01BA03: the datasheet's worked example, AN520's CRC-4, the pipelined command traffic, round trips
/// through the chip model, and faults.
@Suite struct MS5611Tests {
    typealias D = MS5611Datasheet
    let example = D.Calibration.datasheetExample

    /// A probed and configured driver on a fresh bus with the model at 0x77.
    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 10, oversampling: 16),
        model: MS5611Model = MS5611Model(), delay: @escaping @Sendable (Int) -> Void = { _ in }
    )
        throws -> (SimulatedBus, MS5611Model, MS5611<SimulatedBus>)
    {
        try probedAndConfigured(model, at: 0x77, configuration) { MS5611(bus: $0, delay: delay) }
    }

    // MARK: Known answers

    @Test func compensationGivesTheDatasheetExample() {
        // Datasheet "Pressure and temperature calculation": D1 = 9085466, D2 = 8569150 → dT = 2366,
        // TEMP = 2007 (20.07 °C), P = 100009 (1000.09 mbar).
        let c = D.compensate(d1: 9_085_466, d2: 8_569_150, calibration: example)
        #expect(c.dT == 2366)
        #expect(c.temperatureCentiC == 2007)
        #expect(c.pressurePa == 100_009)
        #expect(c.t2 == 0 && c.off2 == 0 && c.sens2 == 0) // 20.07 °C: no second-order terms
    }

    @Test func crc4MatchesTheAN520TestVector() {
        // AN520's example PROM 0x3132 0x3334 … 0x4344 0x4500 has CRC 0xB.
        let words: [UInt16] = [0x3132, 0x3334, 0x3536, 0x3738, 0x3940, 0x4142, 0x4344, 0x4500]
        #expect(D.crc4 { words[$0] } == 0xB)
        // the CRC's own nibble (and the rest of word 7's low byte) does not take part
        #expect(D.crc4 { $0 == 7 ? 0x45FB : words[$0] } == 0xB)
    }

    @Test func secondOrderCompensationBelow20AndBelowMinus15Degrees() {
        // The datasheet's second-order terms, written out here in floating point from its flow chart.
        for d2: UInt32 in [8_000_000, 7_400_000, 6_600_000] {
            let c = D.compensate(d1: 9_085_466, d2: d2, calibration: example)
            let dT = Double(Int64(d2) - Int64(example.c5) * 256)
            let temp = 2000 + (dT * Double(example.c6) / 8_388_608).rounded(.down)
            #expect(temp < 2000)
            var off2 = 5 * (temp - 2000) * (temp - 2000) / 2
            var sens2 = 5 * (temp - 2000) * (temp - 2000) / 4
            if temp < -1500 {
                off2 += 7 * (temp + 1500) * (temp + 1500)
                sens2 += 11 * (temp + 1500) * (temp + 1500) / 2
            }
            #expect(Double(c.t2) == (dT * dT / 2_147_483_648).rounded(.down))
            #expect(abs(Double(c.off2) - off2) < 1 && abs(Double(c.sens2) - sens2) < 1)
            #expect(Double(c.temperatureCentiC) == temp - Double(c.t2))
        }
        #expect(D.compensate(d1: 9_085_466, d2: 6_600_000, calibration: example).temperatureCentiC < -1500)
    }

    @Test func theDatasheetExamplePROMIsValidAndACorruptedWordIsNot() {
        #expect(example.problem == nil)
        var corrupted = example
        corrupted.c3 ^= 0x0100
        #expect(corrupted.problem?.contains("CRC") == true)
        #expect(D.Calibration(words: (0, 0, 0, 0, 0, 0, 0, 0)).problem == "every PROM word is 0x0000")
        #expect(
            D.Calibration(words: (0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF)).problem
                == "every PROM word is 0xFFFF")
    }

    @Test func compensationNeverTrapsOnExtremeInputs() {
        let extreme = D.Calibration(words: (0xFFFF, 0xFFFF, 0, 0xFFFF, 0xFFFF, 0, 0xFFFF, 0))
        for d in [UInt32(0), 1, 0xFF_FFFF, .max] {
            for e in [UInt32(0), 0xFF_FFFF, .max] {
                _ = D.compensate(d1: d, d2: e, calibration: extreme)
                _ = D.compensate(d1: d, d2: e, calibration: example)
            }
        }
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndTwoReadsProduceExactlyTheseTransactions() throws {
        let model = MS5611Model()
        model.setRawADC(d1: 9_085_466, d2: 8_569_150)
        let delays = DelayRecorder()
        let bus = SimulatedBus()
        bus.attach(model, at: 0x77)
        var driver = MS5611(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "ms5611", idValue: example.storedCRC))
        let actual = try driver.configure(SensorConfiguration(rateHz: 10, oversampling: 16))
        let first = try driver.read(timeS: 0)
        let second = try driver.read(timeS: 0.1)
        #expect(
            logLines(bus) == [
                "W 0x77 0x1E []", // reset
                "R 0x77 0xA0 [00 00]", // PROM word 0
                "R 0x77 0xA2 [9C BF]", // C1 = 40127
                "R 0x77 0xA4 [90 3C]", // C2 = 36924
                "R 0x77 0xA6 [5B 15]", // C3 = 23317
                "R 0x77 0xA8 [5A F2]", // C4 = 23282
                "R 0x77 0xAA [82 B8]", // C5 = 33464
                "R 0x77 0xAC [6E 98]", // C6 = 28312
                "R 0x77 0xAE [00 00]", // serial and CRC
                // first read: nothing pending, so D1 and D2 on the spot, then the next D1 starts
                "W 0x77 0x48 []", "R 0x77 0x00 [8A A2 1A]", // D1 at OSR 4096 = 9085466
                "W 0x77 0x58 []", "R 0x77 0x00 [82 C1 3E]", // D2 at OSR 4096 = 8569150
                "W 0x77 0x48 []",
                // second read 100 ms later: collect D1 without waiting (paired with the D2 before it), D2 for the next
                // pair (10 Hz: every read), next D1
                "R 0x77 0x00 [8A A2 1A]",
                "W 0x77 0x58 []", "R 0x77 0x00 [82 C1 3E]",
                "W 0x77 0x48 []"
            ])
        #expect(delays.delaysUs == [2800, 9040, 9040, 9040])
        #expect(actual == SensorConfiguration(rateHz: 10, powerMode: .normal, oversampling: 16))
        for r in [first, second] {
            #expect(r.pressurePa == 100_009)
            #expect(r.temperatureC == 20.07)
        }
        #expect(second.timeS == 0.1)
    }

    @Test func aPipelinedReadWaitsOnlyForWhatRemainsOfTheConversion() throws {
        let delays = DelayRecorder()
        var (_, _, driver) = try Self.running(SensorConfiguration(rateHz: 100, oversampling: 16), delay: delays.delay)
        _ = try driver.read(timeS: 1.0)
        let before = delays.delaysUs.count
        _ = try driver.read(timeS: 1.002) // 2 ms after D1 started; OSR 4096 needs 9.04 ms (no D2: every 10th read)
        #expect(Array(delays.delaysUs[before...]) == [7040])
        let again = delays.delaysUs.count
        _ = try driver.read(timeS: 0.5) // a clock that went backwards waits the whole conversion
        #expect(Array(delays.delaysUs[again...]) == [9040])
    }

    @Test(arguments: [1, 2, 4, 8, 16])
    func roundTripIsWithinOneADCStepAtEveryOversampling(oversampling: Int) throws {
        var (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 1, oversampling: oversampling))
        bus.isLogging = false
        for temperatureC in [-40.0, -20, 0, 19.9, 25, 85] {
            for pressurePa in [1_000.0, 30_000, 101_325, 120_000] {
                model.temperatureC = temperatureC
                model.pressurePa = pressurePa
                _ = try driver.read(timeS: 0) // collects the conversion started with the old inputs
                let r = try driver.read(timeS: 1)
                #expect(model.lastOversampling?.factor == oversampling)
                // one D1 step is SENS/2^36 Pa ≈ 0.02 Pa; one D2 step C6/2^23 ≈ 0.0034 °C (+ second order)
                #expect(abs(r.pressurePa! - pressurePa) <= 1, "\(pressurePa) Pa at \(temperatureC) °C read \(r.pressurePa!)")
                #expect(abs(r.temperatureC! - temperatureC) <= 0.011, "\(temperatureC) °C read \(r.temperatureC!)")
            }
        }
    }

    // MARK: Configuration

    @Test func theOversamplingIsLoweredUntilAConversionFitsInAPeriod() throws {
        typealias M = MS5611<SimulatedBus>
        let cases: [(Double, Int, D.Oversampling)] = [ // rate, requested factor → OSR
            (50, 16, .osr4096), (120, 16, .osr2048), (300, 16, .osr1024), (600, 16, .osr512), (1600, 16, .osr256),
            (50, 3, .osr1024), (50, 100, .osr4096)
        ]
        for (rate, factor, osr) in cases {
            let s = try M.registerSettings(for: SensorConfiguration(rateHz: rate, oversampling: factor))
            #expect(s.pressureOversampling == osr && s.actual.oversampling == osr.factor, "rate \(rate) Hz, ×\(factor)")
        }
        #expect(
            thrownError { try M.registerSettings(for: SensorConfiguration(rateHz: 2000)) }
                == .unsupportedConfiguration(
                    chip: "ms5611", detail: "rate 2000.0 Hz: at most 1666 Hz (OSR 256 converts in 0.6 ms)"))
        #expect(try M.registerSettings(for: SensorConfiguration(rateHz: 50)).temperatureEveryReads == 5)
        #expect(try M.registerSettings(for: SensorConfiguration(rateHz: 10)).temperatureEveryReads == 1)
    }

    @Test func lowPowerUsesTheLeastOversamplingAndSuspendConvertsOnlyOnDemand() throws {
        typealias M = MS5611<SimulatedBus>
        let low = try M.registerSettings(for: SensorConfiguration(rateHz: 1, powerMode: .lowPower, oversampling: 16))
        #expect(low.pressureOversampling == .osr256 && low.isPipelined)
        var (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 1, powerMode: .suspend, oversampling: 1))
        #expect(driver.configuration?.rateHz == 0)
        model.setRawADC(d1: 9_085_466, d2: 8_569_150)
        bus.clearLog()
        _ = try driver.read(timeS: 0)
        // D2 then D1 on the spot, and no conversion left running
        #expect(logLines(bus) == ["W 0x77 0x50 []", "R 0x77 0x00 [82 C1 3E]", "W 0x77 0x40 []", "R 0x77 0x00 [8A A2 1A]"])
    }

    @Test func aFiftyHertzPipelineConvertsTemperatureEveryFifthRead() throws {
        var (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 50, oversampling: 1))
        _ = model
        for k in 0..<10 { _ = try driver.read(timeS: Double(k) / 50) }
        let temperatureConversions = bus.log.filter { $0.direction == .write && $0.register == 0x50 }.count
        #expect(temperatureConversions == 2)
    }

    // MARK: Faults

    @Test func aNackOnTheResetIsABusErrorNamingTheCommand() {
        let bus = SimulatedBus()
        bus.attach(MS5611Model(), at: 0x76)
        bus.inject(.failTransfer(number: 1, address: 0x76, kind: .nack))
        var driver = MS5611(bus: bus, address: 0x76)
        #expect(
            thrownError { try driver.probe() }
                == .bus(
                    BusError(
                        kind: .nack, bus: "sim", address: 0x76, register: 0x1E, errno: BusError.Errno.EREMOTEIO,
                        operation: "write 0 bytes")))
    }

    @Test func aPROMThatFailsItsCRCIsInvalidTrimAndAStuckPROMByteIsCaught() throws {
        var bad = D.Calibration.datasheetExample
        bad.c6 &+= 1
        let bus = SimulatedBus()
        bus.attach(MS5611Model(calibration: bad), at: 0x77)
        var driver = MS5611(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .invalidTrim(
                    chip: "ms5611", bus: "sim", address: 0x77,
                    detail: "PROM CRC-4 is \(bad.computedCRC), word 7 says \(bad.storedCRC)"))
        let stuck = SimulatedBus()
        stuck.attach(MS5611Model(), at: 0x77)
        stuck.inject(.stuck(address: 0x77, register: 0xA4, value: 0x00)) // C2's high byte reads 0
        var other = MS5611(bus: stuck)
        guard case .invalidTrim? = thrownError({ try other.probe() }) else { Issue.record("expected invalidTrim"); return }
    }

    @Test func anotherChipAtTheAddressIsNotAnMS5611() {
        // A BMP280 answers PROM reads with its registers 0xA0…0xAF: no valid CRC with non-zero coefficients.
        let bus = SimulatedBus()
        bus.attach(BMP280Model(), at: 0x77)
        var driver = MS5611(bus: bus)
        guard case .invalidTrim? = thrownError({ try driver.probe() }) else { Issue.record("expected invalidTrim"); return }
        #expect(D.validPROM(bus: bus, address: 0x77) == nil)
        #expect(bus.log.allSatisfy { $0.direction == .read || $0.register == 0x1E })
    }

    @Test func anADCReadBeforeTheConversionFinishedIsAnInvalidReadingAndTheNextReadRecovers() throws {
        let model = MS5611Model()
        var (_, _, driver) = try Self.running(model: model)
        _ = try driver.read(timeS: 0) // leaves a D1 conversion running
        model.conversionsFinishInstantly = false
        model.setRawADC(d1: 9_085_466, d2: 8_569_150)
        // The model's running conversion finished instantly at the last command; start a slow one by hand.
        model.write(register: 0x48, bytes: UnsafeRawBufferPointer(start: nil, count: 0))
        let error = thrownError { try driver.read(timeS: 0.1) }
        guard case .invalidReading(_, _, _, let detail)? = error else {
            Issue.record("expected invalidReading, got \(String(describing: error))"); return
        }
        #expect(detail.contains("ADC read 0"))
        model.finishConversion()
        model.conversionsFinishInstantly = true
        let r = try driver.read(timeS: 0.2)
        #expect(r.pressurePa == 100_009 && r.temperatureC == 20.07)
    }

    @Test func aChipThatVanishesGivesNacksAndAfterAReprobeValuesAgain() throws {
        var (bus, model, driver) = try Self.running()
        bus.setPresent(false, address: 0x77)
        #expect(busError(thrownError { try driver.read(timeS: 0) })?.kind == .nack)
        bus.setPresent(true, address: 0x77)
        model.setRawADC(d1: 9_085_466, d2: 8_569_150)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 10))
        #expect(try driver.read(timeS: 1).pressurePa == 100_009)
    }

    @Test func readBeforeProbeIsAnError() {
        var driver = MS5611(bus: SimulatedBus())
        #expect(
            thrownError { try driver.read(timeS: 0) }
                == .unsupportedConfiguration(chip: "ms5611", detail: "probe() must succeed before configure() or read()"))
    }
}
