import Foundation
import LodestoneCore
import LodestoneWire
import Synchronization
import Testing

@testable import LodestoneEngine

/// Wall-clock steps (issue 18, item 3): the wire's `time` labels follow `CLOCK_REALTIME` when NTP or a person steps it,
/// while session time, sample times and pacing stay on the monotonic clock.
struct WallClockStepTests {
    /// A monotonic clock that jumps to each deadline at once: the paced loop (`Session.runLoop` with an origin), run
    /// as fast as it goes and exactly repeatable.
    final class InstantClock: SessionClock {
        let nowMutex = Mutex(1_000.0)
        func nowS() -> Double { nowMutex.withLock { $0 } }
        func sleep(untilS deadlineS: Double) async { nowMutex.withLock { $0 = max($0, deadlineS) } }
    }

    /// A wall clock that runs with `clock` from `baseUnixS` and is stepped by `stepS` once `clock` reaches `stepAtS`
    /// (as `date -s` or an NTP step would).
    struct SteppedWallClock: WallClock {
        let clock: InstantClock
        let baseUnixS: Double
        let stepAtS: Double
        let stepS: Double
        func unixS() -> Double {
            let now = clock.nowS()
            return baseUnixS + now + (now >= stepAtS ? stepS : 0)
        }
    }

    static func unixS(_ iso: String) -> Double? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: iso)?.timeIntervalSince1970
    }

    /// The wall clock is stepped +1 h (then, in the second case, −1 h) five seconds into a paced session: every STATUS
    /// from the step on is labelled with the stepped wall time, every one before with the old; session time goes on
    /// without a jump. Before the labels followed the wall clock (read once at `Session.init`), every label after the
    /// step was an hour off.
    @Test(arguments: [3_600.0, -3_600.0])
    func timeLabelsFollowASteppedWallClock(stepS: Double) async throws {
        let clock = InstantClock()
        let baseUnixS = 1_782_993_600.0 - 1_000 // 2026-07-02T12:00:00Z at the clock's start
        let stepAtS = clock.nowS() + 5
        let wall = SteppedWallClock(clock: clock, baseUnixS: baseUnixS, stepAtS: stepAtS, stepS: stepS)
        let session = try Session(
            configuration: SessionConfiguration(board: try SessionTests.board(), durationS: 10, speed: 1),
            clock: clock, wallClock: wall)
        let stream = session.messages([.status], rateHz: 1)
        var iterator = stream.makeAsyncIterator()
        await session.start()
        var labels: [(tS: Double, unixS: Double)] = []
        while let message = await iterator.next() {
            guard case .status(let s) = message, let time = s.time, let unix = Self.unixS(time) else { continue }
            labels.append((s.tS, unix))
        }
        #expect(labels.count >= 9)
        for (t, unix) in labels {
            // The status of session time t is made at monotonic time start + t; the wall clock then says this.
            let expected = baseUnixS + 1_000 + t + (t >= 5 - 1e-9 ? stepS : 0)
            #expect(abs(unix - expected) < 0.01, "t=\(t) s labelled \(unix), the wall clock said \(expected)")
        }
        #expect(zip(labels, labels.dropFirst()).allSatisfy { $0.tS < $1.tS }, "session time went back")
        let status = await session.status
        #expect(status.notes.contains { $0.hasPrefix("the wall clock stepped by \(formatFixed(stepS, digits: 3)) s") })
    }

    /// The loop itself: jitter below the threshold (pacing lateness, the two clock reads) moves nothing; a step beyond
    /// it re-anchors the labels once and says so; session time is untouched.
    @Test func observeWallClockReanchorsOnlyOnSteps() throws {
        var core = try SessionCore(
            configuration: SessionConfiguration(board: try SessionTests.board(), durationS: 5, speed: 0, utcAtStartS: 1_000_000))
        core.observeWallClock(unixS: 1_000_010.3, atSessionS: 10) // 0.3 s off: jitter
        #expect(core.labelUnixS(atSessionS: 10) == 1_000_010)
        #expect(core.state.wallClockSteps == 0)
        core.observeWallClock(unixS: 1_003_610, atSessionS: 10) // +1 h
        #expect(core.labelUnixS(atSessionS: 11) == 1_003_611)
        core.observeWallClock(unixS: 1_000_012, atSessionS: 12) // back by 1 h
        #expect(core.labelUnixS(atSessionS: 12) == 1_000_012)
        #expect(core.state.wallClockSteps == 2)
        #expect(core.state.notes.filter { $0.hasPrefix("the wall clock stepped") }.count == 2)
    }
}
