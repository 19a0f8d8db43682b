import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneDaemon
import LodestoneEngine
import LodestoneFleet
import LodestoneLinux
import LodestoneScheduler
import LodestoneLog

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Own the board and serve it: the native protocol on a Unix socket, gpsd's JSON protocol on TCP.",
        discussion: """
            One session, many clients. Programs use LodestoneClient (Swift) or any gpsd client (gpspipe, cgps, \
            python3-gps, libgps). What each client may see is decided by the policy file (docs/policy.md) from its \
            peer credentials; the gpsd endpoint has none and gets --gpsd-access (default: the policy's [gpsd], shipped \
            reduced). SIGHUP reloads the policy, SIGTERM stops. Under systemd (docs/systemd.md) it takes its sockets \
            from socket activation and reports READY, STATUS and WATCHDOG.
            """)

    @Option(help: "Board file (default: $LODESTONE_BOARD, /etc/lodestone/board.json, else the shipped simulated board).")
    var board: String?
    @Option(help: "The native protocol's Unix socket.") var socket: String = DaemonDefaults.socketPath
    @Option(
        name: .customLong("gpsd-listen"),
        help: ArgumentHelp("gpsd endpoint HOST:PORT (repeatable; `none`: no gpsd endpoint).", valueName: "ADDR:PORT"))
    var gpsdListen: [String] = []
    @Option(help: "Policy file (default \(DaemonDefaults.policyPath); when absent there, the shipped policy).")
    var policy: String?
    @Option(
        name: .customLong("state-dir"),
        help: """
            Persistent state: monitors, their undelivered events, the motion history (default \(DaemonDefaults.stateDirectory); \
            when that cannot be written, monitors last only while the daemon runs).
            """)
    var stateDir: String?
    @Option(
        name: .customLong("gpsd-access"),
        help: """
            What gpsd clients may see: full (exact positions and attitude), reduced (approximate positions, as the \
            shipped [gpsd]) or denied (overrides the policy's [gpsd]).
            """)
    var gpsdAccess: String?
    @Option(
        help: ArgumentHelp(
            "Publish to this MQTT broker (mqtt://[user[:password]@]host[:port] or mqtts://…; docs/fleet.md).",
            valueName: "URL"))
    var mqtt: String?
    @Option(
        name: .customLong("mqtt-config"),
        help: "The fleet link's settings (default \(DaemonDefaults.mqttConfigPath); when present there, the link is on).")
    var mqttConfig: String?
    @Option(help: "Scenario of the simulated board.") var scenario: String?
    @Option(help: "Simulated board only: 1 = real time, 10 = ten times faster.") var speed: Double = 1
    @Option(help: "Seed of the simulated board's noise.") var seed: UInt64 = 1
    @OptionGroup var calibration: CalibrationSelection

    func validate() throws {
        if let a = gpsdAccess, !["full", "reduced", "denied"].contains(a) {
            throw ValidationError("--gpsd-access \(a) is unknown; allowed: full, reduced, denied")
        }
        if !(speed > 0 && speed.isFinite) { throw ValidationError("--speed must be a positive factor") }
        if let s = scenario, !BoardRuntime.scenarioNames.contains(s) {
            throw ValidationError("--scenario \(s) is unknown; allowed: " + BoardRuntime.scenarioNames.joined(separator: ", "))
        }
        if let m = mqtt, !(m.hasPrefix("mqtt://") || m.hasPrefix("mqtts://")) {
            throw ValidationError("--mqtt \(m): expected mqtt://[user[:password]@]host[:port] or mqtts://…")
        }
        for a in gpsdListen where a != "none" && !a.contains(":") {
            throw ValidationError("--gpsd-listen \(a): expected HOST:PORT, e.g. 127.0.0.1:2947 or [::1]:2947, or none")
        }
    }

    func run() async throws {
        let logger = DaemonLogging.bootstrap()
        let path = board ?? defaultBoardPath()
        let description: BoardDescription
        do { description = try BoardDescription.load(path: path) } catch { fail(error.description) }
        var session = SessionConfiguration(board: description, scenario: scenario, seed: seed, speed: speed)
        session.fusion.calibration = calibration.configuration(board: description)
        // Monitors, their events and the motion history (issue 16). A user trying the daemon from a checkout cannot write
        // the system's default: it serves on without persistence, and says so; a directory given that fails is an error.
        let stateDir = self.stateDir ?? DaemonDefaults.stateDirectory
        session.stateDirectory = stateDir
        if self.stateDir == nil && !Self.isWritableDirectory(stateDir) {
            logger.warning(
                "cannot write the state directory \(stateDir): monitors and their events last only while the daemon runs; pass --state-dir DIR to keep them"
            )
            session.stateDirectory = nil
        }
        var daemon = DaemonConfiguration(
            socketPath: socket,
            gpsdListen: gpsdListen.isEmpty ? DaemonDefaults.gpsdListen : gpsdListen.filter { $0 != "none" },
            policyPath: policy ?? DaemonDefaults.policyPath, policyIsExplicit: policy != nil, stateDirectory: stateDir)
        if let a = gpsdAccess {
            // Attitude (motion) only with full: every local user can connect to the endpoint, and reduced means what the
            // shipped [gpsd] gives them (docs/policy.md, "The gpsd endpoint").
            daemon.gpsdAccess = Authorization(
                location: a == "denied" ? .denied : .whenInUse, accuracy: a == "full" ? .full : .reduced, motion: a == "full",
                decidedBy: "--gpsd-access \(a)")
        }
        // The fleet link (issue 20): on with --mqtt or --mqtt-config, or when the default settings file exists.
        var fleet: FleetConfiguration?
        let fleetPath = mqttConfig ?? DaemonDefaults.mqttConfigPath
        if mqtt != nil || mqttConfig != nil || FileManager.default.fileExists(atPath: fleetPath) {
            do { fleet = try FleetConfigurationFile.load(path: fleetPath, explicit: mqttConfig != nil, url: mqtt) } catch {
                fail("fleet: \(error)")
            }
        }
        let stall = ProcessInfo.processInfo.environment["LODESTONE_TEST_STALL_ENGINE_AFTER_S"].flatMap(Double.init)
        let code = await ServeJob(session: session, daemon: daemon, stallEngineAfterS: stall, fleet: fleet).run(logger: logger)
        if code != 0 { throw ExitCode(code) }
    }
}

