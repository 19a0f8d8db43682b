import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import LodestoneCore
import LodestoneLocation
import Testing

@testable import LodestoneCLI
@testable import LodestoneEngine
@testable import LodestoneTrace

/// Crash-safe files (issue 18, item 5): recordings and track exports written as they go, readable after a `kill -9`
/// of a real `lodestone run`, and a full or read-only file system reported in one line while the run goes on.
/// docs/crash-safety.md lists every file Lodestone writes and what survives.
@Suite(.serialized) struct CrashSafetyTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-crash-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let shippedCalibration = repositoryRoot.appendingPathComponent("calibration/simulated.json")

    /// A location `t` seconds into a straight walk north.
    static func location(_ t: Double) -> Location {
        Location(
            coordinate: Coordinate(latitudeDeg: 47.37 + t * 1e-5, longitudeDeg: 8.54), altitudeMSLM: 410,
            ellipsoidalAltitudeM: 458, horizontalAccuracyM: 4, verticalAccuracyM: 6, speedMps: 1.1, courseDeg: 0,
            timeS: t, utcS: 1_782_993_600 + t)
    }

    // MARK: - The files as they grow

    /// After every point both files parse and hold every point so far; a run that ends writes the final forms (GPX the
    /// same bytes as the live file; GeoJSON one feature per segment).
    @Test func trackFilesAreValidAfterEveryPoint() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpx = dir.appendingPathComponent("t.gpx").path, geo = dir.appendingPathComponent("t.geojson").path
        let export = try TrackExport(paths: .init(gpx: gpx, geoJSON: geo), name: "crash & <test>")
        #expect(try TrackFiles.gpxPointCount(gpx) == 0)
        #expect(try TrackFiles.geoJSONTimes(geo).isEmpty)
        // 0…69 s, a 20 s gap (a second segment), 90…159 s: 140 points, several GeoJSON pieces per segment.
        let times = Array(0..<70).map(Double.init) + Array(90..<160).map(Double.init)
        for (i, t) in times.enumerated() {
            export.add(Self.location(t))
            #expect(try TrackFiles.gpxPointCount(gpx) == i + 1, "GPX after \(i + 1) points")
            #expect(try TrackFiles.geoJSONTimes(geo) == Array(times[...i]), "GeoJSON after \(i + 1) points")
        }
        #expect(export.takeLiveProblems().isEmpty)
        let live = try String(contentsOfFile: gpx, encoding: .utf8)
        #expect(live == TrackExport.gpx(export.segments, name: export.name))
        try export.write()
        #expect(try String(contentsOfFile: gpx, encoding: .utf8) == live)
        #expect(try String(contentsOfFile: geo, encoding: .utf8) == TrackExport.geoJSON(export.segments, name: export.name))
        #expect(export.segments.count == 2)
    }

    /// A recording on a device that is full (`/dev/full`: every write fails with ENOSPC): one line naming the file, the
    /// errno's meaning and that the run goes on; the run does go on to its end, and its exit status says so.
    @Test func fullDiskStopsTheRecordingInOneLineAndTheRunGoesOn() async throws {
        let board = try BoardDescription.load(path: RunJobTests.simulatedBoardPath)
        let out = CapturedOutput(), err = CapturedOutput()
        let options = RunOptions(board: board, durationS: 5, seed: 1, json: true, recordPath: "/dev/full", speed: 0)
        let code = try await RunJob(options: options).run(output: out, errors: err)
        #expect(code == 1)
        let lines = err.lines.filter { $0.contains("recording stopped") }
        #expect(lines.count == 1, "\(err.lines)")
        let line = try #require(lines.first)
        #expect(line.contains("/dev/full") && line.contains("no space left") && line.contains("[errno 28]"))
        #expect(line.contains("the run goes on without recording"))
        // The run went on: STATUS to the end.
        #expect(TrackFiles.lastStatusTimeS(out.lines) ?? 0 >= 4.99)
    }

    // MARK: - kill -9 of a real run

    /// `lodestone run` on the simulated board (drive scenario, 4× real time) recording a trace (plain or gzip) and both
    /// exports, killed with SIGKILL once its STATUS says session time `killAtS`: the trace replays up to its last whole
    /// row, the GPX parses, the GeoJSON parses, and each misses at most the last seconds.
    @Test(arguments: [(6.0, "csv"), (13.0, "csv.gz"), (21.0, "csv")])
    func killedRunLeavesReadableFiles(killAtS: Double, traceExtension: String) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("run.\(traceExtension)").path
        let gpx = dir.appendingPathComponent("run.gpx").path, geo = dir.appendingPathComponent("run.geojson").path
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = [
            "run", "--json", "--classes", "status", "--scenario", "drive", "--speed", "4", "--duration", "120",
            "--record", trace, "--gpx", gpx, "--geojson", geo
        ]
        p.currentDirectoryURL = repositoryRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Read STATUS lines until one reaches killAtS, then kill at once: the run's time at the kill is that status's
        // t_s plus what elapsed between reading it and kill(2) (milliseconds × 4).
        var seenS = 0.0, pending = Data()
        let reader = out.fileHandleForReading
        readLoop: while p.isRunning {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<newline]
                pending.removeSubrange(pending.startIndex...newline)
                if let m = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let t = m["t_s"] as? Double {
                    seenS = max(seenS, t)
                    if seenS >= killAtS {
                        kill(p.processIdentifier, SIGKILL)
                        break readLoop
                    }
                }
            }
        }
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL)
        #expect(seenS >= killAtS)

        // The trace: every whole row, then at most an error saying where it stops.
        var parser = try TraceParser(reading: trace)
        var rows = 0, lastRowS = -1.0
        var readError: TraceError?
        do {
            while let row = try parser.next() { rows += 1; lastRowS = row.timeS }
        } catch { readError = error }
        let traceLostS = seenS - lastRowS
        print(
            "kill -9 at t=\(seenS) s (\(traceExtension)): \(rows) rows to t=\(lastRowS) s, \(traceLostS) s lost; "
                + "reader: \(readError.map { $0.description } ?? "clean end")")
        #expect(rows > 100)
        #expect(traceLostS <= 2.5, "the trace lost \(traceLostS) s")
        if traceExtension == "csv" { #expect(readError == nil, "\(String(describing: readError))") }

        // `lodestone replay` reads it: one output row per whole input row.
        let replay = try CLI.run(["replay", "--input", trace])
        let outputRows = replay.stdout.split(separator: "\n").count - 1
        #expect(outputRows == rows, "replay: \(replay.stderr)")

        // The exports: valid, their last point within the last seconds.
        let gpxPoints = try TrackFiles.gpxPointCount(gpx)
        let geoTimes = try TrackFiles.geoJSONTimes(geo)
        #expect(geoTimes.count == gpxPoints)
        let trackLostS = seenS - (geoTimes.last ?? -.infinity)
        print("  track: \(gpxPoints) points, last at t=\(geoTimes.last ?? .nan) s, \(trackLostS) s lost")
        #expect(gpxPoints > 0)
        #expect(trackLostS <= 3, "the track lost \(trackLostS) s")
    }

    // MARK: - A full and a read-only file system (a private mount namespace)

    /// A 64 KiB tmpfs fills up while `lodestone run` records to it and exports to it: one line per file naming it and
    /// the errno's meaning, the run goes on to its end (STATUS to t = 30 s), exit status 1; what was written stays
    /// readable: the trace up to a whole row, the GPX and GeoJSON whole.
    @Test(.enabled(if: PrivateMount.isAvailable, PrivateMount.unavailableReason))
    func fullFileSystemMidRunIsReportedAndTheRunGoesOn() throws {
        let out = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try PrivateMount.run(
            """
            mount -t tmpfs -o size=64k lodestone-full "$D"
            status=0
            "$L" run --json --classes status --scenario drive --duration 30 --speed 0 --record "$D/r.csv" \
                --gpx "$D/t.gpx" --geojson "$D/t.geojson" > "$O/out.jsonl" 2> "$O/err.txt" || status=$?
            cp "$D/r.csv" "$D/t.gpx" "$D/t.geojson" "$O/"
            df -k "$D" | tail -1 >&2
            exit $status
            """, output: out.path)
        #expect(r.status == 1, "\(r.stderr)")
        let err = try String(contentsOfFile: out.appendingPathComponent("err.txt").path, encoding: .utf8)
        let full = err.split(separator: "\n").filter { $0.contains("no space left") }
        // The recording's line (when it happened, and again at the end), the export's, and the final rewrite's.
        #expect(
            full.contains { $0.contains("/r.csv") && $0.contains("recording stopped") && $0.contains("[errno 28]") }, "\(err)")
        #expect(!err.contains("Fatal error"))
        let statuses = try String(contentsOfFile: out.appendingPathComponent("out.jsonl").path, encoding: .utf8)
        #expect(TrackFiles.lastStatusTimeS(statuses.split(separator: "\n").map(String.init)) ?? 0 >= 29.99)
        var parser = try TraceParser(reading: out.appendingPathComponent("r.csv").path)
        var rows = 0
        while try parser.next() != nil { rows += 1 }
        #expect(rows > 50)
        let points = try TrackFiles.gpxPointCount(out.appendingPathComponent("t.gpx").path)
        let geoPoints = try TrackFiles.geoJSONTimes(out.appendingPathComponent("t.geojson").path).count
        #expect(points > 0 && geoPoints > 0)
        print("64 KiB tmpfs: \(rows) rows kept, GPX \(points) points, GeoJSON \(geoPoints) points; stderr:\n\(err)")
    }

    /// A read-only file system: a recording there is refused before the run starts, in one line; a calibration saved
    /// there fails in one line and leaves the old file as it was.
    @Test(.enabled(if: PrivateMount.isAvailable, PrivateMount.unavailableReason))
    func readOnlyFileSystemFailsInOneLineAndKeepsTheOldCalibration() throws {
        let out = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try PrivateMount.run(
            """
            mount -t tmpfs -o size=256k lodestone-ro "$D"
            cp "$R/calibration/simulated.json" "$D/calibration.json"
            mount -o remount,ro "$D"
            "$L" run --json --duration 2 --speed 0 --record "$D/r.csv" > /dev/null 2> "$O/run.txt"
            echo "run $?" > "$O/status.txt"
            "$L" calibrate gyro --yes --speed 0 --output "$D/calibration.json" > /dev/null 2> "$O/calibrate.txt" < /dev/null
            echo "calibrate $?" >> "$O/status.txt"
            cp "$D/calibration.json" "$O/calibration.json"
            """, output: out.path)
        #expect(r.status == 0, "\(r.stderr)")
        let status = try String(contentsOfFile: out.appendingPathComponent("status.txt").path, encoding: .utf8)
        #expect(!status.contains("run 0") && !status.contains("calibrate 0"), "\(status)")
        let run = try String(contentsOfFile: out.appendingPathComponent("run.txt").path, encoding: .utf8)
        #expect(run.contains("r.csv") && run.contains("read-only file system"), "\(run)")
        let calibrate = try String(contentsOfFile: out.appendingPathComponent("calibrate.txt").path, encoding: .utf8)
        #expect(calibrate.contains("calibration.json") && calibrate.contains("read-only"), "\(calibrate)")
        #expect(try Data(contentsOf: out.appendingPathComponent("calibration.json")) == Data(contentsOf: Self.shippedCalibration))
        print("read-only: run said: \(run)calibrate said: \(calibrate)")
    }

    /// A calibration saved to a full file system: one line, the old file as it was (the atomic write's temporary file
    /// is removed).
    @Test(.enabled(if: PrivateMount.isAvailable, PrivateMount.unavailableReason))
    func fullFileSystemKeepsTheOldCalibration() throws {
        let out = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try PrivateMount.run(
            """
            mount -t tmpfs -o size=64k lodestone-full "$D"
            cp "$R/calibration/simulated.json" "$D/calibration.json"
            head -c 1048576 /dev/zero > "$D/filler" 2>/dev/null || true
            "$L" calibrate gyro --yes --speed 0 --output "$D/calibration.json" > /dev/null 2> "$O/calibrate.txt" < /dev/null
            echo "calibrate $?" > "$O/status.txt"
            cp "$D/calibration.json" "$O/calibration.json"
            ls -a "$D" > "$O/files.txt"
            """, output: out.path)
        #expect(r.status == 0, "\(r.stderr)")
        let status = try String(contentsOfFile: out.appendingPathComponent("status.txt").path, encoding: .utf8)
        #expect(!status.contains("calibrate 0"), "\(status)")
        let calibrate = try String(contentsOfFile: out.appendingPathComponent("calibrate.txt").path, encoding: .utf8)
        #expect(calibrate.contains("calibration.json") && calibrate.contains("no space left"), "\(calibrate)")
        #expect(try Data(contentsOf: out.appendingPathComponent("calibration.json")) == Data(contentsOf: Self.shippedCalibration))
        let files = try String(contentsOfFile: out.appendingPathComponent("files.txt").path, encoding: .utf8)
        #expect(!files.contains(".tmp-"), "\(files)")
        print("full: calibrate said: \(calibrate)")
    }
}

