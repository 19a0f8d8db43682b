import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

// Shared by the barometer and magnetometer suites.

/// Data-ready follows the chip: set by the measurement `configure` started, cleared by a read, set again by the next
/// measurement (`measure`).
func expectDataReadyFollowsMeasurementsAndReads<D: DataReadyReporting>(_ driver: inout D, measure: () -> Void) throws {
    #expect(try driver.isDataReady())
    _ = try driver.read(timeS: 0)
    #expect(try driver.isDataReady() == false)
    measure()
    #expect(try driver.isDataReady())
}
