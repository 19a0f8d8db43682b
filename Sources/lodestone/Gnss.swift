import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine
import LodestoneLinux

struct Gnss: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gnss",
        abstract: "GNSS receiver tools.",
        subcommands: [Decode.self])

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a receiver log (NMEA 0183, u-blox UBX) into one fix per epoch.",
            discussion: """
                LOG is raw receiver output, plain or .gz: NMEA 0183 sentences and UBX frames, mixed; '#' comment lines \
                and gpsd JSON lines are skipped ('# Date: yyyy-mm-dd' sets the century of two-digit years). Epochs are \
                assembled as gpsd assembles them. With --json each line is a gpsd-style object: TPV once per epoch \
                (mode, status, time, lat, lon, altHAE, altMSL, speed, track, climb, eph, epv, ept), SKY when a \
                satellite view completes, ATT for a true heading. Bad sentences are counted by reason and skipped; the \
                summary is printed on standard error.
                """)

        @Option(help: "The receiver log.") var input: String
        @Flag(help: "gpsd-style JSON objects, one per line.") var json = false

        func run() throws {
            let out = StandardOutput()
            do {
                let summary = try GNSSDecodeJob(json: json).run(path: input) { out.write($0) }
                out.flush()
                StandardStream.error.print("lodestone: gnss decode: \(input): \(summary.description)\n")
            } catch {
                out.flush()
                fail("gnss decode: \(error.description)")
            }
        }
    }
}
