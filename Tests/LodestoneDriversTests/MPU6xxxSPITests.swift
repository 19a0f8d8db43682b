import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// The MPU-9250 over SPI (as on the Emlid Navio2): the bypass cannot bridge the AK8963 onto SPI, so the driver
/// reaches it through the MPU's I2C master (RM-MPU-9250A-00 registers 36–53, 73–96, 99–103).
@Suite struct MPU6xxxSPITests {
    let g = PhysicalConstants.standardGravityMps2

    @Test func onSPITheAK8963IsProbedThroughSlave4AndReadThroughSlave0() throws {
        let bus = SimulatedBus(name: "spi", transport: .spi)
        let magnetometer = AK8963Model() // ASA 176, 177, 165
        let model = MPUModel(variant: .mpu9250, magnetometer: magnetometer)
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu9250)
        #expect(driver.magnetometerAccess == .i2cMaster)
        #expect(try driver.probe() == ChipIdentity(chip: "mpu9250", idValue: 0x71))
        let probe = logLines(bus)
        #expect(
            probe.prefix(8) == [
                "R 0x68 0x75 [71]", "W 0x68 0x6B [80]", "R 0x68 0x75 [71]", "W 0x68 0x6B [01]",
                "W 0x68 0x6A [30]", // USER_CTRL: I2C_MST_EN, I2C_IF_DIS
                "W 0x68 0x24 [0D]", // I2C_MST_CTRL: 400 kHz
                "W 0x68 0x31 [8C]", // I2C_SLV4_ADDR: read from 0x0C
                "W 0x68 0x32 [00]" // I2C_SLV4_REG: WIA
            ])
        #expect(probe[8...10] == ["W 0x68 0x34 [80]", "R 0x68 0x36 [40]", "R 0x68 0x35 [48]"]) // enable, done, DI = WIA
        #expect(!probe.contains { $0.contains("0x37") }) // the bypass is never touched
        #expect(!probe.contains { $0.hasPrefix("R 0x0C") || $0.hasPrefix("W 0x0C") })
        bus.clearLog()
        _ = try driver.configure(SensorConfiguration(rateHz: 100))
        // slave 0: 8 bytes from ST1
        #expect(logLines(bus).suffix(3) == ["W 0x68 0x25 [8C]", "W 0x68 0x26 [02]", "W 0x68 0x27 [88]"])
        magnetometer.magneticFieldMicroTesla = Vector3(10, 20, -30)
        model.accelerationMps2 = Vector3(0, 0, g)
        bus.clearLog()
        let r = try driver.read(timeS: 0)
        #expect(logLines(bus).count == 1 && logLines(bus)[0].hasPrefix("R 0x68 0x3B ")) // one 22-byte burst
        #expect(isClose(r.magneticFieldMicroTesla, Vector3(20, 10, 30), tolerance: 0.15 * 1.2))
        #expect(isClose(r.accelerationMps2, Vector3(0, 0, g), tolerance: g / 8192))
        #expect(try driver.read(timeS: 0.01).magneticFieldMicroTesla == nil) // the same measurement again
    }

    @Test func anMPU6500OnSPIOnlyDisablesItsI2CInterface() throws {
        let bus = SimulatedBus(transport: .spi)
        MPUModel(variant: .mpu6500).attach(to: bus)
        var driver = MPU6xxx(bus: bus)
        _ = try driver.probe()
        #expect(logLines(bus).last == "W 0x68 0x6A [10]")
    }

    @Test func aMissingAK8963BehindTheMasterIsANackOnTheMasterBus() {
        let bus = SimulatedBus(transport: .spi)
        let model = MPUModel(variant: .mpu9250) // an MPU-9250 whose AK8963 does not answer
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus)
        #expect(
            busError(thrownError { try driver.probe() })
                == BusError(
                    kind: .nack, bus: "sim 0x68 I2C master", address: 0x0C, register: 0x00, errno: BusError.Errno.EREMOTEIO,
                    operation: "read 1 byte through the I2C master (slave 4)"))
    }

    @Test func theMasterCanBeChosenOnI2CToo() throws {
        let bus = SimulatedBus()
        let magnetometer = AK8963Model()
        MPUModel(variant: .mpu9250, magnetometer: magnetometer).attach(to: bus)
        var driver = MPU6xxx(bus: bus, magnetometerAccess: .i2cMaster)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 50))
        magnetometer.magneticFieldMicroTesla = Vector3(1, 2, 3)
        #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, Vector3(2, 1, -3), tolerance: 0.2))
        #expect(logLines(bus).contains("W 0x68 0x6A [20]")) // I2C_MST_EN without I2C_IF_DIS
    }
}
