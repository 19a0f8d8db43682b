#if canImport(Glibc)
    import Glibc
#endif

/// `CLOCK_MONOTONIC`: seconds since an arbitrary point (boot), never stepped by NTP or the user, so it is
/// the clock for sample timestamps and rate control. The same clock as the kernel's IIO timestamps when a
/// device's `current_timestamp_clock` is `monotonic`.
public enum MonotonicClock {
    /// Now, in seconds (`clock_gettime(CLOCK_MONOTONIC)`), with nanosecond resolution.
    public static func nowS() -> Double {
        let ts = Syscalls.monotonicNow()
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Now, in nanoseconds.
    public static func nowNs() -> UInt64 {
        let ts = Syscalls.monotonicNow()
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Sleeps until `nowS() >= deadlineS` (returns at once for a deadline in the past or not finite): the
    /// drift-free way to pace a loop, `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, repeated after `EINTR`.
    public static func sleep(untilS deadlineS: Double) {
        guard deadlineS.isFinite, deadlineS > 0, deadlineS < 9e18 / 1e9 else { return }
        let seconds = deadlineS.rounded(.down)
        var deadline = timespec()
        deadline.tv_sec = Int(seconds)
        deadline.tv_nsec = min(999_999_999, Int(((deadlineS - seconds) * 1e9).rounded(.up)))
        _ = Syscalls.sleep(until: deadline)
    }

    /// Sleeps at least `microseconds` (values ≤ 0 return at once). Signals do not cut the sleep short: it
    /// is `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` to a deadline, repeated after `EINTR`.
    public static func sleep(microseconds: Int) {
        guard microseconds > 0 else { return }
        var deadline = Syscalls.monotonicNow()
        let totalNs = Int(deadline.tv_nsec) + (microseconds % 1_000_000) * 1000
        deadline.tv_sec += microseconds / 1_000_000 + totalNs / 1_000_000_000
        deadline.tv_nsec = totalNs % 1_000_000_000
        // The only other failure is EINVAL for a malformed deadline, which this construction cannot produce.
        _ = Syscalls.sleep(until: deadline)
    }
}

/// The system's wall clock (UTC; it can step, as when NTP corrects it).
public enum RealtimeClock {
    /// Seconds since 1970-01-01T00:00:00Z.
    public static func unixS() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}
