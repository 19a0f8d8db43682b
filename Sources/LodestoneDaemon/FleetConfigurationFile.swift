#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif
import LodestoneFleet
import LodestoneScheduler

/// `/etc/lodestone/mqtt.toml` (docs/fleet.md): the fleet link's settings, in the policy file's TOML subset. Every key is
/// optional; `--mqtt URL` gives or overrides `[mqtt] url`.
///
/// ```toml
/// [mqtt]
/// url = "mqtts://fleet.example.org"   # mqtt://[user[:password]@]host[:port] or mqtts://…
/// board_id = "bike-17"                # default: the host name
/// password_file = "/etc/lodestone/mqtt.password"
/// ca_file = "/etc/lodestone/fleet-ca.pem"
/// queue_max_messages = 100000
///
/// [publish]
/// classes = ["location", "battery"]
/// accuracy = "100m"
/// location_interval_s = 300
///
/// [commands]
/// allow = ["accuracy", "intervals"]
/// min_interval_s = 30
/// ```
public enum FleetConfigurationFile {
    static let tables: [String: [String]] = [
        "mqtt": [
            "url", "board_id", "topic_prefix", "client_id", "username", "password_file", "ca_file", "cert_file", "key_file",
            "keepalive_s", "queue_max_messages", "max_inflight", "reconnect_initial_s", "reconnect_max_s", "home_assistant",
            "discovery_prefix"
        ],
        "publish": ["classes", "accuracy", "distance_filter_m"]
            + FleetConfiguration.MessageClass.allCases.map { "\($0.rawValue)_interval_s" },
        "commands": ["enabled", "allow", "finest_accuracy", "min_interval_s"]
    ]

    /// Reads the file at `path` (absent and not `explicit`: defaults only) and applies `url` (the `--mqtt` flag).
    /// - Throws: `PolicyError` naming the file, the line and what was expected; or saying that no URL was given.
    public static func load(path: String, explicit: Bool, url: String?) throws(PolicyError) -> FleetConfiguration {
        var text = ""
        if let t = readTextFile(path) {
            text = t
        } else if explicit || FileManager.default.fileExists(atPath: path) {
            throw PolicyError(kind: .unreadable, file: path, line: nil, message: "cannot read the file")
        }
        return try parse(text, origin: path, url: url, hostName: hostName())
    }

