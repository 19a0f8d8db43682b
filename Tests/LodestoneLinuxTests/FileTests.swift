import Glibc
import Testing
@testable import LodestoneLinux

@Suite struct AtomicFileTests {
    @Test func createsAndReplacesWithExactModeAndNoLeftovers() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let path = dir + "/board.json"
        try AtomicFile.write(Array("old".utf8), to: path, permissions: 0o600)
        #expect(TestFS.readText(path) == "old")
        #expect(TestFS.mode(path) == 0o600)
        try AtomicFile.write("new contents", to: path, permissions: 0o640)
        #expect(TestFS.readText(path) == "new contents")
        #expect(TestFS.mode(path) == 0o640)
        #expect(TestFS.list(dir) == ["board.json"])
    }

    @Test func emptyContentsAndBareNamesWork() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        try AtomicFile.write([], to: dir + "/empty")
        #expect(TestFS.read(dir + "/empty") == [])
        #expect(AtomicFile.split("name") == (".", "name"))
        #expect(AtomicFile.split("/name") == ("/", "name"))
        #expect(AtomicFile.split("/a/b/c.json") == ("/a/b", "c.json"))
    }

    @Test(
        "an injected failure at any step before the rename keeps the old file and leaves no temp",
        arguments: [AtomicFile.Step.create, .write, .fsync, .close, .rename])
    func injectedFailureKeepsOldFile(_ step: AtomicFile.Step) throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let path = dir + "/calibration.json"
        try TestFS.write(path, "old calibration")
        #expect {
            try AtomicFile.write(Array("new".utf8), to: path, permissions: 0o644, failing: step)
        } throws: { error in
            guard let e = error as? FileError else { return false }
            return e.kind == .io && e.path == path && e.errno == EIO
        }
        #expect(TestFS.readText(path) == "old calibration")
        #expect(TestFS.list(dir) == ["calibration.json"])
    }

    @Test func aFailedDirectorySyncIsReportedAfterTheNewFileIsInPlace() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let path = dir + "/f"
        #expect(throws: FileError.self) {
            try AtomicFile.write(Array("new".utf8), to: path, permissions: 0o644, failing: .syncDirectory)
        }
        #expect(TestFS.readText(path) == "new")
        #expect(TestFS.list(dir) == ["f"])
    }

    @Test func aMissingDirectoryIsNotFoundNamingThePath() {
        #expect {
            try AtomicFile.write([1], to: "/nonexistent-lodestone-dir/f")
        } throws: { error in
            guard let e = error as? FileError else { return false }
            return e.kind == .notFound && e.description.hasPrefix("/nonexistent-lodestone-dir/f: no such file")
        }
    }

    @Test func replacingADirectoryFailsAtRenameAndRemovesTheTemp() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        try TestFS.makeDirectories(dir + "/target/inside")
        #expect {
            try AtomicFile.write([1, 2, 3], to: dir + "/target")
        } throws: { error in
            guard let e = error as? FileError else { return false }
            return e.kind == .isDirectory && e.operation.hasPrefix("rename")
        }
        #expect(TestFS.list(dir) == ["target"])
    }

    /// Real kernel failures, not injected ones: a full file system (ENOSPC mid-write) and a read-only one (EROFS),
    /// on a small tmpfs mounted in a private mount namespace.
    @Test(.enabled(if: MountNamespace.isAvailable, MountNamespace.unavailableReason))
    func realENOSPCAndEROFSKeepTheOldFile() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        struct Observed {
            var noSpace: FileError?; var readOnly: FileError?; var afterNoSpace: String?
            var afterReadOnly: String?; var listing: [String]
        }
        let observed = try MountNamespace.runOnSmallTmpfs(at: dir) { () throws -> Observed in
            let path = dir + "/trace.csv"
            try TestFS.write(path, "old trace")
            var o = Observed(listing: [])
            do throws(FileError) { try AtomicFile.write([UInt8](repeating: 0x41, count: 1 << 20), to: path) } catch {
                o.noSpace = error
            }
            o.afterNoSpace = TestFS.readText(path)
            o.listing = TestFS.list(dir)
            guard mount(nil, dir, nil, UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
                throw TestFailure("remount ro: errno \(errno)")
            }
            do throws(FileError) { try AtomicFile.write(Array("x".utf8), to: path) } catch { o.readOnly = error }
            o.afterReadOnly = TestFS.readText(path)
            return o
        }
        #expect(observed.noSpace?.kind == .noSpace)
        #expect(observed.noSpace?.errno == ENOSPC)
        #expect(observed.noSpace?.operation.hasPrefix("write 1048576 bytes") == true)
        #expect(observed.afterNoSpace == "old trace")
        #expect(observed.listing == ["trace.csv"])
        #expect(observed.readOnly?.kind == .readOnlyFileSystem)
        #expect(observed.readOnly?.description.contains("read-only file system") == true)
        #expect(observed.afterReadOnly == "old trace")
    }
}

