import CLodestoneLinux
import LodestoneCore

/// Buffered (triggered) capture from an IIO device through libiio: the chosen channels plus `timestamp` are
/// enabled, an `iio_buffer` of `samplesPerRefill` samples is created, and each `refill` blocks until that many
/// samples are in (or the context's timeout passes), then decodes them into `SensorReading`s.
///
/// Each channel's bytes are decoded by Lodestone's own `IIOScanType` from the kernel's
/// `scan_elements/in_<channel>_type` string (read from sysfs for `local:`, rebuilt from libiio's data format
/// for remote contexts), then (value + `offset`) × `scale`, converted from the ABI's unit to SI as `IIOSensor` does, with offset and scale read
/// once when the capture starts. `timeS` is the timestamp channel in seconds (ns ÷ 10⁹) on the device's
/// `current_timestamp_clock`, which this capture sets to `monotonic` when the device has that attribute, so
/// it matches `MonotonicClock`.
///
/// Destroying the capture destroys the buffer, which disables it and its channels.
public final class IIOBufferedCapture {
    /// The sensor (device) captured from.
    public let sensor: IIOSensor
    /// Samples per refill (the buffer's length).
    public let samplesPerRefill: Int
    /// The channels enabled, timestamp last.
    public let channelIDs: [String]

    /// What to do with one enabled channel of a sample.
    struct Slot {
        enum Target { case acceleration(Int), angularVelocity(Int), magneticField(Int), pressure, temperature, timestamp }
        let channel: OpaquePointer
        let id: String
        let scanType: IIOScanType
        let target: Target
        let offset: Double
        let scale: Double
        /// ABI unit → SI: `× multiplier ÷ divisor`.
        let siMultiplier: Double
        let siDivisor: Double
    }

    let slots: [Slot]
    let buffer: OpaquePointer

