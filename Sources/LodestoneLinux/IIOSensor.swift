import CLodestoneLinux
import LodestoneCore

/// One input channel and how to turn it into SI: `_input` when the driver has it, else
/// (`_raw` + `_offset`) × `_scale`, then the ABI-unit-to-SI factor of its type.
struct IIOChannelReader {
    let pointer: OpaquePointer
    let id: String
    let type: IIOChannelType
    let hasInput: Bool
    let hasOffset: Bool
    let hasScale: Bool
    /// ABI unit → SI: `value * multiplier / divisor` (`IIOChannelType.si(fromABI:)`).
    let siMultiplier: Double
    let siDivisor: Double
    /// The index in `IIOSensor.quirks` of the kernel-driver quirk that applies to this channel, if any.
    var quirk: Int?

    init?(_ channel: OpaquePointer) {
        guard !iio_channel_is_output(channel), let idPointer = iio_channel_get_id(channel) else { return nil }
        let id = String(cString: idPointer)
        let type = IIOChannelType(channelID: id)
        guard let (multiplier, divisor) = type.siConversion, type != .timestamp else { return nil }
        func has(_ attribute: String) -> Bool { attribute.withCString { iio_channel_find_attr(channel, $0) != nil } }
        let hasInput = has("input")
        guard hasInput || has("raw") else { return nil }
        self.pointer = channel; self.id = id; self.type = type; self.hasInput = hasInput
        self.hasOffset = has("offset"); self.hasScale = has("scale")
        self.siMultiplier = multiplier; self.siDivisor = divisor
    }
}

/// Three channels of one vector quantity, in the chip's x, y, z order.
struct IIOAxes {
    let x: IIOChannelReader, y: IIOChannelReader, z: IIOChannelReader
}

/// Reads one IIO device's current values through sysfs attributes (one-shot reads, no buffer), in SI and in
/// the chip's axes, following the kernel's IIO ABI (Documentation/ABI/testing/sysfs-bus-iio):
///
/// - each channel: `_input` if present (already in the ABI's unit), else (`_raw` + `_offset`) × `_scale`, the
///   scale shared by type (`in_accel_scale`) or per channel (`in_accel_x_scale`), offset 0 and scale 1 when
///   absent; scale and offset are read at every `read` so a range change by anyone is honoured;
/// - then ABI units to SI: accel m/s² and anglvel rad/s as they are, magn gauss → µT (×100), pressure
///   kPa → Pa (×1000), temp milli-°C → °C (÷1000), humidityrelative milli-percent → percent (÷1000).
///
/// The mount matrix is not applied: `mountMatrix(for:)` gives it, and `SensorReading.mounted(by:)` applies it.
///
/// Known kernel-driver unit mistakes (`IIOQuirks.table`) are corrected for the device's name and the kernel's
/// version (libiio's `local,kernel` context attribute), on values that show the mistake; `quirks` lists those that
/// apply and `notices` says so in one line each.
///
/// `read` makes no Swift allocation, but every attribute read is an `fopen`/`fread` inside libiio (and a
/// one-shot conversion in many drivers, which can sleep for milliseconds): for sustained rates use
/// `IIOBufferedCapture`. Not thread-safe, like its context.
public final class IIOSensor {
    /// The context the device belongs to (kept alive by the sensor).
    public let context: IIOContext
    /// The device as libiio lists it.
    public let info: IIODeviceInfo
    let device: OpaquePointer
    /// `iio:device0 (bmp280)`, for errors.
    let deviceLabel: String
    let acceleration: IIOAxes?
    let angularVelocity: IIOAxes?
    let magneticField: IIOAxes?
    let pressure: IIOChannelReader?
    let temperature: IIOChannelReader?
    let relativeHumidity: IIOChannelReader?
    /// The kernel's version, from `kernelRelease` or libiio's `local,kernel` context attribute; `nil` when unknown.
    public let kernelVersion: KernelVersion?
    /// The kernel-driver quirks that apply to this device (by name and kernel version).
    public let quirks: [IIOQuirk]
    /// For each of `quirks`: whether a value has shown the mistake (and been corrected) yet.
    public private(set) var quirkObserved: [Bool]

