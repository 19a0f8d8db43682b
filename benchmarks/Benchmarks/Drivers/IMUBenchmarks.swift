// Issue 3's IMU drivers: a full `read(timeS:)` of each against its chip model, and the FIFO drains. Same rules as
// Drivers.swift: buses with logging off, setup before `startMeasurement()`.
//
// The FIFO benchmarks refill the model's FIFO inside the measured loop (setting the model's input makes it take a
// sample and batch it), because a drain empties it: one operation is "the chip batches 8 samples, the driver
// drains them in one burst into a caller's buffer". The refill is the model's work, allocation-free too.

import Benchmark
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

/// Fails the benchmark when a drain returned fewer samples than batched: it would measure the wrong thing.
private func expectDrained(_ n: Int, _ wanted: Int, _ name: String) {
    precondition(n >= wanted, "\(name): the drain returned \(n) samples, expected at least \(wanted)")
}

func imuBenchmarks(_ configuration: Benchmark.Configuration) {
    let g = PhysicalConstants.standardGravityMps2

    // The AK09916 reports a field once per measurement: set it each iteration (as MPU9250.read does).
    Benchmark("ICM20948.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = ICM20948Model()
        model.attach(to: bus, at: 0x69)
        var driver = ICM20948(bus: bus, address: 0x69)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100))
        var fields = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            model.setMagneticField(chipAxesMicroTesla: Vector3(22, 5, -41 + Double(i & 0xF)))
            let r = try driver.read(timeS: Double(i))
            if r.magneticFieldMicroTesla != nil { fields += 1 }
            blackHole(r)
        }
        benchmark.stopMeasurement()
        precondition(fields == benchmark.scaledIterations.count, "the AK09916 gave no field")
    }

    Benchmark("ICM20948.drainFIFO", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = ICM20948Model()
        model.attach(to: bus, at: 0x68)
        var driver = ICM20948(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100, fifo: .stream))
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 42)
        defer { samples.deallocate() }
        _ = try driver.drainFIFO(into: samples, newestTimeS: 0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            for k in 0..<8 { model.accelerationMps2 = Vector3(Double(k), 0, g) }
            let n = try driver.drainFIFO(into: samples, newestTimeS: Double(i))
            expectDrained(n, 8, "ICM20948.drainFIFO")
            blackHole(samples[n - 1])
        }
        benchmark.stopMeasurement()
    }

    Benchmark("LSM6DSL.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = LSM6DSxModel(variant: .lsm6dsl)
        model.angularVelocityRadS = Vector3(0.01, -0.02, 0.03)
        bus.attach(model, at: 0x6A)
        var driver = LSM6DSx(bus: bus, variant: .lsm6dsl)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 208))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { blackHole(try driver.read(timeS: Double(i))) }
        benchmark.stopMeasurement()
    }

    Benchmark("LSM6DSL.drainFIFO", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = LSM6DSxModel(variant: .lsm6dsl)
        bus.attach(model, at: 0x6A)
        var driver = LSM6DSx(bus: bus, variant: .lsm6dsl)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 104, fifo: .stream))
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 32)
        defer { samples.deallocate() }
        _ = try driver.drainFIFO(into: samples, newestTimeS: 0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            for k in 0..<8 { model.accelerationMps2 = Vector3(0, Double(k), g) }
            let n = try driver.drainFIFO(into: samples, newestTimeS: Double(i))
            expectDrained(n, 8, "LSM6DSL.drainFIFO")
            blackHole(samples[n - 1])
        }
        benchmark.stopMeasurement()
    }

    Benchmark("LSM6DSOX.drainFIFO", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = LSM6DSxModel(variant: .lsm6dsox)
        bus.attach(model, at: 0x6A)
        var driver = LSM6DSx(bus: bus, variant: .lsm6dsox)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 104, fifo: .stream))
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 32)
        defer { samples.deallocate() }
        _ = try driver.drainFIFO(into: samples, newestTimeS: 0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            for k in 0..<8 { model.accelerationMps2 = Vector3(0, Double(k), g) }
            let n = try driver.drainFIFO(into: samples, newestTimeS: Double(i))
            expectDrained(n, 8, "LSM6DSOX.drainFIFO")
            blackHole(samples[n - 1])
        }
        benchmark.stopMeasurement()
    }

    Benchmark("LSM9DS1.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        bus.attach(LSM9DS1Model(), at: 0x6A)
        var driver = LSM9DS1(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 119))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { blackHole(try driver.read(timeS: Double(i))) }
        benchmark.stopMeasurement()
    }

    Benchmark("LSM9DS1Magnetometer.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = LSM9DS1MagnetometerModel()
        model.magneticFieldMicroTesla = Vector3(22, 5, -41)
        bus.attach(model, at: 0x1C)
        var driver = LSM9DS1Magnetometer(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 80))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { blackHole(try driver.read(timeS: Double(i))) }
        benchmark.stopMeasurement()
    }

    Benchmark("ADXL345.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        bus.attach(ADXL345Model(), at: 0x53)
        var driver = ADXL345(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { blackHole(try driver.read(timeS: Double(i))) }
        benchmark.stopMeasurement()
    }

    Benchmark("ADXL345.drainFIFO", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = ADXL345Model()
        bus.attach(model, at: 0x53)
        var driver = ADXL345(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100, fifo: .stream))
        let samples = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: 32)
        defer { samples.deallocate() }
        _ = try driver.drainFIFO(into: samples, newestTimeS: 0)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            for k in 0..<8 { model.accelerationMps2 = Vector3(Double(k), 0, g) }
            let n = try driver.drainFIFO(into: samples, newestTimeS: Double(i))
            expectDrained(n, 8, "ADXL345.drainFIFO")
            blackHole(samples[n - 1])
        }
        benchmark.stopMeasurement()
    }

    Benchmark("AK09916.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = AK09916Model()
        bus.attach(model, at: 0x0C)
        var driver = AK09916(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            model.magneticFieldMicroTesla = Vector3(22, 5, -41 + Double(i & 0xF))
            blackHole(try driver.read(timeS: Double(i)))
        }
        benchmark.stopMeasurement()
    }

    // The MPU-9250 as on SPI (the Navio2): accelerometer, gyroscope, temperature and the AK8963 block slave 0 copied,
    // one 22-byte burst.
    Benchmark("MPU9250.readThroughI2CMaster", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false, transport: .spi)
        let magnetometer = AK8963Model()
        MPUModel(variant: .mpu9250, magnetometer: magnetometer).attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu9250)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100))
        var fields = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            magnetometer.magneticFieldMicroTesla = Vector3(22, 5, -41 + Double(i & 0xF))
            let r = try driver.read(timeS: Double(i))
            if r.magneticFieldMicroTesla != nil { fields += 1 }
            blackHole(r)
        }
        benchmark.stopMeasurement()
        precondition(fields == benchmark.scaledIterations.count, "the AK8963 gave no field through slave 0")
    }
}
