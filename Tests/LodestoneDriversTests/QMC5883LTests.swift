import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// QST QMC5883L (datasheet rev. 1.0): sensitivities, bus traffic, round trips in both ranges, data-ready and
/// pointer roll-over, and faults.
@Suite struct QMC5883LTests {
    typealias D = QMC5883LDatasheet

    static func running(
        _ configuration: SensorConfiguration = SensorConfiguration(rateHz: 50),
        model: QMC5883LModel = QMC5883LModel()
    ) throws -> (SimulatedBus, QMC5883LModel, QMC5883L<SimulatedBus>) {
        try probedAndConfigured(model, at: 0x0D, configuration) { QMC5883L(bus: $0) }
    }

    // MARK: Known answers (table 2: 12000 LSB/gauss at ±2 gauss, 3000 at ±8 gauss)

    @Test func sensitivitiesOfTable2() {
        #expect(D.magneticFieldMicroTesla(raw: 12000, range: .gauss2) == 100)
        #expect(D.magneticFieldMicroTesla(raw: -3000, range: .gauss8) == -100)
        #expect(D.magneticFieldMicroTesla(raw: 6000, range: .gauss2) == 50)
        #expect(D.OverSampleRatio.allCases.map(\.ratio) == [512, 256, 128, 64])
    }

    // MARK: The driver on the simulator

