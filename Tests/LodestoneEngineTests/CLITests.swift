import Foundation
@testable import LodestoneTrace
import Testing
@testable import LodestoneEngine

/// The built `lodestone` executable, run as a user would.
enum CLI {
    static var executable: URL {
        // The test bundle sits in the same build products directory as the executable.
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: dir.appendingPathComponent("lodestone").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("lodestone")
    }

    struct Result { var status: Int32; var stdout: String; var stderr: String }

    /// Waits at most `timeoutS` for `p` to exit; kills it (SIGKILL) and returns false if it does not.
    static func waitForExit(_ p: Process, timeoutS: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutS)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard p.isRunning else { return true }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        return false
    }

    static func run(
        _ arguments: [String], stdin: String? = nil, executable program: URL = executable,
        directory: URL = repositoryRoot, environment: [String: String]? = nil
    ) throws -> Result {
        let p = Process()
        p.executableURL = program
        p.arguments = arguments
        p.currentDirectoryURL = directory
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}

@Suite(.serialized) struct CLITests {
    /// The end-to-end job of the foundation issue: five seconds on the simulated board, in real time.
    @Test func runForFiveSecondsOnTheSimulatedBoardStreamsJSON() throws {
        let start = Date()
        // Every sensor at the board file's rate: the always-on policy (the default adaptive one plans the barometer
        // down to 10 Hz while the carrier walks).
        let r = try CLI.run(["run", "--duration", "5", "--json", "--classes", "all", "--policy", "always-on"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Date().timeIntervalSince(start) >= 4.5) // real time, not as fast as possible
        let lines = r.stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
        #expect(lines.first?["class"] as? String == "VERSION")
        let samples = lines.filter { $0["class"] as? String == "SAMPLE" }
        #expect(samples.filter { $0["sensor"] as? String == "imu" }.count == 501)
        #expect(samples.filter { $0["sensor"] as? String == "baro" }.count == 126)
        #expect(lines.contains { $0["class"] as? String == "FIX" })
        let last = lines.last { $0["class"] as? String == "STATUS" }
        #expect((last?["degraded"] as? [String]) == [])
        #expect(r.stderr.isEmpty)
    }

    @Test func brokenBoardFileIsOneLineOnStandardErrorAndNothingRuns() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("broken-board-\(getpid()).json").path
        try
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"bmp280","bus":{"i2c":"/dev/i2c-1"},"address":"0x99","rateHz":10}]}"#
            .write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try CLI.run(["run", "--board", path, "--duration", "1"])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(
            r.stderr
                == "lodestone: \(path): sensors[0].address: \"0x99\" is not an I2C address; allowed: a string \"0x03\" … \"0x77\"\n"
        )
    }

    @Test func truncatedTraceReplaysWhatItHasThenSaysWhereItBroke() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(getpid()).csv").path
        try "t_s,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,0,9.8\n0.02,0,0".write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try CLI.run(["replay", "--input", path])
        #expect(r.status == 1)
        #expect(r.stdout.split(separator: "\n").count == 3) // header + the two good rows
        #expect(r.stderr == "lodestone: \(path):4: column acc_z: 3 fields where the header has 4 (the file is truncated)\n")
    }

    @Test func truncatedGzipTraceIsOneLine() throws {
        let dir = FileManager.default.temporaryDirectory
        let whole = dir.appendingPathComponent("whole-\(getpid()).csv.gz").path
        let cut = dir.appendingPathComponent("cutgz-\(getpid()).csv.gz").path
        defer { try? FileManager.default.removeItem(atPath: whole); try? FileManager.default.removeItem(atPath: cut) }
        let rec = try CLI.run(["run", "--duration", "2", "--speed", "0", "--record", whole])
        #expect(rec.status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let r = try CLI.run(["replay", "--input", cut])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("lodestone: \(cut)"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func readFromAMissingBusIsOneLine() throws {
        let r = try CLI.run(["read", "--i2c", "/dev/i2c-97", "--chip", "bmp280", "--json"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("lodestone: /dev/i2c-97"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func readRejectsAnUnknownChipBeforeTouchingTheBus() throws {
        let r = try CLI.run(["read", "--i2c", "/dev/i2c-1", "--chip", "bmp999"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("bmp280"))
    }

    /// Ctrl-C mid-run: the run ends cleanly and the recording holds every row up to then, each complete.
    @Test func interruptedRunKeepsAWholeRecording() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("interrupted-\(getpid()).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = ["run", "--json", "--record", path]
        p.currentDirectoryURL = repositoryRoot
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Interrupted once the recording holds more than 150 rows (a second and a half of the 100 Hz IMU, handed to
        // the file once per second of data), not after a fixed wall time: on a loaded machine the run's real-time
        // pacing falls behind, and 2.5 s of wall time once gave 146 rows.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, p.isRunning {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
            if bytes.reduce(0, { $0 + ($1 == 0x0A ? 1 : 0) }) > 200 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        p.interrupt() // SIGINT
        #expect(CLI.waitForExit(p, timeoutS: 10), "the run did not stop on SIGINT")
        #expect(p.terminationReason == .exit)
        #expect(p.terminationStatus == 0)
        var parser = TraceParser(text: try TraceFiles.readText(path: path), path: path)
        var rows = 0, last = -1.0
        while let row = try parser.next() { rows += 1; last = row.timeS }
        #expect(rows > 150)
        #expect(last > 1.5)
    }

    /// `lodestone run --json | head -2`: the reader goes away; the run ends cleanly instead of dying on SIGPIPE.
    @Test func closedOutputPipeEndsTheRunCleanly() throws {
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = ["run", "--json", "--duration", "60", "--speed", "10"]
        p.currentDirectoryURL = repositoryRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        _ = out.fileHandleForReading.availableData
        try out.fileHandleForReading.close()
        #expect(CLI.waitForExit(p, timeoutS: 10), "the run did not stop when its reader went away")
        #expect(p.terminationReason == .exit)
        #expect(p.terminationStatus == 0)
    }

    @Test func geoDeclinationReadsCSVOnStandardInput() throws {
        let r = try CLI.run(["geo", "declination"], stdin: "decimal_year,lat_deg,lon_deg,height_km\n2025.0,80,0,0\nnot,a,row\n")
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first == "decimal_year,lat_deg,lon_deg,height_km,D_deg,I_deg,H_nT,X_nT,Y_nT,Z_nT,F_nT,GV_deg")
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix("2025.0,80,0,0,1.28") == true)
        #expect(r.stderr == "lodestone: geo declination: line 3: 3 fields; expected decimal_year,lat_deg,lon_deg,height_km\n")
    }

    @Test func geoInverseDirectAndAreaReadCSVOnStandardInput() throws {
        let inverse = try CLI.run(["geo", "inverse"], stdin: "lat1,lon1,lat2,lon2\n0,0,0.5,179.5\n1,2\n")
        #expect(inverse.status == 1)
        #expect(inverse.stdout == "s12_m,azi1_deg,azi2_deg\n19936288.578965,25.6718728683,154.3270854699\n,,\n")
        #expect(inverse.stderr == "lodestone: geo inverse: line 3: 2 fields; expected lat1,lon1,lat2,lon2\n")
        let direct = try CLI.run(["geo", "direct"], stdin: "0,0,90,1000\n")
        #expect(direct.status == 0)
        #expect(direct.stdout.hasPrefix("lat2,lon2,azi2_deg\n0.00000000000,0.00898315284,90.0000000000"))
        let area = try CLI.run(["geo", "area"], stdin: "0 0;0 90;90 0\n")
        #expect(area.stdout == "area_m2,perimeter_m\n63758202715511.056,30022685.630020\n")
    }

    @Test func helpNamesEveryCommand() throws {
        let r = try CLI.run(["--help"])
        for c in ["run", "read", "scan", "replay", "geo"] { #expect(r.stdout.contains(c)) }
    }
}
