import LodestoneCore
import LodestoneEngine
import LodestoneLocation

/// `lodestone geo inverse|direct|area`: geodesic problems on WGS84 over CSV, one output row per input row.
///
/// - `inverse`: rows `lat1,lon1,lat2,lon2` (degrees) → `s12_m,azi1_deg,azi2_deg` (distance, azimuths at both
///   ends, degrees clockwise from north in (−180, 180]; azi2 is the direction of travel at the second point).
/// - `direct`: rows `lat1,lon1,azi1_deg,s12_m` → `lat2,lon2,azi2_deg`.
/// - `area`: one polygon per row, vertices `lat lon;lat lon;…` (at least 3; a closing repeat of the first vertex
///   is ignored) → `area_m2,perimeter_m`.
///
/// A first row whose first cell is not a number is a header and skipped; blank lines and `#` comments are
/// skipped. A bad row is reported with its line number and gives an empty output row (so output rows stay
/// aligned with input rows); every good row is still computed. Results are Karney's algorithms
/// (`LodestoneLocation.Geodesic`), within nanometres of GeographicLib.
public struct GeodesicJob {
    /// Which problem.
    public enum Problem: String, Sendable, CaseIterable {
        case inverse, direct, area

        /// The input columns (for messages and help).
        public var inputColumns: [String] {
            switch self {
            case .inverse: ["lat1", "lon1", "lat2", "lon2"]
            case .direct: ["lat1", "lon1", "azi1_deg", "s12_m"]
            case .area: ["vertices"]
            }
        }

        /// The output header.
        public var outputHeader: String {
            switch self {
            case .inverse: "s12_m,azi1_deg,azi2_deg"
            case .direct: "lat2,lon2,azi2_deg"
            case .area: "area_m2,perimeter_m"
            }
        }
    }

    /// Which problem, on which ellipsoid (WGS84 by default).
    public var problem: Problem
    public var geodesic: Geodesic

    public init(problem: Problem, geodesic: Geodesic = .wgs84) {
        self.problem = problem
        self.geodesic = geodesic
    }

    /// Processes `text`, calling `emit` for each output line (header first) and `report` for each bad row
    /// (`line N: problem`). Returns the number of bad rows.
    @discardableResult
    public func run(text: String, emit: (String) -> Void, report: (String) -> Void) -> Int {
        emit(problem.outputHeader)
        let empty = String(repeating: ",", count: problem.outputHeader.filter { $0 == "," }.count)
        var bad = 0
        var sawData = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") { continue }
            if !sawData {
                sawData = true
                let first = line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == ";" }).first ?? ""
                if Double(first) == nil { continue } // a header row
            }
            switch compute(line) {
            case .success(let out): emit(out)
            case .failure(let problem):
                report("line \(index + 1): \(problem.message)")
                emit(empty)
                bad += 1
            }
        }
        return bad
    }

    struct RowError: Error { var message: String }

    func compute(_ line: Substring) -> Result<String, RowError> {
        switch problem {
        case .inverse, .direct:
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
            guard cells.count == 4 else {
                return .failure(
                    RowError(message: "\(cells.count) fields; expected " + problem.inputColumns.joined(separator: ",")))
            }
            var v: [Double] = []
            for (cell, name) in zip(cells, problem.inputColumns) {
                guard let x = Double(cell), x.isFinite else {
                    return .failure(RowError(message: "\(name) \"\(cell)\" is not a number"))
                }
                v.append(x)
            }
            for (k, name) in problem.inputColumns.enumerated() where name.hasPrefix("lat") && abs(v[k]) > 90 {
                return .failure(RowError(message: "\(name) \(cells[k]) is outside [-90, 90]"))
            }
            if problem == .inverse {
                guard let r = geodesic.inverse(latitude1Deg: v[0], longitude1Deg: v[1], latitude2Deg: v[2], longitude2Deg: v[3])
                else {
                    return .failure(RowError(message: "no solution"))
                }
                return .success(
                    formatFixed(r.distanceM, digits: 6) + "," + formatFixed(r.initialAzimuthDeg, digits: 10)
                        + "," + formatFixed(r.finalAzimuthDeg, digits: 10))
            }
            guard let p = geodesic.direct(latitudeDeg: v[0], longitudeDeg: v[1], azimuthDeg: v[2], distanceM: v[3]) else {
                return .failure(RowError(message: "no solution"))
            }
            return .success(
                formatFixed(p.latitudeDeg, digits: 11) + "," + formatFixed(p.longitudeDeg, digits: 11)
                    + "," + formatFixed(p.azimuthDeg, digits: 10))
        case .area:
            var vertices: [Coordinate] = []
            for (k, pair) in line.split(separator: ";").enumerated() {
                let numbers = pair.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
                guard numbers.count == 2, let lat = Double(numbers[0]), let lon = Double(numbers[1]),
                    lat.isFinite, lon.isFinite
                else {
                    return .failure(
                        RowError(message: "vertex \(k + 1) \"\(pair.trimmingWhitespace)\" is not \"lat lon\" in degrees"))
                }
                guard abs(lat) <= 90 else {
                    return .failure(RowError(message: "vertex \(k + 1): latitude \(numbers[0]) is outside [-90, 90]"))
                }
                vertices.append(Coordinate(latitudeDeg: lat, longitudeDeg: lon))
            }
            if vertices.count > 3, let first = vertices.first, let last = vertices.last, first == last { vertices.removeLast() }
            guard vertices.count >= 3 else {
                return .failure(
                    RowError(message: "\(vertices.count) vertices; a polygon needs at least 3 (\"lat lon;lat lon;lat lon\")"))
            }
            guard let m = geodesic.polygon(vertices) else { return .failure(RowError(message: "no solution")) }
            return .success(formatFixed(m.areaM2, digits: 3) + "," + formatFixed(m.perimeterM, digits: 6))
        }
    }
}
