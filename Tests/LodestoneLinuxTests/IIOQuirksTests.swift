import CLodestoneLinux
import Glibc
import LodestoneCore
import Testing
@testable import LodestoneLinux

/// The table of kernel IIO driver mistakes (`IIOQuirks`) and its application by `IIOSensor`, through libiio's real
/// local backend on a fake sysfs (as `FakeSysfsIIOTests`), with the kernel version given explicitly.
@Suite struct IIOQuirksTests {
    // MARK: The table

    @Test func kernelReleasesParseToTheirVersion() {
        #expect(KernelVersion(release: "6.1.0-56-amd64") == KernelVersion(6, 1, 0))
        #expect(KernelVersion(release: "6.6.31+rpt-rpi-v8") == KernelVersion(6, 6, 31))
        #expect(KernelVersion(release: "5.10") == KernelVersion(5, 10, 0))
        #expect(KernelVersion(release: "4.19.0-6-arm64") == KernelVersion(4, 19, 0))
        #expect(KernelVersion(release: "6.12.1.2") == KernelVersion(6, 12, 1))
        #expect(KernelVersion(release: "unknown") == nil && KernelVersion(release: "6") == nil)
        #expect(KernelVersion(5, 8) > KernelVersion(5, 7, 19) && KernelVersion(6, 1) < KernelVersion(6, 10))
    }

    @Test func everyEntryNamesItsDriverDevicesAndSource() {
        #expect(Set(IIOQuirks.table.map(\.id)).count == IIOQuirks.table.count)
        for q in IIOQuirks.table {
            #expect(!q.deviceNames.isEmpty && !q.driver.isEmpty && !q.summary.isEmpty, "\(q.id)")
            #expect(q.source.count > 40, "\(q.id) needs a source")
        }
    }

    @Test func entriesMatchByDeviceNameAndKernelVersion() {
        func ids(_ name: String, _ release: String?) -> [String] {
            IIOQuirks.applicable(deviceName: name, kernel: release.flatMap(KernelVersion.init(release:))).map(\.id)
        }
        #expect(ids("hmc5883l", "6.1.0-56-amd64") == ["hmc5843-scale"])
        #expect(ids("hmc5983", "4.9.0") == ["hmc5843-scale"])
        #expect(ids("bme280", "5.4.0") == ["bme280-humidity-unclamped"])
        #expect(ids("bme280", "5.8.0") == []) // fixed in 5.8
        #expect(ids("bme280", nil) == ["bme280-humidity-unclamped"]) // unknown version: the signature decides
        #expect(ids("bno055", "5.15.0") == [] && ids("bno055", "6.1.0") == ["bno055-magn-scale"])
        #expect(ids("lis3mdl", "6.1.0") == [])
        #expect(IIOQuirks.applicable(deviceName: nil, kernel: nil).isEmpty)
    }

    @Test func signaturesRecogniseOnlyTheWrongValues() {
        let hmc = IIOQuirks.table.first { $0.id == "hmc5843-scale" }!
        #expect(hmc.signature.matches(scale: 0.000009174)) // what Debian's 6.1 prints at ±1.3 gauss
        #expect(!hmc.signature.matches(scale: 0.000917431)) // a correct 1/1090
        let bno = IIOQuirks.table.first { $0.id == "bno055-magn-scale" }!
        #expect(bno.signature.matches(scale: 0.006250000) && !bno.signature.matches(scale: 0.000625))
        let ak = IIOQuirks.table.first { $0.id == "ak8975-gauss-formula" }!
        #expect(ak.signature.matches(scale: 30) && !ak.signature.matches(scale: 0.003))
    }

    // MARK: Applied by IIOSensor on a fake sysfs

    struct Observed {
        var hmc: SensorReading?
        var hmcNotices: [String] = []
        var hmcObserved: [Bool] = []
        var hmcFixed: SensorReading?
        var hmcFixedObserved: [Bool] = []
        var bufferedScale: Double?
        var bnoOn61: SensorReading?
        var bnoOn515: SensorReading?
        var bnoOn515Notices: [String] = []
        var mpu3050: SensorReading?
        var humidityOld: [Double?] = []
        var humidityNew: Double?
        var kernelFromContext: String?
    }

