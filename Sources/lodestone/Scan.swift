import ArgumentParser
import Foundation
import LodestoneCore
import LodestoneEngine
import LodestoneLinux

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find and identify known chips on I2C buses and kernel IIO devices, and draft a board file.",
        discussion: "Probing only reads ID registers; nothing is written to any chip. Without --i2c, every /dev/i2c-* is scanned.")

    @Option(name: .customLong("i2c"), help: "I2C bus to scan (repeatable).") var buses: [String] = []
    @Flag(help: "Also list kernel IIO devices (libiio local context).") var iio = false
    @Option(help: "libiio context URI for --iio.") var uri: String = "local:"
    @Flag(help: "Print only the draft board file.") var boardOnly = false

    func run() throws {
        let list = buses.isEmpty ? I2CDevBus.availableBuses() : buses
        if list.isEmpty && !iio { fail("no /dev/i2c-* bus found: enable I2C (e.g. dtparam=i2c_arm=on) and load i2c-dev, or pass --iio") }
        let job = ScanJob(i2cBuses: list, iio: iio, iioURI: uri)
        let (findings, problems) = job.scan()
        let out = StandardOutput()
        for p in problems { FileHandle.standardError.write(Data(("lodestone: " + p + "\n").utf8)) }
        if !boardOnly {
            if findings.isEmpty { out.write("no known chip found on " + list.joined(separator: ", ")) }
            for f in findings {
                let where_ = f.address.map { "\(f.bus) \(hex($0))" } ?? "\(f.bus)"
                out.write("\(where_): \(f.detail)")
            }
            out.write("")
            out.write("draft board file:")
        }
        out.write(ScanJob.draftBoard(findings))
        out.flush()
    }
}
