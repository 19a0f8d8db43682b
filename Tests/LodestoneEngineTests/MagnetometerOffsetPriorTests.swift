import Foundation
import LodestoneCore
import LodestoneFusion
import LodestoneGeomagnetism
import LodestoneOrientation
import Testing
@testable import LodestoneEngine

/// A magnetometer nobody calibrated (issue 18's soak: the uncalibrated board's heading was within its stated accuracy
/// 200 times of 871): its board-fixed field is unknown until the board has turned, and the stated heading accuracy
/// says so; a `Session` finds the board's calibration as `lodestone run` does, so a calibrated board is not treated as
/// uncalibrated in a program that did not ask for the file itself.
@Suite struct MagnetometerOffsetPriorTests {
    static let boardPath = repositoryRoot.appendingPathComponent("boards/simulated.json").path
    static let calibrationPath = repositoryRoot.appendingPathComponent("calibration/simulated.json").path

    /// What the session tells the filter: 10 µT for a magnetometer chip without a calibration, nothing with one, nothing
    /// for a trace replay, and a value the configuration set itself stands.
    @Test func theSessionStatesAnOffsetOnlyForAnUncalibratedMagnetometer() throws {
        let board = try BoardDescription.load(path: Self.boardPath)
        func sigma(_ configure: (inout SessionConfiguration) throws -> Void) throws -> Double {
            try AccelerometerOffsetTests.orientationParameters(board, configure).magnetometerOffsetSigmaMicroTesla
        }
        #expect(try sigma { _ in } == OrientationFilter.Parameters.uncalibratedMagnetometerOffsetSigmaMicroTesla)
        #expect(OrientationFilter.Parameters.uncalibratedMagnetometerOffsetSigmaMicroTesla == 10)
        let calibrated = try sigma { c in
            c.fusion.calibration = CalibrationStage.Configuration(
                document: try CalibrationFiles.load(path: Self.calibrationPath), path: Self.calibrationPath)
        }
        #expect(calibrated == 0)
        #expect(try sigma { c in c.fusion.orientation.parameters.magnetometerOffsetSigmaMicroTesla = 3 } == 3)
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("mag-prior-\(getpid()).csv").path
        try "t_s,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,0,9.8\n".write(toFile: trace, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        #expect(try sigma { c in c.input = .trace(path: trace) } == 0)
    }

    /// A `Session` whose configuration chose no calibration looks for the board's (here the checkout's
    /// calibration/simulated.json beside boards/simulated.json); a choice, `disabled` included, stands.
    @Test func aSessionUsesTheBoardsCalibrationUnlessTheProgramChose() async throws {
        let board = try BoardDescription.load(path: Self.boardPath)
        #expect(CalibrationStage.Configuration().isUnchosen)
        var c = SessionConfiguration(board: board, seed: 1, durationS: 1)
        c.scheduling = nil
        let found = try Session(configuration: c)
        let used = await found.fusion
        #expect(used.calibration.path == Self.calibrationPath)
        #expect(used.calibration.document?.sensors.contains { $0.magnetometer != nil } == true)
        #expect(used.orientation.parameters.magnetometerOffsetSigmaMicroTesla == 0)

        c.fusion.calibration = CalibrationStage.Configuration(disabled: true)
        let off = try Session(configuration: c)
        let usedOff = await off.fusion
        #expect(usedOff.calibration.disabled && usedOff.calibration.document == nil)
        #expect(usedOff.orientation.parameters.magnetometerOffsetSigmaMicroTesla == 10)

        // A broken file where the board's calibration is looked for is the session's setup error, not a silent none.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mag-prior-\(getpid())")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("boards"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("calibration"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let boardCopy = dir.appendingPathComponent("boards/simulated.json").path
        try FileManager.default.copyItem(atPath: Self.boardPath, toPath: boardCopy)
        try "{\"format\":".write(
            toFile: dir.appendingPathComponent("calibration/simulated.json").path, atomically: false, encoding: .utf8)
        var broken = SessionConfiguration(board: try BoardDescription.load(path: boardCopy), seed: 1, durationS: 1)
        broken.scheduling = nil
        #expect(throws: SessionError.self) { try Session(configuration: broken) }
    }

    /// A level board at rest with a board-fixed 12 µT along x (no calibration, not turned: nothing in the data shows
    /// the offset): the heading is off by atan(12 / horizontal field); without the prior the stated accuracy misses it,
    /// with 10 µT it covers it. Once the board has turned the filter's own tracker knows: with the offset it says
    /// calibration is needed and its accuracy still covers the error; without one the prior's term shrinks away.
    @Test func anUnmeasuredOffsetWidensTheHeadingAccuracyUntilTheBoardTurns() throws {
        let dipRad = 63 * Double.pi / 180, fieldMicroTesla = 50.0
        let horizontal = fieldMicroTesla * cos(dipRad)
        struct Outcome { var errorDeg, accuracyDeg: Double; var calibrationNeeded: Bool }
        func run(offset: Vector3, sigmaMicroTesla: Double, restS: Double, turnS: Double) -> Outcome {
            var p = OrientationFilter.Parameters()
            p.magnetometerOffsetSigmaMicroTesla = sigmaMicroTesla
            var filter = OrientationFilter(parameters: p)
            let rateRadS = 0.5
            var yaw = 0.0
            for i in 0..<Int((restS + turnS) / 0.01) {
                let t = Double(i) * 0.01
                let turning = t >= restS
                if turning { yaw += rateRadS * 0.01 }
                // The board's y axis points at azimuth `yaw` (clockwise from north): the earth's field in board axes.
                let earth = Vector3(-horizontal * sin(yaw), horizontal * cos(yaw), -fieldMicroTesla * sin(dipRad))
                filter.update(
                    timeS: t, gyroscopeRadS: Vector3(0, 0, turning ? -rateRadS : 0),
                    accelerometerMps2: Vector3(0, 0, PhysicalConstants.standardGravityMps2),
                    magnetometerMicroTesla: earth + offset)
            }
            let heading = filter.heading(timeS: restS + turnS, declinationDeg: nil)
            let trueDeg = (yaw * 180 / Double.pi).truncatingRemainder(dividingBy: 360)
            var error = abs((heading?.magneticHeadingDeg ?? .nan) - trueDeg).truncatingRemainder(dividingBy: 360)
            if error > 180 { error = 360 - error }
            return Outcome(
                errorDeg: error, accuracyDeg: heading?.headingAccuracyDeg ?? .nan,
                calibrationNeeded: heading?.calibrationNeeded ?? false)
        }
        let offset = Vector3(12, 0, 0)
        let expectedErrorDeg = atan(12 / horizontal) * 180 / Double.pi
        // At rest nothing shows the offset, and the filter's accuracy at rest is wide either way.
        let atRest = run(offset: offset, sigmaMicroTesla: 10, restS: 300, turnS: 0)
        #expect(abs(atRest.errorDeg - expectedErrorDeg) < 3, "\(atRest)")
        #expect(atRest.accuracyDeg >= atRest.errorDeg && !atRest.calibrationNeeded, "\(atRest)")
        // Turned about the vertical only: without the prior the error is 6 times the stated accuracy; with it the
        // filter sees the horizontal offset, says calibration is needed and states an accuracy that covers it.
        for turnS in [30.0, 120.0] {
            let without = run(offset: offset, sigmaMicroTesla: 0, restS: 30, turnS: turnS)
            #expect(without.accuracyDeg < without.errorDeg / 3, "\(turnS) s: \(without)")
            let with = run(offset: offset, sigmaMicroTesla: 10, restS: 30, turnS: turnS)
            #expect(abs(with.errorDeg - expectedErrorDeg) < 3, "\(turnS) s: \(with)")
            #expect(with.accuracyDeg >= with.errorDeg && with.calibrationNeeded, "\(turnS) s: \(with)")
        }
        // A clean board: once turned the prior has shrunk to almost nothing.
        let clean = run(offset: .zero, sigmaMicroTesla: 10, restS: 30, turnS: 120)
        let cleanWithout = run(offset: .zero, sigmaMicroTesla: 0, restS: 30, turnS: 120)
        #expect(!clean.calibrationNeeded && clean.accuracyDeg >= clean.errorDeg, "\(clean)")
        #expect(clean.accuracyDeg < cleanWithout.accuracyDeg + 1.5, "\(clean) vs \(cleanWithout)")
    }

    /// The orientation stage expects the field its calibration measured (`ExpectedFieldTests`: what the filter does with it).
    @Test func theStageExpectsTheCalibrationsFieldStrength() throws {
        let path = Self.calibrationPath
        let document = try CalibrationFiles.load(path: path)
        var configuration = FusionConfiguration()
        configuration.calibration = CalibrationStage.Configuration(document: document, path: path)
        let stage = OrientationStage(configuration: configuration)
        let strength = try #require(document.sensors.lazy.compactMap(\.magnetometer).first?.fieldStrengthMicroTesla)
        #expect(stage.filter.state.magnetic.expectedNormMicroTesla == strength)
        #expect(OrientationStage(configuration: FusionConfiguration()).filter.state.magnetic.expectedNormMicroTesla == nil)
    }

    /// Away from where it was calibrated (the simulated board's calibration: Zürich, the model's 48.4 µT), the stage
    /// expects the calibration's field scaled as the World Magnetic Model's changes (Tromsø); with no position, the
    /// calibration's as it is.
    @Test func theExpectedFieldFollowsTheModelAwayFromTheCalibrationsPlace() throws {
        let path = Self.calibrationPath
        let document = try CalibrationFiles.load(path: path)
        let magnetometer = try #require(document.sensors.lazy.compactMap(\.magnetometer).first)
        let there = try #require(magnetometer.expectedFieldMicroTesla)
        var configuration = FusionConfiguration()
        configuration.calibration = CalibrationStage.Configuration(document: document, path: path)
        var stage = OrientationStage(configuration: configuration)
        var context = FusionContext()
        func feed(_ k: Int) {
            let r = SensorReading(
                timeS: Double(k) * 0.01, accelerationMps2: Vector3(0, 0, 9.81), angularVelocityRadS: .zero,
                magneticFieldMicroTesla: Vector3(0, 20, -40))
            stage.process(FusionSample(reading: r), context: &context)
        }
        for k in 0..<100 { feed(k) }
        #expect(stage.filter.state.magnetic.expectedNormMicroTesla == magnetometer.fieldStrengthMicroTesla)
        context.latitudeDeg = 69.65
        context.longitudeDeg = 18.96
        context.decimalYear = 2026.9
        for k in 100..<200 { feed(k) }
        let here =
            try WorldMagneticModel.wmm2025.elements(
                latitudeDeg: 69.65, longitudeDeg: 18.96, heightKm: 0, decimalYear: 2026.9
            ).totalNT / 1000
        #expect(here > there + 3, "Tromsø's field is stronger than Zürich's: \(here) vs \(there)")
        let expected = try #require(stage.filter.state.magnetic.expectedNormMicroTesla)
        #expect(abs(expected - magnetometer.fieldStrengthMicroTesla * here / there) < 1e-9, "\(expected)")
    }
}
