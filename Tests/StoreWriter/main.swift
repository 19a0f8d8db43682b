// lodestone-store-writer DIRECTORY [RUN]: opens the store in DIRECTORY and makes a scripted sequence of writes — three
// conditions, a walk through them (each state change and its event in one transaction), two acknowledgements, two
// pedometer intervals — printing one line per committed step, written with write(2) right after the commit returns:
//
//     add A                      the condition was added
//     event 7 B satisfied        event 7 (and the state change it reports) was recorded
//     ack 5                      events through 5 were acknowledged
//     pedometer 3600             the interval starting at 3600 s was recorded
//
// A second run (RUN = 2) on the same store restores the monitor and walks again: its events continue the ids.
// The crash test (Tests/LodestoneStoreTests/StoreCrashTests.swift) kills it at every write and fsync.
import Foundation
import LodestoneLocation
import LodestoneMonitoring
import LodestoneStore

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lodestone-store-writer: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: lodestone-store-writer DIRECTORY [RUN]") }
let run = arguments.count >= 3 ? Int(arguments[2]) ?? 1 : 1
let key = MonitorKey(client: "uid-1000", name: "places")

do {
    let store = try MonitorStore(directory: arguments[1])
    for (region, latitudeDeg, longitudeDeg, radiusM) in StoreScript.regions
    where try !store.conditions(of: key).contains(where: { $0.region.id == region }) {
        try store.addCondition(
            CircularRegion(id: region, latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg, radiusM: radiusM), to: key)
        say("add \(region)")
    }
    var monitor = try store.restoreMonitor(key)
    for (step, (latitudeDeg, longitudeDeg, timeS)) in StoreScript.route.enumerated() {
        let location = Location(
            coordinate: Coordinate(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg), horizontalAccuracyM: 5,
            timeS: Double(run - 1) * 10_000 + timeS)
        for event in try store.evaluate(location, with: &monitor, of: key) {
            say("event \(event.id) \(event.conditionId) \(event.state.rawValue)")
        }
        if StoreScript.acknowledgeAfterSteps.contains(step), let last = try store.pendingEvents(of: key).last {
            try store.acknowledge(through: last.id, of: key)
            say("ack \(last.id)")
        }
    }
    for k in 0..<2 {
        let startS = Double(run) * 3_600 + Double(k) * 60
        try store.recordPedometer(
            PedometerInterval(startS: startS, endS: startS + 60, steps: 100 + k, distanceM: 70, activeS: 55))
        say("pedometer \(Int(startS))")
    }
} catch {
    fail("\(error)")
}

/// The script's data.
enum StoreScript {
    /// The conditions: id, centre (degrees) and radius (m). B is 750 m east of A, C 2 km north.
    static let regions: [(String, Double, Double, Double)] = [
        ("A", 47.3769, 8.5417, 200), ("B", 47.3769, 8.5517, 150), ("C", 47.3949, 8.5417, 300)
    ]
    /// The walk: latitude, longitude (degrees), time (s). Eleven events in all from a new store.
    static let route: [(Double, Double, Double)] = [
        (47.3769, 8.5417, 0), (47.3769, 8.5467, 60), (47.3769, 8.5517, 120), (47.3859, 8.5467, 300),
        (47.3949, 8.5417, 600), (47.3859, 8.5417, 900), (47.3769, 8.5417, 1_200), (47.3769, 8.5517, 1_500)
    ]
    /// After these steps (0-based) everything pending is acknowledged.
    static let acknowledgeAfterSteps: Set<Int> = [2, 5]
}