    /// The sensor for the device whose id (`iio:device0`), label or name (`bmp280`) is `device`.
    /// - Parameter kernelRelease: the kernel release the quirks are matched against (`uname -r` form); default:
    ///   the context's `local,kernel` attribute (the remote's kernel for an `ip:` context).
    /// - Throws: `.noSuchDevice`, or `.noSuchChannel` when the device has no channel Lodestone reads
    ///   (accel, anglvel, magn x/y/z; pressure; temp; humidityrelative).
    public init(context: IIOContext, device name: String, kernelRelease: String? = nil) throws(IIOError) {
        guard let device = context.findDevice(name) else {
            let known = context.devices.map { "\($0.id) (\($0.name ?? "?"))" }.joined(separator: ", ")
            throw IIOError(
                kind: .noSuchDevice, uri: context.uri, device: name,
                detail: "no such device; present: " + (known.isEmpty ? "none" : known))
        }
        self.context = context
        self.device = device
        self.info = IIOContext.info(of: device)
        self.deviceLabel = info.id + (info.name.map { " (\($0))" } ?? "")
        let kernelVersion = (kernelRelease ?? context.kernelRelease).flatMap(KernelVersion.init(release:))
        let quirks = IIOQuirks.applicable(deviceName: info.name, kernel: kernelVersion)
        self.kernelVersion = kernelVersion
        self.quirks = quirks
        self.quirkObserved = quirks.map { _ in false }
        var readers: [String: IIOChannelReader] = [:]
        for i in 0..<iio_device_get_channels_count(device) {
            if let channel = iio_device_get_channel(device, i), var reader = IIOChannelReader(channel) {
                reader.quirk = quirks.firstIndex { $0.channelType == reader.type }
                readers[reader.id] = reader
            }
        }
        func axes(_ type: IIOChannelType) -> IIOAxes? {
            guard let x = readers[type.rawValue + "_x"], let y = readers[type.rawValue + "_y"],
                let z = readers[type.rawValue + "_z"]
            else { return nil }
            return IIOAxes(x: x, y: y, z: z)
        }
        /// The unmodified channel of `type` (`temp`, `temp0`), else the first with a modifier (`temp_ambient`).
        func scalar(_ type: IIOChannelType) -> IIOChannelReader? {
            let candidates = readers.values.filter { $0.type == type }.sorted { $0.id < $1.id }
            return candidates.first { !$0.id.contains("_") } ?? candidates.first
        }
        acceleration = axes(.acceleration)
        angularVelocity = axes(.angularVelocity)
        magneticField = axes(.magneticField)
        pressure = scalar(.pressure)
        temperature = scalar(.temperature)
        relativeHumidity = scalar(.relativeHumidity)
        if acceleration == nil && angularVelocity == nil && magneticField == nil && pressure == nil
            && temperature == nil && relativeHumidity == nil
        {
            throw IIOError(
                kind: .noSuchChannel, uri: context.uri, device: deviceLabel,
                detail: "no channel Lodestone can read (accel/anglvel/magn x, y, z, pressure, temp, humidityrelative)")
        }
    }

    /// One line per quirk that applies: what the kernel driver gets wrong and what Lodestone does about it.
    public var notices: [String] {
        quirks.map { $0.notice(device: deviceLabel, kernel: kernelVersion) }
    }

    /// `scale` of a channel of `type` with the quirks' scale corrections applied when it shows the mistake (for
    /// readers that read the scale once, like `IIOBufferedCapture`).
    func correctedScale(_ scale: Double, type: IIOChannelType) -> Double {
        guard let q = quirks.firstIndex(where: { $0.channelType == type }), case .multiplyScale(let f) = quirks[q].correction,
            quirks[q].signature.matches(scale: scale)
        else { return scale }
        quirkObserved[q] = true
        return scale * f
    }

