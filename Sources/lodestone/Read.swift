import ArgumentParser
import Foundation
import LodestoneDrivers
import LodestoneEngine

struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read one sensor: a chip on /dev/i2c-N through libi2c, or a kernel IIO device through libiio.",
        discussion: "Values are SI, in the chip's own axes. JSON keys: t_s, sensor, and whichever of pressure_pa, temperature_c, acc_x_mps2 … mag_z_ut the sensor has.")

    @Option(help: "I2C bus device, e.g. /dev/i2c-1.") var i2c: String?
    @Option(help: "Chip on the I2C bus: \(ChipCatalog.names.joined(separator: "|")).") var chip: String?
    @Option(help: "7-bit I2C address, e.g. 0x76 (default: the chip's usual address).") var address: String?
    @Option(help: "Kernel IIO device: name (bmp280) or id (iio:device0).") var iio: String?
    @Option(help: "libiio context URI: local: or ip:HOST (a remote iiod).") var uri: String = "local:"
    @Option(help: "Number of samples.") var count: Int = 1
    @Option(help: "Sample rate for --count > 1, Hz.") var rate: Double = 10
    @Flag(help: "One JSON object per sample.") var json = false

    func validate() throws {
        switch (i2c, iio) {
        case (nil, nil): throw ValidationError("give --i2c DEV --chip CHIP, or --iio DEVICE")
        case (.some, .some): throw ValidationError("give either --i2c or --iio, not both")
        case (.some, nil):
            guard let chip else { throw ValidationError("--i2c needs --chip (\(ChipCatalog.names.joined(separator: ", ")))") }
            guard ChipCatalog.names.contains(chip.lowercased()) else {
                throw ValidationError("--chip \(chip) is not known; allowed: \(ChipCatalog.names.joined(separator: ", "))")
            }
            if let a = address, BoardDescription.parseAddress(a) == nil {
                throw ValidationError("--address \(a) is not a 7-bit I2C address (0x03 … 0x77)")
            }
        case (nil, .some):
            if chip != nil || address != nil { throw ValidationError("--chip and --address are for --i2c; the kernel driver knows its chip") }
        }
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard rate > 0, rate.isFinite else { throw ValidationError("--rate must be a positive number of Hz") }
    }

    func run() throws {
        let target: ReadJob.Target
        if let i2c, let chip {
            target = .i2c(path: i2c, chip: chip.lowercased(), address: address.flatMap(BoardDescription.parseAddress))
        } else if let iio {
            target = .iio(device: iio, uri: uri)
        } else { fail("give --i2c or --iio") }
        do {
            try ReadJob(target: target, count: count, json: json, rateHz: rate).run(output: StandardOutput(), clock: SystemClock(),
                                                                                   notes: standardErrorOutput())
        } catch { fail(error.message) }
    }
}
