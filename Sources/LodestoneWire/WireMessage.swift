#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Wire {
    /// Any message of the wire, for streams that carry several classes in order and for readers of a stream.
    public enum Message: Sendable, Equatable {
        case version(Version)
        case board(Board)
        case calibration(Calibration)
        case sample(Sample)
        case fix(Fix)
        case status(Status)
        case plan(Plan)
        case delivery(Delivery)
        case location(Location)
        case notice(Notice)
        case attitude(Attitude)
        case heading(Heading)
        case activity(Activity)
        case pedometer(Pedometer)
        case altitude(Altitude)
        /// A class this reader does not know (a newer session's); the line is kept.
        case unknown(class: String, line: String)

        /// The message's class (`nil` for an unknown one).
        public var messageClass: Class? {
            switch self {
            case .version: .version
            case .board: .board
            case .calibration: .calibration
            case .sample: .sample
            case .fix: .fix
            case .status: .status
            case .plan: .plan
            case .delivery: .delivery
            case .location: .location
            case .notice(let n): Class(rawValue: n.class)
            case .attitude: .attitude
            case .heading: .heading
            case .activity: .activity
            case .pedometer: .pedometer
            case .altitude: .altitude
            case .unknown: nil
            }
        }

        /// The message as one line of JSON (no newline).
        public var line: String {
            switch self {
            case .version(let m): Wire.line(m)
            case .board(let m): Wire.line(m)
            case .calibration(let m): Wire.line(m)
            case .sample(let m): Wire.line(m)
            case .fix(let m): Wire.line(m)
            case .status(let m): Wire.line(m)
            case .plan(let m): Wire.line(m)
            case .delivery(let m): Wire.line(m)
            case .location(let m): Wire.line(m)
            case .notice(let m): Wire.line(m)
            case .attitude(let m): Wire.line(m)
            case .heading(let m): Wire.line(m)
            case .activity(let m): Wire.line(m)
            case .pedometer(let m): Wire.line(m)
            case .altitude(let m): Wire.line(m)
            case .unknown(_, let line): line
            }
        }

        /// Reads one line of the wire.
        /// - Throws: `WireError` saying what is wrong (not JSON, no `class`, a known class with a missing or mistyped
        ///   key).
        public static func decode(_ line: String) throws(WireError) -> Message {
            let data = Data(line.utf8)
            let head: Head
            do { head = try decoder.decode(Head.self, from: data) } catch {
                throw WireError("not a wire message (a JSON object with a \"class\"): " + Self.reason(error))
            }
            guard let c = Class(rawValue: head.class) else { return .unknown(class: head.class, line: line) }
            do {
                switch c {
                case .version: return .version(try decoder.decode(Version.self, from: data))
                case .board: return .board(try decoder.decode(Board.self, from: data))
                case .calibration: return .calibration(try decoder.decode(Calibration.self, from: data))
                case .sample: return .sample(try decoder.decode(Sample.self, from: data))
                case .fix: return .fix(try decoder.decode(Fix.self, from: data))
                case .status: return .status(try decoder.decode(Status.self, from: data))
                case .plan: return .plan(try decoder.decode(Plan.self, from: data))
                case .delivery: return .delivery(try decoder.decode(Delivery.self, from: data))
                case .location: return .location(try decoder.decode(Location.self, from: data))
                case .degraded, .recovered: return .notice(try decoder.decode(Notice.self, from: data))
                case .attitude: return .attitude(try decoder.decode(Attitude.self, from: data))
                case .heading: return .heading(try decoder.decode(Heading.self, from: data))
                case .activity: return .activity(try decoder.decode(Activity.self, from: data))
                case .pedometer: return .pedometer(try decoder.decode(Pedometer.self, from: data))
                case .altitude: return .altitude(try decoder.decode(Altitude.self, from: data))
                }
            } catch { throw WireError("\(head.class): " + Self.reason(error)) }
        }

        private struct Head: Decodable { var `class`: String }

        private static func reason(_ error: Error) -> String {
            switch error {
            case DecodingError.keyNotFound(let key, _): "missing key \"\(key.stringValue)\""
            case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
                "key \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
            case DecodingError.dataCorrupted(let c):
                c.codingPath.isEmpty
                    ? "not valid JSON" : "key \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" is invalid"
            default: "\(error)"
            }
        }
    }

    /// The one encoder of the wire format: keys sorted, `/` not escaped. Configured once and never changed
    /// (`JSONEncoder` is `Sendable`; it encodes each call with a fresh internal encoder).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder = JSONDecoder()

    /// Encodes one message as a single line (no trailing newline).
    public static func line<T: Encodable>(_ value: T) -> String {
        guard let data = try? encoder.encode(value), let s = String(data: data, encoding: .utf8) else {
            // Encoding plain structs of finite numbers and strings cannot fail; keep the stream valid anyway.
            return #"{"class":"ERROR","message":"internal: could not encode a message"}"#
        }
        return s
    }
}
