import LodestoneCore
import LodestoneEngine
import LodestoneLocation

/// What the endpoint says of itself in VERSION.
///
/// The default is Debian 12's gpsd, 3.22 with protocol 3.14: the libgps (3.22, API 11.0) and Python module that
/// Debian 12 ships read any release, but newer cgps (3.27.5 and later) warn and pause 4 s when `release` or the
/// protocol differs from their own build, so a board with a newer libgps sets its own (`gpsd -V`, `GPSD_API_*` in
/// `gps.h`; gpsd 3.25 speaks 3.15, 3.27.5 and later 16.1).
public struct GPSDVersion: Sendable, Hashable {
    /// gpsd's `release`, e.g. "3.22".
    public var release: String
    /// gpsd's `rev`, e.g. "3.22".
    public var revision: String
    /// `proto_major`.
    public var protocolMajor: Int
    /// `proto_minor`.
    public var protocolMinor: Int

    public init(release: String, revision: String, protocolMajor: Int, protocolMinor: Int) {
        self.release = release; self.revision = revision
        self.protocolMajor = protocolMajor; self.protocolMinor = protocolMinor
    }

    /// Debian 12's gpsd 3.22: release and rev "3.22", protocol 3.14.
    public static let debian12 = GPSDVersion(release: "3.22", revision: "3.22", protocolMajor: 3, protocolMinor: 14)
}

/// The receiver as DEVICE describes it: our fused receiver, not a serial port (no `bps`, `parity`, … members, as
/// gpsd omits them for network sources).
public struct GPSDDevice: Sendable, Hashable {
    /// `path`: the board's GNSS source id or device path; also the `device` member of every report.
    public var path: String
    /// `driver`, "Lodestone".
    public var driver: String
    /// `activated`: when the endpoint started serving the receiver, s since 1970-01-01T00:00:00Z (`nil`: omitted).
    public var activatedUnixS: Double?
    /// `flags`: 1 = GPS data seen (gpsd's `SEEN_GPS`).
    public var flags: Int

    public init(path: String, driver: String = "Lodestone", activatedUnixS: Double?, flags: Int = 1) {
        self.path = path; self.driver = driver; self.activatedUnixS = activatedUnixS; self.flags = flags
    }
}

/// The attitude members of an ATT report, in gpsd's units and our board frame (x right, y forward, z up).
///
/// Angles follow the aerospace convention that gpsd's sources (u-blox NAV-ATT, TNT compasses, XDR) use: pitch is
/// positive nose (+y) up, roll positive right side (+x) down, yaw and heading clockwise from north. These are
/// `Quaternion.rollPitchHeadingDeg`'s conventions, so `DeviceMotion`'s angles go out unchanged.
public struct GPSDAttitude: Sendable, Hashable {
    /// `heading`: where +y points, deg clockwise from true north [0, 360).
    public var trueHeadingDeg: Double?
    /// `mheading`: the same from magnetic north.
    public var magneticHeadingDeg: Double?
    /// `mag_st`: "N" normal, "C" the magnetometer needs calibrating (TNT's status letters).
    public var magneticStatus: Character?
    /// `pitch`, `roll`, `yaw`, deg.
    public var pitchDeg: Double?
    public var rollDeg: Double?
    public var yawDeg: Double?
    /// `mag_x…z`, µT, board axes; `mag_len` is its norm.
    public var magneticFieldMicroTesla: Vector3?
    /// `acc_x…z`, m/s²: the specific force an accelerometer measures (+9.81 on z lying flat, face up), board axes;
    /// `acc_len` is its norm.
    public var specificForceMps2: Vector3?
    /// `gyro_x…z`, deg/s, board axes, bias removed.
    public var rotationRateDegS: Vector3?

    public init() {}

    /// The members known from the latest heading and device motion (either may be `nil`). A heading whose accuracy
    /// is negative (no magnetometer: relative to the start) gives no `heading`/`mheading`.
    public init(heading: HeadingUpdate?, motion: DeviceMotion?) {
        if let heading, heading.headingAccuracyDeg >= 0 {
            trueHeadingDeg = heading.trueHeadingDeg
            magneticHeadingDeg = heading.magneticHeadingDeg
            magneticStatus = heading.calibrationNeeded ? "C" : "N"
        }
        if let motion {
            pitchDeg = motion.pitchDeg
            rollDeg = motion.rollDeg
            yawDeg = motion.yawDeg
            // The accelerometer's reading: userAcceleration = f + gravity (gravity pointing down), so f = user − gravity.
            specificForceMps2 = motion.userAccelerationMps2 - motion.gravityMps2
            rotationRateDegS = motion.rotationRateRadS * Angle.degreesPerRadian
        }
        magneticFieldMicroTesla = motion?.magneticFieldMicroTesla ?? heading?.magneticFieldMicroTesla
    }
}

