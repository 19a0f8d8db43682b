#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import LodestoneLinux
import Testing

extension PseudoTerminal {
    func send(_ text: String) { send(Array(text.utf8)) }
}

/// Reads everything available within `timeoutS`.
func drain(_ port: SerialPort, timeoutS: Double = 1, until done: (String) -> Bool) throws -> String {
    var text = ""
    var buffer = [UInt8](repeating: 0, count: 256)
    let deadline = Date().addingTimeInterval(timeoutS)
    while Date() < deadline && !done(text) {
        let n = try buffer.withUnsafeMutableBytes { try port.read(into: $0) }
        if n > 0 { text += String(decoding: buffer[0..<n], as: UTF8.self) } else { usleep(2000) }
    }
    return text
}

@Suite(.serialized) struct SerialPortTests {
    @Test(arguments: [4800, 9600, 38400, 115200])
    func theBaudRateIsSetOnTheLine(baud: Int) throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let port = try SerialPort(path: pty.slavePath, baudRate: baud)
        #expect(try port.currentBaudRate() == baud)
    }

    @Test func anUnsupportedBaudRateIsAOneLineError() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        #expect(throws: SerialPortError.self) { _ = try SerialPort(path: pty.slavePath, baudRate: 12345) }
        do throws(SerialPortError) { _ = try SerialPort(path: pty.slavePath, baudRate: 12345) } catch {
            #expect(error.kind == .unsupportedBaudRate)
            #expect(error.description.contains("allowed: 50, 75"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func readsDoNotBlockAndDeliverPartialSentences() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let port = try SerialPort(path: pty.slavePath, baudRate: 9600)
        var buffer = [UInt8](repeating: 0, count: 64)
        // Nothing there: 0 at once, no blocking.
        let start = Date()
        #expect(try buffer.withUnsafeMutableBytes { try port.read(into: $0) } == 0)
        #expect(Date().timeIntervalSince(start) < 0.5)
        // Half a sentence, then the rest: raw mode passes bytes through as they come.
        pty.send("$GPGGA,123519,4807.038,N,")
        let first = try drain(port) { $0.hasSuffix("N,") }
        #expect(first == "$GPGGA,123519,4807.038,N,")
        pty.send("01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n")
        let rest = try drain(port) { $0.hasSuffix("\r\n") }
        #expect(rest == "01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n") // raw: CR LF untouched
    }

    @Test func aVanishedPortIsGoneAndReopensWhenItComesBack() throws {
        // A stable name for the device, as udev gives one (/dev/serial/by-id/…): a symlink to the pty.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-serial-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent("ttyGNSS").path
        var pty = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
        let port = try SerialPort(path: link, baudRate: 9600)
        pty.send("$GPZDA,1*00\r\n")
        #expect(try drain(port) { $0.hasSuffix("\n") }.hasPrefix("$GPZDA"))

        // Unplugged: the other end disappears; the read says the device is gone.
        pty.close()
        try FileManager.default.removeItem(atPath: link)
        var buffer = [UInt8](repeating: 0, count: 64)
        var gone = false
        for _ in 0..<100 where !gone {
            let r = buffer.withUnsafeMutableBytes { b in Result { () throws(SerialPortError) in try port.read(into: b) } }
            switch r {
            case .success: usleep(5000)
            case .failure(let error): gone = error.kind == .gone
            }
        }
        #expect(gone)
        port.close()
        #expect(throws: SerialPortError.self) { _ = try SerialPort(path: link, baudRate: 9600) }

        // Plugged back in: a new device under the same name; opening the path again works.
        pty = try PseudoTerminal()
        defer { pty.close() }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
        let again = try SerialPort(path: link, baudRate: 9600)
        pty.send("$GPZDA,2*00\r\n")
        #expect(try drain(again) { $0.hasSuffix("\n") }.hasPrefix("$GPZDA,2"))
    }

    @Test func aFileThatIsNotATerminalIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-tty-\(getpid())").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: path) }
        do throws(SerialPortError) { _ = try SerialPort(path: path, baudRate: 9600); Issue.record("opened a regular file") } catch
        {
            #expect(error.kind == .notATerminal)
        }
    }
}
