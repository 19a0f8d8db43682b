import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// Bosch BME280 (BST-BME280-DS002): humidity compensation known answers, the driver's bus traffic, round trips
/// through the chip model, and faults. Pressure and temperature share the BMP280's formulas, whose known answers
/// are in `BMP280Tests`.
@Suite struct BME280Tests {
    typealias D = BME280Datasheet

    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 10, oversampling: 16),
        model: BME280Model = BME280Model()
    ) throws -> (SimulatedBus, BME280Model, BME280<SimulatedBus>) {
        try probedAndConfigured(model, at: 0x76, configuration) { BME280(bus: $0) }
    }

    // MARK: Known answers

    @Test func humidityMatchesWhatLinuxReportsForTheKernelVMPreset() {
        // Linux's bmp280 driver, bound to the kernel-VM tool's bme280 preset (adc_H 0x6FA0, this humidity trim, and
        // the BMP280 datasheet example's adc_T 519888 → t_fine 128422), reports in_humidityrelative_input 45641
        // (milli-percent, = 46737 · 1000 / 1024 truncated).
        let h = D.compensateHumidity(adcH: 0x6FA0, tFine: 128_422, trim: .kernelVMPreset)
        #expect(h == 46_737)
        #expect(h * 1000 / 1024 == 45_641)
    }

    @Test func humidityTrimDecodesTheSplitTwelveBitFieldsOfTable16() {
        // The preset's bytes at 0xE1…0xE7: 6A 01 00 13 2D 03 1E → H4 = 0x13 << 4 | 0xD, H5 = 0x03 << 4 | 0x2.
        let bytes: [UInt8] = [0x6A, 0x01, 0x00, 0x13, 0x2D, 0x03, 0x1E]
        let trim = bytes.withUnsafeBytes { D.HumidityTrim(digH1: 0x4B, bytesFromE1: $0) }
        #expect(trim == .kernelVMPreset)
        #expect(trim.digH4 == 317 && trim.digH5 == 50)
        var encoded = [UInt8](repeating: 0, count: 7)
        encoded.withUnsafeMutableBytes { trim.encodeE1(into: $0) }
        #expect(encoded == bytes)
        // negative 12-bit values keep their sign (0xE4 is the signed high byte)
        let negative: [UInt8] = [0x6A, 0x01, 0x00, 0xF3, 0xFD, 0xFF, 0x1E]
        let n = negative.withUnsafeBytes { D.HumidityTrim(digH1: 0x4B, bytesFromE1: $0) }
        #expect(n.digH4 == -195 && n.digH5 == -1)
    }

    @Test func humidityIsClampedToTheZeroToHundredPercentOfTheDatasheetCode() {
        #expect(D.compensateHumidity(adcH: 0, tFine: 128_422, trim: .kernelVMPreset) == 0)
        #expect(D.compensateHumidity(adcH: 0xFFFF, tFine: 128_422, trim: .kernelVMPreset) == 100 * 1024)
        for adc: Int32 in [.min, -1, 0x7FFF_FFFF] { _ = D.compensateHumidity(adcH: adc, tFine: .max, trim: .kernelVMPreset) }
    }

    @Test func measurementTimeFollowsSection9_1() {
        #expect(D.measurementTimeMs(temperature: .x1, pressure: .x1, humidity: .x1) == 1 + 2 + 2.5 + 2.5)
        #expect(D.measurementTimeMs(temperature: .x2, pressure: .x16, humidity: .skipped) == 1 + 4 + 32.5)
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let model = BME280Model()
        model.setRawADC(temperature: 519_888, pressure: 415_148, humidity: 0x6FA0)
        let bus = SimulatedBus()
        bus.attach(model, at: 0x77)
        let delays = DelayRecorder()
        var driver = BME280(bus: bus, address: 0x77, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "bme280", idValue: 0x60))
        let actual = try driver.configure(SensorConfiguration(rateHz: 10, oversampling: 16))
        let (r, humidity) = try driver.readWithHumidity(timeS: 2)
        #expect(
            logLines(bus) == [
                "R 0x77 0xD0 [60]",
                "W 0x77 0xE0 [B6]",
                "R 0x77 0xF3 [00]",
                "R 0x77 0x88 [70 6B 43 67 18 FC 7D 8E 43 D6 D0 0B 27 0B 8C 00 F9 FF 8C 3C F8 C6 70 17 00 4B]", // … dig_H1
                "R 0x77 0xE1 [6A 01 00 13 2D 03 1E]", // dig_H2 … dig_H6
                "W 0x77 0xF4 [54]", // ctrl_meas: osrs_t ×2, osrs_p ×16, sleep
                "W 0x77 0xF2 [01]", // ctrl_hum: osrs_h ×1
                "W 0x77 0xF5 [E0]", // config: t_sb 20 ms, filter off
                "W 0x77 0xF4 [57]", // ctrl_meas: normal mode (latches ctrl_hum)
                "R 0x77 0xF7 [65 5A C0 7E ED 00 6F A0]"
            ])
        #expect(delays.delaysUs == [2000])
        // t_measure = 1 + 4 + 32.5 + 2.5 = 40 ms; 62.5 ms standby gives 9.76 Hz < 10, so 20 ms: 16.7 Hz
        #expect(actual == SensorConfiguration(rateHz: 1000.0 / 60, powerMode: .normal, oversampling: 16))
        #expect(r.temperatureC == 25.08 && r.pressurePa == 25_767_233.0 / 256 && r.timeS == 2)
        #expect(humidity == 46_737.0 / 1024)
        #expect(driver.relativeHumidityPercent == humidity)
    }

    @Test(arguments: [1, 2, 4, 8, 16])
    func roundTripAtEveryOversampling(oversampling: Int) throws {
        var (bus, model, driver) = try Self.running(SensorConfiguration(rateHz: 1, oversampling: oversampling))
        bus.isLogging = false
        for (t, p, h) in [(-20.0, 60_000.0, 5.0), (25, 101_325, 45), (60, 110_000, 95)] {
            model.temperatureC = t
            model.pressurePa = p
            model.relativeHumidityPercent = h
            let (r, humidity) = try driver.readWithHumidity(timeS: 0)
            // 16-bit pressure (×1) steps are ≈ 2.6 Pa; temperature steps ≤ 0.01 °C; humidity steps ≈ 0.02 %
            #expect(abs(r.pressurePa! - p) <= 3, "\(p) Pa read \(r.pressurePa!)")
            #expect(abs(r.temperatureC! - t) <= 0.06)
            #expect(abs(humidity! - h) <= 0.1, "\(h) % read \(humidity!)")
        }
    }

    @Test func configurationTables() throws {
        typealias B = BME280<SimulatedBus>
        let low = try B.registerSettings(for: SensorConfiguration(rateHz: 1, powerMode: .lowPower, oversampling: 16))
        #expect(low.ctrlMeas == 0x27 && low.ctrlHum == 0x01)
        #expect(low.config == 0x80) // ×1/×1/×1: t_measure 8 ms; 1000 ms standby gives 0.992 Hz < 1, so 500 ms
        let suspend = try B.registerSettings(for: SensorConfiguration(powerMode: .suspend))
        #expect(suspend.ctrlMeas & 0x03 == 0 && suspend.actual.rateHz == 0)
        let fast = try B.registerSettings(for: SensorConfiguration(rateHz: 100, oversampling: 1))
        #expect(fast.config == 0x00 && abs(fast.actual.rateHz - 1000 / 8.5) < 1e-9)
        #expect(
            thrownError { try B.registerSettings(for: SensorConfiguration(oversampling: 32)) }
                == .unsupportedConfiguration(chip: "bme280", detail: "oversampling 32: use 1, 2, 4, 8 or 16"))
    }

    @Test func ctrlHumTakesEffectOnlyAtTheNextCtrlMeasWrite() throws {
        let (bus, model, _) = try Self.running()
        try bus.writeByte(address: 0x76, register: 0xF4, value: 0x54) // sleep
        try bus.writeByte(address: 0x76, register: 0xF2, value: 0x00) // humidity skipped, not yet latched
        model.relativeHumidityPercent = 70
        #expect(model.humidityADC != 0x8000)
        try bus.writeByte(address: 0x76, register: 0xF4, value: 0x57) // now latched: skipped
        #expect(model.humidityADC == 0x8000)
    }

    // MARK: Faults

    @Test func aBMP280AtTheAddressIsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(BMP280Model(), at: 0x76)
        var driver = BME280(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "bme280", bus: "sim", address: 0x76, register: 0xD0, expected: [0x60], found: 0x58))
    }

    @Test func blankHumidityTrimIsInvalidTrim() {
        let bus = SimulatedBus()
        bus.attach(
            BME280Model(humidityTrim: D.HumidityTrim(digH1: 0, digH2: 0, digH3: 0, digH4: 0, digH5: 0, digH6: 0)), at: 0x76)
        var driver = BME280(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .invalidTrim(chip: "bme280", bus: "sim", address: 0x76, detail: "all humidity trim bytes are 0"))
    }

    @Test func aSkippedMeasurementIsAnInvalidReadingAndSkippedHumidityIsNil() throws {
        let bus = SimulatedBus()
        bus.attach(BME280Model(), at: 0x76)
        var driver = BME280(bus: bus)
        _ = try driver.probe()
        guard case .invalidReading? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        try driver.configure(SensorConfiguration())
        try bus.writeByte(address: 0x76, register: 0xF2, value: 0x00)
        try bus.writeByte(address: 0x76, register: 0xF4, value: 0x27)
        #expect(try driver.readWithHumidity(timeS: 0).relativeHumidityPercent == nil)
    }

    @Test func aNackAStuckByteAndAVanishedChip() throws {
        let bus = SimulatedBus()
        bus.attach(BME280Model(), at: 0x76)
        bus.inject(.failTransfer(number: 5, address: 0x76, kind: .nack))
        var driver = BME280(bus: bus)
        #expect(busError(thrownError { try driver.probe() })?.register == 0xE1) // the humidity trim read
        var (running, model, d) = try Self.running()
        model.setRawADC(temperature: 519_888, pressure: 415_148, humidity: 0x6FA0)
        running.inject(.stuck(address: 0x76, register: 0xFD, value: 0xFF))
        #expect(try d.readWithHumidity(timeS: 0).relativeHumidityPercent == 100) // 0xFFA0 clamps at 100 %
        running.clearFaults()
        running.setPresent(false, address: 0x76)
        #expect(busError(thrownError { try d.read(timeS: 0) })?.kind == .nack)
        running.setPresent(true, address: 0x76)
        #expect(try d.read(timeS: 1).temperatureC == 25.08)
    }
}
