import Foundation
import LodestoneLocation
import LodestoneMonitoring
import Testing

@testable import LodestoneStore

@Suite struct MonitorStoreTests {
    @Test func aNewStoreIsInWALModeWithFullSyncAndTheCurrentSchema() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        #expect(store.path == dir.store)
        #expect(try store.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try store.scalar("PRAGMA synchronous") == .integer(2)) // FULL
        #expect(try store.scalar("PRAGMA foreign_keys") == .integer(1))
        #expect(try store.userVersion() == MonitorStore.schemaVersion)
        #expect(MonitorStore.schemaVersion == 2)
    }

    @Test func conditionsAreAddedListedAndRemovedPerMonitor() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        let work = MonitorKey(client: "uid-1000", name: "work")
        try store.addCondition(regionB(), to: home)
        try store.addCondition(regionA(), to: home)
        try store.addCondition(regionA(), to: work)
        #expect(try store.monitors() == [home, work])
        let listed = try store.conditions(of: home)
        // Hoisted: Swift 6.0.3's #expect cannot take `try` inside its right-hand operand.
        let regions = [try regionA(), try regionB()]
        #expect(listed.map(\.region) == regions)
        #expect(listed.allSatisfy { $0.record == MonitorConditionRecord() })
        // A duplicate is refused with a clear error, and loses nothing.
        #expect {
            try store.addCondition(regionA(), to: home)
        } throws: { error in
            "\(error)".contains("add condition A to monitor uid-1000/places: the monitor already has it")
        }
        #expect(try store.conditions(of: home).count == 2)
        #expect(try store.removeCondition(id: "A", from: home))
        #expect(try !store.removeCondition(id: "A", from: home))
        #expect(try store.conditions(of: home).map(\.region.id) == ["B"])
        #expect(try store.conditions(of: work).map(\.region.id) == ["A"])
        #expect(try store.conditions(of: MonitorKey(client: "x", name: "y")).isEmpty)
        // A monitor needs a client and a name; a bad one is refused and creates nothing.
        for bad in [MonitorKey(client: "", name: "x"), MonitorKey(client: "u", name: String(repeating: "n", count: 257))] {
            #expect {
                try store.addCondition(regionA(), to: bad)
            } throws: { error in
                "\(error)".contains("must be 1 to 256 UTF-8 bytes")
            }
        }
        #expect(try store.monitors() == [home, work])
        #expect(try store.removeMonitor(work))
        #expect(try store.monitors() == [home])
    }

    @Test func aStateChangeAndItsEventAreRecordedTogether() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        try store.addCondition(regionA(), to: home)
        try store.addCondition(regionB(), to: home)
        var monitor = try store.restoreMonitor(home)
        let inside = fix(47.3769, 8.5417, timeS: 10)
        let events = try store.evaluate(inside, with: &monitor, of: home)
        #expect(events.map(\.id) == [1, 2])
        #expect(try store.pendingEvents(of: home) == events)
        #expect(try store.nextEventId(of: home) == 3)
        let a = try #require(try store.conditions(of: home).first { $0.region.id == "A" })
        #expect(a.record == MonitorConditionRecord(state: .satisfied, changedAtS: 10, location: inside))

        // An event whose id was used is refused; so is one for a condition the monitor lacks — and the whole batch
        // with it: the good event before it is not written either.
        let good = MonitorEvent(
            id: 3, conditionId: "A", state: .unsatisfied, previousState: .satisfied, timeS: 20, location: inside)
        for bad in [
            MonitorEvent(id: 2, conditionId: "B", state: .satisfied, previousState: .unsatisfied, timeS: 20, location: inside),
            MonitorEvent(id: 4, conditionId: "Z", state: .satisfied, previousState: .unknown, timeS: 20, location: inside)
        ] {
            #expect(throws: StoreError.self) { try store.record(bad.id == 2 ? [bad] : [good, bad], of: home) }
            #expect(try store.pendingEvents(of: home) == events)
            #expect(try store.nextEventId(of: home) == 3)
            #expect(try store.conditions(of: home).first { $0.region.id == "A" }?.record.state == .satisfied)
        }
    }

    @Test func acknowledgingIsIdempotentAndSaysWhatItDid() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try MonitorStore(directory: dir.path)
        try store.addCondition(regionA(), to: home)
        try store.addCondition(regionB(), to: home)
        var monitor = try store.restoreMonitor(home)
        _ = try store.evaluate(fix(47.3769, 8.5417, timeS: 0), with: &monitor, of: home) // 1 A in, 2 B out
        _ = try store.evaluate(fix(47.3769, 8.5517, timeS: 600), with: &monitor, of: home) // 3 A out, 4 B in
        #expect(try store.acknowledge(through: 2, of: home) == .acknowledged(count: 2, throughId: 2))
        #expect(try store.pendingEvents(of: home).map(\.id) == [3, 4])
        #expect(try store.acknowledge(through: 2, of: home) == .alreadyAcknowledged(throughId: 2))
        #expect(try store.acknowledge(through: 1, of: home) == .alreadyAcknowledged(throughId: 1))
        #expect(try store.acknowledge(through: 0, of: home) == .alreadyAcknowledged(throughId: 0))
        let unknown = try store.acknowledge(through: 99, of: home)
        #expect(unknown == .unknownEvent(id: 99, lastEventId: 4))
        #expect(unknown.description == "no event 99 yet (the last is 4); nothing acknowledged")
        #expect(try store.pendingEvents(of: home).map(\.id) == [3, 4])
        #expect(try store.acknowledgedThroughId(of: home) == 2)
        #expect(throws: StoreError.self) { try store.acknowledge(through: 1, of: MonitorKey(client: "x", name: "y")) }
    }

    /// The daemon's restart: the monitor is rebuilt from the store and continues; ids go on from where they were, the
    /// unacknowledged events are still owed (with their original times), the acknowledged ones never come back.
    @Test func aRestartRebuildsTheMonitorAndContinues() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var delivered: [UInt64] = []
        do {
            let store = try MonitorStore(directory: dir.path)
            try store.addCondition(regionA(), to: home)
            try store.addCondition(regionB(), to: home)
            var monitor = try store.restoreMonitor(home)
            delivered += try store.evaluate(fix(47.3769, 8.5417, timeS: 0), with: &monitor, of: home).map(\.id)
            try store.acknowledge(through: 2, of: home)
            delivered += try store.evaluate(fix(47.3769, 8.5517, timeS: 600), with: &monitor, of: home).map(\.id)
            #expect(delivered == [1, 2, 3, 4])
        }
        // The process is gone; a new one opens the store.
        let store = try MonitorStore(directory: dir.path)
        var monitor = try store.restoreMonitor(home)
        #expect(monitor.count == 2)
        #expect(monitor.nextEventId == 5)
        #expect(monitor.record(id: "B")?.state == .satisfied)
        let owed = try store.pendingEvents(of: home)
        #expect(owed.map(\.id) == [3, 4])
        #expect(owed.map(\.timeS) == [600, 600])
        // The same place again changes nothing (the states were restored, not re-decided).
        #expect(try store.evaluate(fix(47.3769, 8.5517, timeS: 700), with: &monitor, of: home).isEmpty)
        let next = try store.evaluate(fix(47.3769, 8.5417, timeS: 1_200), with: &monitor, of: home)
        #expect(next.map(\.id) == [5, 6])
        #expect(try store.acknowledge(through: 6, of: home) == .acknowledged(count: 4, throughId: 6))
        let again = try MonitorStore(directory: dir.path)
        #expect(try again.pendingEvents(of: home).isEmpty)
        #expect(try again.restoreMonitor(home).nextEventId == 7)
    }

    /// A version-1 file (before the history) is migrated to the current version, keeping everything in it.
    @Test func aVersion1FileIsUpgraded() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            let v1 = try SQLiteConnection(path: dir.store, create: true)
            try v1.execute(Schema.version1, operation: "make a version 1 file")
            try v1.execute(
                """
                INSERT INTO monitors (id, client, name, next_event_id, acknowledged_through_id)
                    VALUES (1, 'uid-1000', 'places', 8, 6);
                INSERT INTO conditions VALUES (1, 'A', 47.3769, 8.5417, 200);
                INSERT INTO condition_states VALUES (1, 'A', 'unknown', NULL, NULL);
                PRAGMA user_version = 1;
                """, operation: "fill the version 1 file")
        }
        let store = try MonitorStore(path: dir.store)
        #expect(try store.userVersion() == 2)
        #expect(try store.conditions(of: home).map(\.region) == [try regionA()])
        #expect(try store.nextEventId(of: home) == 8)
        #expect(try store.acknowledgedThroughId(of: home) == 6)
        try store.recordPedometer(PedometerInterval(startS: 0, endS: 60, steps: 80, distanceM: 56))
        #expect(try store.pedometerData(fromS: 0, toS: 60).steps == 80)
    }

    @Test func aFileFromANewerVersionIsRefusedAndLeftAlone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            let store = try MonitorStore(path: dir.store)
            try store.db.execute("PRAGMA user_version = 99", operation: "pretend a newer version")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: dir.store))
        #expect {
            _ = try MonitorStore(path: dir.store)
        } throws: { error in
            (error as? StoreError) == .newerSchema(path: dir.store, foundVersion: 99, supportedVersion: 2)
                && "\(error)".contains("schema version 99, newer than this Lodestone knows (2)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.store)) == before)
    }

    /// A file that is not SQLite at all, and an SQLite file with a damaged page: both refused with a clear error,
    /// neither written to (the bytes are the same afterwards and no journal or WAL appears beside them).
    @Test(arguments: ["foreign", "damaged"])
    func aCorruptFileIsRefusedAndNeverOverwritten(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var bytes: Data
        if kind == "foreign" {
            bytes = Data(String(repeating: "these are not the pages you are looking for\n", count: 200).utf8)
        } else {
            do {
                let store = try MonitorStore(path: dir.store)
                for i in 0..<200 {
                    try store.addCondition(
                        CircularRegion(id: "R\(i)", latitudeDeg: 47, longitudeDeg: 8 + Double(i) * 0.001, radiusM: 100),
                        to: home)
                }
            } // closed: checkpointed into the main file, the WAL removed
            bytes = try Data(contentsOf: URL(fileURLWithPath: dir.store))
            #expect(bytes.count >= 4 * 4096)
            // Garbage over the header of every page but the first (their b-tree page type and cell counts).
            for page in 1..<(bytes.count / 4096) {
                for i in (page * 4096)..<(page * 4096 + 12) { bytes[i] = 0xA5 }
            }
        }
        try bytes.write(to: URL(fileURLWithPath: dir.store))
        #expect {
            _ = try MonitorStore(path: dir.store)
        } throws: { error in
            guard case .notADatabase(let path, _)? = error as? StoreError else { return false }
            return path == dir.store && "\(error)".contains("is not a usable SQLite database")
                && "\(error)".contains("left untouched")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.store)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [MonitorStore.fileName])
    }

    @Test func anUnopenableStoreSaysWhatFailedWithSQLitesMessage() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("missing-parent-is-a-file"), withIntermediateDirectories: true)
        let path = dir.file("no-such-directory/lodestone.sqlite")
        #expect {
            _ = try MonitorStore(path: path)
        } throws: { error in
            guard case .sqlite(let operation, let p, _, let message)? = error as? StoreError else { return false }
            return operation == "open" && p == path && message == "unable to open database file"
                && "\(error)".hasPrefix("\(path): open failed: unable to open database file")
        }
    }
}