/// Reading the exported tracks back.
enum TrackFiles {
    /// `trkpt` elements of a GPX file that XMLParser accepts whole.
    static func gpxPointCount(_ path: String) throws -> Int {
        let counter = PointCounter()
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        parser.delegate = counter
        guard parser.parse(), counter.root == "gpx" else {
            throw TestFailure("\(path): not a whole GPX file: \(String(describing: parser.parserError))")
        }
        return counter.points
    }

    /// The `t_s` of the last STATUS among wire lines.
    static func lastStatusTimeS(_ lines: [String]) -> Double? {
        lines.compactMap { line -> Double? in
            guard let m = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                m["class"] as? String == "STATUS"
            else { return nil }
            return m["t_s"] as? Double
        }.last
    }

    /// Every point's `t_s` of a GeoJSON FeatureCollection, in file order.
    static func geoJSONTimes(_ path: String) throws -> [Double] {
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let json = object as? [String: Any], json["type"] as? String == "FeatureCollection",
            let features = json["features"] as? [[String: Any]]
        else { throw TestFailure("\(path): not a FeatureCollection") }
        return features.flatMap { ($0["properties"] as? [String: Any])?["t_s"] as? [Double] ?? [] }
    }

    final class PointCounter: NSObject, XMLParserDelegate {
        var root: String?
        var points = 0
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root == nil { root = name }
            if name == "trkpt" { points += 1 }
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Shell steps run as root in a private mount namespace (`unshare -m --propagation private`), so that a tmpfs mounted
/// there (full, or remounted read-only) is seen by nothing else: `$D` is a fresh empty directory to mount on, `$O` a
/// directory of the host's for results, `$L` the built `lodestone`, `$R` the repository.
enum PrivateMount {
    static let isAvailable: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        return (try? run("mount -t tmpfs -o size=16k lodestone-probe \"$D\" && umount \"$D\"", output: "/tmp").status) == 0
    }()

    static let unavailableReason: Comment = "needs root, unshare(1) and permission to mount tmpfs in a mount namespace"

    static func run(_ script: String, output: String) throws -> CLI.Result {
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-mnt-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        var environment = ProcessInfo.processInfo.environment
        environment["D"] = mountPoint.path
        environment["O"] = output
        environment["L"] = CLI.executable.path
        environment["R"] = repositoryRoot.path
        return try CLI.run(
            ["-m", "--propagation", "private", "sh", "-c", script], executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            environment: environment)
    }
}
