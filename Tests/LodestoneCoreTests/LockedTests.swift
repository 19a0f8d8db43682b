import Dispatch
import LodestoneCore
import Testing

/// `Locked` under contention. In the ordinary build this checks mutual exclusion (a lost update would leave the count
/// short, and a torn array append would crash); scripts/sanitize tsan runs it too, where it checks that ThreadSanitizer
/// sees the lock: the same test with `Synchronization.Mutex` was reported as a race in 3 runs of 3.
@Suite struct LockedTests {
    @Test func fourThreadsAppendingUnderTheLockLoseNothing() {
        let items = Locked<[Int]>([])
        let perThread = 20_000
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<perThread { items.withLock { $0.append(thread * perThread + i) } }
        }
        let all = items.withLock { $0 }
        #expect(all.count == 4 * perThread)
        #expect(Set(all).count == 4 * perThread)
    }

    @Test func aThrowingBodyReleasesTheLockAndPassesItsErrorOn() {
        struct Refused: Error {}
        let counter = Locked(0)
        #expect(throws: Refused.self) {
            try counter.withLock { (value: inout Int) throws(Refused) in
                value += 1
                throw Refused()
            }
        }
        // Taken again: a lock left held would hang here.
        #expect(counter.withLock { $0 } == 1)
    }
}
