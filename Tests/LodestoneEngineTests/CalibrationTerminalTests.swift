import Foundation
import Testing
@testable import LodestoneEngine

/// A pseudo-terminal (`posix_openpt`) with the built `lodestone` on its slave side as standard input, output
/// and error, as a person's terminal would be.
final class PseudoTerminalSession {
    let process = Process()
    private let master: Int32
    /// Everything the program wrote, as bytes.
    private(set) var transcript: [UInt8] = []

    /// libc's pseudo-terminal calls. Swift's Glibc module leaves them out (they need X/Open feature macros),
    /// so they are looked up in the C library that is already loaded.
    private enum LibC {
        typealias IntToInt = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        static func function<T>(_ name: String, as type: T.Type) -> T? {
            guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        }
    }

    init(_ arguments: [String], environment: [String: String]) throws {
        guard let openpt = LibC.function("posix_openpt", as: LibC.IntToInt.self),
            let grantpt = LibC.function("grantpt", as: LibC.IntToInt.self),
            let unlockpt = LibC.function("unlockpt", as: LibC.IntToInt.self),
            let ptsname = LibC.function("ptsname", as: LibC.Name.self)
        else { throw POSIXError(.ENOSYS) }
        master = openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw POSIXError(.ENODEV)
        }
        let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.ENODEV) }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = CLI.executable
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        process.environment = environment
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        close(master)
    }

    /// Reads until `text` appears in the transcript (true) or `timeoutS` passes (false).
    @discardableResult
    func waitFor(_ text: String, timeoutS: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutS)
        while Date() < deadline {
            if String(decoding: transcript, as: UTF8.self).contains(text) { return true }
            readAvailable(waitMs: 100)
        }
        return String(decoding: transcript, as: UTF8.self).contains(text)
    }

    /// Reads what is there, waiting up to `waitMs` for the first byte.
    func readAvailable(waitMs: Int32) {
        var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, waitMs) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let n = read(master, &buffer, buffer.count)
        if n > 0 { transcript += buffer[..<n] }
    }

    /// Types `text` (a return is "\r", as a keyboard sends it).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for the exit, reading what is left; the exit status, or nil after `timeoutS`.
    func finish(timeoutS: Double = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeoutS)
        while process.isRunning && Date() < deadline { readAvailable(waitMs: 50) }
        guard !process.isRunning else { return nil }
        for _ in 0..<5 { readAvailable(waitMs: 20) }
        return process.terminationStatus
    }

    var text: String { String(decoding: transcript, as: UTF8.self) }
}

/// Just enough of a VT100 to read a screen back: printable characters, CR, LF, `ESC[nF` (cursor to the start
/// of the line n up), `ESC[K` (erase to the end of the line), `ESC[…m` (colours, ignored).
struct ScreenModel {
    private(set) var lines: [[Character]] = [[]]
    private var row = 0, column = 0

    init(_ text: String) {
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            switch c {
            case "\r": column = 0
            case "\n": row += 1; column = 0; if row == lines.count { lines.append([]) }
            case "\r\n": row += 1; column = 0; if row == lines.count { lines.append([]) }
            case "\u{1B}":
                guard chars.first == "[" else { continue }
                chars.removeFirst()
                var parameter = ""
                while let p = chars.first, p.isNumber || p == ";" { parameter.append(p); chars.removeFirst() }
                guard let command = chars.popFirst() else { break }
                switch command {
                case "F": row = max(0, row - (Int(parameter) ?? 1)); column = 0
                case "K": if column < lines[row].count { lines[row].removeSubrange(column...) }
                default: break
                }
            default:
                while lines[row].count < column { lines[row].append(" ") }
                if column < lines[row].count { lines[row][column] = c } else { lines[row].append(c) }
                column += 1
            }
        }
    }

    var screen: [String] { lines.map { String($0) } }
}

@Suite(.serialized) struct CalibrationTerminalTests {
    static let environment = ["TERM": "xterm-256color", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]

