import Foundation
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
@testable import LodestoneStore
import Testing
@testable import LodestoneEngine

/// A store that cannot be written (issue 18, crash-safe state: "reports ENOSPC and a read-only file system clearly,
/// going on in memory"): region events are delivered as they happen while the store refuses them, are pending with
/// the store's, can be acknowledged, and reach the store once it can be written again. The refusal is SQLite's own:
/// `PRAGMA query_only` on the store's connection fails every write with SQLITE_READONLY, as a file system remounted
/// read-only does.
struct MonitoringStoreFailureTests {
    static let centre = (latitudeDeg: 47.0, longitudeDeg: 8.0)

    /// A location `northM` metres north of the region's centre at `timeS`, accurate to 5 m.
    static func location(northM: Double, timeS: Double) -> Location {
        Location(
            coordinate: Coordinate(latitudeDeg: centre.latitudeDeg + northM / 111_195, longitudeDeg: centre.longitudeDeg),
            horizontalAccuracyM: 5, timeS: timeS)
    }

    static func step(_ runtime: inout MonitoringRuntime, northM: Double, timeS: Double) -> [String] {
        var notes: [String] = []
        runtime.afterStep(
            location: location(northM: northM, timeS: timeS), lastFixS: timeS, activity: nil,
            totals: PedometerTotals(timeS: timeS), speedMps: nil, timeS: timeS, unixOffsetS: 0, notes: &notes)
        return notes
    }

    @Test func eventsGoOnInMemoryWhileTheStoreRefusesWritesAndReachItAfterwards() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-store-failure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("lodestone.sqlite").path
        let store = try MonitorStore(path: path)
        var runtime = try MonitoringRuntime(store: store, standingRegions: [], standingSignificantChange: false)
        let key = MonitorKey(client: "test", name: "places")
        try runtime.addCondition(
            try CircularRegion(
                id: "home", latitudeDeg: Self.centre.latitudeDeg, longitudeDeg: Self.centre.longitudeDeg, radiusM: 100),
            to: key)

        // Inside: the first event, written as usual, and acknowledged.
        _ = Self.step(&runtime, northM: 0, timeS: 10)
        #expect(try runtime.pending(of: key).map(\.id) == [1])
        #expect(try runtime.acknowledge(through: 1, of: key) == .acknowledged(count: 1, throughId: 1))

        // The store refuses writes: leaving is delivered all the same, and pending.
        try store.db.execute("PRAGMA query_only = ON", operation: "test: refuse writes")
        let leaving = Self.step(&runtime, northM: 1000, timeS: 20)
        #expect(runtime.eventLog.map(\.id) == [1, 2])
        #expect(runtime.eventLog.last?.state == .unsatisfied)
        #expect(leaving.contains { $0.contains("readonly") || $0.contains("read-only") }, "\(leaving)")
        #expect(leaving.contains { $0.contains("1 event(s) kept in memory") }, "\(leaving)")
        #expect(try runtime.pending(of: key).map(\.id) == [2])
        // Acknowledged while only in memory; coming back makes a third, still refused by the store.
        #expect(try runtime.acknowledge(through: 2, of: key) == .acknowledged(count: 1, throughId: 2))
        #expect(try runtime.acknowledge(through: 3, of: key) == .unknownEvent(id: 3, lastEventId: 2))
        _ = Self.step(&runtime, northM: 0, timeS: 30)
        #expect(runtime.eventLog.map(\.id) == [1, 2, 3])
        #expect(try runtime.pending(of: key).map(\.id) == [3])
        #expect(try store.pendingEvents(of: key).isEmpty, "nothing reached the store yet")

        // Writable again: the next evaluation writes what was kept, and the acknowledgement.
        try store.db.execute("PRAGMA query_only = OFF", operation: "test: allow writes")
        let back = Self.step(&runtime, northM: 10, timeS: 40)
        #expect(back.contains { $0.contains("the store took the 2 event(s) kept in memory") }, "\(back)")
        #expect(runtime.unsaved.isEmpty && runtime.unsavedAcknowledgedThrough.isEmpty)
        #expect(try runtime.pending(of: key).map(\.id) == [3])

        // What a restart finds: the condition's state and the queue as they were live.
        let reopened = try MonitorStore(path: path)
        #expect(try reopened.pendingEvents(of: key).map(\.id) == [3])
        let monitor = try reopened.restoreMonitor(key)
        #expect(monitor.record(id: "home")?.state == .satisfied)
        #expect(monitor.nextEventId == 4)
        // And it goes on with the store: leaving again is event 4, written at once.
        _ = Self.step(&runtime, northM: 1000, timeS: 50)
        #expect(try reopened.pendingEvents(of: key).map(\.id) == [3, 4])
    }
}
