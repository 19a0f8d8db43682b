#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX mutex and condition variable for two threads that hand batches to each other (`lodestone replay`'s parser
/// and writer threads): the caller keeps its own counters and flags, reads and writes them only between `lock()` and
/// `unlock()`, and sleeps in `wait()` until the other side `broadcast()`s. A broadcast with no thread waiting is
/// skipped (the count is kept under the mutex): a futex call saved on each side of most hand-overs.
///
/// POSIX types for the reason `Locked` gives (ThreadSanitizer sees their ordering). Both live at fixed addresses of
/// their own (POSIX forbids moving them), allocated once at `init`; nothing is allocated after.
public final class HandOver: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    /// Threads in `wait()` (under the mutex).
    private var waiting = 0

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        let condition = pthread_cond_init(changed, nil)
        precondition(condition == 0, "pthread_cond_init failed: \(condition)")
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the mutex.
    public func lock() { pthread_mutex_lock(mutex) }
    /// Releases the mutex.
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Releases the mutex, sleeps until a `broadcast()` (or spuriously: wait in a loop on the condition), takes it again.
    public func wait() {
        waiting += 1
        pthread_cond_wait(changed, mutex)
        waiting -= 1
    }
    /// Wakes every thread in `wait()`, if any (call it holding the mutex).
    public func broadcast() {
        if waiting > 0 { pthread_cond_broadcast(changed) }
    }
}

/// A POSIX thread running one closure, joined explicitly (once): the parser's and the writer's threads of
/// `lodestone replay`, which their owner joins before it goes (a thread that held its owner would have had to join
/// itself).
public struct JoinableThread {
    private let thread: pthread_t

    /// Starts `body` on a new thread; `nil` when the system has no more threads (the caller then does the work itself).
    public init?(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable { // handed to the thread once, released there
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let retained = Unmanaged.passRetained(Box(body))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                #if canImport(Darwin)
                    let context = context
                #else
                    guard let context else { return nil }
                #endif
                let box = Unmanaged<Box>.fromOpaque(context)
                box.takeUnretainedValue().body()
                box.release()
                return nil
            }, retained.toOpaque())
        guard status == 0 else {
            retained.release()
            return nil
        }
        self.thread = thread
    }

    /// Waits for the thread to end. Once: the thread is gone after it.
    public func join() { pthread_join(thread, nil) }
}
