import LodestoneCore
import LodestoneWire
import LodestoneDrivers
import LodestoneEngine
import LodestoneLinux

/// `lodestone read`: reads one sensor, over I2C through libi2c, over SPI through spidev, or from a kernel IIO device
/// through libiio, and prints SI values (one JSON object per sample with `--json`).
public struct ReadJob {
    /// Which sensor.
    public enum Target: Sendable {
        case i2c(path: String, chip: String, address: UInt8?)
        /// A chip on a spidev chip select, at `speedHz` (nil: 1 MHz).
        case spi(path: String, chip: String, speedHz: UInt32?)
        case iio(device: String, uri: String)
    }

    public var target: Target
    public var count: Int
    public var json: Bool
    /// Sample rate for `count > 1`, Hz.
    public var rateHz: Double

    public init(target: Target, count: Int = 1, json: Bool = false, rateHz: Double = 10) {
        self.target = target; self.count = count; self.json = json; self.rateHz = rateHz
    }

    /// The sensor as an engine source (chip axes: `read` shows what the chip says, no board mount).
    func makeSource() throws(JobError) -> any SensorSource {
        switch target {
        case let .i2c(path, chip, address):
            let bus: I2CDevBus
            do { bus = try I2CDevBus(path: path) } catch { throw JobError(error.description) }
            let driver: any SensorDriver
            do {
                driver = try ChipCatalog.makeDriver(chip: chip, bus: bus, address: address, delay: SystemDelay.microseconds)
            } catch {
                throw JobError(error.description)
            }
            let label = "\(chip) @ \(path) \(hex(driver.address))"
            return DriverSource(id: chip, label: label, rateHz: rateHz, mount: .identity, driver: driver)
        case let .spi(path, chip, speedHz):
            let bus: SPIDevBus
            do { bus = try SPIDevBus.opening(path: path, chip: chip, speedHz: speedHz) } catch {
                throw JobError(error.description)
            }
            let driver: any SensorDriver
            do { driver = try ChipCatalog.makeDriver(chip: chip, bus: bus, address: nil, delay: SystemDelay.microseconds) } catch
            {
                throw JobError(error.description)
            }
            return DriverSource(id: chip, label: "\(chip) @ \(path)", rateHz: rateHz, mount: .identity, driver: driver)
        case let .iio(device, uri):
            return try IIOSource(
                id: device, device: device, uri: uri, rateHz: rateHz, mount: .identity, applyKernelMountMatrix: false)
        }
    }

    /// Reads `count` samples `1/rateHz` apart. The first failure ends the job with its one-line error. Notices (a
    /// kernel IIO driver quirk being corrected) go to `notes`, one line each, before the first sample.
    public func run(output: LineOutput, clock: EngineClock, notes: LineOutput? = nil) throws(JobError) {
        var source = try makeSource()
        do { try source.start() } catch { throw JobError(error.description) }
        if let iio = source as? IIOSource, let notes {
            for n in iio.notices { notes.write("note: " + n) }
            notes.flush()
        }
        let startS = clock.nowS()
        for i in 0..<max(count, 1) {
            let due = startS + Double(i) / rateHz
            clock.sleep(untilS: due)
            let t = clock.nowS() - startS
            let reading: SourceReading
            do { reading = try source.read(timeS: t) } catch { throw JobError(error.description) }
            guard case .sensor(let r) = reading else { continue }
            if json {
                output.write(Wire.line(Wire.Sample(sensor: source.id, reading: r)))
            } else {
                output.write("\(source.label)  t=\(formatFixed(t, digits: 3)) s")
                for v in HumanView.values(r) { output.write("  " + v) }
            }
            output.flush()
        }
    }
}
