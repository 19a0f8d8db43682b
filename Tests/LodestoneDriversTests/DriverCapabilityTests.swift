import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// The optional capabilities (`LodestoneCore/DriverCapabilities.swift`) and the configuration that switches them on
/// agree for every chip in the catalog: a driver accepts `fifo: .stream` exactly when it is `FIFOBuffering` (and then
/// reports a FIFO capacity), and a wake-on-motion threshold exactly when it is `MotionWakeReporting`.
@Suite struct DriverCapabilityTests {
    /// The driver for `chip`, probed on a bus carrying its model, and what `configure` made of `request`.
    static func configured(_ chip: String, _ request: SensorConfiguration) throws -> (any SensorDriver, SensorError?) {
        let address = try #require(ChipCatalog.entry(named: chip)).addresses[0]
        var driver = try ChipCatalog.makeDriver(chip: chip, bus: ChipCatalogTests.bus(with: chip, at: address), address: address)
        _ = try driver.probe()
        do throws(SensorError) {
            _ = try driver.configure(request)
            return (driver, nil)
        } catch {
            return (driver, error)
        }
    }

    @Test(arguments: ChipCatalog.names)
    func fifoStreamIsAcceptedExactlyByFIFOBufferingDrivers(chip: String) throws {
        let (driver, error) = try Self.configured(chip, SensorConfiguration(rateHz: 10, fifo: .stream))
        let buffering = driver as? any FIFOBuffering
        #expect((error == nil) == (buffering != nil), "\(chip): \(error.map(String.init(describing:)) ?? "accepted")")
        if let buffering { #expect(buffering.fifoCapacitySamples > 0) }
        if case .unsupportedConfiguration(_, let detail)? = error { #expect(detail.hasPrefix("fifo .stream")) }
        #expect(!(driver is any FIFOBuffering) || (driver as? any DataReadyReporting) != nil, "a FIFO chip also says data ready")
    }

    @Test(arguments: ChipCatalog.names)
    func aWakeOnMotionThresholdIsAcceptedExactlyByMotionWakeReportingDrivers(chip: String) throws {
        let (driver, error) = try Self.configured(chip, SensorConfiguration(rateHz: 10, wakeOnMotionThresholdMps2: 1))
        #expect(
            (error == nil) == (driver is any MotionWakeReporting), "\(chip): \(error.map(String.init(describing:)) ?? "accepted")"
        )
        if case .unsupportedConfiguration(_, let detail)? = error { #expect(detail.hasPrefix("wake-on-motion threshold")) }
    }

    @Test func aDriverWithoutTheFeatureSaysWhatToDo() throws {
        let (_, error) = try Self.configured("mpu9250", SensorConfiguration(rateHz: 10, fifo: .stream))
        #expect(
            error
                == .unsupportedConfiguration(
                    chip: "mpu9250",
                    detail: "fifo .stream: the mpu9250 driver has no FIFO to batch "
                        + "samples in (the chip's FIFO is not used by this driver); use fifo .off"))
    }
}