    /// Starts a capture.
    ///
    /// - Parameters:
    ///   - sensor: the device.
    ///   - channels: channel ids to enable (e.g. `["accel_x", "accel_y", "accel_z"]`); `nil` enables every input
    ///     scan element Lodestone reads (accel, anglvel, magn, pressure, temp). `timestamp` is always added.
    ///   - samplesPerRefill: samples per refill, ≥ 1.
    ///   - trigger: a trigger's name or id (e.g. `tick0`, `trigger0`) to attach first; `nil` keeps the device's.
    /// - Throws: `.noSuchChannel` (unknown, not a scan element, or no `timestamp`), `.noSuchTrigger`,
    ///   `.malformedValue` (scan type), `.writeFailed` (trigger), `.bufferFailed` (`iio_device_create_buffer`).
    public init(sensor: IIOSensor, channels: [String]? = nil, samplesPerRefill: Int, trigger: String? = nil) throws(IIOError) {
        self.sensor = sensor
        let device = sensor.device
        let uri = sensor.context.uri
        let deviceLabel = sensor.deviceLabel
        func error(
            _ kind: IIOError.Kind, channel: String? = nil, attribute: String? = nil, errno: Int32 = 0,
            _ detail: String
        ) -> IIOError {
            IIOError(
                kind: kind, uri: uri, device: deviceLabel, channel: channel, attribute: attribute, errno: errno, detail: detail)
        }
        guard samplesPerRefill >= 1 else {
            throw error(.bufferFailed, "samplesPerRefill must be at least 1, got \(samplesPerRefill)")
        }
        self.samplesPerRefill = samplesPerRefill

        let readable: Set<IIOChannelType> = [.acceleration, .angularVelocity, .magneticField, .pressure, .temperature]
        var wanted =
            channels
            ?? sensor.info.channels
            .filter { $0.direction == .input && $0.isScanElement && readable.contains($0.type) }
            .sorted { ($0.scanIndex ?? 0) < ($1.scanIndex ?? 0) }
            .map(\.id)
        wanted.removeAll { $0 == "timestamp" }
        wanted.append("timestamp")

        // Resolve every channel and its decoding before touching the device.
        var slots: [Slot] = []
        for id in wanted {
            guard let channel = id.withCString({ iio_device_find_channel(device, $0, false) }) else {
                throw error(
                    .noSuchChannel, channel: id,
                    id == "timestamp"
                        ? "the device has no timestamp scan element, so buffered samples cannot be timed"
                        : "no such input channel")
            }
            guard iio_channel_is_scan_element(channel) else {
                throw error(.noSuchChannel, channel: id, "not a scan element: the driver cannot capture it in a buffer")
            }
            let type = IIOChannelType(channelID: id)
            let axis: Int? =
                switch id.drop(while: { $0 != "_" }) {
                case "_x": 0
                case "_y": 1
                case "_z": 2
                default: nil
                }
            let target: Slot.Target
            switch (type, axis) {
            case (.acceleration, let a?): target = .acceleration(a)
            case (.angularVelocity, let a?): target = .angularVelocity(a)
            case (.magneticField, let a?): target = .magneticField(a)
            case (.pressure, _): target = .pressure
            case (.temperature, _): target = .temperature
            case (.timestamp, _): target = .timestamp
            default: throw error(.noSuchChannel, channel: id, "Lodestone does not read \(type) channels")
            }
            let scanType = try Self.scanType(of: channel, id: id, deviceID: sensor.info.id, uri: uri, deviceLabel: deviceLabel)
            var offset = 0.0, scale = 1.0
            if type != .timestamp {
                if sensor.channelHas(channel, "offset") { offset = try sensor.readDouble(channel, "offset") }
                if sensor.channelHas(channel, "scale") {
                    scale = sensor.correctedScale(try sensor.readDouble(channel, "scale"), type: type)
                }
            }
            let (multiplier, divisor) = type.siConversion ?? (1, 1)
            slots.append(
                Slot(
                    channel: channel, id: id, scanType: scanType, target: target, offset: offset, scale: scale,
                    siMultiplier: multiplier, siDivisor: divisor))
        }

        if let trigger {
            guard let triggerDevice = sensor.context.findDevice(trigger), iio_device_is_trigger(triggerDevice) else {
                let triggers = sensor.context.devices.filter(\.isTrigger).map { $0.name ?? $0.id }
                throw error(
                    .noSuchTrigger,
                    "no trigger '\(trigger)'; present: "
                        + (triggers.isEmpty ? "none" : triggers.joined(separator: ", ")))
            }
            if case .failure(let e) = Syscalls.call(.returnsNegatedErrno, { iio_device_set_trigger(device, triggerDevice) }) {
                throw error(
                    .writeFailed, attribute: "trigger/current_trigger", errno: e.rawValue, "cannot attach trigger '\(trigger)'")
            }
        }
        if sensor.hasDeviceAttribute("current_timestamp_clock") {
            let result = Syscalls.call(.returnsNegatedErrno) {
                iio_device_attr_write(device, "current_timestamp_clock", "monotonic")
            }
            if case .failure(let e) = result {
                throw error(
                    .writeFailed, attribute: "current_timestamp_clock", errno: e.rawValue, "cannot select the monotonic clock")
            }
        }

        for i in 0..<iio_device_get_channels_count(device) {
            if let c = iio_device_get_channel(device, i) { iio_channel_disable(c) }
        }
        for slot in slots { iio_channel_enable(slot.channel) }
        switch Syscalls.pointer({ iio_device_create_buffer(device, samplesPerRefill, false) }) {
        case .success(let b): buffer = b
        case .failure(let e):
            for slot in slots { iio_channel_disable(slot.channel) }
            throw sensor.explainingBusy(
                error(.bufferFailed, errno: e.rawValue, "cannot create a buffer of \(samplesPerRefill) samples"))
        }
        self.slots = slots
        self.channelIDs = slots.map(\.id)
    }

    deinit { iio_buffer_destroy(buffer) }

