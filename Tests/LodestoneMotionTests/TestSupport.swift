import Foundation
import LodestoneCore
import LodestoneLinux
import LodestoneMotion
import LodestoneSimulation
import LodestoneTrace

/// Where the repository and the shared datasets are (`../shared` beside the checkout, as in CI).
enum Paths {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let datasets = repository.deletingLastPathComponent().appendingPathComponent("shared/datasets")
    static func dataset(_ relative: String) -> String { datasets.appendingPathComponent(relative).path }
    static func fixture(_ name: String) -> String { repository.appendingPathComponent("Tests/Fixtures/motion/\(name)").path }
}

/// Reads a trace (a dataset file, plain or gzip) into rows: the bytes through LodestoneLinux, the rows through
/// LodestoneTrace (no engine needed).
func readTrace(_ path: String) throws -> [TraceRow] {
    var parser = TraceParser(bytes: try GzipFile.readAll(path: path), path: path)
    var rows: [TraceRow] = []
    while let r = try parser.next() { rows.append(r) }
    return rows
}

/// A scenario run through `SimulatedSampler`, each sample handed to `body` as the engine would (the fix as a
/// `ReceiverFix` with MSL altitude, vertical accuracy and speed).
struct SimulatedRun {
    var scenario: Scenario
    var noise: SensorNoise = .consumerMEMS
    var seed: UInt64 = 1

    /// Runs `durationS` of the scenario (default: all of it and 10 s more).
    func run(durationS: Double? = nil, _ body: (SensorReading, ReceiverFix?, TruthSample) -> Void) throws {
        var sampler = try SimulatedSampler(scenario: scenario, noise: noise, seed: seed)
        let end = durationS ?? scenario.totalDurationS + 10
        while true {
            let (r, f, truth) = try sampler.next()
            guard r.timeS <= end else { break }
            var fix: ReceiverFix?
            if let f {
                var x = ReceiverFix(timeS: r.timeS, mode: f.fixMode == .threeDimensional ? .threeDimensional : .twoDimensional)
                x.altitudeMSLM = f.altitudeMSLM
                x.verticalAccuracyM = f.verticalAccuracyM
                x.speedMps = f.speedMps
                fix = x
            }
            body(r, fix, truth)
        }
    }
}
