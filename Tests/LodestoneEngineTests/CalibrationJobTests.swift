import Foundation
@testable import LodestoneCLI
import LodestoneCalibration
import LodestoneCore
@testable import LodestoneFusion
import LodestoneSimulation
import Testing
@testable import LodestoneEngine

/// Typed answers, for the interactive flow in process.
final class ScriptedInput: PromptInput {
    private var answers: [String]
    init(_ answers: [String]) { self.answers = answers }
    func pollLine() -> String? { nil }
    func waitForLine() -> String? { answers.isEmpty ? nil : answers.removeFirst() }
}

/// A scratch directory, removed at the end.
struct ScratchDirectory {
    let path: String
    init() throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "lodestone-cal-\(getpid())-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

enum CalibrationFixtures {
    static let boardPath = repositoryRoot.appendingPathComponent("boards/simulated.json").path
    static var board: BoardDescription { get throws { try BoardDescription.load(path: boardPath) } }
    static let broad = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets/broad").path

    /// The simulated board with one sensor's mount matrix replaced.
    static func board(mount: [Double], of id: String) throws -> BoardDescription {
        var b = try board
        let i = b.sensors.firstIndex { $0.id == id }!
        b.sensors[i].mount = Matrix3(rowMajor: mount)!
        return b
    }

    static func run(
        _ options: CalibrationOptions, input: PromptInput? = nil, shouldStop: @escaping () -> Bool = { false },
        assembled: (BoardRuntime) -> Void = { _ in }
    ) throws -> (status: Int32, output: CapturedOutput, errors: CapturedOutput) {
        let out = CapturedOutput(), err = CapturedOutput()
        let status = try CalibrationJob(options: options).run(
            input: input, output: out, errors: err, clock: ManualClock(),
            shouldStop: shouldStop, assembled: assembled)
        return (status, out, err)
    }
}

@Suite struct CalibrationJobTests {
    typealias F = CalibrationFixtures

    /// The whole non-interactive session on the simulated board: both magnetometers calibrated, graded good,
    /// and the saved file valid, for this board, with the board's hard iron recovered within 0.5 µT.
    @Test func magnetometerSessionOnTheSimulatedBoardSavesAValidFile() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("sim.json")
        let r = try F.run(CalibrationOptions(kind: .magnetometer, board: try F.board, outputPath: output, speed: 0))
        #expect(r.status == 0, "\(r.output.lines)")
        #expect(r.output.lines.contains { $0.hasPrefix("saved \(output) (imu: magnetometer, mag: magnetometer)") })
        let document = try CalibrationFiles.load(path: output)
        try CalibrationFiles.check(document, path: output, against: try F.board)
        for id in ["imu", "mag"] {
            let m = try #require(document[id]?.magnetometer)
            #expect((m.hardIronMicroTesla - Vector3(12, -7.5, 4)).length < 0.5)
            #expect(m.grade == .good)
            #expect(m.motionS! <= 60)
            #expect(m.expectedFieldMicroTesla != nil)
            #expect(m.mountingCheck.hasPrefix("consistent"))
        }
        #expect(document["imu"]?.identity == "mpu9250 @ sim 0x68")
        #expect(document["mag"]?.mount == Matrix3(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1]))
    }

