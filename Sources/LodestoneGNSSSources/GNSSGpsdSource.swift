#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCore
import LodestoneLinux
import LodestoneLocation
import LodestoneSources

/// A running gpsd as the GNSS source: a client of its JSON protocol (gpsd_json(5)). It connects, asks for
/// `?WATCH={"enable":true,"json":true}`, and turns each epoch's TPV into a fix (the last TPV of each `time`, as
/// gpsd refines an epoch with several). If gpsd goes away, the source is "gone" and the engine reconnects.
///
/// gpsd owns the receiver, so its power cannot be commanded from here (`UncommandedReceiver`): a plan is recorded and
/// the receiver modelled as always tracking.
public struct GNSSGpsdSource: UncommandedReceiver {
    public let id: String
    public let label: String
    public let rateHz: Double
    /// The receiver's energy model (`generic` unless the board file names one).
    public let receiverModel: String
    /// The mode last planned (not applied).
    public var mode: GNSSReceiverMode = .continuous(rateHz: 1)
    public let host: String
    public let port: Int
    private var connection: TCPConnection?
    private var line: [UInt8] = []
    private var pending: ReceiverFix?
    private var pendingTime: String?
    private var buffer = [UInt8](repeating: 0, count: 8192)
    /// The last SKY's satellites used, kept for the next fix.
    private var satellitesUsed: Int?
    /// gpsd's VERSION `release`, once connected.
    public private(set) var gpsdRelease: String?

    /// The longest line accepted from gpsd, bytes (gpsd's own limit is GPS_JSON_RESPONSE_MAX, 10240).
    public static let maximumLineBytes = 16_384

    public init(id: String, host: String, port: Int, rateHz: Double = 20, receiverModel: String? = nil) {
        self.id = id; self.host = host; self.port = port; self.rateHz = rateHz; self.receiverModel = receiverModel ?? "generic"
        label = "gpsd @ \(host):\(port)"
    }

    public mutating func start() throws(SourceError) {
        connection?.close()
        connection = nil
        line.removeAll(keepingCapacity: true)
        pending = nil
        pendingTime = nil
        do {
            let c = try TCPConnection(host: host, port: port)
            try c.write(Array("?WATCH={\"enable\":true,\"json\":true}\n".utf8))
            connection = c
        } catch {
            throw SourceError(sensor: id, message: error.description, deviceGone: true)
        }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        guard let c = connection else {
            throw SourceError(sensor: id, message: "\(host):\(port): not connected", deviceGone: true)
        }
        var out: ReceiverFix?
        for _ in 0..<16 {
            let r = buffer.withUnsafeMutableBytes { b in Result { () throws(TCPError) in try c.read(into: b) } }
            let n: Int
            switch r {
            case .success(let k): n = k
            case .failure(let e):
                c.close()
                connection = nil
                throw SourceError(sensor: id, message: "gpsd " + e.description, deviceGone: true)
            }
            if n == 0 { break }
            for i in 0..<n {
                let b = buffer[i]
                if b == 0x0A {
                    if let f = handle(line: line, timeS: timeS) { out = f }
                    line.removeAll(keepingCapacity: true)
                } else if line.count < Self.maximumLineBytes {
                    line.append(b)
                }
            }
        }
        guard let out else { return .none }
        return .fix(out)
    }

    /// One JSON object from gpsd. A TPV with a new `time` completes the previous epoch (returned); TPVs without
    /// time are returned at once.
    mutating func handle(line: [UInt8], timeS: Double) -> ReceiverFix? {
        guard let object = try? JSONDecoder().decode(GpsdObject.self, from: Data(line)) else { return nil }
        switch object.messageClass {
        case "VERSION":
            gpsdRelease = object.release
            return nil
        case "SKY":
            if let u = object.uSat { satellitesUsed = u }
            return nil
        case "TPV":
            var f = Self.fix(fromTPV: object, timeS: timeS)
            f.satellitesUsed = satellitesUsed
            let time = object.time
            guard let time else { return f }
            if time == pendingTime { pending = f; return nil }
            let done = pending
            pending = f
            pendingTime = time
            // A TPV of a new epoch: the previous one is complete. Deliver the newest complete one; the
            // current epoch follows with the next.
            return done ?? nil
        default:
            return nil
        }
    }

