import LodestoneLinux
import LodestoneSockets

/// The daemon's authorization policy: what each client may see, read from `/etc/lodestone/policy.toml`
/// (`DaemonDefaults.policyPath`; the format and its reasons are in docs/policy.md).
///
/// A client of the Unix socket is decided by the most specific rules that match it, key by key:
/// executable rules over user and uid rules over group rules over `[default]`; among the matching rules of one
/// level, the last in file order that sets the key. A key no matching rule sets comes from the next less specific
/// level, and finally from `[default]`. The gpsd endpoint (TCP, no peer credentials) gets `[gpsd]`.
///
/// A value: decide once per connection (`authorization(for:account:)` is a pure function of the policy, the peer
/// and its account) and keep the result with the connection.
public struct Policy: Sendable, Hashable {
    /// One `[[rule]]`: whom it matches (every selector it gives must match; an array matches any of its elements)
    /// and the keys it sets.
    public struct Rule: Sendable, Hashable {
        /// How specific a rule is: the most specific selector it gives.
        public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable {
            /// `group = …` only.
            case group = 1
            /// `user = …` or `uid = …` (and maybe `group`).
            case user = 2
            /// `executable = …` (and maybe others).
            case executable = 3

            /// Less specific first.
            public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        }

        /// Line of the `[[rule]]` header, from 1.
        public var line: Int
        /// Paths the peer's executable (`/proc/PID/exe`) must be one of; empty when the rule does not say.
        public var executables: [String]
        /// Login names the peer's user must be one of; empty when the rule does not say.
        public var users: [String]
        /// Uids the peer's must be one of; empty when the rule does not say.
        public var uids: [UInt32]
        /// Groups the peer's user must be a member of (any one); empty when the rule does not say.
        public var groups: [String]
        /// What the rule sets; `nil` for a key it leaves to less specific levels.
        public var location: LocationAccess?
        public var accuracy: AccuracyAccess?
        public var motion: Bool?

        /// A rule as given (tests; the policy file is the ordinary way).
        public init(
            line: Int, executables: [String] = [], users: [String] = [], uids: [UInt32] = [], groups: [String] = [],
            location: LocationAccess? = nil, accuracy: AccuracyAccess? = nil, motion: Bool? = nil
        ) {
            self.line = line; self.executables = executables; self.users = users; self.uids = uids; self.groups = groups
            self.location = location; self.accuracy = accuracy; self.motion = motion
        }

        /// The most specific selector the rule gives.
        public var level: Level {
            if !executables.isEmpty { return .executable }
            if !users.isEmpty || !uids.isEmpty { return .user }
            return .group
        }

        /// What matched, as `decidedBy` names it ("user alice", "executable /usr/bin/foxtrotgps and group plugdev"),
        /// or `nil` when the rule does not match the peer. User and group selectors never match without an account.
        public func match(peer: PeerIdentity, account: Account?) -> String? {
            var parts: [String] = []
            if !executables.isEmpty {
                guard let path = peer.executablePath, executables.contains(path) else { return nil }
                parts.append("executable \(path)")
            }
            if !uids.isEmpty {
                guard let uid = peer.uid, uids.contains(uid) else { return nil }
                parts.append("uid \(uid)")
            }
            if !users.isEmpty {
                // The account must be the peer's: a stale or mismatched lookup must not lend its name.
                guard let account, account.uid == peer.uid, let name = account.name, users.contains(name) else { return nil }
                parts.append("user \(name)")
            }
            if !groups.isEmpty {
                guard let account, account.uid == peer.uid, let group = groups.last(where: { account.groupNames.contains($0) })
                else {
                    return nil
                }
                parts.append("group \(group)")
            }
            return parts.isEmpty ? nil : parts.joined(separator: " and ")
        }
    }