    @Test func aNewCalibrationIsMergedIntoTheExistingFile() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("sim.json")
        #expect(try F.run(CalibrationOptions(kind: .accelerometer, board: try F.board, outputPath: output, speed: 0)).status == 0)
        #expect(try F.run(CalibrationOptions(kind: .gyroscope, board: try F.board, outputPath: output, speed: 0)).status == 0)
        let d = try CalibrationFiles.load(path: output)
        #expect(d["imu"]?.kinds == [.accelerometer, .gyroscope])
        #expect(d.sensors.map(\.id) == ["imu"])
        #expect(
            try F.run(CalibrationOptions(kind: .barometer, board: try F.board, outputPath: output, speed: 0, altitudeMSLM: 408))
                .status == 0)
        #expect(try CalibrationFiles.load(path: output).sensors.map(\.id) == ["imu", "baro"])
    }

    /// A file that is not a valid calibration (a half-written copy, someone's notes) is never overwritten.
    @Test func anExistingBrokenFileIsLeftAsItIs() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("sim.json")
        try #"{"format":"lodestone-calibration/1","board":"Simulated board","sens"#.write(
            toFile: output, atomically: false, encoding: .utf8)
        do {
            _ = try F.run(CalibrationOptions(kind: .gyroscope, board: try F.board, outputPath: output, speed: 0))
            Issue.record("no error")
        } catch let error as JobError {
            #expect(error.message.hasPrefix("\(output): not a valid calibration file: the JSON is cut short"), "\(error.message)")
            #expect(error.message.contains("left as it is"))
            #expect(!error.message.contains("\n"))
        }
        #expect(
            try String(contentsOfFile: output, encoding: .utf8)
                == #"{"format":"lodestone-calibration/1","board":"Simulated board","sens"#)
    }

    /// A recording of the simulated person's magnetometer motion (`lodestone run --record`), gzip.
    static func recordMotion(in dir: ScratchDirectory, seed: UInt64) throws -> String {
        let trace = dir.file("motion-\(seed).csv.gz")
        // What `lodestone run --record` runs, driven directly: the session's loop, unscheduled, as fast as it goes.
        var core = try SessionCore(
            configuration: SessionConfiguration(
                board: try F.board, scenario: "calibrate-mag", seed: seed,
                durationS: 50, speed: 0, scheduling: nil, recordPath: trace))
        #expect(core.runToEnd().isEmpty)
        return trace
    }

    /// A board file with the magnetometer's x and y swapped (a wrong mount matrix): here a recording of the
    /// simulated board with its mag_x and mag_y columns swapped. The fit alone cannot see it; the
    /// accelerometer can, the failure names the swap, and nothing is saved.
    @Test func swappedMagnetometerAxesFailTheSessionWithTheMistakeNamed() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let text = try TraceFiles.readText(path: try Self.recordMotion(in: dir, seed: 3))
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: "mag_x", with: "MAG_Y").replacingOccurrences(of: "mag_y", with: "mag_x")
            .replacingOccurrences(of: "MAG_Y", with: "mag_y")
        let swapped = dir.file("swapped.csv")
        try lines.joined(separator: "\n").write(toFile: swapped, atomically: false, encoding: .utf8)
        let output = dir.file("sim.json")
        let r = try F.run(CalibrationOptions(kind: .magnetometer, board: try F.board, outputPath: output, tracePath: swapped))
        #expect(r.status == 1)
        #expect(r.output.lines.first?.hasPrefix("imu: failed: mountingMistake") == true, "\(r.output.lines)")
        #expect(r.output.lines.first?.contains("x and y swapped") == true)
        #expect(r.output.lines.last == "nothing saved; \(output) not created")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// The chip vanishes from the bus half-way: the session ends with `sensorFailed`, nothing is saved.
    @Test func aChipThatVanishesEndsTheSessionWithSensorFailed() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        var bus: SimulatedBus?
        var calls = 0
        let r = try F.run(
            CalibrationOptions(
                kind: .magnetometer, board: try F.board, outputPath: dir.file("sim.json"), sensorIDs: ["mag"], speed: 0),
            shouldStop: {
                calls += 1
                if calls == 1500 { bus?.setPresent(false, address: 0x1C) }
                return false
            }, assembled: { bus = $0.world?.board.bus })
        #expect(r.status == 1)
        #expect(r.output.lines.first?.hasPrefix("mag: failed: sensorFailed — mag: ") == true, "\(r.output.lines)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("sim.json")))
    }

    @Test func aGyroscopeCaptureIsAbortedWhenTheBoardMoves() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let r = try F.run(
            CalibrationOptions(
                kind: .gyroscope, board: try F.board, outputPath: dir.file("g.json"), scenario: "mixed-day",
                speed: 0, durationS: 30))
        #expect(r.status == 1)
        #expect(r.output.lines.first?.hasPrefix("imu: failed: boardMoved") == true, "\(r.output.lines)")
    }

    /// Calibration from a recording made by `lodestone run --record` of the simulated person's motion: the
    /// trace's magnetometer columns are the first magnetometer's (the MPU-9250's AK8963), and calibrate it.
    @Test func aRecordedTraceCalibratesTheSensorThatRecordedIt() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let trace = try Self.recordMotion(in: dir, seed: 2)
        let output = dir.file("sim.json")
        let r = try F.run(CalibrationOptions(kind: .magnetometer, board: try F.board, outputPath: output, tracePath: trace))
        #expect(r.status == 0, "\(r.output.lines)")
        let m = try #require(try CalibrationFiles.load(path: output)["imu"]?.magnetometer)
        #expect((m.hardIronMicroTesla - Vector3(12, -7.5, 4)).length < 0.5)
        // --sensor names whose columns they are (a trace recorded from the LIS3MDL, say).
        let other = dir.file("other.json")
        let chosen = try F.run(
            CalibrationOptions(kind: .magnetometer, board: try F.board, outputPath: other, tracePath: trace, sensorIDs: ["mag"]))
        #expect(chosen.status == 0, "\(chosen.output.lines)")
        #expect(try CalibrationFiles.load(path: other).sensors.map(\.id) == ["mag"])
    }

    /// Real data (BROAD trial 02, CC BY 4.0, Laidig et al. 2021): an IMU the dataset authors already
    /// calibrated, turned by hand through most orientations. The session finds almost no hard iron, a residual
    /// under 1 µT, the |B| of 42.7–44.4 µT the dataset reports, and the dip it reports (68.5–70.8°) from the
    /// accelerometer. Trial 34 has a magnet attached to the board for part of the recording: not one
    /// ellipsoid, so no calibration.
    @Test func realRecordingsFromTheBROADDataset() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("broad.json")
        let good = try F.run(
            CalibrationOptions(
                kind: .magnetometer, board: try F.board, outputPath: output,
                tracePath: F.broad + "/02_undisturbed_slow_rotation_B.csv.gz"))
        #expect(good.status == 0, "\(good.output.lines)")
        let m = try #require(try CalibrationFiles.load(path: output)["imu"]?.magnetometer)
        #expect(m.hardIronMicroTesla.length < 1)
        #expect(m.residualMicroTesla < 1)
        #expect((42.5...45.5).contains(m.fieldStrengthMicroTesla))
        #expect(
            m.mountingCheck.hasPrefix("consistent with the accelerometer (dip 6")
                || m.mountingCheck.hasPrefix("consistent with the accelerometer (dip 7"))
        let disturbed = try F.run(
            CalibrationOptions(
                kind: .magnetometer, board: try F.board, outputPath: dir.file("magnet.json"),
                tracePath: F.broad + "/32_disturbed_attached_magnet_1cm.csv.gz"))
        #expect(disturbed.status == 1)
        #expect(disturbed.output.lines.first?.hasPrefix("imu: failed: residualTooHigh") == true, "\(disturbed.output.lines)")
    }

    @Test func aTruncatedTraceIsOneLineAndNothingIsSaved() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let trace = dir.file("cut.csv")
        try "t_s,mag_x,mag_y,mag_z\n0,1,2,3\n0.1,1,2".write(toFile: trace, atomically: false, encoding: .utf8)
        #expect {
            _ = try F.run(
                CalibrationOptions(kind: .magnetometer, board: try F.board, outputPath: dir.file("x.json"), tracePath: trace))
        } throws: { e in
            (e as? JobError)?.message
                == "\(trace):3: column mag_z: 3 fields where the header has 4 (the file is truncated); nothing saved"
        }
    }

    @Test func theInteractiveFlowAsksBeforeSavingAndHonoursNoAndQuit() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("sim.json")
        // Enter to start, then "n" at the question: nothing saved, status 0 (the person's choice).
        let declined = try F.run(
            CalibrationOptions(kind: .gyroscope, board: try F.board, outputPath: output, interactive: true, speed: 0),
            input: ScriptedInput(["", "n"]))
        #expect(declined.status == 0)
        #expect(declined.output.raw.contains("Save to \(output)? [Y/n] "))
        #expect(declined.output.lines.last == "not saved; \(output) left as it was")
        #expect(!FileManager.default.fileExists(atPath: output))
        // q at the start.
        let quit = try F.run(
            CalibrationOptions(kind: .gyroscope, board: try F.board, outputPath: output, interactive: true, speed: 0),
            input: ScriptedInput(["q"]))
        #expect(quit.status == 1)
        #expect(quit.output.lines.last == "cancelled: nothing saved; \(output) not created")
        // Enter, Enter (yes is the default when everything succeeded).
        let saved = try F.run(
            CalibrationOptions(kind: .gyroscope, board: try F.board, outputPath: output, interactive: true, speed: 0),
            input: ScriptedInput(["", ""]))
        #expect(saved.status == 0)
        #expect(try CalibrationFiles.load(path: output)["imu"]?.gyroscope != nil)
    }

    @Test func interruptedSessionsSaveNothing() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("sim.json")
        try Data(CalibrationFiles.encode(CalibrationDocument(board: "Simulated board", sensors: []))).write(
            to: URL(fileURLWithPath: dir.file("unused")))
        var calls = 0
        let r = try F.run(
            CalibrationOptions(kind: .magnetometer, board: try F.board, outputPath: output, speed: 0),
            shouldStop: {
                calls += 1; return calls > 500
            })
        #expect(r.status == CalibrationJob.interruptedStatus)
        #expect(r.errors.lines.last == "interrupted: nothing saved; \(output) not created")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func sensorsAndReferencesAreCheckedBeforeAnythingRuns() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        #expect(throws: JobError.self) {
            try F.run(
                CalibrationOptions(kind: .magnetometer, board: try F.board, outputPath: dir.file("x.json"), sensorIDs: ["baro"]))
        }
        #expect(throws: JobError.self) {
            try F.run(CalibrationOptions(kind: .barometer, board: try F.board, outputPath: dir.file("x.json")))
        }
        #expect(throws: JobError.self) {
            try F.run(CalibrationOptions(kind: .gyroscope, board: try F.board, outputPath: dir.path + "/no/such/dir/x.json"))
        }
    }
}

