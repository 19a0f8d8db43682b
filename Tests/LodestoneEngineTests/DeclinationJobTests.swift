import Foundation
@testable import LodestoneCLI
import Testing
@testable import LodestoneEngine

@Suite struct DeclinationJobTests {
    /// NOAA's official 12-point WMM2025 table (../shared/datasets/wmm, public domain), through the CSV job,
    /// compared with the tolerances its README gives (0.06 nT, 0.006°; GV empty where the table says NaN).
    @Test func reproducesTheOfficialTwelvePointTable() throws {
        let path = repositoryRoot.deletingLastPathComponent().appendingPathComponent(
            "shared/datasets/wmm/WMM2025_TEST_VALUES.txt"
        ).path
        let table = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.split(separator: " ").map(String.init) }
        #expect(table.count == 12)
        let input =
            "decimal_year,lat_deg,lon_deg,height_km\n"
            + table.map { "\($0[0]),\($0[2]),\($0[3]),\($0[1])" }.joined(separator: "\n")
        var lines: [String] = []
        var problems: [String] = []
        let bad = DeclinationJob().run(text: input, emit: { lines.append($0) }, report: { problems.append($0) })
        #expect(bad == 0 && problems.isEmpty)
        #expect(lines.first == DeclinationJob.outputHeader)
        #expect(lines.count == 13)
        for (expected, line) in zip(table, lines.dropFirst()) {
            let got = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(got.count == 12)
            func v(_ i: Int) -> Double { Double(got[i]) ?? .nan }
            func e(_ i: Int) -> Double { Double(expected[i]) ?? .nan }
            // table: 5 X, 6 Y, 7 Z, 8 H, 9 F, 10 I, 11 D, 12 GV; output: 4 D, 5 I, 6 H, 7 X, 8 Y, 9 Z, 10 F, 11 GV
            for (o, t) in [(7, 4), (8, 5), (9, 6), (6, 7), (10, 8)] { #expect(abs(v(o) - e(t)) <= 0.06, "\(line)") }
            #expect(abs(v(5) - e(9)) <= 0.006, "\(line)")
            #expect(abs(v(4) - e(10)) <= 0.006, "\(line)")
            if expected[11] == "NaN" { #expect(got[11].isEmpty) } else { #expect(abs(v(11) - e(11)) <= 0.006, "\(line)") }
        }
    }

    @Test func badRowsAreReportedWithTheirLineAndGoodRowsStillWritten() {
        var lines: [String] = []
        var problems: [String] = []
        let bad = DeclinationJob().run(
            text: "2025.5,47.4,8.5,0.4\n2025.5,north,8.5,0\n2031,0,0,0\n2025.5,91,0,0\n2026,0,0,0\n",
            emit: { lines.append($0) }, report: { problems.append($0) })
        #expect(bad == 3)
        #expect(lines.count == 3) // header + two good rows
        #expect(problems.count == 3)
        #expect(problems[0] == "line 2: lat_deg \"north\" is not a number")
        #expect(problems[1].hasPrefix("line 3: "))
        #expect(problems[2].hasPrefix("line 4: "))
    }
}
