import CLodestoneLinux
import LodestoneCore

/// The type of an IIO channel: the first word of its sysfs name (`in_<type>[N][_modifier]_<attribute>`), per
/// the kernel's IIO ABI (Documentation/ABI/testing/sysfs-bus-iio).
public struct IIOChannelType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The ABI word, e.g. `accel`.
    public let rawValue: String
    /// A type from its ABI word.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `accel`: acceleration, m/s² after scale.
    public static let acceleration = IIOChannelType(rawValue: "accel")
    /// `anglvel`: angular velocity, rad/s after scale.
    public static let angularVelocity = IIOChannelType(rawValue: "anglvel")
    /// `magn`: magnetic field, gauss after scale.
    public static let magneticField = IIOChannelType(rawValue: "magn")
    /// `pressure`: pressure, kPa after scale.
    public static let pressure = IIOChannelType(rawValue: "pressure")
    /// `temp`: temperature, milli-°C after scale.
    public static let temperature = IIOChannelType(rawValue: "temp")
    /// `humidityrelative`: relative humidity, milli-percent after scale.
    public static let relativeHumidity = IIOChannelType(rawValue: "humidityrelative")
    /// `timestamp`: buffer timestamps, ns.
    public static let timestamp = IIOChannelType(rawValue: "timestamp")
    /// `voltage`: voltage, mV after scale.
    public static let voltage = IIOChannelType(rawValue: "voltage")

    /// The type of a libiio channel id: `accel_x` → `accel`, `voltage0` → `voltage`, `temp_ambient` → `temp`.
    public init(channelID id: String) {
        let word = id.prefix { $0 != "_" && $0 != "-" }
        var end = word.endIndex
        while end > word.startIndex, word[word.index(before: end)].isNumber { end = word.index(before: end) }
        self.init(rawValue: String(word[..<end]))
    }

    /// The ABI word.
    public var description: String { rawValue }

    /// The factor from the ABI's unit (after `scale`) to Lodestone's SI unit; `nil` for types Lodestone does
    /// not read. m/s² and rad/s as they are; gauss → µT ×100; kPa → Pa ×1000; milli-°C → °C ÷1000;
    /// milli-percent → percent ÷1000; timestamp ns → s ÷10⁹.
    public var siFactor: Double? {
        guard let (multiplier, divisor) = siConversion else { return nil }
        return multiplier / divisor
    }

    /// `value` (in the ABI's unit, after `scale`) in Lodestone's SI unit; `nil` for types Lodestone does not read.
    /// Milli-units are divided rather than multiplied by 0.001, so 25080 m°C is exactly 25.08 °C.
    @inlinable
    public func si(fromABI value: Double) -> Double? {
        guard let (multiplier, divisor) = siConversion else { return nil }
        return value * multiplier / divisor
    }

    /// (multiplier, divisor) from the ABI unit to SI.
    @usableFromInline
    var siConversion: (Double, Double)? {
        switch rawValue {
        case "accel", "anglvel": (1, 1)
        case "magn": (PhysicalConstants.microTeslaPerGauss, 1)
        case "pressure": (1000, 1)
        case "temp", "humidityrelative": (1, 1000)
        case "timestamp": (1, 1_000_000_000)
        default: nil
        }
    }
}

/// Whether a channel is read (`in_`) or written (`out_`).
public enum IIOChannelDirection: String, Sendable, Hashable {
    case input, output
}

/// One channel of an IIO device, as libiio lists it.
public struct IIOChannelInfo: Sendable, Hashable {
    /// libiio's channel id, e.g. `accel_x`, `temp`, `voltage0`.
    public var id: String
    /// The channel's extended name, if it has one.
    public var name: String?
    /// The type (`accel`, `magn`, …).
    public var type: IIOChannelType
    /// The modifier after the type, e.g. `x`, `ambient`; `nil` when there is none.
    public var modifier: String?
    /// Input or output.
    public var direction: IIOChannelDirection
    /// True when the channel can be captured in a buffer (it has `scan_elements/`).
    public var isScanElement: Bool
    /// The position in a buffered sample (`scan_elements/*_index`), for scan elements.
    public var scanIndex: Int?
    /// Attribute names as libiio gives them (`raw`, `scale`, `mount_matrix`, …), shared ones included.
    public var attributes: [String]
}