@Suite struct CalibrationStageTests {
    static var document: CalibrationDocument {
        var imu = SensorCalibration(id: "imu", chip: "mpu9250")
        imu.gyroscope = GyroscopeCalibration(
            date: "2026-07-02T10:00:00Z", temperatureC: nil, biasRadS: Vector3(0.01, 0.02, 0.03),
            noiseRMSRadS: .zero, durationS: 10, noiseDensityRadSPerRootHz: nil, biasInstabilityRadS: nil,
            rateRandomWalkRadSPerRootS: nil)
        imu.magnetometer = MagnetometerCalibration(
            date: "2026-07-02T10:00:00Z", temperatureC: nil, grade: .good,
            hardIronMicroTesla: Vector3(1, 1, 1), softIronCorrection: .identity,
            fieldStrengthMicroTesla: 48, expectedFieldMicroTesla: nil, latitudeDeg: nil,
            longitudeDeg: nil, residualMicroTesla: 0.3, coveragePercent: 95, samples: 1000,
            outliers: 0, motionS: nil, mountingCheck: "consistent")
        var mag = SensorCalibration(id: "mag", chip: "lis3mdl")
        mag.magnetometer = imu.magnetometer
        mag.magnetometer?.hardIronMicroTesla = Vector3(10, 20, 30)
        return CalibrationDocument(board: "Simulated board", sensors: [imu, mag])
    }

