import LodestoneScheduler

/// What a board publishes to its fleet's MQTT broker and what the fleet may change (`lodestone serve --mqtt URL`,
/// `/etc/lodestone/mqtt.toml`, docs/fleet.md).
public struct FleetConfiguration: Sendable, Hashable {
    /// The broker: `mqtt://[user[:password]@]host[:port]` (default port 1883) or `mqtts://…` (TLS, default port 8883).
    public var broker: BrokerURL
    /// The board's name in topics, `lodestone/<boardID>/…`: letters, digits, `-` and `_` only.
    public var boardID: String
    /// The first topic level (default `lodestone`).
    public var topicPrefix = "lodestone"
    /// The MQTT client identifier (default `lodestone-<boardID>`).
    public var clientID: String?
    /// Credentials (the URL's user and password win over these).
    public var username: String?
    public var password: String?
    /// TLS (`mqtts://`): the CA file that signed the broker's certificate (default: the system's, /etc/ssl/certs).
    public var caFile: String?
    /// TLS client certificate and its key (PEM), for brokers that authenticate clients by certificate.
    public var certFile: String?
    public var keyFile: String?
    /// MQTT keep-alive, s (default 30; the broker publishes the last will after 1.5 times this without a packet).
    public var keepAliveS = 30
    /// The outbound queue's bound, messages (default 100 000: about 6½ days of the default rates, which make about
    /// 15 000 messages a day of ~330 bytes — benchmarks/fleet/results.md — so some 40 MB of SQLite file when full).
    public var queueCapacity = 100_000
    /// Messages sent and not yet acknowledged at once (default 16).
    public var maxInflight = 16
    /// Reconnect back-off: the first wait and the longest, s (each failure doubles it; each wait is jittered down to
    /// half, at random).
    public var reconnectInitialS = 1.0
    public var reconnectMaximumS = 120.0
    /// Home Assistant MQTT discovery (default on), under `discoveryPrefix` (default `homeassistant`).
    public var homeAssistant = true
    public var discoveryPrefix = "homeassistant"
    /// What is published and how often.
    public var publish = Publish()
    /// What the fleet may change through the command topic.
    public var commands = Commands()

    /// The classes a board can publish: each is the topic `lodestone/<id>/<class>`.
    public enum MessageClass: String, Sendable, Hashable, CaseIterable, Comparable {
        case location, heading, activity, pedometer, altitude, battery, plan
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// What is published: classes, their intervals and the location demand.
    public struct Publish: Sendable, Hashable {
        /// Classes published (default: all).
        public var classes: Set<MessageClass> = Set(MessageClass.allCases)
        /// The least time between two messages of a class, s (session time). Activity and plan go at each change too;
        /// their intervals bound how often. Defaults: location 10, heading 60, activity 60, pedometer 60, altitude 60,
        /// battery 300, plan 60.
        public var intervalsS: [MessageClass: Double] = [
            .location: 10, .heading: 60, .activity: 60, .pedometer: 60, .altitude: 60, .battery: 300, .plan: 60
        ]
        /// The location accuracy asked of the scheduler for the fleet (default `100m`: a duty-cycled receiver).
        public var desiredAccuracy: DesiredAccuracy = .hundredMeters
        /// Publish a location only after the carrier moved this far, m (`nil`: every interval).
        public var distanceFilterM: Double?
        public init() {}

        /// The interval of `c`, s.
        public func intervalS(_ c: MessageClass) -> Double { intervalsS[c] ?? 60 }
    }

    /// What the command topic may set, and within which limits.
    public struct Commands: Sendable, Hashable {
        /// Accepting commands at all (default true; false: every command is refused with that reason).
        public var enabled = true
        /// Which settings a command may change: `accuracy`, `distance_filter`, `classes`, `intervals` (default all).
        public var allowed: Set<Setting> = Set(Setting.allCases)
        /// The finest accuracy a command may ask (default `best`: `navigation` is refused).
        public var finestAccuracy: DesiredAccuracy = .best
        /// The shortest interval a command may set, s (default 1).
        public var minimumIntervalS = 1.0
        public init() {}

