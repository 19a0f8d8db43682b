#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
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
        /// A region or name that cannot be monitored, a time range that is not one (`MonitoringError.Code.invalid`).
        case invalid
        /// No such monitor or condition (`MonitoringError.Code.notFound`).
        case notFound = "not-found"
        /// Too many conditions for this client or the daemon (`MonitoringError.Code.limit`).
        case limit
        /// The daemon's store failed; nothing was changed (`MonitoringError.Code.store`).
        case store
        /// The service has ended (`MonitoringError.Code.unavailable`).
        case unavailable
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
            /// Region conditions its uid holds over all its monitors, once it has used monitoring on this daemon (absent
            /// otherwise, and from daemons without monitoring).
            public var monitorConditions: Int?
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
                name: String?, authorization: Authorization, subscriptions: [Entry], connectedS: Double, sentBytes: Int,
                monitorConditions: Int? = nil
            ) {
                self.connection = connection; self.endpoint = endpoint; self.peer = peer; self.uid = uid; self.user = user
                self.pid = pid; self.executable = executable; self.name = name; self.authorization = authorization
                self.subscriptions = subscriptions; self.connectedS = connectedS; self.sentBytes = sentBytes
                self.monitorConditions = monitorConditions
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
        case monitor(MonitorRequest)
        case events(EventsRequest)
        case acknowledge(AcknowledgeRequest)
        case visits(StreamRequest)
        case significantChanges(StreamRequest)
        case history(HistoryRequest)
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
        case monitor(MonitorReply)
        /// The answer to `EVENTS`, `VISITS` or `SIGNIFICANT_CHANGES`: the stream has started.
        case streaming(StreamStarted)
        case event(EventMessage)
        case acknowledgement(AcknowledgeReply)
        case visit(VisitMessage)
        case significantChange(SignificantChangeMessage)
        case history(HistoryReply)
        /// A class this client does not know (a newer daemon's).
        case unknown(String)
    }

    private struct Head: Decodable { var `class`: String }
    private struct Numbered: Decodable { var id: Int }

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
            case "MONITOR": return .monitor(try decoder.decode(MonitorRequest.self, from: data))
            case "EVENTS": return .events(try decoder.decode(EventsRequest.self, from: data))
            case "ACK": return .acknowledge(try decoder.decode(AcknowledgeRequest.self, from: data))
            case "VISITS": return .visits(try decoder.decode(StreamRequest.self, from: data))
            case "SIGNIFICANT_CHANGES": return .significantChanges(try decoder.decode(StreamRequest.self, from: data))
            case "HISTORY": return .history(try decoder.decode(HistoryRequest.self, from: data))
            default:
                throw ErrorMessage(
                    .unknownClass,
                    "unknown class \"\(head.class)\" (expected HELLO, SUBSCRIBE, UNSUBSCRIBE, AUTHORIZATION, CLIENTS, "
                        + "MONITOR, EVENTS, ACK, VISITS, SIGNIFICANT_CHANGES or HISTORY)")
            }
        } catch let e as ErrorMessage {
            throw e
        } catch {
            // A request with a readable `id` gets it back, so that its client knows which one failed.
            throw ErrorMessage(
                .badRequest, "\(head.class): \(reason(error))", id: (try? decoder.decode(Numbered.self, from: data))?.id)
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
            case "MONITOR": return .monitor(try decoder.decode(MonitorReply.self, from: data))
            case "EVENTS", "VISITS", "SIGNIFICANT_CHANGES": return .streaming(try decoder.decode(StreamStarted.self, from: data))
            case "EVENT": return .event(try decoder.decode(EventMessage.self, from: data))
            case "ACK": return .acknowledgement(try decoder.decode(AcknowledgeReply.self, from: data))
            case "VISIT": return .visit(try decoder.decode(VisitMessage.self, from: data))
            case "SIGNIFICANT_CHANGE": return .significantChange(try decoder.decode(SignificantChangeMessage.self, from: data))
            case "HISTORY": return .history(try decoder.decode(HistoryReply.self, from: data))
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

// MARK: - Monitoring (issue 16)

extension NativeProtocol {
    // Times here are Unix seconds (`_unix_s`), as `MonitoringService`'s: monitors and their events outlive a session.

    /// A circular region as `MONITOR add` carries it.
    public struct Region: Codable, Sendable, Equatable {
        /// The condition's identifier, 1…256 UTF-8 bytes, unique within its monitor.
        public var id: String
        /// The centre, WGS84, deg.
        public var latDeg: Double
        public var lonDeg: Double
        /// The radius, m (1 m to 100 km).
        public var radiusM: Double
        enum CodingKeys: String, CodingKey { case id, latDeg = "lat_deg", lonDeg = "lon_deg", radiusM = "radius_m" }
        public init(id: String, latDeg: Double, lonDeg: Double, radiusM: Double) {
            self.id = id; self.latDeg = latDeg; self.lonDeg = lonDeg; self.radiusM = radiusM
        }
        public init(_ region: CircularRegion) {
            self.init(
                id: region.id, latDeg: region.center.latitudeDeg, lonDeg: region.center.longitudeDeg, radiusM: region.radiusM)
        }
        /// The region, validated.
        /// - Throws: `RegionError` naming what is out of range.
        public func region() throws(RegionError) -> CircularRegion {
            try CircularRegion(id: id, latitudeDeg: latDeg, longitudeDeg: lonDeg, radiusM: radiusM)
        }
    }

    /// `MONITOR`: one request about the client's monitors, by `action`.
    public struct MonitorRequest: Codable, Sendable, Equatable {
        public enum Action: String, Codable, Sendable, CaseIterable {
            /// Adds (or replaces, by its id) `condition` to `monitor`, creating the monitor.
            case add
            /// Removes condition `condition_id` from `monitor`.
            case remove
            /// Removes `monitor` with its conditions and undelivered events.
            case removeMonitor = "remove_monitor"
            /// The conditions of `monitor` with their states.
            case list
            /// The names of the client's monitors.
            case names
        }
        public var `class` = "MONITOR"
        /// The client's number for the request, echoed in the answer.
        public var id: Int
        public var action: Action
        /// The monitor's name (every action but `names`), 1…256 UTF-8 bytes.
        public var monitor: String?
        /// `add`: the region.
        public var condition: Region?
        /// `remove`: the condition's identifier.
        public var conditionId: String?
        enum CodingKeys: String, CodingKey { case `class`, id, action, monitor, condition, conditionId = "condition_id" }
        public init(id: Int, action: Action, monitor: String? = nil, condition: Region? = nil, conditionId: String? = nil) {
            self.id = id; self.action = action; self.monitor = monitor; self.condition = condition
            self.conditionId = conditionId
        }
    }

    /// A condition and its state, as `MONITOR list` answers.
    public struct Condition: Codable, Sendable, Equatable {
        public var region: Region
        /// `satisfied`, `unsatisfied` or `unknown`.
        public var state: MonitorConditionState
        /// When the state last changed, Unix s; absent while `unknown` since the condition was added.
        public var changedUnixS: Double?
        /// The location that changed it (the `Codable` form of `Location`, its `timeS` in Unix s).
        public var location: Location?
        enum CodingKeys: String, CodingKey { case id, latDeg = "lat_deg", lonDeg = "lon_deg", radiusM = "radius_m", state }
        enum MoreKeys: String, CodingKey { case changedUnixS = "changed_unix_s", location }
        public init(_ c: MonitorCondition) {
            region = Region(c.region); state = c.record.state; changedUnixS = c.record.changedAtS; location = c.record.location
        }
        public init(from decoder: any Decoder) throws {
            region = try Region(from: decoder)
            state = try decoder.container(keyedBy: CodingKeys.self).decode(MonitorConditionState.self, forKey: .state)
            let more = try decoder.container(keyedBy: MoreKeys.self)
            changedUnixS = try more.decodeIfPresent(Double.self, forKey: .changedUnixS)
            location = try more.decodeIfPresent(Location.self, forKey: .location)
        }
        public func encode(to encoder: any Encoder) throws {
            try region.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(state, forKey: .state)
            var more = encoder.container(keyedBy: MoreKeys.self)
            try more.encodeIfPresent(changedUnixS, forKey: .changedUnixS)
            try more.encodeIfPresent(location, forKey: .location)
        }
        /// The condition as `MonitoringService` gives it.
        /// - Throws: `RegionError` when the region is out of range (not from a daemon).
        public func monitorCondition() throws(RegionError) -> MonitorCondition {
            MonitorCondition(
                region: try region.region(),
                record: MonitorConditionRecord(state: state, changedAtS: changedUnixS, location: location))
        }
    }

    /// `MONITOR` (daemon to client): the answer to a `MONITOR` request with the same `id`.
    public struct MonitorReply: Codable, Sendable, Equatable {
        public var `class` = "MONITOR"
        public var id: Int
        public var action: MonitorRequest.Action
        public var monitor: String?
        /// `list`: the conditions, by identifier.
        public var conditions: [Condition]?
        /// `names`: the client's monitors.
        public var names: [String]?
        /// `remove`, `remove_monitor`: whether it was there.
        public var removed: Bool?
        public init(
            id: Int, action: MonitorRequest.Action, monitor: String? = nil, conditions: [Condition]? = nil,
            names: [String]? = nil, removed: Bool? = nil
        ) {
            self.id = id; self.action = action; self.monitor = monitor; self.conditions = conditions; self.names = names
            self.removed = removed
        }
    }

    /// `EVENTS`: starts the stream of `monitor`'s events: every event not yet acknowledged (in order, with their
    /// original times), then each new one. It is a subscription: `UNSUBSCRIBE {id}` ends it, `ENDED` says it ended.
    public struct EventsRequest: Codable, Sendable, Equatable {
        public var `class` = "EVENTS"
        public var id: Int
        public var monitor: String
        public init(id: Int, monitor: String) { self.id = id; self.monitor = monitor }
    }

    /// `VISITS` or `SIGNIFICANT_CHANGES`: starts that stream (a subscription, as `EVENTS`).
    public struct StreamRequest: Codable, Sendable, Equatable {
        public var `class`: String
        public var id: Int
        public init(_ messageClass: String, id: Int) { self.class = messageClass; self.id = id }
        public static func visits(id: Int) -> StreamRequest { StreamRequest("VISITS", id: id) }
        public static func significantChanges(id: Int) -> StreamRequest { StreamRequest("SIGNIFICANT_CHANGES", id: id) }
    }

    /// `EVENTS`, `VISITS` or `SIGNIFICANT_CHANGES` (daemon to client): the stream `id` has started.
    public struct StreamStarted: Codable, Sendable, Equatable {
        public var `class`: String
        public var id: Int
        /// `EVENTS`: the monitor.
        public var monitor: String?
        public init(_ messageClass: String, id: Int, monitor: String? = nil) {
            self.class = messageClass; self.id = id; self.monitor = monitor
        }
    }

    /// `EVENT`: one event of the monitor streamed by `EVENTS` `id`.
    public struct EventMessage: Codable, Sendable, Equatable {
        public var `class` = "EVENT"
        /// The `EVENTS` request's id.
        public var id: Int
        public var monitor: String
        /// The event's own number in its monitor (1, 2, 3 …): what `ACK` takes.
        public var eventId: UInt64
        public var conditionId: String
        public var state: MonitorConditionState
        public var previousState: MonitorConditionState
        /// When the state changed: the time of the location that changed it, Unix s.
        public var tUnixS: Double
        /// That location's position, deg, and accuracy (95 %), m.
        public var latDeg: Double
        public var lonDeg: Double
        public var hAccM: Double?
        /// The location in full (the `Codable` form of `Location`, its `timeS` in Unix s).
        public var location: Location
        enum CodingKeys: String, CodingKey {
            case `class`, id, monitor, eventId = "event_id", conditionId = "condition_id", state
            case previousState = "previous_state", tUnixS = "t_unix_s", latDeg = "lat_deg", lonDeg = "lon_deg"
            case hAccM = "h_acc_m", location
        }
        public init(id: Int, monitor: String, event e: MonitorEvent) {
            self.id = id; self.monitor = monitor; eventId = e.id; conditionId = e.conditionId; state = e.state
            previousState = e.previousState; tUnixS = e.timeS; latDeg = e.location.coordinate.latitudeDeg
            lonDeg = e.location.coordinate.longitudeDeg
            hAccM = e.location.horizontalAccuracyM.isFinite ? e.location.horizontalAccuracyM : nil
            location = e.location
        }
        /// The event as `MonitoringService` gives it.
        public var event: MonitorEvent {
            MonitorEvent(
                id: eventId, conditionId: conditionId, state: state, previousState: previousState, timeS: tUnixS,
                location: location)
        }
    }

    /// `ACK`: marks `monitor`'s events up to and including `through_id` delivered.
    public struct AcknowledgeRequest: Codable, Sendable, Equatable {
        public var `class` = "ACK"
        public var id: Int
        public var monitor: String
        public var throughId: UInt64
        enum CodingKeys: String, CodingKey { case `class`, id, monitor, throughId = "through_id" }
        public init(id: Int, monitor: String, throughId: UInt64) {
            self.id = id; self.monitor = monitor; self.throughId = throughId
        }
    }

    /// `ACK` (daemon to client): what acknowledging did (`Acknowledgement`).
    public struct AcknowledgeReply: Codable, Sendable, Equatable {
        public var `class` = "ACK"
        public var id: Int
        public var monitor: String
        /// `acknowledged`, `already-acknowledged` or `unknown-event` (nothing changed for the last two).
        public var outcome: String
        /// `acknowledged`: how many pending events were removed.
        public var count: Int?
        /// The id asked for.
        public var throughId: UInt64
        /// `unknown-event`: the monitor's last event id (0: none yet).
        public var lastEventId: UInt64?
        enum CodingKeys: String, CodingKey {
            case `class`, id, monitor, outcome, count, throughId = "through_id", lastEventId = "last_event_id"
        }
        public init(id: Int, monitor: String, _ a: Acknowledgement) {
            self.id = id; self.monitor = monitor
            switch a {
            case .acknowledged(let count, let through): outcome = "acknowledged"; self.count = count; throughId = through
            case .alreadyAcknowledged(let through): outcome = "already-acknowledged"; throughId = through
            case .unknownEvent(let id, let last): outcome = "unknown-event"; throughId = id; lastEventId = last
            }
        }
        /// The acknowledgement; `nil` for an outcome this client does not know.
        public var acknowledgement: Acknowledgement? {
            switch outcome {
            case "acknowledged": .acknowledged(count: count ?? 0, throughId: throughId)
            case "already-acknowledged": .alreadyAcknowledged(throughId: throughId)
            case "unknown-event": .unknownEvent(id: throughId, lastEventId: lastEventId ?? 0)
            default: nil
            }
        }
    }

    /// `VISIT`: an arrival or a departure, on the `VISITS` stream `id`.
    public struct VisitMessage: Codable, Sendable, Equatable {
        public var `class` = "VISIT"
        public var id: Int
        /// `arrival` or `departure`.
        public var event: String
        /// The place, deg, and its accuracy, m.
        public var latDeg: Double
        public var lonDeg: Double
        public var hAccM: Double
        /// Arrival and departure (absent until it happens), Unix s.
        public var arrivalUnixS: Double
        public var departureUnixS: Double?
        /// How long the carrier has stayed, s.
        public var dwellS: Double
        /// The previous visit's place, deg.
        public var fromLatDeg: Double?
        public var fromLonDeg: Double?
        /// How it came (`walk`, `drive`, …).
        public var arrivedBy: MotionActivity.Kind?
        enum CodingKeys: String, CodingKey {
            case `class`, id, event, latDeg = "lat_deg", lonDeg = "lon_deg", hAccM = "h_acc_m", arrivalUnixS = "arrival_unix_s"
            case departureUnixS = "departure_unix_s", dwellS = "dwell_s", fromLatDeg = "from_lat_deg"
            case fromLonDeg = "from_lon_deg", arrivedBy = "arrived_by"
        }
        public init(id: Int, _ e: VisitEvent) {
            let v = e.visit
            self.id = id
            if case .arrival = e { event = "arrival" } else { event = "departure" }
            latDeg = v.coordinate.latitudeDeg; lonDeg = v.coordinate.longitudeDeg; hAccM = v.horizontalAccuracyM
            arrivalUnixS = v.arrivalS; departureUnixS = v.departureS; dwellS = v.dwellS
            fromLatDeg = v.fromCoordinate?.latitudeDeg; fromLonDeg = v.fromCoordinate?.longitudeDeg; arrivedBy = v.arrivedBy
        }
        /// The visit event as `MonitoringService` gives it; `nil` for an event kind this client does not know.
        public var visitEvent: VisitEvent? {
            var from: Coordinate?
            if let fromLatDeg, let fromLonDeg { from = Coordinate(latitudeDeg: fromLatDeg, longitudeDeg: fromLonDeg) }
            let v = Visit(
                coordinate: Coordinate(latitudeDeg: latDeg, longitudeDeg: lonDeg), horizontalAccuracyM: hAccM,
                arrivalS: arrivalUnixS, departureS: departureUnixS, fromCoordinate: from, arrivedBy: arrivedBy, dwellS: dwellS)
            switch event {
            case "arrival": return .arrival(v)
            case "departure": return .departure(v)
            default: return nil
            }
        }
    }

    /// `SIGNIFICANT_CHANGE`: a move of 500 m or more, on the `SIGNIFICANT_CHANGES` stream `id`.
    public struct SignificantChangeMessage: Codable, Sendable, Equatable {
        public var `class` = "SIGNIFICANT_CHANGE"
        public var id: Int
        /// When the change was reported, Unix s (absent from older daemons: then the location's time).
        public var reportedUnixS: Double?
        /// The location's time, Unix s, position, deg, and accuracy, m.
        public var tUnixS: Double
        public var latDeg: Double
        public var lonDeg: Double
        public var hAccM: Double?
        /// From the previous change's location, m (absent for the first).
        public var distanceM: Double?
        /// The location in full.
        public var location: Location
        enum CodingKeys: String, CodingKey {
            case `class`, id, reportedUnixS = "reported_unix_s", tUnixS = "t_unix_s", latDeg = "lat_deg", lonDeg = "lon_deg"
            case hAccM = "h_acc_m", distanceM = "distance_m", location
        }
        public init(id: Int, _ c: SignificantLocationChange) {
            self.id = id; reportedUnixS = c.timeS; tUnixS = c.location.timeS; latDeg = c.location.coordinate.latitudeDeg
            lonDeg = c.location.coordinate.longitudeDeg
            hAccM = c.location.horizontalAccuracyM.isFinite ? c.location.horizontalAccuracyM : nil
            distanceM = c.distanceM; location = c.location
        }
        public var change: SignificantLocationChange {
            SignificantLocationChange(timeS: reportedUnixS, location: location, distanceM: distanceM)
        }
    }

    /// `HISTORY`: the pedometer's totals (`steps`) or the activity segments (`activity`) between two Unix times.
    public struct HistoryRequest: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable, CaseIterable { case steps, activity }
        public var `class` = "HISTORY"
        public var id: Int
        public var kind: Kind
        public var fromUnixS: Double
        public var toUnixS: Double
        enum CodingKeys: String, CodingKey { case `class`, id, kind, fromUnixS = "from_unix_s", toUnixS = "to_unix_s" }
        public init(id: Int, kind: Kind, fromUnixS: Double, toUnixS: Double) {
            self.id = id; self.kind = kind; self.fromUnixS = fromUnixS; self.toUnixS = toUnixS
        }
    }

    /// `HISTORY` (daemon to client): `pedometer` (the `Codable` form of `PedometerData`, times in Unix s) for `steps`,
    /// `activities` (`MotionActivity`s, each as it began) for `activity`.
    public struct HistoryReply: Codable, Sendable, Equatable {
        public var `class` = "HISTORY"
        public var id: Int
        public var kind: HistoryRequest.Kind
        public var fromUnixS: Double
        public var toUnixS: Double
        public var pedometer: PedometerData?
        public var activities: [MotionActivity]?
        enum CodingKeys: String, CodingKey {
            case `class`, id, kind, fromUnixS = "from_unix_s", toUnixS = "to_unix_s", pedometer, activities
        }
        public init(
            id: Int, kind: HistoryRequest.Kind, fromUnixS: Double, toUnixS: Double, pedometer: PedometerData? = nil,
            activities: [MotionActivity]? = nil
        ) {
            self.id = id; self.kind = kind; self.fromUnixS = fromUnixS; self.toUnixS = toUnixS; self.pedometer = pedometer
            self.activities = activities
        }
    }
}

extension NativeProtocol.ErrorMessage {
    /// The `ERROR` of a failed monitoring request `id`.
    public init(_ e: MonitoringError, id: Int?) {
        let code: NativeProtocol.ErrorCode =
            switch e.code {
            case .invalid: .invalid
            case .notFound: .notFound
            case .limit: .limit
            case .store: .store
            case .denied: .denied
            case .unavailable: .unavailable
            }
        self.init(code, e.message, id: id)
    }

    /// The error as `MonitoringService` throws it (a malformed request is `invalid`; what has no monitoring meaning,
    /// `unavailable`).
    public var monitoringError: MonitoringError {
        let code: MonitoringError.Code =
            switch self.code {
            case .invalid, .badRequest, .badJSON, .unknownClass, .lineTooLong: .invalid
            case .notFound, .unknownSubscription: .notFound
            case .limit, .tooManySubscriptions, .duplicateSubscription: .limit
            case .store: .store
            case .denied, .notPermitted: .denied
            case .unavailable, .locationUnavailable: .unavailable
            }
        return MonitoringError(code, message)
    }
}
