#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneClient
import LodestoneCore
import LodestoneEngine
import LodestoneScheduler
import LodestoneLog

/// `lodestone watch`: subscribes to the kinds asked for through the daemon and prints each update.
public struct WatchJob: Sendable {
    public var socketPath: String
    public var kinds: [SubscriptionSpec.Kind]
    public var desiredAccuracy: DesiredAccuracy?
    public var count: Int?
    public var json: Bool

    public init(socketPath: String, kinds: [SubscriptionSpec.Kind], desiredAccuracy: DesiredAccuracy?, count: Int?, json: Bool) {
        self.socketPath = socketPath; self.kinds = kinds; self.desiredAccuracy = desiredAccuracy; self.count = count
        self.json = json
    }

    /// Prints updates until `count` or the daemon ends them; returns the exit code.
    public func run(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void) async -> Int32 {
        let client: LodestoneClient
        do { client = try LodestoneClient.connect(socketPath: socketPath, name: "lodestone watch") } catch {
            errors(error.description)
            return 1
        }
        defer { client.close() }
        let printed = Counter()
        let limit = count
        await withTaskGroup(of: Void.self) { group in
            func each<E: Sendable & Encodable>(
                _ updates: Updates<E>, _ put: @escaping @Sendable (inout NativeProtocol.Update, E) -> Void,
                _ text: @escaping @Sendable (E) -> String
            ) {
                group.addTask {
                    for await u in updates {
                        var m = NativeProtocol.Update(id: 0)
                        put(&m, u)
                        let line = json ? String(NativeProtocol.line(m).dropLast()) : text(u)
                        guard printed.take(limit: limit) else { return }
                        output(line)
                        if let limit, printed.value >= limit { client.close() }
                    }
                }
            }
            for kind in kinds {
                switch kind {
                case .location, .request:
                    each(client.locationUpdates(desiredAccuracy: desiredAccuracy), { $0.location = $1 }, Self.describe)
                case .heading: each(client.headingUpdates(), { $0.heading = $1 }, Self.describe)
                case .motion: each(client.deviceMotionUpdates(rateHz: 10), { $0.motion = $1 }, Self.describe)
                case .activity:
                    each(client.activityUpdates(), { $0.activity = $1 }) {
                        "activity \($0.activity.kind.rawValue) (\($0.activity.confidence.rawValue))"
                    }
                case .pedometer:
                    each(client.pedometerUpdates(), { $0.pedometer = $1 }) {
                        "steps \($0.data.steps), \(formatFixed($0.data.distanceM, digits: 1)) m"
                    }
                case .altitude: each(client.altitudeUpdates(), { $0.altitude = $1 }, Self.describe)
                case .sensors:
                    each(client.sensorUpdates(), { $0.sensor = $1 }) {
                        "\($0.sensor) t=\(formatFixed($0.reading.timeS, digits: 3))"
                    }
                }
            }
        }
        if let e = client.lastError, printed.value == 0 {
            errors("the daemon said: \(e.message)")
            return 1
        }
        return 0
    }

    static func describe(_ u: LocationUpdate) -> String {
        if u.authorizationDenied { return "location: denied by the daemon's policy" }
        guard let l = u.location else { return u.locationUnavailable ? "location unavailable" : "no location" }
        var s =
            "location \(formatFixed(l.coordinate.latitudeDeg, digits: 6)), \(formatFixed(l.coordinate.longitudeDeg, digits: 6))"
        s += " ±\(formatFixed(l.horizontalAccuracyM, digits: 1)) m"
        if let a = l.altitudeMSLM { s += ", alt \(formatFixed(a, digits: 1)) m" }
        if let v = l.speedMps { s += ", \(formatFixed(v, digits: 1)) m/s" }
        if u.accuracyLimited { s += " (reduced accuracy)" }
        if u.isStationary { s += " (stationary)" }
        return s
    }
    static func describe(_ h: HeadingUpdate) -> String {
        var s = "heading \(formatFixed(h.magneticHeadingDeg, digits: 1))° magnetic"
        if let t = h.trueHeadingDeg { s += ", \(formatFixed(t, digits: 1))° true" }
        if h.headingAccuracyDeg >= 0 { s += " ±\(formatFixed(h.headingAccuracyDeg, digits: 1))°" }
        return s
    }
    static func describe(_ m: DeviceMotion) -> String {
        "motion roll \(formatFixed(m.rollDeg, digits: 1))° pitch \(formatFixed(m.pitchDeg, digits: 1))° yaw \(formatFixed(m.yawDeg, digits: 1))°"
    }
    static func describe(_ a: AltitudeUpdate) -> String {
        var s = "altitude"
        if let r = a.relativeAltitudeM { s += " Δ\(formatFixed(r, digits: 2)) m" }
        if let p = a.pressurePa { s += " \(formatFixed(p, digits: 0)) Pa" }
        if let m = a.altitudeM { s += " \(formatFixed(m, digits: 1)) m MSL" }
        return s
    }
}

/// `lodestone clients`: the daemon's diagnostics list.
public struct ClientsJob: Sendable {
    public var socketPath: String
    public var json: Bool
    public init(socketPath: String, json: Bool) { self.socketPath = socketPath; self.json = json }

    public func run(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void) async -> Int32 {
        let client: LodestoneClient
        do { client = try LodestoneClient.connect(socketPath: socketPath, name: "lodestone clients") } catch {
            errors(error.description)
            return 1
        }
        defer { client.close() }
        let list: NativeProtocol.Clients
        do { list = try await client.clients() } catch {
            errors("\(error)")
            return 1
        }
        if json {
            output(String(NativeProtocol.line(list).dropLast()))
            return 0
        }
        for c in list.clients {
            var who = c.endpoint + " #\(c.connection) "
            if let uid = c.uid { who += "uid \(uid)" + (c.user.map { " (\($0))" } ?? "") } else { who += c.peer }
            if let pid = c.pid { who += " pid \(pid)" }
            if let e = c.executable { who += " \(e)" }
            if let n = c.name { who += " \"\(n)\"" }
            output(who)
            let a = c.authorization
            output(
                "  authorization: location \(a.location) (\(a.accuracy)), motion \(a.motion ? "allowed" : "denied") — \(a.decidedBy)"
            )
            output("  connected \(formatFixed(c.connectedS, digits: 0)) s, sent \(c.sentBytes) bytes")
            if let n = c.monitorConditions { output("  monitors: \(n) region condition(s)") }
            for s in c.subscriptions {
                let dropped = s.droppedUpdates.flatMap { $0 > 0 ? ", \($0) updates dropped (the daemon fell behind)" : nil }
                output("  #\(s.id) \(s.kind): \(s.demand)\(dropped ?? "")")
            }
        }
        if list.clients.isEmpty { output("no clients") }
        return 0
    }
}

final class Counter: Sendable {
    private let count = Locked(0)
    /// Takes one more if under `limit`.
    func take(limit: Int?) -> Bool {
        count.withLock { c in
            if let limit, c >= limit { return false }
            c += 1
            return true
        }
    }
    var value: Int { count.withLock { $0 } }
}

/// The daemon's logging: standard error (journald priority prefixes under systemd).
public enum DaemonLogging {
    /// The daemon's logger: label `lodestone`, level info, on standard error in the format detected now (journald's
    /// `<N>` priority prefixes when standard error is the journal, timestamps otherwise).
    public static func bootstrap() -> Logger {
        Logger(label: "lodestone", format: .detect(), logLevel: .info)
    }
}
