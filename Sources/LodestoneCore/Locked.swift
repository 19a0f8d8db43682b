#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a POSIX mutex: the state that the service's tasks and threads share (subscription buffers, the
/// client's connection, the event loop's queues, the daemon's clients and ledgers).
///
/// Used in place of `Synchronization.Mutex` for one reason: ThreadSanitizer. On Linux (Swift 6.3.1) `Mutex`'s fast
/// path is inlined into the caller while a contended lock is taken in the uninstrumented standard library (a spin,
/// then the kernel's PI futex), so TSan misses the ordering and reports races on state the lock protects (a contended
/// `Mutex<[Int]>`: 3 reports in 3 runs; the same with `pthread_mutex_t`: none). TSan intercepts `pthread_mutex_lock`,
/// so a report under this lock is a real one.
///
/// The mutex lives at a fixed address of its own (POSIX forbids moving one) and is allocated once, at `init`; taking
/// and releasing it allocates nothing. Not recursive: calling `withLock` from inside its own closure deadlocks, as
/// with `Mutex`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    public init(_ initialValue: sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value, the lock held for its duration; what `body` returns leaves the lock with it.
    @inline(__always)
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E)
        -> sending Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