    /// What the device measures.
    public var kinds: [SensorKind] {
        var k: [SensorKind] = []
        if pressure != nil { k.append(.barometer) }
        if acceleration != nil { k.append(.accelerometer) }
        if angularVelocity != nil { k.append(.gyroscope) }
        if magneticField != nil { k.append(.magnetometer) }
        if temperature != nil, k.isEmpty { k.append(.thermometer) }
        return k
    }

    /// Reads every quantity the device has, in SI units and the chip's axes, stamped `timeS`.
    /// - Throws: `.readFailed` with the channel and attribute when the driver fails (e.g. EIO from the chip);
    ///   never returns a partial or stale reading. EBUSY (another process has the device's buffer enabled, so the driver refuses one-shot reads) says who
    ///   holds it and what to do (`explainingBusy`).
    public func read(timeS: Double = 0) throws(IIOError) -> SensorReading {
        var reading = SensorReading(timeS: timeS)
        do {
            if let a = acceleration { reading.accelerationMps2 = try vector(a) }
            if let g = angularVelocity { reading.angularVelocityRadS = try vector(g) }
            if let m = magneticField { reading.magneticFieldMicroTesla = try vector(m) }
            if let p = pressure { reading.pressurePa = try value(p) }
            if let t = temperature { reading.temperatureC = try value(t) }
        } catch {
            throw explainingBusy(error)
        }
        return reading
    }

    /// `error` with, when it is EBUSY on a local device, who holds the device (`/dev/iio:deviceN` in `/proc/*/fd`),
    /// whether its buffer is enabled, and what to do, in its detail; other errors unchanged.
    public func explainingBusy(_ error: IIOError, procRoot: String = "/proc") -> IIOError {
        guard error.errno == BusError.Errno.EBUSY, context.uri == "local:" else { return error }
        let enable = Syscalls.readSmallFile("/sys/bus/iio/devices/\(info.id)/buffer/enable")
        let bufferEnabled: Bool? = if case .success(let t) = enable { Substring(t).trimmingWhitespace == "1" } else { nil }
        var explained = error
        explained.detail +=
            ": "
            + DeviceHolders.iioBusyAdvice(
                DeviceHolders.look(for: "/dev/\(info.id)", procRoot: procRoot), bufferEnabled: bufferEnabled)
        return explained
    }

    /// Relative humidity, percent, or `nil` when the device has no `humidityrelative` channel (`SensorReading`
    /// has no humidity field).
    public func relativeHumidityPercent() throws(IIOError) -> Double? {
        guard let h = relativeHumidity else { return nil }
        return try value(h)
    }

    /// The mount matrix for channels of `type`: the per-type attribute (`in_accel_mount_matrix`, which libiio
    /// lists as `mount_matrix` on each accel channel), else the device's `mount_matrix`, else the direction-wide
    /// `in_mount_matrix` (libiio lists it as channel `mount`, attribute `matrix`). `nil` when the driver gives
    /// none, which the ABI defines as the identity.
    /// - Throws: `.readFailed`, or `.malformedValue` for text that is not 3 rows of 3 numbers.
    public func mountMatrix(for type: IIOChannelType) throws(IIOError) -> Matrix3? {
        let text: String
        if let channel = inputChannel(of: type, having: "mount_matrix") {
            text = try readString(channel, "mount_matrix")
        } else if hasDeviceAttribute("mount_matrix") {
            text = try readString(nil, "mount_matrix")
        } else if let channel = "mount".withCString({ iio_device_find_channel(device, $0, false) }),
            channelHas(channel, "matrix")
        {
            text = try readString(channel, "matrix")
        } else {
            return nil
        }
        do {
            return try IIOMountMatrix.parse(text)
        } catch {
            var e = error
            e.uri = context.uri; e.device = deviceLabel
            throw e
        }
    }

    /// The current output data rate, Hz: `sampling_frequency` of channels of `type` when given and present
    /// (e.g. `in_accel_sampling_frequency`), else the device's.
    public func samplingFrequencyHz(for type: IIOChannelType? = nil) throws(IIOError) -> Double {
        let home = try attributeHome("sampling_frequency", type: type)
        return try readDouble(home, "sampling_frequency")
    }

