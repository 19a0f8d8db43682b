import Foundation
import LodestoneCore
import LodestoneDrivers
import LodestoneOrientation
import Testing
@testable import LodestoneEngine

/// The gyroscope bias the orientation filter believes comes from the board's chip (issue 17): an MPU-6050's data
/// sheet allows ±20 °/s of turn-on bias, where the filter's default (the MPU-9250's ±5 °/s) would never see such a
/// board at rest.
@Suite struct GyroscopeBiasLimitTests {
    /// A simulated board with one IMU of `chip` at 0x68 (0x6A for the ST parts).
    static func board(imu chip: String) throws -> BoardDescription {
        let address = chip.hasPrefix("lsm") ? "0x6A" : "0x68"
        let json = """
            {
              "format": "lodestone-board/1",
              "name": "One \(chip)",
              "simulation": { "scenario": "walk" },
              "sensors": [
                { "id": "imu", "chip": "\(chip)", "bus": { "simulated": true }, "address": "\(address)", "rateHz": 100 }
              ]
            }
            """
        return try BoardDescription.parse(Data(json.utf8), path: "\(chip).json")
    }

    @Test(arguments: [("mpu6050", 20.0), ("mpu6500", 5.0), ("mpu9250", 5.0), ("icm20948", 5.0)])
    func theChipsDataSheetSetsTheLimit(chip: String, limitDegS: Double) throws {
        let runtime = try BoardRuntime.assemble(try Self.board(imu: chip), seed: 1, scenario: nil)
        #expect(runtime.gyroscopeBiasLimitDegS == limitDegS)
        var configuration = SessionConfiguration(board: try Self.board(imu: chip), seed: 1, durationS: 1)
        configuration.scheduling = nil
        let core = try SessionCore(configuration: configuration)
        #expect(core.state.fusion.configuration.orientation.parameters.biasLimitDegS == limitDegS)
    }

    @Test func aChipWithoutABoundKeepsTheDefaultAndAChosenLimitStands() throws {
        // The LSM6DSOX's data sheet gives a typical zero-rate level, not a bound.
        let st = try BoardRuntime.assemble(try Self.board(imu: "lsm6dsox"), seed: 1, scenario: nil)
        #expect(st.gyroscopeBiasLimitDegS == nil)
        let stCore = try SessionCore(configuration: SessionConfiguration(board: try Self.board(imu: "lsm6dsox"), seed: 1))
        #expect(
            stCore.state.fusion.configuration.orientation.parameters.biasLimitDegS
                == OrientationFilter.Parameters().biasLimitDegS)
        // A limit the configuration chose itself is kept, whatever the chip.
        var configuration = SessionConfiguration(board: try Self.board(imu: "mpu6050"), seed: 1)
        configuration.fusion.orientation.parameters.biasLimitDegS = 8
        let core = try SessionCore(configuration: configuration)
        #expect(core.state.fusion.configuration.orientation.parameters.biasLimitDegS == 8)
    }
}
