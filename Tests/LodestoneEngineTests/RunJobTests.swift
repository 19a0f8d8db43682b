import Foundation
import LodestoneWire
@testable import LodestoneCLI
@testable import LodestoneTrace
import Testing
import LodestoneCore
import LodestoneSimulation
@testable import LodestoneEngine

/// Runs of the engine on the simulated board, in process, on a manual clock (no real waiting).
@Suite struct RunJobTests {
    static let simulatedBoardPath = repositoryRoot.appendingPathComponent("boards/simulated.json").path

    func decode(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    @Test func jsonStreamStartsWithVersionAndBoardAndCarriesEverySensor() async throws {
        let board = try BoardDescription.load(path: Self.simulatedBoardPath)
        let out = CapturedOutput(), err = CapturedOutput()
        let code = try await RunJob(
            options: RunOptions(board: board, durationS: 3, seed: 7, json: true, speed: 0, classes: Set(Wire.Class.allCases))
        )
        .run(output: out, errors: err)
        #expect(code == 0)
        #expect(decode(out.lines[0])["class"] as? String == "VERSION")
        #expect(decode(out.lines[0])["protocol"] as? Int == Wire.protocolVersion)
        #expect(decode(out.lines[1])["class"] as? String == "BOARD")
        let samples = out.lines.map(decode).filter { $0["class"] as? String == "SAMPLE" }
        let bySensor = Dictionary(grouping: samples) { $0["sensor"] as? String ?? "" }
        // 3 s at 100 / 40 / 25 Hz, both ends included.
        #expect(bySensor["imu"]?.count == 301)
        #expect(bySensor["mag"]?.count == 121)
        #expect(bySensor["baro"]?.count == 76)
        // The scenario starts at rest: gravity magnitude, a geomagnetic field magnitude, a pressure near 455 m. The
        // samples are the chips' own readings: the MPU-9250's zero-g offset is up to ±60 mg (X, Y) and ±80 mg (Z), so
        // |a| may be off by up to 117 mg (the board's unit: 0.73 m/s²).
        for s in bySensor["imu"] ?? [] {
            let a = [s["acc_x_mps2"], s["acc_y_mps2"], s["acc_z_mps2"]].compactMap { $0 as? Double }
            #expect(a.count == 3)
            #expect(abs((a.map { $0 * $0 }.reduce(0, +)).squareRoot() - 9.81) < 1.2)
        }
        for s in bySensor["mag"] ?? [] {
            let m = [s["mag_x_ut"], s["mag_y_ut"], s["mag_z_ut"]].compactMap { $0 as? Double }
            #expect((20...80).contains((m.map { $0 * $0 }.reduce(0, +)).squareRoot()))
        }
        for s in bySensor["baro"] ?? [] { #expect((94_000...98_000).contains(s["pressure_pa"] as? Double ?? 0)) }
        let status = out.lines.map(decode).filter { $0["class"] as? String == "STATUS" }
        #expect(status.count == 3)
        #expect((status.last?["degraded"] as? [String]) == [])
        #expect(err.lines.isEmpty)
    }

    @Test func sameSeedGivesTheSameRunAndAnotherSeedDoesNot() async throws {
        let board = try BoardDescription.load(path: Self.simulatedBoardPath)
        func run(_ seed: UInt64) async throws -> [String] {
            let out = CapturedOutput()
            _ = try await RunJob(
                options: RunOptions(
                    board: board, durationS: 2, seed: seed, json: true, speed: 0, classes: Set(Wire.Class.allCases))
            )
            .run(output: out, errors: CapturedOutput())
            return out.lines
        }
        #expect(try await run(3) == run(3))
        #expect(try await run(3) != run(4))
    }

    /// A chip that vanishes mid-run: one line when it goes, one when it is back, the other sensors never stop,
    /// and the recording keeps every row.
    @Test func chipThatVanishesMidRunIsReportedOnceAndTheRestKeepsRunning() async throws {
        let board = try BoardDescription.load(path: Self.simulatedBoardPath)
        let out = CapturedOutput(), err = CapturedOutput()
        let record = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-vanish-\(getpid()).csv").path
        defer { try? FileManager.default.removeItem(atPath: record) }
        var options = RunOptions(board: board, durationS: 10, seed: 1, json: true, recordPath: record, speed: 0)
        options.classes = Set(Wire.Class.allCases)
        let code = try await RunJob(options: options).run(
            output: out, errors: err,
            beforeEachStep: { core, t in
                // The BMP280 (0x76) is gone from t = 3 s to t = 6 s.
                core.runtime.world?.board.bus.setPresent(!(3.0..<6.0).contains(t), address: 0x76)
            })
        #expect(code == 0)
        let messages = out.lines.map(decode)
        let degraded = messages.filter { $0["class"] as? String == "DEGRADED" }
        let recovered = messages.filter { $0["class"] as? String == "RECOVERED" }
        #expect(degraded.count == 1)
        #expect(degraded.first?["sensor"] as? String == "baro")
        #expect((degraded.first?["message"] as? String)?.contains("0x76") == true)
        #expect(recovered.count == 1)
        #expect((6.0...7.5).contains(recovered.first?["t_s"] as? Double ?? 0))
        #expect(err.lines.filter { $0.hasPrefix("baro degraded") }.count == 1)
        #expect(err.lines.filter { $0.hasPrefix("baro recovered") }.count == 1)
        let imu = messages.filter { $0["sensor"] as? String == "imu" && $0["class"] as? String == "SAMPLE" }
        #expect(imu.count == 1001)
        let mid = messages.first { $0["class"] as? String == "STATUS" && ($0["t_s"] as? Double ?? 0) >= 4.5 }
        #expect((mid?["degraded"] as? [String]) == ["baro"])
        // The recording has every IMU instant: 1001 rows of accelerometer data.
        let text = try TraceFiles.readText(path: record)
        var parser = TraceParser(text: text, path: record)
        var accRows = 0, baroRows = 0
        while let row = try parser.next() {
            if row.accelerationMps2 != nil { accRows += 1 }
            if row.pressurePa != nil { baroRows += 1 }
        }
        #expect(accRows == 1001)
        #expect(baroRows > 150 && baroRows < 251 - 70)
    }

    @Test func unknownScenarioIsOneLine() async throws {
        let board = try BoardDescription.load(path: Self.simulatedBoardPath)
        await #expect(throws: JobError.self) {
            try await RunJob(options: RunOptions(board: board, scenario: "moonwalk", durationS: 1))
                .run(output: CapturedOutput(), errors: CapturedOutput())
        }
    }

    @Test func aBoardWhoseBusDoesNotExistFailsWithOneLineNamingIt() async throws {
        let json =
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"baro","chip":"bmp280","bus":{"i2c":"/dev/i2c-97"},"rateHz":10}]}"#
        let board = try BoardDescription.parse(Data(json.utf8), path: "x.json")
        do {
            _ = try await RunJob(options: RunOptions(board: board, durationS: 1))
                .run(output: CapturedOutput(), errors: CapturedOutput())
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("/dev/i2c-97"))
            #expect(error.message.contains("baro"))
            #expect(!error.message.contains("\n"))
        }
    }
}
