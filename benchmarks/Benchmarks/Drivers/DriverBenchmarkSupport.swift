// The two shapes every driver benchmark takes, shared by Drivers.swift, BaroMagDrivers.swift and IMUBenchmarks.swift:
// one `read(timeS:)` per operation, and one FIFO drain per operation after the chip model batched a few samples. Both
// run on `SimulatedBus`es with logging off (the transaction log allocates by design and is not the driver's path);
// setup (bus, model, `probe()`, `configure(_:)`) happens before `startMeasurement()` and is not measured.

import Benchmark
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

/// A probed and configured driver on a fresh bus (logging off) holding `model` at `address`. `maximumReadBytes` makes
/// the bus split reads as an SMBus-only I2C adapter does (32).
func running<Driver: SensorDriver>(
    _ model: some SimulatedChip, at address: UInt8, transport: BusTransport = .i2c,
    maximumReadBytes: Int = .max, _ configuration: SensorConfiguration,
    _ make: (SimulatedBus) -> Driver
) throws -> Driver {
    let bus = SimulatedBus(name: "bench", isLogging: false, transport: transport)
    bus.maximumReadBytes = maximumReadBytes
    bus.attach(model, at: address)
    var driver = make(bus)
    _ = try driver.probe()
    try driver.configure(configuration)
    return driver
}

/// One `read(timeS:)` per operation; `prepare(i)` runs first each time (giving a magnetometer a new measurement, say).
/// With `expectsField`, every reading must carry a field: a benchmark that silently skipped the magnetometer decode
/// would measure the wrong thing.
func readBenchmark<Driver: SensorDriver>(
    _ name: String, _ configuration: Benchmark.Configuration, expectsField: Bool = false,
    _ make: @escaping () throws -> (driver: Driver, prepare: (Int) -> Void)
) {
    Benchmark(name, configuration: configuration) { benchmark in
        var (driver, prepare) = try make()
        var fields = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            prepare(i)
            let r = try driver.read(timeS: Double(i))
            if r.magneticFieldMicroTesla != nil { fields += 1 }
            blackHole(r)
        }
        benchmark.stopMeasurement()
        precondition(!expectsField || fields == benchmark.scaledIterations.count, "\(name): a reading had no field")
    }
}

/// One operation: the chip model batches `samples` samples (`batch(k)` for k in 0..<samples makes it take one), then
/// `drainFIFO` reads them into a buffer of the driver's `fifoCapacitySamples`, allocated once before the measurement.
/// Every drain must return them all, without an overrun.
func drainBenchmark<Driver: FIFOBuffering>(
    _ name: String, _ configuration: Benchmark.Configuration, samples: Int = 8,
    _ make: @escaping () throws -> (driver: Driver, batch: (Int) -> Void)
) {
    Benchmark(name, configuration: configuration) { benchmark in
        var (driver, batch) = try make()
        let buffer = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: driver.fifoCapacitySamples)
        defer { buffer.deallocate() }
        _ = try driver.drainFIFO(into: buffer, newestTimeS: 0) // what configuring made the chip measure
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            for k in 0..<samples { batch(k) }
            let drain = try driver.drainFIFO(into: buffer, newestTimeS: Double(i))
            precondition(
                drain.count == samples && !drain.overrun, "\(name): the drain gave \(drain), expected \(samples) samples")
            blackHole(buffer[drain.count - 1])
        }
        benchmark.stopMeasurement()
    }
}
