import CLodestoneLinux
import Glibc
import LodestoneCore
import Testing
@testable import LodestoneLinux

/// A fake sysfs for libiio's real local backend.
///
/// What libiio 0.24's local backend needs (local.c, `local_create_context`): `/sys/bus/iio/devices` must exist
/// (else the context fails with ENOENT); each entry there that `stat(2)`s as a directory (real sysfs uses
/// symlinks into `/sys/devices/...`) becomes a device; every regular file in it is an attribute or channel
/// attribute (`dev` and `uevent` are skipped, `name` becomes the device name), sub-directories are skipped
/// except `buffer/` (buffer attributes) and `scan_elements/` (`*_en`, `*_index`, `*_type`); every entry must
/// `stat` (a dangling symlink aborts the scan). Attribute reads drop the last byte, which sysfs always makes a
/// newline, so every file here ends with "\n". Buffered capture opens `/dev/iio:deviceN` (a FIFO here, so
/// libiio falls back to plain `read(2)`, its "low-speed" mode, exactly as on mainline kernels) and writes
/// `buffer/length`, `buffer/enable`, `scan_elements/*_en` and `trigger/current_trigger`.
enum FakeSysfs {
    static let devices = "/sys/bus/iio/devices"

    static func file(_ path: String, _ value: String) throws { try TestFS.write(path, value + "\n") }

    /// A device directory under /sys/devices, linked from /sys/bus/iio/devices as the kernel does.
    static func device(_ id: String, parent: String, attributes: [(String, String)]) throws -> String {
        let dir = "/sys/devices/\(parent)/\(id)"
        try TestFS.makeDirectories(dir + "/power")
        guard symlink("../../../devices/\(parent)/\(id)", "\(devices)/\(id)") == 0 else {
            throw TestFailure("symlink \(id): errno \(errno)")
        }
        let depth = parent.split(separator: "/").count + 2
        let up = String(repeating: "../", count: depth)
        guard symlink(up + "bus/iio", dir + "/subsystem") == 0 else { throw TestFailure("symlink subsystem: errno \(errno)") }
        for (name, value) in attributes { try file(dir + "/" + name, value) }
        return dir
    }

