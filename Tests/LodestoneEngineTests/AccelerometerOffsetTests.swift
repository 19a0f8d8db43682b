import Foundation
import LodestoneCore
import LodestoneFusion
import LodestoneOrientation
import Testing
@testable import LodestoneEngine

/// The accelerometer's zero-g offset (issue 17's day-scenario heading): it belongs to the simulated board's unit, so
/// the board's calibration holds whatever the run's seed; and the heading accuracy a session states includes the tilt
/// what is left of the offset causes.
@Suite struct AccelerometerOffsetTests {
    static let boardPath = repositoryRoot.appendingPathComponent("boards/simulated.json").path
    static let calibrationPath = repositoryRoot.appendingPathComponent("calibration/simulated.json").path

    /// The simulated board's `imu` offset on a run of `seed`, board axes, m/s².
    static func offset(_ board: BoardDescription, seed: UInt64) throws -> Vector3 {
        let runtime = try BoardRuntime.assemble(board, seed: seed, scenario: nil)
        let world = try #require(runtime.world)
        return try #require(world.board.accelerometerOffsetMps2(sensor: "imu"))
    }

    /// Runs of the shipped board under any seed carry the offset its calibration file measured (within 10 mg, the
    /// power-on repeatability of 2 mg per axis and the calibration's own error), each run a little different; a board
    /// that is another unit of the same chips has an offset of its own, which that file does not fit.
    @Test func theOffsetBelongsToTheUnitSoTheBoardsCalibrationHoldsOnEverySeed() throws {
        let board = try BoardDescription.load(path: Self.boardPath)
        #expect(board.simulation?.unit == 1)
        let calibration = try CalibrationFiles.load(path: Self.calibrationPath)
        let measured = try #require(calibration.sensors.lazy.compactMap(\.accelerometer).first).offsetMps2
        let tenMg = 0.010 * PhysicalConstants.standardGravityMps2
        var offsets: [Vector3] = []
        for seed: UInt64 in [1, 3, 7, 42] {
            let o = try Self.offset(board, seed: seed)
            #expect((o - measured).length < tenMg, "seed \(seed): offset \(o) vs calibrated \(measured)")
            offsets.append(o)
        }
        #expect(Set(offsets.map { "\($0)" }).count == offsets.count, "a power-on changes the offset a little")
        var other = board
        other.simulation?.unit = 2
        let o2 = try Self.offset(other, seed: 1)
        #expect((o2 - measured).length > 5 * tenMg, "unit 2's offset \(o2) is its own")
    }

    /// The orientation parameters a session on `board` (seed 1, no scheduler) gives its filter, after `configure`.
    static func orientationParameters(
        _ board: BoardDescription, _ configure: (inout SessionConfiguration) throws -> Void
    ) throws -> OrientationFilter.Parameters {
        var c = SessionConfiguration(board: board, seed: 1, durationS: 1)
        c.scheduling = nil
        try configure(&c)
        return try SessionCore(configuration: c).state.fusion.configuration.orientation.parameters
    }

    @Test func aBoardFilesUnitMustBeAWholeNumber() {
        for (value, ok) in [("2", true), ("0", true), ("-1", false), ("1.5", false), ("\"1\"", false)] {
            let json = """
                {"format":"lodestone-board/1","name":"x","simulation":{"scenario":"walk","unit":\(value)},
                 "sensors":[{"id":"a","chip":"bmp280","bus":{"simulated":true},"rateHz":10}]}
                """
            do {
                let board = try BoardDescription.parse(Data(json.utf8), path: "b.json")
                #expect(ok && board.simulation?.unit == UInt64(value), "\(value)")
            } catch {
                #expect(!ok, "\(value): \(error)")
                #expect(
                    error.description
                        == "b.json: simulation.unit: must be a whole number ≥ 0 (which unit of the chips the board is)")
            }
        }
    }

    /// What the session tells the orientation filter: the calibration's residual and drift with a calibration, a third
    /// of the chip's data-sheet tolerance without (the MPU-9250's ±60 mg; a chip with no bound, 60 mg too), nothing
    /// for a trace replay, and a value the configuration set itself stands.
    @Test func theSessionStatesWhatTheCalibrationOrTheChipLeaves() throws {
        let board = try BoardDescription.load(path: Self.boardPath)
        func sigma(_ configure: (inout SessionConfiguration) throws -> Void) throws -> Double {
            try Self.orientationParameters(board, configure).accelerometerOffsetSigmaMps2
        }
        let mg = PhysicalConstants.standardGravityMps2 / 1000
        let uncalibrated = try sigma { _ in }
        #expect(abs(uncalibrated - 20 * mg) < 1e-12)
        let calibrated = try sigma { c in
            c.fusion.calibration = CalibrationStage.Configuration(
                document: try CalibrationFiles.load(path: Self.calibrationPath), path: Self.calibrationPath)
        }
        #expect(calibrated > 3 * mg && calibrated < 3.1 * mg, "\(calibrated / mg) mg")
        let chosen = try sigma { c in c.fusion.orientation.parameters.accelerometerOffsetSigmaMps2 = 0.05 }
        #expect(chosen == 0.05)
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("offset-\(getpid()).csv").path
        try "t_s,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,0,9.8\n".write(toFile: trace, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        #expect(try sigma { c in c.input = .trace(path: trace) } == 0)
        #expect(AccelerometerOffsetUncertainty.sigmaMps2(chip: .lsm6dsox, calibration: nil) == 20 * mg)
        #expect(AccelerometerOffsetUncertainty.sigmaMps2(chip: .mpu6050, calibration: nil) == 50.0 / 3 * mg)
    }

    /// The filter's stated heading accuracy grows by the tilt term in quadrature: (σ/g · tan dip)² on the variance,
    /// with the dip of the field it has seen (63° here, as at the simulated scenarios' 52° N).
    @Test func theHeadingVarianceGainsTheTiltTermInQuadrature() throws {
        func settled(offsetSigmaMps2: Double) -> OrientationFilter {
            var p = OrientationFilter.Parameters()
            p.accelerometerOffsetSigmaMps2 = offsetSigmaMps2
            var filter = OrientationFilter(parameters: p)
            // Level, turning about the vertical at 0.2 rad/s (at rest the filter holds its heading and learns
            // nothing of the field): the earth's field (63° dip) seen in the turning board's axes.
            let dipRad = 63 * Double.pi / 180
            let rateRadS = 0.2
            for i in 0..<12000 {
                let t = Double(i) * 0.01
                let yaw = rateRadS * t
                let field = Vector3(50 * cos(dipRad) * sin(yaw), 50 * cos(dipRad) * cos(yaw), -50 * sin(dipRad))
                filter.update(
                    timeS: t, gyroscopeRadS: Vector3(0, 0, rateRadS),
                    accelerometerMps2: Vector3(0, 0, PhysicalConstants.standardGravityMps2), magnetometerMicroTesla: field)
            }
            return filter
        }
        let without = try #require(settled(offsetSigmaMps2: 0).headingSigmaDeg)
        let sigma = 0.2
        let with = try #require(settled(offsetSigmaMps2: sigma).headingSigmaDeg)
        let termDeg = sigma / PhysicalConstants.standardGravityMps2 * tan(63 * Double.pi / 180) * 180 / Double.pi
        #expect(
            abs((with * with - without * without).squareRoot() - termDeg) < 0.01 * termDeg,
            "\(without) → \(with), dip \(settled(offsetSigmaMps2: sigma).state.magnetic.referenceDipRad) rad")
    }
}