    /// Where the policy came from, as errors and `decidedBy` name it: the path given to `load`, the origin given to
    /// `parse`, `Policy.shippedOrigin`.
    public var origin: String
    /// What clients no rule matches get (`[default]`; what it does not set: location `denied`, accuracy `reduced`,
    /// motion `false`).
    public var defaultAuthorization: Authorization
    /// What clients of the gpsd endpoint get (`[gpsd]`; what it does not set: location `when-in-use`, accuracy
    /// `reduced`, motion `false`). The endpoint has no peer credentials: every local user (and every host, on an
    /// address other than loopback) gets this.
    public var gpsdEndpoint: Authorization
    /// The `[[rule]]` tables in file order.
    public var rules: [Rule]

    /// `[default]` when the file has none: nothing but what a client can learn without the daemon.
    public static let builtInDefault = Authorization(location: .denied, accuracy: .reduced, motion: false, decidedBy: "default")
    /// `[gpsd]` when the file has none: approximate location, as a gpsd client expects some location.
    public static let builtInGpsdEndpoint = Authorization(
        location: .whenInUse, accuracy: .reduced, motion: false, decidedBy: "gpsd endpoint")

    /// A policy as given (tests; `parse` and `load` are the ordinary ways).
    public init(origin: String, defaultAuthorization: Authorization, gpsdEndpoint: Authorization, rules: [Rule]) {
        self.origin = origin; self.defaultAuthorization = defaultAuthorization; self.gpsdEndpoint = gpsdEndpoint
        self.rules = rules
    }

    /// What the client `peer` may see; `account` is `Account.lookup(uid:gid:)` of its credentials (`nil`: user and
    /// group rules cannot match).
    ///
    /// A peer without credentials (`peer.uid == nil`: `SO_PEERCRED` failed, or a network peer) matches no rule and
    /// gets `defaultAuthorization`; the gpsd endpoint's clients get `gpsdEndpoint`, which the server asks for itself.
    public func authorization(for peer: PeerIdentity, account: Account?) -> Authorization {
        guard peer.uid != nil else {
            var a = defaultAuthorization
            a.decidedBy += " (no peer credentials)"
            return a
        }
        let matches: [(rule: Rule, label: String)] = rules.compactMap { rule in
            rule.match(peer: peer, account: account).map { (rule, "\(origin):\(rule.line) (\($0))") }
        }
        var contributors: [Int] = [] // indices into matches
        var fromDefault = false
        func decide<T>(_ key: KeyPath<Rule, T?>, default value: T) -> T {
            for level in Rule.Level.allCases.reversed() {
                for i in matches.indices.reversed() where matches[i].rule.level == level {
                    if let v = matches[i].rule[keyPath: key] {
                        if !contributors.contains(i) { contributors.append(i) }
                        return v
                    }
                }
            }
            fromDefault = true
            return value
        }
        let location = decide(\.location, default: defaultAuthorization.location)
        let accuracy = decide(\.accuracy, default: defaultAuthorization.accuracy)
        let motion = decide(\.motion, default: defaultAuthorization.motion)
        // Most specific first; within a level, the later rule (the one that wins) first.
        contributors.sort { (matches[$0].rule.level, $0) > (matches[$1].rule.level, $1) }
        var labels = contributors.map { matches[$0].label }
        if fromDefault { labels.append(defaultAuthorization.decidedBy) }
        return Authorization(location: location, accuracy: accuracy, motion: motion, decidedBy: labels.joined(separator: ", "))
    }