    /// Blocks until `samplesPerRefill` samples have arrived, then replaces the contents of `readings` with them
    /// (capacity is kept, so a reused array does not grow after the first refill).
    /// - Throws: `.bufferFailed` with errno (ETIMEDOUT when no trigger fires within the context's timeout).
    public func refill(into readings: inout [SensorReading]) throws(IIOError) {
        readings.removeAll(keepingCapacity: true)
        let buffer = self.buffer
        if case .failure(let e) = Syscalls.call(.returnsNegatedErrno, { iio_buffer_refill(buffer) }) {
            throw IIOError(
                kind: .bufferFailed, uri: sensor.context.uri, device: sensor.deviceLabel, errno: e.rawValue,
                detail: "refill failed"
                    + (e.rawValue == BusError.Errno.ETIMEDOUT
                        ? " (no samples: is a trigger attached and running?)" : ""))
        }
        let step = iio_buffer_step(buffer)
        guard step > 0, let start = iio_buffer_start(buffer), let end = iio_buffer_end(buffer) else { return }
        let count = (end - start) / step
        for i in 0..<count {
            var acceleration = Vector3(), angularVelocity = Vector3(), magneticField = Vector3()
            var reading = SensorReading()
            var hasAcceleration = 0, hasAngularVelocity = 0, hasMagneticField = 0
            for slot in slots {
                guard let first = iio_buffer_first(buffer, slot.channel) else { continue }
                let bytes = UnsafeRawBufferPointer(start: first + i * step, count: slot.scanType.storageBytes)
                guard let raw = slot.scanType.decode(bytes: bytes) else { continue }
                let value = (Double(raw) + slot.offset) * slot.scale * slot.siMultiplier / slot.siDivisor
                switch slot.target {
                case .acceleration(let a): acceleration[a] = value; hasAcceleration |= 1 << a
                case .angularVelocity(let a): angularVelocity[a] = value; hasAngularVelocity |= 1 << a
                case .magneticField(let a): magneticField[a] = value; hasMagneticField |= 1 << a
                case .pressure: reading.pressurePa = value
                case .temperature: reading.temperatureC = value
                case .timestamp: reading.timeS = value
                }
            }
            if hasAcceleration == 0b111 { reading.accelerationMps2 = acceleration }
            if hasAngularVelocity == 0b111 { reading.angularVelocityRadS = angularVelocity }
            if hasMagneticField == 0b111 { reading.magneticFieldMicroTesla = magneticField }
            readings.append(reading)
        }
    }

    /// `refill(into:)` returning a new array.
    public func refill() throws(IIOError) -> [SensorReading] {
        var readings: [SensorReading] = []
        readings.reserveCapacity(samplesPerRefill)
        try refill(into: &readings)
        return readings
    }

    /// The scan type of `channel`: the kernel's own text from sysfs for `local:` contexts, else libiio's data
    /// format written out in the kernel's syntax; parsed by `IIOScanType` either way.
    static func scanType(
        of channel: OpaquePointer, id: String, deviceID: String, uri: String,
        deviceLabel: String
    ) throws(IIOError) -> IIOScanType {
        var text: String?
        if uri == "local:" {
            let path = "/sys/bus/iio/devices/\(deviceID)/scan_elements/in_\(id)_type"
            if case .success(let t) = Syscalls.readSmallFile(path) { text = t }
        }
        if text == nil, let format = iio_channel_get_data_format(channel)?.pointee {
            text =
                (format.is_be ? "be:" : "le:") + (format.is_signed ? "s" : "u") + "\(format.bits)/\(format.length)"
                + (format.repeat > 1 ? "X\(format.repeat)" : "") + ">>\(format.shift)"
        }
        guard let text else {
            throw IIOError(
                kind: .malformedValue, uri: uri, device: deviceLabel, channel: id, attribute: "type",
                detail: "the channel has no scan type")
        }
        do {
            return try IIOScanType(parsing: text)
        } catch {
            var e = error
            e.uri = uri; e.device = deviceLabel; e.channel = id; e.attribute = "type"
            throw e
        }
    }
}
