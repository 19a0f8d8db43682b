import Foundation
@testable import LodestoneCLI
import LodestoneCore
@testable import LodestoneEngine
import LodestoneOrientation
@testable import LodestoneFusion
import LodestoneLinux
@testable import LodestoneTrace
import Testing

/// The orientation stage as `replay` and `run` drive it: its columns on a real BROAD recording, true heading from
/// the World Magnetic Model at the context's position and date, 6D mode, and the command-line options.
@Suite struct OrientationStageTests {
    static let broad = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/datasets/broad").standardized.path

    /// The first `rows` rows of a BROAD trial (CC BY 4.0, Laidig et al. 2021) as a trace file, plus extra
    /// columns appended to the header and every row. Each call writes its own file (tests run in parallel and
    /// several use the same trial and length; each removes its file when done).
    static func broadPrefix(_ trial: String, rows: Int, extraHeader: String = "", extraCells: String = "") throws -> String {
        let text = String(decoding: try GzipFile.readAll(path: broad + "/" + trial + ".csv.gz"), as: UTF8.self)
        let lines = text.split(separator: "\n", maxSplits: rows + 1).prefix(rows + 1)
        let body = lines.enumerated().map { $0.offset == 0 ? $0.element + extraHeader : $0.element + extraCells }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "orientation-\(trial)-\(getpid())-\(rows)-\(UUID().uuidString).csv"
        ).path
        try (body.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    static func replay(_ path: String, _ configure: (inout FusionConfiguration) -> Void = { _ in }) throws -> [[String: String]] {
        var configuration = FusionConfiguration()
        configure(&configuration)
        var lines: [String] = []
        _ = try ReplayJob(inputPath: path, configuration: configuration).run { lines.append($0) }
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return lines.dropFirst().map { line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, cells))
        }
    }

    /// An output that breaks after `limit` lines, as standard output does when its reader goes away (`| head`).
    final class BreakingOutput: LineOutput {
        let limit: Int
        private(set) var lines = 0
        init(limit: Int) { self.limit = limit }
        var isBroken: Bool { lines >= limit }
        func write(_ line: String) { lines += 1 }
        func writeRaw(_ text: String) {}
        func flush() {}
    }

    /// The rows are written on a thread of their own (`ThreadedRowWriter`): nothing is written after the line that
    /// broke the output, and the loop stops at its next batch, at most the ring's rows after it.
    @Test func replayStopsOnceItsOutputIsBroken() throws {
        let path = try Self.broadPrefix("02_undisturbed_slow_rotation_B", rows: 20_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = BreakingOutput(limit: 11) // the header and 10 rows
        let n = try ReplayJob(inputPath: path).run(output: output)
        #expect(output.lines == 11)
        #expect(n >= 10 && n <= ThreadedRowWriter.batchRows * (ThreadedRowWriter.batchCount + 1), "\(n) rows fused")
        let whole = BreakingOutput(limit: .max)
        #expect(try ReplayJob(inputPath: path).run(output: whole) == 20_000)
        #expect(whole.lines == 20_001)
    }

    @Test func replayWritesTheOrientationColumnsForEveryRowOfABROADTrial() throws {
        let path = try Self.broadPrefix("02_undisturbed_slow_rotation_B", rows: 1500)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var lines: [String] = []
        var configuration = FusionConfiguration()
        configuration.orientation.declinationOverrideDeg = 0
        let n = try ReplayJob(inputPath: path, configuration: configuration).run { lines.append($0) }
        #expect(n == 1500 && lines.count == 1501)
        let required =
            "t_s,qw,qx,qy,qz,roll_deg,pitch_deg,heading_mag_deg,heading_true_deg,heading_accuracy_deg,mag_disturbed,"
            + "at_rest,gyro_bias_x_rads,gyro_bias_y_rads,gyro_bias_z_rads"
        #expect(lines[0].hasPrefix(required))
        let rows = try Self.replay(path) { $0.orientation.declinationOverrideDeg = 0 }
        for row in rows {
            let q = ["qw", "qx", "qy", "qz"].map { Double(row[$0]!)! }
            #expect(abs(q.map { $0 * $0 }.reduce(0, +).squareRoot() - 1) < 1e-5)
            #expect(row["heading_true_deg"] == row["heading_mag_deg"], "declination 0: true = magnetic")
        }
        // BROAD starts at rest: rest is detected after 1.5 s (row 430 at 285.7 Hz) and the bias estimated.
        #expect(rows[1499]["at_rest"] == "1")
        #expect(rows[0]["at_rest"] == "0")
        #expect(Double(rows[1499]["heading_accuracy_deg"]!)! > 0)
        #expect(rows[1499]["mag_disturbed"] == "0")
    }

    @Test func trueHeadingUsesTheWorldMagneticModelAtTheConfiguredPlaceAndDate() throws {
        let path = try Self.broadPrefix("02_undisturbed_slow_rotation_B", rows: 300)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let withoutPosition = try Self.replay(path)
        #expect(withoutPosition.last!["heading_true_deg"] == "", "no position: true heading invalid")
        #expect(withoutPosition.last!["declination_deg"] == "")
        let berlin = try Self.replay(path) {
            $0.latitudeDeg = 52.51; $0.longitudeDeg = 13.33; $0.heightAboveEllipsoidM = 80; $0.decimalYear = 2026.0
        }
        let row = berlin.last!
        let d = try #require(Double(row["declination_deg"]!))
        #expect(d > 3 && d < 7, "Berlin 2026: WMM2025 declination about +5°, got \(d)")
        let expected = Angle.wrap360(Double(row["heading_mag_deg"]!)! + d)
        #expect(abs(Angle.wrap180(Double(row["heading_true_deg"]!)! - expected)) < 0.02)
    }

    @Test func aFixInTheTraceGivesThePositionForTrueHeading() throws {
        let path = try Self.broadPrefix(
            "02_undisturbed_slow_rotation_B", rows: 300, extraHeader: ",lat_deg,lon_deg,height_m",
            extraCells: ",48.1371,11.5754,560")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rows = try Self.replay(path) { $0.decimalYear = 2026.0 }
        #expect(Double(rows.last!["declination_deg"]!) != nil)
    }

    @Test func sixDModeReportsARelativeHeadingWithAnInvalidAccuracy() throws {
        let path = try Self.broadPrefix("02_undisturbed_slow_rotation_B", rows: 600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rows = try Self.replay(path) {
            $0.orientation.mode = .sixD; $0.orientation.declinationOverrideDeg = 0
        }
        let last = rows.last!
        #expect(last["heading_accuracy_deg"] == "-1.00")
        #expect(last["heading_true_deg"] == "")
        #expect(last["mag_disturbed"] == "" && last["mag_x_ut"] == "")
        #expect(Double(last["roll_deg"]!) != nil)
    }

    @Test func theStageWritesOrientationAndRestIntoTheContext() throws {
        var stage = OrientationStage(configuration: FusionConfiguration())
        var context = FusionContext()
        stage.process(FusionSample(reading: SensorReading(timeS: 0, pressurePa: 101_000)), context: &context)
        #expect(context.boardToENU == nil && context.atRest == nil, "nothing before the first inertial sample")
        for k in 0..<300 {
            let r = SensorReading(
                timeS: Double(k) * 0.01, accelerationMps2: Vector3(0, 0, 9.81), angularVelocityRadS: .zero,
                magneticFieldMicroTesla: Vector3(0, 20, -40))
            stage.process(FusionSample(reading: r), context: &context)
        }
        #expect(context.atRest == true)
        let q = try #require(context.boardToENU)
        #expect(q.angularDistanceRad(to: .identity) < 0.01)
        #expect(stage.liveLines.count == 2 && stage.liveLines[0].contains("heading"))
    }

    @Test func theHeadingFilterHoldsTheShownHeadingUntilItMovesEnough() throws {
        var configuration = FusionConfiguration()
        configuration.orientation.headingFilterDeg = 10
        var stage = OrientationStage(configuration: configuration)
        var context = FusionContext()
        // Level, turning about the vertical at 0.1 rad/s after a still second.
        for k in 0..<400 {
            let t = Double(k) * 0.01
            let rate = t < 1 ? 0.0 : 0.1
            let yaw = max(0, t - 1) * 0.1
            let field = Quaternion(axis: Vector3(0, 0, 1), angleRad: yaw).conjugate.rotate(Vector3(0, 20, -40))
            stage.process(
                FusionSample(
                    reading: SensorReading(
                        timeS: t, accelerationMps2: Vector3(0, 0, 9.81),
                        angularVelocityRadS: Vector3(0, 0, rate), magneticFieldMicroTesla: field)),
                context: &context)
        }
        let shown = try #require(stage.headingFilter.lastDelivered)
        let now = try #require(stage.heading)
        #expect(abs(Angle.wrap180(now.magneticHeadingDeg - shown.magneticHeadingDeg)) < 10)
        #expect(abs(Angle.wrap180(now.magneticHeadingDeg - 360 + 3 * 0.1 * 180 / Double.pi)) < 2, "turned left ~17°")
    }

    @Test func commandLineOptionsAreCheckedWithOneLineThatNamesTheFlag() throws {
        let partial = try CLI.run(["replay", "--input", "x.csv", "--latitude-deg", "50"])
        #expect(partial.status != 0 && partial.stderr.contains("--latitude-deg and --longitude-deg go together"))
        let badDate = try CLI.run(["replay", "--input", "x.csv", "--date", "2026-02-30"])
        #expect(badDate.status != 0 && badDate.stderr.contains("--date 2026-02-30 is not a date"))
        let badMode = try CLI.run(["replay", "--input", "x.csv", "--orientation", "7d"])
        #expect(badMode.status != 0 && badMode.stderr.contains("6d"))
    }

    @Test func optionsReachTheReplay() throws {
        let path = try Self.broadPrefix("02_undisturbed_slow_rotation_B", rows: 200)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try CLI.run([
            "replay", "--input", path, "--latitude-deg", "52.5", "--longitude-deg", "13.4",
            "--date", "2026-07-02", "--orientation", "9d"
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
        let last = lines[lines.count - 1].split(separator: ",", omittingEmptySubsequences: false)
        let declination = Double(last[header.firstIndex(of: "declination_deg")!])
        #expect(declination != nil && declination! > 3 && declination! < 7, "Berlin, WMM2025: about +5°")
        let sixD = try CLI.run(["replay", "--input", path, "--orientation", "6d", "--declination-deg", "0"])
        #expect(sixD.status == 0 && sixD.stdout.split(separator: "\n").last!.contains(",-1.00,"))
        #expect(OrientationStage.Configuration.decimalYear(parsing: "2026-07-02") == 2026 + 182 / 365.0)
        #expect(OrientationStage.Configuration.decimalYear(parsing: "2026.25") == 2026.25)
        #expect(OrientationStage.Configuration.decimalYear(parsing: "yesterday") == nil)
    }
}
