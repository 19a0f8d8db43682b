import LodestoneCore
import LodestoneEngine
import LodestoneLinux
import LodestoneScheduler
import LodestoneWire
import LodestoneSockets

/// One client of the native protocol: reads its requests (on the event loop's thread) and streams each subscription
/// on its own task, checking the client's authorization at every update.
final class NativeConnection: ConnectionHandler {
    let daemon: Daemon
    let client: Client
    /// The monitoring requests' worker, made at the first one.
    private var monitoring: NativeMonitoring?

    init(daemon: Daemon, client: Client) { self.daemon = daemon; self.client = client }

    func connected(_ connection: Connection) {
        client.send(Wire.line(Wire.Version(release: Lodestone.version)) + "\n")
        client.send(NativeProtocol.line(client.authorization.message))
    }

    func received(line: ArraySlice<UInt8>, on connection: Connection) {
        var line = line
        if line.last == 13 { line = line.dropLast() }
        if line.allSatisfy({ $0 == 32 || $0 == 9 }) { return }
        let message: NativeProtocol.ClientMessage
        do { message = try NativeProtocol.decodeClientMessage(line) } catch {
            client.send(NativeProtocol.line(error))
            return
        }
        switch message {
        case .hello(let h): client.setName(h.client)
        case .authorization: client.send(NativeProtocol.line(client.authorization.message))
        case .clients:
            if daemon.mayListClients(connection.peer) {
                client.send(NativeProtocol.line(daemon.clientList()))
            } else {
                client.send(
                    NativeProtocol.line(
                        NativeProtocol.ErrorMessage(.notPermitted, "only root or the daemon's user may list clients")))
            }
        case .unsubscribe(let u):
            if client.removeSubscription(u.id) {
                client.send(NativeProtocol.line(NativeProtocol.Ended(id: u.id, reason: "unsubscribed")))
            } else {
                client.send(
                    NativeProtocol.line(NativeProtocol.ErrorMessage(.unknownSubscription, "no subscription \(u.id)", id: u.id)))
            }
        case .subscribe(let s): subscribe(s)
        case .monitor, .events, .acknowledge, .visits, .significantChanges, .history:
            // A stream is the connection's subscription from now (an UNSUBSCRIBE right behind it finds it); the worker
            // starts it in turn.
            if let (id, kind, demand) = NativeMonitoring.subscription(of: message) {
                guard client.addSubscription(id: id, kind: kind, demand: demand, limit: NativeProtocol.maxSubscriptions) else {
                    let e: NativeProtocol.ErrorMessage =
                        client.hasSubscription(id)
                        ? .init(.duplicateSubscription, "subscription \(id) exists already", id: id)
                        : .init(
                            .tooManySubscriptions, "at most \(NativeProtocol.maxSubscriptions) subscriptions a connection", id: id
                        )
                    client.send(NativeProtocol.line(e))
                    return
                }
            }
            if monitoring == nil { monitoring = NativeMonitoring(daemon: daemon, client: client) }
            monitoring?.submit(message)
        }
    }

    func lineTooLong(on connection: Connection, limitBytes: Int) {
        client.send(
            NativeProtocol.line(
                NativeProtocol.ErrorMessage(.lineTooLong, "a line is limited to \(limitBytes) bytes; closing the connection")))
    }

    func closed(_ connection: Connection, reason: String) {
        monitoring?.finish()
        daemon.closed(client, reason: reason)
    }

    // MARK: - Subscriptions