@Suite struct AtomicFileWriterTests {
    /// Streamed in pieces of every size around the 64 KiB buffer (smaller, straddling, larger than it): the committed
    /// file is the bytes in order, the old contents stay until the commit, and no temporary file is left.
    @Test func streamsPiecesOfAnySizeAndReplacesTheFileOnCommit() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let path = dir + "/out.csv"
        try TestFS.write(path, "old")
        let writer = try AtomicFileWriter(path: path, permissions: 0o640)
        var expected: [UInt8] = []
        for (i, size) in [1, 100, 65_000, 600, 70_000, 3, 65_536, 200_000, 17].enumerated() {
            let piece = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
            try piece.withUnsafeBytes { try writer.write($0) }
            expected += piece
        }
        #expect(TestFS.readText(path) == "old")
        #expect(TestFS.list(dir).count == 2) // the target and the temporary file beside it
        try writer.commit()
        #expect(TestFS.read(path) == expected)
        #expect(TestFS.list(dir) == ["out.csv"])
        #expect(TestFS.mode(path) == 0o640)
        #expect(throws: FileError.self) { try [UInt8(1)].withUnsafeBytes { try writer.write($0) } }
    }

    @Test func anAbandonedOrReleasedWriterLeavesTheOldFileAndNoTemporaryOne() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let path = dir + "/out.csv"
        try TestFS.write(path, "old")
        let abandoned = try AtomicFileWriter(path: path)
        try Array("new".utf8).withUnsafeBytes { try abandoned.write($0) }
        abandoned.abandon()
        #expect(TestFS.list(dir) == ["out.csv"])
        do {
            let released = try AtomicFileWriter(path: path)
            try Array("newer".utf8).withUnsafeBytes { try released.write($0) }
        }
        #expect(TestFS.list(dir) == ["out.csv"])
        #expect(TestFS.readText(path) == "old")
    }

    @Test func aMissingDirectoryIsReportedWhenTheWriterIsCreated() {
        #expect {
            _ = try AtomicFileWriter(path: "/nonexistent-lodestone-dir/out.csv")
        } throws: { error in
            guard let e = error as? FileError else { return false }
            return e.kind == .notFound && e.operation.hasPrefix("create temporary file")
        }
    }

    /// A full file system (a real ENOSPC from a 64 KiB tmpfs in a private mount namespace) while streaming: the write
    /// that meets it throws, the old file stays, and the temporary file is gone.
    @Test(.enabled(if: MountNamespace.isAvailable, MountNamespace.unavailableReason))
    func aFullFileSystemWhileStreamingKeepsTheOldFile() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        struct Observed { var error: FileError?; var writes = 0; var after: String?; var listing: [String] = [] }
        let observed = try MountNamespace.runOnSmallTmpfs(at: dir) { () throws -> Observed in
            let path = dir + "/replay.csv"
            try TestFS.write(path, "old replay")
            var o = Observed()
            let line = [UInt8](repeating: 0x41, count: 999) + [0x0A]
            do {
                let writer = try AtomicFileWriter(path: path)
                for _ in 0..<1_000 {
                    try line.withUnsafeBytes { try writer.write($0) }
                    o.writes += 1
                }
                try writer.commit()
            } catch let error as FileError { o.error = error }
            o.after = TestFS.readText(path)
            o.listing = TestFS.list(dir)
            return o
        }
        #expect(observed.error?.kind == .noSpace)
        #expect(observed.writes < 1_000)
        #expect(observed.after == "old replay")
        #expect(observed.listing == ["replay.csv"])
    }
}

