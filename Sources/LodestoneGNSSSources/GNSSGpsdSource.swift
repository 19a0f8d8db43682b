import Foundation
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
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
            let cls = object["class"] as? String
        else { return nil }
        switch cls {
        case "VERSION":
            gpsdRelease = object["release"] as? String
            return nil
        case "SKY":
            if let u = object["uSat"] as? Int { satellitesUsed = u }
            return nil
        case "TPV":
            var f = Self.fix(fromTPV: object, timeS: timeS)
            f.satellitesUsed = satellitesUsed
            let time = object["time"] as? String
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
    public static func fix(fromTPV o: [String: Any], timeS: Double) -> ReceiverFix {
        func d(_ k: String) -> Double? { (o[k] as? NSNumber)?.doubleValue }
        var f = ReceiverFix(timeS: timeS, mode: ReceiverFix.Mode(rawValue: o["mode"] as? Int ?? 0) ?? .unknown)
        if let s = o["status"] as? Int {
            f.quality = ReceiverFix.Quality(rawValue: s)
        } else if f.mode >= .twoDimensional {
            f.quality = .gnss
        }
        if let t = o["time"] as? String, let u = GPXReader.parseISO8601(t) { f.utcS = u.secondsSince1970 }
        f.latitudeDeg = d("lat")
        f.longitudeDeg = d("lon")
        f.altitudeMSLM = d("altMSL")
        f.heightAboveEllipsoidM = d("altHAE")
        f.geoidSeparationM = d("geoidSep")
        f.speedMps = d("speed")
        f.courseDeg = d("track")
        f.climbMps = d("climb")
        if let n = d("velN"), let e = d("velE"), let down = d("velD") { f.velocityENUMps = Vector3(e, n, -down) }
        f.horizontalAccuracyM = d("eph")
        f.verticalAccuracyM = d("epv")
        f.speedAccuracyMps = d("eps")
        f.courseAccuracyDeg = d("epd")
        return f
    }
}
