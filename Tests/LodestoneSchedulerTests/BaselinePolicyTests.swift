import Testing
import LodestoneCore
import LodestoneScheduler

@Suite struct BaselinePolicyTests {
    @Test func alwaysOnRunsEverythingAtTheBoardMaximumWhateverTheDemandOrMotion() {
        var s = TestBoard.scheduler(AlwaysOnPolicy(), demands: [])
        settle(&s, .stationary, at: 0)
        #expect(s.policyName == "always-on")
        for (plan, sensor) in zip(s.plan.sensors, TestBoard.sensors) {
            #expect(plan.enabled && plan.configuration.rateHz == sensor.maximumRateHz && plan.configuration.powerMode == .normal)
        }
        #expect(s.plan.gnss?.mode == .continuous(rateHz: 1))
    }

    @Test func fixedDutyCycleTurnsTheReceiverOn30SecondsEvery120RegardlessOfMotion() {
        var s = TestBoard.scheduler(
            FixedDutyCyclePolicy(onS: 30, periodS: 120),
            demands: [Demand(client: "app", location: LocationDemand(desiredAccuracy: .hundredMeters))])
        var onSeconds = 0, switches = 0
        var stream = AccelerometerStream(seed: 3, noiseMps2: 0.01)
        var wasOn = true
        for k in 0..<480 {
            s.observe(accelerationMps2: stream.still(), timeS: Double(k))
            _ = s.replanIfNeeded(timeS: Double(k))
            let on = s.plan.gnss?.mode.isOn ?? false
            if on { onSeconds += 1 }
            if on != wasOn { switches += 1; wasOn = on }
            #expect(TestBoard.sensorPlan(s, "imu").configuration.rateHz == 100)
        }
        #expect(s.inputs.motion == .stationary) // and still it cycles
        #expect(onSeconds == 4 * 30)
        #expect(switches == 7)
    }

    @Test func rapsTurnsGPSOnWhenTheEstimatedUncertaintyExceedsTheThresholdAndNotBefore() {
        // History: fixes at 2 m/s. Threshold 100 m; last fix accuracy 4 m: uncertainty 4 + 2 t exceeds 100 m after 48 s.
        var s = TestBoard.scheduler(
            RAPSPolicy(), demands: [Demand(client: "app", location: LocationDemand(desiredAccuracy: .hundredMeters))],
            firstFix: false)
        s.observe(activity: .walk, timeS: 0)
        let r1 = s.replanIfNeeded(timeS: 0)
        #expect(r1)
        #expect(s.plan.gnss?.mode == .continuous(rateHz: 1)) // no fix yet: on
        s.observe(fix: fix(atTimeS: 2, speedMps: 2, accuracyM: 4))
        _ = s.replanIfNeeded(timeS: 2.5)
        #expect(s.plan.gnss?.mode == .off) // an accurate fix: off
        var onAtS: Double?
        for k in 3..<120 where onAtS == nil {
            _ = s.replanIfNeeded(timeS: Double(k))
            if s.plan.gnss?.mode.isOn == true { onAtS = Double(k) }
        }
        #expect(onAtS == 51) // 2 s + 49 s
        #expect(RAPSPolicy.uncertaintyM(accuracyM: 4, speedMps: 2, elapsedS: 48) == 100)
    }

    @Test func rapsKeepsGPSOffWhileTheAccelerometerSaysNoMovementSinceTheLastFix() {
        var s = TestBoard.scheduler(
            RAPSPolicy(), demands: [Demand(client: "app", location: LocationDemand(desiredAccuracy: .hundredMeters))])
        s.observe(fix: fix(atTimeS: 0, speedMps: 2, accuracyM: 4))
        settle(&s, .stationary, at: 0)
        #expect(s.inputs.motion == .stationary)
        var stream = AccelerometerStream(seed: 3, noiseMps2: 0.01)
        for k in 10..<600 {
            s.observe(accelerationMps2: stream.still(), timeS: Double(k))
            _ = s.replanIfNeeded(timeS: Double(k))
            #expect(s.plan.gnss?.mode == .off)
        }
        #expect(s.plan.causes.contains(.policy("RAPS: no movement since the last fix: GPS off")))
    }

    @Test func rapsBlacklistsAPlaceWhereGPSTimedOut() {
        var s = TestBoard.scheduler(
            RAPSPolicy(), demands: [Demand(client: "app", location: LocationDemand(desiredAccuracy: .hundredMeters))],
            firstFix: false)
        s.observe(activity: .walk, timeS: 0)
        s.observe(fix: fix(atTimeS: 0, speedMps: 1, accuracyM: 4))
        var firstOnS: Double?, timedOutS: Double?, retriedS: Double?
        for k in 0..<800 {
            let t = Double(k)
            _ = s.replanIfNeeded(timeS: t)
            let on = s.plan.gnss?.mode.isOn ?? false
            if on, firstOnS == nil { firstOnS = t }
            if !on, firstOnS != nil, timedOutS == nil { timedOutS = t }
            if on, timedOutS != nil, retriedS == nil { retriedS = t }
        }
        #expect(firstOnS == 97) // 4 + 1 × 97 > 100 m
        #expect(timedOutS == 157) // 60 s without a fix
        #expect(s.plan.causes.contains(.policy("RAPS: GPS timed out here: place blacklisted")) || retriedS != nil)
        // Not tried again until the carrier has plausibly left the ~550 m cell at 1 m/s.
        #expect((retriedS ?? .infinity) >= 157 + 550)
    }
}
