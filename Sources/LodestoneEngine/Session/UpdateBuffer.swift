import Synchronization

/// How a subscription holds updates its consumer has not taken yet.
public enum UpdateBuffering: Sendable, Hashable {
    /// Keep the newest `capacity` updates; when the consumer falls behind, the oldest waiting one is dropped and
    /// counted (`Updates.droppedCount`). The session never waits for the consumer.
    case newest(Int)
    /// Lose nothing where that cannot slow the board: a session on virtual time (a replay, a simulated board run as
    /// fast as possible) waits for the consumer once `capacity` updates are waiting. A session paced by the wall clock
    /// never waits: there it behaves as `.newest(capacity)`.
    case lossless(Int)

    var capacity: Int {
        switch self {
        case .newest(let c), .lossless(let c): max(1, c)
        }
    }
    var isLossless: Bool { if case .lossless = self { true } else { false } }
}

/// A bounded single-consumer queue between the session's loop (the producer, synchronous) and one consumer task.
///
/// `push` never blocks and allocates nothing (a preallocated ring); the consumer's `next()` suspends until an update
/// arrives, the session ends or the consumer's task is cancelled.
final class UpdateBuffer<Element: Sendable>: Sendable {
    private struct State {
        var ring: [Element?]
        var head = 0
        var count = 0
        var waiting: UnsafeContinuation<Element?, Never>?
        var spaceWaiter: UnsafeContinuation<Void, Never>?
        var finished = false
        var cancelled = false

        mutating func append(_ e: Element) {
            ring[(head + count) % ring.count] = e
            count += 1
        }
        mutating func popFirst() -> Element? {
            guard count > 0 else { return nil }
            let e = ring[head]
            ring[head] = nil
            head = (head + 1) % ring.count
            count -= 1
            return e
        }
    }

    /// What `push` did.
    enum PushResult { case delivered, enqueued, droppedOldest, terminated }

    let capacity: Int
    let isLossless: Bool
    private let state: Mutex<State>
    private let cancelledFlag = Atomic<Bool>(false)
    private let finishedFlag = Atomic<Bool>(false)
    private let dropped = Atomic<Int>(0)

    init(buffering: UpdateBuffering) {
        capacity = buffering.capacity
        isLossless = buffering.isLossless
        state = Mutex(State(ring: Array(repeating: nil, count: buffering.capacity)))
    }

    /// True once the consumer has gone (its loop ended or its task was cancelled).
    var isCancelled: Bool { cancelledFlag.load(ordering: .acquiring) }
    /// True once the producer has finished the stream (a one-shot request answered, the session ended).
    var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// Updates dropped because the consumer was behind.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// True when a lossless buffer is full: a session on virtual time waits (`waitForSpace`) before going on.
    var isFull: Bool { state.withLock { $0.count >= capacity } }

    /// Hands one update to the consumer: to a waiting `next()` at once, else into the ring (dropping the oldest when
    /// full). Allocates nothing.
    @discardableResult
    func push(_ element: Element) -> PushResult {
        let (result, consumer): (PushResult, UnsafeContinuation<Element?, Never>?) = state.withLock { s in
            if s.cancelled || s.finished { return (.terminated, nil) }
            if let w = s.waiting {
                s.waiting = nil
                return (.delivered, w)
            }
            var r = PushResult.enqueued
            if s.count == capacity {
                _ = s.popFirst()
                r = .droppedOldest
            }
            s.append(element)
            return (r, nil)
        }
        switch result {
        case .terminated: return result
        case .droppedOldest: dropped.add(1, ordering: .relaxed)
        case .delivered, .enqueued: break
        }
        consumer?.resume(returning: element)
        return result
    }