/// One IIO device (or trigger), as libiio lists it.
public struct IIODeviceInfo: Sendable, Hashable {
    /// The id, e.g. `iio:device0` or `trigger0`.
    public var id: String
    /// The driver's name attribute, e.g. `bmp280`, `lis3mdl`.
    public var name: String?
    /// The firmware label, if the device has one.
    public var label: String?
    /// True for triggers.
    public var isTrigger: Bool
    /// Device-level attribute names (`sampling_frequency`, …).
    public var attributes: [String]
    /// Buffer attribute names (`watermark`, …).
    public var bufferAttributes: [String]
    /// The channels.
    public var channels: [IIOChannelInfo]

    /// The kinds of quantity Lodestone can read from this device.
    public var kinds: [SensorKind] {
        let types = Set(channels.filter { $0.direction == .input }.map(\.type))
        var k: [SensorKind] = []
        if types.contains(.pressure) { k.append(.barometer) }
        if types.contains(.acceleration) { k.append(.accelerometer) }
        if types.contains(.angularVelocity) { k.append(.gyroscope) }
        if types.contains(.magneticField) { k.append(.magnetometer) }
        if types.contains(.temperature), k.isEmpty { k.append(.thermometer) }
        return k
    }
}

/// A libiio context: the IIO devices of this machine (`local:`) or of a remote `iiod` (`ip:HOST`).
///
/// Not thread-safe (libiio contexts are not): a context and the sensors made from it belong to one task. For
/// `local:`, libiio reads `/sys/bus/iio/devices` and `/dev/iio:deviceN` when called, in the caller's mount
/// namespace.
public final class IIOContext {
    /// The URI the context was created from.
    public let uri: String
    let pointer: OpaquePointer

    /// Creates a context: `local:` → `iio_create_local_context`, `ip:HOST` → `iio_create_network_context`
    /// (an empty host asks libiio to discover one), anything else → `iio_create_context_from_uri`
    /// (`usb:`, `xml:`, `serial:`).
    /// - Throws: `IIOError.Kind.contextUnavailable` naming the URI, with errno; or, when libiio cannot be loaded,
    ///   with the Debian package to install.
    public init(uri: String = "local:") throws(IIOError) {
        self.uri = uri
        // libiio is loaded on first use: without it, say which package to install.
        if let reason = lodestone_iio_unavailable() {
            throw IIOError(kind: .contextUnavailable, uri: uri, detail: String(cString: reason))
        }
        let created: Result<OpaquePointer, Errno>
        if uri == "local:" {
            created = Syscalls.pointer { iio_create_local_context() }
        } else if uri.hasPrefix("ip:") {
            let host = String(uri.dropFirst(3))
            created =
                host.isEmpty
                ? Syscalls.pointer { iio_create_network_context(nil) }
                : host.withCString { h in Syscalls.pointer { iio_create_network_context(h) } }
        } else {
            created = uri.withCString { u in Syscalls.pointer { iio_create_context_from_uri(u) } }
        }
        switch created {
        case .success(let p): pointer = p
        case .failure(let e):
            let hint =
                switch (uri, e.rawValue) {
                case ("local:", BusError.Errno.ENOENT): ": no /sys/bus/iio/devices (is the kernel's IIO subsystem loaded?)"
                case ("local:", BusError.Errno.EACCES): ": permission denied reading sysfs"
                case (_, _) where uri.hasPrefix("ip:"): ": is iiod running on that host and reachable on port 30431?"
                default: ""
                }
            throw IIOError(
                kind: .contextUnavailable, uri: uri, errno: e.rawValue, detail: "cannot create the libiio context\(hint)")
        }
    }

    deinit { iio_context_destroy(pointer) }

    /// The timeout of buffer refills and network operations (`iio_context_set_timeout`), ms; 0 waits forever.
    public func setTimeout(milliseconds: Int) throws(IIOError) {
        let ms = UInt32(clamping: max(0, milliseconds))
        if case .failure(let e) = Syscalls.call(.returnsNegatedErrno, { iio_context_set_timeout(pointer, ms) }) {
            throw IIOError(kind: .writeFailed, uri: uri, errno: e.rawValue, detail: "cannot set the timeout")
        }
    }

