import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// The simulated board end to end: scenario truth → chip models (registers) → the real drivers → SI values.
@Suite struct SimulatedBoardTests {
    static let tilted = Matrix3(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1])! // chip rotated 90° about z

    func board(
        noise: SensorNoise, scenario: String = "mixed-day", seed: UInt64 = 5,
        disturbance: MagneticDisturbance = .none
    ) throws -> SimulatedBoard {
        try SimulatedBoard(
            scenario: Scenario.named(scenario)!,
            placements: [
                .init(id: "imu", chip: "mpu9250", address: 0x68, mount: .identity, rateHz: 100),
                .init(id: "mag", chip: "lis3mdl", address: 0x1C, mount: Self.tilted, rateHz: 40),
                .init(id: "baro", chip: "bmp280", address: 0x76, mount: .identity, rateHz: 25)
            ], disturbance: disturbance, noise: noise, seed: seed)
    }

    /// With perfect sensors, what the drivers read equals the truth to within the chips' resolution, in
    /// board axes, through each chip's mount matrix — over a whole mixed day of walking, running, cycling,
    /// driving, stairs and a lift.
    @Test func driversReadTheTruthThroughTheRegistersWithinResolution() throws {
        let b = try board(noise: .none)
        var imu = try ChipCatalog.makeDriver(chip: "mpu9250", bus: b.bus, address: 0x68)
        var mag = try ChipCatalog.makeDriver(chip: "lis3mdl", bus: b.bus, address: 0x1C)
        var baro = try ChipCatalog.makeDriver(chip: "bmp280", bus: b.bus, address: 0x76)
        for d in [0, 1, 2] {
            switch d {
            case 0: _ = try imu.probe(); try imu.configure(SensorConfiguration(rateHz: 100))
            case 1: _ = try mag.probe(); try mag.configure(SensorConfiguration(rateHz: 40))
            default: _ = try baro.probe(); try baro.configure(SensorConfiguration(rateHz: 25, oversampling: 16))
            }
        }
        var worstAccel = 0.0, worstGyro = 0.0, worstMag = 0.0, worstAK = 0.0, worstPressure = 0.0
        var t = 0.0
        while t < 600 {
            b.advance(toTimeS: t)
            let truth = b.truth
            let r = try imu.read(timeS: t)
            worstAccel = max(worstAccel, (r.accelerationMps2! - truth.specificForceBoardMps2).length)
            worstGyro = max(worstGyro, (r.angularVelocityRadS! - truth.angularVelocityBoardRadS).length)
            if let ak = r.magneticFieldMicroTesla, let field = truth.magneticFieldBoardMicroTesla {
                worstAK = max(worstAK, (ak - field).length)
            }
            let m = try mag.read(timeS: t).mounted(by: Self.tilted)
            worstMag = max(worstMag, (m.magneticFieldMicroTesla! - truth.magneticFieldBoardMicroTesla!).length)
            let p = try baro.read(timeS: t)
            worstPressure = max(worstPressure, abs(p.pressurePa! - truth.pressurePa))
            // The chips sample on their own rate grids (100 Hz IMU, 40 Hz LIS3MDL): reads on an instant of every grid
            // see a sample of that instant's truth.
            t += 0.4
        }
        // ±4 g: 1 LSB = 1.2e-3 m/s² per axis; ±2000 °/s: 1 LSB = 1.06e-3 rad/s; LIS3MDL ±4 gauss: 0.0146 µT;
        // AK8963 16-bit: 0.15 µT (× ASA); BMP280 at 20-bit resolution: about 0.2 Pa.
        #expect(worstAccel < 0.0035)
        #expect(worstGyro < 0.0019)
        #expect(worstMag < 0.03)
        #expect(worstAK < 0.3)
        #expect(worstPressure < 0.5)
    }

    @Test func ironAndNoiseShowUpAsConfigured() throws {
        let hard = Vector3(20, -10, 5)
        let b = try board(
            noise: .none, scenario: "stationary", disturbance: MagneticDisturbance(hardIronMicroTesla: hard, softIron: .identity))
        var mag = try ChipCatalog.makeDriver(chip: "lis3mdl", bus: b.bus, address: 0x1C)
        _ = try mag.probe(); try mag.configure(SensorConfiguration(rateHz: 40))
        b.advance(toTimeS: 1)
        let m = try mag.read(timeS: 1).mounted(by: Self.tilted).magneticFieldMicroTesla!
        #expect((m - (b.truth.magneticFieldBoardMicroTesla! + hard)).length < 0.03)

        // Consumer-grade noise: the gyro's spread at rest is the datasheet noise density over the bandwidth.
        let noisy = try board(noise: .consumerMEMS, scenario: "stationary")
        var imu = try ChipCatalog.makeDriver(chip: "mpu6050", bus: noisy.bus, address: 0x68)
        // A 9250 is attached; a 6050 driver must refuse it.
        #expect(throws: SensorError.self) { _ = try imu.probe() }
        imu = try ChipCatalog.makeDriver(chip: "mpu9250", bus: noisy.bus, address: 0x68)
        _ = try imu.probe(); try imu.configure(SensorConfiguration(rateHz: 100))
        var samples: [Double] = []
        for i in 0..<2000 {
            noisy.advance(toTimeS: Double(i) / 100)
            samples.append(try imu.read(timeS: Double(i) / 100).angularVelocityRadS!.z)
        }
        let mean = samples.reduce(0, +) / Double(samples.count)
        let sd = (samples.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(samples.count)).squareRoot()
        let expected = Angle.radians(fromDegrees: 0.01) * (50.0).squareRoot() // 0.01 °/s/√Hz over 50 Hz
        #expect(sd > 0.6 * expected && sd < 1.6 * expected)
    }

    @Test func sameSeedSameRegisters() throws {
        func trace(_ seed: UInt64) throws -> [Double] {
            let b = try board(noise: .consumerMEMS, seed: seed)
            var baro = try ChipCatalog.makeDriver(chip: "bmp280", bus: b.bus, address: 0x76)
            _ = try baro.probe(); try baro.configure(SensorConfiguration(rateHz: 25))
            return try (0..<50).map { i in
                b.advance(toTimeS: Double(i) * 0.04); return try baro.read(timeS: 0).pressurePa!
            }
        }
        #expect(try trace(1) == trace(1))
        #expect(try trace(1) != trace(2))
    }

    @Test func unknownChipOrDuplicateAddressIsOneLine() {
        #expect(throws: SimulationError.self) {
            try SimulatedBoard(
                scenario: Scenario.named("walk")!,
                placements: [
                    .init(id: "x", chip: "bme680", address: 0x76, mount: .identity, rateHz: 10)
                ], seed: 1)
        }
        #expect(throws: SimulationError.self) {
            try SimulatedBoard(
                scenario: Scenario.named("walk")!,
                placements: [
                    .init(id: "a", chip: "bmp280", address: 0x76, mount: .identity, rateHz: 10),
                    .init(id: "b", chip: "bmp280", address: 0x76, mount: .identity, rateHz: 10)
                ], seed: 1)
        }
    }
}
