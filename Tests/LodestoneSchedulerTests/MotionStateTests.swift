import Testing
import LodestoneCore
import LodestoneScheduler

@Suite struct AnyMotionDetectorTests {
    @Test func restNoiseNeverTriggersAndAFirstStepIsDetectedWithin100Milliseconds() {
        var d = AnyMotionDetector()
        var stream = AccelerometerStream(seed: 7)
        for i in 0..<6000 { // 60 s at rest
            let r12 = d.update(accelerationMps2: stream.still(), timeS: Double(i) * 0.01)
            #expect(!r12)
        }
        var detectedS: Double?
        for i in 0..<200 where detectedS == nil {
            let t = 60 + Double(i) * 0.01
            if d.update(accelerationMps2: stream.walking(timeS: t - 60), timeS: t) { detectedS = t }
        }
        let latency = (detectedS ?? .infinity) - 60
        #expect(latency < 0.1, "detected \(latency) s after the first step")
    }

    @Test func aLoneKnockDoesNotCountAndATiltDoes() {
        var d = AnyMotionDetector()
        var stream = AccelerometerStream(seed: 3)
        for i in 0..<200 { _ = d.update(accelerationMps2: stream.still(), timeS: Double(i) * 0.01) }
        // One sample 2 m/s² off: a knock on the table.
        let r13 = d.update(accelerationMps2: stream.still() + Vector3(2, 0, 0), timeS: 2.0)
        #expect(!r13)
        var detected = false
        for i in 1..<100 { detected = detected || d.update(accelerationMps2: stream.still(), timeS: 2.0 + Double(i) * 0.01) }
        #expect(!detected)
        // Tilted by ~10°: gravity moves 1.7 m/s² sideways for good.
        for i in 0..<20 {
            detected = detected || d.update(accelerationMps2: Vector3(1.70, 0, 9.66), timeS: 3.0 + Double(i) * 0.01)
        }
        #expect(detected)
    }

    @Test func aGapRestartsTheMeanInsteadOfReportingMotion() {
        var d = AnyMotionDetector()
        for i in 0..<100 { _ = d.update(accelerationMps2: Vector3(0, 0, 9.8), timeS: Double(i) * 0.01) }
        // The chip was off for 10 s and comes back in another orientation: no evidence of *current* motion.
        var detected = false
        for i in 0..<100 { detected = detected || d.update(accelerationMps2: Vector3(9.8, 0, 0), timeS: 11 + Double(i) * 0.01) }
        #expect(!detected)
    }
}

@Suite struct MotionStateTests {
    static let navigator = Demand(client: "nav", location: LocationDemand(desiredAccuracy: .best))

    /// Walk with the classifier saying so once a second, then stop; the receiver must be off within 30 s of the stop
    /// and back at full service within 2 s of walking again.
    @Test(arguments: [true, false])
    func stationaryTurnsTheReceiverOffWithin30SecondsAndMotionRestoresFullServiceWithin2(classifier: Bool) {
        var s = TestBoard.scheduler(demands: [Self.navigator])
        var stream = AccelerometerStream(seed: 11)
        var offAtS: Double?, backAtS: Double?
        var i = 0
        while true {
            let t = Double(i) * 0.01
            if t >= 260 { break }
            let walking = t < 60 || t >= 200
            let a = walking ? stream.walking(timeS: t) : stream.still()
            s.observe(accelerationMps2: a, timeS: t)
            // The classifier decides once a second, about 3 s late (its window).
            if classifier, i % 100 == 0 {
                let seen = t - 3
                s.observe(activity: (seen < 60 || seen >= 200) ? .walk : .stationary, timeS: t)
            }
            _ = s.replanIfNeeded(timeS: t)
            // The receiver delivers a fix a second while it is on.
            if i % 100 == 50, s.plan.gnss?.mode.isOn == true { s.observe(fix: fix(atTimeS: t)) }
            let mode = s.plan.gnss?.mode ?? .off
            if t >= 60, t < 200, offAtS == nil, mode == .off { offAtS = t }
            if t >= 200, backAtS == nil, mode == .continuous(rateHz: 1),
                TestBoard.sensorPlan(s, "imu").configuration.powerMode == .normal
            {
                backAtS = t
            }
            i += 1
        }
        let offAfterS = (offAtS ?? .infinity) - 60, backAfterS = (backAtS ?? .infinity) - 200
        #expect(offAfterS <= 30, "receiver off \(offAfterS) s after the stop")
        #expect(offAfterS >= 8, "stationary must be sustained stillness, not a pause between steps")
        #expect(backAfterS <= 2, "full service \(backAfterS) s after motion")
        #expect(backAfterS < 0.1, "the plan returns to the moving plan on the first detector hit")
    }

