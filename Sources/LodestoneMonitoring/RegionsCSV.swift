import LodestoneCore
import LodestoneLocation

/// The regions file of `lodestone replay --regions`: CSV with one region a line, `id,lat_deg,lon_deg,radius_m`
/// (degrees WGS84, metres). A first line whose second field is not a number is a header and is skipped; blank lines
/// and lines starting with `#` are ignored; `\r\n` line ends are accepted. Identifiers are taken as written (no
/// quoting: an identifier cannot hold a comma).
public enum RegionsCSV {
    /// A line of the file that could not be read.
    public struct LineError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line, counted from 1.
        public var line: Int
        /// What is wrong with it.
        public var problem: String

        /// An error at `line` (from 1) saying `problem`.
        public init(line: Int, problem: String) {
            self.line = line; self.problem = problem
        }

        public var description: String { "line \(line): \(problem)" }
    }

    /// The regions of `text`, in file order.
    /// - Throws: `LineError` for the first bad line: wrong field count, a number that does not parse, a region out
    ///   of range (`RegionError`), or an identifier used twice.
    public static func parse(_ text: String) throws(LineError) -> [CircularRegion] {
        var regions: [CircularRegion] = []
        var seen: Set<String> = []
        var lineNumber = 0
        var sawContent = false
        // "\r\n" is one Character in Swift: split on both.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            }
            defer { sawContent = true }
            // The header, if any, is the first line that is not blank or a comment, and its latitude is no number.
            if !sawContent && fields.count >= 2 && Double(fields[1]) == nil { continue }
            guard fields.count == 4 else {
                throw LineError(line: lineNumber, problem: "expected 4 fields id,lat_deg,lon_deg,radius_m, found \(fields.count)")
            }
            guard let lat = Double(fields[1]) else {
                throw LineError(line: lineNumber, problem: "lat_deg \"\(fields[1])\" is not a number")
            }
            guard let lon = Double(fields[2]) else {
                throw LineError(line: lineNumber, problem: "lon_deg \"\(fields[2])\" is not a number")
            }
            guard let radius = Double(fields[3]) else {
                throw LineError(line: lineNumber, problem: "radius_m \"\(fields[3])\" is not a number")
            }
            let region: CircularRegion
            do { region = try CircularRegion(id: fields[0], latitudeDeg: lat, longitudeDeg: lon, radiusM: radius) } catch {
                throw LineError(line: lineNumber, problem: error.description)
            }
            guard seen.insert(region.id).inserted else {
                throw LineError(line: lineNumber, problem: RegionError.duplicate(id: region.id).description)
            }
            regions.append(region)
        }
        return regions
    }
}
