import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// Bosch BMP280 (BST-BMP280-DS001): compensation known answers, the driver's bus traffic, round trips through
/// the chip model, and faults.
@Suite struct BMP280Tests {
    typealias D = BMP280Datasheet
    let trim = BMP280Datasheet.Trim.datasheetExample

    // MARK: Known answers (datasheet section 3.12 worked example)

    @Test func integerTemperatureMatchesTheDatasheetExample() {
        let t = D.compensateTemperature(adcT: 519_888, trim: trim)
        #expect(t.tFine == 128_422)
        #expect(Int((t.temperatureC * 100).rounded()) == 2508)
    }

    @Test func int64PressureMatchesTheDatasheetExampleInQ24_8() {
        let tFine = D.compensateTemperature(adcT: 519_888, trim: trim).tFine
        #expect(D.compensatePressureInt64(adcP: 415_148, tFine: tFine, trim: trim) == 25_767_233)
    }

    @Test func doublePressureMatchesTheDatasheetExample() {
        let t = D.compensateTemperatureDouble(adcT: 519_888, trim: trim)
        #expect(t.tFine.rounded(.towardZero) == 128_422)
        #expect(abs(t.temperatureC - 25.08) < 0.005)
        #expect(abs(D.compensatePressureDouble(adcP: 415_148, tFine: t.tFine, trim: trim) - 100_653.27) <= 0.01)
    }

    @Test func doublePressureWithTheCCodesTruncatedTFineIsTheDatasheetCodesValue() {
        // Section 8.1's C code keeps t_fine in a 32-bit integer: 128422 instead of 128422.287 moves the
        // result by 9 mPa, to 100653.258 Pa (the worked example's 100653.27 uses the unrounded value).
        let p = D.compensatePressureDouble(adcP: 415_148, tFine: 128_422, trim: trim)
        #expect(abs(p - 100_653.258) < 0.001)
    }

    @Test func pressureFormulasReturnZeroInsteadOfDividingByZero() {
        var zeroP1 = trim
        zeroP1.digP1 = 0
        #expect(D.compensatePressureInt64(adcP: 415_148, tFine: 128_422, trim: zeroP1) == 0)
        #expect(D.compensatePressureDouble(adcP: 415_148, tFine: 128_422.287, trim: zeroP1) == 0)
    }

    @Test func compensationNeverTrapsOnExtremeInputs() {
        let extreme = D.Trim(
            digT1: .max, digT2: .max, digT3: .min, digP1: .max, digP2: .min, digP3: .max,
            digP4: .min, digP5: .max, digP6: .min, digP7: .max, digP8: .min, digP9: .max)
        for adc: Int32 in [0, 1, 0x7FFFF, 0xFFFFF, -1, .max, .min] {
            let t = D.compensateTemperature(adcT: adc, trim: extreme)
            _ = D.compensatePressureInt64(adcP: adc, tFine: t.tFine, trim: extreme)
            let td = D.compensateTemperatureDouble(adcT: adc, trim: extreme)
            _ = D.compensatePressureDouble(adcP: adc, tFine: td.tFine, trim: extreme)
        }
    }

    @Test func trimDecodesTheLittleEndianNVMLayoutOfTable17() {
        let bytes: [UInt8] = [
            0x70, 0x6B, 0x43, 0x67, 0x18, 0xFC, 0x7D, 0x8E, 0x43, 0xD6, 0xD0, 0x0B,
            0x27, 0x0B, 0x8C, 0x00, 0xF9, 0xFF, 0x8C, 0x3C, 0xF8, 0xC6, 0x70, 0x17
        ]
        #expect(bytes.withUnsafeBytes { D.Trim(bytes: $0) } == trim)
    }

    // MARK: The driver on the simulator

