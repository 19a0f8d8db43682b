import Foundation
import LodestoneCore
import LodestoneDrivers
import LodestoneEngine
import LodestoneMotion
import LodestoneSimulation

/// Where the repository and the shared datasets are (`../shared` beside the checkout, as in CI).
enum Paths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let datasets = repository.deletingLastPathComponent().appendingPathComponent("shared/datasets")
    static func dataset(_ relative: String) -> String { datasets.appendingPathComponent(relative).path }
    static func fixture(_ name: String) -> String { repository.appendingPathComponent("Tests/Fixtures/motion/\(name)").path }
}

/// Reads a trace (a dataset file) into rows.
func readTrace(_ path: String) throws -> [TraceRow] {
    var parser = TraceParser(text: try TraceFiles.readText(path: path), path: path)
    var rows: [TraceRow] = []
    while let r = try parser.next() { rows.append(r) }
    return rows
}

/// The simulated board as `lodestone run` samples it: MPU-9250 at 100 Hz and BMP280 at 25 Hz read by the real
/// drivers, the simulated receiver's fixes; each sample handed to `body` as the engine would.
struct SimulatedRun {
    var scenario: Scenario
    var noise: SensorNoise = .consumerMEMS
    var seed: UInt64 = 1

    /// Runs `durationS` of the scenario (default: all of it and 10 s more).
    func run(durationS: Double? = nil, _ body: (SensorReading, ReceiverFix?, TruthSample) -> Void) throws {
        let placements = [
            SimulatedBoard.Placement(id: "imu", chip: "mpu9250", address: 0x68, mount: .identity, rateHz: 100),
            SimulatedBoard.Placement(id: "baro", chip: "bmp280", address: 0x76, mount: .identity, rateHz: 25),
        ]
        let board = try SimulatedBoard(scenario: scenario, placements: placements, noise: noise, seed: seed)
        var imu = MPU6xxx(bus: board.bus, address: 0x68, variant: .mpu9250)
        var barometer = BMP280(bus: board.bus, address: 0x76)
        _ = try imu.probe()
        _ = try barometer.probe()
        _ = try imu.configure(SensorConfiguration(rateHz: 100))
        _ = try barometer.configure(SensorConfiguration(rateHz: 25))
        let end = durationS ?? scenario.totalDurationS + 10
        var tick = 0
        while Double(tick) / 100 <= end {
            let t = Double(tick) / 100
            board.advance(toTimeS: t)
            var r = try imu.read(timeS: t)
            r.magneticFieldMicroTesla = nil
            if tick % 4 == 0 { r.pressurePa = try barometer.read(timeS: t).pressurePa }
            var fix: ReceiverFix?
            if board.hasNewFix, let f = board.latestFix {
                var x = ReceiverFix(timeS: t, mode: f.fixMode == .threeDimensional ? .threeDimensional : .twoDimensional)
                x.altitudeMSLM = f.altitudeMSLM
                x.verticalAccuracyM = f.verticalAccuracyM
                x.speedMps = f.speedMps
                fix = x
            }
            body(r, fix, board.truth)
            tick += 1
        }
    }
}
