// Issue 3's IMU drivers: a full `read(timeS:)` of each against its chip model, and the FIFO drains. Helpers and rules
// in DriverBenchmarkSupport.swift.
//
// The FIFO benchmarks refill the model's FIFO inside the measured loop (setting the model's input makes it take a
// sample and batch it), because a drain empties it: one operation is "the chip batches 8 samples, the driver
// drains them in one burst into a caller's buffer". The refill is the model's work, allocation-free too.

import Benchmark
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

func imuBenchmarks(_ configuration: Benchmark.Configuration) {
    let g = PhysicalConstants.standardGravityMps2

    readBenchmark("ICM20948.read", configuration, expectsField: true) {
        let model = ICM20948Model()
        let bus = SimulatedBus(name: "bench", isLogging: false)
        model.attach(to: bus, at: 0x69)
        var driver = ICM20948(bus: bus, address: 0x69)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100))
        return (driver, { i in model.setMagneticField(chipAxesMicroTesla: Vector3(22, 5, -41 + Double(i & 0xF))) })
    }
    drainBenchmark("ICM20948.drainFIFO", configuration) {
        let model = ICM20948Model()
        let bus = SimulatedBus(name: "bench", isLogging: false)
        model.attach(to: bus, at: 0x68)
        var driver = ICM20948(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100, fifo: .stream))
        return (driver, { k in model.accelerationMps2 = Vector3(Double(k), 0, g) })
    }
    readBenchmark("LSM6DSL.read", configuration) {
        let model = LSM6DSxModel(variant: .lsm6dsl)
        model.angularVelocityRadS = Vector3(0.01, -0.02, 0.03)
        return (try running(model, at: 0x6A, SensorConfiguration(rateHz: 208)) { LSM6DSx(bus: $0, variant: .lsm6dsl) }, { _ in })
    }
    for variant in [LSM6DSxVariant.lsm6dsl, .lsm6dsox] {
        drainBenchmark(variant == .lsm6dsl ? "LSM6DSL.drainFIFO" : "LSM6DSOX.drainFIFO", configuration) {
            let model = LSM6DSxModel(variant: variant)
            let driver = try running(model, at: 0x6A, SensorConfiguration(rateHz: 104, fifo: .stream)) {
                LSM6DSx(bus: $0, variant: variant)
            }
            return (driver, { k in model.accelerationMps2 = Vector3(0, Double(k), g) })
        }
    }
    // The DSOX's 7-byte words on a 32-byte bus (SMBus-only I2C): pieces of 28 bytes, each restarting at the FIFO window.
    drainBenchmark("LSM6DSOX.drainFIFOInSMBusPieces", configuration) {
        let model = LSM6DSxModel(variant: .lsm6dsox)
        let driver = try running(model, at: 0x6A, maximumReadBytes: 32, SensorConfiguration(rateHz: 104, fifo: .stream)) {
            LSM6DSx(bus: $0, variant: .lsm6dsox)
        }
        return (driver, { k in model.accelerationMps2 = Vector3(0, Double(k), g) })
    }
    // 90 samples are 1080 bytes: more than one 1 KiB stack burst (`fifoBurstBytes`), so the drain takes two.
    drainBenchmark("LSM6DSL.drainFIFOOverOneKibibyte", configuration, samples: 90) {
        let model = LSM6DSxModel(variant: .lsm6dsl)
        let driver = try running(model, at: 0x6A, SensorConfiguration(rateHz: 104, fifo: .stream)) {
            LSM6DSx(bus: $0, variant: .lsm6dsl)
        }
        return (driver, { k in model.accelerationMps2 = Vector3(0, Double(k) / 16, g) })
    }
    readBenchmark("LSM9DS1.read", configuration) {
        (try running(LSM9DS1Model(), at: 0x6A, SensorConfiguration(rateHz: 119)) { LSM9DS1(bus: $0) }, { _ in })
    }
    readBenchmark("LSM9DS1Magnetometer.read", configuration, expectsField: true) {
        let model = LSM9DS1MagnetometerModel()
        model.magneticFieldMicroTesla = Vector3(22, 5, -41)
        return (try running(model, at: 0x1C, SensorConfiguration(rateHz: 80)) { LSM9DS1Magnetometer(bus: $0) }, { _ in })
    }
    readBenchmark("ADXL345.read", configuration) {
        (try running(ADXL345Model(), at: 0x53, SensorConfiguration(rateHz: 100)) { ADXL345(bus: $0) }, { _ in })
    }
    drainBenchmark("ADXL345.drainFIFO", configuration) {
        let model = ADXL345Model()
        let driver = try running(model, at: 0x53, SensorConfiguration(rateHz: 100, fifo: .stream)) { ADXL345(bus: $0) }
        return (driver, { k in model.accelerationMps2 = Vector3(Double(k), 0, 0) })
    }
    readBenchmark("AK09916.read", configuration, expectsField: true) {
        let model = AK09916Model()
        let driver = try running(model, at: 0x0C, SensorConfiguration(rateHz: 100)) { AK09916(bus: $0) }
        return (driver, { i in model.magneticFieldMicroTesla = Vector3(22, 5, -41 + Double(i & 0xF)) })
    }
    // The MPU-9250 as on SPI (the Navio2): accelerometer, gyroscope, temperature and the AK8963 block slave 0 copied,
    // one 22-byte burst.
    readBenchmark("MPU9250.readThroughI2CMaster", configuration, expectsField: true) {
        let magnetometer = AK8963Model()
        let bus = SimulatedBus(name: "bench", isLogging: false, transport: .spi)
        MPUModel(variant: .mpu9250, magnetometer: magnetometer).attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu9250)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100))
        return (driver, { i in magnetometer.magneticFieldMicroTesla = Vector3(22, 5, -41 + Double(i & 0xF)) })
    }
}
