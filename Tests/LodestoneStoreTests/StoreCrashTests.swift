import Foundation
import LodestoneMonitoring
import Testing

@testable import LodestoneStore

/// The store under real crashes: `lodestone-store-writer` (Tests/StoreWriter) makes a scripted sequence of writes and
/// prints each step once its transaction has committed; `strace` kills it with SIGKILL at the entry of its N-th
/// `pwrite64`, `fdatasync` or `fsync` — for every N the uninterrupted run makes — and after each kill the store is
/// reopened and checked, then the writer is run again on it, as the daemon would be restarted.
@Suite(.serialized) struct StoreCrashTests {
    static let strace = "/usr/bin/strace"
    static let syscalls = ["pwrite64", "fdatasync", "fsync"]

    /// The built writer: the test bundle sits in the same build products directory.
    static var writer: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: dir.appendingPathComponent("lodestone-store-writer").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("lodestone-store-writer")
    }

    struct Run {
        var lines: [String]
        var killed: Bool
        var status: Int32
    }

    /// Runs the writer on `directory` (`run` 1 or 2), under strace with `straceArguments` when given.
    static func runWriter(_ directory: String, run: Int = 1, strace straceArguments: [String]? = nil) throws -> Run {
        let p = Process()
        let out = Pipe()
        if let straceArguments {
            p.executableURL = URL(fileURLWithPath: strace)
            p.arguments = straceArguments + [writer.path, directory, "\(run)"]
        } else {
            p.executableURL = writer
            p.arguments = [directory, "\(run)"]
        }
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        // strace ends the way its tracee did: killed by SIGKILL, it kills itself with it.
        return Run(
            lines: lines, killed: p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL,
            status: p.terminationStatus)
    }

    /// The events in the writer's lines: id, condition, state.
    static func events(_ lines: [String]) -> [(id: UInt64, condition: String, state: String)] {
        lines.compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 4, f[0] == "event", let id = UInt64(f[1]) else { return nil }
            return (id, String(f[2]), String(f[3]))
        }
    }

    /// How many times the uninterrupted writer calls each of `syscalls` (from an strace log).
    static func syscallCounts() throws -> [String: Int] {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let log = dir.file("strace.log")
        let store = dir.file("store")
        let run = try runWriter(store, strace: ["-f", "-qq", "-o", log, "-e", "trace=\(syscalls.joined(separator: ","))"])
        #expect(run.status == 0)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            for name in syscalls where line.contains(" \(name)(") { counts[name, default: 0] += 1 }
        }
        return counts
    }

    @Test func aKillAtEveryWriteAndSyncLosesNoCommittedStepAndLeavesNothingHalfDone() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.strace), "this test needs strace: bash scripts/bootstrap --test")
        // The reference: the whole script, uninterrupted.
        let referenceDirectory = try TemporaryDirectory()
        defer { referenceDirectory.remove() }
        let reference = try Self.runWriter(referenceDirectory.path)
        try #require(reference.status == 0 && reference.lines.last == "pedometer 3660", "\(reference.lines)")
        let referenceEvents = Self.events(reference.lines)
        #expect(referenceEvents.map(\.id) == Array(1...11))

        let counts = try Self.syscallCounts()
        #expect(counts["pwrite64", default: 0] > 50 && counts["fdatasync", default: 0] > 10, "\(counts)")
        var killPoints = 0
        var killed = 0
        for name in Self.syscalls {
            for n in 1...max(1, counts[name, default: 0]) where counts[name, default: 0] > 0 {
                killPoints += 1
                let dir = try TemporaryDirectory()
                defer { dir.remove() }
                let crash = try Self.runWriter(
                    dir.path,
                    strace: ["-f", "-qq", "-o", "/dev/null", "-e", "trace=\(name)", "-e", "inject=\(name):signal=KILL:when=\(n)"])
                if crash.killed { killed += 1 }
                let at = "killed at \(name) #\(n) after \(crash.lines.count) reported steps"
                try check(directory: dir.path, reported: crash.lines, referenceEvents: referenceEvents, at)
            }
        }
        #expect(killed == killPoints, "each kill point was reached")
        print("store crash test: \(killPoints) kill points (\(counts)), \(killed) kills, every store reopened and checked")
    }

    /// The store after a kill: it opens; every reported step is in it; what is in it is a prefix of the uninterrupted
    /// run's events with each condition's state matching its last event (no state change without its event or the
    /// reverse); then the writer runs again and its events continue the ids, never reusing one.
    func check(
        directory: String, reported: [String], referenceEvents: [(id: UInt64, condition: String, state: String)],
        _ at: String
    ) throws {
        let store: MonitorStore
        do { store = try MonitorStore(directory: directory) } catch {
            Issue.record("\(at): the store does not open: \(error)")
            return
        }
        let next = try store.nextEventId(of: home)
        let acknowledgedThrough = try store.acknowledgedThroughId(of: home)
        let pending = try store.pendingEvents(of: home)
        let conditions = try store.conditions(of: home)
        let present = Set(conditions.map(\.region.id))

        // Every reported step is there.
        for line in reported {
            let f = line.split(separator: " ").map(String.init)
            switch f[0] {
            case "add": #expect(present.contains(f[1]), "\(at): condition \(f[1]) was reported added")
            case "ack":
                let id = UInt64(f[1])!
                #expect(acknowledgedThrough >= id && !pending.contains { $0.id <= id }, "\(at): \(line) reported")
            case "pedometer":
                let startS = Double(f[1])!
                #expect(try store.pedometerData(fromS: startS, toS: startS + 60).steps >= 100, "\(at): \(line) reported")
            default: break
            }
        }
        for event in Self.events(reported) {
            #expect(event.id < next, "\(at): event \(event.id) reported but the next id is \(next)")
            if event.id > acknowledgedThrough {
                #expect(
                    pending.contains {
                        $0.id == event.id && $0.conditionId == event.condition && $0.state.rawValue == event.state
                    },
                    "\(at): event \(event.id) reported but not queued")
            }
        }
        // What is there is exactly the uninterrupted run's first next − 1 events, the acknowledged ones gone.
        let committed = referenceEvents.filter { $0.id < next }
        #expect(
            pending.map { "\($0.id) \($0.conditionId) \($0.state.rawValue)" }
                == committed.filter { $0.id > acknowledgedThrough }.map { "\($0.id) \($0.condition) \($0.state)" },
            "\(at): the queue is not the committed events")
        #expect(zip(pending, pending.dropFirst()).allSatisfy { $0.id < $1.id }, "\(at): ids out of order")
        for (region, record) in conditions {
            let last = committed.last { $0.condition == region.id }
            #expect(record.state.rawValue == (last?.state ?? "unknown"), "\(at): \(region.id) is \(record.state)")
            if let last, let event = pending.first(where: { $0.id == last.id }) {
                #expect(record.changedAtS == event.timeS && record.location == event.location, "\(at): \(region.id)'s change")
            }
        }

        // The restart: the writer again on the same store, to the end.
        let again = try Self.runWriter(directory, run: 2)
        #expect(again.status == 0, "\(at): the second run failed")
        let ids = Self.events(again.lines).map(\.id)
        #expect(!ids.isEmpty && ids.first! >= next, "\(at): the second run reused ids \(ids) (next was \(next))")
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "\(at): the second run's ids \(ids)")
        let after = try MonitorStore(directory: directory)
        let states = try after.conditions(of: home).map { "\($0.region.id) \($0.record.state.rawValue)" }
        #expect(states == ["A unsatisfied", "B satisfied", "C unsatisfied"], "\(at): after the second run \(states)")
        #expect(try after.pendingEvents(of: home).allSatisfy { $0.id > acknowledgedThrough })
    }

    /// Against power loss, what a kill cannot show: no step is reported while bytes written for it are not yet on
    /// the disk. In the writer's trace, after every `pwrite64` and before the next report (a `write` to standard
    /// output) comes an `fdatasync` or `fsync` — `synchronous=FULL` syncing the WAL at each commit.
    @Test func everyReportedStepWasSyncedBeforeItWasReported() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.strace), "this test needs strace: bash scripts/bootstrap --test")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let log = dir.file("strace.log")
        let run = try Self.runWriter(
            dir.file("store"), strace: ["-f", "-qq", "-y", "-o", log, "-e", "trace=pwrite64,fdatasync,fsync,write"])
        #expect(run.status == 0)
        // The files written and not synced since (strace -y names each descriptor's file). The WAL index (-shm) is
        // shared memory SQLite rebuilds from the WAL after a crash: it is never synced and need not be.
        var unsynced: Set<Substring> = []
        var reports = 0
        func descriptor(_ line: Substring) -> Substring {
            let open = line.firstIndex(of: "(").map { line.index(after: $0) } ?? line.endIndex
            return line[open...].prefix { $0 != "," && $0 != ")" }
        }
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            if line.contains(" pwrite64("), !descriptor(line).hasSuffix("-shm>") { unsynced.insert(descriptor(line)) }
            if line.contains(" fdatasync(") || line.contains(" fsync(") { unsynced.remove(descriptor(line)) }
            if line.contains(" write(1<") || line.contains(" write(1, ") {
                reports += 1
                #expect(unsynced.isEmpty, "reported before the writes to \(unsynced) were synced: \(line)")
            }
        }
        #expect(reports == run.lines.count && reports == 18)
    }
}
