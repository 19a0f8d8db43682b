import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// Honeywell HMC5883L (Form #900405 Rev E): the gain table, bus traffic, round trips at every gain, data-ready,
/// and faults.
@Suite struct HMC5883LTests {
    typealias D = HMC5883LDatasheet

    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 15),
        model: HMC5883LModel = HMC5883LModel()
    ) throws -> (SimulatedBus, HMC5883LModel, HMC5883L<SimulatedBus>) {
        try probedAndConfigured(model, at: 0x1E, configuration) { HMC5883L(bus: $0) }
    }

    // MARK: Known answers (table 9)

    @Test func gainTableOfTable9() {
        #expect(D.Gain.allCases.map(\.lsbPerGauss) == [1370, 1090, 820, 660, 440, 390, 330, 230])
        #expect(D.Gain.allCases.map(\.rangeGauss) == [0.88, 1.3, 1.9, 2.5, 4.0, 4.7, 5.6, 8.1])
        #expect(D.magneticFieldMicroTesla(raw: 1090, gain: .gauss1_3) == 100) // 1 gauss
        #expect(D.magneticFieldMicroTesla(raw: -230, gain: .gauss8_1) == -100)
        #expect(D.DataRate.allCases.map(\.rateHz) == [0.75, 1.5, 3, 7.5, 15, 30, 75])
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = HMC5883LModel()
        bus.attach(model, at: 0x1E)
        var driver = HMC5883L(bus: bus)
        #expect(try driver.probe() == ChipIdentity(chip: "hmc5883l", idValue: 0x48))
        let actual = try driver.configure(SensorConfiguration(rateHz: 10, oversampling: 8))
        model.magneticFieldMicroTesla = Vector3(300 / 10.9, 200 / 10.9, -200 / 10.9) // 300, 200, −200 LSB at 1090 LSB/gauss
        let r = try driver.read(timeS: 1)
        #expect(
            logLines(bus) == [
                "R 0x1E 0x0A [48 34 33]", // "H43"
                "W 0x1E 0x02 [02]", // mode: idle
                "W 0x1E 0x01 [20]", // configuration B: ±1.3 gauss
                "W 0x1E 0x00 [70]", // configuration A: 8 averaged, 15 Hz, normal measurement
                "W 0x1E 0x01 [20]",
                "W 0x1E 0x02 [00]", // mode: continuous
                "R 0x1E 0x03 [01 2C FF 38 00 C8]" // X = 300, Z = −200, Y = 200
            ])
        #expect(actual == SensorConfiguration(rateHz: 15, powerMode: .normal, oversampling: 8, magneticRangeMicroTesla: 130))
        #expect(
            r.magneticFieldMicroTesla
                == Vector3(
                    D.magneticFieldMicroTesla(raw: 300, gain: .gauss1_3),
                    D.magneticFieldMicroTesla(raw: 200, gain: .gauss1_3),
                    D.magneticFieldMicroTesla(raw: -200, gain: .gauss1_3)))
        #expect(r.temperatureC == nil)
    }

    @Test(arguments: D.Gain.allCases)
    func roundTripIsWithinOneLSBAtEveryGain(gain: D.Gain) throws {
        var (_, model, driver) = try Self.running(SensorConfiguration(rateHz: 15, magneticRangeMicroTesla: gain.rangeGauss * 100))
        #expect(driver.gain == gain)
        let lsbMicroTesla = 100 / gain.lsbPerGauss
        try expectFieldsReadBack(&driver, limitMicroTesla: 2047 * lsbMicroTesla, toleranceMicroTesla: lsbMicroTesla / 2 + 1e-9) {
            model.magneticFieldMicroTesla = $0
        }
    }

    @Test func configurationTables() throws {
        typealias H = HMC5883L<SimulatedBus>
        #expect(try H.registerSettings(for: SensorConfiguration(rateHz: 50)).configA == 0x18) // 75 Hz, 1 sample
        #expect(try H.registerSettings(for: SensorConfiguration(rateHz: 1, oversampling: 3)).configA == 0x44) // 1.5 Hz, 4 samples
        #expect(
            try H.registerSettings(for: SensorConfiguration(rateHz: 1, powerMode: .lowPower, oversampling: 8)).configA == 0x04)
        #expect(try H.registerSettings(for: SensorConfiguration(magneticRangeMicroTesla: 200)).gain == .gauss2_5)
        let idle = try H.registerSettings(for: SensorConfiguration(powerMode: .suspend))
        #expect(idle.mode == 0x02 && idle.actual.rateHz == 0)
        #expect(
            thrownError { try H.registerSettings(for: SensorConfiguration(rateHz: 100)) }
                == .unsupportedConfiguration(chip: "hmc5883l", detail: "rate 100.0 Hz: at most 75 Hz"))
        #expect(
            thrownError { try H.registerSettings(for: SensorConfiguration(magneticRangeMicroTesla: 900)) }
                == .unsupportedConfiguration(chip: "hmc5883l", detail: "magnetic range 900.0 µT: at most 810 µT (±8.1 gauss)"))
    }

    @Test func dataReadyAndTheOutputLock() throws {
        let bus = SimulatedBus()
        let model = HMC5883LModel()
        bus.attach(model, at: 0x1E)
        var driver = HMC5883L(bus: bus)
        _ = try driver.probe()
        #expect(try driver.isDataReady() == false) // nothing measured yet
        try driver.configure(SensorConfiguration())
        #expect(try driver.isDataReady())
        model.magneticFieldMicroTesla = Vector3(10, 0, 0)
        _ = try bus.readByte(address: 0x1E, register: 0x03) // half a read: the outputs lock
        #expect(model.registers[0x09] & 0x02 == 0x02)
        model.magneticFieldMicroTesla = Vector3(20, 0, 0) // not stored while locked
        #expect(abs(try driver.read(timeS: 0).magneticFieldMicroTesla!.x - 10) < 0.1)
        #expect(model.registers[0x09] & 0x02 == 0) // a full read releases it
    }

    // MARK: Faults

    @Test func anOverflowIsAnInvalidReading() throws {
        var (_, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = Vector3(0, 500, 0) // 5 gauss on a ±1.3 gauss range
        guard case .invalidReading(_, _, _, let detail)? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        #expect(detail.contains("-4096"))
    }

    @Test func anotherIdentityIsTheWrongChip() {
        let bus = SimulatedBus()
        bus.attach(HMC5883LModel(identification: [0x48, 0x34, 0x00]), at: 0x1E)
        var driver = HMC5883L(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "hmc5883l", bus: "sim", address: 0x1E, register: 0x0C, expected: [0x33], found: 0x00))
        let lis3mdl = SimulatedBus()
        lis3mdl.attach(LIS3MDLModel(), at: 0x1E) // shares 0x1E; its registers 0x0A…0x0C are reserved
        var other = HMC5883L(bus: lis3mdl)
        guard case .wrongChipID? = thrownError({ try other.probe() }) else { Issue.record("expected wrongChipID"); return }
    }

    @Test func aNackAStuckByteAndAVanishedChip() throws {
        let bus = SimulatedBus()
        bus.attach(HMC5883LModel(), at: 0x1E)
        bus.inject(.failTransfer(number: 2, address: 0x1E, kind: .nack))
        var driver = HMC5883L(bus: bus)
        #expect(busError(thrownError { try driver.probe() })?.register == 0x02)
        var (running, model, d) = try Self.running()
        model.magneticFieldMicroTesla = .zero
        running.inject(.stuck(address: 0x1E, register: 0x07, value: 0x01)) // Y MSB
        #expect(
            try d.read(timeS: 0).magneticFieldMicroTesla == Vector3(0, D.magneticFieldMicroTesla(raw: 256, gain: .gauss1_3), 0))
        running.clearFaults()
        running.setPresent(false, address: 0x1E)
        #expect(busError(thrownError { try d.read(timeS: 0) })?.kind == .nack)
        running.setPresent(true, address: 0x1E)
        #expect(try d.read(timeS: 1).magneticFieldMicroTesla == .zero)
    }
}
