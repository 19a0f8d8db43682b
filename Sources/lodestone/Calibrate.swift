import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneCore
import LodestoneEngine
import LodestoneLinux

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calibrate a board's magnetometer, accelerometer, gyroscope or barometer, guided, and save the result.",
        discussion: """
            KIND is mag (hard and soft iron: twirl the board while turning it over), accel (six positions, each \
            captured when held still), gyro (bias at rest; --duration 100 or more adds Allan-deviation noise figures) \
            or baro (offset at a known --altitude-m, better with today's --qnh-hpa). In a terminal the session is \
            guided with a live view; with --from-trace, --yes or without a terminal it runs through and saves when \
            every sensor succeeded. A failure always ends with a named reason and what to do.

            The result is merged into the board's calibration file, written atomically (an interruption leaves the \
            previous file as it was). Default file: $\(CalibrationFiles.directoryVariable)/NAME.json when set, else \
            \(CalibrationFiles.systemDirectory)/NAME.json for board file NAME.json. run (and replay --board) look \
            for it in this order: --calibration FILE, $\(CalibrationFiles.directoryVariable)/NAME.json, \
            \(CalibrationFiles.systemDirectory)/NAME.json, calibration/NAME.json beside the boards/ directory. \
            --check FILE validates a calibration file (and, with --board, that it fits the board).
            """)

    @Argument(help: "What to calibrate: mag, accel, gyro or baro.") var kind: String?
    @Option(help: "Validate this calibration file and exit.") var check: String?
    @Option(
        help:
            "Board file (JSON, see boards/README.md). Default: $LODESTONE_BOARD, /etc/lodestone/board.json, else the shipped simulated board."
    ) var board: String?
    @Option(help: "Save here (default: see below).") var output: String?
    @Option(help: "Calibrate from a recorded trace (CSV or .csv.gz) instead of the live board.") var fromTrace: String?
    @Flag(help: "No questions: run through and save when every sensor succeeded.") var yes = false
    @Option(help: "Calibrate only this sensor (board id; repeatable). Default: every sensor of that kind.") var sensor: [String] =
        []
    @Option(
        help:
            "Magnetometer and accelerometer: give up after this many seconds (default 120 live, the whole trace with --from-trace)."
    ) var timeout: Double?
    @Option(help: "Gyroscope and barometer: capture this many seconds (default 10).") var duration: Double?
    @Option(help: "Latitude of the board, degrees (for the WMM field check and local gravity), when no receiver gives it.")
    var latitude: Double?
    @Option(help: "Longitude of the board, degrees east.") var longitude: Double?
    @Option(help: "Height of the board above the WGS84 ellipsoid, m.") var height: Double?
    @Option(name: .customLong("altitude-m"), help: "Barometer: the board's altitude above mean sea level, m.") var altitudeM:
        Double?
    @Option(
        name: .customLong("qnh-hpa"),
        help: "Barometer: today's QNH (sea-level pressure, e.g. from the nearest airport's METAR), hPa.") var qnhHPa: Double?
    @Option(help: "Simulated board: scenario (default: the calibration motion of KIND).") var scenario: String?
    @Option(help: "Simulated board: seed of the noise.") var seed: UInt64 = 1
    @Option(help: "Simulated board: 1 = real time, 10 = ten times faster, 0 = as fast as possible.") var speed: Double = 1

    func validate() throws {
        if let check {
            guard kind == nil else { throw ValidationError("give either KIND or --check \(check), not both") }
            return
        }
        guard let kind else { throw ValidationError("give what to calibrate (mag, accel, gyro or baro), or --check FILE") }
        guard let k = CalibrationOptions.Kind(rawValue: kind) else {
            throw ValidationError("\"\(kind)\" is not something to calibrate; allowed: mag, accel, gyro, baro")
        }
        if let t = timeout, !(t > 0 && t.isFinite) { throw ValidationError("--timeout must be a positive number of seconds") }
        if let d = duration, !(d >= 1 && d.isFinite) { throw ValidationError("--duration must be at least 1 s") }
        if let d = duration, k == .magnetometer || k == .accelerometer {
            throw ValidationError("--duration \(d) is for gyro and baro; mag and accel end when done (see --timeout)")
        }
        if (latitude == nil) != (longitude == nil) { throw ValidationError("give --latitude and --longitude together") }
        if let lat = latitude, !(-90...90).contains(lat) { throw ValidationError("--latitude must be within -90…90 degrees") }
        if let lon = longitude, !(-180...360).contains(lon) {
            throw ValidationError("--longitude must be within -180…360 degrees")
        }
        if k == .barometer, altitudeM == nil {
            throw ValidationError(
                "calibrate baro needs --altitude-m (the board's altitude above mean sea level, m); add --qnh-hpa for the sensor's own offset"
            )
        }
        if k != .barometer, altitudeM != nil || qnhHPa != nil {
            throw ValidationError("--altitude-m and --qnh-hpa are for calibrate baro")
        }
        if let a = altitudeM, !(-500...9000).contains(a) { throw ValidationError("--altitude-m must be within -500…9000 m") }
        if let q = qnhHPa, !(850...1100).contains(q) { throw ValidationError("--qnh-hpa must be within 850…1100 hPa") }
        if !(speed >= 0 && speed.isFinite) {
            throw ValidationError("--speed must be 0 (as fast as possible) or a positive factor")
        }
        if let s = scenario, !BoardRuntime.scenarioNames.contains(s) {
            throw ValidationError("--scenario \(s) is unknown; allowed: " + BoardRuntime.scenarioNames.joined(separator: ", "))
        }
        if fromTrace != nil, scenario != nil { throw ValidationError("--scenario is for the simulated board, not --from-trace") }
    }

    func run() throws {
        if let check { return runCheck(check) }
        guard let raw = kind, let k = CalibrationOptions.Kind(rawValue: raw) else {
            fail("give what to calibrate: mag, accel, gyro or baro")
        }
        let path = board ?? defaultBoardPath()
        let description: BoardDescription
        do { description = try BoardDescription.load(path: path) } catch { fail(error.description) }
        let environment = ProcessInfo.processInfo.environment
        let interactive = !yes && fromTrace == nil && Terminal.isTerminal(.input) && Terminal.isTerminal(.output)
        let dumb = (environment["TERM"] ?? "dumb") == "dumb" || environment["TERM"]?.isEmpty == true
        let style = CalibrationStyle(
            color: CalibrationStyle.colorSupported(isTerminal: interactive, environment: environment), unicode: !dumb)
        let now = Date()
        let options = CalibrationOptions(
            kind: k, board: description,
            outputPath: output ?? CalibrationFiles.defaultOutput(for: description, environment: environment),
            tracePath: fromTrace, interactive: interactive, liveView: interactive && !dumb, style: style, sensorIDs: sensor,
            scenario: scenario, seed: seed, speed: speed, timeoutS: timeout ?? (fromTrace == nil ? 120 : .infinity),
            durationS: duration, latitudeDeg: latitude,
            longitudeDeg: longitude, heightM: height, altitudeMSLM: altitudeM,
            qnhPa: qnhHPa.map { $0 * 100 }, date: Self.timestamp(now))
        let stop = StopSignal.install()
        let out = StandardOutput()
        let prompt = TerminalPrompt(stop: stop)
        do {
            let code = try CalibrationJob(options: options).run(
                input: interactive ? prompt : nil, output: out,
                errors: standardErrorOutput(), clock: SystemClock(),
                shouldStop: { stop.requested })
            out.flush()
            if code != 0 { throw ExitCode(code) }
        } catch let e as JobError {
            out.flush()
            fail(e.message)
        }
    }

    private func runCheck(_ path: String) {
        do {
            let lines = try CalibrationFiles.checkReport(path: path, boardPath: board)
            let out = StandardOutput()
            for line in lines { out.write(line) }
            out.flush()
        } catch { fail(error.message) }
    }

    /// `2026-07-02T10:15:00Z`.
    static func timestamp(_ date: Date) -> String {
        UTCCalendar.iso8601(unixS: date.timeIntervalSince1970.rounded(.down), fractionDigits: 0)
    }
}

/// The terminal as the guided calibration's input.
final class TerminalPrompt: PromptInput {
    private let input = TerminalInput()
    private let stop: StopSignal
    init(stop: StopSignal) { self.stop = stop }
    func pollLine() -> String? { input.pollLine() }
    func waitForLine() -> String? { input.waitForLine { stop.requested } }
}
