import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneDrivers
import LodestoneEngine

struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Read one sensor: a chip on /dev/i2c-N through libi2c or on /dev/spidevB.C through spidev, or a kernel IIO device through libiio.",
        discussion:
            "Values are SI, in the chip's own axes. JSON keys: t_s, sensor, and whichever of pressure_pa, temperature_c, acc_x_mps2 … mag_z_ut the sensor has."
    )

    @Option(help: "I2C bus device, e.g. /dev/i2c-1.") var i2c: String?
    @Option(help: "SPI device (one chip select), e.g. /dev/spidev0.1.") var spi: String?
    @Option(help: "Chip on the I2C or SPI bus: \(ChipCatalog.names.joined(separator: "|")).") var chip: String?
    @Option(help: "7-bit I2C address, e.g. 0x76 (default: the chip's usual address).") var address: String?
    @Option(help: "SPI clock for --spi, Hz (default 1000000).") var speed: UInt32?
    @Option(help: "Kernel IIO device: name (bmp280) or id (iio:device0).") var iio: String?
    @Option(help: "libiio context URI: local: or ip:HOST (a remote iiod).") var uri: String = "local:"
    @Option(help: "Number of samples.") var count: Int = 1
    @Option(help: "Sample rate for --count > 1, Hz.") var rate: Double = 10
    @Flag(help: "One JSON object per sample.") var json = false

    func validate() throws {
        switch [i2c, spi, iio].compactMap({ $0 }).count {
        case 0: throw ValidationError("give --i2c DEV --chip CHIP, --spi DEV --chip CHIP, or --iio DEVICE")
        case 1: break
        default: throw ValidationError("give one of --i2c, --spi and --iio")
        }
        if i2c != nil || spi != nil {
            guard let chip else {
                throw ValidationError(
                    "--\(i2c != nil ? "i2c" : "spi") needs --chip (\(ChipCatalog.names.joined(separator: ", ")))")
            }
            guard ChipCatalog.names.contains(chip.lowercased()) else {
                throw ValidationError("--chip \(chip) is not known; allowed: \(ChipCatalog.names.joined(separator: ", "))")
            }
        }
        if i2c != nil, let a = address, BoardDescription.parseAddress(a) == nil {
            throw ValidationError("--address \(a) is not a 7-bit I2C address (0x03 … 0x77)")
        }
        if spi != nil {
            if address != nil { throw ValidationError("--address is for --i2c; on SPI the chip select picks the chip") }
            if let chip, ChipCatalog.spiFraming(forChip: chip) == nil {
                throw ValidationError(
                    "--chip \(chip) is not read over SPI; allowed with --spi: "
                        + ChipCatalog.spiEntries.map(\.name).joined(separator: ", "))
            }
            if let speed, !(1000...50_000_000).contains(speed) { throw ValidationError("--speed must be in 1000 … 50000000 Hz") }
        } else if speed != nil {
            throw ValidationError("--speed is for --spi")
        }
        if iio != nil, chip != nil || address != nil {
            throw ValidationError("--chip and --address are for --i2c and --spi; the kernel driver knows its chip")
        }
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard rate > 0, rate.isFinite else { throw ValidationError("--rate must be a positive number of Hz") }
    }

    func run() throws {
        let target: ReadJob.Target
        if let i2c, let chip {
            target = .i2c(path: i2c, chip: chip.lowercased(), address: address.flatMap(BoardDescription.parseAddress))
        } else if let spi, let chip {
            target = .spi(path: spi, chip: chip.lowercased(), speedHz: speed)
        } else if let iio {
            target = .iio(device: iio, uri: uri)
        } else {
            fail("give --i2c, --spi or --iio")
        }
        do {
            try ReadJob(target: target, count: count, json: json, rateHz: rate).run(
                output: StandardOutput(), clock: SystemClock(),
                notes: standardErrorOutput())
        } catch { fail(error.message) }
    }
}
