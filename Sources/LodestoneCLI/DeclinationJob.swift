import LodestoneCore
import LodestoneEngine
import LodestoneGeomagnetism

/// `lodestone geo declination`: the World Magnetic Model (WMM2025) for each input row, like NOAA's calculator.
///
/// Input rows: `decimal_year,lat_deg,lon_deg,height_km` (geodetic latitude and longitude on WGS84, height above
/// the ellipsoid in km). A header row whose first cell is not a number is skipped; blank lines and `#` comments
/// are ignored. Output rows:
/// `decimal_year,lat_deg,lon_deg,height_km,D_deg,I_deg,H_nT,X_nT,Y_nT,Z_nT,F_nT,GV_deg` (GV empty where grid
/// variation is not defined, |lat| < 55°). A bad row is reported with its line number and skipped; every
/// good row is still written.
public struct DeclinationJob {
    public static let outputHeader = "decimal_year,lat_deg,lon_deg,height_km,D_deg,I_deg,H_nT,X_nT,Y_nT,Z_nT,F_nT,GV_deg"

    public var model: WorldMagneticModel

    public init(model: WorldMagneticModel = .wmm2025) { self.model = model }

    /// Processes `text`, calling `emit` for each output line (header first) and `report` for each bad row
    /// (`line N: problem`). Returns the number of bad rows.
    @discardableResult
    public func run(text: String, emit: (String) -> Void, report: (String) -> Void) -> Int {
        emit(Self.outputHeader)
        var bad = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let line = raw.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
            if lineNumber == 1, let first = cells.first, Double(first) == nil { continue } // header
            guard cells.count == 4 else {
                report("line \(lineNumber): \(cells.count) fields; expected decimal_year,lat_deg,lon_deg,height_km")
                bad += 1
                continue
            }
            let names = ["decimal_year", "lat_deg", "lon_deg", "height_km"]
            var values: [Double] = []
            for (cell, name) in zip(cells, names) {
                guard let v = Double(cell), v.isFinite else {
                    report("line \(lineNumber): \(name) \"\(cell)\" is not a number")
                    break
                }
                values.append(v)
            }
            guard values.count == 4 else { bad += 1; continue }
            do {
                let e = try model.elements(
                    latitudeDeg: values[1], longitudeDeg: values[2], heightKm: values[3], decimalYear: values[0])
                var row: [String] = cells.map(String.init)
                row.append(formatFixed(e.declinationDeg, digits: 6))
                row.append(formatFixed(e.inclinationDeg, digits: 6))
                for nT in [e.horizontalNT, e.northNT, e.eastNT, e.downNT, e.totalNT] { row.append(formatFixed(nT, digits: 3)) }
                row.append(e.gridVariationDeg.map { formatFixed($0, digits: 6) } ?? "")
                emit(row.joined(separator: ","))
            } catch {
                report("line \(lineNumber): \(error.description)")
                bad += 1
            }
        }
        return bad
    }
}
