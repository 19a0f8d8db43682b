import ArgumentParser
import Foundation
import LodestoneCLI
import LodestoneEngine

@main
struct LodestoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lodestone",
        abstract: "Sensor fusion for Linux boards: magnetometers, barometers, IMUs and GNSS on real buses.",
        version: Lodestone.version,
        subcommands: [Run.self, Read.self, Scan.self, Replay.self, Geo.self, Gnss.self, Calibrate.self],
        defaultSubcommand: nil)
}

/// Prints one line to standard error and exits with `code`: the single way commands report a failure.
func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data(("lodestone: " + CommandLineWording.naming(message) + "\n").utf8))
    Foundation.exit(code)
}

/// A line output on standard error.
func standardErrorOutput() -> LineOutput { StandardOutput(handle: .standardError) }

/// Where the shipped board files are: next to the executable's repository when run from a checkout,
/// else `/usr/share/lodestone/boards`.
func defaultBoardPath() -> String {
    let candidates = [
        FileManager.default.currentDirectoryPath + "/boards/simulated.json",
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("../../../boards/simulated.json").standardized.path,
        "/usr/share/lodestone/boards/simulated.json",
    ]
    return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
}
