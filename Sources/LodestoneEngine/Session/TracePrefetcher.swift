#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
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
/// Deinitializing stops the producer (it finishes the row it is parsing) and waits for its thread to end.
final class TracePrefetcher: @unchecked Sendable {
    /// Rows per batch and batches in the ring (4 × 512 rows of about 560 bytes: 1.1 MB).
    static let batchRows = 512
    static let batchCount = 4

    /// The producer's parser: touched only by the producer's thread once it has started.
    private var parser: TraceParser
    private let rows: UnsafeMutablePointer<TraceRow>
    /// Each batch's summary: its row count, and whether the input ended after it (with the error it ended in).
    private let rowCounts: UnsafeMutablePointer<Int>
    private let ends: UnsafeMutablePointer<Bool>
    private let errors: UnsafeMutablePointer<TraceError?>

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    // Under the mutex: batches filled and not given back, those of them not taken yet, and the stop request.
    private var outstanding = 0
    private var ready = 0
    private var cancelled = false
    private var thread: pthread_t?

    // The consumer's side (its thread only): the batch it reads, the next row in it, and what it copied of the summary.
    private var batch = 0
    private var index = 0
    private var holding = false
    private var heldRows = 0
    private var heldEnds = false
    private var finished = false
    /// The error the input ended in, once `nextRow` has returned `nil`.
    private(set) var error: TraceError?

    /// Starts parsing `parser` (its header already read) on a new thread.
    init(parser: TraceParser) {
        self.parser = parser
        let slots = Self.batchRows * Self.batchCount
        rows = .allocate(capacity: slots)
        rows.initialize(repeating: TraceRow(timeS: .nan), count: slots)
        rowCounts = .allocate(capacity: Self.batchCount)
        rowCounts.initialize(repeating: 0, count: Self.batchCount)
        ends = .allocate(capacity: Self.batchCount)
        ends.initialize(repeating: false, count: Self.batchCount)
        errors = .allocate(capacity: Self.batchCount)
        errors.initialize(repeating: nil, count: Self.batchCount)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        precondition(pthread_cond_init(changed, nil) == 0, "pthread_cond_init failed")
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                #if canImport(Darwin)
                    let context = context
                #else
                    guard let context else { return nil }
                #endif
                Unmanaged<TracePrefetcher>.fromOpaque(context).takeUnretainedValue().produce()
                return nil
            }, Unmanaged.passUnretained(self).toOpaque())
        if status == 0 {
            self.thread = thread
        } else {
            // No thread (resources exhausted): parse here instead, as the loop asks.
            self.thread = nil
        }
    }

    deinit {
        pthread_mutex_lock(mutex)
        cancelled = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        if let thread { pthread_join(thread, nil) }
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        let slots = Self.batchRows * Self.batchCount
        rows.deinitialize(count: slots)
        rows.deallocate()
        rowCounts.deinitialize(count: Self.batchCount)
        rowCounts.deallocate()
        ends.deinitialize(count: Self.batchCount)
        ends.deallocate()
        errors.deinitialize(count: Self.batchCount)
        errors.deallocate()
    }

    /// The next row, in place in its batch (valid until the next call), or `nil` at the end of the input (then `error`
    /// says whether it ended in one).
    func nextRow() -> UnsafeMutablePointer<TraceRow>? {
        while !finished {
            if holding {
                if index < heldRows {
                    index += 1
                    return rows + (batch * Self.batchRows + index - 1)
                }
                if heldEnds {
                    finished = true
                    return nil
                }
                pthread_mutex_lock(mutex)
                outstanding -= 1
                pthread_cond_broadcast(changed)
                pthread_mutex_unlock(mutex)
                holding = false
                batch = (batch + 1) % Self.batchCount
            }
            if thread == nil { fillHere() }
            pthread_mutex_lock(mutex)
            while ready == 0 { pthread_cond_wait(changed, mutex) }
            ready -= 1
            heldRows = rowCounts[batch]
            heldEnds = ends[batch]
            if heldEnds { error = errors[batch] }
            pthread_mutex_unlock(mutex)
            holding = true
            index = 0
        }
        return nil
    }

    /// The producer's loop: fills batches in ring order until the input ends or `deinit` asks it to stop.
    private func produce() {
        var next = 0
        while true {
            pthread_mutex_lock(mutex)
            while outstanding == Self.batchCount && !cancelled { pthread_cond_wait(changed, mutex) }
            let stop = cancelled
            pthread_mutex_unlock(mutex)
            if stop { return }
            if fill(next) { return }
            next = (next + 1) % Self.batchCount
        }
    }

    /// Without a thread: the consumer fills the batch it is about to take itself.
    private func fillHere() {
        pthread_mutex_lock(mutex)
        let has = ready > 0
        pthread_mutex_unlock(mutex)
        if !has { _ = fill(batch) }
    }

    /// Parses up to `batchRows` rows into batch `b` and hands it over. Returns true when the input ended (in an error or
    /// not).
    private func fill(_ b: Int) -> Bool {
        let base = rows + b * Self.batchRows
        var count = 0, ended = false
        var failure: TraceError?
        while count < Self.batchRows {
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
        pthread_mutex_lock(mutex)
        rowCounts[b] = count
        ends[b] = ended
        errors[b] = failure
        outstanding += 1
        ready += 1
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        return ended
    }
}
