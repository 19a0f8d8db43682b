import LodestoneCore
import LodestoneEngine
import LodestoneLinux
import LodestoneScheduler
import LodestoneWire
import LodestoneSockets

/// One connected client: its connection, who it is, what it may see and the subscriptions it holds. Shared between the
/// event loop's thread (its requests) and the tasks that stream its updates.
public final class Client: Sendable {
    /// Which endpoint it came through.
    public enum Endpoint: String, Sendable { case native, gpsd }

    public let connection: Connection
    public let endpoint: Endpoint
    /// The passwd/group entries of a Unix-socket peer.
    public let account: Account?

    struct Subscription: Sendable {
        var kind: String
        var demand: String
        var task: Task<Void, Never>?
        /// Updates dropped because the subscription's stream fell behind the session (its buffer was full).
        var droppedUpdates = 0
    }
    struct State: Sendable {
        var authorization: Authorization
        var name: String?
        var subscriptions: [Int: Subscription] = [:]
    }
    private let state: Locked<State>

    init(connection: Connection, endpoint: Endpoint, account: Account?, authorization: Authorization) {
        self.connection = connection; self.endpoint = endpoint; self.account = account
        state = Locked(State(authorization: authorization))
    }

    /// What the client may see now (the policy may be reloaded while it is connected).
    public var authorization: Authorization {
        get { state.withLock { $0.authorization } }
    }

    /// Sets the authorization; true when it changed.
    func setAuthorization(_ a: Authorization) -> Bool {
        state.withLock { s in
            guard s.authorization != a else { return false }
            s.authorization = a
            return true
        }
    }

    var name: String? {
        get { state.withLock { $0.name } }
    }
    func setName(_ n: String?) { state.withLock { $0.name = n } }

    /// The subscriptions held, as the diagnostics list shows them.
    var subscriptionEntries: [(id: Int, kind: String, demand: String, droppedUpdates: Int)] {
        state.withLock { s in
            s.subscriptions.sorted { $0.key < $1.key }.map { ($0.key, $0.value.kind, $0.value.demand, $0.value.droppedUpdates) }
        }
    }

    /// Records how many updates subscription `id` has dropped so far.
    func setDroppedUpdates(_ count: Int, for id: Int) { state.withLock { $0.subscriptions[id]?.droppedUpdates = count } }

    /// Adds a subscription under `id`; false when the id is taken or the client holds too many.
    func addSubscription(id: Int, kind: String, demand: String, limit: Int) -> Bool {
        state.withLock { s in
            guard s.subscriptions[id] == nil, s.subscriptions.count < limit else { return false }
            s.subscriptions[id] = Subscription(kind: kind, demand: demand, task: nil)
            return true
        }
    }
    func hasSubscription(_ id: Int) -> Bool { state.withLock { $0.subscriptions[id] != nil } }

    /// Attaches the task serving subscription `id` (cancelled at once if it was removed meanwhile).
    func attach(_ task: Task<Void, Never>, to id: Int) {
        let keep = state.withLock { s -> Bool in
            guard s.subscriptions[id] != nil else { return false }
            s.subscriptions[id]?.task = task
            return true
        }
        if !keep { task.cancel() }
    }

    /// Removes subscription `id` and cancels its task (its stream ends, its demand is withdrawn). False if unknown.
    @discardableResult
    func removeSubscription(_ id: Int) -> Bool {
        let t = state.withLock { s -> Task<Void, Never>?? in s.subscriptions.removeValue(forKey: id).map { $0.task } }
        guard let task = t else { return false }
        task?.cancel()
        return true
    }

    /// Cancels every subscription (the client went away).
    func removeAll() {
        let tasks = state.withLock { s -> [Task<Void, Never>] in
            defer { s.subscriptions.removeAll() }
            return s.subscriptions.values.compactMap(\.task)
        }
        for t in tasks { t.cancel() }
    }

    /// Sends one line (with its end) to the client.
    @discardableResult
    func send(_ line: String) -> Bool { connection.send(line) }
}

/// The clients connected now.
final class ClientTable: Sendable {
    private let clients = Locked<[Int: Client]>([:])

    func add(_ c: Client) { clients.withLock { $0[c.connection.id] = c } }
    func remove(_ c: Client) { clients.withLock { _ = $0.removeValue(forKey: c.connection.id) } }
    var all: [Client] { clients.withLock { $0.values.sorted { $0.connection.id < $1.connection.id } } }
    var count: Int { clients.withLock { $0.count } }
}

extension Authorization {
    /// The native protocol's `AUTHORIZATION` message.
    var message: NativeProtocol.Authorization {
        NativeProtocol.Authorization(
            location: location.rawValue, accuracy: accuracy.rawValue, motion: motion, decidedBy: decidedBy)
    }

    /// Whether subscriptions of `kind` may be served at all (location ones may still be coarsened).
    func allows(_ kind: SubscriptionSpec.Kind, foreground: Bool) -> Bool {
        kind.isLocation ? allowsLocation(foreground: foreground) : motion
    }
}