    /// From start to saved file, as a person at a terminal: the intro, Enter, the live view redrawn in place
    /// (coverage sphere, progress bar, live residual, colour) while the simulated person twirls the board,
    /// the question, "y", the file.
    @Test func theGuidedMagnetometerSessionInAPseudoTerminal() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("sim.json")
        let session = try PseudoTerminalSession(
            ["calibrate", "mag", "--output", output, "--speed", "10"], environment: Self.environment)
        #expect(session.waitFor("Press Enter to start"), "\(session.text)")
        #expect(session.text.contains("twirl it about itself while slowly turning it over"))
        session.type("\r")
        #expect(session.waitFor("Save to \(output)? [Y/n]"), "\(session.text)")
        let screen = ScreenModel(session.text).screen
        // Redrawn in place: many frames went by, one is on the screen.
        let headers = screen.filter { $0.hasPrefix("Magnetometer calibration — Simulated board   ") }
        #expect(headers.count == 1, "\(screen.joined(separator: "\n"))")
        #expect(session.text.components(separatedBy: "Magnetometer calibration — Simulated board").count > 6)
        // Each frame goes back up over the last one (ESC [ n F).
        #expect(
            session.text.split(separator: "\u{1B}[").filter { $0.first?.isNumber == true && $0.drop { $0.isNumber }.first == "F" }
                .count > 5)
        #expect(!session.text.contains("\u{1B}[2J")) // never a full-screen clear (flicker)
        #expect(session.text.contains("\u{1B}[32m")) // colour
        #expect(screen.contains { $0.contains("face side (+z)") && $0.contains("back side (−z)") })
        #expect(screen.filter { $0.contains("█") }.count >= 10) // the sphere's nine rows and the bar
        #expect(
            screen.contains { $0.hasPrefix("coverage [██████████████████████████████] 100 %") && $0.hasSuffix("/64 sectors") })
        #expect(screen.contains { $0.hasPrefix("  mag    samples") && $0.contains("residual 0.") && $0.contains("µT") })
        #expect(screen.contains("Done: every direction covered."))
        #expect(screen.contains { $0.hasPrefix("imu: good — residual") })
        #expect(screen.contains { $0.hasPrefix("mag: good — residual") })
        session.type("y\r")
        #expect(session.finish() == 0)
        #expect(session.text.contains("saved \(output) (imu: magnetometer, mag: magnetometer)"))
        let document = try CalibrationFiles.load(path: output)
        #expect(document["mag"]?.magnetometer?.grade == .good)
    }

    /// NO_COLOR (no-color.org) turns colour off; the rest is unchanged.
    @Test func noColorMeansNoColor() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        var environment = Self.environment
        environment["NO_COLOR"] = "1"
        let session = try PseudoTerminalSession(
            ["calibrate", "gyro", "--output", dir.file("g.json"), "--speed", "10"], environment: environment)
        #expect(session.waitFor("Press Enter to start"))
        session.type("\r")
        #expect(session.waitFor("? [Y/n]"))
        session.type("\r")
        #expect(session.finish() == 0)
        #expect(!session.text.contains("\u{1B}[3"))
        #expect(!session.text.contains("\u{1B}[1m"))
        #expect(session.text.contains("\u{1B}[K")) // still redrawn in place
        #expect(session.text.contains("saved "))
    }

    /// TERM=dumb: no cursor movement and no colour; progress lines instead of a redrawn view.
    @Test func aDumbTerminalGetsProgressLines() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        var environment = Self.environment
        environment["TERM"] = "dumb"
        let session = try PseudoTerminalSession(
            ["calibrate", "gyro", "--output", dir.file("g.json"), "--speed", "2", "--duration", "12"],
            environment: environment)
        #expect(session.waitFor("Press Enter to start"))
        session.type("\r")
        #expect(session.waitFor("? [Y/n]"))
        session.type("n\r")
        #expect(session.finish() == 0)
        #expect(!session.text.contains("\u{1B}["))
        #expect(session.text.contains(" s: captured ") && session.text.contains(" of 12 s\r\n"))
        #expect(session.text.contains("not saved; "))
        #expect(!FileManager.default.fileExists(atPath: dir.file("g.json")))
    }

    /// Ctrl-C while the program waits for the answer: nothing is saved and the previous file is unchanged.
    @Test func ctrlCAtTheQuestionKeepsThePreviousFile() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let output = dir.file("sim.json")
        let previous = try Data(contentsOf: repositoryRoot.appendingPathComponent("calibration/simulated.json"))
        try previous.write(to: URL(fileURLWithPath: output))
        let session = try PseudoTerminalSession(
            ["calibrate", "gyro", "--output", output, "--speed", "10"], environment: Self.environment)
        #expect(session.waitFor("Press Enter to start"))
        session.type("\r")
        #expect(session.waitFor("Save to \(output)? [Y/n]"))
        session.process.interrupt()
        #expect(session.finish() == 130)
        #expect(session.text.contains("interrupted: nothing saved; \(output) left as it was"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == previous)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["sim.json"])
    }
}