    /// Writes `sampling_frequency` (device-level, or of channels of `type`) and returns what the driver chose,
    /// read back: drivers round to the nearest rate they support.
    /// - Throws: `.noSuchAttribute`, `.writeFailed` (EINVAL: a rate the driver refuses), `.readFailed`.
    @discardableResult
    public func setSamplingFrequency(hz: Double, for type: IIOChannelType? = nil) throws(IIOError) -> Double {
        let home = try attributeHome("sampling_frequency", type: type)
        guard let text = IIOAttributeText.decimal(hz), hz > 0 else {
            throw IIOError(
                kind: .writeFailed, uri: context.uri, device: deviceLabel, channel: home.flatMap(channelID),
                attribute: "sampling_frequency", errno: BusError.Errno.EINVAL,
                detail: "\(hz) Hz is not a rate: give a positive number")
        }
        let result = "sampling_frequency".withCString { name in
            text.withCString { value in
                Syscalls.call(.returnsNegatedErrno) {
                    home.map { iio_channel_attr_write($0, name, value) } ?? iio_device_attr_write(device, name, value)
                }
            }
        }
        if case .failure(let e) = result {
            throw IIOError(
                kind: .writeFailed, uri: context.uri, device: deviceLabel, channel: home.flatMap(channelID),
                attribute: "sampling_frequency", errno: e.rawValue, detail: "cannot set \(text) Hz")
        }
        return try readDouble(home, "sampling_frequency")
    }

    /// `sampling_frequency_available` (device-level, or of channels of `type`), parsed.
    public func availableSamplingFrequencies(for type: IIOChannelType? = nil) throws(IIOError) -> IIOAvailableValues {
        let home = try attributeHome("sampling_frequency_available", type: type)
        let text = try readString(home, "sampling_frequency_available")
        do {
            return try IIOAvailableValues.parse(text)
        } catch {
            var e = error
            e.uri = context.uri; e.device = deviceLabel; e.attribute = "sampling_frequency_available"
            throw e
        }
    }

    /// The text of a device attribute, or of `channel`'s attribute (libiio names: `raw`, `scale`, …).
    public func attribute(_ name: String, channel: String? = nil) throws(IIOError) -> String {
        guard let channel else {
            guard hasDeviceAttribute(name) else { throw noSuchAttribute(name, channel: nil) }
            return try readString(nil, name)
        }
        guard let pointer = findChannel(channel) else {
            throw IIOError(
                kind: .noSuchChannel, uri: context.uri, device: deviceLabel, channel: channel, detail: "no such channel")
        }
        guard channelHas(pointer, name) else { throw noSuchAttribute(name, channel: channel) }
        return try readString(pointer, name)
    }

    // MARK: internals

    @inline(__always)
    func vector(_ axes: IIOAxes) throws(IIOError) -> Vector3 {
        Vector3(try value(axes.x), try value(axes.y), try value(axes.z))
    }

    /// One channel's value in SI, with its quirk's correction where the value shows the mistake.
    @inline(__always)
    func value(_ c: IIOChannelReader) throws(IIOError) -> Double {
        var abi: Double
        if c.hasInput {
            abi = try readDouble(c.pointer, "input")
        } else {
            var raw = try readDouble(c.pointer, "raw")
            let offset = c.hasOffset ? try readDouble(c.pointer, "offset") : 0
            var scale = c.hasScale ? try readDouble(c.pointer, "scale") : 1
            if let q = c.quirk {
                switch (quirks[q].signature, quirks[q].correction) {
                case (.rawAbove(let limit), .signExtendRaw16) where raw > limit:
                    raw -= 65536
                    quirkObserved[q] = true
                case (_, .multiplyScale(let f)) where quirks[q].signature.matches(scale: scale):
                    scale *= f
                    quirkObserved[q] = true
                default:
                    break
                }
            }
            abi = (raw + offset) * scale
        }
        if let q = c.quirk,
            case let (.valueOutside(valid), .clamp(range, overshootLimit)) = (quirks[q].signature, quirks[q].correction),
            !valid.contains(abi)
        {
            abi = abi > range.upperBound && abi <= overshootLimit ? range.upperBound : range.lowerBound
            quirkObserved[q] = true
        }
        return abi * c.siMultiplier / c.siDivisor
    }

