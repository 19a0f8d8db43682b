#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneScheduler

/// A demand from the fleet's operator on `lodestone/<board>/command` (docs/fleet.md):
///
/// ```json
/// {"id": "c1", "accuracy": "100m", "distance_filter_m": 50, "classes": ["location", "battery"],
///  "intervals_s": {"location": 300}}
/// ```
///
/// Every key but `id` is optional; what is absent stays. `"reset": true` first returns to the configuration's settings.
/// The configuration's `[commands]` says which of them may be set and within which limits; the answer goes to
/// `lodestone/<board>/command/reply`. The accepted commands, merged into one (`merging(_:)`), are kept across restarts
/// (`FleetLink`).
public struct FleetCommand: Sendable, Hashable, Codable {
    /// The operator's id of the command, echoed in the reply.
    public var id: String?
    /// The accuracy tier asked of the scheduler (`navigation`, `best`, `10m`, `100m`, `1km`, `3km`, `reduced`).
    public var accuracy: String?
    /// Publish a location only after the carrier moved this far, m (0: every interval).
    public var distanceFilterM: Double?
    /// The classes to publish (replacing the current set).
    public var classes: [String]?
    /// Intervals by class, s.
    public var intervalsS: [String: Double]?
    /// True: return to the configuration's settings before applying the rest (always allowed).
    public var reset: Bool?

    public init(
        id: String? = nil, accuracy: String? = nil, distanceFilterM: Double? = nil, classes: [String]? = nil,
        intervalsS: [String: Double]? = nil, reset: Bool? = nil
    ) {
        self.id = id; self.accuracy = accuracy; self.distanceFilterM = distanceFilterM; self.classes = classes
        self.intervalsS = intervalsS; self.reset = reset
    }

    enum CodingKeys: String, CodingKey {
        case id, accuracy, distanceFilterM = "distance_filter_m", classes, intervalsS = "intervals_s", reset
    }
    static let keys = ["id", "accuracy", "distance_filter_m", "classes", "intervals_s", "reset"]

    /// This command followed by `later`, as one command without an id: `later`'s keys win, intervals are merged by
    /// class, and a `later` that resets replaces everything. Applying the result to the configuration's settings gives
    /// what applying the two in turn gives.
    public func merging(_ later: FleetCommand) -> FleetCommand {
        if later.reset == true {
            var r = later
            r.id = nil; r.reset = nil
            return r
        }
        var intervals = intervalsS
        if let l = later.intervalsS { intervals = (intervals ?? [:]).merging(l) { _, new in new } }
        return FleetCommand(
            accuracy: later.accuracy ?? accuracy, distanceFilterM: later.distanceFilterM ?? distanceFilterM,
            classes: later.classes ?? classes, intervalsS: intervals)
    }

    /// The command as one JSON object (keys sorted), as `decode(_:)` reads it.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Reads a command's payload.
    /// - Throws: `FleetError` saying what is wrong (not JSON, an unknown key, a mistyped value).
    public static func decode(_ payload: String) throws(FleetError) -> FleetCommand {
        let data = Data(payload.utf8)
        guard let object = try? JSONDecoder().decode(KeyList.self, from: data) else { throw FleetError("not a JSON object") }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw FleetError("unknown key \"\(key)\" (expected \(keys.joined(separator: ", ")))")
        }
        do { return try JSONDecoder().decode(FleetCommand.self, from: data) } catch {
            if case DecodingError.typeMismatch(_, let c) = error {
                throw FleetError("key \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type")
            }
            throw FleetError("not a command: \(error)")
        }
    }

    /// `publish` with this command applied, if `rules` allow every part of it; a reset starts from `configured` (the
    /// configuration's settings) instead of `publish`.
    /// - Throws: `FleetError` with the reason of the first part refused (nothing is applied then).
    public func applied(
        to publish: FleetConfiguration.Publish, rules: FleetConfiguration.Commands,
        configured: FleetConfiguration.Publish? = nil
    ) throws(FleetError) -> FleetConfiguration.Publish {
        guard rules.enabled else { throw FleetError("commands are disabled in this board's configuration") }
        func allow(_ s: FleetConfiguration.Commands.Setting) throws(FleetError) {
            guard rules.allowed.contains(s) else {
                throw FleetError(
                    "\(s.rawValue) may not be set from the fleet (allowed: \(rules.allowed.map(\.rawValue).sorted().joined(separator: ", ")))"
                )
            }
        }
        var p = reset == true ? (configured ?? publish) : publish
        if let a = accuracy {
            try allow(.accuracy)
            guard let tier = DesiredAccuracy(rawValue: a) else {
                throw FleetError(
                    "accuracy \"\(a)\" is unknown (allowed: \(DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard tier >= rules.finestAccuracy else {
                throw FleetError("accuracy \(a) is finer than this board allows (\(rules.finestAccuracy.rawValue))")
            }
            p.desiredAccuracy = tier
        }
        if let d = distanceFilterM {
            try allow(.distanceFilter)
            guard d >= 0 && d.isFinite else { throw FleetError("distance_filter_m \(d): must be 0 or more metres") }
            p.distanceFilterM = d == 0 ? nil : d
        }
        if let list = classes {
            try allow(.classes)
            var set = Set<FleetConfiguration.MessageClass>()
            for name in list {
                guard let c = FleetConfiguration.MessageClass(rawValue: name) else {
                    throw FleetError(
                        "class \"\(name)\" is unknown (allowed: \(FleetConfiguration.MessageClass.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                set.insert(c)
            }
            p.classes = set
        }
        if let intervals = intervalsS {
            try allow(.intervals)
            for (name, s) in intervals.sorted(by: { $0.key < $1.key }) {
                guard let c = FleetConfiguration.MessageClass(rawValue: name) else {
                    throw FleetError("intervals_s: class \"\(name)\" is unknown")
                }
                guard s >= rules.minimumIntervalS && s.isFinite else {
                    throw FleetError(
                        "intervals_s.\(name) \(s) s is shorter than this board allows (\(rules.minimumIntervalS) s)")
                }
                p.intervalsS[c] = s
            }
        }
        return p
    }
}

/// The answer on `lodestone/<board>/command/reply`.
public struct FleetCommandReply: Sendable, Hashable, Encodable {
    public var `class` = "REPLY"
    /// The command's `id`.
    public var id: String?
    public var accepted: Bool
    /// Why it was refused.
    public var reason: String?
    /// The settings in force after it (accepted ones).
    public var accuracy: String?
    public var distanceFilterM: Double?
    public var classes: [String]?
    public var intervalsS: [String: Double]?

    enum CodingKeys: String, CodingKey {
        case `class`, id, accepted, reason, accuracy, distanceFilterM = "distance_filter_m", classes
        case intervalsS = "intervals_s"
    }

    public static func refused(_ id: String?, _ reason: String) -> FleetCommandReply {
        FleetCommandReply(id: id, accepted: false, reason: reason)
    }

    public static func accepted(_ id: String?, _ p: FleetConfiguration.Publish) -> FleetCommandReply {
        FleetCommandReply(
            id: id, accepted: true, accuracy: p.desiredAccuracy.rawValue, distanceFilterM: p.distanceFilterM,
            classes: p.classes.sorted().map(\.rawValue),
            intervalsS: Dictionary(uniqueKeysWithValues: p.classes.sorted().map { ($0.rawValue, p.intervalS($0)) }))
    }
}

/// The keys of a JSON object, whatever their values (so that an unknown key is named, not silently ignored).
private struct KeyList: Decodable {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    let keys: [String]
    init(from decoder: any Decoder) throws {
        keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    }
}