    @Test(.enabled(if: MountNamespace.isAvailable, MountNamespace.unavailableReason))
    func theReaderCorrectsWhatTheTableListsAndSaysSo() throws {
        let o = try MountNamespace.run { () throws -> Observed in
            var o = Observed()
            guard mount("lodestone-fake-sysfs", "/sys", "tmpfs", 0, "mode=0755") == 0 else {
                throw TestFailure("mount /sys: errno \(errno)")
            }
            defer { umount2("/sys", Int32(MNT_DETACH)) }
            try TestFS.makeDirectories(FakeSysfs.devices)
            // hmc5843_i2c on Debian's 6.1: X, Z, Y raw; the shared scale the driver prints at ±1.3 gauss.
            let hmc = try FakeSysfs.device(
                "iio:device0", parent: "platform/i2c-fake/i2c-0/0-001e",
                attributes: [
                    ("name", "hmc5883l"), ("in_magn_x_raw", "300"), ("in_magn_y_raw", "200"), ("in_magn_z_raw", "-200"),
                    ("in_magn_scale", "0.000009174"), ("sampling_frequency", "15.000000")
                ])
            _ = try FakeSysfs.device(
                "iio:device1", parent: "platform/i2c-fake/i2c-0/0-0028",
                attributes: [
                    ("name", "bno055"), ("in_magn_x_raw", "800"), ("in_magn_y_raw", "-160"), ("in_magn_z_raw", "16"),
                    ("in_magn_scale", "0.006250000")
                ])
            _ = try FakeSysfs.device(
                "iio:device2", parent: "platform/i2c-fake/i2c-0/0-0068",
                attributes: [
                    ("name", "mpu3050"), ("in_temp_raw", "65000"), ("in_temp_offset", "23000"), ("in_temp_scale", "3.048780"),
                    ("in_anglvel_x_raw", "0"), ("in_anglvel_y_raw", "0"), ("in_anglvel_z_raw", "0"),
                    ("in_anglvel_scale", "0.001064724")
                ])
            _ = try FakeSysfs.device(
                "iio:device3", parent: "platform/i2c-fake/i2c-0/0-0076",
                attributes: [
                    ("name", "bme280"), ("in_pressure_input", "100.653253906"), ("in_temp_input", "25080"),
                    ("in_humidityrelative_input", "4193085")
                ])
            let context = try IIOContext()
            o.kernelFromContext = context.kernelRelease

            let magnetometer = try IIOSensor(context: context, device: "hmc5883l", kernelRelease: "6.1.0-56-amd64")
            o.hmc = try magnetometer.read()
            o.hmcNotices = magnetometer.notices
            o.hmcObserved = magnetometer.quirkObserved
            o.bufferedScale = magnetometer.correctedScale(0.000009174, type: .magneticField)
            // a kernel that prints the right scale is left alone
            try FakeSysfs.file(hmc + "/in_magn_scale", "0.000917431")
            let fixed = try IIOSensor(context: context, device: "hmc5883l", kernelRelease: "6.1.0-56-amd64")
            o.hmcFixed = try fixed.read()
            o.hmcFixedObserved = fixed.quirkObserved

            o.bnoOn61 = try IIOSensor(context: context, device: "bno055", kernelRelease: "6.1.0").read()
            let old = try IIOSensor(context: context, device: "bno055", kernelRelease: "5.15.0")
            o.bnoOn515 = try old.read()
            o.bnoOn515Notices = old.notices

            o.mpu3050 = try IIOSensor(context: context, device: "mpu3050", kernelRelease: "5.4.0").read()

            let bme = try IIOSensor(context: context, device: "bme280", kernelRelease: "5.4.0")
            o.humidityOld.append(try bme.relativeHumidityPercent())
            try FakeSysfs.file("/sys/bus/iio/devices/iio:device3/in_humidityrelative_input", "100500")
            o.humidityOld.append(try bme.relativeHumidityPercent())
            try FakeSysfs.file("/sys/bus/iio/devices/iio:device3/in_humidityrelative_input", "45641")
            o.humidityOld.append(try bme.relativeHumidityPercent())
            try FakeSysfs.file("/sys/bus/iio/devices/iio:device3/in_humidityrelative_input", "100500")
            o.humidityNew = try IIOSensor(context: context, device: "bme280", kernelRelease: "6.1.0").relativeHumidityPercent()
            return o
        }
        // HMC5883L: raw × 0.000009174 × 100 (the quirk) gauss × 100 µT/gauss, in X, Y, Z.
        let field = try #require(o.hmc?.magneticFieldMicroTesla)
        #expect((field - Vector3(300, 200, -200) * 0.000009174 * 100 * 100).length < 1e-9)
        #expect(abs(field.x - 300 / 1090.0 * 100) < 0.01) // the datasheet's 1090 LSB/gauss, within the driver's rounding
        #expect(o.hmcObserved == [true])
        #expect(
            o.hmcNotices.count == 1 && o.hmcNotices[0].contains("hmc5843-scale")
                && o.hmcNotices[0].contains("iio:device0 (hmc5883l)") && o.hmcNotices[0].contains("kernel 6.1.0"))
        #expect(abs(o.bufferedScale! - 0.0009174) < 1e-15)
        #expect((o.hmcFixed!.magneticFieldMicroTesla! - Vector3(300, 200, -200) * 0.0917431).length < 1e-9)
        #expect(o.hmcFixedObserved == [false])
        // BNO055 on 6.1: 800 LSB / 16 LSB/µT = 50 µT; before 6.1 the table does not apply (no such driver then).
        #expect((o.bnoOn61!.magneticFieldMicroTesla! - Vector3(50, -10, 1)).length < 1e-9)
        #expect((o.bnoOn515!.magneticFieldMicroTesla! - Vector3(500, -100, 10)).length < 1e-9)
        #expect(o.bnoOn515Notices.isEmpty)
        // MPU-3050: 65000 is −536 as a signed 16-bit value.
        #expect(abs(o.mpu3050!.temperatureC! - (-536 + 23000) * 3.048780 / 1000) < 1e-9)
        // BME280 before 5.8: a wrapped negative reads 0 %, an overshoot 100 %, a normal value as it is; 6.1 is trusted.
        #expect(o.humidityOld == [0, 100, 45.641])
        #expect(o.humidityNew == 100.5)
        #expect(o.kernelFromContext.flatMap(KernelVersion.init(release:)) != nil) // libiio's local,kernel is uname -r
    }
}