    /// A gpsd TPV object (gpsd_json(5)) as a receiver fix.
    public static func fix(fromTPV o: GpsdObject, timeS: Double) -> ReceiverFix {
        var f = ReceiverFix(timeS: timeS, mode: ReceiverFix.Mode(rawValue: o.mode ?? 0) ?? .unknown)
        if let s = o.status {
            f.quality = ReceiverFix.Quality(rawValue: s)
        } else if f.mode >= .twoDimensional {
            f.quality = .gnss
        }
        if let t = o.time, let u = GPXReader.parseISO8601(t) { f.utcS = u.secondsSince1970 }
        f.latitudeDeg = o.lat
        f.longitudeDeg = o.lon
        f.altitudeMSLM = o.altMSL
        f.heightAboveEllipsoidM = o.altHAE
        f.geoidSeparationM = o.geoidSep
        f.speedMps = o.speed
        f.courseDeg = o.track
        f.climbMps = o.climb
        if let n = o.velN, let e = o.velE, let down = o.velD { f.velocityENUMps = Vector3(e, n, -down) }
        f.horizontalAccuracyM = o.eph
        f.verticalAccuracyM = o.epv
        f.speedAccuracyMps = o.eps
        f.courseAccuracyDeg = o.epd
        return f
    }
}

/// The members of a gpsd JSON object (gpsd_json(5)) the source reads: `class`, VERSION's `release`, SKY's `uSat`
/// and TPV's fix. Decoded leniently, as gpsd's own clients read it: a member that is missing or of another type
/// (a string where a number belongs) is `nil`, never a failure of the whole object; only `class` is required.
public struct GpsdObject: Decodable, Sendable {
    /// The object's `class`: `VERSION`, `TPV`, `SKY`, …
    public var messageClass: String
    /// VERSION: gpsd's release.
    public var release: String?
    /// SKY: satellites used in the solution.
    public var uSat: Int?
    /// TPV: 0 unknown, 1 no fix, 2 2D, 3 3D.
    public var mode: Int?
    /// TPV: the fix's quality (gpsd's `status`).
    public var status: Int?
    /// TPV: ISO 8601 UTC.
    public var time: String?
    /// TPV: degrees, metres, m/s, degrees, m/s; the error estimates in metres, m/s and degrees.
    public var lat: Double?, lon: Double?, altMSL: Double?, altHAE: Double?, geoidSep: Double?
    public var speed: Double?, track: Double?, climb: Double?, velN: Double?, velE: Double?, velD: Double?
    public var eph: Double?, epv: Double?, eps: Double?, epd: Double?

    private enum Key: String, CodingKey {
        case messageClass = "class", release, uSat, mode, status, time, lat, lon, altMSL, altHAE, geoidSep, speed, track, climb
        case velN, velE, velD, eph, epv, eps, epd
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        messageClass = try c.decode(String.self, forKey: .messageClass)
        func text(_ k: Key) -> String? { try? c.decodeIfPresent(String.self, forKey: k) }
        func int(_ k: Key) -> Int? { try? c.decodeIfPresent(Int.self, forKey: k) }
        func number(_ k: Key) -> Double? { try? c.decodeIfPresent(Double.self, forKey: k) }
        release = text(.release)
        uSat = int(.uSat)
        mode = int(.mode)
        status = int(.status)
        time = text(.time)
        lat = number(.lat); lon = number(.lon); altMSL = number(.altMSL); altHAE = number(.altHAE)
        geoidSep = number(.geoidSep); speed = number(.speed); track = number(.track); climb = number(.climb)
        velN = number(.velN); velE = number(.velE); velD = number(.velD)
        eph = number(.eph); epv = number(.epv); eps = number(.eps); epd = number(.epd)
    }
}