/// Builders of every gpsd report and response line: compact JSON, `"class"` first, members in gpsd's order and
/// decimals (`gpsd/gpsd_json.c`), absent values left out, each line ending in CR LF (`docs/gpsd.md` says how each
/// member is derived).
public enum GPSDReport {
    /// 95 % radius of a circular 2D normal distribution → 95 % half-width of one axis: 1.959964 / √(−2 ln 0.05).
    static let axis95PerRadius95 = 1.959_963_985 / 2.447_746_831

    /// `{"class":"VERSION","release":…,"rev":…,"proto_major":…,"proto_minor":…}` — the banner on connect and the
    /// answer to `?VERSION;`.
    public static func version(_ v: GPSDVersion) -> String {
        var o = GPSDJSONObject(class: "VERSION")
        o.string("release", v.release)
        o.string("rev", v.revision)
        o.integer("proto_major", v.protocolMajor)
        o.integer("proto_minor", v.protocolMinor)
        return o.line
    }

    /// One DEVICE object: `path`, `driver`, `activated`, `flags` (the answer to `?DEVICE;`).
    public static func device(_ d: GPSDDevice) -> String { deviceObject(d).line }

    /// `{"class":"DEVICES","devices":[DEVICE…]}`.
    public static func devices(_ list: [GPSDDevice]) -> String {
        var o = GPSDJSONObject(class: "DEVICES")
        o.raw("devices", GPSDJSONObject.array(list.map { deviceObject($0).object }))
        return o.line
    }

    /// `{"class":"WATCH",…}` with every member, as gpsd echoes a policy; `device` only when set.
    public static func watch(_ w: GPSDWatch) -> String {
        var o = GPSDJSONObject(class: "WATCH")
        o.boolean("enable", w.enable)
        o.boolean("json", w.json)
        o.boolean("nmea", w.nmea)
        o.integer("raw", w.raw)
        o.boolean("scaled", w.scaled)
        o.boolean("timing", w.timing)
        o.boolean("split24", w.split24)
        o.boolean("pps", w.pps)
        o.string("device", w.device)
        return o.line
    }

    /// `{"class":"ERROR","message":…}`.
    public static func error(_ message: String) -> String {
        var o = GPSDJSONObject(class: "ERROR")
        o.string("message", message)
        return o.line
    }

    /// `{"class":"POLL","time":…,"active":n,"tpv":[…],"sky":[…]}` from cached report lines (their CR LF is dropped).
    ///
    /// - Parameters:
    ///   - nowUnixS: the server's time of the answer, s since 1970-01-01T00:00:00Z.
    ///   - active: the number of devices the client watches.
    public static func poll(nowUnixS: Double, active: Int, tpv: [String], sky: [String]) -> String {
        var o = GPSDJSONObject(class: "POLL")
        o.string("time", iso8601(nowUnixS))
        o.integer("active", active)
        o.raw("tpv", GPSDJSONObject.array(tpv.map(withoutLineEnd)))
        o.raw("sky", GPSDJSONObject.array(sky.map(withoutLineEnd)))
        return o.line
    }

