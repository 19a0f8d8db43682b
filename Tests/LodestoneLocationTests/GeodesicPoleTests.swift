import LodestoneLocation
import Testing

/// Points within 1e-12° … 1e-5° of a pole (0.1 mm … 1 m) and exactly at it, against GeographicLib 2.1
/// (`Tests/Oracles/geodesic-poles.csv`): paired with points anywhere, with each other near the same pole,
/// across to the other pole (nearly antipodal), and the direct problem leaving from near a pole.
@Suite struct GeodesicPoleTests {
    let geodesic = Geodesic.wgs84

    /// Distances within 1 mm and azimuths within 1e-6° of GeographicLib. As in the other tables, a line shorter
    /// than a metre has azimuths set by the last bits of its inputs (GeographicLib's double-precision answer is
    /// itself off by ~1 nm / s12 rad there), so the azimuth tolerance is 1e-6° + (1 nm / s12) rad.
    @Test func inverseNearThePolesMatchesGeographicLib() throws {
        var worstDistance = 0.0, worstAzimuth = 0.0, worstArc = 0.0
        var failures: [String] = []
        let rows = try OracleTables.rows("geodesic-poles.csv").filter { $0["problem"] == "inverse" }
        #expect(rows.count >= 200)
        for row in rows {
            let r = try #require(
                geodesic.inverse(
                    latitude1Deg: row.number("lat1"), longitude1Deg: row.number("lon1"),
                    latitude2Deg: row.number("lat2"), longitude2Deg: row.number("lon2")))
            let s12 = row.number("s12_m")
            let ds = abs(r.distanceM - s12)
            let azimuthError = max(
                angleDifferenceDeg(r.initialAzimuthDeg, row.number("azi1_deg")),
                angleDifferenceDeg(r.finalAzimuthDeg, row.number("azi2_deg")))
            let tolerance = 1e-6 + 1e-9 / max(s12, 1e-300) * 180 / Double.pi
            if ds > 1e-3 || azimuthError > tolerance {
                failures.append(
                    "\(row["kind"]!) \(row["lat1"]!),\(row["lon1"]!) → \(row["lat2"]!),\(row["lon2"]!): Δs \(ds) m, Δazi \(azimuthError)°"
                )
            }
            worstDistance = max(worstDistance, ds)
            if s12 >= 1 { worstAzimuth = max(worstAzimuth, azimuthError) }
            worstArc = max(worstArc, abs(r.arcLengthDeg - row.number("a12_deg")))
        }
        print(
            "inverse near the poles vs GeographicLib (\(rows.count) cases): max |Δs12| \(worstDistance) m, "
                + "max |Δazi| \(worstAzimuth)° (lines ≥ 1 m), max |Δa12| \(worstArc)°, \(failures.count) outside 1 mm / 1e-6°")
        #expect(failures.isEmpty, "\(failures.count): \(failures.prefix(5).joined(separator: "; "))")
    }

    /// The end point within 1 mm of GeographicLib's and its azimuth within 1e-6° (where the end point is not
    /// at a pole, where the azimuth depends on the longitude convention).
    @Test func directFromNearThePolesMatchesGeographicLib() throws {
        var worstPosition = 0.0, worstAzimuth = 0.0
        var failures: [String] = []
        let rows = try OracleTables.rows("geodesic-poles.csv").filter { $0["problem"] == "direct" }
        #expect(rows.count >= 150)
        for row in rows {
            let r = try directAgainstOracle(geodesic, row, azimuthColumn: "azi1_deg", azimuthBelowLatitudeDeg: 90)
            let azimuthError = r.azimuthErrorDeg ?? 0
            if r.gapM > 1e-3 || azimuthError > 1e-6 {
                failures.append(
                    "\(row["kind"]!) \(row["lat1"]!),\(row["lon1"]!) azi \(row["azi1_deg"]!) s \(row["s12_m"]!): gap \(r.gapM) m, Δazi2 \(azimuthError)°"
                )
            }
            worstPosition = max(worstPosition, r.gapM)
            worstAzimuth = max(worstAzimuth, azimuthError)
        }
        print(
            "direct from near the poles vs GeographicLib (\(rows.count) cases): max position gap \(worstPosition) m, "
                + "max |Δazi2| \(worstAzimuth)°, \(failures.count) outside 1 mm / 1e-6°")
        #expect(failures.isEmpty, "\(failures.count): \(failures.prefix(5).joined(separator: "; "))")
    }
}
