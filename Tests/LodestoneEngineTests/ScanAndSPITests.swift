import Foundation
@testable import LodestoneCLI
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing
@testable import LodestoneEngine

/// `lodestone scan` over simulated buses (identification, the look behind IMUs and its restoring of their
/// registers, SPI identification, the draft board), SPI in board files, and the CLI's SPI options.
@Suite struct ScanAndSPITests {
    @Test func scanIdentifiesIssue3ChipsAndNamesTheLSM9DS1sMagnetometer() {
        let bus = SimulatedBus()
        bus.attach(LSM9DS1Model(), at: 0x6A)
        bus.attach(LSM9DS1MagnetometerModel(), at: 0x1C)
        bus.attach(LSM6DSxModel(variant: .lsm6dsox), at: 0x6B)
        bus.attach(ADXL345Model(), at: 0x53)
        let found = ScanJob.scanI2C(bus: bus, location: .i2c(path: "/dev/i2c-1"), probesAuxiliaryBuses: true)
        #expect(found.findings.map(\.chip) == ["lsm9ds1-mag", "adxl345", "lsm9ds1", "lsm6dsox"])
        #expect(found.findings[0].detail.contains("LSM9DS1 is on this bus"))
        #expect(bus.log.allSatisfy { $0.direction == .read })
    }