    /// Builds the tree on an (empty) tmpfs mounted at /sys.
    static func build() throws {
        try TestFS.makeDirectories(devices)
        try TestFS.makeDirectories("/sys/bus/iio/drivers")

        // iio:device0 — a BMI160-like IMU: raw accel/gyro with shared-by-type scale and sampling frequency,
        // per-type mount matrices, a temperature with offset, buffer support.
        let imu = try device(
            "iio:device0", parent: "platform/i2c-fake/i2c-1/1-0069",
            attributes: [
                ("name", "bmi160"), ("dev", "250:0"), ("uevent", "MAJOR=250\nMINOR=0\nDEVNAME=iio:device0\nDEVTYPE=iio_device"),
                ("in_accel_x_raw", "1000"), ("in_accel_y_raw", "-2000"), ("in_accel_z_raw", "16384"),
                ("in_accel_scale", "0.000598"), ("in_accel_scale_available", "0.000598 0.001197 0.002394 0.004788"),
                ("in_accel_sampling_frequency", "100.000000"),
                ("in_accel_sampling_frequency_available", "0.78125 1.5625 3.125 6.25 12.5 25 50 100 200 400 800 1600"),
                ("in_accel_mount_matrix", "0, 1, 0; -1, 0, 0; 0, 0, 1"),
                ("in_anglvel_x_raw", "131"), ("in_anglvel_y_raw", "-262"), ("in_anglvel_z_raw", "0"),
                ("in_anglvel_scale", "0.001065"), ("in_anglvel_sampling_frequency", "100.000000"),
                ("in_anglvel_sampling_frequency_available", "25 50 100 200 400 800 1600 3200"),
                ("in_anglvel_mount_matrix", "0, 1, 0; -1, 0, 0; 0, 0, 1"),
                ("in_temp_raw", "-521"), ("in_temp_offset", "12420"), ("in_temp_scale", "2.941176"),
                ("current_timestamp_clock", "realtime")
            ])
        try TestFS.makeDirectories(imu + "/buffer")
        try TestFS.makeDirectories(imu + "/scan_elements")
        try TestFS.makeDirectories(imu + "/trigger")
        for (name, value) in [("enable", "0"), ("length", "0"), ("watermark", "1"), ("data_available", "0")] {
            try file(imu + "/buffer/" + name, value)
        }
        try file(imu + "/trigger/current_trigger", "")
        let scan: [(String, Int, String)] = [
            ("anglvel_x", 0, "le:s16/16>>0"), ("anglvel_y", 1, "le:s16/16>>0"), ("anglvel_z", 2, "le:s16/16>>0"),
            ("accel_x", 3, "le:s16/16>>0"), ("accel_y", 4, "le:s16/16>>0"), ("accel_z", 5, "le:s16/16>>0"),
            ("temp", 6, "be:s12/16>>4"), ("timestamp", 7, "le:s64/64>>0")
        ]
        for (channel, index, type) in scan {
            try file(imu + "/scan_elements/in_\(channel)_en", "0")
            try file(imu + "/scan_elements/in_\(channel)_index", "\(index)")
            try file(imu + "/scan_elements/in_\(channel)_type", type)
        }

        // iio:device1 — an st_magn-like LIS3MDL: per-axis raw and scale (gauss), device-level sampling
        // frequency, a direction-wide in_mount_matrix.
        _ = try device(
            "iio:device1", parent: "platform/i2c-fake/i2c-1/1-001c",
            attributes: [
                ("name", "lis3mdl"), ("dev", "250:1"), ("uevent", "MAJOR=250\nMINOR=1\nDEVNAME=iio:device1\nDEVTYPE=iio_device"),
                ("in_magn_x_raw", "1000"), ("in_magn_y_raw", "-500"), ("in_magn_z_raw", "2000"),
                ("in_magn_x_scale", "0.000146"), ("in_magn_y_scale", "0.000146"), ("in_magn_z_scale", "0.000146"),
                ("in_magn_scale_available", "0.000146 0.000292 0.000438 0.000584"),
                ("sampling_frequency", "80"), ("sampling_frequency_available", "0.625 1.25 2.5 5 10 20 40 80"),
                ("in_mount_matrix", "-1, 0, 0; 0, -1, 0; 0, 0, 1")
            ])

        // iio:device2 — a bmp280-driver BME280: processed values only (_input), no sampling_frequency.
        _ = try device(
            "iio:device2", parent: "platform/i2c-fake/i2c-1/1-0076",
            attributes: [
                ("name", "bme280"), ("dev", "250:2"), ("uevent", "MAJOR=250\nMINOR=2\nDEVNAME=iio:device2\nDEVTYPE=iio_device"),
                ("in_pressure_input", "100.653253906"), ("in_temp_input", "25080"), ("in_humidityrelative_input", "45641"),
                ("in_pressure_oversampling_ratio", "16"), ("in_pressure_oversampling_ratio_available", "1 2 4 8 16"),
                ("in_temp_oversampling_ratio", "2"), ("in_humidityrelative_oversampling_ratio", "1")
            ])

        // trigger0 — a timer trigger like iio-trig-hrtimer / the kernel-vm tool's iio-trig-tick.
        _ = try device(
            "trigger0", parent: "iio_sysfs_trigger",
            attributes: [
                ("name", "tick0"), ("sampling_frequency", "100"), ("uevent", "")
            ])
    }

    /// One IMU sample as the kernel lays it out for the scan elements above with all of them enabled:
    /// anglvel x/y/z, accel x/y/z, temp (le s16 ×6, be s12<<4), 2 bytes of padding, timestamp (le s64 at 16).
    static func imuSample(gyro: (Int16, Int16, Int16), accel: (Int16, Int16, Int16), temp12: Int16, timestampNs: Int64) -> [UInt8]
    {
        var b: [UInt8] = []
        for v in [gyro.0, gyro.1, gyro.2, accel.0, accel.1, accel.2] {
            b += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
        }
        let t = UInt16(bitPattern: temp12 << 4) | 0x000A // junk in the 4 bits below the shift
        b += [UInt8(t >> 8), UInt8(t & 0xFF), 0, 0]
        for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: timestampNs >> (8 * i))) }
        return b
    }
}

