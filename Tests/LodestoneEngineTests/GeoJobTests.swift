import Foundation
@testable import LodestoneCLI
import LodestoneEngine
import Testing

@Suite struct GeoJobTests {
    func run(_ problem: GeodesicJob.Problem, _ text: String) -> (lines: [String], problems: [String], bad: Int) {
        var lines: [String] = [], problems: [String] = []
        let bad = GeodesicJob(problem: problem).run(text: text, emit: { lines.append($0) }, report: { problems.append($0) })
        return (lines, problems, bad)
    }

    /// Values from GeographicLib 2.1 (`Geodesic.WGS84.Inverse(40.64, -73.78, 1.36, 103.99)`: JFK to Singapore
    /// Changi; `Direct(40.64, -73.78, 3.3057734780, 15347512.940513)`).
    @Test func inverseAndDirectGiveGeographicLibsAnswer() throws {
        let inverse = run(.inverse, "lat1,lon1,lat2,lon2\n40.64,-73.78,1.36,103.99\n")
        #expect(inverse.lines == ["s12_m,azi1_deg,azi2_deg", "15347512.940513,3.3057734780,177.4878402082"])
        let direct = run(.direct, "40.64,-73.78,3.3057734780,15347512.940513\n")
        let cells = try #require(direct.lines.last).split(separator: ",").compactMap { Double($0) }
        #expect(abs(cells[0] - 1.36) < 1e-9 && abs(cells[1] - 103.99) < 1e-9)
    }

    @Test func areaOfAnOctantIsAnEighthOfTheEllipsoid() throws {
        let r = run(.area, "0 0;0 90;90 0\n")
        let cells = try #require(r.lines.last).split(separator: ",").compactMap { Double($0) }
        // 4πc²/8 with c the WGS84 authalic radius (GeographicLib: 63 758 202 715 511.06 m²).
        #expect(abs(cells[0] - 63_758_202_715_511.06) < 0.1)
        #expect(abs(cells[1] - 30_022_685.630_020) < 1e-5)
    }

    /// Bad input: every bad row is named with its line and what is wrong, gives an empty output row (so rows
    /// stay aligned), and the good rows around it are still computed.
    @Test func badRowsAreReportedAndKeepAlignment() {
        let r = run(
            .inverse,
            """
            # comment
            lat1,lon1,lat2,lon2
            0,0,1,1
            91,0,0,0
            0,0,x,0
            0,0,1

            0,0,0,1
            """)
        #expect(r.bad == 3)
        #expect(r.lines.count == 6) // header + 5 data rows (comment, header and blank skipped)
        #expect(r.lines[2] == ",," && r.lines[3] == ",," && r.lines[4] == ",,")
        #expect(r.lines[1].hasPrefix("156899.56") && r.lines[5].hasPrefix("111319.49"))
        #expect(
            r.problems == [
                "line 4: lat1 91 is outside [-90, 90]", "line 5: lat2 \"x\" is not a number",
                "line 6: 3 fields; expected lat1,lon1,lat2,lon2"
            ])
        let area = run(.area, "0 0;1 1\n0 0;1 x;2 2\n0 0;0 1;1 0;0 0\n")
        #expect(area.bad == 2)
        #expect(
            area.problems == [
                "line 1: 2 vertices; a polygon needs at least 3 (\"lat lon;lat lon;lat lon\")",
                "line 2: vertex 2 \"1 x\" is not \"lat lon\" in degrees"
            ])
        #expect(area.lines.count == 4)
    }
}