    /// Reads the policy file at `path` (`DaemonDefaults.policyPath`).
    ///
    /// - Throws: `PolicyError` of kind `missingFile` when there is no file (the server decides whether to fall back
    ///   to `shipped`), `unreadable` when it cannot be read or is not UTF-8, `invalid` with the line otherwise.
    public static func load(path: String) throws(PolicyError) -> Policy {
        let bytes: [UInt8]
        do { bytes = try PlainFile.read(path: path, maxBytes: 1 << 20) } catch {
            switch error.kind {
            case .notFound: throw PolicyError(kind: .missingFile, file: path, line: nil, message: "no such file")
            case .isDirectory:
                throw PolicyError(kind: .unreadable, file: path, line: nil, message: "a directory, not a policy file")
            default:
                throw PolicyError(
                    kind: .unreadable, file: path, line: nil, message: "cannot be read (\(error.problemDescription))")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw PolicyError(kind: .unreadable, file: path, line: nil, message: "not UTF-8 text")
        }
        return try parse(text, origin: path)
    }

    /// Parses the text of a policy file; errors and `decidedBy` name `origin` ("policy.toml", a path).
    ///
    /// Strict: an unknown table, key or value, a key given twice, a rule that names no client or sets nothing, and
    /// anything of TOML beyond the documented subset are errors, so that a typo cannot silently widen access.
    public static func parse(_ text: String, origin: String) throws(PolicyError) -> Policy {
        let document = try PolicyTOML(text, origin: origin)
        var defaultTable: PolicyTOML.Table?
        var gpsdTable: PolicyTOML.Table?
        var rules: [Rule] = []
        for table in document.tables {
            func fail(_ message: String, line: Int? = nil) -> PolicyError {
                PolicyError(file: origin, line: line ?? table.line, message: message)
            }
            switch (table.name, table.isArrayElement) {
            case ("default", false):
                if let first = defaultTable { throw fail("[default] given twice (first at line \(first.line))") }
                defaultTable = table
            case ("gpsd", false):
                if let first = gpsdTable { throw fail("[gpsd] given twice (first at line \(first.line))") }
                gpsdTable = table
            case ("rule", true):
                rules.append(try rule(table, origin: origin))
            case ("rule", false):
                throw fail("[rule] is one of a list of rules: write [[rule]]")
            case ("default", true), ("gpsd", true):
                throw fail("[[\(table.name)]] is a single table: write [\(table.name)]")
            default:
                throw fail(
                    "unknown table \(table.isArrayElement ? "[[\(table.name)]]" : "[\(table.name)]") (expected [default], [gpsd] or [[rule]])"
                )
            }
        }
        var defaultAuthorization = builtInDefault
        if let t = defaultTable {
            defaultAuthorization = try settings(t, origin: origin, base: builtInDefault, label: "\(origin):\(t.line) (default)")
        }
        var gpsdEndpoint = builtInGpsdEndpoint
        if let t = gpsdTable {
            gpsdEndpoint = try settings(
                t, origin: origin, base: builtInGpsdEndpoint, label: "\(origin):\(t.line) (gpsd endpoint)")
        }
        return Policy(origin: origin, defaultAuthorization: defaultAuthorization, gpsdEndpoint: gpsdEndpoint, rules: rules)
    }

    private static let settingKeys = ["location", "accuracy", "motion"]
    private static let selectorKeys = ["executable", "user", "uid", "group"]

    /// `[default]` or `[gpsd]`: the keys it sets over `base`.
    private static func settings(_ table: PolicyTOML.Table, origin: String, base: Authorization, label: String)
        throws(PolicyError)
        -> Authorization
    {
        var a = base
        a.decidedBy = label
        var seen: [String: Int] = [:]
        for entry in table.entries {
            let values = Values(origin: origin, entry: entry)
            if let first = seen[entry.key] {
                throw values.fail("\"\(entry.key)\" given twice in [\(table.name)] (first at line \(first))")
            }
            seen[entry.key] = entry.line
            switch entry.key {
            case "location": a.location = try values.oneOf(LocationAccess.self)
            case "accuracy": a.accuracy = try values.oneOf(AccuracyAccess.self)
            case "motion": a.motion = try values.bool()
            default:
                let hint = selectorKeys.contains(entry.key) ? "; whom a policy applies to is said in [[rule]] tables" : ""
                throw values.fail(
                    "unknown key \"\(entry.key)\" (expected \(settingKeys.joined(separator: ", ")))\(hint)")
            }
        }
        return a
    }

    /// One `[[rule]]`.
    private static func rule(_ table: PolicyTOML.Table, origin: String) throws(PolicyError) -> Rule {
        var rule = Rule(line: table.line)
        var seen: [String: Int] = [:]
        for entry in table.entries {
            let values = Values(origin: origin, entry: entry)
            if let first = seen[entry.key] {
                throw values.fail("\"\(entry.key)\" given twice in this rule (first at line \(first))")
            }
            seen[entry.key] = entry.line
            switch entry.key {
            case "location": rule.location = try values.oneOf(LocationAccess.self)
            case "accuracy": rule.accuracy = try values.oneOf(AccuracyAccess.self)
            case "motion": rule.motion = try values.bool()
            case "executable":
                rule.executables = try values.strings(what: "an absolute path") { $0.hasPrefix("/") }
            case "user": rule.users = try values.strings(what: "a user name") { !$0.isEmpty }
            case "group": rule.groups = try values.strings(what: "a group name") { !$0.isEmpty }
            case "uid": rule.uids = try values.uids()
            default:
                throw values.fail(
                    "unknown key \"\(entry.key)\" (expected \((selectorKeys + settingKeys).joined(separator: ", ")))")
            }
        }
        if rule.executables.isEmpty && rule.users.isEmpty && rule.uids.isEmpty && rule.groups.isEmpty {
            throw PolicyError(
                file: origin, line: table.line, message: "this rule names no client (give executable, user, uid or group)")
        }
        if rule.location == nil && rule.accuracy == nil && rule.motion == nil {
            throw PolicyError(
                file: origin, line: table.line, message: "this rule sets nothing (give location, accuracy or motion)")
        }
        return rule
    }
}

/// Reading one entry's value as what its key takes, with the errors that say what was expected.
private struct Values {
    let origin: String
    let entry: PolicyTOML.Entry

