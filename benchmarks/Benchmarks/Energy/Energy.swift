// The energy model on the scheduler's re-planning path: pricing a plan (every sensor's configuration and the
// receiver's mode) must allocate nothing, as re-planning must not (issue 8). One operation prices a GY-91-like board
// plus a magnetometer and a receiver, as `Scheduler` does after each plan; the rates and modes vary with the loop
// index so that every branch of the tables (interpolation, table look-up, ON/OFF averaging) runs.

import Benchmark
import BenchmarkSupport
import LodestoneCore
import LodestoneScheduler

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration

    Benchmark("EnergyModel.pricePlan", configuration: configuration) { benchmark in
        let chips = identity(["mpu9250", "bmp280", "lis3mdl", "icm20948", "ms5611", "adxl345"])
        let modes: [PowerMode] = [.normal, .lowPower, .suspend]
        let receiverModes: [GNSSReceiverMode] = [
            .continuous(rateHz: 1), .powerSave(updatePeriodS: 5), .powerSave(updatePeriodS: 120), .off
        ]
        let receiver = identity("ublox-m8")
        var total = 0.0, index = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            index &+= 1
            var config = SensorConfiguration(
                rateHz: Double(1 + index % 200), powerMode: modes[index % 3], oversampling: 1 << (index % 5))
            for chip in chips {
                config.rateHz += 0.5
                total += EnergyModel.draw(chip: chip, configuration: config, enabled: index % 7 != 0)?.milliWatt ?? 0
            }
            total += EnergyModel.draw(receiver: receiver, mode: receiverModes[index % 4])?.milliWatt ?? 0
            total += EnergyModel.draw(receiver: receiver, state: .acquiring)?.milliAmp ?? 0
        }
        benchmark.stopMeasurement()
        blackHole(total)
    }
}