/// A sysfs file's value as the kernel would take it: libiio writes `strlen + 1` bytes (the value and its NUL),
/// which sysfs stores on tmpfs verbatim; the kernel's parsers stop at the NUL or newline.
func sysfsValue(_ path: String) -> String? {
    TestFS.readText(path).map { String($0.prefix { $0 != "\0" && $0 != "\n" }) }
}

@Suite(.serialized) struct LibiioLocalBackendOnFakeSysfs {
    struct Observed {
        var emptySysfsError: IIOError?
        var devices: [IIODeviceInfo] = []
        var imu: SensorReading?
        var magnetometer: SensorReading?
        var barometer: SensorReading?
        var humidityPercent: Double?
        var imuKinds: [SensorKind] = []
        var accelMount: Matrix3?
        var gyroMount: Matrix3?
        var magnMount: Matrix3?
        var baroMount: Matrix3?
        var malformedMountError: IIOError?
        var accelRateHz: Double?
        var accelRateSetHz: Double?
        var accelRateFile: String?
        var gyroRateFileAfterAccelSet: String?
        var accelRatesAvailable: IIOAvailableValues?
        var magnRateSetHz: Double?
        var magnRateFile: String?
        var magnRatesAvailable: IIOAvailableValues?
        var baroRateError: IIOError?
        var noSuchDeviceError: IIOError?
        var vanishedAttributeError: IIOError?
        var byName: String?
        var triggerRateHz: Double?
        var triggerRateFile: String?
        var triggerOnSensorError: IIOError?
        var badRateError: IIOError?
    }