@Suite struct GzipFileTests {
    @Test func roundTripsAndReadsPlainFilesToo() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        var payload: [UInt8] = []
        for i in 0..<300_000 { payload.append(UInt8(truncatingIfNeeded: i &* 31 ^ i >> 7)) }
        try GzipFile.write(bytes: payload, to: dir + "/trace.csv.gz")
        let stored = TestFS.read(dir + "/trace.csv.gz") ?? []
        #expect(stored.prefix(2) == [0x1F, 0x8B]) // gzip magic (RFC 1952 §2.3.1)
        #expect(try GzipFile.readAll(path: dir + "/trace.csv.gz") == payload)

        try TestFS.write(dir + "/plain.csv", "t_s,acc_x\n0,1\n")
        #expect(try GzipFile.readAll(path: dir + "/plain.csv") == Array("t_s,acc_x\n0,1\n".utf8))
        try GzipFile.write(bytes: [], to: dir + "/empty.gz")
        #expect(try GzipFile.readAll(path: dir + "/empty.gz") == [])
    }

    @Test("a gzip file cut short is a typed 'truncated' error", arguments: [0.2, 0.5, 0.99])
    func truncated(_ fraction: Double) throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 ^ $0 >> 5) }
        try GzipFile.write(bytes: payload, to: dir + "/full.gz")
        let full = TestFS.read(dir + "/full.gz") ?? []
        try TestFS.writeBytes(dir + "/cut.gz", Array(full.prefix(Int(Double(full.count) * fraction))))
        #expect {
            _ = try GzipFile.readAll(path: dir + "/cut.gz")
        } throws: { error in
            guard let e = error as? FileError else { return false }
            return e.kind == .truncated && e.description.contains("truncated") && e.path == dir + "/cut.gz"
        }
    }

    @Test func aCorruptedChecksumIsCorrupt() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        try GzipFile.write(bytes: Array(repeating: 7, count: 1000), to: dir + "/f.gz")
        var bytes = TestFS.read(dir + "/f.gz") ?? []
        bytes[bytes.count - 6] ^= 0xFF // inside the CRC32 of the trailer
        try TestFS.writeBytes(dir + "/f.gz", bytes)
        #expect {
            _ = try GzipFile.readAll(path: dir + "/f.gz")
        } throws: { error in (error as? FileError)?.kind == .corrupt }
    }

    @Test func aMissingFileIsNotFound() {
        #expect {
            _ = try GzipFile.readAll(path: "/nonexistent-lodestone.gz")
        } throws: { error in (error as? FileError)?.kind == .notFound }
    }
}

@Suite struct ClockAndTerminal {
    @Test func monotonicClockAdvancesAndSleepWaitsAtLeastTheRequest() {
        let t0 = MonotonicClock.nowS()
        let n0 = MonotonicClock.nowNs()
        MonotonicClock.sleep(microseconds: 20_000)
        let t1 = MonotonicClock.nowS()
        #expect(t1 - t0 >= 0.020)
        #expect(MonotonicClock.nowNs() - n0 >= 20_000_000)
        MonotonicClock.sleep(microseconds: 0)
        MonotonicClock.sleep(microseconds: -5)
        #expect(MonotonicClock.nowS() >= t1)
    }

