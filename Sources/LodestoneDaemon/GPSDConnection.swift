import LodestoneCore
import LodestoneEngine
import LodestoneLinux
import LodestoneLocation
import LodestoneScheduler
import LodestoneWire
import LodestoneSockets

/// One client of the gpsd endpoint: gpsd's requests go through `GPSDClientSession`; once it watches (`enable` and
/// `json`), the session's fused locations go out as TPV, the receiver's fixes as SKY, and the orientation as ATT —
/// each only as far as the endpoint's authorization allows (reduced: TPV on the 5 km grid, at most one per 15 min for
/// all the endpoint's clients together; denied: no TPV or SKY; motion denied: no ATT).
final class GPSDConnection: ConnectionHandler, Sendable {
    let daemon: Daemon
    let client: Client

    struct State: Sendable {
        var protocolSession: GPSDClientSession
        var fix: ReceiverFix?
        var heading: HeadingUpdate?
        var tasks: [Task<Void, Never>] = []
        var streaming = false
    }
    private let state: Locked<State>

    init(daemon: Daemon, client: Client) {
        self.daemon = daemon; self.client = client
        let endpoint = GPSDEndpoint(version: daemon.configuration.gpsdVersion, device: daemon.gpsdDevice)
        state = Locked(State(protocolSession: GPSDClientSession(endpoint: endpoint)))
    }

    var device: String? { daemon.gpsdDevice?.path }

    func connected(_ connection: Connection) {
        client.send(state.withLock { $0.protocolSession.banner() })
    }

    func received(line: ArraySlice<UInt8>, on connection: Connection) {
        let text = String(decoding: line, as: UTF8.self)
        let now = RealtimeClock.unixS()
        let (replies, start, stop) = state.withLock { s -> ([String], Bool, Bool) in
            let replies = s.protocolSession.receive(line: text, nowUnixS: now)
            let wants = s.protocolSession.streamsJSON
            defer { s.streaming = wants }
            return (replies, wants && !s.streaming, !wants && s.streaming)
        }
        for r in replies { client.send(r) }
        if start { startStreaming() }
        if stop { stopStreaming() }
    }

    func lineTooLong(on connection: Connection, limitBytes: Int) {
        client.send(GPSDClientSession.tooLongError)
    }

    func closed(_ connection: Connection, reason: String) {
        stopStreaming()
        daemon.closed(client, reason: reason)
    }

    private func stopStreaming() {
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            defer { s.tasks.removeAll() }
            return s.tasks
        }
        for t in tasks { t.cancel() }
    }

    private func startStreaming() {
        let session = daemon.session
        let auth = client.authorization
        let who = "gpsd \(client.connection.peer.address) #\(client.connection.id)"
        var tasks: [Task<Void, Never>] = []
        if auth.allowsLocation(foreground: true) {
            // gpsd reports every fix, whatever its accuracy, moving or not: the session's LOCATION messages (every
            // fused location, once a second), with the client's demand on the scheduler (best, or reduced).
            let accuracy: DesiredAccuracy = auth.accuracy == .reduced ? .reduced : .best
            let locations = session.messages(
                [.location], rateHz: 1,
                demand: Demand(client: who, location: LocationDemand(desiredAccuracy: accuracy)),
                options: SubscriptionOptions(client: who, buffering: .newest(16)))
            tasks.append(
                Task { [self] in
                    var reduced = ReducedAccuracyLedger.Subscription(identity: .gpsdEndpoint)
                    for await m in locations {
                        guard case .location(let w) = m else { continue }
                        let a = client.authorization
                        guard a.allowsLocation(foreground: true) else { continue }
                        var u = LocationUpdate(timeS: w.tS, location: Location(w))
                        if a.accuracy == .reduced {
                            guard let r = daemon.reducedAccuracy.filter(u, for: &reduced) else { continue }
                            u = r
                        }
                        guard let location = u.location else { continue }
                        let line = state.withLock { s -> String in
                            let fix = a.accuracy == .reduced ? nil : s.fix
                            let tpv = GPSDReport.tpv(location: location, fix: fix, device: device)
                            s.protocolSession.cache(tpv: tpv, sky: nil)
                            return tpv
                        }
                        guard client.send(line) else { return }
                    }
                })
            if auth.accuracy == .full {
                // The receiver's own fixes: DOPs and satellites for SKY, fix mode and quality for TPV.
                let fixes = session.messages(
                    [.fix], demand: Demand(client: who), options: SubscriptionOptions(client: who, buffering: .newest(16)))
                tasks.append(
                    Task { [self] in
                        for await m in fixes {
                            guard case .fix(let f) = m, client.authorization.accuracy == .full else { continue }
                            let fix = ReceiverFix(f)
                            let line = state.withLock { s -> String in
                                s.fix = fix
                                let sky = GPSDReport.sky(fix: fix, device: device, utcS: nil)
                                s.protocolSession.cache(tpv: nil, sky: sky)
                                return sky
                            }
                            guard client.send(line) else { return }
                        }
                    })
            }
        }
        if auth.motion {
            let headings = session.headingUpdates(filterDeg: 0, options: SubscriptionOptions(client: who, buffering: .newest(4)))
            let motions = session.deviceMotionUpdates(rateHz: 1, options: SubscriptionOptions(client: who, buffering: .newest(4)))
            tasks.append(
                Task { [self] in
                    for await h in headings { state.withLock { $0.heading = h } }
                })
            tasks.append(
                Task { [self] in
                    for await m in motions {
                        guard client.authorization.motion else { continue }
                        let heading = state.withLock { $0.heading }
                        let line = GPSDReport.att(GPSDAttitude(heading: heading, motion: m), device: device, utcS: nil)
                        guard client.send(line) else { return }
                    }
                })
        }
        state.withLock { $0.tasks += tasks }
    }
}
