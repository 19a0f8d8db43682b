import Foundation
import LodestoneEngine
import Testing

@testable import LodestoneDaemon

/// Debian 12's own gpsd clients read the lines our builders write, served by a stand-in server
/// (Tests/Integration/gpsd/serve_lines.py) until `lodestone serve` exists: gpspipe, the Python module, a libgps
/// program (compiled here) and cgps (in tmux). Needs the packages of `GPSDClientRunner.packages`.
@Suite(.serialized) struct GPSDClientsTests {
    typealias R = GPSDClientRunner
    static let epochs = 8

    @Test func debianClientsReadOurPositions() async throws {
        try R.require(["gpspipe", "cgps", "cc", "tmux"])
        let dir = try R.temporaryDirectory("lodestone-gpsd-clients")
        defer { try? FileManager.default.removeItem(at: dir) }
        let transcript = GPSDTestData.driveTranscript(epochs: Self.epochs)
        let linesFile = dir.appendingPathComponent("lines.txt")
        try transcript.write(to: linesFile, atomically: true, encoding: .utf8)
        let portFile = dir.appendingPathComponent("port")
        let server = try R.start(
            R.python,
            [
                R.scripts.appendingPathComponent("serve_lines.py").path, linesFile.path, "--port-file", portFile.path,
                "--interval", "0.05", "--max-seconds", "900"
            ], in: dir, name: "server")
        defer { R.stop(server) }
        let port = try #require(await R.waitForFile(portFile, timeoutS: 10).flatMap { Int($0) }, "serve_lines.py did not start")
        // Said with every client failure: whether the stand-in server still runs, and what it wrote.
        func serverState() -> String {
            let err = (try? String(contentsOf: dir.appendingPathComponent("server.err"), encoding: .utf8)) ?? ""
            return "server running: \(server.isRunning); its stderr: \(err)"
        }

        let ourTPVs = R.lines(transcript).filter { $0.hasPrefix(#"{"class":"TPV""#) }
        #expect(ourTPVs.count == Self.epochs)
        let expectedPositions = (0..<Self.epochs).map {
            "lat=" + formatFixed(GPSDTestData.latitude($0), digits: 9) + " lon="
                + formatFixed(GPSDTestData.longitude($0), digits: 9)
        }

        // gpspipe prints every line it gets: the banner, the reply to its WATCH, then the stream, byte for byte.
        let pipe = try await R.run("gpspipe", ["-w", "-n", "\(3 + 3 * Self.epochs)", "127.0.0.1:\(port)"], timeoutS: 20, in: dir)
        #expect(
            pipe.status == 0 && !pipe.timedOut,
            "gpspipe: status \(pipe.status), timed out \(pipe.timedOut): \(pipe.stderr) \(pipe.stdout); \(serverState())")
        let piped = R.lines(pipe.stdout)
        #expect(
            pipe.stdout.components(separatedBy: "\n").dropLast().allSatisfy { $0.hasSuffix("\r") }, "not every line ends in CR LF"
        )
        #expect(piped.first?.hasPrefix(#"{"class":"VERSION","release":"3.22""#) == true)
        for tpv in ourTPVs { #expect(piped.contains(tpv), "gpspipe did not print \(tpv)") }

        // python3-gps: `gps.gps()` streaming TPVs.
        let py = try await R.run(
            R.python, [R.scripts.appendingPathComponent("py_client.py").path, "\(port)", "\(Self.epochs)"], timeoutS: 30, in: dir)
        #expect(py.status == 0, "py_client.py: \(py.stderr); \(serverState())")
        let pyTPVs = R.lines(py.stdout).filter { $0.hasPrefix("TPV ") }
        #expect(pyTPVs.map(String.init) == expectedPositions.map { "TPV mode=3 " + $0 }, "\(py.stdout)")
        #expect(py.stdout.contains("SKY uSat=9 nSat=11") && py.stdout.contains("ATT heading=45.0"), "\(py.stdout)")

        // libgps: gps_open / gps_stream / gps_read, as cgps, navit and foxtrotgps.
        let exe = try await R.buildLibgpsClient(in: dir)
        let c = try await R.run(exe, ["\(port)", "\(Self.epochs)"], timeoutS: 30, in: dir)
        #expect(c.status == 0, "libgps_client: \(c.stderr); \(serverState())")
        let cTPVs = R.lines(c.stdout).filter { $0.hasPrefix("TPV ") }
        #expect(cTPVs.map(String.init) == expectedPositions.map { "TPV mode=3 " + $0 + " alt=34.5000" }, "\(c.stdout)")
        #expect(c.stdout.contains("SKY used=9") && c.stdout.contains("ATT heading=45.000"), "\(c.stdout)")

        // cgps 3.22 on a terminal: the fix (status 6 reads "3D GNSSDR FIX"), the last position (8 decimals and the
        // hemisphere) and the satellites.
        let last = Self.epochs - 1
        let lat = formatFixed(GPSDTestData.latitude(last), digits: 8) + " N"
        let lon = formatFixed(GPSDTestData.longitude(last), digits: 8) + " E"
        let expected = ["3D GNSSDR FIX", lat, lon, "Seen 11/Used  9"]
        let screen = try await R.cgpsScreen(port: port, expected: expected, timeoutS: 15, in: dir)
        for text in expected { #expect(screen.contains(text), "cgps screen lacks \(text):\n\(screen)") }
    }
}
