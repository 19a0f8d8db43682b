// Driver decode paths, one benchmark per chip: the BMP280's pure compensation formulas on the datasheet's
// worked example, and a full `read(timeS:)` of each driver (bus transaction, byte decoding, conversion to SI)
// against its chip model on a `SimulatedBus` with logging off, so the bus's transaction log (which allocates
// by design) does not count against the driver.
//
// The setup (bus, model, `probe()`, `configure(_:)`) runs before `startMeasurement()` and is not measured.

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration
    imuBenchmarks(configuration) // issue 3's IMUs: IMUBenchmarks.swift

    // MARK: BMP280 compensation
    // Bosch BST-BMP280-DS001 section 3.12: adc_T 519888 and adc_P 415148 give 25.08 °C and 100653.27 Pa with
    // `Trim.datasheetExample`. The low 4 bits of the loop index are added to both ADC values so the optimiser
    // cannot hoist the (pure) computation out of the loop; the values stay within a few LSB of the example.

    Benchmark("BMP280.compensateInteger", configuration: configuration) { benchmark in
        let trim = identity(BMP280Datasheet.Trim.datasheetExample)
        let adcT = identity(Int32(519_888)), adcP = identity(Int32(415_148))
        var pressureQ24_8: UInt32 = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            let step = Int32(truncatingIfNeeded: i & 0xF)
            let t = BMP280Datasheet.compensateTemperature(adcT: adcT + step, trim: trim)
            pressureQ24_8 &+= BMP280Datasheet.compensatePressureInt64(adcP: adcP + step, tFine: t.tFine, trim: trim)
        }
        benchmark.stopMeasurement()
        blackHole(pressureQ24_8)
    }

    Benchmark("BMP280.compensateDouble", configuration: configuration) { benchmark in
        let trim = identity(BMP280Datasheet.Trim.datasheetExample)
        let adcT = identity(Int32(519_888)), adcP = identity(Int32(415_148))
        var pressurePa = 0.0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            let step = Int32(truncatingIfNeeded: i & 0xF)
            let t = BMP280Datasheet.compensateTemperatureDouble(adcT: adcT + step, trim: trim)
            pressurePa += BMP280Datasheet.compensatePressureDouble(adcP: adcP + step, tFine: t.tFine, trim: trim)
        }
        benchmark.stopMeasurement()
        blackHole(pressurePa)
    }

    // MARK: Full reads against the chip models

    Benchmark("BMP280.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        bus.attach(BMP280Model(), at: BMP280Datasheet.addresses[0])
        var driver = BMP280(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 50, powerMode: .normal, oversampling: 1))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try driver.read(timeS: Double(i)))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("LIS3MDL.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = LIS3MDLModel()
        model.magneticFieldMicroTesla = Vector3(22, 5, -41)
        bus.attach(model, at: LIS3MDLDatasheet.addresses[0])
        var driver = LIS3MDL(bus: bus)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 80, powerMode: .normal))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try driver.read(timeS: Double(i)))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("MPU6050.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let model = MPUModel(variant: .mpu6050)
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu6050)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 200, powerMode: .normal))
        model.angularVelocityRadS = Vector3(0.01, -0.02, 0.03)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try driver.read(timeS: Double(i)))
        }
        benchmark.stopMeasurement()
    }

    // The AK8963 reports a field only once per measurement (reading ST2 clears DRDY), so each iteration first
    // sets the model's field (the model measures at once in continuous mode): the measured work is the MPU's
    // 14-byte burst, the AK8963's 8-byte burst and both decodes, plus the model's small register update.
    Benchmark("MPU9250.read", configuration: configuration) { benchmark in
        let bus = SimulatedBus(name: "bench", isLogging: false)
        let magnetometer = AK8963Model()
        let model = MPUModel(variant: .mpu9250, magnetometer: magnetometer)
        model.attach(to: bus)
        var driver = MPU6xxx(bus: bus, variant: .mpu9250)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 100, powerMode: .normal))
        var readingsWithField = 0
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            magnetometer.magneticFieldMicroTesla = Vector3(22, 5, -41 + Double(i & 0xF))
            let reading = try driver.read(timeS: Double(i))
            if reading.magneticFieldMicroTesla != nil { readingsWithField += 1 }
            blackHole(reading)
        }
        benchmark.stopMeasurement()
        // A benchmark that silently skipped the AK8963 decode would measure the wrong thing.
        precondition(readingsWithField == benchmark.scaledIterations.count, "the AK8963 gave no field: DRDY not set")
    }

    // The barometers and magnetometers of the driver catalogue (BaroMagDrivers.swift).
    baroMagDriverBenchmarks(configuration)
}
