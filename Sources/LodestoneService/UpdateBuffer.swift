import LodestoneCore
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

    package var capacity: Int {
        switch self {
        case .newest(let c), .lossless(let c): max(1, c)
        }
    }
    package var isLossless: Bool { if case .lossless = self { true } else { false } }
}

/// A bounded single-consumer queue between the session's loop (the producer, synchronous) and one consumer task.
///
/// `push` never blocks and allocates nothing (a preallocated ring); the consumer's `next()` suspends until an update
/// arrives, the session ends or the consumer's task is cancelled.
package final class UpdateBuffer<Element: Sendable>: Sendable {
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
    package enum PushResult { case delivered, enqueued, droppedOldest, terminated }

    package let capacity: Int
    package let isLossless: Bool
    private let state: Locked<State>
    private let cancelledFlag = Atomic<Bool>(false)
    private let finishedFlag = Atomic<Bool>(false)
    private let dropped = Atomic<Int>(0)
    private let cancelHandler = Locked<(@Sendable () -> Void)?>(nil)

    package init(buffering: UpdateBuffering) {
        capacity = buffering.capacity
        isLossless = buffering.isLossless
        state = Locked(State(ring: Array(repeating: nil, count: buffering.capacity)))
    }

    /// True once the consumer has gone (its loop ended or its task was cancelled).
    package var isCancelled: Bool { cancelledFlag.load(ordering: .acquiring) }
    /// True once the producer has finished the stream (a one-shot request answered, the session ended).
    package var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// Updates dropped because the consumer was behind.
    package var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// True when a lossless buffer is full: a session on virtual time waits (`waitForSpace`) before going on.
    package var isFull: Bool { state.withLock { $0.count >= capacity } }

    /// Hands one update to the consumer: to a waiting `next()` at once, else into the ring (dropping the oldest when
    /// full). Allocates nothing.
    @discardableResult
    package func push(_ element: Element) -> PushResult {
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
    package func next() async -> Element? {
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
    package func waitForSpace() async {
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
    package func cancel() {
        let (w, space) = state.withLock { s in
            s.cancelled = true
            while s.popFirst() != nil {}
            return (s.waiting.take(), s.spaceWaiter.take())
        }
        cancelledFlag.store(true, ordering: .releasing)
        w?.resume(returning: nil)
        space?.resume()
        cancelHandler.withLock { $0.take() }?()
    }

    /// Called once when the consumer goes (a client library tells its daemon); at once if it has gone already.
    package func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now = cancelHandler.withLock { h -> Bool in
            if isCancelled { return true }
            h = handler
            return false
        }
        if now { handler() }
    }

    /// The session ended: the consumer gets what waits, then `nil`.
    package func finish() {
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
    let buffering: UpdateBuffering
    let counters: Counters
    let start: @Sendable (UpdateBuffer<Element>) -> Void

    /// A stream whose every iteration makes a buffer and hands it to `start` (which joins it to a session's loop, or
    /// sends a subscription to the daemon).
    package init(buffering: UpdateBuffering, start: @escaping @Sendable (UpdateBuffer<Element>) -> Void) {
        self.buffering = buffering; self.start = start
        counters = Counters()
    }

    /// Updates dropped so far because a consumer of this stream was behind (all its iterations).
    public var droppedCount: Int { counters.dropped.load(ordering: .relaxed) }

    public func makeAsyncIterator() -> Iterator {
        let buffer = UpdateBuffer<Element>(buffering: buffering)
        start(buffer)
        return Iterator(token: Token(buffer: buffer, counters: counters))
    }

    public struct Iterator: AsyncIteratorProtocol {
        let token: Token
        /// Updates dropped so far in this iteration because its consumer was behind (`droppedCount` adds them once
        /// the iteration ends).
        public var droppedCount: Int { token.buffer.droppedCount }
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
