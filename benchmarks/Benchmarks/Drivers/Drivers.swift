// Driver decode paths, one benchmark per chip: the BMP280's pure compensation formulas on the datasheet's
// worked example, and a full `read(timeS:)` of each driver against its chip model on a `SimulatedBus`
// (logging off, so the bus's transaction log does not count against the driver).

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    // MARK: BMP280 compensation (BST-BMP280-DS001 section 3.12: adc_T 519888, adc_P 415148 → 25.08 °C, 100653.27 Pa)

    Benchmark("BMP280.compensateInteger", configuration: configuration) { benchmark in
        let trim = identity(BMP280Datasheet.Trim.datasheetExample)
        let adcT = identity(Int32(519_888)), adcP = identity(Int32(415_148))
        var pressureQ24_8: UInt32 = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let t = BMP280Datasheet.compensateTemperature(adcT: adcT, trim: trim)
            pressureQ24_8 &+= BMP280Datasheet.compensatePressureInt64(adcP: adcP, tFine: t.tFine, trim: trim)
        }
        benchmark.stopMeasurement()
        blackHole(pressureQ24_8)
    }

    Benchmark("BMP280.compensateDouble", configuration: configuration) { benchmark in
        let trim = identity(BMP280Datasheet.Trim.datasheetExample)
        let adcT = identity(Int32(519_888)), adcP = identity(Int32(415_148))
        var pressurePa = 0.0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let t = BMP280Datasheet.compensateTemperatureDouble(adcT: adcT, trim: trim)
            pressurePa += BMP280Datasheet.compensatePressureDouble(adcP: adcP, tFine: t.tFine, trim: trim)
        }
        benchmark.stopMeasurement()
        blackHole(pressurePa)
    }

    // MARK: Full reads: bus transaction + decode + SI conversion, against the chip models

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
}
