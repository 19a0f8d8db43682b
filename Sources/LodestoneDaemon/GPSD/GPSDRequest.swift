/// One command of a client's request line (gpsd_json(5), "Commands").
enum GPSDRequest: Equatable {
    /// `?VERSION;`
    case version
    /// `?DEVICES;`
    case devices
    /// `?WATCH;` (no object: show the policy) or `?WATCH={…}`.
    case watch(GPSDJSONValue?)
    /// `?WATCH=` with an object that is not valid JSON: the text after `Invalid WATCH: `.
    case invalidWatch(String)
    /// `?POLL;`
    case poll
    /// `?DEVICE;` (no object) or `?DEVICE={…}`.
    case device(GPSDJSONValue?)
    /// `?DEVICE=` with an object that is not valid JSON.
    case invalidDevice(String)
    /// Anything else: the rest of the line from where the unrecognized text starts, line end included (gpsd quotes
    /// it so in its ERROR: `Unrecognized request '?FOO;\n'`). Nothing after it on the line is read.
    case unrecognized(String)
    /// The line exceeded `GPSDRequestParser.maximumLineBytes` before its end.
    case tooLong
}

/// Splits a client's request line into commands.
///
/// A line holds one or more commands, each `?NAME;` or `?NAME={json}` optionally followed by `;`, with white space
/// between them; it ends with LF or CR LF. Names are case-sensitive, as gpsd's. Unlike gpsd 3.22 (which answers
/// `?POLL` without `;` with an ERROR, and ignores a line that starts with white space), a bare command at the end of
/// the line or before white space is accepted without its `;`, and leading white space is skipped.
enum GPSDRequestParser {
    /// The longest request line accepted, in bytes with its line end. gpsd's manual limits a request to 80 characters
    /// (`GPS_JSON_COMMAND_MAX`); real clients send at most about 60. The server cuts off a client that sends this
    /// many bytes without a line end (`GPSDLineReader` says when).
    static let maximumLineBytes = 1024

    /// The commands of `line` (with or without its line end), in order.
    static func parse(_ line: some StringProtocol) -> [GPSDRequest] {
        let bytes = Array(line.utf8)
        guard bytes.count <= maximumLineBytes else { return [.tooLong] }
        var requests: [GPSDRequest] = []
        var reader = GPSDJSONReader(bytes: bytes, index: 0)
        while true {
            reader.skipWhitespace()
            let start = reader.index
            guard start < bytes.count else { return requests }
            func unrecognized() -> [GPSDRequest] {
                requests + [.unrecognized(String(decoding: bytes[start...], as: UTF8.self))]
            }
            guard bytes[start] == UInt8(ascii: "?") else { return unrecognized() }
            var end = start + 1
            while end < bytes.count, Self.isLetter(bytes[end]) { end += 1 }
            let name = String(decoding: bytes[(start + 1)..<end], as: UTF8.self)
            let next: UInt8? = end < bytes.count ? bytes[end] : nil
            let takesObject = name == "WATCH" || name == "DEVICE"
            switch next {
            case UInt8(ascii: ";")?:
                reader = GPSDJSONReader(bytes: bytes, index: end + 1)
            case UInt8(ascii: "=")? where takesObject:
                reader = GPSDJSONReader(bytes: bytes, index: end + 1)
                let object: GPSDJSONValue
                do {
                    object = try reader.readValue()
                } catch {
                    requests.append(name == "WATCH" ? .invalidWatch(error.description) : .invalidDevice(error.description))
                    return requests
                }
                guard case .object = object else {
                    let message = "expected a JSON object"
                    requests.append(name == "WATCH" ? .invalidWatch(message) : .invalidDevice(message))
                    return requests
                }
                if reader.index < bytes.count, bytes[reader.index] == UInt8(ascii: ";") {
                    reader = GPSDJSONReader(bytes: bytes, index: reader.index + 1)
                }
                requests.append(name == "WATCH" ? .watch(object) : .device(object))
                continue
            case nil:
                reader = GPSDJSONReader(bytes: bytes, index: end)
            case let b? where GPSDJSONReader.isWhitespace(b):
                reader = GPSDJSONReader(bytes: bytes, index: end)
            default:
                return unrecognized()
            }
            switch name {
            case "VERSION": requests.append(.version)
            case "DEVICES": requests.append(.devices)
            case "WATCH": requests.append(.watch(nil))
            case "POLL": requests.append(.poll)
            case "DEVICE": requests.append(.device(nil))
            default: return unrecognized()
            }
        }
    }

    private static func isLetter(_ b: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
    }
}

/// Cuts a client's byte stream into request lines, bounded: it never holds more than
/// `GPSDRequestParser.maximumLineBytes` bytes. A longer line is reported once as `.tooLong` and the rest of it, up to
/// its line end, is dropped.
public struct GPSDLineReader: Sendable {
    /// One request line, or the notice that one was too long.
    public enum Line: Sendable, Equatable {
        /// A complete line with its line end (`\n` or `\r\n`).
        case text(String)
        /// A line exceeded `maximumLineBytes`; its bytes were dropped.
        case tooLong
    }

    /// The longest line kept, in bytes with its line end (`GPSDRequestParser.maximumLineBytes`, 1024).
    public static var maximumLineBytes: Int { GPSDRequestParser.maximumLineBytes }

    private var pending: [UInt8] = []
    /// True while dropping the rest of a line that was too long (until its LF). A server may cut off a client that
    /// stays in this state.
    public private(set) var isDroppingLongLine = false

    /// An empty reader.
    public init() {}

    /// Bytes held that do not yet end a line (at most `maximumLineBytes`).
    public var pendingByteCount: Int { pending.count }

    /// Takes the next bytes read from the client; returns the lines they complete.
    public mutating func append(_ bytes: some Sequence<UInt8>) -> [Line] {
        var lines: [Line] = []
        for b in bytes {
            if isDroppingLongLine {
                if b == UInt8(ascii: "\n") { isDroppingLongLine = false }
                continue
            }
            pending.append(b)
            if b == UInt8(ascii: "\n") {
                lines.append(.text(String(decoding: pending, as: UTF8.self)))
                pending.removeAll(keepingCapacity: true)
            } else if pending.count >= Self.maximumLineBytes {
                lines.append(.tooLong)
                pending.removeAll(keepingCapacity: true)
                isDroppingLongLine = true
            }
        }
        return lines
    }
}