    /// Sets a trigger's `sampling_frequency` (e.g. an `iio-trig-hrtimer` trigger; 0 stops it on some) and
    /// returns the value read back, Hz.
    /// - Throws: `.noSuchTrigger`, `.noSuchAttribute`, `.writeFailed`, `.readFailed`.
    @discardableResult
    public func setTriggerSamplingFrequency(_ trigger: String, hz: Double) throws(IIOError) -> Double {
        guard let device = findDevice(trigger), iio_device_is_trigger(device) else {
            throw IIOError(kind: .noSuchTrigger, uri: uri, device: trigger, detail: "no such trigger")
        }
        guard "sampling_frequency".withCString({ iio_device_find_attr(device, $0) }) != nil else {
            throw IIOError(
                kind: .noSuchAttribute, uri: uri, device: trigger, attribute: "sampling_frequency",
                detail: "this trigger has no rate (it fires on its own schedule)")
        }
        guard let text = IIOAttributeText.decimal(hz), hz >= 0 else {
            throw IIOError(
                kind: .writeFailed, uri: uri, device: trigger, attribute: "sampling_frequency",
                errno: BusError.Errno.EINVAL, detail: "\(hz) Hz is not a rate")
        }
        if case .failure(let e) = Syscalls.call(
            .returnsNegatedErrno, { iio_device_attr_write(device, "sampling_frequency", text) })
        {
            throw IIOError(
                kind: .writeFailed, uri: uri, device: trigger, attribute: "sampling_frequency", errno: e.rawValue,
                detail: "cannot set \(text) Hz")
        }
        var readBack = 0.0
        if case .failure(let e) = Syscalls.call(
            .returnsNegatedErrno, { iio_device_attr_read_double(device, "sampling_frequency", &readBack) })
        {
            throw IIOError(
                kind: .readFailed, uri: uri, device: trigger, attribute: "sampling_frequency", errno: e.rawValue,
                detail: "read failed")
        }
        return readBack
    }

    /// The kernel release of the machine the context reads (libiio's `local,kernel` context attribute, which
    /// iiod also serves for a remote context), e.g. `6.1.0-56-amd64`; `nil` when the backend does not give it.
    public var kernelRelease: String? {
        Self.string("local,kernel".withCString { iio_context_get_attr_value(pointer, $0) })
    }

    /// Every device and trigger, with channels and attribute names.
    public var devices: [IIODeviceInfo] {
        let count = iio_context_get_devices_count(pointer)
        return (0..<count).compactMap { i in iio_context_get_device(pointer, i).map(Self.info(of:)) }
    }

    /// The device whose id, label or name is `name` (`iio_context_find_device`).
    func findDevice(_ name: String) -> OpaquePointer? {
        name.withCString { iio_context_find_device(pointer, $0) }
    }

    static func info(of device: OpaquePointer) -> IIODeviceInfo {
        let channelCount = iio_device_get_channels_count(device)
        let channels: [IIOChannelInfo] = (0..<channelCount).compactMap { i in
            iio_device_get_channel(device, i).map(channelInfo(of:))
        }
        return IIODeviceInfo(
            id: string(iio_device_get_id(device)) ?? "",
            name: string(iio_device_get_name(device)),
            label: string(iio_device_get_label(device)),
            isTrigger: iio_device_is_trigger(device),
            attributes: (0..<iio_device_get_attrs_count(device)).compactMap { string(iio_device_get_attr(device, $0)) },
            bufferAttributes: (0..<iio_device_get_buffer_attrs_count(device)).compactMap {
                string(iio_device_get_buffer_attr(device, $0))
            },
            channels: channels)
    }

    static func channelInfo(of channel: OpaquePointer) -> IIOChannelInfo {
        let id = string(iio_channel_get_id(channel)) ?? ""
        let type = IIOChannelType(channelID: id)
        let rest = id.drop { $0 != "_" }.dropFirst()
        let index = iio_channel_get_index(channel)
        return IIOChannelInfo(
            id: id,
            name: string(iio_channel_get_name(channel)),
            type: type,
            modifier: rest.isEmpty ? nil : String(rest),
            direction: iio_channel_is_output(channel) ? .output : .input,
            isScanElement: iio_channel_is_scan_element(channel),
            scanIndex: index >= 0 ? Int(index) : nil,
            attributes: (0..<iio_channel_get_attrs_count(channel)).compactMap { string(iio_channel_get_attr(channel, $0)) })
    }

    static func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
}
