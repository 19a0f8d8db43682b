import Foundation
import Testing
@testable import LodestoneEngine

@Suite struct StateChangeLogTests {
    typealias Snapshot = StateChangeLog.Snapshot

    /// A board of three sensors, everything known and settled.
    static let steady = Snapshot(
        timeS: 0, boardName: "Simulated board",
        sensors: [
            .init(id: "imu", label: "MPU-9250 @ sim:0x68", health: "ok"),
            .init(id: "mag", label: "LIS3MDL @ sim:0x1C", health: "ok"),
            .init(id: "baro", label: "BMP280 @ sim:0x76", health: "ok")
        ],
        activity: "walk", locationAccuracyM: 4.2, planGeneration: 1,
        planSummary: "adaptive: imu 100 Hz normal; predicted 0.40 mA",
        heading: .valid(accuracyDeg: 2.5, calibrationNeeded: false), noteCount: 0, recentNotes: [])

    /// A log that has seen `steady` (its start line discarded).
    static func started() -> StateChangeLog {
        var log = StateChangeLog()
        _ = log.update(steady)
        return log
    }

    static func at(_ timeS: Double, _ change: (inout Snapshot) -> Void = { _ in }) -> Snapshot {
        var s = steady
        s.timeS = timeS
        change(&s)
        return s
    }

