import Foundation
@testable import LodestoneCLI
import LodestoneCore
import LodestoneSimulation
import Testing
@testable import LodestoneEngine

/// `lodestone scan`'s Raspberry Pi line: the firmware's `i2c-sensor` overlay, with the parameter that selects the chip
/// found, its address and its bus.
@Suite struct RaspberryPiOverlayTests {
    /// The chips of a board file on the simulator bus, scanned as `/dev/i2c-1` is scanned.
    static func scan(_ placements: [SimulatedBoard.Placement], path: String = "/dev/i2c-1") throws -> [ScanJob.Finding] {
        let board = try SimulatedBoard(scenario: Scenario.named("mixed-day")!, placements: placements, noise: .none, seed: 1)
        return ScanJob.scanI2C(bus: board.bus, location: .i2c(path: path), probesAuxiliaryBuses: true).findings
    }

    /// The simulated board (MPU-9250 with its AK8963 inside, LIS3MDL, BMP280): one line for the MPU-9250 and one for the
    /// BMP280 at their addresses; none for the LIS3MDL (no overlay binds it) or the AK8963 (read through the MPU).
    @Test func scanningTheSimulatedBoardPrintsALinePerChipTheKernelCanDrive() throws {
        let board = try BoardDescription.load(path: repositoryRoot.appendingPathComponent("boards/simulated.json").path)
        let placements = board.sensors.map {
            SimulatedBoard.Placement(id: $0.id, chip: $0.chip, address: $0.address ?? 0, mount: $0.mount, rateHz: $0.rateHz)
        }
        let findings = try Self.scan(placements)
        #expect(Set(findings.compactMap(\.chip)) == ["mpu9250", "ak8963", "lis3mdl", "bmp280"])
        let report = RaspberryPiOverlay.report(findings)
        #expect(report.count == 3)
        #expect(report.first?.hasPrefix("Raspberry Pi:") == true)
        #expect(report.contains("  bmp280 at 0x76: dtoverlay=i2c-sensor,bmp280,addr=0x76"))
        #expect(
            report.contains(
                "  mpu9250 at 0x68: dtoverlay=i2c-sensor,mpu9250,addr=0x68  (its INT pin on GPIO 4, or add int_pin=N)"))
        #expect(!report.joined().contains("lis3mdl"))
        #expect(!report.joined().contains("ak8963"))
    }

    /// Each chip at its other address gets that address, and the BMP388 the overlay's `bmp380` parameter; a chip on
    /// `/dev/i2c-0` gets the overlay's `i2c0` bus parameter, one on a bus the overlay cannot select gets no line.
    @Test func addressesAndBusesAreTheChipsOwn() throws {
        let findings = try Self.scan([
            .init(id: "baro", chip: "bme280", address: 0x77, mount: .identity, rateHz: 25),
            .init(id: "imu", chip: "mpu6050", address: 0x69, mount: .identity, rateHz: 100),
            .init(id: "mag", chip: "hmc5883l", address: 0x1E, mount: .identity, rateHz: 40)
        ])
        let lines = findings.compactMap(RaspberryPiOverlay.line(for:))
        #expect(lines.sorted() == ["dtoverlay=i2c-sensor,bme280,addr=0x77", "dtoverlay=i2c-sensor,mpu6050,addr=0x69"])
        let bmp388 = try Self.scan(
            [.init(id: "baro", chip: "bmp388", address: 0x77, mount: .identity, rateHz: 25)], path: "/dev/i2c-0")
        #expect(bmp388.compactMap(RaspberryPiOverlay.line(for:)) == ["dtoverlay=i2c-sensor,bmp380,addr=0x77,i2c0"])
        #expect(RaspberryPiOverlay.line(chip: "bmp280", address: 0x76, i2cPath: "/dev/i2c-22") == nil)
        #expect(
            RaspberryPiOverlay.line(chip: "bmp280", address: 0x76, i2cPath: "/dev/i2c-6")
                == "dtoverlay=i2c-sensor,bmp280,addr=0x76,i2c6")
    }

    /// Known answer: every parameter Lodestone prints is one the overlay defines. The names are copied from Raspberry
    /// Pi's kernel tree, `arch/arm/boot/dts/overlays/i2c-sensor-common.dtsi` (`__overrides__`: chip selectors `bme280`,
    /// `bmp280`, `bmp380`, `mpu6050`, `mpu9250`, …; `addr` sets the `reg` of each of those five) and
    /// `i2c-buses.dtsi` (`i2c0`, `i2c_csi_dsi`, `i2c3` … `i2c6`), as listed under "Name: i2c-sensor" in the firmware's
    /// `boot/overlays/README`.
    @Test func everyParameterIsOneTheOverlayDefines() {
        let chipSelectors: Set<String> = [
            "bme280", "bmp085", "bmp180", "bmp280", "bmp380", "htu21", "lm75", "si7020", "tmp102", "hdc100x", "tsl4531",
            "veml6070", "sht3x", "ds1621", "max17040", "bme680", "sps30", "sgp30", "ccs811", "bh1750", "max30102", "aht10",
            "mcp980x", "jc42", "ms5637", "ms5803", "ms5805", "ms5837", "ms8607", "mpu6050", "mpu9250", "bno055", "sht4x",
            "adt7410"
        ]
        let addressable: Set<String> = ["bme280", "bmp280", "bmp380", "mpu6050", "mpu9250"]
        for (chip, parameter) in RaspberryPiOverlay.i2cSensorParameters {
            #expect(chipSelectors.contains(parameter), "\(chip) → \(parameter)")
            #expect(addressable.contains(parameter), "addr= does not move the \(parameter) node")
        }
        let buses: Set<String> = ["i2c0", "i2c_csi_dsi", "i2c_csi_dsi0", "i2c1", "i2c2", "i2c3", "i2c4", "i2c5", "i2c6"]
        for n in [0, 3, 4, 5, 6] {
            let parameter = RaspberryPiOverlay.busParameter(i2cPath: "/dev/i2c-\(n)")
            #expect(parameter.map { buses.contains(String($0.dropFirst())) } == true)
        }
        // Lodestone's chips the overlay does not know get no line (the overlay's ms56xx entries are other parts).
        for chip in [
            "lis3mdl", "lsm9ds1", "lsm6dsl", "lps22hb", "lps25h", "ms5611", "hmc5883l", "qmc5883l", "icm20948", "adxl345"
        ] {
            #expect(RaspberryPiOverlay.line(chip: chip, address: 0x1C, i2cPath: "/dev/i2c-1") == nil)
        }
    }
}
