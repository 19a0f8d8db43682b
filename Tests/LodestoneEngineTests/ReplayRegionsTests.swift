import Foundation
import LodestoneCLI
import LodestoneCore
import LodestoneEngine
import LodestoneLocation
import LodestoneMonitoring
@testable import LodestoneTrace
import Testing

/// `lodestone replay --regions … --events-out …`: the region monitor over the fused locations of a replay.
@Suite(.serialized) struct ReplayRegionsTests {
    /// The truth of the recording: time and position of every row with a truth position.
    func truth() throws -> [(timeS: Double, coordinate: Coordinate)] {
        let path = LocationStageTests.recording
        var parser = TraceParser(text: try TraceFiles.readText(path: path), path: path)
        var out: [(Double, Coordinate)] = []
        while let row = try parser.next() {
            if let lat = row.truth?.latitudeDeg, let lon = row.truth?.longitudeDeg {
                out.append((row.timeS, Coordinate(latitudeDeg: lat, longitudeDeg: lon)))
            }
        }
        return out
    }

    @Test func aRegionLeftDuringTheDriveGivesItsExitWithinSecondsOfTheTruth() throws {
        let truth = try truth()
        // A region of 150 m around where the car is at 30 s, and one 50 km away.
        let center = try #require(truth.first { $0.timeS >= 30 }).coordinate
        let regions = [
            try CircularRegion(id: "here", center: center, radiusM: 150),
            try CircularRegion(
                id: "far \"away\"", latitudeDeg: center.latitudeDeg + 0.45, longitudeDeg: center.longitudeDeg, radiusM: 1_000)
        ]
        var events: [MonitorEvent] = []
        _ = try ReplayJob(inputPath: LocationStageTests.recording, regions: regions) { events.append($0) }.run { _ in }
        #expect(events.map(\.id) == Array(1...UInt64(events.count)))
        let far = events.filter { $0.conditionId == "far \"away\"" }
        #expect(far.map(\.state) == [.unsatisfied])
        // The truth's crossings of the near region after it is first inside.
        var crossings: [(timeS: Double, entering: Bool)] = []
        var inside: Bool?
        for (t, c) in truth {
            let now = try #require(c.distanceM(to: center)) <= 150
            if let was = inside, was != now { crossings.append((t, now)) }
            inside = now
        }
        let here = events.filter { $0.conditionId == "here" }
        try #require(!here.isEmpty)
        // Each change after the first decision is a true crossing of the same direction, seen within 10 s.
        for e in here where e.previousState != .unknown {
            let match = crossings.first { $0.entering == (e.state == .satisfied) && abs($0.timeS - e.timeS) <= 10 }
            #expect(match != nil, "event \(e.state) at \(e.timeS) s; crossings \(crossings)")
        }
        #expect(here.count >= 2)
        // The lines `--events-out` writes: one JSON object each, the keys the issue names.
        for e in events {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(e.jsonLine.utf8)) as? [String: Any])
            #expect(object["id"] as? String == e.conditionId)
            #expect(object["state"] as? String == e.state.rawValue)
            #expect(object["t_s"] != nil && object["lat_deg"] != nil && object["lon_deg"] != nil)
            // The numbers round-trip exactly, read as Swift reads them: Foundation's JSONSerialization on Linux rounds
            // some 17-digit numbers in the last place (47.376872059857824 → 47.37687205985783).
            #expect(Self.number("t_s", in: e.jsonLine) == e.timeS)
            #expect(Self.number("lat_deg", in: e.jsonLine) == e.location.coordinate.latitudeDeg)
            #expect(Self.number("lon_deg", in: e.jsonLine) == e.location.coordinate.longitudeDeg)
        }
    }

    /// The number after `"key":` in a one-line JSON object, parsed by `Double(_:)`.
    static func number(_ key: String, in line: String) -> Double? {
        guard let start = line.range(of: "\"\(key)\":")?.upperBound else { return nil }
        return Double(String(line[start...].prefix { $0 != "," && $0 != "}" }))
    }
}
