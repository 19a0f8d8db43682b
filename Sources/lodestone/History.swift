import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneDaemon
import LodestoneLinux
import LodestoneService

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The motion history through the daemon: steps or activity segments between two times (the last 7 days).",
        discussion: """
            T is ISO 8601 UTC (2026-07-02T12:00:00Z, 2026-07-02T12:00, 2026-07-02), a time before now (-2h, -30m, \
            -45s, -7d), now, or Unix seconds.
            """,
        subcommands: [Steps.self, Activity.self])

    struct Span: ParsableArguments {
        @Option(help: ArgumentHelp("Start.", valueName: "T")) var from: String
        @Option(help: ArgumentHelp("End (default: now).", valueName: "T")) var to: String = "now"
        @Option(help: "The daemon's socket.") var socket: String = DaemonDefaults.socketPath
        @Flag(help: "The daemon's HISTORY line as JSON.") var json = false

        func validate() throws {
            let now = RealtimeClock.unixS()
            guard let f = HistoryTime.unixS(from, nowUnixS: now) else {
                throw ValidationError("--from \(from) is not a time: use ISO 8601 UTC, -2h/-30m, now or Unix seconds")
            }
            guard let t = HistoryTime.unixS(to, nowUnixS: now) else {
                throw ValidationError("--to \(to) is not a time: use ISO 8601 UTC, -2h/-30m, now or Unix seconds")
            }
            if f > t { throw ValidationError("--from \(from) is after --to \(to)") }
        }

        func run(_ kind: NativeProtocol.HistoryRequest.Kind) async throws {
            let now = RealtimeClock.unixS()
            let job = HistoryJob(
                socketPath: socket, kind: kind, fromUnixS: HistoryTime.unixS(from, nowUnixS: now) ?? now,
                toUnixS: HistoryTime.unixS(to, nowUnixS: now) ?? now, json: json)
            let code = await job.run { line in
                StandardStream.output.print(line + "\n")
            } errors: { line in
                StandardStream.error.print("lodestone: " + line + "\n")
            }
            if code != 0 { throw ExitCode(code) }
        }
    }

    struct Steps: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Steps, distance and floors between two times.")
        @OptionGroup var span: Span
        func run() async throws { try await span.run(.steps) }
    }

    struct Activity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Activity segments between two times, each as it began.")
        @OptionGroup var span: Span
        func run() async throws { try await span.run(.activity) }
    }
}