    /// The next update, or `nil` once the session finished (after every waiting update) or the consumer was cancelled.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (c: UnsafeContinuation<Element?, Never>) in
                let (immediate, space): (Element??, UnsafeContinuation<Void, Never>?) = state.withLock { s in
                    if let e = s.popFirst() {
                        var space: UnsafeContinuation<Void, Never>?
                        if s.count <= capacity / 2, let w = s.spaceWaiter { s.spaceWaiter = nil; space = w }
                        return (.some(e), space)
                    }
                    if s.finished || s.cancelled { return (.some(nil), s.spaceWaiter.take()) }
                    s.waiting = c
                    return (nil, s.spaceWaiter.take())
                }
                space?.resume()
                if let v = immediate { c.resume(returning: v) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Suspends the producer until the consumer has taken updates (the buffer is at most half full) or gone.
    func waitForSpace() async {
        await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.cancelled || s.count <= capacity / 2 || s.waiting != nil { return true }
                s.spaceWaiter = c
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    /// The consumer is gone: drop what waits, wake whoever waits.
    func cancel() {
        let (w, space) = state.withLock { s in
            s.cancelled = true
            while s.popFirst() != nil {}
            return (s.waiting.take(), s.spaceWaiter.take())
        }
        cancelledFlag.store(true, ordering: .releasing)
        w?.resume(returning: nil)
        space?.resume()
    }

    /// The session ended: the consumer gets what waits, then `nil`.
    func finish() {
        let (w, space) = state.withLock { s in
            s.finished = true
            return (s.count == 0 ? s.waiting.take() : nil, s.spaceWaiter.take())
        }
        finishedFlag.store(true, ordering: .releasing)
        w?.resume(returning: nil)
        space?.resume()
    }
}

/// A live stream of a session's updates, like Core Location's `CLLocationUpdate.liveUpdates()`: iterating it
/// registers its demand with the session's scheduler, and ending the loop (or cancelling its task) withdraws the
/// demand, so the plan changes at once.
///
/// Each `for try await` over the same value is a new subscription. A slow consumer never holds up the session: the
/// buffer keeps the newest updates (`UpdateBuffering`) and `droppedCount` counts what it dropped.
public struct Updates<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never
    let registry: SubscriptionRegistry
    let buffering: UpdateBuffering
    let counters: Counters
    let register: @Sendable (UpdateBuffer<Element>) -> SubscriberRequest

    init(
        registry: SubscriptionRegistry, buffering: UpdateBuffering,
        register: @escaping @Sendable (UpdateBuffer<Element>) -> SubscriberRequest
    ) {
        self.registry = registry; self.buffering = buffering; self.register = register
        counters = Counters()
    }

    /// Updates dropped so far because a consumer of this stream was behind (all its iterations).
    public var droppedCount: Int { counters.dropped.load(ordering: .relaxed) }

    public func makeAsyncIterator() -> Iterator {
        let buffer = UpdateBuffer<Element>(buffering: buffering)
        registry.add(register(buffer))
        return Iterator(token: Token(buffer: buffer, counters: counters))
    }

    public struct Iterator: AsyncIteratorProtocol {
        let token: Token
        public mutating func next() async -> Element? { await token.buffer.next() }
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? { await token.buffer.next() }
    }

    /// Ends the subscription when the iterator is dropped (the consumer's loop ended).
    final class Token: Sendable {
        let buffer: UpdateBuffer<Element>
        let counters: Counters
        init(buffer: UpdateBuffer<Element>, counters: Counters) { self.buffer = buffer; self.counters = counters }
        deinit {
            counters.dropped.add(buffer.droppedCount, ordering: .relaxed)
            buffer.cancel()
        }
    }

    final class Counters: Sendable {
        let dropped = Atomic<Int>(0)
    }
}

/// Subscriptions waiting to join the session's loop: `Updates.makeAsyncIterator()` adds one from any task; the loop
/// takes them at its next step (an atomic flag read per step when none wait).
public final class SubscriptionRegistry: Sendable {
    private let pending = Mutex<[SubscriberRequest]>([])
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