    func fail(_ message: String) -> PolicyError { PolicyError(file: origin, line: entry.line, message: message) }

    func oneOf<T: RawRepresentable & CaseIterable>(_: T.Type) throws(PolicyError) -> T where T.RawValue == String {
        let choices = T.allCases.map { "\"\($0.rawValue)\"" }
        let expected = choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
        guard case .string(let s) = entry.value else {
            throw fail("\"\(entry.key)\" must be \(expected), not \(entry.value.typeName) (\(entry.value.quoted))")
        }
        guard let value = T(rawValue: s) else { throw fail("\"\(entry.key)\" must be \(expected), not \"\(s)\"") }
        return value
    }

    func bool() throws(PolicyError) -> Bool {
        guard case .bool(let b) = entry.value else {
            let hint = entry.value == .string("true") || entry.value == .string("false") ? ", unquoted" : ""
            throw fail("\"\(entry.key)\" must be true or false\(hint), not \(entry.value.quoted)")
        }
        return b
    }

    /// A string or a non-empty array of strings, each passing `isValid`.
    func strings(what: String, isValid: (String) -> Bool) throws(PolicyError) -> [String] {
        let elements: [PolicyTOML.Value]
        if case .array(let a) = entry.value {
            guard !a.isEmpty else { throw fail("\"\(entry.key)\" is an empty array: this rule would match no one") }
            elements = a
        } else {
            elements = [entry.value]
        }
        var strings: [String] = []
        for element in elements {
            guard case .string(let s) = element else {
                throw fail("\"\(entry.key)\" must be \(what) in quotes (or an array of them), not \(element.quoted)")
            }
            guard isValid(s) else { throw fail("\"\(entry.key)\" must be \(what), not \"\(s)\"") }
            strings.append(s)
        }
        return strings
    }

    /// A uid or a non-empty array of uids: whole numbers 0 through 4294967294 ((uid_t) −1 is no user).
    func uids() throws(PolicyError) -> [UInt32] {
        let elements: [PolicyTOML.Value]
        if case .array(let a) = entry.value {
            guard !a.isEmpty else { throw fail("\"uid\" is an empty array: this rule would match no one") }
            elements = a
        } else {
            elements = [entry.value]
        }
        var uids: [UInt32] = []
        for element in elements {
            guard case .integer(let n) = element, n >= 0, n < Int64(UInt32.max) else {
                throw fail("\"uid\" must be a whole number from 0 to 4294967294 (or an array of them), not \(element.quoted)")
            }
            uids.append(UInt32(n))
        }
        return uids
    }
}
