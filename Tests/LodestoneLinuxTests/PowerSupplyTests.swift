import Testing
@testable import LodestoneLinux

@Suite struct PowerSupplyTests {
    @Test func readsEveryUeventOfAFakeTreeKeyedBySupplyName() throws {
        let root = try TestFS.makeTemporaryDirectory("power-supply")
        defer { TestFS.removeTree(root) }
        try TestFS.makeDirectories(root + "/BAT0")
        try TestFS.makeDirectories(root + "/AC")
        try TestFS.write(root + "/BAT0/uevent", "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_TYPE=Battery\nPOWER_SUPPLY_CAPACITY=42\n")
        try TestFS.write(root + "/AC/uevent", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_TYPE=Mains\nPOWER_SUPPLY_ONLINE=0\n")
        let texts = try PowerSupply.readUevents(root: root)
        #expect(texts.keys.sorted() == ["AC", "BAT0"])
        #expect(texts["BAT0"]?.contains("POWER_SUPPLY_CAPACITY=42") == true)
    }

    @Test func aSupplyWithoutAReadableUeventIsLeftOutAndTheOthersStillCount() throws {
        let root = try TestFS.makeTemporaryDirectory("power-supply")
        defer { TestFS.removeTree(root) }
        try TestFS.makeDirectories(root + "/BAT0")
        try TestFS.makeDirectories(root + "/vanished") // its driver went away: no uevent
        try TestFS.write(root + "/BAT0/uevent", "POWER_SUPPLY_TYPE=Battery\n")
        #expect(try PowerSupply.readUevents(root: root).keys.sorted() == ["BAT0"])
    }

    @Test func noClassDirectoryMeansNoSupplyAndABrokenOneIsAClearError() throws {
        #expect(try PowerSupply.readUevents(root: "/nonexistent/power_supply").isEmpty)
        let root = try TestFS.makeTemporaryDirectory("power-supply")
        defer { TestFS.removeTree(root) }
        // Only unreadable supplies: the first failure, naming the file.
        try TestFS.makeDirectories(root + "/BAT0")
        #expect {
            try PowerSupply.readUevents(root: root)
        } throws: { error in
            let e = error as? FileError
            return e?.kind == .notFound && e?.path == root + "/BAT0/uevent"
                && (e?.description.contains("power supply") ?? false)
        }
        // A file where the directory should be.
        try TestFS.write(root + "/file", "x")
        #expect(throws: FileError.self) { try PowerSupply.readUevents(root: root + "/file") }
    }

    /// The real kernel interface of this machine (often empty in a container or VM: then an empty answer).
    @Test func theMachinesOwnPowerSupplyClassReadsWithoutError() throws {
        let texts = try PowerSupply.readUevents()
        for (name, text) in texts {
            #expect(text.contains("POWER_SUPPLY_"), "\(name)")
        }
    }
}