    /// A channel attribute or (channel `nil`) device attribute as a number (`iio_*_attr_read_double`).
    @inline(__always)
    func readDouble(_ channel: OpaquePointer?, _ attribute: StaticString) throws(IIOError) -> Double {
        var v = 0.0
        let result = attribute.withUTF8Buffer { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { name in
                Syscalls.call(.returnsNegatedErrno) {
                    channel.map { iio_channel_attr_read_double($0, name.baseAddress, &v) }
                        ?? iio_device_attr_read_double(device, name.baseAddress, &v)
                }
            }
        }
        if case .failure(let e) = result {
            throw IIOError(
                kind: .readFailed, uri: context.uri, device: deviceLabel, channel: channel.flatMap(channelID),
                attribute: "\(attribute)", errno: e.rawValue, detail: "read failed")
        }
        return v
    }

    /// A channel attribute or (channel `nil`) device attribute as text, without the trailing newline.
    func readString(_ channel: OpaquePointer?, _ attribute: String) throws(IIOError) -> String {
        let capacity = 4096
        let result: Result<String, Errno> = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
            base[0] = 0
            let read = attribute.withCString { name in
                Syscalls.call(.returnsNegatedErrno) {
                    channel.map { iio_channel_attr_read($0, name, base, capacity) }
                        ?? iio_device_attr_read(device, name, base, capacity)
                }
            }
            base[capacity - 1] = 0
            return read.map { _ in String(cString: base) }
        }
        switch result {
        case .success(let s): return String(Substring(s).trimmingWhitespace)
        case .failure(let e):
            throw IIOError(
                kind: .readFailed, uri: context.uri, device: deviceLabel, channel: channel.flatMap(channelID),
                attribute: attribute, errno: e.rawValue, detail: "read failed")
        }
    }

    /// Where `attribute` lives: a channel of `type` when given and it has one, else the device, else (no type
    /// given) the first input channel that has it.
    func attributeHome(_ attribute: String, type: IIOChannelType?) throws(IIOError) -> OpaquePointer? {
        if let type, let channel = inputChannel(of: type, having: attribute) { return channel }
        if hasDeviceAttribute(attribute) { return nil }
        if type == nil {
            for i in 0..<iio_device_get_channels_count(device) {
                if let c = iio_device_get_channel(device, i), !iio_channel_is_output(c), channelHas(c, attribute) { return c }
            }
        }
        throw noSuchAttribute(attribute, channel: nil, detail: type.map { "no \(attribute) for \($0) channels or the device" })
    }

    func inputChannel(of type: IIOChannelType, having attribute: String) -> OpaquePointer? {
        for i in 0..<iio_device_get_channels_count(device) {
            guard let c = iio_device_get_channel(device, i), !iio_channel_is_output(c),
                let id = channelID(c), IIOChannelType(channelID: id) == type, channelHas(c, attribute)
            else { continue }
            return c
        }
        return nil
    }

    func findChannel(_ id: String) -> OpaquePointer? {
        id.withCString { iio_device_find_channel(device, $0, false) ?? iio_device_find_channel(device, $0, true) }
    }

    func channelHas(_ channel: OpaquePointer, _ attribute: String) -> Bool {
        attribute.withCString { iio_channel_find_attr(channel, $0) != nil }
    }

    func hasDeviceAttribute(_ attribute: String) -> Bool {
        attribute.withCString { iio_device_find_attr(device, $0) != nil }
    }

    func channelID(_ channel: OpaquePointer) -> String? { IIOContext.string(iio_channel_get_id(channel)) }

    func noSuchAttribute(_ name: String, channel: String?, detail: String? = nil) -> IIOError {
        IIOError(
            kind: .noSuchAttribute, uri: context.uri, device: deviceLabel, channel: channel, attribute: name,
            detail: detail ?? "no such attribute")
    }
}
