import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneDaemon
import LodestoneLinux

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Region monitors through the daemon: add and remove conditions, list them, print their events.",
        discussion: """
            A monitor is a named set of circular regions, kept by the daemon for this user (its uid) across restarts \
            when the policy gives it location `always`; with `when-in-use` it ends with the connection. Events are \
            kept until acknowledged (`monitor events NAME --ack`).
            """,
        subcommands: [Add.self, Remove.self, List.self, Events.self])

    struct Connection: ParsableArguments {
        @Option(help: "The daemon's socket.") var socket: String = DaemonDefaults.socketPath
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add (or replace, by --id) a circular region to a monitor.")
        @Argument(help: "The monitor's name.") var name: String
        @Option(help: "The condition's identifier, unique in the monitor.") var id: String
        @Option(help: "Centre latitude, deg (WGS84).") var lat: Double
        @Option(help: "Centre longitude, deg (WGS84).") var lon: Double
        @Option(help: "Radius, m (1 to 100000).") var radius: Double
        @OptionGroup var connection: Connection

        func run() async throws {
            try await runJob(
                MonitorJob(
                    socketPath: connection.socket,
                    action: .add(monitor: name, conditionId: id, latitudeDeg: lat, longitudeDeg: lon, radiusM: radius)))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a condition (--id) or the whole monitor.")
        @Argument(help: "The monitor's name.") var name: String
        @Option(help: "The condition to remove (default: the monitor with all its conditions and events).") var id: String?
        @OptionGroup var connection: Connection

        func run() async throws {
            try await runJob(MonitorJob(socketPath: connection.socket, action: .remove(monitor: name, conditionId: id)))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The conditions of a monitor (default: of every monitor), with their states.")
        @Argument(help: "The monitor's name.") var name: String?
        @Flag(help: "One JSON object per condition (docs/wire.md).") var json = false
        @OptionGroup var connection: Connection

        func run() async throws {
            try await runJob(MonitorJob(socketPath: connection.socket, action: .list(monitor: name), json: json))
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a monitor's events: the unacknowledged ones first, in order, then each new one.")
        @Argument(help: "The monitor's name.") var name: String
        @Flag(help: "Acknowledge each event once printed (it is not sent again).") var ack = false
        @Option(help: "Stop after this many events.") var count: Int?
        @Option(help: "Stop after this many seconds.") var timeout: Double?
        @Flag(help: "One JSON object per event (the daemon's EVENT lines).") var json = false
        @OptionGroup var connection: Connection

        func validate() throws {
            if let c = count, c <= 0 { throw ValidationError("--count must be positive") }
            if let t = timeout, !(t > 0 && t.isFinite) { throw ValidationError("--timeout must be a positive number of seconds") }
        }

        func run() async throws {
            try await runJob(
                MonitorJob(
                    socketPath: connection.socket,
                    action: .events(monitor: name, acknowledge: ack, count: count, timeoutS: timeout), json: json))
        }
    }
}

/// Runs a monitor job with standard output and error; exits non-zero when it failed.
private func runJob(_ job: MonitorJob) async throws {
    let code = await job.run { line in
        StandardStream.output.print(line + "\n")
    } errors: { line in
        StandardStream.error.print("lodestone: " + line + "\n")
    }
    if code != 0 { throw ExitCode(code) }
}
