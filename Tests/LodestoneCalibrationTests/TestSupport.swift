import LodestoneCore
import LodestoneSimulation
@testable import LodestoneCalibration

/// Synthetic magnetometer data: the Earth's field seen through a known hard and soft iron, in orientations
/// spread over the sphere, with Gaussian noise.
struct SyntheticMagnetometer {
    var fieldENUMicroTesla = Vector3(0.9, 21.3, -43.3) // roughly Zürich, WMM2025 (F ≈ 48.3 µT, I ≈ 63.8°)
    var hardIronMicroTesla = Vector3(12.0, -7.5, 4.0)
    var softIron = Matrix3(rows: Vector3(1.03, 0.02, 0.0), Vector3(0.02, 0.97, 0.01), Vector3(0.0, 0.01, 1.0))
    var noiseMicroTesla = 0.32
    var seed: UInt64 = 1

    /// A uniformly random rotation (Shoemake, *Uniform random rotations*, Graphics Gems III, 1992).
    static func randomRotation(_ r: inout SeededGenerator) -> Quaternion {
        let u1 = r.uniform(), u2 = r.uniform() * 2 * Double.pi, u3 = r.uniform() * 2 * Double.pi
        let a = (1 - u1).squareRoot(), b = u1.squareRoot()
        return Quaternion(w: b * cos(u3), x: a * sin(u2), y: a * cos(u2), z: b * sin(u3))
    }

    /// The reading for a board orientation (board → ENU), and the true board-frame field.
    func reading(_ boardToENU: Quaternion, _ random: inout SeededGenerator) -> (measured: Vector3, truth: Vector3) {
        let truth = boardToENU.conjugate.rotate(fieldENUMicroTesla)
        let noise = Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * noiseMicroTesla
        return (softIron * truth + hardIronMicroTesla + noise, truth)
    }

    /// `count` readings in uniformly random orientations.
    func samples(_ count: Int) -> [Vector3] {
        var r = SeededGenerator(seed: seed)
        return (0..<count).map { _ in reading(Self.randomRotation(&r), &r).measured }
    }

    /// Readings while the board spins flat about its z axis (a cone of directions, not a sphere).
    func flatSpin(_ count: Int) -> [Vector3] {
        var r = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            reading(Quaternion(axis: Vector3(0, 0, 1), angleRad: Double(i) * 0.1), &r).measured
        }
    }
}

/// Largest absolute entry-wise difference.
func maximumDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
    zip(a.rowMajor, b.rowMajor).map { abs($0 - $1) }.max() ?? 0
}

/// A matrix scaled to determinant 1.
func unitDeterminant(_ m: Matrix3) -> Matrix3 {
    let d = m.determinant
    return m * (1 / (d < 0 ? -1 : 1) / Double.pow(abs(d), 1.0 / 3))
}

import RealModule
func cos(_ x: Double) -> Double { Double.cos(x) }
func sin(_ x: Double) -> Double { Double.sin(x) }

import LodestoneDrivers

/// The simulated board of `boards/simulated.json` (MPU-9250 at 100 Hz, LIS3MDL rotated 90° at 40 Hz, BMP280
/// at 25 Hz) with its carrier's hard and soft iron, carried through a scenario and read by the real drivers.
/// Readings come out in board axes, as the engine delivers them.
final class SimulatedBoardRun {
    static let magnetometerMount = Matrix3(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1])!
    static let hardIronMicroTesla = Vector3(12.0, -7.5, 4.0)
    static let softIron = Matrix3(rowMajor: [1.03, 0.02, 0.0, 0.02, 0.97, 0.01, 0.0, 0.01, 1.0])!

    let board: SimulatedBoard
    private var imu: any SensorDriver
    private var magnetometer: any SensorDriver
    private var barometer: any SensorDriver
    let magnetometerMount: Matrix3
    /// Time of the last step, s.
    private(set) var timeS = 0.0
    private var tick = 0

    init(
        scenario: String, seed: UInt64 = 1, magnetometerMount: Matrix3 = SimulatedBoardRun.magnetometerMount,
        disturbance: MagneticDisturbance = MagneticDisturbance(
            hardIronMicroTesla: SimulatedBoardRun.hardIronMicroTesla,
            softIron: SimulatedBoardRun.softIron),
        noise: SensorNoise = .consumerMEMS
    ) throws {
        self.magnetometerMount = magnetometerMount
        board = try SimulatedBoard(
            scenario: Scenario.named(scenario)!,
            placements: [
                .init(id: "imu", chip: "mpu9250", address: 0x68, mount: .identity, rateHz: 100),
                .init(id: "mag", chip: "lis3mdl", address: 0x1C, mount: Self.magnetometerMount, rateHz: 40),
                .init(id: "baro", chip: "bmp280", address: 0x76, mount: .identity, rateHz: 25)
            ], disturbance: disturbance, noise: noise, seed: seed)
        imu = try ChipCatalog.makeDriver(chip: "mpu9250", bus: board.bus, address: 0x68)
        magnetometer = try ChipCatalog.makeDriver(chip: "lis3mdl", bus: board.bus, address: 0x1C)
        barometer = try ChipCatalog.makeDriver(chip: "bmp280", bus: board.bus, address: 0x76)
        _ = try imu.probe(); try imu.configure(SensorConfiguration(rateHz: 100))
        _ = try magnetometer.probe(); try magnetometer.configure(SensorConfiguration(rateHz: 40))
        _ = try barometer.probe(); try barometer.configure(SensorConfiguration(rateHz: 25, oversampling: 16))
    }

    /// One reading instant: the truth, and whichever sensors were due (board axes).
    struct Step {
        var timeS: Double
        var truth: TruthSample
        var imu: SensorReading?
        var magnetometer: SensorReading?
        var barometer: SensorReading?
    }

    /// Advances 5 ms and reads the sensors due then (IMU every 10 ms, LIS3MDL every 25 ms, BMP280 every 40 ms).
    func step() throws -> Step {
        tick += 1
        timeS = Double(tick) * 0.005
        board.advance(toTimeS: timeS)
        var s = Step(timeS: timeS, truth: board.truth)
        if tick % 2 == 0 { s.imu = try imu.read(timeS: timeS) }
        // The board file's mount is what the engine applies; a test of a wrong mount passes another one.
        if tick % 5 == 0 { s.magnetometer = try magnetometer.read(timeS: timeS).mounted(by: magnetometerMount) }
        if tick % 8 == 0 { s.barometer = try barometer.read(timeS: timeS) }
        return s
    }
}

/// The WMM2025 field where the scenarios start (Zürich, 455.5 m above the ellipsoid, 2026.5).
let zurichField = ExpectedField.worldMagneticModel(
    latitudeDeg: 47.3769, longitudeDeg: 8.5417, heightM: 455.5, decimalYear: 2026.5)!

/// Magnetic heading (deg, clockwise from magnetic north) of a board-frame field seen by a board whose
/// orientation is `boardToENU`: the field's horizontal direction in ENU.
func fieldAzimuthDeg(_ fieldBoard: Vector3, _ boardToENU: Quaternion) -> Double {
    let enu = boardToENU.rotate(fieldBoard)
    return Angle.degrees(fromRadians: Double.atan2(y: enu.x, x: enu.y))
}
