import Foundation
import LodestoneCore
@testable import LodestoneFusion
import LodestoneMotion
import Testing
@testable import LodestoneEngine
@testable import LodestoneCLI

/// The motion stage through the pipeline and the command line: replay columns, live lines, options.
@Suite(.serialized) struct MotionStageTests {
    static let columns = [
        "pressure_pa", "altitude_m", "altitude_accuracy_m", "relative_altitude_m", "vertical_speed_mps",
        "floors_up", "floors_down", "activity", "activity_confidence", "steps", "cadence_spm"
    ]

    @Test func replayHasTheMotionColumnsInOrder() {
        let columns = FusionPipeline().columns
        let start = columns.firstIndex(of: "pressure_pa") ?? -1
        #expect(start >= 1 && Array(columns[start..<(start + Self.columns.count)]) == Self.columns)
    }

    @Test func theStageWritesActivityAndAltitudeIntoTheContext() {
        var pipeline = FusionPipeline()
        for i in 0..<1000 {
            let t = Double(i) / 100
            pipeline.process(
                FusionSample(
                    reading: SensorReading(
                        timeS: t, pressurePa: i % 4 == 0 ? 95_000 : nil,
                        accelerationMps2: Vector3(0, 0, 9.81),
                        angularVelocityRadS: .zero)))
        }
        #expect(pipeline.context.activity?.kind == .stationary)
        #expect(abs((pipeline.context.altitudeM ?? 0) - StandardAtmosphere.altitudeM(pressurePa: 95_000)) < 0.1)
        #expect(pipeline.context.verticalSpeedMps != nil)
        let line = pipeline.line(timeS: 9.99)
        let cells = line.split(separator: ",", omittingEmptySubsequences: false)
        #expect(cells.count == pipeline.columns.count)
        #expect(cells.contains("stationary"))
        #expect(!line.contains("nan"))
        #expect(pipeline.liveLines.contains { $0.hasPrefix("activity") })
        #expect(pipeline.liveLines.contains { $0.hasPrefix("altitude") })
    }

    /// A real recording (IPOL trial, shared/datasets/steps; 35 true steps) replayed by the CLI.
    @Test func replayOfAWalkCountsItsStepsAndNamesTheActivity() throws {
        let trace = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets/steps/ipol_01_1.csv.gz")
            .path
        let r = try CLI.run(["replay", "--input", trace])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        let header = lines.first.map { $0.split(separator: ",").map(String.init) } ?? []
        let steps = try #require(header.firstIndex(of: "steps"))
        let activity = try #require(header.firstIndex(of: "activity"))
        let confidence = try #require(header.firstIndex(of: "activity_confidence"))
        let last = lines.last.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        #expect(abs((Int(last[steps]) ?? 0) - 35) <= 2)
        let words = Set(MotionActivity.Kind.allCases.map(\.rawValue)),
            levels = Set(MotionActivity.Confidence.allCases.map(\.rawValue))
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(words.contains(cells[activity]) && levels.contains(cells[confidence]))
        }
    }

    @Test func badMotionOptionsAreOneLineNamingTheFlag() throws {
        let trace = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets/steps/ipol_01_1.csv.gz")
            .path
        let qnh = try CLI.run(["replay", "--input", trace, "--qnh-hpa", "2000"])
        #expect(qnh.status != 0 && qnh.stderr.contains("--qnh-hpa"))
        let floor = try CLI.run(["replay", "--input", trace, "--floor-height-m", "0"])
        #expect(floor.status != 0 && floor.stderr.contains("--floor-height-m"))
        let missing = try CLI.run(["replay", "--input", trace, "--activity-model", "/nonexistent/fold.model"])
        #expect(missing.status != 0 && missing.stderr.contains("/nonexistent/fold.model") && missing.stdout.isEmpty)
        #expect(missing.stderr.split(separator: "\n").count == 1)
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-broken-\(getpid()).model").path
        try "lodestone-activity-model 1\nfeatures 3 a b c\n".write(toFile: broken, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let bad = try CLI.run(["replay", "--input", trace, "--activity-model", broken])
        #expect(bad.status != 0 && bad.stderr.contains("activity model") && bad.stderr.contains("train.py"))
    }

    @Test func helpListsTheMotionOptions() throws {
        for command in ["replay", "run"] {
            let r = try CLI.run([command, "--help"])
            for flag in ["--qnh-hpa", "--floor-height-m", "--carrier-height-m", "--activity-model"] {
                #expect(r.stdout.contains(flag), "\(command) --help lacks \(flag)")
            }
        }
    }

    /// What `lodestone run --scenario stairs --floor-height-m 3` shows in a terminal (the live view is drawn in a
    /// terminal only; without one, `run` logs state changes).
    @Test func aRunOnTheStairsScenarioShowsFloorsLive() async throws {
        var options = RunOptions(
            board: try BoardDescription.load(path: RunJobTests.simulatedBoardPath), scenario: "stairs",
            durationS: 200, speed: 0, isTerminal: true)
        options.fusion.motion.floorHeightM = 3
        options.scheduling = SchedulingConfiguration()
        let out = CapturedOutput()
        #expect(try await RunJob(options: options).run(output: out, errors: CapturedOutput()) == 0)
        #expect(out.raw.contains("pedometer") && out.raw.contains("floors ↑5 ↓2"), "\(out.raw.suffix(600))")
    }
}