    /// A TPV report from a fused location and the latest receiver fix.
    ///
    /// - `mode`: 1 without a location; 3 when the location has an altitude and the receiver's last fix is not 2D
    ///   (a dead-reckoned or fused location with a barometric altitude keeps 3); 2 otherwise.
    /// - `status`: 5 dead reckoning, 6 GNSS fused with the IMU; for a plain GNSS location the receiver's quality when
    ///   it is DGPS or better (gpsd never prints 0 or 1), 8 when simulated, else absent.
    /// - `time`/`ept`: the location's UTC (the fix's without a location) with milliseconds; `ept` 0.005 s, gpsd's
    ///   figure for a receiver's time tag.
    /// - accuracies (ours are 95 %): `eph` the 95 % radius, `epx`/`epy` its per-axis 95 % half-width (×0.8007 for a
    ///   circular normal), `epv`, `eps`, `epd` the 95 % half-widths, `sep` = √(eph² + epv²) (gpsd: pdop × uere).
    /// - `magvar` (+ east) when given, and then `magtrack` = track − magvar.
    ///
    /// Members whose values are `nil` (a reduced-accuracy location has no altitude, speed or course) are left out.
    public static func tpv(location: Location?, fix: ReceiverFix?, device: String?, magneticVariationDeg: Double? = nil)
        -> String
    {
        var o = GPSDJSONObject(class: "TPV")
        o.string("device", device)
        guard let location, location.coordinate.isValid else {
            o.integer("mode", fix?.mode == .unknown ? 0 : 1)
            if let utc = fix?.utcS, utc.isFinite, utc > 0 {
                o.string("time", iso8601(utc))
                o.number("ept", 0.005, digits: 3)
            }
            return o.line
        }
        let info = location.sourceInformation
        let status: Int? =
            switch info.method {
            case .deadReckoning: 5
            case .fused: 6
            case .gnss:
                if info.isSimulatedBySoftware {
                    8
                } else if let q = fix?.quality, q.rawValue >= ReceiverFix.Quality.differential.rawValue {
                    q.rawValue
                } else {
                    nil
                }
            }
        let altHAE = location.ellipsoidalAltitudeM
        let altMSL = location.altitudeMSLM
        let hasAltitude = altHAE?.isFinite == true || altMSL?.isFinite == true
        let mode = hasAltitude && fix?.mode != .twoDimensional ? 3 : 2
        o.integer("status", status)
        o.integer("mode", mode)
        if let utc = location.utcS, utc.isFinite, utc > 0 {
            o.string("time", iso8601(utc))
            o.number("ept", 0.005, digits: 3)
        }
        o.number("lat", location.coordinate.latitudeDeg, digits: 9)
        o.number("lon", location.coordinate.longitudeDeg, digits: 9)
        o.number("altHAE", altHAE, digits: 4)
        o.number("altMSL", altMSL, digits: 4)
        o.number("alt", altMSL ?? altHAE, digits: 4)
        let eph = location.horizontalAccuracyM.isFinite && location.horizontalAccuracyM >= 0 ? location.horizontalAccuracyM : nil
        let epxy = eph.map { $0 * axis95PerRadius95 }
        o.number("epx", epxy, digits: 3)
        o.number("epy", epxy, digits: 3)
        let epv = mode == 3 ? location.verticalAccuracyM : nil
        o.number("epv", epv, digits: 3)
        let track = location.courseDeg
        o.number("track", track, digits: 4)
        let magvar = magneticVariationDeg.flatMap { $0.isFinite ? $0 : nil }
        if let track, let magvar {
            o.number("magtrack", Angle.wrap360(track - magvar), digits: 4)
        }
        o.number("magvar", magvar, digits: 1)
        o.number("speed", location.speedMps, digits: 3)
        if mode == 3 { o.number("climb", location.climbMps, digits: 3) }
        o.number("epd", location.courseAccuracyDeg, digits: 4)
        o.number("eps", location.speedAccuracyMps, digits: 2)
        if mode == 3 {
            let geoidSep =
                fix?.geoidSeparationM ?? altHAE.flatMap { h in altMSL.map { h - $0 } }
            o.number("geoidSep", geoidSep, digits: 3)
        }
        o.number("eph", eph, digits: 3)
        if let eph, let epv, epv.isFinite { o.number("sep", (eph * eph + epv * epv).squareRoot(), digits: 3) }
        return o.line
    }

    /// A SKY report: the receiver's DOPs and satellite counts, and the sky view when one is given.
    ///
    /// `satellites` lists every satellite with a PRN, each with `PRN` and `used` (the Python module raises
    /// `KeyError` without `used`); `nSat`/`uSat` are counted from it, as gpsd does. Without a sky view (the engine
    /// does not pass the decoder's yet) `uSat` is the fix's `satellitesUsed` and `nSat`/`satellites` are left out.
    public static func sky(fix: ReceiverFix?, satellites: [GNSSSatellite]? = nil, device: String?, utcS: Double?) -> String {
        var o = GPSDJSONObject(class: "SKY")
        o.string("device", device)
        if let utcS, utcS.isFinite, utcS > 0 { o.string("time", iso8601(utcS)) }
        o.number("vdop", fix?.vdop, digits: 2)
        o.number("hdop", fix?.hdop, digits: 2)
        o.number("pdop", fix?.pdop, digits: 2)
        if let satellites {
            let listed = satellites.filter { $0.prn != 0 }
            o.integer("nSat", listed.count)
            o.integer("uSat", listed.filter(\.used).count)
            if !listed.isEmpty {
                o.raw("satellites", GPSDJSONObject.array(listed.map(satelliteObject)))
            }
        } else {
            o.integer("uSat", fix?.satellitesUsed)
        }
        return o.line
    }