    @Test func probeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = QMC5883LModel()
        bus.attach(model, at: 0x0D)
        let delays = DelayRecorder()
        var driver = QMC5883L(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "qmc5883l", idValue: 0xFF))
        let actual = try driver.configure(SensorConfiguration(rateHz: 40, oversampling: 8))
        model.magneticFieldMicroTesla = Vector3(25, -10, 40) // 3000, −1200, 4800 LSB
        let r = try driver.read(timeS: 2)
        #expect(
            logLines(bus) == [
                "R 0x0D 0x0D [FF]", // chip ID
                "W 0x0D 0x0A [80]", // control 2: SOFT_RST
                "R 0x0D 0x0D [FF]",
                "W 0x0D 0x0A [00]", // control 2: no roll-over, no interrupt
                "W 0x0D 0x0B [01]", // SET/RESET period
                "W 0x0D 0x09 [05]", // control 1: OSR 512, ±2 gauss, 50 Hz, continuous
                "R 0x0D 0x00 [B8 0B 50 FB C0 12 00]" // X, Y, Z, STATUS (DRDY already cleared by the data bytes)
            ])
        #expect(delays.delaysUs == [700])
        #expect(actual == SensorConfiguration(rateHz: 50, powerMode: .normal, oversampling: 8, magneticRangeMicroTesla: 200))
        #expect(r.magneticFieldMicroTesla == Vector3(25, -10, 40) && r.temperatureC == nil)
    }

    @Test(arguments: D.Range.allCases)
    func roundTripIsWithinOneLSBInEachRange(range: D.Range) throws {
        var (_, model, driver) = try Self.running(
            SensorConfiguration(rateHz: 10, magneticRangeMicroTesla: range.rangeGauss * 100))
        #expect(driver.range == range)
        let lsb = 100 / range.lsbPerGauss
        try expectFieldsReadBack(&driver, limitMicroTesla: 32767 * lsb, toleranceMicroTesla: lsb / 2 + 1e-9) {
            model.magneticFieldMicroTesla = $0
        }
    }

    @Test func configurationTables() throws {
        typealias Q = QMC5883L<SimulatedBus>
        #expect(try Q.registerSettings(for: SensorConfiguration(rateHz: 150, oversampling: 1)).control1 == 0xCD) // OSR 64, 200 Hz
        #expect(
            try Q.registerSettings(for: SensorConfiguration(rateHz: 10, oversampling: 2, magneticRangeMicroTesla: 300)).control1
                == 0x91)
        #expect(
            try Q.registerSettings(for: SensorConfiguration(rateHz: 10, powerMode: .lowPower, oversampling: 8)).control1 == 0xC1)
        let standby = try Q.registerSettings(for: SensorConfiguration(powerMode: .suspend))
        #expect(standby.control1 & 0x03 == 0 && standby.actual.rateHz == 0)
        #expect(
            thrownError { try Q.registerSettings(for: SensorConfiguration(rateHz: 300)) }
                == .unsupportedConfiguration(chip: "qmc5883l", detail: "rate 300.0 Hz: at most 200 Hz"))
    }

    @Test func dataReadyIsClearedByReadingAndPointerRollOverWrapsAtStatus() throws {
        var (bus, model, driver) = try Self.running()
        try expectDataReadyFollowsMeasurementsAndReads(&driver) { model.magneticFieldMicroTesla = Vector3(1, 2, 3) }
        model.magneticFieldMicroTesla = Vector3(1, 2, 4) // a second sample before the first was read
        #expect(model.registers[0x06] & 0x05 == 0x05) // DRDY and DOR
        try bus.writeByte(address: 0x0D, register: 0x0A, value: 0x40) // ROL_PNT
        var nine = [UInt8](repeating: 0, count: 9)
        try nine.withUnsafeMutableBytes { try bus.read(address: 0x0D, register: 0x00, into: $0) }
        #expect(Array(nine[7...]) == Array(nine[0...1])) // 0x00, 0x01 again after 0x06
    }

    // MARK: Faults

    @Test func anOverflowIsAnInvalidReading() throws {
        var (_, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = Vector3(0, 0, 300) // 3 gauss on ±2 gauss
        guard case .invalidReading(_, _, _, let detail)? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        #expect(detail.contains("OVL"))
        model.magneticFieldMicroTesla = Vector3(0, 0, 30)
        #expect(try driver.read(timeS: 1).magneticFieldMicroTesla == Vector3(0, 0, 30))
    }

    @Test func anotherIDIsTheWrongChipAndALostIDIsNotReady() {
        let bus = SimulatedBus()
        bus.attach(QMC5883LModel(chipID: 0x80), at: 0x0D) // a QMC5883P answers 0x80 (at another address)
        var driver = QMC5883L(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "qmc5883l", bus: "sim", address: 0x0D, register: 0x0D, expected: [0xFF], found: 0x80))
        let lost = SimulatedBus()
        lost.attach(IdentityAfterWrite(QMC5883LModel(), idRegister: 0x0D, value: 0x00), at: 0x0D)
        var other = QMC5883L(bus: lost)
        #expect(thrownError { try other.probe() } == .notReady(chip: "qmc5883l", bus: "sim", address: 0x0D, waitedMs: 1))
    }

    @Test func aStuckByteAndAVanishedChip() throws {
        var (bus, model, driver) = try Self.running()
        model.magneticFieldMicroTesla = .zero
        bus.inject(.stuck(address: 0x0D, register: 0x03, value: 0x01)) // Y MSB
        #expect(
            try driver.read(timeS: 0).magneticFieldMicroTesla
                == Vector3(0, D.magneticFieldMicroTesla(raw: 256, range: .gauss2), 0))
        bus.clearFaults()
        bus.setPresent(false, address: 0x0D)
        #expect(busError(thrownError { try driver.read(timeS: 0) })?.kind == .nack)
        bus.setPresent(true, address: 0x0D)
        #expect(try driver.read(timeS: 1).magneticFieldMicroTesla == .zero)
    }
}

/// Wraps a chip model so that its ID register reads `value` after the first write: a chip that does not come back
/// from its reset (for chips whose ID is 0xFF, which `IdentityLostAfterWrite` reads).
final class IdentityAfterWrite: SimulatedChip {
    let inner: any SimulatedChip
    let idRegister: UInt8
    let value: UInt8
    private var written = false
    init(_ inner: any SimulatedChip, idRegister: UInt8, value: UInt8) {
        self.inner = inner; self.idRegister = idRegister; self.value = value
    }
    func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        inner.read(register: register, into: buffer)
        if written, register == idRegister, buffer.count > 0 { buffer[0] = value }
    }
    func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        written = true
        inner.write(register: register, bytes: bytes)
    }
}
