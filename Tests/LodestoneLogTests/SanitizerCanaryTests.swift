import Glibc
import Synchronization
import Testing

/// Not tests of Lodestone: a data race and a heap overflow on purpose, which `scripts/sanitize tsan` and
/// `scripts/sanitize asan` run before their subsets and require the sanitizer to report. Without them, a clean run could
/// mean that the build was not instrumented or that the reports were lost on the way to the log, and would prove
/// nothing. Each runs only where the script sets its variable (`LODESTONE_TSAN_CANARY`, `LODESTONE_ASAN_CANARY`);
/// everywhere else both are skipped.
@Suite struct SanitizerCanaryTests {
    /// What the two threads share: a counter each increments with no synchronization (the race), and how many threads
    /// have arrived at the start line, so that both run at once (a thread that had ended before the other started could
    /// go unreported).
    private final class RaceTarget {
        let arrived = Atomic<Int>(0)
        var count = 0
    }

    @Test(.enabled(if: getenv("LODESTONE_TSAN_CANARY") != nil))
    func twoThreadsIncrementOneCounterWithoutALock() {
        let target = RaceTarget()
        let arg = Unmanaged.passUnretained(target).toOpaque()
        var threads: [pthread_t] = []
        for _ in 0..<2 {
            var thread = pthread_t()
            let r = pthread_create(
                &thread, nil,
                { arg in
                    let target = Unmanaged<RaceTarget>.fromOpaque(arg!).takeUnretainedValue()
                    target.arrived.add(1, ordering: .sequentiallyConsistent)
                    while target.arrived.load(ordering: .sequentiallyConsistent) < 2 { sched_yield() }
                    for _ in 0..<10_000 { target.count += 1 }
                    return nil
                }, arg)
            #expect(r == 0)
            if r == 0 { threads.append(thread) }
        }
        for thread in threads { pthread_join(thread, nil) }
        withExtendedLifetime(target) {}
    }

    @Test(.enabled(if: getenv("LODESTONE_ASAN_CANARY") != nil))
    func aWriteOnePastTheEndOfAnAllocation() {
        let countBytes = 8
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: countBytes)
        defer { bytes.deallocate() }
        bytes.initialize(repeating: 0, count: countBytes)
        bytes[countBytes] = 1 // the overflow
        #expect(bytes[0] == 0)
    }
}