    @Test(.enabled(if: MountNamespace.isAvailable, MountNamespace.unavailableReason))
    func libiioReadsTheFakeSysfsInSI() throws {
        let o = try MountNamespace.run { () throws -> Observed in
            var o = Observed()
            guard mount("lodestone-fake-sysfs", "/sys", "tmpfs", 0, "mode=0755") == 0 else {
                throw TestFailure("mount tmpfs on /sys: errno \(errno)")
            }
            defer { umount2("/sys", Int32(MNT_DETACH)) }
            do throws(IIOError) { _ = try IIOContext() } catch { o.emptySysfsError = error }

            try FakeSysfs.build()
            let context = try IIOContext(uri: "local:")
            o.devices = context.devices

            let imu = try IIOSensor(context: context, device: "iio:device0")
            o.imuKinds = imu.kinds
            o.imu = try imu.read(timeS: 12.5)
            o.accelMount = try imu.mountMatrix(for: .acceleration)
            o.gyroMount = try imu.mountMatrix(for: .angularVelocity)
            o.accelRateHz = try imu.samplingFrequencyHz(for: .acceleration)
            o.accelRateSetHz = try imu.setSamplingFrequency(hz: 200, for: .acceleration)
            o.accelRateFile = TestFS.readText("/sys/bus/iio/devices/iio:device0/in_accel_sampling_frequency")
            o.gyroRateFileAfterAccelSet = TestFS.readText("/sys/bus/iio/devices/iio:device0/in_anglvel_sampling_frequency")
            o.accelRatesAvailable = try imu.availableSamplingFrequencies(for: .acceleration)

            let magnetometer = try IIOSensor(context: context, device: "lis3mdl") // by name
            o.byName = magnetometer.info.id
            o.magnetometer = try magnetometer.read()
            o.magnMount = try magnetometer.mountMatrix(for: .magneticField)
            o.magnRateSetHz = try magnetometer.setSamplingFrequency(hz: 40)
            o.magnRateFile = TestFS.readText("/sys/bus/iio/devices/iio:device1/sampling_frequency")
            o.magnRatesAvailable = try magnetometer.availableSamplingFrequencies()
            try FakeSysfs.file("/sys/bus/iio/devices/iio:device1/in_mount_matrix", "1, 0; 0, 1")
            do throws(IIOError) { _ = try magnetometer.mountMatrix(for: .magneticField) } catch { o.malformedMountError = error }

            let barometer = try IIOSensor(context: context, device: "iio:device2")
            o.barometer = try barometer.read()
            o.humidityPercent = try barometer.relativeHumidityPercent()
            o.baroMount = try barometer.mountMatrix(for: .pressure)
            do throws(IIOError) { _ = try barometer.setSamplingFrequency(hz: 10) } catch { o.baroRateError = error }
            // The driver failing a read (here: the attribute vanishing) is an error, never the last value.
            guard unlink("/sys/bus/iio/devices/iio:device2/in_pressure_input") == 0 else { throw TestFailure("unlink") }
            do throws(IIOError) { _ = try barometer.read() } catch { o.vanishedAttributeError = error }

            do throws(IIOError) { _ = try IIOSensor(context: context, device: "bmm150") } catch { o.noSuchDeviceError = error }

            o.triggerRateHz = try context.setTriggerSamplingFrequency("tick0", hz: 50)
            o.triggerRateFile = TestFS.readText("/sys/bus/iio/devices/trigger0/sampling_frequency")
            do throws(IIOError) { try context.setTriggerSamplingFrequency("bmi160", hz: 50) } catch {
                o.triggerOnSensorError = error
            }
            do throws(IIOError) { try imu.setSamplingFrequency(hz: .nan, for: .acceleration) } catch { o.badRateError = error }
            return o
        }

        // No /sys/bus/iio/devices at all: a clear error naming the URI and errno.
        #expect(o.emptySysfsError?.kind == .contextUnavailable)
        #expect(o.emptySysfsError?.errno == ENOENT)
        #expect(o.emptySysfsError?.description.contains("IIO local:") == true)

        // Listing, as libiio's local backend built it.
        #expect(o.devices.map(\.id) == ["iio:device0", "iio:device1", "iio:device2", "trigger0"])
        #expect(o.devices.map(\.name) == ["bmi160", "lis3mdl", "bme280", "tick0"])
        #expect(o.devices.map(\.isTrigger) == [false, false, false, true])
        let imuInfo = try #require(o.devices.first)
        let accelX = try #require(imuInfo.channels.first { $0.id == "accel_x" })
        #expect(accelX.type == .acceleration && accelX.modifier == "x" && accelX.direction == .input)
        #expect(accelX.isScanElement && accelX.scanIndex == 3)
        #expect(Set(accelX.attributes).isSuperset(of: ["raw", "scale", "mount_matrix", "sampling_frequency"]))
        #expect(imuInfo.channels.contains { $0.id == "timestamp" && $0.type == .timestamp })
        #expect(imuInfo.bufferAttributes.contains("data_available"))
        #expect(!imuInfo.bufferAttributes.contains("enable") && !imuInfo.bufferAttributes.contains("length"))
        #expect(imuInfo.attributes.contains("current_timestamp_clock"))
        #expect(!imuInfo.attributes.contains("dev") && !imuInfo.attributes.contains("uevent"))
        #expect(o.devices[1].attributes.contains("sampling_frequency"))
        #expect(o.devices[2].kinds == [.barometer])
        #expect(o.imuKinds == [.accelerometer, .gyroscope])

        // IMU: (raw + offset) × scale, already m/s² and rad/s; temperature milli-°C → °C.
        let imu = try #require(o.imu)
        #expect(imu.timeS == 12.5)
        #expect(imu.accelerationMps2 == Vector3(1000 * 0.000598, -2000 * 0.000598, 16384 * 0.000598))
        #expect(imu.angularVelocityRadS == Vector3(131 * 0.001065, -262 * 0.001065, 0))
        let imuTemperature = try #require(imu.temperatureC)
        #expect(abs(imuTemperature - (-521 + 12420) * 2.941176 / 1000) < 1e-12)
        #expect(imu.pressurePa == nil && imu.magneticFieldMicroTesla == nil)
        #expect(o.accelMount == Matrix3(rows: Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, 1)))
        #expect(o.gyroMount == o.accelMount)
        #expect(
            imu.mounted(by: try #require(o.accelMount)).accelerationMps2
                == Vector3(-2000 * 0.000598, -1000 * 0.000598, 16384 * 0.000598))

        // Sampling frequency per channel type: written to in_accel_sampling_frequency only, read back.
        #expect(o.accelRateHz == 100)
        #expect(o.accelRateSetHz == 200)
        #expect(o.accelRateFile == "200\0") // libiio writes the text and its NUL
        #expect(o.gyroRateFileAfterAccelSet == "100.000000\n")
        #expect(o.accelRatesAvailable == .list([0.78125, 1.5625, 3.125, 6.25, 12.5, 25, 50, 100, 200, 400, 800, 1600]))

        // Magnetometer: per-axis scale, gauss → µT (×100); device-level sampling frequency; in_mount_matrix.
        #expect(o.byName == "iio:device1")
        let magneticField = try #require(o.magnetometer?.magneticFieldMicroTesla)
        let expectedField = Vector3(1000, -500, 2000) * 0.000146 * 100
        #expect((magneticField - expectedField).length < 1e-12)
        #expect(o.magnMount == Matrix3(rows: Vector3(-1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, 1)))
        #expect(o.magnRateSetHz == 40)
        #expect(o.magnRateFile == "40\0")
        #expect(o.magnRatesAvailable == .list([0.625, 1.25, 2.5, 5, 10, 20, 40, 80]))
        #expect(o.malformedMountError?.kind == .malformedValue)
        #expect(o.malformedMountError?.device == "iio:device1 (lis3mdl)")

        // Barometer: _input values; kPa → Pa, milli-°C → °C, milli-percent → percent (bmp280 driver, datasheet example).
        let barometer = try #require(o.barometer)
        #expect(abs(try #require(barometer.pressurePa) - 100_653.253906) < 1e-6)
        #expect(barometer.temperatureC == 25.08)
        #expect(o.humidityPercent == 45.641)
        #expect(o.baroMount == nil)
        #expect(o.baroRateError?.kind == .noSuchAttribute)
        #expect(o.baroRateError?.attribute == "sampling_frequency")
        #expect(o.vanishedAttributeError?.kind == .readFailed)
        #expect(o.vanishedAttributeError?.errno == ENOENT)
        #expect(o.vanishedAttributeError?.channel == "pressure")
        #expect(o.vanishedAttributeError?.attribute == "input")
        #expect(o.triggerRateHz == 50)
        #expect(o.triggerRateFile == "50\0")
        #expect(o.triggerOnSensorError?.kind == .noSuchTrigger)
        #expect(o.badRateError?.kind == .writeFailed && o.badRateError?.errno == EINVAL)
        #expect(o.noSuchDeviceError?.kind == .noSuchDevice)
        #expect(o.noSuchDeviceError?.description.contains("iio:device0 (bmi160)") == true)
    }

