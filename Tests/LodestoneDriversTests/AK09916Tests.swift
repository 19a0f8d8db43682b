import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// AKM AK09916 (ICM-20948 DS-000189 §12–§13): stand-alone, behind the ICM-20948's bypass, and faults.
@Suite struct AK09916Tests {
    static func running(_ model: AK09916Model = AK09916Model(), rateHz: Double = 100) throws -> (
        SimulatedBus, AK09916<SimulatedBus>
    ) {
        let (bus, _, driver) = try probedAndConfigured(model, at: 0x0C, SensorConfiguration(rateHz: rateHz)) { AK09916(bus: $0) }
        return (bus, driver)
    }

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = AK09916Model()
        model.magneticFieldMicroTesla = Vector3(15, -30, 4500)
        bus.attach(model, at: 0x0C)
        let delays = DelayRecorder()
        var driver = AK09916(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "ak09916", idValue: 0x09))
        #expect(try driver.configure(SensorConfiguration(rateHz: 40)).rateHz == 50)
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x0C 0x01 [09]", // WIA2
                "W 0x0C 0x32 [01]", // CNTL3: SRST
                "W 0x0C 0x31 [00]", // CNTL2: power-down first
                "W 0x0C 0x31 [06]", // continuous mode 3, 50 Hz
                "R 0x0C 0x10 [01 64 00 38 FF 30 75 00 00]" // ST1 DRDY, 100, −200, 30000, TMPS, ST2
            ])
        #expect(delays.delaysUs == [100, 100])
        #expect(r.magneticFieldMicroTesla == Vector3(15, -30, 4500)) // × 0.15 µT/LSB
    }

    @Test func modesFollowTheRequestedRate() throws {
        typealias A = AK09916<SimulatedBus>
        for (rate, mode) in [
            (1.0, AK09916Datasheet.Mode.continuous1), (10, .continuous1), (15, .continuous2), (50, .continuous3),
            (100, .continuous4)
        ] {
            #expect(try A.registerSettings(for: SensorConfiguration(rateHz: rate)).mode == mode)
        }
        #expect(try A.registerSettings(for: SensorConfiguration(rateHz: 100, powerMode: .lowPower)).mode == .continuous1)
        #expect(try A.registerSettings(for: SensorConfiguration(powerMode: .suspend)).actual.rateHz == 0)
        #expect(thrownError { try A.registerSettings(for: SensorConfiguration(rateHz: 200)) } != nil)
    }

    @Test func aReadWithoutANewMeasurementReportsNoField() throws {
        let model = AK09916Model()
        var (_, driver) = try Self.running(model)
        model.magneticFieldMicroTesla = Vector3(1, 2, 3)
        #expect(try driver.isDataReady())
        #expect(try driver.read(timeS: 0).magneticFieldMicroTesla != nil)
        #expect(try driver.read(timeS: 0.01).magneticFieldMicroTesla == nil)
    }

    @Test(arguments: [Vector3(4000, -100, 200), Vector3(-2500, 2500, 0)])
    func roundTripIsWithinHalfAnLSBOrAnOverflow(field: Vector3) throws {
        let model = AK09916Model()
        var (_, driver) = try Self.running(model)
        model.magneticFieldMicroTesla = field
        if abs(field.x) + abs(field.y) + abs(field.z) >= 4912 {
            guard case .invalidReading? = thrownError({ try driver.read(timeS: 0) }) else {
                Issue.record("expected HOFL"); return
            }
        } else {
            #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, field, tolerance: 0.075))
        }
    }

    @Test func behindTheICM20948ItAnswersOnlyWithTheBypassOn() throws {
        let bus = SimulatedBus()
        let icm = ICM20948Model()
        icm.attach(to: bus, at: 0x68)
        var driver = AK09916(bus: bus)
        #expect(busError(thrownError { try driver.probe() })?.kind == .nack)
        try bus.writeByte(address: 0x68, register: 0x0F, value: 0x02) // INT_PIN_CFG: BYPASS_EN
        #expect(try driver.probe().chip == "ak09916")
    }

    @Test func anAK8963IsTheWrongChipByItsSecondIDByte() {
        let bus = SimulatedBus()
        bus.attach(AK8963Model(), at: 0x0C)
        var driver = AK09916(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(
                    chip: "ak09916", bus: "sim", address: 0x0C, register: 0x01,
                    expected: [0x09], found: 0x9A))
    }
}
