import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
@testable import LodestoneCLI
import LodestoneCore
@testable import LodestoneEvaluation
@testable import LodestoneFusion
import LodestoneLocation
@testable import LodestoneTrace
import Testing
@testable import LodestoneEngine

@Suite(.serialized) struct LocationStageTests {
    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-\(getpid())-\(name)").path
    }

    /// Records 90 s of the simulated `drive` and returns the trace path (reused by the tests below).
    static let recording: String = {
        let path = temporary("drive.csv")
        // What `lodestone run --record` runs, driven directly: the session's loop, unscheduled, as fast as it goes.
        let configuration = SessionConfiguration(
            board: LocationTrial.simulatedBoard(scenario: "drive"), scenario: "drive", seed: 5,
            durationS: 90, speed: 0, scheduling: nil, recordPath: path)
        var core = try? SessionCore(configuration: configuration)
        core?.runToEnd()
        return path
    }()

    /// Replay of a recording with GNSS: the location columns, in the order, hold the fused estimate,
    /// which agrees with the recorded truth within its accuracy at most rows once the receiver has settled.
    @Test func replayShowsTheLocationColumnsAndTheyTrackTheTruth() throws {
        var lines: [String] = []
        let rows = try ReplayJob(inputPath: Self.recording).run { lines.append($0) }
        #expect(rows > 8000)
        // The location columns, in the order, after whatever the earlier stages write.
        let header = try #require(lines.first).split(separator: ",").map(String.init)
        let locationColumns = [
            "lat", "lon", "alt_msl_m", "horizontal_accuracy_m", "vertical_accuracy_m", "speed_mps",
            "speed_accuracy_mps", "course_deg", "course_accuracy_deg"
        ]
        let first = try #require(header.firstIndex(of: "lat"))
        #expect(Array(header[first...].prefix(locationColumns.count)) == locationColumns)
        let (latColumn, lonColumn, accuracyColumn) = (first, first + 1, first + 3)
        var parser = TraceParser(text: try TraceFiles.readText(path: Self.recording), path: Self.recording)
        var covered = 0, checked = 0
        for line in lines.dropFirst() {
            guard let row = try parser.next() else { break }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            #expect(cells.count == header.count)
            guard row.timeS > 20, let lat = Double(cells[latColumn]), let lon = Double(cells[lonColumn]),
                let accuracy = Double(cells[accuracyColumn]),
                let truthLat = row.truth?.latitudeDeg, let truthLon = row.truth?.longitudeDeg
            else { continue }
            let error = try #require(
                Coordinate(latitudeDeg: lat, longitudeDeg: lon)
                    .distanceM(to: Coordinate(latitudeDeg: truthLat, longitudeDeg: truthLon)))
            checked += 1
            if error <= accuracy { covered += 1 }
            #expect(error < 15)
        }
        #expect(checked > 5000)
        #expect(Double(covered) / Double(checked) >= 0.9)
    }

    /// A trace without GNSS columns (the activity datasets) gets no location columns.
    @Test func replayWithoutGNSSHasNoLocationColumns() throws {
        let path = Self.temporary("imu-only.csv")
        try "t_s,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,0,9.8\n".write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var lines: [String] = []
        _ = try ReplayJob(inputPath: path).run { lines.append($0) }
        #expect(lines.count == 3)
        let header = try #require(lines.first).split(separator: ",").map(String.init)
        #expect(header.first == "t_s")
        for column in ["lat", "lon", "alt_msl_m", "horizontal_accuracy_m", "speed_mps", "course_deg"] {
            #expect(!header.contains(column), "\(column)")
        }
    }

    /// The stage keeps the context's position and decimal year current for true heading.
    @Test func contextGetsPositionAndDateFromTheReceiver() {
        var pipeline = FusionPipeline()
        var fix = ReceiverFix(timeS: 1, mode: .threeDimensional)
        fix.latitudeDeg = -33.86
        fix.longitudeDeg = 151.21
        fix.heightAboveEllipsoidM = 30
        fix.utcS = 1_782_993_600
        pipeline.process(FusionSample(reading: SensorReading(timeS: 1), fix: fix))
        #expect(pipeline.context.latitudeDeg.map { abs($0 + 33.86) < 1e-9 } == true)
        #expect(pipeline.context.longitudeDeg.map { abs($0 - 151.21) < 1e-9 } == true)
        #expect(pipeline.context.heightAboveEllipsoidM.map { abs($0 - 30) < 1e-6 } == true)
        #expect(pipeline.context.decimalYear.map { abs($0 - 2026.5) < 1e-9 } == true)
        #expect(pipeline.location.liveLines.first?.hasPrefix("location  33.860000° S  151.210000° E") == true)
    }

    /// `--gpx` and `--geojson` of a replay: a GPX 1.1 document XML can parse, with one trkpt per second, and an
    /// RFC 7946 FeatureCollection whose positions are [lon, lat, height].
    @Test func replayExportsGPXAndGeoJSON() throws {
        let gpx = Self.temporary("track.gpx"), geo = Self.temporary("track.geojson")
        defer { try? FileManager.default.removeItem(atPath: gpx); try? FileManager.default.removeItem(atPath: geo) }
        _ = try ReplayJob(inputPath: Self.recording, export: .init(gpx: gpx, geoJSON: geo)).run { _ in }
        let xml = try Data(contentsOf: URL(fileURLWithPath: gpx))
        let counter = TrackPointCounter()
        let parser = XMLParser(data: xml)
        parser.delegate = counter
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #expect(counter.root == "gpx" && counter.version == "1.1")
        #expect(counter.points >= 85 && counter.points <= 90)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: geo))) as? [String: Any])
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        let points = features.compactMap { ($0["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] }.flatMap { $0 }
        #expect(points.count == counter.points)
        #expect(points.allSatisfy { $0.count >= 2 && abs($0[0] - 8.54) < 0.1 && abs($0[1] - 47.37) < 0.1 })
        let properties = try #require(features.last?["properties"] as? [String: Any])
        #expect(
            (properties["horizontal_accuracy_m"] as? [Any])?.count
                == (features.last?["geometry"] as? [String: Any]).flatMap { ($0["coordinates"] as? [Any])?.count })
    }

    /// `run --json` streams the fused location once a second, units in the keys, unknown values omitted.
    @Test func runStreamsLocationMessages() async throws {
        let output = CapturedOutput()
        let options = RunOptions(
            board: LocationTrial.simulatedBoard(scenario: "drive"), scenario: "drive", durationS: 6,
            json: true, speed: 0)
        #expect(try await RunJob(options: options).run(output: output, errors: CapturedOutput()) == 0)
        let messages = output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["class"] as? String == "LOCATION" }
        #expect(messages.count >= 3)
        let last = try #require(messages.last)
        for key in ["t_s", "lat_deg", "lon_deg", "h_acc_m", "method", "since_fix_s", "simulated", "time"] {
            #expect(last[key] != nil, "\(key)")
        }
        #expect((last["time"] as? String)?.hasPrefix("2026-07-02T12:00:0") == true)
        #expect(last["course_deg"] == nil) // at rest at the start of the drive: no course
    }

    /// Export to a directory that does not exist fails before the run starts, in one line.
    @Test func exportToAnUnwritablePlaceFailsUpFront() async throws {
        let options = RunOptions(
            board: LocationTrial.simulatedBoard(scenario: "drive"), durationS: 1, speed: 0,
            export: .init(gpx: "/nonexistent-dir/track.gpx"))
        let output = CapturedOutput()
        await #expect(throws: JobError.self) {
            _ = try await RunJob(options: options).run(output: output, errors: CapturedOutput())
        }
        #expect(output.lines.isEmpty)
    }

    /// The accuracy harness, kept honest: one trial of the committed table (drive, seed 101, the product's
    /// pipeline: the orientation stage and IMU-aided location) meets the targets.
    @Test func harnessTrialOnTheDriveMeetsTheTargets() throws {
        let summary = try harnessTrialMeetsTheTargets(scenario: "drive")
        #expect(summary.fusedMedianM <= summary.receiverMedianM)
    }

    /// Seed 101 of `scenario` through the product's pipeline: one 30 s outage that ends within 15 m, covered by
    /// the reported accuracy, and ≥ 90 % coverage at the fixes (the targets); the orientation's tilt while the
    /// car accelerates, brakes and turns within 3° at the 95th percentile (issue 17). The car sets off from a standstill
    /// before its mount is learned, so this needs the receiver's acceleration brought up to date and the bends'
    /// centripetal acceleration taken out of the levelling (without them: 12° at the start, 4° with the receiver's
    /// acceleration alone, a second late).
    func harnessTrialMeetsTheTargets(scenario: String) throws -> LocationAccuracySummary {
        let epochs = try LocationTrial(options: .init(scenario: scenario, seed: 101, orientation: .pipeline)).run()
        let summary = LocationAccuracySummary(trials: [epochs])
        let tilt = try #require(summary.manoeuvreTiltP95Deg)
        #expect(tilt <= 3, "tilt while manoeuvring, p95: \(tilt)°")
        #expect(summary.outages == 1)
        let end = try #require(summary.outageEndFusedMeanM)
        #expect(end <= 15, "end of the 30 s outage: \(end) m")
        #expect(summary.outageEndCoverage == 1)
        #expect(summary.coverageAtFixes >= 0.9, "coverage \(summary.coverageAtFixes)")
        return summary
    }

    /// The hard tunnel of the committed table (urban-drive, seed 101: braking from 16 to 9 m/s and a 60° curve
    /// 30 s without a fix) ends within the 15 m with IMU-aided dead reckoning, its accuracy covering the
    /// error; the receiver alone ends it ~270 m off (results.md), so this fails if inertial aiding breaks.
    @Test func harnessTrialThroughTheUrbanTunnelMeetsTheTargets() throws {
        let summary = try harnessTrialMeetsTheTargets(scenario: "urban-drive")
        #expect(summary.multipathFixes > 0)
    }

    /// The `String` form of a stage's cells is the bytes of its recorded form, formatted.
    @Test func stringFormOfAStageIsItsLineForm() {
        var tape = CellTape()
        var stage = LocationStage(configuration: FusionConfiguration())
        stage.appendCells(to: &tape)
        var line = CSVLine()
        tape.format(into: &line)
        var text = "t"
        LocationStage(configuration: FusionConfiguration()).appendCells(to: &text)
        #expect(text == "t" + line.text)
        #expect(text == "t" + String(repeating: ",", count: LocationStage.locationColumns.count))
    }
}

final class TrackPointCounter: NSObject, XMLParserDelegate {
    var points = 0
    var root: String?
    var version: String?
    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if root == nil { root = name; version = attributes["version"] }
        if name == "trkpt" { points += 1 }
    }
}
