import Foundation
@testable import LodestoneCLI
import LodestoneCore
import LodestoneSimulation
import LodestoneWire
import Testing
@testable import LodestoneEngine

/// The barometers and magnetometers of the driver catalogue in a run of the engine on the simulated board: every
/// sensor delivers, and a chip that vanishes is reported once, comes back, and never stops the others.
@Suite struct BaroMagBoardRunTests {
    static let board = """
        {
          "format": "lodestone-board/1",
          "name": "Every barometer and magnetometer of the catalogue",
          "simulation": { "scenario": "walk" },
          "sensors": [
            { "id": "bme280", "chip": "bme280", "bus": { "simulated": true }, "address": "0x76", "rateHz": 10 },
            { "id": "ms5611", "chip": "ms5611", "bus": { "simulated": true }, "address": "0x77", "rateHz": 10 },
            { "id": "lps22hb", "chip": "lps22hb", "bus": { "simulated": true }, "address": "0x5D", "rateHz": 10 },
            { "id": "lps25h", "chip": "lps25h", "bus": { "simulated": true }, "address": "0x5C", "rateHz": 7 },
            { "id": "hmc5883l", "chip": "hmc5883l", "bus": { "simulated": true }, "address": "0x1E", "rateHz": 15 },
            { "id": "qmc5883l", "chip": "qmc5883l", "bus": { "simulated": true }, "address": "0x0D", "rateHz": 10 },
            { "id": "mmc5983ma", "chip": "mmc5983ma", "bus": { "simulated": true }, "address": "0x30", "rateHz": 10 }
          ]
        }
        """

    func decode(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    @Test func everySensorDeliversAndAVanishedMagnetometerNeverStopsTheOthers() async throws {
        let board = try BoardDescription.parse(Data(Self.board.utf8), path: "baro-mag.json")
        let out = CapturedOutput(), err = CapturedOutput()
        let options = RunOptions(board: board, durationS: 10, seed: 2, json: true, speed: 0, classes: Set(Wire.Class.allCases))
        let code = try await RunJob(options: options).run(
            output: out, errors: err,
            beforeEachStep: { core, t in
                core.runtime.world?.board.bus.setPresent(!(3.0..<6.0).contains(t), address: 0x0D) // the QMC5883L is gone 3…6 s
            })
        #expect(code == 0)
        let messages = out.lines.map(decode)
        func samples(_ id: String) -> [[String: Any]] {
            messages.filter { $0["sensor"] as? String == id && $0["class"] as? String == "SAMPLE" }
        }
        // The four barometers see the same air: their means over the run agree within the spread of their simulated
        // turn-on offsets (σ 33 Pa each, SensorNoise.consumerMEMS; 6σ = 200 Pa).
        var means: [Double] = []
        for id in ["bme280", "ms5611", "lps22hb", "lps25h"] {
            let s = samples(id).compactMap { $0["pressure_pa"] as? Double }
            #expect(s.count >= 69, "\(id): \(s.count) samples")
            #expect(s.allSatisfy { (80_000...110_000).contains($0) }, "\(id)")
            means.append(s.reduce(0, +) / Double(max(s.count, 1)))
        }
        #expect((means.max() ?? 0) - (means.min() ?? 0) < 200, "\(means)")
        for id in ["hmc5883l", "mmc5983ma"] {
            let s = samples(id)
            #expect(s.count >= 100, "\(id): \(s.count) samples")
            #expect(s.allSatisfy { ($0["mag_x_ut"] as? Double) != nil && ($0["mag_z_ut"] as? Double) != nil }, "\(id)")
        }
        let qmc = samples("qmc5883l")
        #expect(qmc.count > 40 && qmc.count < 80, "\(qmc.count)")
        let degraded = messages.filter { $0["class"] as? String == "DEGRADED" }
        let recovered = messages.filter { $0["class"] as? String == "RECOVERED" }
        #expect(degraded.count == 1 && degraded.first?["sensor"] as? String == "qmc5883l")
        #expect((degraded.first?["message"] as? String)?.contains("0x0D") == true)
        #expect(recovered.count == 1 && recovered.first?["sensor"] as? String == "qmc5883l")
    }
}
