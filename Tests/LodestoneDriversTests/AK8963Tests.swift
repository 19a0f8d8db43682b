import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// AKM AK8963 (MS1356-E-02), alone and behind the MPU-9250's bypass: sensitivity adjustment, axis remap, data-ready
/// and overflow handling.
@Suite struct AK8963Tests {
    typealias D = AK8963Datasheet

    @Test func sensitivityAdjustmentFollowsTheDatasheetFormula() {
        #expect(D.sensitivityFactor(asa: 128) == 1)
        #expect(D.sensitivityFactor(asa: 0) == 0.5)
        #expect(D.sensitivityFactor(asa: 255) == 1.49609375)
        #expect(D.sensitivityFactor(asa: 176) == 1.1875) // (176 − 128) · 0.5 / 128 + 1
        let adjustment = D.SensitivityAdjustment(asax: 176, asay: 128, asaz: 64)
        #expect(
            D.magneticFieldMicroTesla(rawX: 100, rawY: -200, rawZ: 32760, adjustment: adjustment, is16Bit: true)
                == Vector3(100 * 0.15 * 1.1875, -200 * 0.15, 32760 * 0.15 * 0.75))
        #expect(
            D.magneticFieldMicroTesla(rawX: 100, rawY: 0, rawZ: 0, adjustment: adjustment, is16Bit: false).x == 100 * 0.6 * 1.1875
        )
    }

    @Test func magnetometerAxesAreRemappedIntoTheMPUAxes() {
        // PS-MPU-9250A-01 §9.1: the AK8963's x is the MPU's y, its y the MPU's x, its z the MPU's −z.
        #expect(MPU6xxxDatasheet.mpuAxes(fromMagnetometerAxes: Vector3(1, 2, 3)) == Vector3(2, 1, -3))
    }

    @Test func standAloneProbeConfigureAndReadProduceExactlyTheseTransactions() throws {
        let bus = SimulatedBus()
        let model = AK8963Model(sensitivityAdjustment: .init(asax: 128, asay: 128, asaz: 128))
        model.magneticFieldMicroTesla = Vector3(15, -30, 45)
        bus.attach(model, at: 0x0C)
        let delays = DelayRecorder()
        var driver = AK8963(bus: bus, delay: delays.delay)
        #expect(try driver.probe() == ChipIdentity(chip: "ak8963", idValue: 0x48))
        let actual = try driver.configure(SensorConfiguration(rateHz: 8))
        let r = try driver.read(timeS: 0)
        #expect(
            logLines(bus) == [
                "R 0x0C 0x00 [48]",
                "W 0x0C 0x0B [01]",
                "W 0x0C 0x0A [0F]",
                "R 0x0C 0x10 [80 80 80]",
                "W 0x0C 0x0A [00]",
                "W 0x0C 0x0A [00]",
                "W 0x0C 0x0A [12]", // 16-bit, continuous mode 1 (8 Hz)
                "R 0x0C 0x02 [01 64 00 38 FF 2C 01 10]" // 100, −200, 300 LSB
            ])
        #expect(delays.delaysUs == [100, 100, 100])
        #expect(actual == SensorConfiguration(rateHz: 8, magneticRangeMicroTesla: 4912))
        #expect(r.magneticFieldMicroTesla == Vector3(100 * 0.15, -200 * 0.15, 300 * 0.15))
    }

    @Test(arguments: [UInt8(0x80), 0xB0, 0x50])
    func roundTripIsWithinOneAdjustedLSB(asa: UInt8) throws {
        let bus = SimulatedBus(isLogging: false)
        let model = AK8963Model(sensitivityAdjustment: .init(asax: asa, asay: asa &+ 3, asaz: asa &- 5))
        bus.attach(model, at: 0x0D)
        var driver = AK8963(bus: bus, address: 0x0D)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100))
        for field in [Vector3(1200, -800, 300), Vector3(-25.3, 48.1, -39.9), Vector3(0, 0, 0)] {
            model.magneticFieldMicroTesla = field
            let lsb = 0.15 * D.sensitivityFactor(asa: max(asa, asa &+ 3, asa &- 5))
            #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, field, tolerance: lsb))
        }
    }

    @Test func withoutANewMeasurementAReadReportsNoFieldRatherThanTheOldOne() throws {
        let model = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        let (_, mpu) = try MPU6xxxTests.running(model)
        var driver = mpu
        #expect(try driver.read(timeS: 0).magneticFieldMicroTesla != nil)
        let second = try driver.read(timeS: 0.01) // ST2 was read: DRDY cleared, no new sample yet
        #expect(second.magneticFieldMicroTesla == nil && second.accelerationMps2 != nil)
        model.magnetometer?.magneticFieldMicroTesla = Vector3(1, 2, 3)
        #expect(isClose(try driver.read(timeS: 0.02).magneticFieldMicroTesla, Vector3(2, 1, -3), tolerance: 0.2))
    }

    @Test func dataReadyIsSetByAMeasurementAndClearedByReadingThroughST2() throws {
        let model = AK8963Model()
        model.magneticFieldMicroTesla = Vector3(10, 20, 30)
        var (_, _, driver) = try probedAndConfigured(model, at: 0x0C, SensorConfiguration(rateHz: 100)) { AK8963(bus: $0) }
        try expectDataReadyFollowsMeasurementsAndReads(&driver) { model.magneticFieldMicroTesla = Vector3(11, 20, 30) }
    }

    @Test func magneticOverflowIsAnInvalidReading() throws {
        let model = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        var (_, driver) = try MPU6xxxTests.running(model)
        model.magnetometer?.magneticFieldMicroTesla = Vector3(3000, -2000, 0) // |x| + |y| + |z| ≥ 4912 µT
        guard case let .invalidReading(chip, _, address, detail)? = thrownError({ try driver.read(timeS: 0) }) else {
            Issue.record("expected invalidReading"); return
        }
        #expect(chip == "ak8963" && address == 0x0C && detail.contains("HOFL"))
        model.magnetometer?.magneticFieldMicroTesla = Vector3(30, -20, 0)
        #expect(try driver.read(timeS: 1).magneticFieldMicroTesla != nil)
    }

    @Test func behindADisabledBypassTheAK8963DoesNotAnswer() throws {
        let bus = SimulatedBus()
        let model = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        model.attach(to: bus)
        var magnetometer = AK8963(bus: bus)
        #expect(
            thrownError { try magnetometer.probe() }
                == .bus(
                    BusError(
                        kind: .nack, bus: "sim", address: 0x0C, register: 0x00, errno: BusError.Errno.EREMOTEIO,
                        operation: "read 1 byte")))
        #expect(!bus.isPresent(address: 0x0C))
        var mpu = MPU6xxx(bus: bus)
        _ = try mpu.probe() // enables the bypass
        #expect(bus.isPresent(address: 0x0C))
        try bus.writeByte(address: 0x68, register: 0x6B, value: 0x80) // device reset turns the bypass off again
        #expect(!bus.isPresent(address: 0x0C))
    }

    @Test func nackOnTheMagnetometersFirstTransferFailsTheMPU9250Probe() {
        let bus = SimulatedBus()
        MPUModel(variant: .mpu9250, magnetometer: AK8963Model()).attach(to: bus)
        bus.inject(.failTransfer(number: 1, address: 0x0C, kind: .nack))
        var driver = MPU6xxx(bus: bus)
        #expect(
            busError(thrownError { try driver.probe() })
                == BusError(
                    kind: .nack, bus: "sim", address: 0x0C, register: 0x00, errno: BusError.Errno.EREMOTEIO,
                    operation: "read 1 byte"))
    }

    @Test func aWrongWIABehindTheBypassIsTheWrongChip() {
        let bus = SimulatedBus()
        MPUModel(variant: .mpu9250, magnetometer: AK8963Model(wia: 0x00)).attach(to: bus)
        var driver = MPU6xxx(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .wrongChipID(chip: "ak8963", bus: "sim", address: 0x0C, register: 0x00, expected: [0x48], found: 0x00))
    }

    @Test func fuseROMReadsAsZeroOutsideFuseROMAccessMode() throws {
        let bus = SimulatedBus()
        bus.attach(AK8963Model(), at: 0x0C)
        #expect(try bus.readByte(address: 0x0C, register: 0x10) == 0)
        try bus.writeByte(address: 0x0C, register: 0x0A, value: 0x0F)
        #expect(try bus.readByte(address: 0x0C, register: 0x10) == 176)
    }

    @Test func allZeroFuseROMIsInvalidTrim() {
        let bus = SimulatedBus()
        bus.attach(AK8963Model(sensitivityAdjustment: .init(asax: 0, asay: 0, asaz: 0)), at: 0x0C)
        var driver = AK8963(bus: bus)
        #expect(
            thrownError { try driver.probe() }
                == .invalidTrim(chip: "ak8963", bus: "sim", address: 0x0C, detail: "ASAX, ASAY and ASAZ are all 0x00"))
    }

    @Test func dataOverrunIsFlaggedWhenASampleIsSkipped() throws {
        let bus = SimulatedBus()
        let model = AK8963Model()
        bus.attach(model, at: 0x0C)
        try bus.writeByte(address: 0x0C, register: 0x0A, value: 0x16)
        model.magneticFieldMicroTesla = Vector3(1, 1, 1)
        #expect(try bus.readByte(address: 0x0C, register: 0x02) == 0x03) // DRDY | DOR
        _ = try bus.readByte(address: 0x0C, register: 0x09) // ST2 releases
        #expect(try bus.readByte(address: 0x0C, register: 0x02) == 0x00)
    }
}
