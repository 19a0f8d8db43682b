import Foundation
import LodestoneLocation
import LodestoneMonitoring

@testable import LodestoneStore

/// A new empty directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    var store: String { file(MonitorStore.fileName) }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

let home = MonitorKey(client: "uid-1000", name: "places")

/// A fix at (`latitudeDeg`, `longitudeDeg`) at `timeS` claiming 5 m.
func fix(_ latitudeDeg: Double, _ longitudeDeg: Double, timeS: Double) -> Location {
    Location(
        coordinate: Coordinate(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg), horizontalAccuracyM: 5, timeS: timeS)
}

/// Region A (200 m) in Zurich and B (150 m) 750 m east of it.
func regionA() throws -> CircularRegion { try CircularRegion(id: "A", latitudeDeg: 47.3769, longitudeDeg: 8.5417, radiusM: 200) }
func regionB() throws -> CircularRegion { try CircularRegion(id: "B", latitudeDeg: 47.3769, longitudeDeg: 8.5517, radiusM: 150) }

extension MonitorStore {
    /// The first column of the first row of `sql`, for inspecting pragmas in tests.
    func scalar(_ sql: String) throws -> Statement.Value? {
        try db.statement(sql, operation: "test query").first()?.first
    }
}
