import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Delivers Unix signals (SIGHUP, SIGTERM, SIGINT) as calls on a dispatch queue instead of asynchronous handlers: the
/// signal's default action is turned off for as long as the watcher lives.
public final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    /// Watches `signals`, calling `handler` with the signal's number on a private queue.
    public init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "lodestone.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Stops watching and restores the default actions.
    public func cancel() {
        for s in sources {
            s.cancel()
            signal(Int32(s.handle), SIG_DFL)
        }
    }

    public static let hangUp = SIGHUP
    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
}