    @Test func sleepCrossesASecondBoundaryCorrectly() {
        let t0 = MonotonicClock.nowS()
        MonotonicClock.sleep(microseconds: 1_000_001)
        #expect(MonotonicClock.nowS() - t0 >= 1.000001)
    }

    @Test func terminalQueriesDoNotFailOffATerminal() {
        // Under `swift test` stdout is a pipe or a terminal; either way the answers must be consistent.
        let isTTY = Terminal.isTerminal(.output)
        if !isTTY { #expect(Terminal.columns(of: .output) == nil) }
        if !isTTY { #expect(Terminal.size(of: .output) == nil) }
        if let size = Terminal.size(of: .output) { #expect(size.rows > 0 && size.columns == Terminal.columns(of: .output)) }
        #expect(Terminal.width(of: .output, fallback: 77) > 0)
    }
}

@Suite struct GzipWriterTests {
    @Test func streamsChunksThatReadBackWhole() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let writer = try GzipWriter(path: dir + "/rec.csv.gz", level: 1)
        var expected: [UInt8] = []
        for line in 0..<5000 {
            let bytes = Array("\(line),\(Double(line) * 0.01)\n".utf8)
            try writer.write(bytes)
            expected += bytes
        }
        try writer.close()
        try writer.close() // idempotent
        #expect(try GzipFile.readAll(path: dir + "/rec.csv.gz") == expected)
        #expect {
            try writer.write([1])
        } throws: { error in (error as? FileError)?.detail == "already closed" }
    }

    @Test func creatingInAMissingDirectoryIsNotFound() {
        #expect {
            _ = try GzipWriter(path: "/nonexistent-lodestone-dir/rec.gz")
        } throws: { error in (error as? FileError)?.kind == .notFound }
    }

    @Test func anUnclosedWriterLeavesATruncatedFileThatReadsAsTruncated() throws {
        let dir = try TestFS.makeTemporaryDirectory()
        defer { TestFS.removeTree(dir) }
        let path = dir + "/crash.gz"
        // Simulate a crash: copy the bytes on disk while the writer is still open (after zlib flushed some).
        let writer = try GzipWriter(path: path)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<512 { try writer.write((0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }) }
        let onDisk = TestFS.read(path) ?? []
        try writer.close()
        #expect(!onDisk.isEmpty)
        try TestFS.writeBytes(dir + "/copy.gz", onDisk)
        #expect {
            _ = try GzipFile.readAll(path: dir + "/copy.gz")
        } throws: { error in (error as? FileError)?.kind == .truncated }
    }
}

@Suite(.serialized) struct ProcessLevel {
    @Test func sleepUntilADeadlineOnTheMonotonicClock() {
        let deadline = MonotonicClock.nowS() + 0.03
        MonotonicClock.sleep(untilS: deadline)
        #expect(MonotonicClock.nowS() >= deadline)
        let t0 = MonotonicClock.nowS()
        MonotonicClock.sleep(untilS: t0 - 10) // past: at once
        MonotonicClock.sleep(untilS: .nan) // not finite: at once
        MonotonicClock.sleep(untilS: .infinity)
        #expect(MonotonicClock.nowS() - t0 < 0.5)
    }

    @Test func sigtermSetsTheStopFlagInsteadOfKillingTheProcess() {
        let stop = StopSignal.install()
        defer { StopSignal.clearForTesting() }
        #expect(!stop.requested)
        // Process-directed, as from `kill` or systemd: the kernel picks a thread that does not block SIGTERM
        // (test-runner worker threads block signals), so delivery is asynchronous; wait for it, bounded.
        kill(getpid(), SIGTERM)
        let deadline = MonotonicClock.nowS() + 5
        while !stop.requested && MonotonicClock.nowS() < deadline { MonotonicClock.sleep(microseconds: 1000) }
        #expect(stop.requested)
        #expect(StopSignal.install().requested) // one process-wide flag
    }

    @Test func standardOutputTerminalFlagMatchesIsatty() {
        #expect(Terminal.isStandardOutputATerminal == (isatty(1) == 1))
    }
}
