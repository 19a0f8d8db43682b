import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneCore
import LodestoneEngine
import LodestoneLinux

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find and identify known chips on I2C buses, SPI chip selects and kernel IIO devices, and draft a board file.",
        discussion: """
            Identification only reads ID registers. To find the magnetometer inside an MPU-9250 or ICM-20948, scan opens \
            the IMU's I2C bypass for a moment and then writes its registers back as they were (not for a chip a kernel \
            driver owns); --no-aux skips that. Without --i2c, every /dev/i2c-* is scanned; SPI chip selects only when \
            named with --spi (on SPI a read command can mean something else to an unknown device).
            """)

    @Option(name: .customLong("i2c"), help: "I2C bus to scan (repeatable).") var buses: [String] = []
    @Option(name: .customLong("spi"), help: "SPI device to identify, e.g. /dev/spidev0.1 (repeatable).") var spiDevices:
        [String] = []
    @Flag(name: .customLong("no-aux"), help: "Do not look behind MPU-9250s and ICM-20948s for their magnetometers.")
    var noAuxiliary = false
    @Flag(help: "Also list kernel IIO devices (libiio local context).") var iio = false
    @Option(help: "libiio context URI for --iio.") var uri: String = "local:"
    @Flag(help: "Print only the draft board file.") var boardOnly = false

    func run() throws {
        let list = buses.isEmpty && spiDevices.isEmpty ? I2CDevBus.availableBuses() : buses
        if list.isEmpty && spiDevices.isEmpty && !iio {
            fail("no /dev/i2c-* bus found: enable I2C (e.g. dtparam=i2c_arm=on) and load i2c-dev, or pass --spi or --iio")
        }
        let job = ScanJob(i2cBuses: list, spiDevices: spiDevices, iio: iio, iioURI: uri, probesAuxiliaryBuses: !noAuxiliary)
        let (findings, problems) = job.scan()
        let out = StandardOutput()
        for p in problems { StandardStream.error.print("lodestone: " + p + "\n") }
        if !boardOnly {
            if findings.isEmpty { out.write("no known chip found on " + (list + spiDevices).joined(separator: ", ")) }
            for f in findings {
                let where_ = f.address.map { "\(f.bus) \(hex($0))" } ?? "\(f.bus)"
                out.write("\(where_): \(f.detail)")
            }
            let overlays = RaspberryPiOverlay.report(findings)
            if !overlays.isEmpty {
                out.write("")
                for line in overlays { out.write(line) }
            }
            out.write("")
            out.write("draft board file:")
        }
        out.write(ScanJob.draftBoard(findings))
        out.flush()
    }
}
