import Foundation
import Testing
@testable import LodestoneEngine

/// `lodestone calibrate` as a separate process: interruptions, crashes in the middle of saving, permission
/// errors, `--check`, and `run`/`replay` using the calibration.
@Suite(.serialized) struct CalibrationCLITests {
    static let shipped = repositoryRoot.appendingPathComponent("calibration/simulated.json").path

    /// Starts `executable` (default: lodestone) in the repository, standard output discarded; its standard error.
    static func start(_ arguments: [String], executable: URL = CLI.executable) throws -> (Process, Pipe) {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.currentDirectoryURL = repositoryRoot
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        return (p, err)
    }

    /// A directory holding a copy of the shipped calibration as `sim.json` (the "previous file").
    func directoryWithPreviousFile() throws -> (ScratchDirectory, String, Data) {
        let dir = try ScratchDirectory()
        let previous = try Data(contentsOf: URL(fileURLWithPath: Self.shipped))
        let path = dir.file("sim.json")
        try previous.write(to: URL(fileURLWithPath: path))
        return (dir, path, previous)
    }

    /// Ctrl-C in the middle of a live session: status 130, one line saying nothing was saved, the previous
    /// file byte for byte as it was, no temporary file left.
    @Test func ctrlCMidSessionKeepsThePreviousFile() throws {
        let (dir, path, previous) = try directoryWithPreviousFile()
        defer { dir.remove() }
        let (p, err) = try Self.start(["calibrate", "mag", "--yes", "--output", path])
        Thread.sleep(forTimeInterval: 2)
        p.interrupt()
        #expect(CLI.waitForExit(p, timeoutS: 10), "calibrate did not stop on SIGINT")
        #expect(p.terminationStatus == 130)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.split(separator: "\n").last == "interrupted: nothing saved; \(path) left as it was")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == previous)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["sim.json"])
    }

