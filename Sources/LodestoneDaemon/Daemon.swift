import LodestoneCore
import LodestoneEngine
import LodestoneLinux
import LodestoneScheduler
import LodestoneWire
import LodestoneSockets
import LodestoneLog

/// What `lodestone serve` is told.
public struct DaemonConfiguration: Sendable {
    /// The native protocol's socket (`nil`: none, unless systemd passes one).
    public var socketPath: String?
    /// gpsd endpoints, `HOST:PORT` (empty: none, unless systemd passes one).
    public var gpsdListen: [String]
    /// The policy file; `policyIsExplicit` false: a missing file at the default path means the shipped policy.
    public var policyPath: String
    public var policyIsExplicit: Bool
    /// Where persistent state goes.
    public var stateDirectory: String
    /// Overrides the policy's authorization of the gpsd endpoint (`--gpsd-access`).
    public var gpsdAccess: Authorization?
    /// What the gpsd endpoint says it is (release and protocol).
    public var gpsdVersion: GPSDVersion
    /// Sockets systemd passed (socket activation): used instead of opening the paths above.
    public var inherited: [InheritedListener]
    /// The most region conditions one client may hold over all its monitors (more: `ERROR limit`).
    public var maxConditionsPerClient = 10_000

    /// A listening socket received from systemd.
    public struct InheritedListener: Sendable {
        public var fd: Int32
        public var endpoint: Client.Endpoint
        public var name: String
        public init(fd: Int32, endpoint: Client.Endpoint, name: String) {
            self.fd = fd; self.endpoint = endpoint; self.name = name
        }
    }

    public init(
        socketPath: String? = DaemonDefaults.socketPath, gpsdListen: [String] = DaemonDefaults.gpsdListen,
        policyPath: String = DaemonDefaults.policyPath, policyIsExplicit: Bool = false,
        stateDirectory: String = DaemonDefaults.stateDirectory, gpsdAccess: Authorization? = nil,
        gpsdVersion: GPSDVersion = .debian12, inherited: [InheritedListener] = []
    ) {
        self.socketPath = socketPath; self.gpsdListen = gpsdListen; self.policyPath = policyPath
        self.policyIsExplicit = policyIsExplicit; self.stateDirectory = stateDirectory; self.gpsdAccess = gpsdAccess
        self.gpsdVersion = gpsdVersion; self.inherited = inherited
    }
}

