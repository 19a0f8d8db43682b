import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// Issue 3's chips on the simulated board: truth → chip models → the real drivers → SI values in board axes.
@Suite struct SimulatedIMUBoardTests {
    static let turned = Matrix3(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1])! // chip rotated 90° about z

    /// With perfect sensors, each chip's reading through its mount matrix equals the truth within its resolution over
    /// two minutes of a mixed day.
    @Test func everyIssue3ChipReadsTheTruthThroughItsRegisters() throws {
        let placements: [SimulatedBoard.Placement] = [
            .init(id: "icm", chip: "icm20948", address: 0x69, mount: Self.turned, rateHz: 100),
            .init(id: "dsl", chip: "lsm6dsl", address: 0x6A, mount: .identity, rateHz: 104),
            .init(id: "ds1", chip: "lsm9ds1", address: 0x6B, mount: Self.turned, rateHz: 119),
            .init(id: "ds1m", chip: "lsm9ds1-mag", address: 0x1E, mount: Self.turned, rateHz: 80),
            .init(id: "adxl", chip: "adxl345", address: 0x53, mount: .identity, rateHz: 100)
        ]
        let board = try SimulatedBoard(scenario: Scenario.named("mixed-day")!, placements: placements, noise: .none, seed: 3)
        var drivers = try placements.map { p -> any SensorDriver in
            var d = try ChipCatalog.makeDriver(chip: p.chip, bus: board.bus, address: p.address)
            _ = try d.probe()
            try d.configure(
                SensorConfiguration(rateHz: p.rateHz, accelerationRangeMps2: 4 * PhysicalConstants.standardGravityMps2))
            return d
        }
        var worstAccel = [Double](repeating: 0, count: placements.count)
        var worstGyro = worstAccel, worstMag = worstAccel
        var fields = 0
        var t = 0.0
        while t < 120 {
            board.advance(toTimeS: t)
            let truth = board.truth
            for i in drivers.indices {
                let r = try drivers[i].read(timeS: t).mounted(by: placements[i].mount)
                if let a = r.accelerationMps2 { worstAccel[i] = max(worstAccel[i], (a - truth.specificForceBoardMps2).length) }
                if let w = r.angularVelocityRadS { worstGyro[i] = max(worstGyro[i], (w - truth.angularVelocityBoardRadS).length) }
                if let m = r.magneticFieldMicroTesla, let b = truth.magneticFieldBoardMicroTesla {
                    worstMag[i] = max(worstMag[i], (m - b).length)
                    fields += 1
                }
            }
            t += 0.23
        }
        // One LSB per axis (√3 of them at most): ICM ±4 g 1.2e-3 m/s², ±2000 °/s 1.06e-3 rad/s, AK09916 0.15 µT;
        // LSM6DSL ±4 g 1.2e-3, 70 mdps 1.22e-3; LSM9DS1 ±4 g 1.2e-3, 70 mdps, 0.014 µT; ADXL345 0.038 m/s².
        #expect(
            worstAccel[0] < 0.0035 && worstAccel[1] < 0.0035 && worstAccel[2] < 0.0035 && worstAccel[4] < 0.07, "\(worstAccel)")
        #expect(worstGyro[0] < 0.0019 && worstGyro[1] < 0.0022 && worstGyro[2] < 0.0022, "\(worstGyro)")
        #expect(worstMag[0] < 0.14 && worstMag[3] < 0.025, "\(worstMag)")
        #expect(fields > 500)
    }

    @Test func theICM20948sMagnetometerTakesAddress0x0C() {
        #expect(throws: SimulationError.self) {
            try SimulatedBoard(
                scenario: Scenario.named("mixed-day")!,
                placements: [
                    .init(id: "a", chip: "icm20948", address: 0x68, mount: .identity, rateHz: 100),
                    .init(id: "b", chip: "ak09916", address: 0x0C, mount: .identity, rateHz: 100)
                ], noise: .none, seed: 1)
        }
    }
}