    /// A crash at the worst moments of saving — the new contents written to the temporary file but not yet
    /// flushed, and flushed but not yet renamed over the old file: `strace` holds the process at the entry of
    /// `fsync(2)` or `rename(2)` and the process is killed there (SIGKILL, as a crash or a power cut would).
    /// The previous file is intact and valid each time; only a stray temporary file is left. Without the
    /// crash, the same command does replace the file.
    @Test(arguments: ["fsync", "rename"])
    func aCrashWhileSavingLeavesThePreviousFileIntact(_ syscall: String) throws {
        let strace = "/usr/bin/strace"
        try #require(
            FileManager.default.isExecutableFile(atPath: strace), "this test needs strace: bash scripts/bootstrap --test")
        let (dir, path, previous) = try directoryWithPreviousFile()
        defer { dir.remove() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: strace)
        p.arguments = [
            "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(syscall)", "-e", "inject=\(syscall):delay_enter=30000000",
            CLI.executable.path, "calibrate", "gyro", "--yes", "--speed", "0", "--duration", "2", "--output", path
        ]
        p.currentDirectoryURL = repositoryRoot
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // The temporary file appears when the save starts; the delayed call keeps the process inside the save.
        let deadline = Date().addingTimeInterval(30)
        var temporary: [String] = []
        while Date() < deadline && temporary.isEmpty {
            temporary =
                (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.filter { $0.hasPrefix(".sim.json.tmp-") } ?? []
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!temporary.isEmpty, "the save never started")
        Thread.sleep(forTimeInterval: 0.5) // well inside the 30 s delay
        let children = Self.children(of: p.processIdentifier)
        #expect(children.count == 1)
        for child in children { kill(child, SIGKILL) } // the crash: lodestone dies inside the save
        kill(p.processIdentifier, SIGKILL) // and strace, which would sit out its delay first
        p.waitUntilExit()
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == previous)
        #expect(try CalibrationFiles.load(path: path)["imu"]?.gyroscope != nil)
        if syscall == "rename" {
            // The temporary file was complete: the new calibration, never renamed into place.
            let leftover = try CalibrationFiles.load(path: dir.file(temporary[0]))
            #expect(leftover["imu"]?.gyroscope?.durationS == 2)
        }
        let replaced = try CLI.run(["calibrate", "gyro", "--yes", "--speed", "0", "--duration", "2", "--output", path])
        #expect(replaced.status == 0)
        #expect(try CalibrationFiles.load(path: path)["imu"]?.gyroscope?.durationS == 2)
    }

    /// The processes whose parent is `pid` (from /proc/N/stat, field 4).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { name -> Int32? in
            guard let n = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? n : nil
        }
    }

    /// A directory the user may not write to: the session does not even start, and says why in one line.
    /// (As root, the command runs as `nobody` through util-linux's setpriv.)
    @Test func aPermissionErrorIsLoudAndImmediate() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let locked = dir.file("locked")
        try FileManager.default.createDirectory(
            atPath: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir.path)
        let output = locked + "/sim.json"
        var arguments = ["calibrate", "gyro", "--yes", "--speed", "0", "--output", output]
        let r: CLI.Result
        if getuid() == 0 {
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", CLI.executable.path] + arguments
            r = try CLI.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked)
            r = try CLI.run(arguments)
        }
        #expect(r.status == 1)
        #expect(
            r.stderr
                == "lodestone: \(output): permission denied: cannot write in \(locked); run as a user who may (e.g. sudo), or choose another --output\n"
        )
        #expect(r.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// The directory stops being writable during the session: saving fails loudly, in one line, and nothing
    /// is left behind.
    @Test func aPermissionErrorAtSavingIsLoud() throws {
        try #require(getuid() == 0, "runs as root: drops to nobody to lose the permission mid-session")
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir.path)
        let open = dir.file("open")
        try FileManager.default.createDirectory(
            atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        let output = open + "/sim.json"
        let (p, err) = try Self.start(
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", CLI.executable.path,
                "calibrate", "gyro", "--yes", "--duration", "3", "--output", output
            ],
            executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        Thread.sleep(forTimeInterval: 1)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: open) // root's, not nobody's
        #expect(CLI.waitForExit(p, timeoutS: 20))
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 1)
        #expect(
            stderr.hasSuffix(
                "lodestone: cannot save the calibration: \(output): permission denied: check the owner and mode of the file and its directory (create temporary file in \(open)): Permission denied [errno 13]\n"
            ), "\(stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)
    }

    @Test func checkValidatesAFileAndSaysWhatIsInIt() throws {
        let r = try CLI.run(["calibrate", "--check", Self.shipped, "--board", "boards/simulated.json"])
        #expect(r.status == 0)
        #expect(
            r.stdout.hasPrefix(
                "\(Self.shipped): valid lodestone-calibration/1 for board \"Simulated board\", matches boards/simulated.json\n"))
        #expect(r.stdout.contains("  mag (lis3mdl): magnetometer good"))
        #expect(r.stderr.isEmpty)
    }

    @Test func checkRejectsBrokenAndPartialFilesInOneLine() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        let cases: [(String, String)] = [
            (String(text.prefix(text.count / 2)), "not a valid calibration file: the JSON is cut short (an interrupted copy?)"),
            (
                text.replacingOccurrences(of: "\"frame\" : \"board\"", with: "\"frame\" : \"chip\""),
                "frame: \"chip\" is not supported"
            ),
            (
                text.replacingOccurrences(of: "\"grade\" : \"good\"", with: "\"grade\" : 3"),
                "sensors[0].magnetometer.grade: must be a string"
            ),
            ("", "not a valid calibration file: the JSON is cut short")
        ]
        for (i, (content, problem)) in cases.enumerated() {
            let path = dir.file("broken-\(i).json")
            try content.write(toFile: path, atomically: false, encoding: .utf8)
            let r = try CLI.run(["calibrate", "--check", path])
            #expect(r.status == 1)
            #expect(r.stderr.hasPrefix("lodestone: \(path): \(problem)"), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
        let missing = try CLI.run(["calibrate", "--check", dir.file("none.json")])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("lodestone: \(dir.file("none.json")): cannot read the calibration file"))
    }

    /// `replay` applies a board's calibration when told the board, and says which file.
    @Test func replayWithABoardSaysWhichCalibrationItApplies() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let trace = dir.file("t.csv")
        try "t_s,mag_x,mag_y,mag_z\n0,1,2,3\n0.1,1,2,3\n".write(toFile: trace, atomically: false, encoding: .utf8)
        let with = try CLI.run(["replay", "--input", trace, "--board", "boards/simulated.json", "--calibration", Self.shipped])
        #expect(with.status == 0)
        #expect(
            with.stderr
                == "calibration: \(Self.shipped) (imu: magnetometer, accelerometer, gyroscope; mag: magnetometer; baro: barometer)\n"
        )
        let without = try CLI.run(["replay", "--input", trace])
        #expect(without.status == 0)
        #expect(without.stderr.isEmpty)
        let both = try CLI.run(["replay", "--input", trace, "--calibration", Self.shipped, "--no-calibration"])
        #expect(both.status != 0)
    }

    @Test func helpNamesTheKindsAndTheLookupOrder() throws {
        let r = try CLI.run(["calibrate", "--help"])
        for word in [
            "mag", "accel", "gyro", "baro", "--from-trace", "--yes", "--check", "/var/lib/lodestone", "LODESTONE_CALIBRATION_DIR"
        ] {
            #expect(r.stdout.contains(word), "\(word)")
        }
        #expect(try CLI.run(["--help"]).stdout.contains("calibrate"))
        let wrong = try CLI.run(["calibrate", "compass"])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("allowed: mag, accel, gyro, baro"))
    }
}