/// Why the daemon could not start.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// `lodestone serve`'s server: one session, many clients, on the native socket and gpsd's endpoint. Each client's
/// requests are read on the event loop's thread; each subscription streams on its own task; authorization is decided
/// per connection from the policy and enforced here, on every update.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let session: Session
    let logger: Logger
    let loop: EventLoop
    let clients = ClientTable()
    /// Each update's line, encoded once for all the streams that send it.
    let updateLines = UpdateLines()
    private let policy: Locked<Policy>
    /// What each listener is, for the log.
    public let listening: [String]
    /// The gpsd endpoint's receiver.
    let gpsdDevice: GPSDDevice?
    /// Reduced accuracy's 15-minute limit of each client identity, across its subscriptions and connections.
    let reducedAccuracy = ReducedAccuracyLedger()
    /// Monitors, visits, significant changes and the motion history (issue 16).
    let monitoring: any MonitoringProvider
    /// The monitoring clients' connections and condition counts.
    let monitorClients: MonitorClients

    /// Opens the listeners and reads the policy; nothing is served before `start()`.
    /// - Parameter monitoring: serves the monitoring requests (default: the session).
    /// - Throws: `DaemonError` naming the socket or file that failed.
    public init(
        configuration: DaemonConfiguration, session: Session, logger: Logger, monitoring: (any MonitoringProvider)? = nil
    ) throws(DaemonError) {
        self.configuration = configuration; self.session = session; self.logger = logger
        self.monitoring = monitoring ?? session
        monitorClients = MonitorClients(maxConditions: configuration.maxConditionsPerClient)
        do { loop = try EventLoop() } catch { throw DaemonError("cannot make the event loop: \(error)") }
        policy = Locked(try Self.loadPolicy(configuration, logger: logger))
        let sensors = session.configuration.board.sensors
        let gnssPath =
            sensors.first { BoardDescription.gnssChips.contains($0.chip) }?.bus.description
            ?? (sensors.contains { $0.bus == .simulated } ? "simulated" : nil)
        gpsdDevice = gnssPath.map { GPSDDevice(path: $0, activatedUnixS: RealtimeClock.unixS()) }

        var listeners: [(fd: Int32, endpoint: Client.Endpoint, name: String)] = []
        do {
            if configuration.inherited.isEmpty {
                if let path = configuration.socketPath {
                    listeners.append((try Sockets.listenUnix(path: path), .native, path))
                }
                for a in configuration.gpsdListen {
                    let address = try Sockets.TCPAddress.parse(a)
                    listeners.append((try Sockets.listenTCP(address), .gpsd, address.description))
                }
            } else {
                listeners = configuration.inherited.map { ($0.fd, $0.endpoint, $0.name) }
            }
        } catch {
            for l in listeners { Sockets.close(l.fd) }
            throw DaemonError("cannot listen: \(error)")
        }
        listening = listeners.map { "\($0.endpoint.rawValue) \($0.name)" }
        for l in listeners { loop.add(listener(fd: l.fd, endpoint: l.endpoint, name: l.name)) }
    }

    private static func loadPolicy(_ c: DaemonConfiguration, logger: Logger) throws(DaemonError) -> Policy {
        do {
            return try Policy.load(path: c.policyPath)
        } catch {
            if !c.policyIsExplicit && !fileExists(c.policyPath) {
                logger.notice("no policy at \(c.policyPath): the shipped policy applies (docs/policy.md)")
                return Policy.shipped
            }
            throw DaemonError("policy: \(error)")
        }
    }

    /// Starts serving.
    public func start() { loop.start() }

    /// Closes every connection and listener (subscriptions end, their demands are withdrawn).
    public func stop() {
        loop.stop()
        for c in clients.all { c.removeAll() }
        if configuration.inherited.isEmpty, let p = configuration.socketPath { removeFile(p) }
    }

    /// Reads the policy file again and applies it to every connected client (SIGHUP). A broken file keeps the
    /// policy in force. Returns one line for the log.
    @discardableResult
    public func reloadPolicy() -> String {
        let new: Policy
        do { new = try Self.loadPolicy(configuration, logger: logger) } catch {
            logger.error("policy not reloaded, the previous one stays in force: \(error)")
            return "policy not reloaded: \(error)"
        }
        policy.withLock { $0 = new }
        var changed = 0
        for c in clients.all {
            let a = authorization(for: c.connection.peer, account: c.account, endpoint: c.endpoint)
            if c.setAuthorization(a) {
                changed += 1
                logger.info("client \(c.connection.id) (\(c.connection.peer)): now \(a)")
                if c.endpoint == .native { c.send(NativeProtocol.line(a.message)) }
            }
        }
        return "policy reloaded from \(new.origin): \(changed) of \(clients.count) clients changed"
    }

    /// Clients connected now.
    public var clientCount: Int { clients.count }

    /// The diagnostics list (`lodestone clients`).
    public func clientList() -> NativeProtocol.Clients {
        let now = MonotonicTime.nowS()
        return NativeProtocol.Clients(
            clients: clients.all.map { c in
                let p = c.connection.peer
                return NativeProtocol.Clients.Client(
                    connection: c.connection.id, endpoint: c.endpoint.rawValue, peer: p.address, uid: p.uid,
                    user: c.account?.name, pid: p.pid, executable: p.executablePath, name: c.name,
                    authorization: c.authorization.message,
                    subscriptions: c.subscriptionEntries.map {
                        .init(id: $0.id, kind: $0.kind, demand: $0.demand, droppedUpdates: $0.droppedUpdates)
                    },
                    connectedS: now - c.connection.acceptedAtS, sentBytes: c.connection.sentBytes,
                    monitorConditions: c.endpoint == .native
                        ? monitorClients.conditionCount(MonitorClients.key(uid: p.uid)) : nil)
            })
    }

    func authorization(for peer: PeerIdentity, account: Account?, endpoint: Client.Endpoint) -> Authorization {
        switch endpoint {
        case .gpsd: configuration.gpsdAccess ?? policy.withLock { $0.gpsdEndpoint }
        case .native: policy.withLock { $0.authorization(for: peer, account: account) }
        }
    }

    private func listener(fd: Int32, endpoint: Client.Endpoint, name: String) -> EventLoop.Listener {
        let limits =
            switch endpoint {
            case .native: ConnectionLimits(maxLineBytes: NativeProtocol.maxLineBytes, maxOutboundBytes: 1 << 20)
            case .gpsd: ConnectionLimits(maxLineBytes: GPSDRequestParser.maximumLineBytes, maxOutboundBytes: 256 * 1024)
            }
        return EventLoop.Listener(
            fd: fd, name: endpoint.rawValue, limits: limits,
            identify: { fd in
                Sockets.family(fd) == 1 // AF_UNIX
                    ? PeerIdentity.ofUnixPeer(fd: fd) : PeerIdentity(address: Sockets.peerAddress(fd))
            },
            makeHandler: { [self] connection in
                let account = connection.peer.uid.map { Account.lookup(uid: $0, gid: connection.peer.gid ?? $0) }
                let a = authorization(for: connection.peer, account: account, endpoint: endpoint)
                let client = Client(connection: connection, endpoint: endpoint, account: account, authorization: a)
                clients.add(client)
                logger.info(
                    "client \(connection.id) connected on \(endpoint.rawValue): \(connection.peer)\(account?.name.map { " (\($0))" } ?? ""); \(a)"
                )
                switch endpoint {
                case .native:
                    monitorClients.connected(MonitorClients.key(uid: connection.peer.uid))
                    return NativeConnection(daemon: self, client: client)
                case .gpsd: return GPSDConnection(daemon: self, client: client)
                }
            })
    }

    func closed(_ client: Client, reason: String) {
        client.removeAll()
        if client.endpoint == .native {
            let key = MonitorClients.key(uid: client.connection.peer.uid)
            let logger = logger
            monitorClients.disconnected(key, authorization: client.authorization, provider: monitoring) { error in
                logger.warning("the when-in-use monitors of \(key) outlive its connection: \(error)")
            }
        }
        clients.remove(client)
        logger.info("client \(client.connection.id) closed: \(reason)")
    }

    /// Whether `peer` may list the other clients: root, or the daemon's own user.
    func mayListClients(_ peer: PeerIdentity) -> Bool {
        guard let uid = peer.uid else { return false }
        return uid == 0 || uid == ProcessIdentity.uid
    }
}
