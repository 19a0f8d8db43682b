import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine
import LodestoneLinux

struct Geo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Geodesy and geomagnetism calculators (CSV on standard input, CSV on standard output).",
        subcommands: [Declination.self, Inverse.self, Direct.self, Area.self])

    struct Declination: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Magnetic declination, inclination and field from the World Magnetic Model (WMM2025).",
            discussion: """
                Reads rows decimal_year,lat_deg,lon_deg,height_km (geodetic WGS84; height above the ellipsoid) and \
                writes \(DeclinationJob.outputHeader.replacing(",", with: ", ")). GV_deg is empty \
                where grid variation is undefined (|lat| < 55°). The model is valid from 2024-11-13 to 2030.0. Bad rows \
                are reported on standard error with their line number; the exit status is then 1.
                """)

        func run() throws {
            try runCSVCalculator("geo declination") { text, emit, report in
                DeclinationJob().run(text: text, emit: emit, report: report)
            }
        }
    }

    struct Inverse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Distance and azimuths between two points on WGS84 (the inverse geodesic problem).",
            discussion: """
                Reads rows lat1,lon1,lat2,lon2 (degrees) and writes s12_m,azi1_deg,azi2_deg: the length of the \
                shortest geodesic and its azimuths at both points (degrees clockwise from north, (-180, 180]; azi2 is \
                the direction of travel at the second point). Karney's algorithm: within nanometres of GeographicLib, \
                nearly antipodal points included. \(GeoHelp.rows)
                """)

        func run() throws { try runGeodesic(.inverse) }
    }

    struct Direct: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The point at a distance and azimuth from a point on WGS84 (the direct geodesic problem).",
            discussion: """
                Reads rows lat1,lon1,azi1_deg,s12_m and writes lat2,lon2,azi2_deg: where the geodesic leaving \
                (lat1, lon1) on azimuth azi1 (degrees clockwise from north) ends after s12 metres (negative: \
                backwards), and its azimuth there. \(GeoHelp.rows)
                """)

        func run() throws { try runGeodesic(.direct) }
    }

    struct Area: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Area and perimeter of geodesic polygons on WGS84.",
            discussion: """
                Reads one polygon per row as vertices "lat lon;lat lon;..." (degrees, at least 3; the ring closes \
                back to the first vertex; edges are geodesics) and writes area_m2,perimeter_m. The area is the region \
                the ring encloses whichever way it runs; polygons may cross the antimeridian or contain a pole. \
                \(GeoHelp.rows)
                """)

        func run() throws { try runGeodesic(.area) }
    }
}

enum GeoHelp {
    static let rows = """
        A first row that is not numbers is taken as a header; blank lines and # comments are skipped. A bad row \
        is reported on standard error with its line number and gives an empty output row, so output rows stay \
        aligned with input rows; the exit status is then 1.
        """
}

/// Runs a geodesic job on standard input.
private func runGeodesic(_ problem: GeodesicJob.Problem) throws {
    try runCSVCalculator("geo \(problem.rawValue)") { text, emit, report in
        GeodesicJob(problem: problem).run(text: text, emit: emit, report: report)
    }
}

/// Reads standard input, runs `job` over it, writes its lines to standard output and its problems to standard
/// error (prefixed with the command), and exits 1 when a row was bad.
private func runCSVCalculator(
    _ command: String,
    _ job: (String, (String) -> Void, (String) -> Void) -> Int
) throws {
    let data: [UInt8]
    do { data = try StandardStream.input.readAll() } catch { fail("\(command): \(error.description)") }
    let out = StandardOutput()
    var problems: [String] = []
    let bad = job(String(decoding: data, as: UTF8.self), { out.write($0) }, { problems.append($0) })
    out.flush()
    for p in problems { StandardStream.error.print("lodestone: \(command): " + p + "\n") }
    if bad > 0 { throw ExitCode(1) }
}
