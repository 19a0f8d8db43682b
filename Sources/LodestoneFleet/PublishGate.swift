#if canImport(Glibc)
    import Glibc
#else
    import Foundation
#endif
import LodestoneWire

/// Decides which of the session's wire messages go to the fleet: each class at most once per its interval (session
/// time), activity at each change of kind too, a location only after the carrier moved `distanceFilterM`, and the
/// newest plan and battery state when their interval is due. Pure: the feed gives it the session's messages in order.
public struct PublishGate: Sendable {
    public var publish: FleetConfiguration.Publish
    private var lastS: [FleetConfiguration.MessageClass: Double] = [:]
    private var lastActivity: String?
    private var lastPosition: (latDeg: Double, lonDeg: Double)?
    private var latestPlan: Wire.Plan?
    private var planPending = false

    public init(_ publish: FleetConfiguration.Publish) { self.publish = publish }

    /// The messages to publish after `m`: (topic suffix, payload message), in order.
    public mutating func offer(_ m: Wire.Message) -> [(suffix: String, message: any Encodable & Sendable)] {
        var out: [(suffix: String, message: any Encodable & Sendable)] = []
        let classes = publish.classes
        var t: Double?
        switch m {
        case .location(let l):
            t = l.tS
            if classes.contains(.location), due(.location, l.tS), moved(l) {
                take(.location, l.tS)
                lastPosition = (l.latDeg, l.lonDeg)
                out.append(("location", l))
            }
        case .heading(let h):
            t = h.tS
            if classes.contains(.heading), due(.heading, h.tS) {
                take(.heading, h.tS)
                out.append(("heading", h))
            }
        case .activity(let a):
            t = a.tS
            if classes.contains(.activity), a.activity != lastActivity || due(.activity, a.tS) {
                take(.activity, a.tS)
                lastActivity = a.activity
                out.append(("activity", a))
            }
        case .pedometer(let p):
            t = p.tS
            if classes.contains(.pedometer), due(.pedometer, p.tS) {
                take(.pedometer, p.tS)
                out.append(("pedometer", p))
            }
        case .altitude(let a):
            t = a.tS
            if classes.contains(.altitude), due(.altitude, a.tS) {
                take(.altitude, a.tS)
                out.append(("altitude", a))
            }
        case .plan(let p):
            t = p.tS
            latestPlan = p
            planPending = true
        default: break
        }
        // The plan and the battery go out when due, at the next message's time: the newest plan, if it changed.
        if let t, let plan = latestPlan {
            if classes.contains(.plan), planPending, due(.plan, t) {
                take(.plan, t)
                planPending = false
                out.append(("plan", plan))
            }
            if classes.contains(.battery), due(.battery, t) {
                take(.battery, t)
                out.append(("battery", BatteryMessage(tS: t, time: plan.time, plan.battery)))
            }
        }
        return out
    }

    private func due(_ c: FleetConfiguration.MessageClass, _ t: Double) -> Bool {
        guard let last = lastS[c] else { return true }
        return t - last >= publish.intervalS(c) - 1e-9
    }

    private mutating func take(_ c: FleetConfiguration.MessageClass, _ t: Double) { lastS[c] = t }

    private func moved(_ l: Wire.Location) -> Bool {
        guard let filter = publish.distanceFilterM, let p = lastPosition else { return true }
        return Self.haversineM(p.latDeg, p.lonDeg, l.latDeg, l.lonDeg) >= filter
    }

    /// Great-circle distance on a sphere of the Earth's mean radius (6 371 008.8 m, IUGG), m: within 0.5 % of the
    /// ellipsoid's geodesic, plenty for a distance filter.
    static func haversineM(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_008.8
        let toRad = Double.pi / 180
        let dLat = (lat2 - lat1) * toRad
        let dLon = (lon2 - lon1) * toRad
        let s1 = sin(dLat / 2)
        let s2 = sin(dLon / 2)
        let a = s1 * s1 + cos(lat1 * toRad) * cos(lat2 * toRad) * s2 * s2
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}

/// `lodestone/<board>/battery`: the battery state of the scheduler's newest plan (the wire's PLAN carries it).
public struct BatteryMessage: Sendable, Hashable, Codable {
    public var `class` = "BATTERY"
    /// Session time, s.
    public var tS: Double
    /// UTC, when the session knows it.
    public var time: String?
    /// Charge, % (absent when unknown).
    public var levelPercent: Double?
    /// `charging`, `discharging`, `full` or `unknown`.
    public var charging: String
    /// Where the state came from (a power-supply path, `simulated`, …).
    public var source: String

    public init(tS: Double, time: String?, _ b: Wire.Plan.Battery) {
        self.tS = tS; self.time = time; levelPercent = b.levelPercent; charging = b.charging; source = b.source
    }

    enum CodingKeys: String, CodingKey {
        case `class`, tS = "t_s", time, levelPercent = "level_percent", charging, source
    }
}
