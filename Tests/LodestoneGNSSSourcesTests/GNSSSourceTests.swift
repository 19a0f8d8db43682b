import Foundation
import LodestoneCore
@testable import LodestoneGNSSSources
import LodestoneLinux
import LodestoneLocation
@testable import LodestoneSources
import Testing

enum GNSSTestData {
    /// Waits at most `timeoutS` for `p` to exit; kills it (SIGKILL) and returns false if it does not.
    static func waitForExit(_ p: Process, timeoutS: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutS)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard p.isRunning else { return true }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        return false
    }

    static let nmea = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/datasets/nmea").standardized

    /// The sentence lines of a dataset log (comments dropped), each with CR LF.
    static func lines(_ log: String) throws -> [String] {
        let text = String(decoding: try Data(contentsOf: nmea.appendingPathComponent(log)), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("$") }.map { $0 + "\r\n" }
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-\(getpid())-\(name)").path
    }

    /// Polls `source` at 50 Hz of fake time until `count` fixes came or `timeoutS` of wall time passed.
    static func collect<S: SensorSource>(_ source: inout S, count: Int, timeoutS: Double, feed: (Int) -> Void = { _ in }) throws
        -> [ReceiverFix]
    {
        var fixes: [ReceiverFix] = []
        let deadline = Date().addingTimeInterval(timeoutS)
        var step = 0
        while fixes.count < count && Date() < deadline {
            feed(step)
            if case .fix(let f) = try source.read(timeS: Double(step) * 0.02) { fixes.append(f) }
            step += 1
            usleep(5000)
        }
        return fixes
    }
}

@Suite(.serialized) struct GNSSSourceTests {
    @Test func aRecordedLogIsReplayedAtItsOwnPace() throws {
        var source = GNSSLogSource(id: "gnss", path: GNSSTestData.nmea.appendingPathComponent("firefly-II.log").path)
        try source.start()
        var times: [Double] = []
        for step in 0...2300 { // 23 s at 100 Hz
            if case .fix(let f) = try source.read(timeS: Double(step) * 0.01) { times.append(f.timeS) }
        }
        #expect(times.count == 23) // firefly-II: 23 epochs, one per second
        #expect(abs(times[1] - times[0] - 1) < 0.011)
    }

