import LodestoneCore
import LodestoneTrace

/// Reads and parses a trace on a thread of its own, up to `batchCount` batches of `batchRows` rows ahead of the loop
/// that fuses them (`lodestone replay`): decompressing and parsing were a fifth of a replay's time, and a board has more
/// than one core. The rows, the order and the errors are exactly the parser's; only where the work happens changes.
///
/// The batches are allocated once, at `init`; a row is parsed into its slot and read there (`nextRow` hands out a
/// pointer), so nothing is copied or allocated per row. The threads meet once a batch, under one mutex: the producer
/// fills batches in ring order while fewer than `batchCount` are filled and not yet given back, the consumer takes
/// them in the same order and gives each back when it moves past its last row. A batch's rows and its summary are
/// written only by the producer before it is handed over and read only by the consumer after, so the mutex orders
/// every access (ThreadSanitizer sees it: `TracePrefetcherTests` is in its subset).
///
/// The producer's thread holds the shared `Ring`, never this object: dropping the prefetcher (a loop that stops early)
/// stops the producer (it finishes the row it is parsing) and joins its thread, whatever the producer was doing.
/// `@unchecked Sendable` because the session that owns it may move between threads; its consumer side (`nextRow`,
/// `error`) is used by one of them at a time, as the session's loop is.
final class TracePrefetcher: @unchecked Sendable {
    /// Rows per batch and batches in the ring (4 × 512 rows of about 560 bytes: 1.1 MB).
    static let batchRows = 512
    static let batchCount = 4

    /// What the two threads share.
    final class Ring: @unchecked Sendable {
        /// The producer's parser: touched only by the producer's thread once it has started.
        var parser: TraceParser
        let rows: UnsafeMutablePointer<TraceRow>
        /// Each batch's summary: its row count, and whether the input ended after it (with the error it ended in).
        let rowCounts: UnsafeMutablePointer<Int>
        let ends: UnsafeMutablePointer<Bool>
        let errors: UnsafeMutablePointer<TraceError?>
        /// The mutex and condition the two threads meet under.
        let handOver = HandOver()
        // Under the mutex: batches filled and not given back, those of them not taken yet, and the stop request.
        var outstanding = 0
        var ready = 0
        var cancelled = false

        init(parser: TraceParser) {
            self.parser = parser
            let slots = TracePrefetcher.batchRows * TracePrefetcher.batchCount
            rows = .allocate(capacity: slots)
            rows.initialize(repeating: TraceRow(timeS: .nan), count: slots)
            rowCounts = .allocate(capacity: TracePrefetcher.batchCount)
            rowCounts.initialize(repeating: 0, count: TracePrefetcher.batchCount)
            ends = .allocate(capacity: TracePrefetcher.batchCount)
            ends.initialize(repeating: false, count: TracePrefetcher.batchCount)
            errors = .allocate(capacity: TracePrefetcher.batchCount)
            errors.initialize(repeating: nil, count: TracePrefetcher.batchCount)
        }

        deinit {
            rows.deinitialize(count: TracePrefetcher.batchRows * TracePrefetcher.batchCount)
            rows.deallocate()
            rowCounts.deinitialize(count: TracePrefetcher.batchCount)
            rowCounts.deallocate()
            ends.deinitialize(count: TracePrefetcher.batchCount)
            ends.deallocate()
            errors.deinitialize(count: TracePrefetcher.batchCount)
            errors.deallocate()
        }

        /// The producer's loop: fills batches in ring order until the input ends or the prefetcher is dropped.
        func produce() {
            var next = 0
            while true {
                handOver.lock()
                while outstanding == TracePrefetcher.batchCount && !cancelled { handOver.wait() }
                let stop = cancelled
                handOver.unlock()
                if stop || fill(next) { return }
                next = (next + 1) % TracePrefetcher.batchCount
            }
        }

        /// Parses up to `batchRows` rows into batch `b` and hands it over. Returns true when the input ended (in an
        /// error or not).
        func fill(_ b: Int) -> Bool {
            let base = rows + b * TracePrefetcher.batchRows
            var count = 0, ended = false
            var failure: TraceError?
            while count < TracePrefetcher.batchRows {
                do {
                    guard try parser.next(into: &base[count]) else {
                        ended = true
                        break
                    }
                    count += 1
                } catch {
                    failure = error
                    ended = true
                    break
                }
            }
            handOver.lock()
            rowCounts[b] = count
            ends[b] = ended
            errors[b] = failure
            outstanding += 1
            ready += 1
            handOver.broadcast()
            handOver.unlock()
            return ended
        }
    }

    /// The shared ring (the producer's thread holds it too, until it ends).
    let ring: Ring
    private let thread: JoinableThread?

    // The consumer's side (its thread only): the batch it reads, the next row in it, and what it copied of the summary.
    private var batch = 0
    private var index = 0
    private var holding = false
    private var heldRows = 0
    private var heldEnds = false
    private var finished = false
    /// The error the input ended in, once `nextRow` has returned `nil`.
    private(set) var error: TraceError?

    /// Starts parsing `parser` (its header already read) on a new thread; without one (the system has no more), the
    /// consumer parses each batch itself when it needs it.
    init(parser: TraceParser) {
        let ring = Ring(parser: parser)
        self.ring = ring
        thread = JoinableThread { ring.produce() }
    }

    deinit {
        ring.handOver.lock()
        ring.cancelled = true
        ring.handOver.broadcast()
        ring.handOver.unlock()
        thread?.join()
    }

    /// The next row, in place in its batch (valid until the next call), or `nil` at the end of the input (then `error`
    /// says whether it ended in one).
    func nextRow() -> UnsafeMutablePointer<TraceRow>? {
        while !finished {
            if holding {
                if index < heldRows {
                    index += 1
                    return ring.rows + (batch * Self.batchRows + index - 1)
                }
                if heldEnds {
                    finished = true
                    return nil
                }
                ring.handOver.lock()
                ring.outstanding -= 1
                ring.handOver.broadcast()
                ring.handOver.unlock()
                holding = false
                batch = (batch + 1) % Self.batchCount
            }
            if thread == nil {
                ring.handOver.lock()
                let has = ring.ready > 0
                ring.handOver.unlock()
                if !has { _ = ring.fill(batch) }
            }
            ring.handOver.lock()
            while ring.ready == 0 { ring.handOver.wait() }
            ring.ready -= 1
            heldRows = ring.rowCounts[batch]
            heldEnds = ring.ends[batch]
            if heldEnds { error = ring.errors[batch] }
            ring.handOver.unlock()
            holding = true
            index = 0
        }
        return nil
    }
}
