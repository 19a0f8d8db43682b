// The simulator's per-sample work: one step of the simulated board (truth, sensor errors, every chip model
// updated) followed by one read of every sensor on it through the real drivers, as the engine does at each
// sample; and the scenario generator's `sample(atTimeS:)` on its own.
//
// Both walk the `mixed-day` scenario (every activity, GNSS outages, lifts, stairs) at 100 Hz. The state lives
// in a fixture made by the benchmark's setup, so each measured iteration (1000 samples, 10 s of scenario time)
// continues where the last one stopped; when the scenario is over the fixture is rebuilt, unmeasured, so the
// samples never settle into the final stationary hold.

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

/// Sample period of both benchmarks, s (100 Hz, the IMU rate of the board below).
let samplePeriodS = 0.01
/// The scenario: `mixed-day` covers every activity the generator models.
let scenario = Scenario.named(Scenario.defaultName)! // the catalog's own default; a missing one is a bug

/// A simulated board with a barometer, a magnetometer and a 9-axis IMU, and the drivers an engine runs on it.
final class BoardFixture {
    private(set) var board: SimulatedBoard
    var barometer: BMP280<SimulatedBus>
    var magnetometer: LIS3MDL<SimulatedBus>
    var imu: MPU6xxx<SimulatedBus>
    var timeS = 0.0

    static let placements = [
        SimulatedBoard.Placement(id: "baro", chip: "bmp280", address: 0x76, mount: .identity, rateHz: 50),
        SimulatedBoard.Placement(id: "mag", chip: "lis3mdl", address: 0x1C, mount: .identity, rateHz: 80),
        SimulatedBoard.Placement(id: "imu", chip: "mpu9250", address: 0x68, mount: .identity, rateHz: 100)
    ]

    init() throws {
        board = try SimulatedBoard(scenario: scenario, placements: Self.placements, seed: 1)
        (barometer, magnetometer, imu) = try Self.makeDrivers(on: board.bus)
    }

    /// A fresh board (and drivers) at time 0.
    func restart() throws {
        board = try SimulatedBoard(scenario: scenario, placements: Self.placements, seed: 1)
        (barometer, magnetometer, imu) = try Self.makeDrivers(on: board.bus)
        timeS = 0
    }

    private static func makeDrivers(on bus: SimulatedBus) throws
        -> (BMP280<SimulatedBus>, LIS3MDL<SimulatedBus>, MPU6xxx<SimulatedBus>)
    {
        var barometer = BMP280(bus: bus, address: 0x76)
        var magnetometer = LIS3MDL(bus: bus, address: 0x1C)
        var imu = MPU6xxx(bus: bus, address: 0x68, variant: .mpu9250)
        _ = try barometer.probe()
        _ = try magnetometer.probe()
        _ = try imu.probe()
        try barometer.configure(SensorConfiguration(rateHz: 50))
        try magnetometer.configure(SensorConfiguration(rateHz: 80))
        try imu.configure(SensorConfiguration(rateHz: 100))
        return (barometer, magnetometer, imu)
    }
}

/// The scenario generator alone.
final class GeneratorFixture {
    var generator = TrajectoryGenerator(scenario: scenario, seed: 1)
    var timeS = 0.0

    func restart() {
        generator = TrajectoryGenerator(scenario: scenario, seed: 1)
        timeS = 0
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration
    engineBenchmarks() // the engine with a scheduler's plan applied: EngineWithPlan.swift

    Benchmark("SimulatedBoard.step", configuration: configuration) { benchmark, fixture in
        if fixture.timeS > scenario.totalDurationS { try fixture.restart() }
        var imuReadingsWithField = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.timeS += samplePeriodS
            let t = fixture.timeS
            fixture.board.advance(toTimeS: t)
            blackHole(try fixture.barometer.read(timeS: t))
            blackHole(try fixture.magnetometer.read(timeS: t))
            let imuReading = try fixture.imu.read(timeS: t)
            if imuReading.magneticFieldMicroTesla != nil { imuReadingsWithField += 1 }
            blackHole(imuReading)
        }
        benchmark.stopMeasurement()
        // Every step gives the AK8963 a new field (continuous mode at 100 Hz): a step without one would mean
        // the benchmark skipped the magnetometer decode and measured less than the engine does.
        precondition(imuReadingsWithField == benchmark.scaledIterations.count, "the MPU-9250's AK8963 gave no field")
    } setup: {
        try BoardFixture()
    }

    Benchmark("TrajectoryGenerator.sample", configuration: configuration) { benchmark, fixture in
        if fixture.timeS > scenario.totalDurationS { fixture.restart() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            fixture.timeS += samplePeriodS
            blackHole(fixture.generator.sample(atTimeS: fixture.timeS))
        }
        benchmark.stopMeasurement()
    } setup: {
        GeneratorFixture()
    }
}
