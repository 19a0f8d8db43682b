import Foundation
@testable import LodestoneCLI
import LodestoneCore
import Testing
@testable import LodestoneEngine

/// `lodestone scan`'s draft board file: sensors named and paced by what each identified chip measures.
@Suite struct ScanDraftBoardTests {
    @Test func theDraftNamesAndPacesEachChipByWhatItMeasuresAndParses() throws {
        let bus = BoardDescription.BusLocation.i2c(path: "/dev/i2c-1")
        let findings = [("bme280", UInt8(0x76)), ("ms5611", 0x77), ("hmc5883l", 0x1E), ("qmc5883l", 0x0D), ("mpu6050", 0x68)]
            .map { ScanJob.Finding(bus: bus, address: $0.1, chip: $0.0, detail: $0.0) }
        let text = ScanJob.draftBoard(findings)
        let board = try BoardDescription.parse(Data(text.utf8), path: "draft")
        #expect(board.sensors.map(\.id) == ["baro", "baro2", "mag", "mag2", "imu"])
        #expect(board.sensors.map(\.chip) == ["bme280", "ms5611", "hmc5883l", "qmc5883l", "mpu6050"])
        #expect(board.sensors.map(\.rateHz) == [25, 25, 40, 40, 100])
    }
}