        /// One setting a command may change.
        public enum Setting: String, Sendable, Hashable, CaseIterable {
            case accuracy, distanceFilter = "distance_filter", classes, intervals
        }
    }

    public init(broker: BrokerURL, boardID: String) {
        self.broker = broker; self.boardID = boardID
    }

    /// `lodestone/<boardID>/<suffix>`.
    public func topic(_ suffix: String) -> String { "\(topicPrefix)/\(boardID)/\(suffix)" }

    /// Checks the values a file or a flag could get wrong; the error says which and what is allowed.
    public func validate() throws(FleetError) {
        guard !boardID.isEmpty, boardID.unicodeScalars.allSatisfy(Self.isTopicWordScalar) else {
            throw FleetError("board id \"\(boardID)\": use letters, digits, - and _ only (it is a topic level)")
        }
        guard !topicPrefix.isEmpty, !topicPrefix.contains("+"), !topicPrefix.contains("#") else {
            throw FleetError("topic prefix \"\(topicPrefix)\": must be non-empty, without + or #")
        }
        guard keepAliveS >= 5 && keepAliveS <= 65_535 else { throw FleetError("keepalive_s \(keepAliveS): allowed 5…65535") }
        guard queueCapacity >= 1 else { throw FleetError("queue_max_messages \(queueCapacity): must be at least 1") }
        guard maxInflight >= 1 && maxInflight <= 1_000 else { throw FleetError("max_inflight \(maxInflight): allowed 1…1000") }
        for (c, s) in publish.intervalsS where !(s > 0 && s.isFinite) {
            throw FleetError("\(c.rawValue)_interval_s \(s): must be a positive number of seconds")
        }
        if (certFile == nil) != (keyFile == nil) { throw FleetError("cert_file and key_file go together") }
    }

    static func isTopicWordScalar(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "-" || c == "_"
    }
}

/// A broker's address as `--mqtt` takes it.
public struct BrokerURL: Sendable, Hashable, CustomStringConvertible {
    /// `mqtts://`: TLS.
    public var tls: Bool
    public var host: String
    /// TCP port (default 1883, or 8883 with TLS).
    public var port: Int
    public var username: String?
    public var password: String?

    /// Parses `mqtt://[user[:password]@]host[:port]` or `mqtts://…` (IPv6 hosts in brackets).
    /// - Throws: `FleetError` quoting the URL and saying what is expected.
    public init(parsing text: String) throws(FleetError) {
        let expected = "expected mqtt://[user[:password]@]host[:port] or mqtts://…"
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            tls = false; rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            tls = true; rest = text.dropFirst(8)
        } else {
            throw FleetError("--mqtt \(text): \(expected)")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        username = nil; password = nil
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                username = String(credentials[..<colon]); password = String(credentials[credentials.index(after: colon)...])
            } else {
                username = String(credentials)
            }
        }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw FleetError("--mqtt \(text): unclosed [ in the host") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw FleetError("--mqtt \(text): \(expected)")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon]); portText = rest[rest.index(after: colon)...]
        } else {
            host = String(rest)
        }
        guard !host.isEmpty, !host.contains("/") else { throw FleetError("--mqtt \(text): no host; \(expected)") }
        if let p = portText {
            guard let n = Int(p), n >= 1 && n <= 65_535 else { throw FleetError("--mqtt \(text): port \(p) is not 1…65535") }
            port = n
        } else {
            port = tls ? 8883 : 1883
        }
    }

    /// The URL without its password.
    public var description: String {
        let user = username.map { "\($0)\(password == nil ? "" : ":***")@" } ?? ""
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(user)\(h):\(port)"
    }
}

/// Why the fleet link could not be set up or a command was refused: one line saying what and what to do.
public struct FleetError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
