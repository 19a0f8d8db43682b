import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine
import LodestoneLinux

/// The program's entry point (issue 19: the peak RSS of short commands). `lodestone --version` is answered here,
/// before ArgumentParser builds the command tree, with ArgumentParser's output and status (the version on standard
/// output, status 0). Everything else is ArgumentParser's `AsyncParsableCommand.main()` without its first hop to the
/// concurrency runtime's threads: the synchronous commands (`gnss decode`, `geo`, `read`, …) parse and run on the main
/// thread, which no other thread then replaces (no worker threads started, their stacks, the unwinding of the main
/// thread's exit); the asynchronous ones run as before.
@main
enum LodestoneMain {
    static func main() async {
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(Lodestone.version)
            exitProcess(0)
        }
        // ArgumentParser's AsyncParsableCommand.main() without its hop: the parse (no asynchronous completions here) and a
        // synchronous command run on the main thread, so that they start none of the concurrency runtime's threads.
        do {
            var command = try LodestoneCommand.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            LodestoneCommand.exit(withError: error)
        }
    }
}

struct LodestoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lodestone",
        abstract: "Sensor fusion for Linux boards: magnetometers, barometers, IMUs and GNSS on real buses.",
        version: Lodestone.version,
        subcommands: [
            Run.self, Serve.self, Watch.self, Clients.self, Monitor.self, History.self, Read.self, Scan.self, Replay.self,
            Geo.self, Gnss.self, Calibrate.self
        ],
        defaultSubcommand: nil)
}

/// Prints one line to standard error and exits with `code`: the single way commands report a failure.
func fail(_ message: String, code: Int32 = 1) -> Never {
    StandardStream.error.print("lodestone: " + CommandLineWording.naming(message) + "\n")
    exitProcess(code)
}

/// A line output on standard error.
func standardErrorOutput() -> LineOutput { StandardOutput(stream: .error) }

/// The board file to use when `--board` is not given, from any working directory: `$LODESTONE_BOARD`,
/// `/etc/lodestone/board.json`, the installed data directory, the checkout this executable was built in, then
/// `boards/` in the working directory (``BoardLocator``). Fails with one line listing the places tried.
func defaultBoardPath() -> String {
    do { return try BoardLocator.defaultBoardPath() } catch { fail(error.description) }
}
