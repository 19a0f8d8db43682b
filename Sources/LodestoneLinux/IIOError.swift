/// A failure in the IIO layer, with where it happened: libiio context URI, device, channel, attribute, errno.
///
/// `description` is one line, e.g.
/// `IIO local: device iio:device0 (bmp280), channel pressure, attribute input: read failed: Input/output error [errno 5]`.
public struct IIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The classification.
    public enum Kind: Sendable, Hashable {
        /// The libiio context could not be created (`iio_create_*_context` returned NULL).
        case contextUnavailable
        /// No device with that id, name or label.
        case noSuchDevice
        /// No channel with that id, or it cannot do what was asked (e.g. not a scan element).
        case noSuchChannel
        /// The device or channel has no such attribute.
        case noSuchAttribute
        /// No trigger with that name.
        case noSuchTrigger
        /// Reading an attribute failed (the driver returned an error, e.g. EIO from a chip).
        case readFailed
        /// Writing an attribute failed (e.g. EINVAL: the driver rejected the value).
        case writeFailed
        /// A value did not parse: a mount matrix, a scan type, an available-values list, a number.
        case malformedValue
        /// Creating, refilling or decoding a buffer failed.
        case bufferFailed
    }

    /// The classification.
    public var kind: Kind
    /// The context URI (`local:`, `ip:HOST`, …); empty for the pure parsers.
    public var uri: String
    /// Device id and name, e.g. `iio:device0 (bmp280)`, if the error belongs to a device.
    public var device: String?
    /// Channel id, e.g. `accel_x`.
    public var channel: String?
    /// Attribute name as libiio knows it, e.g. `raw`, `sampling_frequency`.
    public var attribute: String?
    /// The errno reported; 0 when there is none (parse errors).
    public var errno: Int32
    /// What went wrong, in words.
    public var detail: String

    /// An error with every field given; the place fields default to "unknown".
    public init(
        kind: Kind, uri: String = "", device: String? = nil, channel: String? = nil, attribute: String? = nil,
        errno: Int32 = 0, detail: String
    ) {
        self.kind = kind; self.uri = uri; self.device = device; self.channel = channel; self.attribute = attribute
        self.errno = errno; self.detail = detail
    }

    /// One line: the places that apply, what went wrong, and the errno with its text.
    public var description: String {
        var parts: [String] = []
        if !uri.isEmpty { parts.append("IIO \(uri)") }
        if let device { parts.append("device \(device)") }
        if let channel { parts.append("channel \(channel)") }
        if let attribute { parts.append("attribute \(attribute)") }
        let place = parts.isEmpty ? "IIO" : parts.joined(separator: ", ")
        var line = "\(place): \(detail)"
        if errno != 0 { line += ": \(Errno(errno)) [errno \(errno)]" }
        return line
    }
}
