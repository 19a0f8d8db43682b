/// A client's watch policy (gpsd's `struct gps_policy_t`), set by `?WATCH={…}` and echoed in every WATCH reply.
///
/// A new connection starts with everything off, as gpsd's does (`?WATCH;` on a fresh connection answers
/// `"enable":false,"json":false,…`).
public struct GPSDWatch: Sendable, Hashable {
    /// Reports are streamed (gpsd's `watcher`).
    public var enable = false
    /// Reports as JSON (TPV, SKY, ATT).
    public var json = false
    /// The receiver's data as NMEA 0183 (lodestone generates none yet: see `docs/gpsd.md`).
    public var nmea = false
    /// Raw data: 1 NMEA passed through and binary hex-dumped, 2 the byte stream verbatim (none generated yet).
    public var raw = 0
    /// Scaled AIS/subframe data (no effect here: we have neither).
    public var scaled = false
    /// Timing members in TPV (gpsd's undocumented `timing`; no effect here).
    public var timing = false
    /// AIS type 24 unsplit (no effect here).
    public var split24 = false
    /// TOFF and PPS reports (none generated here).
    public var pps = false
    /// Only the reports of this device path (`nil`: every device).
    public var device: String?

    /// Everything off.
    public init() {}

    /// True when JSON reports (TPV, SKY, ATT) are to be streamed to this client.
    public var streamsJSON: Bool { enable && json }

    /// True when the client asked for NMEA or raw receiver data (gpsmon, `gpspipe -r`, navit's `r` mode).
    public var wantsReceiverData: Bool { enable && (nmea || raw > 0) }

    /// Applies the members of a `?WATCH={…}` object as gpsd 3.22's `json_watch_read` does (verified against Debian
    /// 12's gpsd, see `docs/gpsd.md`): `json`, `nmea` and `raw` change only when given; `enable` becomes true when
    /// absent (gpsmon sends `{"raw":2,"pps":true}` and expects a stream); `scaled`, `timing`, `split24` and `pps`
    /// become false and `device` none when absent. Unknown members (and `remote`, `class`) are ignored.
    ///
    /// - Throws: a `GPSDJSONReader.Failure` naming the member whose value has the wrong type; nothing is changed then.
    mutating func apply(_ object: GPSDJSONValue) throws(GPSDJSONReader.Failure) {
        guard case .object = object else { throw GPSDJSONReader.Failure(description: "expected a JSON object") }
        var next = self
        next.enable = try Self.boolean(object, "enable") ?? true
        next.json = try Self.boolean(object, "json") ?? json
        next.nmea = try Self.boolean(object, "nmea") ?? nmea
        next.raw = try Self.integer(object, "raw") ?? raw
        next.scaled = try Self.boolean(object, "scaled") ?? false
        next.timing = try Self.boolean(object, "timing") ?? false
        next.split24 = try Self.boolean(object, "split24") ?? false
        next.pps = try Self.boolean(object, "pps") ?? false
        switch object["device"] {
        case nil: next.device = nil
        case .string(let s): next.device = s.isEmpty ? nil : s
        case .some: throw GPSDJSONReader.Failure(description: "\"device\" must be a string")
        }
        self = next
    }

    private static func boolean(_ object: GPSDJSONValue, _ key: String) throws(GPSDJSONReader.Failure) -> Bool? {
        switch object[key] {
        case nil: return nil
        case .boolean(let b): return b
        case .some: throw GPSDJSONReader.Failure(description: "\"\(key)\" must be true or false")
        }
    }

    private static func integer(_ object: GPSDJSONValue, _ key: String) throws(GPSDJSONReader.Failure) -> Int? {
        switch object[key] {
        case nil: return nil
        case .number(let n) where n == n.rounded() && (0...255).contains(n): return Int(n)
        case .some: throw GPSDJSONReader.Failure(description: "\"\(key)\" must be an integer 0…255")
        }
    }
}