    /// Parses `text` (errors name `origin`); `url` overrides the file's; `hostName` is the default board id.
    public static func parse(_ text: String, origin: String, url: String?, hostName: String) throws(PolicyError)
        -> FleetConfiguration
    {
        let document = try PolicyTOML(text, origin: origin)
        func fail(_ line: Int?, _ message: String) -> PolicyError { PolicyError(file: origin, line: line, message: message) }
        var entries: [String: [PolicyTOML.Entry]] = [:]
        for t in document.tables {
            guard let keys = tables[t.name], !t.isArrayElement else {
                throw fail(t.line, "unknown table [\(t.name)] (expected [mqtt], [publish], [commands])")
            }
            for e in t.entries where !keys.contains(e.key) {
                throw fail(e.line, "unknown key \"\(e.key)\" in [\(t.name)] (expected \(keys.joined(separator: ", ")))")
            }
            entries[t.name, default: []] += t.entries
        }
        func entry(_ table: String, _ key: String) -> PolicyTOML.Entry? { entries[table]?.last { $0.key == key } }
        func string(_ table: String, _ key: String) throws(PolicyError) -> String? {
            guard let e = entry(table, key) else { return nil }
            guard case .string(let s) = e.value else { throw fail(e.line, "\(key) must be a string, not \(e.value.typeName)") }
            return s
        }
        func integer(_ table: String, _ key: String) throws(PolicyError) -> Int? {
            guard let e = entry(table, key) else { return nil }
            guard case .integer(let i) = e.value else { throw fail(e.line, "\(key) must be a number, not \(e.value.typeName)") }
            return Int(i)
        }
        func bool(_ table: String, _ key: String) throws(PolicyError) -> Bool? {
            guard let e = entry(table, key) else { return nil }
            guard case .bool(let b) = e.value else { throw fail(e.line, "\(key) must be true or false, not \(e.value.typeName)") }
            return b
        }
        func strings(_ table: String, _ key: String) throws(PolicyError) -> (values: [String], line: Int)? {
            guard let e = entry(table, key) else { return nil }
            guard case .array(let a) = e.value else { throw fail(e.line, "\(key) must be an array of strings") }
            var out: [String] = []
            for v in a {
                guard case .string(let s) = v else { throw fail(e.line, "\(key) must be an array of strings") }
                out.append(s)
            }
            return (out, e.line)
        }
        /// An array of names, each one of `E`'s cases (`what` names a case in the error).
        func names<E: RawRepresentable & CaseIterable & Hashable>(
            _ table: String, _ key: String, _: E.Type, what: String
        ) throws(PolicyError) -> Set<E>? where E.RawValue == String {
            guard let (values, line) = try strings(table, key) else { return nil }
            var set = Set<E>()
            for n in values {
                guard let k = E(rawValue: n) else {
                    throw fail(
                        line, "\(what) \"\(n)\" is unknown (expected \(E.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                set.insert(k)
            }
            return set
        }
        func accuracy(_ table: String, _ key: String) throws(PolicyError) -> DesiredAccuracy? {
            guard let s = try string(table, key) else { return nil }
            guard let a = DesiredAccuracy(rawValue: s) else {
                throw fail(
                    entry(table, key)?.line,
                    "\(key) \"\(s)\" is unknown (expected \(DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return a
        }

        let fileURL = try string("mqtt", "url")
        guard let urlText = url ?? fileURL else {
            throw fail(nil, "no broker: pass --mqtt URL or set [mqtt] url")
        }
        let broker: BrokerURL
        do { broker = try BrokerURL(parsing: urlText) } catch { throw fail(entry("mqtt", "url")?.line, error.description) }
        var c = FleetConfiguration(broker: broker, boardID: try string("mqtt", "board_id") ?? Self.boardID(hostName))
        if let v = try string("mqtt", "topic_prefix") { c.topicPrefix = v }
        c.clientID = try string("mqtt", "client_id")
        c.username = try string("mqtt", "username")
        if let p = try string("mqtt", "password_file") {
            guard let text = readTextFile(p) else {
                throw fail(entry("mqtt", "password_file")?.line, "password_file \(p) cannot be read")
            }
            c.password = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
        c.caFile = try string("mqtt", "ca_file")
        c.certFile = try string("mqtt", "cert_file")
        c.keyFile = try string("mqtt", "key_file")
        if let v = try integer("mqtt", "keepalive_s") { c.keepAliveS = v }
        if let v = try integer("mqtt", "queue_max_messages") { c.queueCapacity = v }
        if let v = try integer("mqtt", "max_inflight") { c.maxInflight = v }
        if let v = try integer("mqtt", "reconnect_initial_s") { c.reconnectInitialS = Double(v) }
        if let v = try integer("mqtt", "reconnect_max_s") { c.reconnectMaximumS = Double(v) }
        if let v = try bool("mqtt", "home_assistant") { c.homeAssistant = v }
        if let v = try string("mqtt", "discovery_prefix") { c.discoveryPrefix = v }

        if let set = try names("publish", "classes", FleetConfiguration.MessageClass.self, what: "class") {
            c.publish.classes = set
        }
        if let a = try accuracy("publish", "accuracy") { c.publish.desiredAccuracy = a }
        if let d = try integer("publish", "distance_filter_m") { c.publish.distanceFilterM = d > 0 ? Double(d) : nil }
        for k in FleetConfiguration.MessageClass.allCases {
            if let s = try integer("publish", "\(k.rawValue)_interval_s") { c.publish.intervalsS[k] = Double(s) }
        }

        if let v = try bool("commands", "enabled") { c.commands.enabled = v }
        if let set = try names("commands", "allow", FleetConfiguration.Commands.Setting.self, what: "setting") {
            c.commands.allowed = set
        }
        if let a = try accuracy("commands", "finest_accuracy") { c.commands.finestAccuracy = a }
        if let v = try integer("commands", "min_interval_s") { c.commands.minimumIntervalS = Double(v) }
        do { try c.validate() } catch { throw fail(nil, error.description) }
        return c
    }

    /// A host name as a topic level: characters other than letters, digits, `-` and `_` become `_`.
    static func boardID(_ host: String) -> String {
        let s = String(
            String.UnicodeScalarView(
                host.unicodeScalars.map { c in
                    (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "-" || c == "_" ? c : "_"
                }))
        return s.isEmpty ? "board" : s
    }

    /// The machine's host name (`gethostname(2)`), or "" when it has none.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The file's text, or `nil` when it cannot be read or is not UTF-8.
    static func readTextFile(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