    @Test func aCarStoppedAtTrafficLightsKeepsItsReceiverHotInPowerSaveAndAParkedOneLosesIt() {
        var s = TestBoard.scheduler(demands: [Self.navigator])
        var stream = AccelerometerStream(seed: 5)
        var offAtS: Double?
        var pausedAtS: Double?
        var resumedAtS: Double?
        var i = 0
        while true {
            let t = Double(i) * 0.01
            if t >= 400 { break }
            // Drive 0–100 s, red light 100–190 s, drive 190–250 s, parked from 250 s; the classifier says drive until
            // it notices the parking 3 s late (a car waiting in traffic is still a drive).
            let moving = t < 100 || (t >= 190 && t < 250)
            s.observe(accelerationMps2: moving ? stream.driving(timeS: t) : stream.still(), timeS: t)
            if i % 100 == 0 { s.observe(activity: t < 253 ? .drive : .stationary, timeS: t) }
            _ = s.replanIfNeeded(timeS: t)
            if i % 100 == 50, s.plan.gnss?.mode.isOn == true { s.observe(fix: fix(atTimeS: t, speedMps: moving ? 12 : 0)) }
            if pausedAtS == nil, t > 100, t < 190, case .powerSave = s.plan.gnss?.mode { pausedAtS = t }
            if resumedAtS == nil, t >= 190, s.plan.gnss?.mode == .continuous(rateHz: 1) { resumedAtS = t }
            if offAtS == nil, s.plan.gnss?.mode == .off { offAtS = t }
            i += 1
        }
        // At the red light: power-save (not off) within 30 s of stopping, continuous again within 2 s of pulling away.
        #expect((pausedAtS ?? .infinity) <= 100 + 30, "power-save at \(pausedAtS ?? -1) s")
        #expect((resumedAtS ?? .infinity) <= 190 + 2, "continuous again at \(resumedAtS ?? -1) s")
        // Off only after the drive's 120 s of stillness, counted from the classifier's last "drive".
        #expect((offAtS ?? 0) >= 250 + 120, "receiver off at \(offAtS ?? -1) s")
        #expect((offAtS ?? .infinity) <= 253 + 120 + 1, "receiver off at \(offAtS ?? -1) s")
    }

    @Test func noisyInputNearTheThresholdGivesABoundedNumberOfReplans() {
        var s = TestBoard.scheduler(demands: [Self.navigator])
        // Noise such that |deviation| crosses 0.3 m/s² now and then: the detector fires irregularly.
        var stream = AccelerometerStream(seed: 9, noiseMps2: 0.1)
        let changes = drive(&s, from: 0, to: 600) { _ in stream.still() }
        // Every change to stationary needs 20 s of stillness, so at most one stationary/moving pair per 20 s.
        #expect(changes.count <= 1 + 2 * 600 / 20, "\(changes.count) plans")
        // And a quiet board re-plans exactly once to stationary.
        var quiet = TestBoard.scheduler(demands: [Self.navigator])
        var calm = AccelerometerStream(seed: 9, noiseMps2: 0.02)
        let quietChanges = drive(&quiet, from: 0, to: 600) { _ in calm.still() }
        #expect(quietChanges.count == 2, "first plan, then stationary: \(quietChanges)")
        #expect(quiet.inputs.motion == .stationary)
    }

    @Test func wakeOnMotionMovesAtOnceAndTheClassifierRefinesTheKind() {
        var s = TestBoard.scheduler(demands: [Self.navigator])
        var stream = AccelerometerStream(seed: 2)
        drive(&s, from: 0, to: 25) { _ in stream.still() }
        #expect(s.inputs.motion == .stationary)
        s.observeMotionWake(timeS: 25)
        let r14 = s.replanIfNeeded(timeS: 25)
        #expect(r14)
        #expect(s.inputs.motion == .unknown && s.inputs.motion.mayMove)
        #expect(s.plan.gnss?.mode == .continuous(rateHz: 1))
        s.observe(activity: .cycle, timeS: 26)
        #expect(s.inputs.motion == .cycle)
        let r15 = s.replanIfNeeded(timeS: 26)
        #expect(r15)
        #expect(s.plan.causes.contains(.motion(.cycle, sinceS: 26)))
    }

    @Test func aClassifierWaveringBetweenWalkAndRunDoesNotFlapThePlan() {
        var s = TestBoard.scheduler(demands: [Demand(client: "app", location: LocationDemand(desiredAccuracy: .hundredMeters))])
        s.observe(activity: .walk, timeS: 0)
        _ = s.replanIfNeeded(timeS: 0)
        var changes = 0
        for k in 1..<300 {
            s.observe(activity: k % 2 == 0 ? .walk : .run, timeS: Double(k))
            s.observe(fix: fix(atTimeS: Double(k)))
            if s.replanIfNeeded(timeS: Double(k)) { changes += 1 }
        }
        #expect(changes == 0)
        #expect(s.inputs.motion == .walk)
        // Two decisions in a row: a real change.
        s.observe(activity: .run, timeS: 300)
        s.observe(activity: .run, timeS: 301)
        #expect(s.inputs.motion == .run)
        let changed = s.replanIfNeeded(timeS: 301)
        #expect(changed)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 10))
    }
}
