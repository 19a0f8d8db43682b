import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

// Shared by the barometer and magnetometer suites.

/// A driver made by `make`, probed and configured with `configuration`, on a fresh bus carrying `model` at `address`.
func probedAndConfigured<Model: SimulatedChip, Driver: SensorDriver>(
    _ model: Model, at address: UInt8, _ configuration: SensorConfiguration, make: (SimulatedBus) -> Driver
) throws -> (SimulatedBus, Model, Driver) {
    let bus = SimulatedBus()
    bus.attach(model, at: address)
    var driver = make(bus)
    _ = try driver.probe()
    try driver.configure(configuration)
    return (bus, model, driver)
}

/// Data-ready follows the chip: set by the measurement `configure` started, cleared by a read, set again by the next
/// measurement (`measure`).
func expectDataReadyFollowsMeasurementsAndReads<D: DataReadyReporting>(_ driver: inout D, measure: () -> Void) throws {
    #expect(try driver.isDataReady())
    _ = try driver.read(timeS: 0)
    #expect(try driver.isDataReady() == false)
    measure()
    #expect(try driver.isDataReady())
}
