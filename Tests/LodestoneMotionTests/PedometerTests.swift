import Foundation
import LodestoneCore
import Testing
@testable import LodestoneMotion

/// A synthetic walk: an impact-like bump of |f| at each step (cadence `hz`), at 100 Hz, after `standS` of rest.
func syntheticWalk(steps: Int, hz: Double = 1.8, standS: Double = 3, amplitudeMps2: Double = 3) -> [(Double, Vector3)] {
    var out: [(Double, Vector3)] = []
    let end = standS + Double(steps) / hz + 3
    var t = 0.0
    while t < end {
        var bump = 0.0
        let phase = (t - standS) * hz
        if t >= standS, phase < Double(steps) {
            let x = phase - phase.rounded(.down)
            bump = amplitudeMps2 * exp(-pow((x - 0.2) / 0.08, 2)) - 0.4 * amplitudeMps2 * exp(-pow((x - 0.6) / 0.15, 2))
        }
        out.append((t, Vector3(0.3, 0.2, 9.81 + bump)))
        t += 0.01
    }
    return out
}

@Suite struct StepDetectorTests {
    @Test func aRegularWalkIsCountedStepForStep() {
        for hz in [1.4, 1.8, 2.2, 2.8] {
            var p = Pedometer()
            var n = 0
            for (t, f) in syntheticWalk(steps: 60, hz: hz) { n += p.update(specificForceMps2: f, timeS: t, allowSteps: true, running: false) }
            #expect(abs(n - 60) <= 1, "cadence \(hz) Hz: \(n)")
        }
    }

    @Test func fewerStepsThanTheConfirmationCountNothing() {
        var p = Pedometer()
        var n = 0
        for (t, f) in syntheticWalk(steps: 3) { n += p.update(specificForceMps2: f, timeS: t, allowSteps: true, running: false) }
        #expect(n == 0, "three bumps (a tap, a bump in the road) are not a walk")
    }

    @Test func stepsAreNotCountedWhenNotAllowed() {
        var p = Pedometer()
        var n = 0
        for (t, f) in syntheticWalk(steps: 40) { n += p.update(specificForceMps2: f, timeS: t, allowSteps: false, running: false) }
        #expect(n == 0 && p.totals.steps == 0)
    }

    @Test func cadenceDistanceAndPaceFollowTheStrideModel() {
        var p = Pedometer()
        var last = 0.0
        for (t, f) in syntheticWalk(steps: 60, hz: 1.8) {
            _ = p.update(specificForceMps2: f, timeS: t, allowSteps: true, running: false)
            last = t
            if abs(t - 20) < 0.005 {
                let c = p.cadenceHz(atTimeS: t)
                #expect(abs((c ?? 0) - 1.8) < 0.05)
                let pace = p.paceSPerM(atTimeS: t, running: false) ?? 0
                #expect(abs(1 / pace - 1.8 * StrideModel().stepLengthM(cadenceHz: 1.8, running: false)) < 0.05)
            }
        }
        #expect(p.cadenceHz(atTimeS: last) == nil, "no cadence seconds after the last step")
        let length = StrideModel().stepLengthM(cadenceHz: 1.8, running: false)
        #expect(abs(length - 0.75) < 0.02, "1.70 m at 1.8 steps/s: 0.75 m")
        #expect(abs(p.totals.distanceM - 60 * length) < 2 * length)
    }

    @Test func aQueryOverATimeRangeSubtractsTotals() {
        var p = Pedometer()
        let walk = syntheticWalk(steps: 100, hz: 2.0, standS: 10)
        for (t, f) in walk { _ = p.update(specificForceMps2: f, timeS: t, allowSteps: true, running: false) }
        let all = p.query(fromTimeS: 0, toTimeS: walk.last!.0)
        #expect(all?.steps == p.totals.steps)
        let firstHalf = p.query(fromTimeS: 0, toTimeS: 35)
        let secondHalf = p.query(fromTimeS: 35, toTimeS: walk.last!.0)
        #expect((firstHalf?.steps ?? 0) + (secondHalf?.steps ?? 0) == p.totals.steps)
        #expect(abs((firstHalf?.steps ?? 0) - 50) <= 11, "resolution 5 s at 2 steps/s")
        #expect(p.query(fromTimeS: -100, toTimeS: 10) == nil, "before the history")
        #expect(p.query(fromTimeS: 20, toTimeS: 10) == nil, "an empty range")
    }

    @Test func gnssSpeedCalibratesTheStride() {
        var m = StrideModel()
        for _ in 0..<200 { m.calibrate(speedMps: 1.8 * 0.75 * 1.2, cadenceHz: 1.8, running: false) }
        #expect(abs(m.scale - 1.2) < 0.01)
        for _ in 0..<500 { m.calibrate(speedMps: 20, cadenceHz: 1.8, running: false) }
        #expect(m.scale <= 1.5)
    }
}

/// Regression on real recordings: a subset of the development split of shared/datasets/steps (IPOL lower-back
/// trials, AGPL-3.0; Oxford phone recordings, CC BY 4.0). The full table is benchmarks/accuracy/results/steps.md.
@Suite struct StepCountRegressionTests {
    static let recordings = ["ipol_01_1", "ipol_05_3", "ipol_09_2", "ipol_13_1", "ipol_17_4", "ipol_19_5",
                             "oxford_dario_samsung_inhand_hard_1", "oxford_carmelo_samsung_backpocket_hard_1"]

    @Test func stepCountsOnRealRecordingsStayWithinTheirCommittedErrors() throws {
        var errors: [Double] = []
        for name in Self.recordings {
            let rows = try readTrace(Paths.dataset("steps/\(name).csv.gz"))
            let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Paths.dataset("steps/\(name).json")))) as? [String: Any]
            let truth = meta?["steps"] as? Int ?? 0
            var estimator = MotionEstimator()
            for r in rows { _ = estimator.process(reading: r.reading, fix: nil, boardToENU: nil) }
            let counted = estimator.pedometerData.steps
            errors.append(abs(Double(counted - truth)) / Double(truth))
            #expect(abs(counted - truth) <= max(2, truth / 20), "\(name): \(counted) counted, \(truth) true")
        }
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(mean <= 0.03, "mean absolute error \(mean)")
    }
}