    @Test func gpxPlaybackIsSimulatedAndFollowsTheTrackTimes() throws {
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="48.0" lon="11.0"><name>start &amp; finish</name></wpt>
              <trk><name>drive</name><trkseg>
                <trkpt lat="48.000000" lon="11.000000"><ele>500.0</ele><time>2024-05-01T12:00:00Z</time></trkpt>
                <trkpt lat="48.000100" lon="11.000000"><ele>501.0</ele><time>2024-05-01T12:00:02Z</time></trkpt>
                <trkpt lat="48.000200" lon="11.000000"><ele>502.0</ele><time>2024-05-01T12:00:04Z</time></trkpt>
              </trkseg></trk>
            </gpx>
            """
        let path = GNSSTestData.temporaryPath("drive.gpx")
        try gpx.write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var source = GNSSGPXSource(id: "gnss", path: path)
        try source.start()
        var fixes: [ReceiverFix] = []
        for step in 0...500 { if case .fix(let f) = try source.read(timeS: Double(step) * 0.01) { fixes.append(f) } }
        #expect(fixes.map(\.timeS) == [0, 2, 4])
        #expect(fixes.allSatisfy { $0.quality == .simulated })
        #expect(fixes[0].utcS == 1_714_564_800)
        #expect(fixes[1].altitudeMSLM == 501)
        // 0.0001° of latitude at 48° N is 11.12 m; over 2 s, 5.56 m/s, due north.
        #expect(abs(fixes[0].speedMps! - 5.5598) < 0.01)
        #expect(abs(fixes[0].courseDeg!) < 1e-6)
        #expect(abs(fixes[0].climbMps! - 0.5) < 1e-9)
    }

    @Test func aBrokenGPXFileIsAOneLineError() throws {
        let path = GNSSTestData.temporaryPath("broken.gpx")
        try "<gpx>\n<trkpt lat=\"95\" lon=\"0\"/>\n</gpx>".write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var source = GNSSGPXSource(id: "gnss", path: path)
        do { try source.start(); Issue.record("accepted a latitude of 95°") } catch {
            #expect(error.message == "\(path): line 2: lat=\"95\" is not a latitude in [-90, 90]")
        }
    }

    @Test func aSerialReceiverIsDecodedAndReopenedAfterUnplug() throws {
        let dir = GNSSTestData.temporaryPath("serial")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let link = dir + "/ttyGNSS"
        var pty = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
        var source = GNSSSerialSource(id: "gnss", path: link, baudRate: 9600)
        try source.start()
        let lines = try GNSSTestData.lines("firefly-II.log")
        var sent = 0
        let fixes = try GNSSTestData.collect(&source, count: 5, timeoutS: 10) { _ in
            if sent < lines.count { pty.send(Array(lines[sent].utf8)); sent += 1 }
        }
        #expect(fixes.count == 5)
        #expect(fixes.allSatisfy { $0.mode == .twoDimensional && abs($0.latitudeDeg! - 37.2610266) < 1e-6 })

        // Unplugged: the engine is told the device is gone (it backs off and calls start() again).
        pty.close()
        try FileManager.default.removeItem(atPath: link)
        var gone = false
        for step in 0..<200 where !gone {
            do { _ = try source.read(timeS: Double(step)); usleep(5000) } catch { gone = error.deviceGone }
        }
        #expect(gone)
        #expect(throws: SourceError.self) { try source.start() } // still unplugged

        // Plugged back in under the same name: start() reopens, fixes flow again.
        pty = try PseudoTerminal()
        defer { pty.close() }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
        try source.start()
        sent = 10
        let again = try GNSSTestData.collect(&source, count: 2, timeoutS: 10) { _ in
            if sent < lines.count { pty.send(Array(lines[sent].utf8)); sent += 1 }
        }
        #expect(again.count == 2)
    }
}

/// Debian's real gpsd, fed real NMEA through a pseudo-terminal, read back through `GNSSGpsdSource`.
@Suite(.serialized) struct RealGpsdTests {
    static let gpsdPath = ["/usr/sbin/gpsd", "/usr/bin/gpsd"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: gpsdPath != nil, "gpsd is not installed: apt-get install gpsd (scripts/bootstrap --test does)"))
    func fixesComeBackThroughARunningGpsd() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let port = 29_000 + Int(getpid() % 900)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: Self.gpsdPath!)
        // -N foreground, -n poll the device at once, -b read-only (never reconfigure the "receiver"),
        // -S a non-default port; the pty slave is the device.
        daemon.arguments = ["-N", "-n", "-b", "-S", String(port), pty.slavePath]
        daemon.standardError = FileHandle.nullDevice
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        defer {
            // Only while it runs: the test stops it itself below, and a signal to an ended child's pid could reach
            // whichever process has that pid by now.
            if daemon.isRunning { daemon.terminate() }
            if !GNSSTestData.waitForExit(daemon, timeoutS: 5) { Issue.record("gpsd did not stop on SIGTERM; killed") }
        }
        var source = GNSSGpsdSource(id: "gnss", host: "127.0.0.1", port: port)
        var connected = false
        for _ in 0..<100 where !connected {
            do { try source.start(); connected = true } catch { usleep(50_000) }
        }
        #expect(connected, "could not connect to gpsd on port \(port)")
        guard connected else { return }
        let lines = try GNSSTestData.lines("haicom-305N.log")
        var sent = 0
        let fixes = try GNSSTestData.collect(&source, count: 8, timeoutS: 30) { step in
            if step % 2 == 0, sent < lines.count { pty.send(Array(lines[sent].utf8)); sent += 1 }
        }
        #expect(source.gpsdRelease != nil)
        let withPosition = fixes.filter(\.hasPosition)
        #expect(withPosition.count >= 3, "gpsd delivered \(fixes.count) fixes, \(withPosition.count) with a position")
        // Every position gpsd reported is one our own decoder finds in the same log.
        var d = GNSSDecoder()
        var positions: [(Double, Double)] = []
        Array(lines.joined().utf8).withUnsafeBytes { raw in
            d.feed(raw) {
                if case .report(let r, _) = $0, let la = r.latitudeDeg, let lo = r.longitudeDeg { positions.append((la, lo)) }
            }
        }
        for f in withPosition {
            #expect(positions.contains { abs($0.0 - f.latitudeDeg!) < 1e-8 && abs($0.1 - f.longitudeDeg!) < 1e-8 })
        }

        // gpsd goes away: the source says so (the engine reconnects later).
        daemon.terminate()
        _ = GNSSTestData.waitForExit(daemon, timeoutS: 5)
        var gone = false
        for step in 0..<200 where !gone {
            do { _ = try source.read(timeS: Double(step)); usleep(10_000) } catch { gone = error.deviceGone }
        }
        #expect(gone)
    }
}
