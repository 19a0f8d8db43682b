import Foundation
import LodestoneWire

/// The daemon's native protocol on its Unix socket (docs/wire.md, "The daemon's protocol"): JSON lines, each an object
/// whose `class` says what it is. The daemon speaks first (`VERSION`, then `AUTHORIZATION`); a client subscribes with
/// `SUBSCRIBE` and gets `SUBSCRIBED`, then `UPDATE`s, and `ENDED` when the subscription ends; `ERROR` answers anything
/// it cannot do, with a code and a sentence.
public enum NativeProtocol {
    /// The longest line either side sends or accepts, bytes.
    public static let maxLineBytes = 64 * 1024
    /// The most subscriptions one connection may hold.
    public static let maxSubscriptions = 64

    // MARK: Client to daemon

    /// `HELLO`: optional; names the client in the daemon's diagnostics and says which protocol it speaks.
    public struct Hello: Codable, Sendable, Equatable {
        public var `class` = "HELLO"
        public var protocolVersion = Wire.protocolVersion
        public var client: String?
        enum CodingKeys: String, CodingKey { case `class`, protocolVersion = "protocol", client }
        public init(client: String? = nil) { self.client = client }
    }

    /// `SUBSCRIBE`: the subscription's settings (`SubscriptionSpec`'s members, flat) and a number the client chose.
    public struct Subscribe: Codable, Sendable, Equatable {
        public var id: Int
        public var spec: SubscriptionSpec
        /// The client is in the foreground (default true).
        public var foreground: Bool?
        public init(id: Int, spec: SubscriptionSpec, foreground: Bool? = nil) {
            self.id = id; self.spec = spec; self.foreground = foreground
        }
        enum CodingKeys: String, CodingKey { case `class`, id, foreground }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(Int.self, forKey: .id)
            foreground = try c.decodeIfPresent(Bool.self, forKey: .foreground)
            spec = try SubscriptionSpec(from: decoder)
        }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("SUBSCRIBE", forKey: .class)
            try c.encode(id, forKey: .id)
            try c.encodeIfPresent(foreground, forKey: .foreground)
            try spec.encode(to: encoder)
        }
    }

    /// `UNSUBSCRIBE`: ends subscription `id` (its demand is withdrawn at the session's next step).
    public struct Unsubscribe: Codable, Sendable, Equatable {
        public var `class` = "UNSUBSCRIBE"
        public var id: Int
        public init(id: Int) { self.id = id }
    }

    /// `AUTHORIZATION` (asks for the client's authorization) or `CLIENTS` (the diagnostics list; root or the daemon's
    /// own user only).
    public struct Query: Codable, Sendable, Equatable {
        public var `class`: String
        public init(_ messageClass: String) { self.class = messageClass }
    }

    // MARK: Daemon to client

    /// `AUTHORIZATION`: what this client may see; sent after `VERSION` and again whenever it changes (the policy was
    /// reloaded).
    public struct Authorization: Codable, Sendable, Equatable {
        public var `class` = "AUTHORIZATION"
        /// `denied`, `when-in-use` or `always`.
        public var location: String
        /// `full` or `reduced` (positions on a 5 km grid, at most one every 15 min).
        public var accuracy: String
        /// Heading, motion, activity, pedometer, altitude and raw sensors.
        public var motion: Bool
        /// Which rule decided.
        public var decidedBy: String
        enum CodingKeys: String, CodingKey { case `class`, location, accuracy, motion, decidedBy = "decided_by" }
        public init(location: String, accuracy: String, motion: Bool, decidedBy: String) {
            self.location = location; self.accuracy = accuracy; self.motion = motion; self.decidedBy = decidedBy
        }
    }

    /// `SUBSCRIBED`: subscription `id` has joined the session.
    public struct Subscribed: Codable, Sendable, Equatable {
        public var `class` = "SUBSCRIBED"
        public var id: Int
        public var kind: SubscriptionSpec.Kind
        public init(id: Int, kind: SubscriptionSpec.Kind) { self.id = id; self.kind = kind }
    }

    /// `UPDATE`: one update of subscription `id`; exactly one of the members below is present, by the kind.
    public struct Update: Codable, Sendable, Equatable {
        public var `class` = "UPDATE"
        public var id: Int
        public var location: LocationUpdate?
        public var heading: HeadingUpdate?
        public var motion: DeviceMotion?
        public var activity: ActivityUpdate?
        public var pedometer: PedometerUpdate?
        public var altitude: AltitudeUpdate?
        public var sensor: SensorSample?
        public init(id: Int) { self.id = id }
    }

    /// `ENDED`: subscription `id` is over (a request answered, the session ended, unsubscribed, authorization changed).
    public struct Ended: Codable, Sendable, Equatable {
        public var `class` = "ENDED"
        public var id: Int
        public var reason: String
        public init(id: Int, reason: String) { self.id = id; self.reason = reason }
    }

    /// What went wrong, for `ERROR`.
    public enum ErrorCode: String, Codable, Sendable, CaseIterable {
        /// The line is not a JSON object with a `class`.
        case badJSON = "bad-json"
        /// The `class` is not one the daemon takes.
        case unknownClass = "unknown-class"
        /// A known class with a missing or wrong member.
        case badRequest = "bad-request"
        /// The line is longer than `maxLineBytes`; the connection closes.
        case lineTooLong = "line-too-long"
        /// The client's authorization does not allow it.
        case denied
        /// No subscription has that id.
        case unknownSubscription = "unknown-subscription"
        /// A subscription with that id exists already.
        case duplicateSubscription = "duplicate-subscription"
        /// More than `maxSubscriptions` on one connection.
        case tooManySubscriptions = "too-many-subscriptions"
        /// The request needs more privileges (the clients list).
        case notPermitted = "not-permitted"
        /// A requested location did not come in time.
        case locationUnavailable = "location-unavailable"
    }

    /// `ERROR`: a code, a sentence, and the subscription it concerns if any.
    public struct ErrorMessage: Codable, Sendable, Equatable, Error {
        public var `class` = "ERROR"
        public var code: ErrorCode
        public var message: String
        public var id: Int?
        public init(_ code: ErrorCode, _ message: String, id: Int? = nil) {
            self.code = code; self.message = message; self.id = id
        }
    }

    /// `CLIENTS`: who is connected, with what authorization and which subscriptions (`lodestone clients`).
    public struct Clients: Codable, Sendable, Equatable {
        public var `class` = "CLIENTS"
        public var clients: [Client]
        public struct Client: Codable, Sendable, Equatable {
            public var connection: Int
            /// `native` or `gpsd`.
            public var endpoint: String
            public var peer: String
            public var uid: UInt32?
            public var user: String?
            public var pid: Int32?
            public var executable: String?
            public var name: String?
            public var authorization: Authorization
            public var subscriptions: [Entry]
            public var connectedS: Double
            public var sentBytes: Int
            public struct Entry: Codable, Sendable, Equatable {
                public var id: Int
                public var kind: String
                /// The demand it puts on the scheduler, in words.
                public var demand: String
                /// Updates the daemon dropped for this subscription because its stream fell behind the session (the
                /// stream keeps the newest 64 waiting: the daemon did not get to send them in time); absent from daemons
                /// that did not count them.
                public var droppedUpdates: Int?
                enum CodingKeys: String, CodingKey { case id, kind, demand, droppedUpdates = "dropped_updates" }
                public init(id: Int, kind: String, demand: String, droppedUpdates: Int? = nil) {
                    self.id = id; self.kind = kind; self.demand = demand; self.droppedUpdates = droppedUpdates
                }
            }
            enum CodingKeys: String, CodingKey {
                case connection, endpoint, peer, uid, user, pid, executable, name, authorization, subscriptions
                case connectedS = "connected_s", sentBytes = "sent_bytes"
            }
            public init(
                connection: Int, endpoint: String, peer: String, uid: UInt32?, user: String?, pid: Int32?, executable: String?,
                name: String?, authorization: Authorization, subscriptions: [Entry], connectedS: Double, sentBytes: Int
            ) {
                self.connection = connection; self.endpoint = endpoint; self.peer = peer; self.uid = uid; self.user = user
                self.pid = pid; self.executable = executable; self.name = name; self.authorization = authorization
                self.subscriptions = subscriptions; self.connectedS = connectedS; self.sentBytes = sentBytes
            }
        }
        public init(clients: [Client]) { self.clients = clients }
    }

    // MARK: Reading and writing

    /// A message a client sends.
    public enum ClientMessage: Sendable, Equatable {
        case hello(Hello)
        case subscribe(Subscribe)
        case unsubscribe(Unsubscribe)
        case authorization
        case clients
    }

    /// A message the daemon sends.
    public enum DaemonMessage: Sendable, Equatable {
        case version(Wire.Version)
        case authorization(Authorization)
        case subscribed(Subscribed)
        case update(Update)
        case ended(Ended)
        case error(ErrorMessage)
        case clients(Clients)
        /// A class this client does not know (a newer daemon's).
        case unknown(String)
    }

    private struct Head: Decodable { var `class`: String }

    /// Reads a client's line.
    /// - Throws: the `ERROR` to answer it with.
    public static func decodeClientMessage(_ line: some Collection<UInt8>) throws(ErrorMessage) -> ClientMessage {
        let data = Data(line)
        guard let head = try? decoder.decode(Head.self, from: data) else {
            throw ErrorMessage(.badJSON, "not a JSON object with a \"class\" member")
        }
        do {
            switch head.class {
            case "HELLO": return .hello(try decoder.decode(Hello.self, from: data))
            case "SUBSCRIBE": return .subscribe(try decoder.decode(Subscribe.self, from: data))
            case "UNSUBSCRIBE": return .unsubscribe(try decoder.decode(Unsubscribe.self, from: data))
            case "AUTHORIZATION": return .authorization
            case "CLIENTS": return .clients
            default:
                throw ErrorMessage(
                    .unknownClass,
                    "unknown class \"\(head.class)\" (expected HELLO, SUBSCRIBE, UNSUBSCRIBE, AUTHORIZATION or CLIENTS)")
            }
        } catch let e as ErrorMessage {
            throw e
        } catch {
            throw ErrorMessage(.badRequest, "\(head.class): \(reason(error))")
        }
    }

    /// Reads a daemon's line.
    /// - Throws: `WireError` when the line is not a message.
    public static func decodeDaemonMessage(_ line: some Collection<UInt8>) throws(WireError) -> DaemonMessage {
        let data = Data(line)
        guard let head = try? decoder.decode(Head.self, from: data) else { throw WireError("not a JSON object with a \"class\"") }
        do {
            switch head.class {
            case "VERSION": return .version(try decoder.decode(Wire.Version.self, from: data))
            case "AUTHORIZATION": return .authorization(try decoder.decode(Authorization.self, from: data))
            case "SUBSCRIBED": return .subscribed(try decoder.decode(Subscribed.self, from: data))
            case "UPDATE": return .update(try decoder.decode(Update.self, from: data))
            case "ENDED": return .ended(try decoder.decode(Ended.self, from: data))
            case "ERROR": return .error(try decoder.decode(ErrorMessage.self, from: data))
            case "CLIENTS": return .clients(try decoder.decode(Clients.self, from: data))
            default: return .unknown(head.class)
            }
        } catch { throw WireError("\(head.class): \(reason(error))") }
    }

    /// One message as a line, with its LF.
    public static func line<T: Encodable>(_ value: T) -> String {
        guard let data = try? encoder.encode(value) else {
            return #"{"class":"ERROR","code":"bad-request","message":"internal: could not encode a message"}"# + "\n"
        }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing member \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            "member \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        case DecodingError.dataCorrupted(let c):
            c.codingPath.isEmpty
                ? "not valid JSON" : "member \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" is invalid"
        default: "\(error)"
        }
    }

    // Non-finite numbers (none should occur) go out as strings rather than failing the whole message.
    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }()
    private static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }()
}
