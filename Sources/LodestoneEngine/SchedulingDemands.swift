#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneLinux
import LodestoneScheduler

/// A demands file (`lodestone run --demands FILE`): the clients of a run and what each needs, as a JSON list.
///
/// ```json
/// [{"client": "map", "location": {"accuracy": "10m", "distance_filter_m": 5, "max_age_s": 10},
///   "heading": {"filter_deg": 2}, "foreground": true},
///  {"client": "logger", "location": {"accuracy": "100m", "significant_change": true}, "activity": true,
///   "foreground": false}]
/// ```
///
/// Keys (all but `client` optional): `location` {`accuracy` (`navigation`, `best`, `10m`, `100m`, `1km`, `3km`,
/// `reduced`; default `best`), `distance_filter_m` (m, > 0; default none), `significant_change` (default false),
/// `max_age_s` (s, > 0; default 10)}, `heading` {`filter_deg` (°, ≥ 0; default 1), `true_north` (default true)},
/// `activity`, `altitude` (default false), `foreground` (default true).
public enum DemandsFile {
    /// What to do when the file cannot be read, in the library's words (the command line names its flag instead).
    public static let checkPathRemedy = "check the demands file's path"

    /// Reads and checks the file at `path`.
    /// - Throws: `JobError`, one line naming the file, the client's place in the list and the key.
    public static func load(path: String) throws(JobError) -> [Demand] {
        let data: Data
        do { data = try Data(PlainFile.read(path: path)) } catch {
            throw JobError("\(path): cannot read the demands file (\(error.problemDescription)); \(checkPathRemedy)")
        }
        return try parse(data, path: path)
    }

    /// Parses and checks demands JSON; `path` is used in messages only.
    /// - Throws: `JobError`, one line naming the file, the client's place in the list and the key.
    public static func parse(_ data: Data, path: String) throws(JobError) -> [Demand] {
        let entries: [Entry]
        do { entries = try JSONDecoder().decode([Entry].self, from: data) } catch let e as DecodingError {
            throw JobError("\(path): \(describe(e)); see docs/scheduler-run.md for the format")
        } catch {
            throw JobError("\(path): not valid JSON (\(error)); see docs/scheduler-run.md for the format")
        }
        guard !entries.isEmpty else { throw JobError("\(path): the list of clients is empty; give at least one client") }
        var demands: [Demand] = []
        var names: Set<String> = []
        for (i, e) in entries.enumerated() {
            let at = "\(path): client \(i + 1) (\(e.client))"
            guard !e.client.isEmpty, names.insert(e.client).inserted else {
                throw JobError("\(at): client names must be non-empty and unique")
            }
            var location: LocationDemand?
            if let l = e.location {
                var d = LocationDemand()
                if let a = l.accuracy {
                    guard let tier = DesiredAccuracy(rawValue: a) else {
                        throw JobError(
                            "\(at): location.accuracy \"\(a)\" is unknown; allowed: "
                                + DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                    d.desiredAccuracy = tier
                }
                if let f = l.distanceFilterM {
                    guard f > 0, f.isFinite else {
                        throw JobError("\(at): location.distance_filter_m must be a positive number of metres")
                    }
                    d.distanceFilterM = f
                }
                if let m = l.maxAgeS {
                    guard m > 0, m.isFinite else {
                        throw JobError("\(at): location.max_age_s must be a positive number of seconds")
                    }
                    d.maximumAgeS = m
                }
                d.significantChangeOnly = l.significantChange ?? false
                location = d
            }
            var heading: HeadingDemand?
            if let h = e.heading {
                var d = HeadingDemand()
                if let f = h.filterDeg {
                    guard f >= 0, f < 360 else { throw JobError("\(at): heading.filter_deg must be between 0 and 360 degrees") }
                    d.headingFilterDeg = f
                }
                d.trueNorth = h.trueNorth ?? true
                heading = d
            }
            let demand = Demand(
                client: e.client, location: location, heading: heading, activity: e.activity ?? false,
                altitude: e.altitude ?? false, foreground: e.foreground ?? true)
            guard location != nil || heading != nil || demand.activity || demand.altitude else {
                throw JobError("\(at): asks for nothing; give location, heading, activity or altitude")
            }
            demands.append(demand)
        }
        return demands
    }

    struct Entry: Decodable {
        var client: String
        var location: LocationEntry?
        var heading: HeadingEntry?
        var activity: Bool?
        var altitude: Bool?
        var foreground: Bool?
    }

    struct LocationEntry: Decodable {
        var accuracy: String?
        var distanceFilterM: Double?
        var significantChange: Bool?
        var maxAgeS: Double?
        enum CodingKeys: String, CodingKey {
            case accuracy, distanceFilterM = "distance_filter_m", significantChange = "significant_change", maxAgeS = "max_age_s"
        }
    }

    struct HeadingEntry: Decodable {
        var filterDeg: Double?
        var trueNorth: Bool?
        enum CodingKeys: String, CodingKey { case filterDeg = "filter_deg", trueNorth = "true_north" }
    }

    /// One line for a decoding error: where (client number and key) and what.
    static func describe(_ e: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            var parts: [String] = []
            for k in path {
                if let i = k.intValue { parts.append("client \(i + 1)") } else { parts.append(k.stringValue) }
            }
            return parts.isEmpty ? "top level" : parts.joined(separator: ".")
        }
        switch e {
        case let .typeMismatch(type, c):
            if c.codingPath.isEmpty { return "top level: expected a JSON list of clients" }
            let expected =
                type == Bool.self
                ? "true or false"
                : type == Double.self
                    ? "a number"
                    : type == String.self
                        ? "a string"
                        : "a JSON object"
            return "\(place(c.codingPath)): expected \(expected)"
        case let .valueNotFound(type, c): return "\(place(c.codingPath)): missing \(type)"
        case let .keyNotFound(key, c): return "\(place(c.codingPath + [key])): missing (required)"
        case .dataCorrupted(let c): return "\(place(c.codingPath)): not valid JSON"
        @unknown default: return "not a demands list"
        }
    }
}