    /// An ATT report (`heading`, `mag_st`, `mheading`, `pitch`, `yaw`, `roll`, `mag_*`, `acc_*`, `gyro_*`: only
    /// members gpsd documents, since libgps 3.20 and older fail a whole ATT on an unknown one).
    public static func att(_ a: GPSDAttitude, device: String?, utcS: Double?) -> String {
        var o = GPSDJSONObject(class: "ATT")
        o.string("device", device)
        if let utcS, utcS.isFinite, utcS > 0 { o.string("time", iso8601(utcS)) }
        o.number("heading", a.trueHeadingDeg, digits: 3)
        o.string("mag_st", a.magneticStatus.map { String($0) })
        o.number("mheading", a.magneticHeadingDeg, digits: 3)
        o.number("pitch", a.pitchDeg, digits: 3)
        o.number("yaw", a.yawDeg, digits: 3)
        o.number("roll", a.rollDeg, digits: 3)
        if let m = a.magneticFieldMicroTesla, m.x.isFinite, m.y.isFinite, m.z.isFinite {
            o.number("mag_len", m.length, digits: 3)
            o.number("mag_x", m.x, digits: 3)
            o.number("mag_y", m.y, digits: 3)
            o.number("mag_z", m.z, digits: 3)
        }
        if let f = a.specificForceMps2, f.x.isFinite, f.y.isFinite, f.z.isFinite {
            o.number("acc_len", f.length, digits: 3)
            o.number("acc_x", f.x, digits: 3)
            o.number("acc_y", f.y, digits: 3)
            o.number("acc_z", f.z, digits: 3)
        }
        if let g = a.rotationRateDegS, g.x.isFinite, g.y.isFinite, g.z.isFinite {
            o.number("gyro_x", g.x, digits: 3)
            o.number("gyro_y", g.y, digits: 3)
            o.number("gyro_z", g.z, digits: 3)
        }
        return o.line
    }

    /// The magnetic variation (declination, deg, + east, (−180, 180]) a heading implies: true − magnetic; `nil`
    /// until the true heading is known. The TPV's `magvar`.
    public static func magneticVariationDeg(from heading: HeadingUpdate?) -> Double? {
        guard let heading, heading.headingAccuracyDeg >= 0, let t = heading.trueHeadingDeg else { return nil }
        let v = Angle.wrap180(t - heading.magneticHeadingDeg)
        return v.isFinite ? v : nil
    }

    // MARK: - Parts

    static func deviceObject(_ d: GPSDDevice) -> GPSDJSONObject {
        var o = GPSDJSONObject(class: "DEVICE")
        o.string("path", d.path)
        o.string("driver", d.driver)
        if let t = d.activatedUnixS, t.isFinite, t > 0 { o.string("activated", iso8601(t)) }
        o.integer("flags", d.flags)
        return o
    }

    static func satelliteObject(_ s: GNSSSatellite) -> String {
        var o = "{\"PRN\":" + String(s.prn)
        func add(_ key: String, _ v: Double?) {
            guard let v, v.isFinite else { return }
            o += ",\"" + key + "\":" + formatFixed(v, digits: 1)
        }
        if let el = s.elevationDeg, abs(el) <= 90 { add("el", el) }
        if let az = s.azimuthDeg, (0...359).contains(az) { add("az", az) }
        add("ss", s.signalDBHz)
        o += ",\"used\":" + (s.used ? "true" : "false")
        if s.svID != 0 { o += ",\"gnssid\":" + String(s.gnssID) + ",\"svid\":" + String(s.svID) }
        if let sig = s.signalID, sig != 0 { o += ",\"sigid\":" + String(sig) }
        return o + "}"
    }

    /// ISO 8601 UTC with milliseconds, as gpsd's `timespec_to_iso8601`: `2022-03-29T00:38:33.000Z`.
    static func iso8601(_ unixS: Double) -> String { UTCCalendar.iso8601(unixS: unixS, fractionDigits: 3) }

    static func withoutLineEnd(_ line: String) -> String {
        var s = Substring(line)
        while let last = s.last, last == "\n" || last == "\r" || last == "\r\n" { s.removeLast() }
        return String(s)
    }
}
