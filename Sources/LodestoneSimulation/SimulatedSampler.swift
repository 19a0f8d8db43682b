import LodestoneCore
import LodestoneDrivers

/// The simulated board sampled the way `lodestone run` samples the default board: an MPU-9250 at 100 Hz and a
/// BMP280 at 25 Hz on the simulator bus, read through the real drivers, and the simulated receiver's fixes, for
/// harnesses and tests that need a scenario's samples with a chosen noise model (the engine's own board is
/// assembled from a board file instead). The magnetometer is left out.
public struct SimulatedSampler {
    /// The board (its truth is the state of the last sample).
    public let board: SimulatedBoard
    /// IMU rate, Hz (every sample), and barometer divider (a pressure every fourth sample: 25 Hz).
    public static let imuRateHz = 100.0
    public static let barometerDivider = 4
    private var imu: MPU6xxx<SimulatedBus>
    private var barometer: BMP280<SimulatedBus>
    private var tick = 0

    /// A sampler for `scenario` with `noise`, deterministic for `seed`. Throws when a driver cannot set up its
    /// chip (a simulator bug).
    public init(scenario: Scenario, noise: SensorNoise = .consumerMEMS, seed: UInt64 = 1) throws {
        let placements = [
            SimulatedBoard.Placement(id: "imu", chip: "mpu9250", address: 0x68, mount: .identity, rateHz: Self.imuRateHz),
            SimulatedBoard.Placement(
                id: "baro", chip: "bmp280", address: 0x76, mount: .identity,
                rateHz: Self.imuRateHz / Double(Self.barometerDivider))
        ]
        board = try SimulatedBoard(scenario: scenario, placements: placements, noise: noise, seed: seed)
        imu = MPU6xxx(bus: board.bus, address: 0x68, variant: .mpu9250)
        barometer = BMP280(bus: board.bus, address: 0x76)
        _ = try imu.probe()
        _ = try barometer.probe()
        _ = try imu.configure(SensorConfiguration(rateHz: Self.imuRateHz))
        _ = try barometer.configure(SensorConfiguration(rateHz: Self.imuRateHz / Double(Self.barometerDivider)))
    }

    /// The next sample: acceleration and rate (board axes), a pressure every fourth sample, the fix when the
    /// receiver has a new one, and the truth at that instant.
    public mutating func next() throws -> (reading: SensorReading, fix: GNSSFix?, truth: TruthSample) {
        let t = Double(tick) / Self.imuRateHz
        board.advance(toTimeS: t)
        var r = try imu.read(timeS: t)
        r.magneticFieldMicroTesla = nil
        if tick % Self.barometerDivider == 0 { r.pressurePa = try barometer.read(timeS: t).pressurePa }
        tick += 1
        return (r, board.hasNewFix ? board.latestFix : nil, board.truth)
    }
}
