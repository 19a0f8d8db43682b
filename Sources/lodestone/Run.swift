import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine
import LodestoneLinux
import LodestoneWire

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the engine: read every sensor of the board at its rate (default: the simulated board).",
        discussion: """
            Without --json: a live view in a terminal (per-sensor rate, health and SI values), else one log line per \
            state change. With --json: one JSON object per line, the first {"class":"VERSION",...}. --record writes a trace (CSV; gzip when the name ends in .gz) \
            with the simulator's truth beside the samples. Scenarios of the simulated board: \
            \(BoardRuntime.scenarioNames.joined(separator: ", ")).
            """)

    @Option(
        help:
            "Board file (JSON, see boards/README.md). Default: $LODESTONE_BOARD, /etc/lodestone/board.json, else the shipped simulated board."
    ) var board: String?
    @Option(help: "Scenario of the simulated board (overrides the board file's).") var scenario: String?
    @Option(help: "Stop after this many seconds of engine time.") var duration: Double?
    @Option(help: "Seed of the simulated board's noise, for reproducible runs.") var seed: UInt64 = 1
    @Flag(help: "One JSON object per line instead of the live view.") var json = false
    @Option(
        help: ArgumentHelp(
            "With --json: the message classes to write, comma-separated (default: all but SAMPLE).",
            valueName: "A,B,…")) var classes: String?
    @Option(help: "Record a trace to this file (.csv or .csv.gz).") var record: String?
    @Option(help: "Simulated board only: 1 = real time, 10 = ten times faster, 0 = as fast as possible.") var speed: Double = 1
    @OptionGroup var calibration: CalibrationSelection
    @OptionGroup(title: "Orientation") var orientation: OrientationOptions
    @OptionGroup var export: ExportOptions
    @OptionGroup(title: "Altitude, activity and pedometer") var motion: MotionOptions
    @OptionGroup(title: "Scheduler (what the clients need, the policy, the battery)") var scheduler: SchedulerOptions

    func validate() throws {
        if let d = duration, !(d > 0 && d.isFinite) { throw ValidationError("--duration must be a positive number of seconds") }
        if !(speed >= 0 && speed.isFinite) {
            throw ValidationError("--speed must be 0 (as fast as possible) or a positive factor")
        }
        if let s = scenario, !BoardRuntime.scenarioNames.contains(s) {
            throw ValidationError("--scenario \(s) is unknown; allowed: " + BoardRuntime.scenarioNames.joined(separator: ", "))
        }
    }

    func run() async throws {
        let path = board ?? defaultBoardPath()
        let description: BoardDescription
        do { description = try BoardDescription.load(path: path) } catch { fail(error.description) }
        var options = RunOptions(
            board: description, scenario: scenario, durationS: duration, seed: seed, json: json,
            recordPath: record, speed: speed, isTerminal: !json && Terminal.isStandardOutputATerminal,
            export: export.paths)
        if options.isTerminal {
            options.terminalSize = { Terminal.size().map { HumanView.Size(columns: $0.columns, rows: $0.rows) } }
        }
        orientation.apply(to: &options.fusion, nowUnixTimeS: Date().timeIntervalSince1970)
        options.fusion.calibration = calibration.configuration(board: description)
        motion.apply(to: &options.fusion)
        options.scheduling = scheduler.configuration()
        if let c = classes {
            do { options.classes = try Wire.Class.parseList(c) } catch { fail("--classes: \(error.message)") }
        }
        let stop = StopSignal.install()
        let out = StandardOutput()
        do {
            let code = try await RunJob(options: options).run(
                output: out, errors: standardErrorOutput(),
                shouldStop: { stop.requested },
                systemBattery: SchedulerOptions.systemBattery)
            if code != 0 { throw ExitCode(code) }
        } catch let e as JobError { fail(e.message) }
    }
}