    func stage(_ document: CalibrationDocument?) -> CalibrationStage {
        var c = FusionConfiguration()
        c.calibration = CalibrationStage.Configuration(document: document, path: "cal.json")
        return CalibrationStage(configuration: c)
    }

    @Test func eachSensorGetsItsOwnCorrectionsByBoardID() {
        var s = stage(Self.document)
        var fromMag = FusionSample(reading: SensorReading(timeS: 0, magneticFieldMicroTesla: Vector3(10, 20, 30)), sensor: "mag")
        s.apply(to: &fromMag)
        #expect(fromMag.reading.magneticFieldMicroTesla == .zero)
        var fromIMU = FusionSample(
            reading: SensorReading(
                timeS: 0, angularVelocityRadS: Vector3(0.01, 0.02, 0.03),
                magneticFieldMicroTesla: Vector3(1, 1, 1)), sensor: "imu")
        s.apply(to: &fromIMU)
        #expect(fromIMU.reading.angularVelocityRadS == .zero)
        #expect(fromIMU.reading.magneticFieldMicroTesla == .zero)
        var unknown = FusionSample(reading: SensorReading(timeS: 0, magneticFieldMicroTesla: Vector3(1, 1, 1)), sensor: "other")
        s.apply(to: &unknown)
        #expect(unknown.reading.magneticFieldMicroTesla == Vector3(1, 1, 1))
        #expect(s.liveLines == ["calibration: cal.json (imu: magnetometer, gyroscope; mag: magnetometer)"])
    }

    /// A trace row (no sensor id) gets, per quantity, the first sensor's calibration of that kind.
    @Test func aTraceRowGetsTheFirstCalibrationOfEachKind() {
        var s = stage(Self.document)
        var row = FusionSample(
            reading: SensorReading(
                timeS: 0, accelerationMps2: Vector3(0, 0, 9.8), angularVelocityRadS: Vector3(0.01, 0.02, 0.03),
                magneticFieldMicroTesla: Vector3(1, 1, 1)))
        s.apply(to: &row)
        #expect(row.reading.magneticFieldMicroTesla == .zero)
        #expect(row.reading.angularVelocityRadS == .zero)
        #expect(row.reading.accelerationMps2 == Vector3(0, 0, 9.8))
    }

