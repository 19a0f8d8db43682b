// The barometers and magnetometers of the driver catalogue: a full `read(timeS:)` of each driver against its chip
// model (bus transaction, byte decoding, compensation, conversion to SI), and the FIFO drains of the BMP388, LPS22HB
// and LPS25H. Helpers and rules in DriverBenchmarkSupport.swift; registered from `Drivers.swift`'s `benchmarks`.

import Benchmark
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

/// A read benchmark of `make`'s driver on `model` at `address`, configured with `sensor`.
private func readBenchmark<D: SensorDriver>(
    _ name: String, _ configuration: Benchmark.Configuration, sensor: SensorConfiguration,
    model: @escaping () -> (any SimulatedChip, UInt8),
    make: @escaping (SimulatedBus) -> D
) {
    readBenchmark(name, configuration) {
        let (chip, address) = model()
        return (try running(chip, at: address, sensor, make), { _ in })
    }
}

func baroMagDriverBenchmarks(_ configuration: Benchmark.Configuration) {
    readBenchmark(
        "BME280.read", configuration, sensor: SensorConfiguration(rateHz: 25, oversampling: 16),
        model: { (BME280Model(), 0x76) }, make: { BME280(bus: $0) })
    readBenchmark(
        "BMP388.read", configuration, sensor: SensorConfiguration(rateHz: 25, oversampling: 8),
        model: { (BMP3xxModel(), 0x77) }, make: { BMP3xx(bus: $0) })
    // Pipelined: each read collects one conversion and starts the next (the model converts at once).
    readBenchmark(
        "MS5611.read", configuration, sensor: SensorConfiguration(rateHz: 50, oversampling: 16),
        model: { (MS5611Model(), 0x77) }, make: { MS5611(bus: $0) })
    readBenchmark(
        "LPS22HB.read", configuration, sensor: SensorConfiguration(rateHz: 25),
        model: { (LPS22HBModel(), 0x5D) }, make: { LPS22HB(bus: $0) })
    readBenchmark(
        "LPS25H.read", configuration, sensor: SensorConfiguration(rateHz: 25),
        model: { (LPS25HModel(), 0x5C) }, make: { LPS25H(bus: $0) })
    readBenchmark(
        "HMC5883L.read", configuration, sensor: SensorConfiguration(rateHz: 75),
        model: { (HMC5883LModel(), 0x1E) }, make: { HMC5883L(bus: $0) })
    readBenchmark(
        "QMC5883L.read", configuration, sensor: SensorConfiguration(rateHz: 100),
        model: { (QMC5883LModel(), 0x0D) }, make: { QMC5883L(bus: $0) })
    readBenchmark(
        "MMC5983MA.read", configuration, sensor: SensorConfiguration(rateHz: 100),
        model: { (MMC5983MAModel(), 0x30) }, make: { MMC5983MA(bus: $0) })

    // FIFO drains: the model takes 8 measurements (its FIFO is a reserved array), then the driver reads them in one
    // burst into the caller's buffer.
    drainBenchmark("BMP388.drainFIFO", configuration) {
        let model = BMP3xxModel()
        let driver = try running(model, at: 0x77, SensorConfiguration(rateHz: 50, oversampling: 2, fifo: .stream)) {
            BMP3xx(bus: $0)
        }
        return (driver, { _ in model.tick() })
    }
    drainBenchmark("LPS22HB.drainFIFO", configuration) {
        let model = LPS22HBModel()
        let driver = try running(model, at: 0x5D, SensorConfiguration(rateHz: 75, fifo: .stream)) { LPS22HB(bus: $0) }
        return (driver, { k in model.pressurePa = 100_000 + Double(k) })
    }
    // The LPS25H's pressure FIFO, with the temperature read beside it, on a 32-byte bus: whole 3-byte samples in pieces.
    drainBenchmark("LPS25H.drainFIFOInSMBusPieces", configuration, samples: 16) {
        let model = LPS25HModel()
        let driver = try running(model, at: 0x5C, maximumReadBytes: 32, SensorConfiguration(rateHz: 25, fifo: .stream)) {
            LPS25H(bus: $0)
        }
        return (driver, { k in model.pressurePa = 100_000 + Double(k) })
    }
}
