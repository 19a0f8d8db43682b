import ArgumentParser
import Foundation
import LodestoneEngine

struct Geo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Geodesy and geomagnetism calculators (CSV on standard input, CSV on standard output).",
        subcommands: [Declination.self])

    struct Declination: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Magnetic declination, inclination and field from the World Magnetic Model (WMM2025).",
            discussion: """
            Reads rows decimal_year,lat_deg,lon_deg,height_km (geodetic WGS84; height above the ellipsoid) and \
            writes \(DeclinationJob.outputHeader.replacingOccurrences(of: ",", with: ", ")). GV_deg is empty \
            where grid variation is undefined (|lat| < 55°). The model is valid from 2024-11-13 to 2030.0. Bad rows \
            are reported on standard error with their line number; the exit status is then 1.
            """)

        func run() throws {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            let out = StandardOutput()
            var problems: [String] = []
            let bad = DeclinationJob().run(text: String(decoding: data, as: UTF8.self), emit: { out.write($0) }, report: { problems.append($0) })
            out.flush()
            for p in problems { FileHandle.standardError.write(Data(("lodestone: geo declination: " + p + "\n").utf8)) }
            if bad > 0 { throw ExitCode(1) }
        }
    }
}
