import Foundation
import Testing

/// The built `lodestone` executable, and the loopback helpers of its tests.
enum LodestoneServe {
    /// The executable beside the test bundle (as LodestoneEngineTests' `CLI.executable` finds it).
    static var executable: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: dir.appendingPathComponent("lodestone").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("lodestone")
    }

    /// A free loopback port (bound and released at once: another process could take it meanwhile, which the tests
    /// would see as a failure to listen).
    static func freePort(in dir: URL) async throws -> Int {
        let r = try await GPSDClientRunner.run(
            GPSDClientRunner.python,
            ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"], timeoutS: 10, in: dir)
        return try #require(Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Waits until something accepts connections on the port.
    static func waitForPort(_ port: Int, timeoutS: Double, in dir: URL) async throws -> Bool {
        let script = """
            import socket, sys, time
            end = time.time() + \(timeoutS)
            while time.time() < end:
                try:
                    socket.create_connection(('127.0.0.1', \(port)), 0.2).close(); sys.exit(0)
                except OSError:
                    time.sleep(0.1)
            sys.exit(1)
            """
        return try await GPSDClientRunner.run(GPSDClientRunner.python, ["-c", script], timeoutS: timeoutS + 5, in: dir).status
            == 0
    }
}

/// Debian's gpsd clients against `lodestone serve` itself, and `lodestone serve` side by side with Debian's gpsd on
/// the same receiver log. Skipped (with `LodestoneServe.skipMessage`) while `lodestone serve` does not exist.
@Suite(.serialized) struct GPSDServeClientsTests {
    typealias R = GPSDClientRunner
    /// RTK receiver, 10 Hz, 122 epochs over 12 s, moving slowly, 2020 (after the week rollover gpsd 3.22 mishandles).
    static var log: String { datasets + "/nmea-rtk.log" }
    /// `../shared/datasets/nmea` beside the checkout (or `LODESTONE_NMEA_DATASETS`).
    static var datasets: String {
        ProcessInfo.processInfo.environment["LODESTONE_NMEA_DATASETS"]
            ?? R.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets/nmea").path
    }

    @Test
    func debianClientsReadRealFixesFromLodestoneServe() async throws {
        try R.require(["gpspipe", "cgps", "cc", "tmux"])
        let log = "\(Self.datasets)/ublox-zed-f9p-nmea.log"
        try #require(FileManager.default.fileExists(atPath: log), "no receiver log at \(log)")
        let dir = try R.temporaryDirectory("lodestone-gpsd-serve")
        defer { try? FileManager.default.removeItem(at: dir) }
        let board = dir.appendingPathComponent("board.json")
        try
            #"{"format":"lodestone-board/1","name":"gpsd-clients","sensors":[{"id":"gnss","chip":"nmea","bus":{"file":"\#(log)"}}]}"#
            .write(to: board, atomically: true, encoding: .utf8)
        let port = try await LodestoneServe.freePort(in: dir)
        let serve = try R.start(
            LodestoneServe.executable.path,
            [
                "serve", "--board", board.path, "--socket", dir.appendingPathComponent("s.sock").path, "--gpsd-listen",
                "127.0.0.1:\(port)", "--gpsd-access", "full", "--state-dir", dir.path
            ], in: dir, name: "serve")
        defer { R.stop(serve) }
        #expect(try await LodestoneServe.waitForPort(port, timeoutS: 20, in: dir), "lodestone serve did not listen on \(port)")

        // The log is near 45.878 S, 170.500 E (Dunedin).
        func plausible(_ line: Substring) -> Bool {
            let fields = Dictionary(
                uniqueKeysWithValues: line.split(separator: " ").dropFirst().compactMap { f -> (String, Double)? in
                    let kv = f.split(separator: "=")
                    return kv.count == 2 ? (String(kv[0]), Double(kv[1]) ?? .nan) : nil
                })
            return (fields["mode"] ?? 0) >= 2 && abs((fields["lat"] ?? 0) + 45.878) < 0.01
                && abs((fields["lon"] ?? 0) - 170.5) < 0.01
        }

        let pipe = try await R.run("gpspipe", ["-w", "-n", "25", "127.0.0.1:\(port)"], timeoutS: 40, in: dir)
        #expect(pipe.status == 0 && !pipe.timedOut, "gpspipe: \(pipe.stderr)")
        let lines = R.lines(pipe.stdout)
        #expect(lines.first?.hasPrefix(#"{"class":"VERSION""#) == true)
        #expect(lines.contains { $0.hasPrefix(#"{"class":"TPV""#) && $0.contains(#""lat":-45.87"#) }, "\(pipe.stdout)")
        #expect(
            pipe.stdout.components(separatedBy: "\n").dropLast().allSatisfy { $0.hasSuffix("\r") }, "not every line ends in CR LF"
        )

        let py = try await R.run(
            R.python, [R.scripts.appendingPathComponent("py_client.py").path, "\(port)", "5"], timeoutS: 40, in: dir)
        #expect(py.status == 0, "py_client.py: \(py.stderr)")
        #expect(R.lines(py.stdout).filter { $0.hasPrefix("TPV ") }.contains(where: plausible), "\(py.stdout)")

        let exe = try await R.buildLibgpsClient(in: dir)
        let c = try await R.run(exe, ["\(port)", "5"], timeoutS: 40, in: dir)
        #expect(c.status == 0, "libgps_client: \(c.stderr)")
        #expect(R.lines(c.stdout).filter { $0.hasPrefix("TPV ") }.contains(where: plausible), "\(c.stdout)")

        let screen = try await R.cgpsScreen(port: port, expected: ["FIX", "45.87", "170.50"], timeoutS: 20, in: dir)
        for text in ["FIX", "45.87", "170.50"] { #expect(screen.contains(text), "cgps screen lacks \(text):\n\(screen)") }
    }

    /// One log to Debian's gpsd (gpsfake) and to `lodestone serve`; both read with `gpspipe -w`; TPV time, mode,
    /// lat/lon, altHAE/altMSL and speed compared epoch by epoch (Tests/Integration/gpsd/side_by_side.sh).
    @Test
    func lodestoneServeAgreesWithDebiansGpsdOnTheSameLog() async throws {
        try R.require(["gpsfake", "gpspipe"])
        let log = "\(Self.datasets)/nmea-rtk.log"
        try #require(FileManager.default.fileExists(atPath: log), "no receiver log at \(log)")
        let dir = try R.temporaryDirectory("lodestone-gpsd-side-by-side")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await R.run(
            "/bin/bash",
            [
                R.scripts.appendingPathComponent("side_by_side.sh").path, log, LodestoneServe.executable.path, dir.path,
                // A fused location differs from the receiver's fix by filtering (the RTK heights of this log jump 2.5 m in
                // 4 s; the filter smooths them): 2 m horizontally, 3 m vertically, 0.5 m/s; times to the millisecond; 90 % of
                // the paired epochs (at least 10) must agree.
                "--h-m", "2.0", "--v-m", "3.0", "--speed-mps", "0.5", "--time-tol-s", "0.001", "--min-agreed", "0.9",
                "--min-paired", "10"
            ], timeoutS: 180, in: dir)
        #expect(r.status == 0, "side by side:\n\(r.stdout)\n\(r.stderr)")
        print("gpsd side by side (\(log)):\n\(r.stdout)")
    }
}