    @Test func withoutACalibrationNothingChanges() {
        var s = stage(nil)
        var row = FusionSample(reading: SensorReading(timeS: 0, magneticFieldMicroTesla: Vector3(1, 1, 1)), sensor: "mag")
        s.apply(to: &row)
        #expect(row.reading.magneticFieldMicroTesla == Vector3(1, 1, 1))
    }
}

@Suite struct CalibrationLookupTests {
    typealias F = CalibrationFixtures

    /// Without --calibration, the first existing file of: $LODESTONE_CALIBRATION_DIR/NAME.json,
    /// /var/lib/lodestone/NAME.json, calibration/NAME.json beside boards/.
    @Test func theLookupOrderIsEnvironmentThenSystemThenShippedExample() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let board = try F.board
        let paths = CalibrationFiles.searchPath(for: board, environment: [CalibrationFiles.directoryVariable: dir.path])
        #expect(
            paths == [
                dir.file("simulated.json"), "/var/lib/lodestone/simulated.json",
                repositoryRoot.appendingPathComponent("calibration/simulated.json").path
            ])
        #expect(CalibrationFiles.defaultOutput(for: board, environment: [:]) == "/var/lib/lodestone/simulated.json")
        // The shipped example (unless this machine has a deployed one).
        if !FileManager.default.fileExists(atPath: "/var/lib/lodestone/simulated.json") {
            let shipped = try CalibrationFiles.resolve(board: board, explicitPath: nil, disabled: false, environment: [:])
            #expect(shipped.path == paths[2])
        }
        // The environment's directory first.
        try FileManager.default.copyItem(atPath: paths[2], toPath: dir.file("simulated.json"))
        let env = try CalibrationFiles.resolve(
            board: board, explicitPath: nil, disabled: false,
            environment: [CalibrationFiles.directoryVariable: dir.path])
        #expect(env.path == dir.file("simulated.json"))
        #expect(env.document?.board == "Simulated board")
        let off = try CalibrationFiles.resolve(board: board, explicitPath: nil, disabled: true)
        #expect(off.document == nil && off.disabled)
    }

    /// The shipped example is valid, for the simulated board, and holds the board's hard iron.
    @Test func theShippedExampleFitsTheSimulatedBoard() throws {
        let path = repositoryRoot.appendingPathComponent("calibration/simulated.json").path
        let d = try CalibrationFiles.load(path: path)
        try CalibrationFiles.check(d, path: path, against: try F.board)
        #expect(((d["mag"]?.magnetometer?.hardIronMicroTesla ?? .zero) - Vector3(12, -7.5, 4)).length < 0.5)
    }

    @Test func aCalibrationForOtherAxesOrAnotherBoardIsRefusedInOneLine() throws {
        let path = repositoryRoot.appendingPathComponent("calibration/simulated.json").path
        let d = try CalibrationFiles.load(path: path)
        let turned = try F.board(mount: [1, 0, 0, 0, 1, 0, 0, 0, 1], of: "mag")
        #expect {
            try CalibrationFiles.check(d, path: path, against: turned)
        } throws: { e in
            let m = (e as? JobError)?.message ?? ""
            return m.hasPrefix(
                "\(path): sensor \"mag\" was calibrated with mount [0, -1, 0, 1, 0, 0, 0, 0, 1], the board file now says [1, 0, 0, 0, 1, 0, 0, 0, 1]"
            )
                && m.hasSuffix("calibrate again, or run without calibration") && !m.contains("\n")
        }
        var other = try F.board
        other.name = "GY-91"
        #expect(throws: JobError.self) { try CalibrationFiles.check(d, path: path, against: other) }
    }

    /// `run --json` says which calibration it applies, right after BOARD.
    @Test func runAnnouncesItsCalibration() async throws {
        let board = try F.board
        var options = RunOptions(board: board, durationS: 1, json: true, speed: 0)
        options.fusion.calibration = try CalibrationFiles.resolve(
            board: board, explicitPath: repositoryRoot.appendingPathComponent("calibration/simulated.json").path, disabled: false)
        let out = CapturedOutput()
        _ = try await RunJob(options: options).run(output: out, errors: CapturedOutput())
        let message = try JSONSerialization.jsonObject(with: Data(out.lines[2].utf8)) as? [String: Any]
        #expect(message?["class"] as? String == "CALIBRATION")
        #expect((message?["path"] as? String)?.hasSuffix("calibration/simulated.json") == true)
        #expect((message?["sensors"] as? [[String: Any]])?.map { $0["id"] as? String } == ["imu", "mag", "baro"])
    }
}
