import Glibc
import LodestoneCore
import Testing
@testable import LodestoneLinux

/// IIOContext, IIOSensor and IIOBufferedCapture against the real kernel's IIO drivers bound to i2c-stub chips.
/// Runs only under the kernel-vm tool with `LODESTONE_KERNEL_IIO=1` and its default presets (bmp280@0x76:
/// Bosch datasheet §3.12 example; lis3mdl@0x1c: raw 1000, -500, 2000) and its `tick0` trigger.
@Suite(
    .serialized,
    .enabled(if: getenv("LODESTONE_KERNEL_IIO") != nil, "set LODESTONE_KERNEL_IIO=1: runs in the kernel-vm QEMU guest"))
struct KernelIIO {
    @Test func bmp280DriverValuesInSI() throws {
        let context = try IIOContext()
        let barometer = try IIOSensor(context: context, device: "bmp280")
        let r = try barometer.read(timeS: 1)
        #expect(abs(try #require(r.pressurePa) - 100_653.25) < 0.01)
        #expect(r.temperatureC == 25.08)
        #expect(try barometer.mountMatrix(for: .pressure) == nil)
    }

    @Test func lis3mdlRawTimesScaleInMicrotesla() throws {
        let context = try IIOContext()
        let magnetometer = try IIOSensor(context: context, device: "lis3mdl")
        let scaleGauss = try #require(Double(try magnetometer.attribute("scale", channel: "magn_x")))
        let field = try #require(try magnetometer.read().magneticFieldMicroTesla)
        #expect((field - Vector3(1000, -500, 2000) * scaleGauss * 100).length < 1e-9)
        let available = try magnetometer.availableSamplingFrequencies()
        guard case .list(let rates) = available, let rate = rates.last else { Issue.record("\(available)"); return }
        #expect(try magnetometer.setSamplingFrequency(hz: rate) == rate)
    }

    @Test func lis3mdlBufferedThroughTheTickTrigger() throws {
        let context = try IIOContext()
        try context.setTimeout(milliseconds: 5000)
        #expect(try context.setTriggerSamplingFrequency("tick0", hz: 50) == 50)
        let magnetometer = try IIOSensor(context: context, device: "lis3mdl")
        let scaleGauss = try #require(Double(try magnetometer.attribute("scale", channel: "magn_x")))
        let capture = try IIOBufferedCapture(sensor: magnetometer, samplesPerRefill: 4, trigger: "tick0")
        let before = MonotonicClock.nowS()
        let readings = try capture.refill()
        #expect(readings.count == 4)
        for r in readings {
            let field = try #require(r.magneticFieldMicroTesla)
            #expect((field - Vector3(1000, -500, 2000) * scaleGauss * 100).length < 1e-9)
            // current_timestamp_clock was set to monotonic, so buffer stamps are on MonotonicClock's scale.
            #expect(abs(r.timeS - before) < 10)
        }
        #expect(zip(readings, readings.dropFirst()).allSatisfy { $0.timeS < $1.timeS })
        try context.setTriggerSamplingFrequency("tick0", hz: 0)
    }
}
