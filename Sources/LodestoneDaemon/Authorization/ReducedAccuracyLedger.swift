import LodestoneCore
import LodestoneEngine

/// The 15-minute limit of reduced accuracy, counted per client identity across all its subscriptions and connections:
/// one `ReducedAccuracy` per uid, one for the gpsd endpoint (its clients have no credentials: the daemon cannot tell
/// them apart) and one for peers without credentials.
///
/// Why not one per subscription: a client then got a fresh position at once by subscribing or connecting again, as
/// often as it liked, which undid the limit (found by the second-user tests of issue 15, `SecondUserTests`).
///
/// A subscription that starts while the limit holds gets the position last given to its identity, once: the same
/// update with its own time, so it learns nothing new, and a second program of the same user need not wait up to
/// 15 minutes for its first position.
final class ReducedAccuracyLedger: Sendable {
    /// Whom a limit is counted for.
    enum Identity: Hashable, Sendable {
        /// A client of the Unix socket, by the kernel's uid.
        case uid(UInt32)
        /// Every client of the gpsd endpoint.
        case gpsdEndpoint
        /// Every client of the Unix socket whose credentials could not be read.
        case unidentified
    }

    /// What one subscription has been given.
    struct Subscription: Sendable {
        let identity: Identity
        /// Session time of the last position given to this subscription, s.
        var givenTimeS: Double?

        init(identity: Identity) { self.identity = identity }
    }

    private struct Entry {
        var filter = ReducedAccuracy()
        var lastPosition: LocationUpdate?
    }
    private let entries = Locked<[Identity: Entry]>([:])

    /// The update `subscription` may pass on (`ReducedAccuracy.filter` under its identity's limit), the identity's last
    /// position when the limit holds and the subscription has not had it, or nil.
    func filter(_ update: LocationUpdate, for subscription: inout Subscription) -> LocationUpdate? {
        entries.withLock { entries in
            var entry = entries[subscription.identity] ?? Entry()
            defer { entries[subscription.identity] = entry }
            if let passed = entry.filter.filter(update) {
                if passed.location != nil {
                    entry.lastPosition = passed
                    subscription.givenTimeS = passed.timeS
                }
                return passed
            }
            guard let last = entry.lastPosition, subscription.givenTimeS != last.timeS else { return nil }
            subscription.givenTimeS = last.timeS
            return last
        }
    }
}
