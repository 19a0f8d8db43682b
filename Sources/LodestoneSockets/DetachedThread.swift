#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own for blocking work (a client's socket reads), without Foundation's `Thread` (issue 19: the
/// product links FoundationEssentials at most).
public enum DetachedThread {
    /// Runs `body` on a new detached thread.
    ///
    /// Creating the thread fails only at the process's or the system's thread limit (`EAGAIN`): that traps, as
    /// Foundation's `Thread.start()` does, since the caller cannot go on without it.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(body: body)).toOpaque()
        var tid = pthread_t()
        let r = pthread_create(
            &tid, nil,
            { arg in
                let work = Unmanaged<ThreadBody>.fromOpaque(arg!).takeRetainedValue()
                work.body()
                return nil
            }, box)
        precondition(r == 0, "pthread_create failed: errno \(r)")
        pthread_detach(tid)
    }
}

/// What a `DetachedThread` runs, handed to the new thread through `pthread_create`'s argument.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(body: @escaping @Sendable () -> Void) { self.body = body }
}