    @Test func theFirstSnapshotGivesOneStartLineSummarisingTheBoard() {
        var log = StateChangeLog()
        let lines = log.update(Self.steady)
        #expect(
            lines == [
                "t=0.0 s lodestone \(Lodestone.version) started on Simulated board; "
                    + "sensors imu (MPU-9250 @ sim:0x68) ok, mag (LIS3MDL @ sim:0x1C) ok, baro (BMP280 @ sim:0x76) ok; "
                    + "activity walk; location ±4.2 m; heading valid ±2.5°; plan #1 adaptive: imu 100 Hz normal; predicted 0.40 mA"
            ])
    }

    @Test func noChangeGivesNoLineEvenWhenTheNumbersMove() {
        var log = Self.started()
        #expect(log.update(Self.at(1)) == [])
        // Accuracy within the same tier, the heading's accuracy, a degraded sensor's new message: not state changes.
        #expect(
            log.update(
                Self.at(2) {
                    $0.locationAccuracyM = 7.9; $0.heading = .valid(accuracyDeg: 9, calibrationNeeded: false)
                }) == [])
        #expect(log.update(Self.at(3) { $0.planSummary = "adaptive: other words, same generation" }) == [])
    }

    /// One kind of change: what it does to the steady snapshot and the one line it must give.
    struct Change: Sendable, CustomTestStringConvertible {
        var name: String
        var apply: @Sendable (inout Snapshot) -> Void
        var expected: String
        init(_ name: String, _ expected: String, _ apply: @escaping @Sendable (inout Snapshot) -> Void) {
            self.name = name; self.expected = expected; self.apply = apply
        }
        var testDescription: String { name }
    }

    static let changes: [Change] = [
        Change("sensor health", "t=5.0 s baro degraded: EIO reading 0xF7") {
            $0.sensors[2].health = "degraded"; $0.sensors[2].detail = "EIO reading 0xF7"
        },
        Change("activity", "t=5.0 s activity drive") { $0.activity = "drive" },
        Change("activity unknown", "t=5.0 s activity unknown") { $0.activity = nil },
        Change("location lost", "t=5.0 s location lost") { $0.locationAccuracyM = nil },
        Change("location tier", "t=5.0 s location accuracy ±45.3 m (within 100 m)") { $0.locationAccuracyM = 45.25 },
        Change("location far off", "t=5.0 s location accuracy ±8000.0 m (worse than 3 km)") { $0.locationAccuracyM = 8_000 },
        Change("plan", "t=5.0 s plan #2 adaptive: imu 50 Hz lowPower; predicted 0.30 mA") {
            $0.planGeneration = 2; $0.planSummary = "adaptive: imu 50 Hz lowPower; predicted 0.30 mA"
        },
        Change("heading calibration", "t=5.0 s heading needs magnetometer calibration (±24.0°)") {
            $0.heading = .valid(accuracyDeg: 24, calibrationNeeded: true)
        },
        Change("heading validity", "t=5.0 s heading not absolute") { $0.heading = .notAbsolute },
        Change("a note", "t=5.0 s gnss reconfiguration failed at t=4.90 s, rolled back: EIO") {
            $0.noteCount = 1; $0.recentNotes = ["gnss reconfiguration failed at t=4.90 s, rolled back: EIO"]
        }
    ]

    @Test(arguments: changes)
    func eachKindOfChangeGivesExactlyOneLine(_ change: Change) {
        var log = Self.started()
        #expect(log.update(Self.at(5, change.apply)) == [change.expected])
        // And once only: the same state a second later is quiet.
        #expect(log.update(Self.at(6, change.apply)) == [])
    }

    @Test func aDegradedNoteStandsForTheSensorsHealthChange() {
        var log = Self.started()
        let note = "baro degraded at t=4.52 s: EIO reading 0xF7; retrying"
        #expect(
            log.update(
                Self.at(5) {
                    $0.sensors[2].health = "degraded"; $0.sensors[2].detail = "EIO reading 0xF7"; $0.noteCount = 1;
                    $0.recentNotes = [note]
                }) == ["t=5.0 s " + note])
        // Recovered: the note again stands for the health line.
        let recovered = "baro recovered at t=7.10 s"
        #expect(
            log.update(
                Self.at(8) {
                    $0.noteCount = 2; $0.recentNotes = [note, recovered]
                }) == ["t=8.0 s " + recovered])
    }

    @Test func aSensorThatFailedAndRecoveredWithinASecondIsTwoNoteLines() {
        var log = Self.started()
        let notes = ["imu degraded at t=4.10 s: EIO; retrying", "imu recovered at t=4.60 s"]
        #expect(
            log.update(
                Self.at(5) {
                    $0.noteCount = 2; $0.recentNotes = notes
                }) == notes.map { "t=5.0 s " + $0 })
    }

    @Test func onlyNotesNewSinceThePreviousSnapshotAreLogged() {
        var log = Self.started()
        _ = log.update(
            Self.at(1) {
                $0.noteCount = 3; $0.recentNotes = ["a", "b", "c"]
            })
        #expect(
            log.update(
                Self.at(2) {
                    $0.noteCount = 4; $0.recentNotes = ["b", "c", "d"]
                }) == ["t=2.0 s d"])
    }

    @Test func aLocationHoveringAtATierBoundaryDoesNotFlap() {
        var log = Self.started()
        var lines: [String] = []
        for (i, accuracy) in [9.5, 10.4, 9.8, 11.9, 10.1, 12.4].enumerated() {
            lines += log.update(Self.at(Double(i + 1)) { $0.locationAccuracyM = accuracy })
        }
        #expect(lines.isEmpty)
        #expect(log.update(Self.at(10) { $0.locationAccuracyM = 13 }) == ["t=10.0 s location accuracy ±13.0 m (within 100 m)"])
        #expect(log.update(Self.at(11) { $0.locationAccuracyM = 10.5 }) == [])
        #expect(log.update(Self.at(12) { $0.locationAccuracyM = 9.9 }) == ["t=12.0 s location accuracy ±9.9 m (within 10 m)"])
    }

    @Test func aLocationThatAppearsSaysItsAccuracy() {
        var log = StateChangeLog()
        _ = log.update(Self.at(0) { $0.locationAccuracyM = nil })
        #expect(log.update(Self.at(31.25) { $0.locationAccuracyM = 4.2 }) == ["t=31.3 s location available ±4.2 m"])
    }

    @Test func snapshotsAreTakenOncePerSecondOfEngineTime() {
        var log = StateChangeLog()
        var built = 0
        var lines: [String] = []
        for step in 0...250 {
            let t = Double(step) / 100
            lines += log.update(timeS: t) {
                built += 1
                return Self.at(t) { $0.activity = t < 1.5 ? "walk" : "run" }
            }
        }
        #expect(built == 3) // t = 0, 1, 2
        #expect(lines.count == 2 && lines[1] == "t=2.0 s activity run")
    }

    @Test func severalChangesAtOnceGiveOneLineEach() {
        var log = Self.started()
        let lines = log.update(
            Self.at(9) {
                $0.activity = "stationary"; $0.locationAccuracyM = nil; $0.planGeneration = 3
            })
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("t=9.0 s ") })
    }
}

/// The command without a terminal: what a service's journal gets.
@Suite(.serialized) struct QuietRunCLITests {
    @Test func runWithoutATerminalLogsStateChangesNeverTheFrame() throws {
        let r = try CLI.run(
            ["run", "--duration", "60", "--speed", "0"], directory: URL(fileURLWithPath: "/tmp"),
            environment: BoardLocatorCLITests.environmentWithoutBoard)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(
            lines.first?.hasPrefix("t=0.0 s lodestone \(Lodestone.version) started on Simulated board; sensors imu") == true,
            "\(lines.first ?? "")")
        #expect(lines.last?.hasSuffix(" s run ended") == true)
        #expect(lines.allSatisfy { $0.hasPrefix("t=") }, "\(r.stdout.prefix(2000))")
        #expect(!r.stdout.contains("lodestone — ")) // the live view's header
        #expect(!r.stdout.contains("\u{1B}["))
        // A minute of a mixed day: a handful of changes, far from a frame (30 lines) a second.
        #expect(lines.count >= 3 && lines.count < 60, "\(r.stdout)")
    }
}
