import Foundation
import LodestoneCore
import LodestoneSimulation
import Testing

@testable import LodestoneEngine

/// The fault soak's short version for CI (issue 18; `scripts/soak` runs the long one in release): 20 simulated minutes
/// of the simulated board with every fault kind made frequent enough to happen several times.
struct FaultSoakTests {
    @Test func twentyMinutesOfFaultsPassEveryCheck() throws {
        let board = try BoardDescription.load(path: RunJobTests.simulatedBoardPath)
        var o = FaultSoak.Options(board: board, durationS: 1_200, seed: 1)
        o.vanishMeanIntervalS = 60
        o.stuckMeanIntervalS = 120
        o.receiverStopMeanIntervalS = 300
        o.outageMeanIntervalS = 300
        o.settleS = 60
        // A debug build's heap settles later than the release soak's; the RSS check belongs to scripts/soak.
        o.rssGrowthLimitBytes = Int.max
        let r = try FaultSoak.run(o)
        for line in r.lines { print("soak: " + line) }
        #expect(r.passed, "\(r.failures)")
        #expect(r.simulatedS >= 1_199)
        for kind in ["nack", "eio", "vanish", "stuck", "receiver-stop", "gnss-outage"] {
            #expect((r.faults[kind] ?? 0) > 0, "no \(kind) fault injected")
        }
        #expect(r.returns >= 5 && r.recoveries == r.returns, "returns \(r.returns), recoveries \(r.recoveries)")
        #expect(r.location.checks > 0 && r.heading.checks > 0 && r.altitude.checks > 0)
    }
}
