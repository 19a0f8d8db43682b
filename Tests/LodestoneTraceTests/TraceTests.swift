import Foundation
import Testing
import LodestoneCore
@testable import LodestoneTrace

@Suite struct TraceTests {
    func parseAll(_ text: String, path: String = "t.csv") throws(TraceError) -> [TraceRow] {
        var p = TraceParser(text: text, path: path)
        var rows: [TraceRow] = []
        while let r = try p.next() { rows.append(r) }
        return rows
    }

    @Test func datasetHeaderParsesWithUnknownColumnsIgnored() throws {
        let text = """
            t_s,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,mag_x,mag_y,mag_z,pressure_pa,speed_mps,label,subject
            0.0000,0.1,0.2,9.8,0.001,0.002,0.003,20.1,-3.2,-40.5,101325.0,,walk,hugadb-01
            0.0100,0.1,0.2,9.8,,,,,,,,1.25,walk,hugadb-01

            """
        let rows = try parseAll(text)
        #expect(rows.count == 2)
        #expect(rows[0].accelerationMps2 == Vector3(0.1, 0.2, 9.8))
        #expect(rows[0].magneticFieldMicroTesla == Vector3(20.1, -3.2, -40.5))
        #expect(rows[0].pressurePa == 101_325)
        #expect(rows[0].speedMps == nil)
        #expect(rows[0].label == "walk")
        #expect(rows[1].angularVelocityRadS == nil)
        #expect(rows[1].speedMps == 1.25)
    }

    @Test func broadTruthQuaternionAndNanAreRead() throws {
        let text =
            "t_s,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,mag_x,mag_y,mag_z,gt_qw,gt_qx,gt_qy,gt_qz,valid\n"
            + "0.0035,0,0,9.81,0,0,0,1,2,3,0.707107,0,0,0.707107,1\n"
            + "0.0070,0,0,9.81,0,0,0,1,2,3,nan,nan,nan,nan,0\n"
        let rows = try parseAll(text)
        #expect(rows[0].truth?.boardToENU == Quaternion(w: 0.707107, x: 0, y: 0, z: 0.707107))
        #expect(rows[1].truth == nil)
    }

    @Test func malformedCellNamesFileLineAndColumn() {
        let text = "t_s,acc_x,acc_y,acc_z\n0,1,2,3\n0.01,1,x2,3\n"
        #expect(throws: TraceError(path: "t.csv", line: 3, column: "acc_y", problem: "\"x2\" is not a number")) {
            try parseAll(text)
        }
    }

    @Test func truncatedLastRowIsReportedAndEarlierRowsAreDelivered() throws {
        var p = TraceParser(text: "t_s,acc_x,acc_y,acc_z\n0,1,2,3\n0.01,1,2", path: "rec.csv")
        #expect(try p.next()?.timeS == 0)
        do { _ = try p.next(); Issue.record("no error") } catch {
            #expect(error.description == "rec.csv:3: column acc_z: 3 fields where the header has 4 (the file is truncated)")
        }
    }

    @Test func partialVectorIsAnError() {
        #expect(throws: TraceError.self) { try parseAll("t_s,acc_x,acc_y,acc_z\n0,1,,3\n") }
    }

    @Test func headerWithoutTimeIsAnError() {
        #expect(
            throws: TraceError(path: "t.csv", line: 1, problem: "no t_s column in the header; a trace needs t_s (seconds) first")
        ) {
            try parseAll("acc_x,acc_y,acc_z\n1,2,3\n")
        }
    }

    @Test func formatterRoundTripsThroughParser() throws {
        var row = TraceRow(timeS: 1.25)
        row.accelerationMps2 = Vector3(0.5, -0.25, 9.80665)
        row.angularVelocityRadS = Vector3(0.001, 0, -0.002)
        row.pressurePa = 100_653.27
        var truth = TraceRow.Truth()
        truth.boardToENU = Quaternion(w: 1, x: 0, y: 0, z: 0)
        truth.activity = "walk"
        truth.floor = 2
        row.truth = truth
        let f = TraceFormatter(columns: TraceFormatter.fullColumns)
        let rows = try parseAll(f.header + f.line(row))
        #expect(rows == [row])
    }

    @Test(arguments: [(1.5, 2, "1.50"), (-0.004, 2, "0.00"), (-0.006, 2, "-0.01"), (100653.265, 3, "100653.265"), (7, 0, "7")])
    func fixedFormatting(_ v: Double, _ digits: Int, _ expected: String) { #expect(formatFixed(v, digits: digits) == expected) }
}