    struct Captured {
        var readings: [SensorReading] = []
        var reused: [SensorReading] = []
        var reusedCapacityStable = false
        var channelIDs: [String] = []
        var scanTypes: [String] = []
        var libiioFormats: [String] = []
        var convertMismatches: [String] = []
        var enabledDuringCapture: [String: String] = [:]
        var triggerFile: String?
        var clockFile: String?
        var bufferEnableAfter: String?
        var accelOnly: [SensorReading] = []
        var timeoutError: IIOError?
        var unknownTriggerError: IIOError?
        var notScanElementError: IIOError?
    }

    @Test(.enabled(if: MountNamespace.isAvailable, MountNamespace.unavailableReason))
    func bufferedCaptureDecodesWithOwnParserAndAgreesWithIIOChannelConvert() throws {
        let c = try MountNamespace.run { () throws -> Captured in
            var c = Captured()
            guard mount("lodestone-fake-sysfs", "/sys", "tmpfs", 0, "mode=0755") == 0 else {
                throw TestFailure("mount /sys: errno \(errno)")
            }
            defer { umount2("/sys", Int32(MNT_DETACH)) }
            guard mount("lodestone-fake-dev", "/dev", "tmpfs", 0, "mode=0755") == 0 else {
                throw TestFailure("mount /dev: errno \(errno)")
            }
            defer { umount2("/dev", Int32(MNT_DETACH)) }
            try FakeSysfs.build()
            guard mkfifo("/dev/iio:device0", 0o600) == 0 else { throw TestFailure("mkfifo: errno \(errno)") }
            // Our end of the "kernel": O_RDWR keeps a writer open so libiio never sees end of file.
            let feed = open("/dev/iio:device0", O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard feed >= 0 else { throw TestFailure("open fifo: errno \(errno)") }
            defer { close(feed) }
            func push(_ bytes: [UInt8]) throws {
                guard bytes.withUnsafeBytes({ Glibc.write(feed, $0.baseAddress, $0.count) }) == bytes.count else {
                    throw TestFailure("fifo write: errno \(errno)")
                }
            }

            let context = try IIOContext()
            try context.setTimeout(milliseconds: 300)
            let imu = try IIOSensor(context: context, device: "bmi160")
            let dev = "/sys/bus/iio/devices/iio:device0"

            do {
                let capture = try IIOBufferedCapture(sensor: imu, samplesPerRefill: 4, trigger: "tick0")
                c.channelIDs = capture.channelIDs
                c.triggerFile = sysfsValue(dev + "/trigger/current_trigger")
                c.clockFile = sysfsValue(dev + "/current_timestamp_clock")
                for name in ["accel_x", "anglvel_z", "temp", "timestamp"] {
                    c.enabledDuringCapture[name] = sysfsValue(dev + "/scan_elements/in_\(name)_en")
                }
                c.enabledDuringCapture["buffer"] = sysfsValue(dev + "/buffer/enable")
                for k in 0..<4 {
                    try push(
                        FakeSysfs.imuSample(
                            gyro: (131, -262, Int16(k)), accel: (Int16(1000 + k), -2000, 16384),
                            temp12: Int16(-100 * (k + 1)), timestampNs: 1_000_000_000 * Int64(k + 1) + 5))
                }
                c.readings = try capture.refill()

                // Differential check of the decoder against libiio's own iio_channel_convert, sample by sample.
                let step = iio_buffer_step(capture.buffer)
                for slot in capture.slots {
                    c.scanTypes.append(slot.scanType.description)
                    if let f = iio_channel_get_data_format(slot.channel)?.pointee {
                        c.libiioFormats.append(
                            (f.is_be ? "be:" : "le:") + (f.is_signed ? "s" : "u") + "\(f.bits)/\(f.length)>>\(f.shift)")
                    }
                    guard let first = iio_buffer_first(capture.buffer, slot.channel) else { continue }
                    for i in 0..<4 {
                        let src = first + i * step
                        var converted = [UInt8](repeating: 0, count: 8)
                        converted.withUnsafeMutableBytes { iio_channel_convert(slot.channel, $0.baseAddress, src) }
                        let reference: Int64 = converted.withUnsafeBytes { raw in
                            slot.scanType.storageBytes == 8 ? raw.load(as: Int64.self) : Int64(raw.load(as: Int16.self))
                        }
                        let ours = slot.scanType.decode(
                            bytes: UnsafeRawBufferPointer(start: src, count: slot.scanType.storageBytes))
                        if ours != reference {
                            c.convertMismatches.append("\(slot.id)[\(i)]: ours \(String(describing: ours)), libiio \(reference)")
                        }
                    }
                }

                // A reused array keeps its storage across refills.
                c.reused.reserveCapacity(4)
                for k in 0..<4 {
                    try push(
                        FakeSysfs.imuSample(
                            gyro: (0, 0, 0), accel: (0, 0, Int16(k)), temp12: 0, timestampNs: 5_000_000_000 + Int64(k)))
                }
                let capacityBefore = c.reused.capacity
                try capture.refill(into: &c.reused)
                c.reusedCapacityStable = c.reused.capacity == capacityBefore

                // Nothing arrives: the refill times out (context timeout 300 ms) with a typed error.
                do throws(IIOError) { _ = try capture.refill() } catch { c.timeoutError = error }
            }
            c.bufferEnableAfter = sysfsValue(dev + "/buffer/enable")

            // Only the accelerometer: sample = 3 × 2 bytes, padding to 8, timestamp → 16 bytes.
            do {
                let capture = try IIOBufferedCapture(
                    sensor: imu, channels: ["accel_x", "accel_y", "accel_z"], samplesPerRefill: 2)
                for k in 0..<2 {
                    var b: [UInt8] = []
                    for v: Int16 in [100, -100, Int16(16000 + k)] {
                        b += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
                    }
                    b += [0, 0]
                    for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: Int64(7_000_000_000 + k) >> (8 * i))) }
                    try push(b)
                }
                c.accelOnly = try capture.refill()
            }

