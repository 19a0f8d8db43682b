// The fault soak (issue 18): `scripts/soak [--hours H] [--seed S] [--board FILE]` builds this in release and runs it.
// A separate executable rather than a `lodestone soak` subcommand: it links the engine alone (no daemon, no argument
// parser), so that its release build is the smallest that runs the real loop, and the shipped `lodestone` carries no
// test harness. The soak itself is `FaultSoak` (LodestoneEngine), which the tests run briefly.
import Foundation
import LodestoneEngine

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("lodestone-soak: " + message + "\n").utf8))
    exit(2)
}

func hoursText(_ h: Double) -> String { String(format: "%.2f", h) }

func runSoak(_ arguments: [String]) -> Int32 {
    var hours = 24.0
    var seed: UInt64 = 1
    var boardPath: String?
    var faults = true
    var calibrationPath: String?
    var noCalibration = false
    var rest = arguments[...]
    while let a = rest.popFirst() {
        switch a {
        case "--hours":
            guard let v = rest.popFirst().flatMap(Double.init), v > 0, v.isFinite else {
                fail("--hours needs a positive number of simulated hours, e.g. --hours 24")
            }
            hours = v
        case "--seed":
            guard let v = rest.popFirst().flatMap({ UInt64($0) }) else { fail("--seed needs a whole number ≥ 0") }
            seed = v
        case "--board":
            guard let v = rest.popFirst() else { fail("--board needs a board file with simulated chips") }
            boardPath = v
        case "--no-faults":
            faults = false
        case "--calibration":
            guard let v = rest.popFirst() else { fail("--calibration needs a calibration file") }
            calibrationPath = v
        case "--no-calibration":
            noCalibration = true
        case "-h", "--help":
            print(
                "usage: lodestone-soak [--hours H (default 24)] [--seed S (default 1)] [--board FILE (default: the simulated board)] [--no-faults (the same run without faults, for comparison)] [--calibration FILE | --no-calibration (default: the board's, found as lodestone run finds it)]"
            )
            return 0
        default:
            fail(
                "unknown argument \"\(a)\"; allowed: --hours H, --seed S, --board FILE, --no-faults, --calibration FILE, --no-calibration"
            )
        }
    }
    let board: BoardDescription
    do {
        if let boardPath {
            board = try BoardDescription.load(path: boardPath)
        } else {
            board = try BoardDescription.loadDefault()
        }
    } catch { fail("\(error)") }
    if calibrationPath != nil && noCalibration { fail("give --calibration FILE or --no-calibration, not both") }
    let calibration: CalibrationStage.Configuration
    do {
        calibration = try CalibrationFiles.resolve(board: board, explicitPath: calibrationPath, disabled: noCalibration)
    } catch { fail(error.message) }
    let wallStart = Date()
    print("soak: \(hoursText(hours)) h simulated, seed \(seed), board \(board.path ?? board.name)")
    print(calibration.document == nil ? "calibration: none" : calibration.summary)
    var options = FaultSoak.Options(board: board, durationS: hours * 3600, seed: seed)
    options.calibration = calibration
    if !faults {
        options.nackPerTransfer = 0
        options.ioErrorPerTransfer = 0
        options.vanishMeanIntervalS = .infinity
        options.stuckMeanIntervalS = .infinity
        options.receiverStopMeanIntervalS = .infinity
        options.outageMeanIntervalS = .infinity
        options.wallClockStepMeanIntervalS = .infinity
    }
    let report: FaultSoak.Report
    do {
        report = try FaultSoak.run(options) { r in
            // Written at once (not buffered by print), so that a pipe shows the progress as it comes.
            let line = "  … \(hoursText(r.simulatedS / 3600)) h simulated in \(Int(Date().timeIntervalSince(wallStart))) s\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    } catch { fail("\(error)") }
    for line in report.lines { print(line) }
    print("wall time: \(Int(Date().timeIntervalSince(wallStart))) s")
    return report.passed ? 0 : 1
}

exit(runSoak(Array(CommandLine.arguments.dropFirst())))
