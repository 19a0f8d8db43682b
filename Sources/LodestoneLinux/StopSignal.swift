#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// Set by the SIGINT/SIGTERM handler, read by `StopSignal.requested`. An atomic store is async-signal-safe;
/// a global `let` of `Atomic` is the one process-wide state the handler can reach.
private let stopRequestedFlag = Atomic<Bool>(false)

/// Ctrl-C (`SIGINT`) and `SIGTERM` as a flag a run loop polls, so the loop can stop cleanly (finish the trace,
/// flush the output) instead of dying mid-write.
///
/// The handler is installed with `SA_RESETHAND`: the first signal asks for a stop, a second one gets the
/// default action and ends the process at once, so a stuck program can still be interrupted.
public struct StopSignal: Sendable {
    /// Installs the handlers (idempotent) and returns a handle to the flag.
    public static func install() -> StopSignal {
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in stopRequestedFlag.store(true, ordering: .relaxed) }
            sigemptyset(&action.sa_mask)
            // SA_RESETHAND is 0x80000000 (asm-generic/signal.h); Swift imports the macro through a conversion that
            // traps on bit 31, so spell its bit pattern here.
            action.sa_flags = Int32(bitPattern: 0x8000_0000)
            // sigaction(2) fails only for an invalid signal number or pointer; neither can happen here.
            _ = Syscalls.call { sigaction(signalNumber, &action, nil) }
        }
        // A blocked signal mask is inherited across exec (a parent such as a test runner may block nearly
        // everything): unblock the signals we handle, or Ctrl-C would stay pending forever.
        var handled = sigset_t()
        sigemptyset(&handled)
        for signalNumber in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&handled, signalNumber) }
        _ = Syscalls.call(.returnsErrno) { pthread_sigmask(SIG_UNBLOCK, &handled, nil) }
        // A closed output pipe (`lodestone run --json | head`) must end the run cleanly — finish the recording,
        // exit — rather than kill the process mid-write: ignore SIGPIPE and let the write fail with EPIPE.
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        _ = Syscalls.call { sigaction(SIGPIPE, &ignore, nil) }
        return StopSignal()
    }

    /// True once SIGINT or SIGTERM has arrived.
    public var requested: Bool { stopRequestedFlag.load(ordering: .relaxed) }

    /// Clears the flag. Tests only: all test targets share one process, so a test that delivers a signal must
    /// not leave the flag set for the next test that installs a `StopSignal`.
    static func clearForTesting() { stopRequestedFlag.store(false, ordering: .relaxed) }
}
