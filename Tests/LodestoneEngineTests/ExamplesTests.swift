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
        let r = try CLI.run(
            [path, "6"], executable: Self.example("lodestone-track-logger"), directory: URL(fileURLWithPath: "/tmp"))
        #expect(r.status == 0, "\(r.stderr)")
        let gpx = try String(contentsOfFile: path, encoding: .utf8)
        let points = gpx.components(separatedBy: "<trkpt ").count - 1
        #expect(points >= 3, "\(gpx)")
        #expect(r.stdout.contains("\(points) points written"))
        #expect(gpx.hasSuffix("</trkseg></trk></gpx>\n"))
        // Every point has a position and the scenario's UTC time.
        #expect(gpx.components(separatedBy: "<time>2026-").count - 1 == points)
    }
}