            do throws(IIOError) { _ = try IIOBufferedCapture(sensor: imu, samplesPerRefill: 1, trigger: "nope") } catch {
                c.unknownTriggerError = error
            }
            let barometer = try IIOSensor(context: context, device: "bme280")
            do throws(IIOError) {
                _ = try IIOBufferedCapture(sensor: barometer, channels: ["pressure"], samplesPerRefill: 1)
            } catch {
                c.notScanElementError = error
            }
            return c
        }

        #expect(c.channelIDs == ["anglvel_x", "anglvel_y", "anglvel_z", "accel_x", "accel_y", "accel_z", "temp", "timestamp"])
        #expect(c.triggerFile == "tick0")
        #expect(c.clockFile == "monotonic")
        #expect(c.enabledDuringCapture == ["accel_x": "1", "anglvel_z": "1", "temp": "1", "timestamp": "1", "buffer": "1"])
        #expect(c.bufferEnableAfter == "0")
        #expect(c.scanTypes == c.libiioFormats)
        #expect(c.scanTypes.last == "le:s64/64>>0")
        #expect(c.scanTypes.contains("be:s12/16>>4"))
        #expect(c.convertMismatches.isEmpty, "\(c.convertMismatches)")

        #expect(c.readings.count == 4)
        for (k, r) in c.readings.enumerated() {
            #expect(r.timeS == Double(1_000_000_000 * Int64(k + 1) + 5) / 1e9)
            #expect(r.accelerationMps2 == Vector3(Double(1000 + k), -2000, 16384) * 0.000598)
            #expect(r.angularVelocityRadS == Vector3(131, -262, Double(k)) * 0.001065)
            let t = try #require(r.temperatureC)
            #expect(abs(t - (Double(-100 * (k + 1)) + 12420) * 2.941176 / 1000) < 1e-12)
            #expect(r.magneticFieldMicroTesla == nil && r.pressurePa == nil)
        }
        #expect(c.reused.count == 4)
        #expect(c.reused.last?.accelerationMps2 == Vector3(0, 0, 3 * 0.000598))
        #expect(c.reusedCapacityStable)
        #expect(c.timeoutError?.kind == .bufferFailed)
        #expect(c.timeoutError?.errno == ETIMEDOUT)

        #expect(c.accelOnly.count == 2)
        #expect(c.accelOnly.last?.accelerationMps2 == Vector3(100, -100, 16001) * 0.000598)
        #expect(c.accelOnly.last?.timeS == 7.000000001)
        #expect(c.accelOnly.last?.angularVelocityRadS == nil)

        #expect(c.unknownTriggerError?.kind == .noSuchTrigger)
        #expect(c.unknownTriggerError?.description.contains("tick0") == true)
        #expect(c.notScanElementError?.kind == .noSuchChannel)
    }
}
