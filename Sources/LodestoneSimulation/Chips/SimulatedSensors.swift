import LodestoneCore

// What the simulated board drives in each kind of chip model: a barometer takes the ambient pressure and the die
// temperature, a magnetometer the field in its own axes and the die temperature. Each model turns them into its
// register contents as its chip would.

/// A barometer chip model the simulated board can carry.
public protocol SimulatedBarometer: SimulatedChip {
    /// Ambient pressure, Pa.
    var pressurePa: Double { get set }
    /// Die temperature, °C.
    var temperatureC: Double { get set }
    /// Simulated time, s, set by the simulated board after the inputs (see `InertialChipModel.sampleTimeS`).
    var sampleTimeS: Double? { get set }
}

/// A magnetometer chip model the simulated board can carry.
public protocol SimulatedMagnetometer: SimulatedChip {
    /// Magnetic flux density in the chip's axes, µT.
    var magneticFieldMicroTesla: Vector3 { get set }
    /// Die temperature, °C (ignored by chips without a temperature sensor).
    var temperatureC: Double { get set }
    /// Simulated time, s, set by the simulated board after the inputs (see `InertialChipModel.sampleTimeS`).
    var sampleTimeS: Double? { get set }
}

extension SimulatedBarometer {
    /// Models that do not keep their own output data rate sample whenever an input changes.
    public var sampleTimeS: Double? {
        get { nil }
        set {}
    }
}

extension SimulatedMagnetometer {
    /// Models that do not keep their own output data rate sample whenever an input changes.
    public var sampleTimeS: Double? {
        get { nil }
        set {}
    }

    /// Chips without a temperature sensor (the AK09916, the LSM9DS1's magnetometer) ignore the die temperature.
    public var temperatureC: Double {
        get { 25 }
        set {}
    }
}

extension BMP280Model: SimulatedBarometer {}
extension BME280Model: SimulatedBarometer {}
extension BMP3xxModel: SimulatedBarometer {}
extension MS5611Model: SimulatedBarometer {}
extension LPS22HBModel: SimulatedBarometer {}
extension LPS25HModel: SimulatedBarometer {}
extension LIS3MDLModel: SimulatedMagnetometer {}
extension HMC5883LModel: SimulatedMagnetometer {}
extension QMC5883LModel: SimulatedMagnetometer {}
extension MMC5983MAModel: SimulatedMagnetometer {}
