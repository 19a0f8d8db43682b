import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// MEMSIC MMC5983MA (datasheet rev. A): 18-bit decoding and sensitivity, bus traffic, SET/RESET offset cancelling,
/// rates and bandwidths, data-ready, and faults.
@Suite struct MMC5983MATests {
    typealias D = MMC5983MADatasheet
    static let lsbMicroTesla = 100 / 16384.0

    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 50),
        model: MMC5983MAModel = MMC5983MAModel()
    ) throws -> (SimulatedBus, MMC5983MAModel, MMC5983MA<SimulatedBus>) {
        try probedAndConfigured(model, at: 0x30, configuration) { MMC5983MA(bus: $0) }
    }

    // MARK: Known answers (16384 counts/gauss, null field 131072, Tout −75 °C + 0.8 °C/LSB)

    @Test func eighteenBitCodesAndTheirFieldAndTemperature() {
        #expect(D.magneticFieldMicroTesla(code: 131_072) == 0)
        #expect(D.magneticFieldMicroTesla(code: 131_072 + 16_384) == 100) // 1 gauss
        #expect(D.magneticFieldMicroTesla(code: 131_072 - 8_192) == -50)
        // X = 0x2_4001 (bits 17:10 = 0x90, 9:2 = 0x00, 1:0 = 01), Y = 0x1_FFFE, Z = 0x2_0003
        let bytes: [UInt8] = [0x90, 0x00, 0x7F, 0xFF, 0x80, 0x00, 0b01_10_11_00]
        let c = bytes.withUnsafeBytes { D.codes($0) }
        #expect(c.x == 0x2_4001 && c.y == 0x1_FFFE && c.z == 0x2_0003)
        #expect(D.temperatureC(tout: 0) == -75 && D.temperatureC(tout: 125) == 25)
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = MMC5983MAModel()
        bus.attach(model, at: 0x30)
        let delays = DelayRecorder()
        var driver = MMC5983MA(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "mmc5983ma", idValue: 0x30))
        let actual = try driver.configure(SensorConfiguration(rateHz: 50))
        model.magneticFieldMicroTesla = Vector3(100, -50, 4 * Self.lsbMicroTesla) // 1 gauss, −0.5 gauss, 4 counts
        let r = try driver.read(timeS: 3)
        #expect(
            logLines(bus) == [
                "R 0x30 0x2F [30]", // product ID
                "W 0x30 0x0A [80]", // internal control 1: SW_RST
                "R 0x30 0x2F [30]",
                "R 0x30 0x08 [10]", // status: OTP_Read_Done
                "W 0x30 0x0A [00]", // internal control 1: BW 100 Hz (8 ms fits in 20 ms)
                "W 0x30 0x09 [20]", // internal control 0: Auto_SR_en
                "W 0x30 0x0B [BC]", // internal control 2: En_prd_set, every 100, Cmm_en, 50 Hz
                "R 0x30 0x00 [90 00 78 00 80 01 00]" // X 0x24000, Y 0x1E000, Z 0x20004
            ])
        #expect(delays.delaysUs == [10_000, 0])
        #expect(actual == SensorConfiguration(rateHz: 50, powerMode: .normal, oversampling: 1, magneticRangeMicroTesla: 800))
        #expect(r.magneticFieldMicroTesla == Vector3(100, -50, 4 * Self.lsbMicroTesla) && r.temperatureC == nil)
    }

    @Test func roundTripIsWithinHalfAnLSB() throws {
        var (_, model, driver) = try Self.running()
        for field in [Vector3(799, -799, 0.1), Vector3(23.4567, -3.21, 41.9), .zero] {
            model.magneticFieldMicroTesla = field
            #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, field, tolerance: Self.lsbMicroTesla / 2 + 1e-9))
        }
    }

    @Test func rateAndBandwidthTables() throws {
        typealias M = MMC5983MA<SimulatedBus>
        let cases: [(Double, PowerMode, UInt8, UInt8)] = [ // rate, mode → control 1, control 2
            (1, .normal, 0x00, 0xB9), (100, .normal, 0x00, 0xBD), (150, .normal, 0x01, 0xBE), (400, .normal, 0x03, 0xBF),
            (10, .lowPower, 0x03, 0xBA)
        ]
        for (rate, mode, control1, control2) in cases {
            let s = try M.registerSettings(for: SensorConfiguration(rateHz: rate, powerMode: mode))
            #expect(s.internalControl1 == control1 && s.internalControl2 == control2, "\(rate) Hz \(mode)")
        }
        let off = try M.registerSettings(for: SensorConfiguration(powerMode: .suspend))
        #expect(off.internalControl2 == 0 && off.actual.rateHz == 0)
        #expect(
            thrownError { try M.registerSettings(for: SensorConfiguration(rateHz: 2000)) }
                == .unsupportedConfiguration(chip: "mmc5983ma", detail: "rate 2000.0 Hz: at most 1000 Hz"))
        #expect(
            thrownError { try M.registerSettings(for: SensorConfiguration(magneticRangeMicroTesla: 1000)) }
                == .unsupportedConfiguration(chip: "mmc5983ma", detail: "magnetic range 1000.0 µT: at most 800 µT (±8 gauss)"))
    }

    // MARK: SET/RESET offset cancelling

    @Test func setResetSeparatesTheFieldFromTheBridgeOffset() throws {
        var (bus, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = Vector3(20, 5, -40)
        model.bridgeOffsetMicroTesla = Vector3(3, -2, 1.5)
        #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, Vector3(23, 3, -38.5), tolerance: Self.lsbMicroTesla))
        bus.clearLog()
        let result = try driver.measureBridgeOffset()
        #expect(isClose(result.fieldMicroTesla, Vector3(20, 5, -40), tolerance: Self.lsbMicroTesla))
        #expect(isClose(result.offsetMicroTesla, Vector3(3, -2, 1.5), tolerance: Self.lsbMicroTesla))
        #expect(
            logLines(bus).map { String($0.prefix(16)) } == [
                "W 0x30 0x0B [00]", // continuous mode off
                "W 0x30 0x09 [08]", // SET
                "W 0x30 0x09 [01]", "R 0x30 0x08 [11]", "R 0x30 0x00 [83 ", // TM_M, Meas_M_Done, outputs: X = +20 + 3 µT
                "W 0x30 0x09 [10]", // RESET
                "W 0x30 0x09 [01]", "R 0x30 0x08 [11]", "R 0x30 0x00 [7D ", // X = −20 + 3 µT
                "W 0x30 0x09 [08]", // SET again
                "W 0x30 0x09 [20]", "W 0x30 0x0B [BC]" // configuration restored
            ])
        #expect(model.setCount == 2 && model.resetCount == 1 && model.polarity == 1 && model.isContinuous)
        // later reads subtract the offset
        model.magneticFieldMicroTesla = Vector3(-10, 30, 2)
        #expect(
            isClose(try driver.read(timeS: 1).magneticFieldMicroTesla, Vector3(-10, 30, 2), tolerance: 1.5 * Self.lsbMicroTesla))
        driver.clearBridgeOffset()
        #expect(isClose(try driver.read(timeS: 2).magneticFieldMicroTesla, Vector3(-7, 28, 3.5), tolerance: Self.lsbMicroTesla))
    }

    @Test func dataReadyIsSetByAMeasurementAndClearedByReading() throws {
        var (_, model, driver) = try Self.running()
        try expectDataReadyFollowsMeasurementsAndReads(&driver) { model.magneticFieldMicroTesla = Vector3(1, 1, 1) }
    }

    // MARK: Faults

    @Test func aSaturatedAxisIsAnInvalidReading() throws {
        var (_, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = Vector3(0, 900, 0)
        guard case .invalidReading(_, _, _, let detail)? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        #expect(detail.contains("±8 gauss"))
    }

    @Test func wrongIDOTPNeverReadAndAVanishedChip() throws {
        let bus = SimulatedBus()
        bus.attach(MMC5983MAModel(productID: 0x10), at: 0x30)
        var driver = MMC5983MA(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "mmc5983ma", bus: "sim", address: 0x30, register: 0x2F, expected: [0x30], found: 0x10))
        let otp = SimulatedBus()
        otp.attach(MMC5983MAModel(), at: 0x30)
        otp.inject(.stuck(address: 0x30, register: 0x08, value: 0x00))
        var other = MMC5983MA(bus: otp)
        #expect(thrownError { try other.probe() } == .notReady(chip: "mmc5983ma", bus: "sim", address: 0x30, waitedMs: 4))
        var (running, model, d) = try Self.running()
        running.setPresent(false, address: 0x30)
        #expect(busError(thrownError { try d.read(timeS: 0) })?.kind == .nack)
        running.setPresent(true, address: 0x30)
        model.magneticFieldMicroTesla = Vector3(0, 0, 50)
        #expect(isClose(try d.read(timeS: 1).magneticFieldMicroTesla, Vector3(0, 0, 50), tolerance: Self.lsbMicroTesla))
    }
}