    private func subscribe(_ s: NativeProtocol.Subscribe) {
        let foreground = s.foreground ?? true
        let auth = client.authorization
        var spec = s.spec
        if let problem = Self.validate(spec) {
            client.send(NativeProtocol.line(NativeProtocol.ErrorMessage(.badRequest, problem, id: s.id)))
            return
        }
        if !spec.kind.isLocation && !auth.motion {
            client.send(
                NativeProtocol.line(
                    NativeProtocol.ErrorMessage(
                        .denied, "\(spec.kind.rawValue) is denied to this client (\(auth.decidedBy))", id: s.id)))
            return
        }
        if spec.kind.isLocation && auth.accuracy == .reduced { spec.desiredAccuracy = .reduced }
        let demand = Self.describe(spec)
        guard client.addSubscription(id: s.id, kind: spec.kind.rawValue, demand: demand, limit: NativeProtocol.maxSubscriptions)
        else {
            let e: NativeProtocol.ErrorMessage =
                client.hasSubscription(s.id)
                ? .init(.duplicateSubscription, "subscription \(s.id) exists already", id: s.id)
                : .init(.tooManySubscriptions, "at most \(NativeProtocol.maxSubscriptions) subscriptions a connection", id: s.id)
            client.send(NativeProtocol.line(e))
            return
        }
        client.send(NativeProtocol.line(NativeProtocol.Subscribed(id: s.id, kind: spec.kind)))
        let name = clientName(s.id)
        let options = SubscriptionOptions(client: name, foreground: foreground, buffering: .newest(64))
        let task: Task<Void, Never>?
        let serve = Serving(spec: spec, id: s.id, foreground: foreground, options: options, connection: self)
        switch spec.kind {
        case .location, .request:
            if !auth.allowsLocation(foreground: foreground) {
                task = Task { [client, daemon] in
                    client.send(deniedLocationLine(id: s.id, timeS: await daemon.session.timeS))
                    client.send(NativeProtocol.line(NativeProtocol.Ended(id: s.id, reason: "location is denied to this client")))
                    client.removeSubscription(s.id)
                }
            } else {
                task = serve.start(LocationUpdate.self, as: "location")
            }
        case .heading: task = serve.start(HeadingUpdate.self, as: "heading")
        case .motion: task = serve.start(DeviceMotion.self, as: "motion")
        case .activity: task = serve.start(ActivityUpdate.self, as: "activity")
        case .pedometer: task = serve.start(PedometerUpdate.self, as: "pedometer")
        case .altitude: task = serve.start(AltitudeUpdate.self, as: "altitude")
        case .sensors: task = serve.start(SensorSample.self, as: "sensor")
        }
        guard let task else {
            // Each kind above names its own update type, so `received` always matches: kept as an error, not a trap.
            client.removeSubscription(s.id)
            client.send(
                NativeProtocol.line(NativeProtocol.ErrorMessage(.badRequest, "internal: no stream for \(spec.kind)", id: s.id)))
            return
        }
        client.attach(task, to: s.id)
    }

    /// What starts a subscription's stream once its update type is named.
    private struct Serving {
        let spec: SubscriptionSpec
        let id: Int
        let foreground: Bool
        let options: SubscriptionOptions
        let connection: NativeConnection

        /// The stream's task, or nil when `E` is not the spec's update type. `member`: the member of
        /// `NativeProtocol.Update` that carries `E`.
        func start<E: Sendable & Equatable & Encodable>(_: E.Type, as member: String) -> Task<Void, Never>? {
            guard let subscription = Subscription<E>.received(spec) else { return nil }
            return connection.stream(subscription, id: id, foreground: foreground, options: options, member: member)
        }
    }

