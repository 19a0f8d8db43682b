import LodestoneCore
import LodestoneService
import Synchronization

/// Subscriptions waiting to join the session's loop: `Updates.makeAsyncIterator()` adds one from any task; the loop
/// takes them at its next step (an atomic flag read per step when none wait).
public final class SubscriptionRegistry: Sendable {
    private let pending = Locked<[SubscriberRequest]>([])
    private let hasPending = Atomic<Bool>(false)
    private let nextID = Atomic<Int>(1)

    /// A new subscription id (unique in this session).
    func makeID() -> Int { nextID.add(1, ordering: .relaxed).oldValue }

    func add(_ request: SubscriberRequest) {
        pending.withLock { $0.append(request) }
        hasPending.store(true, ordering: .releasing)
    }

    /// The subscriptions added since the last call (`nil` without allocating when none were).
    func take() -> [SubscriberRequest]? {
        guard hasPending.load(ordering: .acquiring) else { return nil }
        hasPending.store(false, ordering: .releasing)
        let taken = pending.withLock { p -> [SubscriberRequest] in
            let t = p
            p.removeAll()
            return t
        }
        return taken.isEmpty ? nil : taken
    }
}
