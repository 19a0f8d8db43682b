// The barometers and magnetometers of the driver catalogue: a full `read(timeS:)` of each driver against its chip
// model on a logging-off `SimulatedBus` (bus transaction, byte decoding, compensation, conversion to SI), and the
// one-burst FIFO drains of the BMP388 and LPS22HB into a reused array. Setup (bus, model, probe, configure) is not
// measured. Registered from `Drivers.swift`'s `benchmarks`.

import Benchmark
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

/// Measures `body` `scaledIterations` times on a driver made, probed and configured by `make`.
private func readBenchmark<D: SensorDriver>(_ name: String, _ configuration: Benchmark.Configuration,
                                            sensor: SensorConfiguration, make: @escaping @Sendable (SimulatedBus) -> D,
                                            model: @escaping @Sendable () -> (any SimulatedChip, UInt8)) {
    Benchmark(name, configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let (chip, address) = model()
        bus.attach(chip, at: address)
        var driver = make(bus)
        _ = try driver.probe()
        try driver.configure(sensor)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try driver.read(timeS: Double(i) * 0.1))
        }
        benchmark.stopMeasurement()
    }
}

func baroMagDriverBenchmarks(_ configuration: Benchmark.Configuration) {
    readBenchmark("BME280.read", configuration, sensor: SensorConfiguration(rateHz: 25, oversampling: 16),
                  make: { BME280(bus: $0) }, model: { (BME280Model(), 0x76) })
    readBenchmark("BMP388.read", configuration, sensor: SensorConfiguration(rateHz: 25, oversampling: 8),
                  make: { BMP3xx(bus: $0) }, model: { (BMP3xxModel(), 0x77) })
    // Pipelined: each read collects one conversion and starts the next (the model converts at once).
    readBenchmark("MS5611.read", configuration, sensor: SensorConfiguration(rateHz: 50, oversampling: 16),
                  make: { MS5611(bus: $0) }, model: { (MS5611Model(), 0x77) })
    readBenchmark("LPS22HB.read", configuration, sensor: SensorConfiguration(rateHz: 25),
                  make: { LPS22HB(bus: $0) }, model: { (LPS22HBModel(), 0x5D) })
    readBenchmark("LPS25H.read", configuration, sensor: SensorConfiguration(rateHz: 25),
                  make: { LPS25H(bus: $0) }, model: { (LPS25HModel(), 0x5C) })
    readBenchmark("HMC5883L.read", configuration, sensor: SensorConfiguration(rateHz: 75),
                  make: { HMC5883L(bus: $0) }, model: { (HMC5883LModel(), 0x1E) })
    readBenchmark("QMC5883L.read", configuration, sensor: SensorConfiguration(rateHz: 100),
                  make: { QMC5883L(bus: $0) }, model: { (QMC5883LModel(), 0x0D) })
    readBenchmark("MMC5983MA.read", configuration, sensor: SensorConfiguration(rateHz: 100),
                  make: { MMC5983MA(bus: $0) }, model: { (MMC5983MAModel(), 0x30) })

    // FIFO drains: each iteration the model takes 8 measurements (its FIFO is a reserved array), then the driver
    // reads them in one burst into an array kept with its capacity.
    drainBenchmark("BMP388.drainFIFO", configuration, sensor: SensorConfiguration(rateHz: 50, oversampling: 2),
                   model: BMP3xxModel(), at: 0x77, make: { BMP3xx(bus: $0) }, measure: { model, _ in model.tick() })
    drainBenchmark("LPS22HB.drainFIFO", configuration, sensor: SensorConfiguration(rateHz: 75),
                   model: LPS22HBModel(), at: 0x5D, make: { LPS22HB(bus: $0) },
                   measure: { model, k in model.pressurePa = 100_000 + Double(k) })
}

/// A FIFO drain of 8 samples per iteration: `measure` makes the model take one measurement.
private func drainBenchmark<M: SimulatedChip, D: FIFOSensorDriver>(
    _ name: String, _ configuration: Benchmark.Configuration, sensor: SensorConfiguration, model makeModel: @escaping @Sendable @autoclosure () -> M,
    at address: UInt8, make: @escaping @Sendable (SimulatedBus) -> D, measure: @escaping @Sendable (M, Int) -> Void
) where D.Bus == SimulatedBus {
    Benchmark(name, configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = makeModel()
        bus.attach(model, at: address)
        var driver = make(bus)
        _ = try driver.probe()
        try driver.configure(sensor)
        try driver.setFIFOEnabled(true)
        var samples: [SensorReading] = []
        samples.reserveCapacity(D.fifoCapacitySamples)
        var drained = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            for k in 0..<8 { measure(model, k) }
            samples.removeAll(keepingCapacity: true)
            drained += try driver.drainFIFO(timeS: Double(i), into: &samples).count
        }
        benchmark.stopMeasurement()
        precondition(drained == 8 * benchmark.scaledIterations.count, "the FIFO drain lost samples")
    }
}