    @Test func driverReportsTheDatasheetExampleFromRawADCValues() throws {
        let bus = SimulatedBus()
        let model = BMP280Model(trim: trim)
        model.setRawADC(temperature: 519_888, pressure: 415_148)
        bus.attach(model, at: 0x76)
        var driver = BMP280(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 10, oversampling: 16))
        let r = try driver.read(timeS: 1.5)
        #expect(r.timeS == 1.5)
        #expect(r.temperatureC == 25.08)
        #expect(r.pressurePa == 25_767_233.0 / 256)
        #expect(r.accelerationMps2 == nil && r.magneticFieldMicroTesla == nil)
    }

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = BMP280Model(trim: trim)
        model.setRawADC(temperature: 519_888, pressure: 415_148)
        bus.attach(model, at: 0x76)
        let delays = DelayRecorder()
        var driver = BMP280(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "bmp280", idValue: 0x58))
        let actual = try driver.configure(SensorConfiguration(rateHz: 10, oversampling: 16))
        _ = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x76 0xD0 [58]", // id
                "W 0x76 0xE0 [B6]", // soft reset
                "R 0x76 0xF3 [00]", // status: im_update clear
                "R 0x76 0x88 [70 6B 43 67 18 FC 7D 8E 43 D6 D0 0B 27 0B 8C 00 F9 FF 8C 3C F8 C6 70 17]", // trim
                "W 0x76 0xF4 [54]", // ctrl_meas: osrs_t ×2, osrs_p ×16, sleep
                "W 0x76 0xF5 [20]", // config: t_sb 62.5 ms, filter off
                "W 0x76 0xF4 [57]", // ctrl_meas: normal mode
                "R 0x76 0xF7 [65 5A C0 7E ED 00]" // press_msb … temp_xlsb
            ])
        #expect(delays.delaysUs == [2000])
        // t_measure 37.5 ms + t_sb 62.5 ms = 100 ms (sections 3.8.1, 3.8.2)
        #expect(actual == SensorConfiguration(rateHz: 10, powerMode: .normal, oversampling: 16))
    }

    @Test(arguments: [1, 2, 4, 8, 16])
    func roundTripIsWithinOneADCStepAtEveryOversampling(oversampling: Int) throws {
        let bus = SimulatedBus(isLogging: false)
        let model = BMP280Model()
        bus.attach(model, at: 0x77)
        var driver = BMP280(bus: bus, address: 0x77)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 1, oversampling: oversampling))
        let bits = 15 + Int(D.Oversampling.atLeast(oversampling)!.rawValue)
        let temperatureBits = oversampling == 16 ? 17 : 16
        for temperatureC in [-40.0, 0, 25, 85] {
            for pressurePa in [30_000.0, 70_000, 101_325, 110_000] {
                model.temperatureC = temperatureC
                model.pressurePa = pressurePa
                let r = try driver.read(timeS: 0)
                // one step of the ADC at this resolution, in Pa and °C, around the code the model chose
                let raw = model.registers.bytes.withUnsafeBytes { (Bytes.beU20($0, 0xF7), Bytes.beU20($0, 0xFA)) }
                let stepP = Int32(1 << (20 - bits)), stepT = Int32(1 << (20 - temperatureBits))
                let t0 = D.compensateTemperature(adcT: Int32(raw.1), trim: trim)
                let t1 = D.compensateTemperature(adcT: Int32(raw.1) + stepT, trim: trim)
                let p0 = Double(D.compensatePressureInt64(adcP: Int32(raw.0), tFine: t0.tFine, trim: trim)) / 256
                let p1 = Double(D.compensatePressureInt64(adcP: Int32(raw.0) + stepP, tFine: t0.tFine, trim: trim)) / 256
                let pressureLSB = abs(p1 - p0), temperatureLSB = max(abs(t1.temperatureC - t0.temperatureC), 0.01)
                #expect(
                    abs(r.pressurePa! - pressurePa) <= pressureLSB + 1.0 / 256,
                    "\(pressurePa) Pa at \(temperatureC) °C read \(r.pressurePa!) (LSB \(pressureLSB))")
                #expect(
                    abs(r.temperatureC! - temperatureC) <= temperatureLSB + 0.005,
                    "\(temperatureC) °C read \(r.temperatureC!)")
            }
        }
    }

    // MARK: Configuration choices

    @Test func normalModePicksTheLongestStandbyThatStillMeetsTheRate() throws {
        // ×1/×1: t_measure 5.5 ms. 50 Hz needs ≤ 20 ms → 0.5 ms standby (62.5 ms is too long): 166.7 Hz.
        let fast = try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(rateHz: 50))
        #expect(fast.config == 0x00)
        #expect(fast.ctrlMeas == 0x27)
        #expect(abs(fast.actual.rateHz - 1000 / 6.0) < 1e-9)
        // 1 Hz → 500 ms standby: 1000 / 505.5 ms ≈ 1.98 Hz (1000 ms would give 0.99 Hz)
        let slow = try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(rateHz: 1))
        #expect(slow.config == 0x80)
        #expect(abs(slow.actual.rateHz - 1000 / 505.5) < 1e-9)
    }

    @Test func suspendIsSleepModeAndLowPowerIsUltraLowPowerOversampling() throws {
        let suspend = try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(powerMode: .suspend, oversampling: 4))
        #expect(suspend.ctrlMeas == 0x2C) // osrs_t ×1, osrs_p ×4, sleep
        #expect(suspend.actual.rateHz == 0)
        let low = try BMP280<SimulatedBus>.registerSettings(
            for: SensorConfiguration(rateHz: 1, powerMode: .lowPower, oversampling: 16))
        #expect(low.ctrlMeas == 0x27) // ×1, ×1, normal
        #expect(low.actual.oversampling == 1)
    }

    @Test func oversamplingRoundsUpAndRejectsTheImpossible() throws {
        #expect(try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(oversampling: 3)).actual.oversampling == 4)
        #expect(
            thrownError { try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(oversampling: 32)) }
                == .unsupportedConfiguration(chip: "bmp280", detail: "oversampling 32: use 1, 2, 4, 8 or 16"))
        #expect(thrownError { try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(oversampling: 0)) } != nil)
        #expect(thrownError { try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(rateHz: 0)) } != nil)
        #expect(thrownError { try BMP280<SimulatedBus>.registerSettings(for: SensorConfiguration(rateHz: .nan)) } != nil)
    }

    @Test func configWritesAreIgnoredInNormalModeSoTheDriverSleepsFirst() throws {
        let bus = SimulatedBus()
        let model = BMP280Model()
        bus.attach(model, at: 0x76)
        var driver = BMP280(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 50))
        try driver.configure(SensorConfiguration(rateHz: 1))
        #expect(model.registers[0xF5] == 0x80) // the second config write landed
        #expect(model.mode == .normal)
    }

    // MARK: Faults

    @Test func nackOnTheFourthTransferNamesTheTrimRegister() {
        let bus = SimulatedBus()
        bus.attach(BMP280Model(), at: 0x76)
        bus.inject(.failTransfer(number: 4, address: 0x76, kind: .nack))
        var driver = BMP280(bus: bus)
        let error = thrownError { try driver.probe() }
        #expect(
            error
                == .bus(
                    BusError(
                        kind: .nack, bus: "sim", address: 0x76, register: 0x88,
                        errno: BusError.Errno.EREMOTEIO, operation: "read 24 bytes")))
    }

    @Test func aBME280IsRejectedAsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(BMP280Model(chipID: 0x60), at: 0x76)
        var driver = BMP280(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(
                    chip: "bmp280", bus: "sim", address: 0x76, register: 0xD0, expected: [0x58, 0x56, 0x57], found: 0x60))
        #expect(bus.log.count == 1) // nothing written to a chip we do not know
    }

    @Test(arguments: [UInt8(0x56), 0x57, 0x58])
    func engineeringSampleIDsAreAccepted(id: UInt8) throws {
        let bus = SimulatedBus()
        bus.attach(BMP280Model(chipID: id), at: 0x76)
        var driver = BMP280(bus: bus)
        #expect(try driver.probe().idValue == id)
    }

    @Test func aStuckIMUpdateBitGivesNotReadyAfterABoundedNumberOfPolls() {
        let bus = SimulatedBus()
        bus.attach(BMP280Model(), at: 0x76)
        bus.inject(.stuck(address: 0x76, register: 0xF3, value: 0x01))
        let delays = DelayRecorder()
        var driver = BMP280(bus: bus, delay: delays.delay)
        #expect(thrownError { try driver.probe() } == .notReady(chip: "bmp280", bus: "sim", address: 0x76, waitedMs: 6))
        #expect(logLines(bus).filter { $0.hasPrefix("R 0x76 0xF3") }.count == 5)
        #expect(delays.delaysUs == [2000, 1000, 1000, 1000, 1000])
    }

    @Test func allZeroTrimIsRejected() {
        let bus = SimulatedBus()
        let zero = D.Trim(
            digT1: 0, digT2: 0, digT3: 0, digP1: 0, digP2: 0, digP3: 0, digP4: 0, digP5: 0, digP6: 0,
            digP7: 0, digP8: 0, digP9: 0)
        bus.attach(BMP280Model(trim: zero), at: 0x76)
        var driver = BMP280(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .invalidTrim(chip: "bmp280", bus: "sim", address: 0x76, detail: "all trim bytes are 0x00"))
    }

    @Test func skippedPressureMeasurementIsAnInvalidReading() throws {
        let bus = SimulatedBus()
        let model = BMP280Model()
        bus.attach(model, at: 0x76)
        var driver = BMP280(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration())
        model.setRawADC(temperature: 519_888, pressure: 0x80000)
        guard case .invalidReading(let chip, _, let address, _)? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        #expect(chip == "bmp280" && address == 0x76)
    }

    @Test func readingBeforeAnyMeasurementIsInvalidNotStale() throws {
        let bus = SimulatedBus()
        bus.attach(BMP280Model(), at: 0x76)
        var driver = BMP280(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(powerMode: .suspend)) // sleep: no conversion since reset
        guard case .invalidReading? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading for the reset value 0x80000"); return
        }
    }

    @Test func sleepModeKeepsTheLastValues() throws {
        let bus = SimulatedBus()
        let model = BMP280Model()
        bus.attach(model, at: 0x76)
        var driver = BMP280(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(oversampling: 16))
        model.pressurePa = 90_000
        try driver.configure(SensorConfiguration(powerMode: .suspend, oversampling: 16))
        model.pressurePa = 80_000
        #expect(abs(try driver.read(timeS: 0).pressurePa! - 90_000) < 0.5)
    }

    @Test func deviceGoneMidRunGivesNacksThenValuesAgain() throws {
        let bus = SimulatedBus()
        let model = BMP280Model()
        bus.attach(model, at: 0x76)
        var driver = BMP280(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(oversampling: 16))
        _ = try driver.read(timeS: 0)
        bus.setPresent(false, address: 0x76)
        #expect(busError(thrownError { try driver.read(timeS: 1) })?.kind == .nack)
        #expect(busError(thrownError { try driver.read(timeS: 2) })?.register == 0xF7)
        bus.setPresent(true, address: 0x76)
        model.pressurePa = 95_000
        #expect(abs(try driver.read(timeS: 3).pressurePa! - 95_000) < 0.5)
    }

    @Test func readBeforeProbeThrowsInsteadOfTrapping() {
        var driver = BMP280(bus: SimulatedBus())
        guard case .unsupportedConfiguration? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected an error"); return
        }
    }
}
