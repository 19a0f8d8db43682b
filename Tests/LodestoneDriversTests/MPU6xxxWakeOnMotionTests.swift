import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// MPU-6500/9250 wake-on-motion (PS-MPU-9250A-01 section 7.1, RM-MPU-9250A-00 registers 30, 31, 56, 58, 105) and
/// MPU-6050 motion detection (RM-MPU-6000A-00 rev. 3.2 registers 28, 31, 32, 56, 58): the register writes, the chip
/// model's comparison of samples against the threshold in 4 mg (2 mg) steps, latching until `INT_STATUS` is read, and
/// the model sampling at its own (low-power) rate once it is given the time.
@Suite struct MPU6xxxWakeOnMotionTests {
    typealias D = MPU6xxxDatasheet
    let g = PhysicalConstants.standardGravityMps2

    static func running(_ model: MPUModel, _ configuration: SensorConfiguration) throws -> (SimulatedBus, MPU6xxx<SimulatedBus>) {
        let bus = SimulatedBus()
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus)
        _ = try driver.probe()
        bus.clearLog()
        try driver.configure(configuration)
        return (bus, driver)
    }

    /// The writes to the MPU (not its AK8963) as "register value" pairs.
    static func mpuWrites(_ bus: SimulatedBus) -> [String] {
        bus.log.filter { $0.direction == .write && $0.address == 0x68 }.map {
            "\(hex($0.register)) \($0.bytes.map(hex).joined(separator: " "))"
        }
    }

    @Test func mpu9250LowPowerWakeOnMotionWritesTheDataSheetProcedure() throws {
        let (bus, _) = try Self.running(
            MPUModel(variant: .mpu9250, magnetometer: AK8963Model()),
            SensorConfiguration(rateHz: 7.81, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5))
        #expect(
            Self.mpuWrites(bus) == [
                "0x6B 0x01", // awake, CLKSEL 1
                "0x19 0x7F", // SMPLRT_DIV (ignored in cycle mode)
                "0x1A 0x06", // CONFIG
                "0x1B 0x18", // GYRO_CONFIG ±2000 °/s
                "0x1C 0x08", // ACCEL_CONFIG ±4 g
                "0x1D 0x09", // ACCEL_CONFIG2: ACCEL_FCHOICE_B 1, A_DLPF_CFG 1 (procedure step 2)
                "0x1E 0x05", // LP_ACCEL_ODR: LPOSC_CLKSEL 5 = 7.81 Hz (step 6)
                "0x6C 0x07", // PWR_MGMT_2: gyroscope disabled, accelerometer on (step 1)
                "0x38 0x40", // INT_ENABLE: WOM_EN (step 3)
                "0x69 0xC0", // ACCEL_INTEL_CTRL: ACCEL_INTEL_EN | ACCEL_INTEL_MODE (step 4)
                "0x1F 0x0D", // WOM_THR: 0.5 m/s² = 51 mg → 13 × 4 mg (step 5)
                "0x6B 0x29" // PWR_MGMT_1: CYCLE | PD_PTAT | CLKSEL 1 (step 7)
            ])
    }

    @Test func theThresholdIsReportedInWholeFourMilliGSteps() throws {
        let (_, driver) = try Self.running(
            MPUModel(variant: .mpu6500),
            SensorConfiguration(rateHz: 31.25, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5))
        #expect(driver.configuration?.wakeOnMotionThresholdMps2 == 13 * 0.004 * g)
        #expect(driver.configuration?.rateHz == 31.25)
    }

    @Test func motionAboveTheThresholdLatchesUntilINTStatusIsRead() throws {
        let model = MPUModel(variant: .mpu6500)
        var (_, driver) = try Self.running(
            model, SensorConfiguration(rateHz: 31.25, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5))
        let rest = Vector3(0, 0, g)
        model.accelerationMps2 = rest
        #expect(try driver.motionDetected() == false)
        // 40 mg between consecutive samples: below 52 mg.
        model.accelerationMps2 = rest + Vector3(0.040 * g, 0, 0)
        #expect(try driver.motionDetected() == false)
        // 70 mg on y: above. The flag stays set across further (still) samples until INT_STATUS is read.
        model.accelerationMps2 = rest + Vector3(0.040 * g, 0.070 * g, 0)
        model.accelerationMps2 = rest + Vector3(0.040 * g, 0.070 * g, 0)
        #expect(model.registers[D.Register.intStatus.rawValue] & 0x40 == 0x40)
        #expect(try driver.motionDetected() == true)
        #expect(try driver.motionDetected() == false)
        // Slow drift: 30 mg a sample never exceeds 52 mg between consecutive samples, however far it goes.
        for k in 1...10 { model.accelerationMps2 = rest + Vector3(0.040 * g, 0.070 * g + Double(k) * 0.030 * g, 0) }
        #expect(try driver.motionDetected() == false)
    }

    @Test func mpu6050MotionDetectionComparesWithTheHeldSample() throws {
        let model = MPUModel(variant: .mpu6050)
        var (bus, driver) = try Self.running(
            model, SensorConfiguration(rateHz: 5, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.2))
        let writes = Self.mpuWrites(bus)
        #expect(writes.contains("0x1C 0x0F")) // ACCEL_CONFIG: ±4 g, ACCEL_HPF 7 (hold)
        #expect(writes.contains("0x38 0x40")) // INT_ENABLE: MOT_EN
        #expect(writes.contains("0x1F 0x0A")) // MOT_THR: 0.2 m/s² = 20.4 mg → 10 × 2 mg
        #expect(writes.contains("0x20 0x01")) // MOT_DUR: 1 ms
        #expect(!writes.contains { $0.hasPrefix("0x69") }) // MOT_DETECT_CTRL left alone
        #expect(driver.configuration?.wakeOnMotionThresholdMps2 == 10 * 0.002 * g)
        // 4 mg a sample: each step is small, but the sixth is 24 mg from the held sample (> 20 mg).
        let rest = model.accelerationMps2
        for k in 1...4 { model.accelerationMps2 = rest + Vector3(0, 0, Double(k) * 0.004 * g) }
        #expect(try driver.motionDetected() == false)
        model.accelerationMps2 = rest + Vector3(0, 0, 6 * 0.004 * g)
        #expect(try driver.motionDetected() == true)
    }

    @Test func reconfiguringWithoutAThresholdDisarms() throws {
        let model = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        var (bus, driver) = try Self.running(
            model, SensorConfiguration(rateHz: 7.81, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5))
        bus.clearLog()
        try driver.configure(SensorConfiguration(rateHz: 100))
        #expect(Self.mpuWrites(bus).contains("0x38 0x00"))
        #expect(model.registers[D.Register.intEnable.rawValue] == 0)
        #expect(model.registers[D.Register.accelIntelCtrl.rawValue] == 0)
        model.accelerationMps2 = Vector3(5, 0, 0)
        #expect(try driver.motionDetected() == false)
        #expect(driver.configuration?.wakeOnMotionThresholdMps2 == nil)
    }

    @Test func wakeOnMotionInSuspendIsRefusedWithWhatToDo() throws {
        let model = MPUModel(variant: .mpu6500)
        var (_, driver) = try Self.running(model, SensorConfiguration(rateHz: 100))
        let error = thrownError {
            try driver.configure(SensorConfiguration(rateHz: 10, powerMode: .suspend, wakeOnMotionThresholdMps2: 0.5))
        }
        #expect(
            error
                == .unsupportedConfiguration(
                    chip: "mpu6500",
                    detail: "wake-on-motion threshold 0.5 m/s² in suspend: the "
                        + "accelerometer must sample to see motion; use .lowPower"))
    }

    /// `INT_STATUS`, read (and so cleared) as the host would.
    static func intStatus(_ bus: SimulatedBus) throws -> UInt8 {
        var byte: UInt8 = 0
        try withUnsafeMutableBytes(of: &byte) { try bus.read(address: 0x68, register: D.Register.intStatus.rawValue, into: $0) }
        return byte
    }

    /// Counts the samples a timed model takes over `durationS` advanced in `stepS` steps (data-ready flags).
    static func samplesTaken(_ model: MPUModel, _ driver: inout MPU6xxx<SimulatedBus>, durationS: Double, stepS: Double) throws
        -> Int
    {
        var count = 0
        _ = try Self.intStatus(driver.bus) // clear
        let start = model.sampleTimeS ?? 0
        for k in 1...Int((durationS / stepS).rounded()) {
            model.accelerationMps2 = Vector3(0, 0, PhysicalConstants.standardGravityMps2 + Double(k % 2) * 0.01)
            model.sampleTimeS = start + Double(k) * stepS
            let status = try Self.intStatus(driver.bus)
            if status & 0x01 == 1 { count += 1 }
        }
        return count
    }

    @Test func aTimedModelSamplesAtItsConfiguredRateAndNotAtAllAsleep() throws {
        let model = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        model.sampleTimeS = 0
        var (_, driver) = try Self.running(model, SensorConfiguration(rateHz: 100))
        let normal = try Self.samplesTaken(model, &driver, durationS: 2, stepS: 0.005)
        // 100 Hz polled at 200 Hz: one sample at the first advance after configure, then one every 10 ms.
        #expect(normal == 201, "\(normal)")
        try driver.configure(SensorConfiguration(rateHz: 0.98, powerMode: .lowPower))
        #expect(model.outputDataRateHz == 0.98)
        let lowPower = try Self.samplesTaken(model, &driver, durationS: 20.4, stepS: 0.01)
        #expect(lowPower >= 19 && lowPower <= 21, "\(lowPower)") // 0.98 Hz: one every 1.02 s
        try driver.configure(SensorConfiguration(rateHz: 100, powerMode: .suspend))
        let frozen = model.registers.bytes[Int(D.Register.accelXoutH.rawValue)..<Int(D.Register.accelXoutH.rawValue) + 6]
        #expect(try Self.samplesTaken(model, &driver, durationS: 2, stepS: 0.01) == 0)
        #expect(model.registers.bytes[Int(D.Register.accelXoutH.rawValue)..<Int(D.Register.accelXoutH.rawValue) + 6] == frozen)
    }

    @Test func lowPowerWakeComparesSamplesAtTheLowPowerRate() throws {
        // A slow tilt of 20 mg per 0.1 s: at 100 Hz consecutive samples differ by 2 mg (never above 52 mg), but at
        // the 0.98 Hz low-power rate by ≈ 200 mg, so the wake fires.
        let model = MPUModel(variant: .mpu6500)
        model.sampleTimeS = 0
        var (_, driver) = try Self.running(
            model, SensorConfiguration(rateHz: 0.98, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5))
        _ = try driver.motionDetected()
        var fired = false
        for k in 1...300 {
            model.accelerationMps2 = Vector3(Double(k) * 0.002 * g, 0, g)
            model.sampleTimeS = Double(k) * 0.01
            if try driver.motionDetected() { fired = true }
        }
        #expect(fired)
        // The same tilt sampled at 100 Hz never differs by more than 2 mg between samples.
        let fast = MPUModel(variant: .mpu6500)
        fast.sampleTimeS = 0
        var (_, fastDriver) = try Self.running(fast, SensorConfiguration(rateHz: 100, wakeOnMotionThresholdMps2: 0.5))
        _ = try fastDriver.motionDetected()
        var fastFired = false
        for k in 1...300 {
            fast.accelerationMps2 = Vector3(Double(k) * 0.002 * g, 0, g)
            fast.sampleTimeS = Double(k) * 0.01
            if try fastDriver.motionDetected() { fastFired = true }
        }
        #expect(!fastFired)
    }
}
