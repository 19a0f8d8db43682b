import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// ST LIS3MDL (DocID024204): bus traffic, configuration tables, round trips through the chip model, and faults.
@Suite struct LIS3MDLTests {
    typealias D = LIS3MDLDatasheet

    /// A probed and configured driver on a fresh bus with the model at 0x1C.
    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(),
        model: LIS3MDLModel = LIS3MDLModel()
    ) throws -> (SimulatedBus, LIS3MDLModel, LIS3MDL<SimulatedBus>) {
        try probedAndConfigured(model, at: 0x1C, configuration) { LIS3MDL(bus: $0) }
    }

    /// Raw ±4 gauss values in µT, through the datasheet conversion.
    static func microTesla(_ x: Int16, _ y: Int16, _ z: Int16) -> Vector3 {
        Vector3(
            D.magneticFieldMicroTesla(raw: x, fullScale: .gauss4), D.magneticFieldMicroTesla(raw: y, fullScale: .gauss4),
            D.magneticFieldMicroTesla(raw: z, fullScale: .gauss4))
    }

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = LIS3MDLModel()
        model.magneticFieldMicroTesla = Vector3(20, -5, 40)
        model.temperatureC = 30
        bus.attach(model, at: 0x1C)
        let delays = DelayRecorder()
        var driver = LIS3MDL(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "lis3mdl", idValue: 0x3D))
        let actual = try driver.configure(SensorConfiguration(rateHz: 50))
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x1C 0x0F [3D]", // WHO_AM_I
                "W 0x1C 0x21 [04]", // CTRL_REG2: SOFT_RST
                "R 0x1C 0x0F [3D]", // WHO_AM_I again after the reset time
                "W 0x1C 0x21 [00]", // CTRL_REG2: ±4 gauss
                "W 0x1C 0x23 [0C]", // CTRL_REG4: OMZ ultra-high performance
                "W 0x1C 0x24 [40]", // CTRL_REG5: BDU
                "W 0x1C 0x20 [FC]", // CTRL_REG1: TEMP_EN, OM UHP, DO 80 Hz
                "W 0x1C 0x22 [00]", // CTRL_REG3: continuous
                "R 0x1C 0xA8 [58 05 AA FE B1 0A 28 00]" // OUT_X_L… TEMP_OUT_H, auto-increment bit set
            ])
        #expect(delays.delaysUs == [1000])
        #expect(actual == SensorConfiguration(rateHz: 80, magneticRangeMicroTesla: 400))
        // 1368, −342, 2737 LSB at 6842 LSB/gauss; 40 LSB / 8 + 25 °C
        #expect(r.magneticFieldMicroTesla == Self.microTesla(1368, -342, 2737))
        #expect(r.temperatureC == 30)
    }

    @Test(arguments: D.FullScale.allCases)
    func roundTripIsWithinOneLSBAtEveryFullScale(fullScale: D.FullScale) throws {
        let rangeMicroTesla = fullScale.rangeGauss * 100
        var (_, model, driver) = try Self.running(SensorConfiguration(magneticRangeMicroTesla: rangeMicroTesla))
        #expect(driver.fullScale == fullScale)
        let lsbMicroTesla = 100 / fullScale.sensitivityLSBPerGauss
        for field in [Vector3(0.9, -0.5, 0.123), Vector3(-0.99, 0.01, -0.7), Vector3(0, 0, 0)] {
            model.magneticFieldMicroTesla = field * rangeMicroTesla
            model.temperatureC = -12.3
            let r = try driver.read(timeS: 0)
            #expect(isClose(r.magneticFieldMicroTesla, field * rangeMicroTesla, tolerance: lsbMicroTesla))
            #expect(abs(r.temperatureC! - -12.3) <= 1.0 / 8)
        }
    }

    @Test func aFieldBeyondTheFullScaleSaturatesAtTheSixteenBitLimit() throws {
        var (_, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = Vector3(1000, -1000, 0) // 10 gauss on a ±4 gauss range
        let r = try driver.read(timeS: 0)
        #expect(r.magneticFieldMicroTesla == Self.microTesla(32767, -32768, 0))
    }

    @Test func rangeSelectionPicksTheSmallestFullScaleThatCoversTheRequest() throws {
        typealias L = LIS3MDL<SimulatedBus>
        #expect(try L.registerSettings(for: SensorConfiguration(magneticRangeMicroTesla: 401)).fullScale == .gauss8)
        #expect(try L.registerSettings(for: SensorConfiguration(magneticRangeMicroTesla: 1200)).fullScale == .gauss12)
        #expect(
            thrownError { try L.registerSettings(for: SensorConfiguration(magneticRangeMicroTesla: 1700)) }
                == .unsupportedConfiguration(chip: "lis3mdl", detail: "magnetic range 1700.0 µT: at most 1600 µT (±16 gauss)"))
    }

    @Test func ratesAbove80HzUseFastODRWithTheBestModeThatKeepsUp() throws {
        typealias L = LIS3MDL<SimulatedBus>
        let cases: [(Double, UInt8, UInt8, Double)] = [ // rate → CTRL_REG1, CTRL_REG4, actual rate
            (10, 0xF0, 0x0C, 10), (100, 0xE2, 0x0C, 155), (200, 0xC2, 0x08, 300), (500, 0xA2, 0x04, 560), (1000, 0x82, 0x00, 1000)
        ]
        for (rate, reg1, reg4, actual) in cases {
            let s = try L.registerSettings(for: SensorConfiguration(rateHz: rate))
            #expect(s.ctrlReg1 == reg1 && s.ctrlReg4 == reg4 && s.actual.rateHz == actual, "rate \(rate) Hz")
        }
        #expect(thrownError { try L.registerSettings(for: SensorConfiguration(rateHz: 1001)) } != nil)
    }

    @Test func lowPowerUsesLowPowerModeAndSuspendPowersDown() throws {
        typealias L = LIS3MDL<SimulatedBus>
        let low = try L.registerSettings(for: SensorConfiguration(rateHz: 5, powerMode: .lowPower))
        #expect(low.ctrlReg1 == 0x8C && low.ctrlReg4 == 0x00 && low.ctrlReg3 == 0x00 && low.actual.rateHz == 5)
        let suspend = try L.registerSettings(for: SensorConfiguration(powerMode: .suspend))
        #expect(suspend.ctrlReg3 == 0x03 && suspend.actual.rateHz == 0)
    }

    @Test func powerDownKeepsTheLastValues() throws {
        var (_, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = Vector3(10, 20, 30)
        try driver.configure(SensorConfiguration(powerMode: .suspend))
        model.magneticFieldMicroTesla = Vector3(-10, -20, -30)
        #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, Vector3(10, 20, 30), tolerance: 0.015))
    }

    @Test func statusDataReadyIsClearedByReadingTheOutputsAndOverrunFlagsASkippedSample() throws {
        var (bus, model, driver) = try Self.running()
        #expect(model.registers[0x27] == 0x0F) // ZYXDA and each axis
        model.magneticFieldMicroTesla = Vector3(1, 2, 3)
        #expect(model.registers[0x27] == 0xFF) // a second sample before the first was read: overrun
        _ = try driver.read(timeS: 0)
        #expect(model.registers[0x27] == 0x00)
        #expect(try bus.readByte(address: 0x1C, register: 0x27) == 0x00)
    }

    @Test func dataReadyIsZYXDA() throws {
        var (_, model, driver) = try Self.running()
        try expectDataReadyFollowsMeasurementsAndReads(&driver) { model.magneticFieldMicroTesla = Vector3(4, 5, 6) }
    }

    @Test func withoutTheAutoIncrementBitTheModelRepeatsOneRegister() throws {
        let (bus, _, _) = try Self.running()
        var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
        try withUnsafeMutableBytes(of: &bytes) { try bus.read(address: 0x1C, register: 0x0F, into: $0) }
        #expect(bytes == (0x3D, 0x3D, 0x3D))
    }

    @Test func softResetRestoresTheRegisterDefaults() throws {
        let (bus, model, _) = try Self.running(SensorConfiguration(magneticRangeMicroTesla: 1600))
        #expect(model.fullScale == .gauss16)
        try bus.writeByte(address: 0x1C, register: 0x21, value: 0x04)
        #expect(model.fullScale == .gauss4)
        #expect(model.registers[0x20] == 0x10 && model.registers[0x22] == 0x03 && model.registers[0x30] == 0xE8)
        #expect(model.softResetCount == 2)
    }

    // MARK: Faults

    @Test func nackOnTheSecondTransferNamesTheResetWrite() {
        let bus = SimulatedBus()
        bus.attach(LIS3MDLModel(), at: 0x1C)
        bus.inject(.failTransfer(number: 2, address: 0x1C, kind: .nack))
        var driver = LIS3MDL(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .bus(
                    BusError(
                        kind: .nack, bus: "sim", address: 0x1C, register: 0x21, errno: BusError.Errno.EREMOTEIO,
                        operation: "write 1 byte")))
    }

    @Test func anotherWhoAmIIsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(LIS3MDLModel(whoAmI: 0x33), at: 0x1E)
        var driver = LIS3MDL(bus: bus, address: 0x1E)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "lis3mdl", bus: "sim", address: 0x1E, register: 0x0F, expected: [0x3D], found: 0x33))
    }

    @Test func aChipThatLosesItsIdentityAcrossTheResetGivesNotReady() {
        let bus = SimulatedBus()
        let model = LIS3MDLModel()
        bus.attach(IdentityLostAfterWrite(model, idRegister: 0x0F), at: 0x1C)
        var driver = LIS3MDL(bus: bus)
        #expect(thrownError { try driver.probe() } == .notReady(chip: "lis3mdl", bus: "sim", address: 0x1C, waitedMs: 1))
        #expect(logLines(bus) == ["R 0x1C 0x0F [3D]", "W 0x1C 0x21 [04]", "R 0x1C 0x0F [FF]"])
    }

    @Test func aStuckOutputByteShowsInTheAutoIncrementedBurst() throws {
        var (bus, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = .zero
        bus.inject(.stuck(address: 0x1C, register: 0x2B, value: 0x10)) // OUT_Y_H
        #expect(try driver.read(timeS: 0).magneticFieldMicroTesla == Self.microTesla(0, 0x1000, 0))
    }

    @Test func deviceGoneMidRunGivesNacksThenValuesAgain() throws {
        var (bus, model, driver) = try Self.running()
        bus.setPresent(false, address: 0x1C)
        let error = busError(thrownError { try driver.read(timeS: 0) })
        #expect(error?.kind == .nack && error?.address == 0x1C && error?.register == 0xA8)
        bus.setPresent(true, address: 0x1C)
        model.magneticFieldMicroTesla = Vector3(0, 0, 50)
        #expect(isClose(try driver.read(timeS: 1).magneticFieldMicroTesla, Vector3(0, 0, 50), tolerance: 0.015))
    }
}
