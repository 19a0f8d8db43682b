import Foundation
import Testing
@testable import LodestoneEngine

/// The README's examples, built with the package, run for a few seconds on the simulated board from another directory.
@Suite struct ExamplesTests {
    static func example(_ name: String) -> URL { CLI.executable.deletingLastPathComponent().appendingPathComponent(name) }

    @Test func theCompassPrintsAHeadingWithItsAccuracyOnceASecond() throws {
        let r = try CLI.run(["4"], executable: Self.example("lodestone-compass"), directory: URL(fileURLWithPath: "/tmp"))
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect((3...5).contains(lines.count), "\(r.stdout)")
        // After the first second the filter has settled: an absolute heading better than 10°.
        for line in lines.dropFirst() {
            let accuracy = line.split(separator: "±").last.flatMap { Double($0.prefix { $0 == "." || $0.isNumber }) }
            #expect(accuracy.map { $0 < 10 } == true, "\(line)")
        }
    }

    @Test func theTrackLoggerWritesAGPXTrackOfFitnessLocations() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-track-\(getpid()).gpx").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 12 s of wall clock: the debug build's first point comes about 2 s after start on a quiet machine (the board,
        // the models, the receiver's first fix; runs of 1.5 s give none, of 2 s one), then one a second. Beside the
        // rest of `swift test` a start can take over 6 s: a 6-second run gave 0 points once in a CI run of 2026-11-29
        // and in 2 of 6 runs locally beside the Engine tests.
        let r = try CLI.run(
            [path, "12"], executable: Self.example("lodestone-track-logger"), directory: URL(fileURLWithPath: "/tmp"))
        #expect(r.status == 0, "\(r.stderr)")
        let gpx = try String(contentsOfFile: path, encoding: .utf8)
        let points = gpx.components(separatedBy: "<trkpt ").count - 1
        #expect(points >= 3, "\(gpx)")
        #expect(r.stdout.contains("\(points) points written"))
        #expect(gpx.hasSuffix("</trkseg></trk></gpx>\n"))
        // Every point has a position and the scenario's UTC time.
        #expect(gpx.components(separatedBy: "<time>2026-").count - 1 == points)
    }

    /// The same two programs against `lodestone serve` (`--daemon SOCKET`): one line differs, the output is alike.
    @Test func theExamplesRunAgainstTheDaemonToo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-examples-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.appendingPathComponent("lodestone.sock").path
        let server = Process()
        server.executableURL = CLI.executable
        server.arguments = ["serve", "--socket", socket, "--gpsd-listen", "none", "--state-dir", dir.path]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
        try server.run()
        defer {
            if server.isRunning { kill(server.processIdentifier, SIGTERM) }
            #expect(CLI.waitForExit(server, timeoutS: 15), "lodestone serve did not stop on SIGTERM")
        }
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: socket) && server.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
        }
        try #require(FileManager.default.fileExists(atPath: socket), "lodestone serve made no socket")

        let compass = try CLI.run(["4", "--daemon", socket], executable: Self.example("lodestone-compass"), directory: dir)
        #expect(compass.status == 0, "\(compass.stderr)")
        let lines = compass.stdout.split(separator: "\n")
        #expect((3...5).contains(lines.count), "\(compass.stdout)")
        // The daemon started just before: as in-process, the filter has settled after the first second.
        for line in lines.dropFirst() {
            let accuracy = line.split(separator: "±").last.flatMap { Double($0.prefix { $0 == "." || $0.isNumber }) }
            #expect(accuracy.map { $0 < 10 } == true, "\(line)")
        }

        let path = dir.appendingPathComponent("track.gpx").path
        let logger = try CLI.run(
            [path, "6", "--daemon", socket], executable: Self.example("lodestone-track-logger"), directory: dir)
        #expect(logger.status == 0, "\(logger.stderr)")
        let gpx = try String(contentsOfFile: path, encoding: .utf8)
        let points = gpx.components(separatedBy: "<trkpt ").count - 1
        #expect(points >= 3, "\(gpx)")
        #expect(gpx.components(separatedBy: "<time>2026-").count - 1 == points)
        #expect(gpx.hasSuffix("</trkseg></trk></gpx>\n"))
    }
}