extension Serve {
    /// Whether `path` is (or can be made) a directory this process may write in.
    static func isWritableDirectory(_ path: String) -> Bool {
        guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil else {
            return false
        }
        return FileManager.default.isWritableFile(atPath: path)
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what the daemon serves (a client of lodestone serve, like any program).",
        discussion: "Without a kind: location. --json prints the daemon's lines as they come (the native protocol).")

    @Option(help: "The daemon's socket.") var socket: String = DaemonDefaults.socketPath
    @Flag(help: "Live locations.") var location = false
    @Flag(help: "Headings.") var heading = false
    @Flag(help: "Device motion.") var motion = false
    @Flag(help: "Activity.") var activity = false
    @Flag(help: "Pedometer.") var pedometer = false
    @Flag(help: "Altitude.") var altitude = false
    @Option(help: "Location accuracy: \(DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", ")).") var accuracy: String?
    @Option(help: "Stop after this many updates.") var count: Int?
    @Flag(help: "One JSON object per line (the native protocol's UPDATE lines).") var json = false

    func validate() throws {
        if let a = accuracy, DesiredAccuracy(rawValue: a) == nil {
            throw ValidationError(
                "--accuracy \(a) is unknown; allowed: " + DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if let c = count, c <= 0 { throw ValidationError("--count must be positive") }
    }

    func run() async throws {
        var kinds: [SubscriptionSpec.Kind] = []
        if location { kinds.append(.location) }
        if heading { kinds.append(.heading) }
        if motion { kinds.append(.motion) }
        if activity { kinds.append(.activity) }
        if pedometer { kinds.append(.pedometer) }
        if altitude { kinds.append(.altitude) }
        if kinds.isEmpty { kinds = [.location] }
        let code = await WatchJob(
            socketPath: socket, kinds: kinds, desiredAccuracy: accuracy.flatMap(DesiredAccuracy.init(rawValue:)), count: count,
            json: json
        ).run { line in
            StandardStream.output.print(line + "\n")
        } errors: { line in
            StandardStream.error.print("lodestone: " + line + "\n")
        }
        if code != 0 { throw ExitCode(code) }
    }
}

struct Clients: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the daemon's clients: identity, authorization and demands (root or the daemon's user).")
    @Option(help: "The daemon's socket.") var socket: String = DaemonDefaults.socketPath
    @Flag(help: "The daemon's CLIENTS line as JSON.") var json = false

    func run() async throws {
        let code = await ClientsJob(socketPath: socket, json: json).run { line in
            StandardStream.output.print(line + "\n")
        } errors: { line in
            StandardStream.error.print("lodestone: " + line + "\n")
        }
        if code != 0 { throw ExitCode(code) }
    }
}