    @Test func aLIS3MDLWithoutAnLSM9DS1IsALIS3MDL() {
        let bus = SimulatedBus()
        bus.attach(LIS3MDLModel(), at: 0x1E)
        bus.attach(LSM6DSxModel(variant: .lsm6dsl), at: 0x6A)
        #expect(
            ScanJob.scanI2C(bus: bus, location: .i2c(path: "x"), probesAuxiliaryBuses: true).findings.map(\.chip) == [
                "lis3mdl", "lsm6dsl"
            ])
    }

    @Test func theMagnetometerBehindAnICM20948IsFoundAndTheICMIsLeftAsItWas() throws {
        let bus = SimulatedBus()
        let icm = ICM20948Model()
        icm.attach(to: bus, at: 0x69)
        try bus.writeByte(address: 0x69, register: 0x03, value: 0x20) // someone left its I2C master on
        let before = icm.banks
        let found = ScanJob.scanI2C(bus: bus, location: .i2c(path: "/dev/i2c-1"), probesAuxiliaryBuses: true)
        #expect(found.findings.map(\.chip) == ["icm20948", "ak09916"])
        #expect(found.findings[1].isInsideHost && found.findings[1].address == 0x0C)
        #expect(found.notes.isEmpty)
        // Power, user control, pin configuration and bank as they were (outputs of the samples taken meanwhile differ).
        for register in [0x03, 0x05, 0x06, 0x07, 0x0F, 0x7F] as [UInt8] { #expect(icm.banks[0][register] == before[0][register]) }
        #expect(icm.isAsleep && !icm.isBypassEnabled && icm.isI2CMasterEnabled)
        #expect(!ScanJob.draftBoard(found.findings).contains("ak09916"))
    }

    @Test func theAK8963BehindAnMPU9250IsFoundThroughItsBypass() {
        let bus = SimulatedBus()
        let mpu = MPUModel(variant: .mpu9250, magnetometer: AK8963Model())
        mpu.attach(to: bus)
        let found = ScanJob.scanI2C(bus: bus, location: .i2c(path: "/dev/i2c-1"), probesAuxiliaryBuses: true)
        #expect(found.findings.map(\.chip) == ["mpu9250", "ak8963"])
        #expect(!mpu.isBypassEnabled)
        #expect(
            ScanJob.scanI2C(bus: bus, location: .i2c(path: "x"), probesAuxiliaryBuses: false).findings.map(\.chip) == ["mpu9250"])
    }

    @Test func anMPU9250WithoutAMagnetometerIsReported() {
        let bus = SimulatedBus()
        MPUModel(variant: .mpu9250).attach(to: bus)
        let found = ScanJob.scanI2C(bus: bus, location: .i2c(path: "/dev/i2c-1"), probesAuxiliaryBuses: true)
        #expect(found.findings.map(\.chip) == ["mpu9250"])
        #expect(found.notes.count == 1 && found.notes[0].contains("no magnetometer answered"))
    }

    @Test func spiIdentificationTriesEachChipWithItsOwnFraming() {
        // An ADXL345 on a chip select: DEVID 0xE5 at 0x00 (the ICM-20948's WHO_AM_I register too).
        var reads: [(SPIRegisterFraming, UInt8)] = []
        let id = ScanJob.identifySPI { framing, register in
            reads.append((framing, register))
            return register == 0x00 ? 0xE5 : 0xFF
        }
        #expect(id == ChipIdentity(chip: "adxl345", idValue: 0xE5))
        #expect(reads.contains { $0 == (.readBit7MultiByteBit6, 0x00) } && reads.contains { $0 == (.readBit7, 0x00) })
        #expect(ScanJob.identifySPI { _, _ in nil } == nil)
    }

    @Test func theDraftBoardNamesSensorsByWhatTheyMeasureAndKeepsSPIBuses() throws {
        let findings = [
            ScanJob.Finding(bus: .spi(path: "/dev/spidev0.1", speedHz: nil), address: nil, chip: "mpu9250", detail: ""),
            ScanJob.Finding(bus: .spi(path: "/dev/spidev0.3", speedHz: nil), address: nil, chip: "lsm9ds1", detail: ""),
            ScanJob.Finding(bus: .i2c(path: "/dev/i2c-1"), address: 0x53, chip: "adxl345", detail: ""),
            ScanJob.Finding(bus: .i2c(path: "/dev/i2c-1"), address: 0x1C, chip: "lsm9ds1-mag", detail: "")
        ]
        let text = ScanJob.draftBoard(findings)
        let board = try BoardDescription.parse(Data(text.utf8), path: "draft")
        #expect(board.sensors.map(\.id) == ["imu", "imu2", "accel", "mag"])
        #expect(board.sensors[0].bus == .spi(path: "/dev/spidev0.1", speedHz: nil) && board.sensors[0].address == nil)
    }

    // MARK: Board files

    @Test func aBoardFileCanPutAChipOnSPI() throws {
        let json =
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"imu","chip":"mpu9250","bus":{"spi":"/dev/spidev0.1","speedHz":8000000},"rateHz":100}]}"#
        let board = try BoardDescription.parse(Data(json.utf8), path: "b.json")
        #expect(board.sensors[0].bus == .spi(path: "/dev/spidev0.1", speedHz: 8_000_000))
    }

    @Test(arguments: [
        (
            #"{"spi":"/dev/spidev0.0"},"address":"0x68""#,
            "b.json: sensors[0].address: not allowed on SPI (the chip select picks the chip)"
        ),
        (#"{"spi":"spidev0.0"}"#, "b.json: sensors[0].bus.spi: \"spidev0.0\" must be a device path like \"/dev/spidev0.1\""),
        (
            #"{"spi":"/dev/spidev0.0","speedHz":12.5}"#,
            "b.json: sensors[0].bus.speedHz: 12.5 is not allowed; use a whole number of Hz in [1000, 50000000]"
        ),
        (#"{"spi":"/dev/spidev0.0","mode":3}"#, "b.json: sensors[0].bus.mode: unknown key; allowed here: spi, speedHz")
    ])
    func brokenSPIBusesGiveOneLine(bus: String, expected: String) {
        let json =
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"mpu9250","bus":"# + bus + #","rateHz":10}]}"#
        #expect { try BoardDescription.parse(Data(json.utf8), path: "b.json") } throws: { error in
            (error as? BoardFileError)?.description == expected
        }
    }

    @Test func aChipThatIsNotReadOverSPIIsRefusedOnSPI() {
        let json =
            #"{"format":"lodestone-board/1","name":"x","sensors":[{"id":"a","chip":"ak8963","bus":{"spi":"/dev/spidev0.0"},"rateHz":10}]}"#
        #expect { try BoardDescription.parse(Data(json.utf8), path: "b.json") } throws: { error in
            let d = (error as? BoardFileError)?.description ?? ""
            return d.hasPrefix("b.json: sensors[0].bus: chip \"ak8963\" is not read over SPI; SPI chips: bmp280, lis3mdl")
                && !d.contains("\n")
        }
    }

    // MARK: Command line

    @Test func readOverAMissingSPIDeviceIsOneLine() throws {
        let r = try CLI.run(["read", "--spi", "/dev/spidev9.9", "--chip", "mpu9250", "--json"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("lodestone: /dev/spidev9.9") && r.stderr.contains("dtparam=spi=on"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        (["read", "--spi", "/dev/spidev0.0", "--chip", "mpu9250", "--address", "0x68"], "--address is for --i2c"),
        (["read", "--spi", "/dev/spidev0.0", "--chip", "ak8963"], "is not read over SPI"),
        (["read", "--spi", "/dev/spidev0.0", "--i2c", "/dev/i2c-1", "--chip", "mpu9250"], "give one of --i2c, --spi and --iio"),
        (["read", "--i2c", "/dev/i2c-1", "--chip", "mpu9250", "--speed", "1000000"], "--speed is for --spi")
    ])
    func readRefusesSPIMistakesBeforeTouchingABus(arguments: [String], message: String) throws {
        let r = try CLI.run(arguments)
        #expect(r.status != 0 && r.stderr.contains(message))
    }
}