    /// Streams one subscription to the client until it ends, is removed, or the client's authorization no longer
    /// allows it. Location updates of a reduced client go through `ReducedAccuracy`, under its uid's limit
    /// (`ReducedAccuracyLedger`).
    fileprivate func stream<E: Sendable & Equatable & Encodable>(
        _ subscription: Subscription<E>, id: Int, foreground: Bool, options: SubscriptionOptions, member: String
    ) -> Task<Void, Never> {
        let kind = subscription.spec.kind
        let updates = daemon.session.updates(subscription, options: options)
        let identity: ReducedAccuracyLedger.Identity = client.connection.peer.uid.map { .uid($0) } ?? .unidentified
        return Task { [client, daemon] in
            var reduced = ReducedAccuracyLedger.Subscription(identity: identity)
            var reason = "the session ended"
            var iterator = updates.makeAsyncIterator()
            var dropped = 0
            while let element = await iterator.next() {
                if iterator.droppedCount != dropped {
                    dropped = iterator.droppedCount
                    client.setDroppedUpdates(dropped, for: id)
                }
                let auth = client.authorization
                guard auth.allows(kind, foreground: foreground) else {
                    if let l = element as? LocationUpdate { client.send(deniedLocationLine(id: id, timeS: l.timeS)) }
                    reason = "the client's authorization changed (\(auth.decidedBy))"
                    break
                }
                var e = element
                if kind.isLocation, auth.accuracy == .reduced, let l = element as? LocationUpdate {
                    guard let r = daemon.reducedAccuracy.filter(l, for: &reduced) as? E else { continue }
                    e = r
                }
                guard client.send(daemon.updateLines.line(id: id, member: member, element: e)) else { return }
                if kind == .request {
                    reason = "answered"
                    break
                }
            }
            if Task.isCancelled { return } // unsubscribed or disconnected: the remover said so
            client.send(NativeProtocol.line(NativeProtocol.Ended(id: id, reason: reason)))
            client.removeSubscription(id)
        }
    }

    private func clientName(_ id: Int) -> String {
        let p = client.connection.peer
        let who = client.name ?? client.account?.name ?? p.uid.map { "uid \($0)" } ?? p.address
        return "\(who) #\(client.connection.id).\(id)"
    }

    /// A sentence saying what is wrong with a spec's settings, or nil.
    static func validate(_ s: SubscriptionSpec) -> String? {
        func positive(_ v: Double?, _ name: String) -> String? {
            guard let v else { return nil }
            return v.isFinite && v > 0 ? nil : "\(name) must be a positive number"
        }
        func nonNegative(_ v: Double?, _ name: String) -> String? {
            guard let v else { return nil }
            return v.isFinite && v >= 0 ? nil : "\(name) must be zero or more"
        }
        return positive(s.rateHz, "rate_hz") ?? positive(s.timeoutS, "timeout_s") ?? positive(s.maximumAgeS, "max_age_s")
            ?? nonNegative(s.distanceFilterM, "distance_filter_m") ?? nonNegative(s.filterDeg, "filter_deg")
    }

    /// The demand a spec puts on the scheduler, in words (the clients list).
    static func describe(_ s: SubscriptionSpec) -> String {
        switch s.kind {
        case .location:
            "location \((s.desiredAccuracy ?? (s.configuration ?? .default).desiredAccuracy).rawValue)"
                + (s.distanceFilterM.map { ", every \(formatFixed($0, digits: 0)) m" } ?? "")
        case .request:
            "one location \((s.desiredAccuracy ?? .best).rawValue) within \(formatFixed(s.timeoutS ?? 30, digits: 0)) s"
        case .heading:
            "heading (filter \(formatFixed(s.filterDeg ?? 1, digits: 1))°, at most \(formatFixed(min(s.rateHz ?? 20, 20), digits: 1)) Hz"
                + "\(s.trueNorth ?? true ? ", true north" : ""))"
        case .motion: "device motion at \(formatFixed(s.rateHz ?? 50, digits: 0)) Hz"
        case .activity: "activity"
        case .pedometer: "pedometer"
        case .altitude: "altitude at \(formatFixed(s.rateHz ?? 1, digits: 1)) Hz"
        case .sensors: "raw sensors \((s.sensorIDs ?? []).isEmpty ? "(all)" : (s.sensorIDs ?? []).joined(separator: ", "))"
        }
    }
}

/// The one update a location subscription gets when its client may not see locations.
private func deniedLocationLine(id: Int, timeS: Double) -> String {
    var u = NativeProtocol.Update(id: id)
    u.location = LocationUpdate(timeS: timeS, location: nil, authorizationDenied: true)
    return NativeProtocol.line(u)
}
