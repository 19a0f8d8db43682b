import Testing
import LodestoneCore
import LodestoneScheduler

/// Puts a scheduler into a motion state through its public inputs: a classifier decision for moving kinds; 10 s of
/// still samples with the classifier agreeing for stationary. Returns the time after.
@discardableResult
func settle(_ s: inout Scheduler, _ motion: CarrierMotion, at t0: Double) -> Double {
    if motion == .stationary {
        var stream = AccelerometerStream(seed: 4, noiseMps2: 0.02)
        s.observe(activity: .stationary, timeS: t0 + 0.5)
        drive(&s, from: t0, to: t0 + 10) { _ in stream.still() }
        return t0 + 10
    }
    s.observe(activity: motion, timeS: t0)
    _ = s.replanIfNeeded(timeS: t0)
    return t0
}

func walkingScheduler(
    _ demands: [Demand], battery: BatteryState = .externalPower,
    motion: CarrierMotion = .walk
) -> Scheduler {
    var s = TestBoard.scheduler(demands: demands, battery: battery)
    settle(&s, motion, at: 0)
    return s
}

@Suite struct AdaptivePolicyTests {
    static func location(
        _ a: DesiredAccuracy, filterM: Double? = nil, significant: Bool = false,
        foreground: Bool = true
    ) -> Demand {
        Demand(
            client: "app",
            location: LocationDemand(desiredAccuracy: a, distanceFilterM: filterM, significantChangeOnly: significant),
            foreground: foreground)
    }

    @Test func theFirstReplanAlwaysMakesGenerationOneAndAnUnchangedOneReportsNothing() {
        var s = TestBoard.scheduler(demands: [Self.location(.best)])
        let r2 = s.replanIfNeeded(timeS: 0)
        #expect(r2)
        #expect(s.plan.generation == 1)
        let r3 = s.replanIfNeeded(timeS: 0.5)
        #expect(!r3)
        let r4 = s.replanIfNeeded(timeS: 1.5)
        #expect(!r4)
        #expect(s.plan.generation == 1)
        #expect(s.policyName == "adaptive")
    }

    @Test func noDemandSuspendsEverySensorAndTheReceiver() {
        var s = TestBoard.scheduler(demands: [])
        let r5 = s.replanIfNeeded(timeS: 0)
        #expect(r5)
        #expect(s.plan.sensors.allSatisfy { !$0.enabled && $0.configuration.powerMode == .suspend && $0.readRateHz == 0 })
        #expect(s.plan.gnss?.mode == .off)
        #expect(s.plan.causes.contains(.noDemand(what: "location")))
        #expect(s.plan.causes.contains(.noDemand(what: "heading")))
        #expect(s.plan.causes.contains(.noDemand(what: "altitude")))
    }

    @Test func navigationMovingRunsTheIMUAtFullRateWithoutBatchingAndTheReceiverContinuously() {
        let s = walkingScheduler([Self.location(.bestForNavigation)])
        let imu = TestBoard.sensorPlan(s, "imu")
        #expect(imu.enabled && imu.configuration.rateHz == 100 && imu.configuration.powerMode == .normal)
        #expect(imu.fifoDepthSamples == 0 && imu.readRateHz == 100)
        #expect(s.plan.gnss?.mode == .continuous(rateHz: 1))
        #expect(!TestBoard.sensorPlan(s, "mag").enabled) // heading not demanded
        #expect(TestBoard.sensorPlan(s, "baro").configuration.rateHz == 1) // vertical aiding only
        #expect(s.plan.causes.contains(.demand(client: "app", what: "location for navigation")))
        #expect(s.plan.causes.contains(.motion(.walk, sinceS: 0)))
    }

    @Test func coarseTiersUsePowerSaveWithAPeriodFromTheAccuracyBudgetAndTheActivitysSpeed() {
        // 0.5 × accuracy / speed, rounded down to a step.
        let cases: [(DesiredAccuracy, CarrierMotion, GNSSReceiverMode)] = [
            (.nearestTenMeters, .walk, .powerSave(updatePeriodS: 3)), // 3.3 s
            (.nearestTenMeters, .drive, .continuous(rateHz: 1)), // 0.25 s
            (.hundredMeters, .walk, .powerSave(updatePeriodS: 30)), // 33 s
            (.hundredMeters, .run, .powerSave(updatePeriodS: 10)), // 14 s
            (.hundredMeters, .drive, .powerSave(updatePeriodS: 2)), // 2.5 s
            (.kilometer, .walk, .powerSave(updatePeriodS: 300)), // 333 s
            (.kilometer, .drive, .powerSave(updatePeriodS: 20)), // 25 s
            (.threeKilometers, .walk, .powerSave(updatePeriodS: 600)), // 1000 s, clamped
            (.best, .drive, .continuous(rateHz: 1))
        ]
        for (accuracy, motion, expected) in cases {
            let s = walkingScheduler([Self.location(accuracy)], motion: motion)
            #expect(s.plan.gnss?.mode == expected, "\(accuracy) \(motion)")
        }
    }

    @Test func aDistanceFilterLengthensThePeriodAndSignificantChangeAsksAFixPer500MetresOr5Minutes() {
        #expect(walkingScheduler([Self.location(.hundredMeters, filterM: 200)]).plan.gnss?.mode == .powerSave(updatePeriodS: 60))
        #expect(
            walkingScheduler([Self.location(.threeKilometers, significant: true)]).plan.gnss?.mode
                == .powerSave(updatePeriodS: 300))
        let s = walkingScheduler([Self.location(.threeKilometers, significant: true)], motion: .drive)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 300))
        #expect(s.plan.causes.contains(.demand(client: "app", what: "significant location changes")))
    }

    @Test func anUpdateIntervalIsThePowerSavePeriodWhereEveryLocationClientStatesOne() {
        // The fleet link (docs/fleet.md): background, 100 m (served as 1 km), one location per interval.
        func fleet(_ intervalS: Double, _ a: DesiredAccuracy = .hundredMeters) -> Demand {
            Demand(client: "mqtt", location: LocationDemand(desiredAccuracy: a, updateIntervalS: intervalS), foreground: false)
        }
        // Every 5 minutes: a fix every 300 s, driving too (the tier alone: 20 s driving).
        #expect(walkingScheduler([fleet(300)]).plan.gnss?.mode == .powerSave(updatePeriodS: 300))
        #expect(walkingScheduler([fleet(300)], motion: .drive).plan.gnss?.mode == .powerSave(updatePeriodS: 300))
        // Every second: a continuous receiver (the tier alone: 300 s walking).
        #expect(walkingScheduler([fleet(1)]).plan.gnss?.mode == .continuous(rateHz: 1))
        #expect(walkingScheduler([fleet(45)]).plan.gnss?.mode == .powerSave(updatePeriodS: 45))
        // Another client without an interval: its tier decides (100 m in the foreground, walking: 30 s).
        #expect(walkingScheduler([fleet(300), Self.location(.hundredMeters)]).plan.gnss?.mode == .powerSave(updatePeriodS: 30))
        #expect(walkingScheduler([fleet(300), fleet(60)]).plan.gnss?.mode == .powerSave(updatePeriodS: 60))
        // Navigation stays continuous; a distance filter still lengthens (0.5 × 2 000 m / 1.5 m/s → 600 s).
        #expect(walkingScheduler([fleet(300, .bestForNavigation)]).plan.gnss?.mode == .continuous(rateHz: 1))
        var filtered = fleet(60)
        filtered.location?.distanceFilterM = 2_000
        #expect(walkingScheduler([filtered]).plan.gnss?.mode == .powerSave(updatePeriodS: 600))
    }

    @Test func aBackgroundClientIsServedOneTierCoarser() {
        #expect(
            walkingScheduler([Self.location(.hundredMeters, foreground: false)]).plan.gnss?.mode
                == .powerSave(updatePeriodS: 300))
        // Navigation in the background is served as `best`: continuous, IMU at full rate (normal tiers).
        let nav = walkingScheduler([Self.location(.bestForNavigation, foreground: false)])
        #expect(nav.plan.gnss?.mode == .continuous(rateHz: 1))
        // `best` in the background is served as 10 m: power-save every 3 s walking, IMU at the activity rate.
        let best = walkingScheduler([Self.location(.best, foreground: false)])
        #expect(best.plan.gnss?.mode == .powerSave(updatePeriodS: 3))
        #expect(TestBoard.sensorPlan(best, "imu").configuration.rateHz == 25)
    }

    @Test func batteryTiersLowerServiceInStepsAndChargingLiftsThem() {
        func battery(_ level: Double, _ c: ChargingState = .discharging) -> BatteryState {
            BatteryState(levelFraction: level, charging: c, source: "test")
        }
        let demand = [Self.location(.hundredMeters), Demand(client: "compass", heading: HeadingDemand())]
        var s = walkingScheduler(demand, battery: battery(0.8))
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 30))
        #expect(TestBoard.sensorPlan(s, "mag").configuration.rateHz == 50)
        // Saver: location as normal.
        s.update(battery: battery(0.25), timeS: 1)
        let r6 = s.replanIfNeeded(timeS: 1)
        #expect(r6)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 30))
        #expect(s.plan.causes.contains(.battery(.saver)))
        // Low: one tier coarser, period doubled (1 km walking: 333 s × 2, clamped to 600), heading at 25 Hz.
        s.update(battery: battery(0.12), timeS: 2)
        let r7 = s.replanIfNeeded(timeS: 2)
        #expect(r7)
        #expect(s.inputs.tier == .low)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 600))
        #expect(TestBoard.sensorPlan(s, "mag").configuration.rateHz == 25)
        // Critical: significant changes only.
        s.update(battery: battery(0.04), timeS: 3)
        let r8 = s.replanIfNeeded(timeS: 3)
        #expect(r8)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 300))
        #expect(s.plan.causes.contains(.battery(.critical)))
        // Plugged in: full service at once.
        s.update(battery: battery(0.04, .charging), timeS: 4)
        let r9 = s.replanIfNeeded(timeS: 4)
        #expect(r9)
        #expect(s.inputs.tier == .unrestricted)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 30))
        #expect(!s.plan.causes.contains { if case .battery = $0 { true } else { false } })
    }

    @Test func stationaryPlanTurnsTheReceiverOffAndLeavesOnlyALowPowerAccelerometerWithWakeOnMotion() {
        var s = TestBoard.scheduler(demands: [Self.location(.best), Demand(client: "fit", activity: true)])
        settle(&s, .stationary, at: 0)
        #expect(s.inputs.motion == .stationary)
        #expect(s.plan.gnss?.mode == .off)
        let imu = TestBoard.sensorPlan(s, "imu")
        #expect(imu.enabled && imu.configuration.powerMode == .lowPower)
        #expect(imu.configuration.wakeOnMotionThresholdMps2 == 0.3)
        #expect(imu.configuration.rateHz == 25) // the classifier still works
        #expect(imu.fifoDepthSamples == 25 && imu.readRateHz == 1)
        #expect(!TestBoard.sensorPlan(s, "mag").enabled && !TestBoard.sensorPlan(s, "baro").enabled)

        // Without an activity client, 10 Hz; a chip without wake-on-motion is read every 0.2 s at most.
        var sensors = TestBoard.sensors
        sensors[0].hasMotionWake = false
        var t = Scheduler(
            sensors: sensors, receiver: TestBoard.receiver, policy: AdaptivePolicy(),
            demands: [Self.location(.hundredMeters)])
        settle(&t, .stationary, at: 0)
        let plain = t.plan.sensors[0]
        #expect(plain.configuration.rateHz == 10 && plain.configuration.powerMode == .lowPower)
        #expect(plain.configuration.wakeOnMotionThresholdMps2 == nil)
        #expect(plain.fifoDepthSamples == 2 && plain.readRateHz == 5)
    }

    /// The simulated board (MPU-9250 with its AK8963, an LIS3MDL, a BMP280) with one client wanting everything: at rest
    /// the compass runs on the low-power accelerometer and the dedicated magnetometer, and the sensors draw under
    /// half a milliampere as modelled (EnergyModel); moving, the dedicated magnetometer serves heading at full rate.
    @Test func aCompassAtRestOnTheSimulatedBoardDrawsUnderHalfAMilliampere() {
        let sensors = [
            PlannedSensor(
                id: "imu", chip: "mpu9250", kinds: [.accelerometer, .gyroscope, .magnetometer, .thermometer],
                maximumRateHz: 100, hasMotionWake: true, fifoCapacitySamples: 42),
            PlannedSensor(id: "mag", chip: "lis3mdl", kinds: [.magnetometer, .thermometer], maximumRateHz: 40),
            PlannedSensor(id: "baro", chip: "bmp280", kinds: [.barometer, .thermometer], maximumRateHz: 25)
        ]
        let everything = Demand(
            client: "app", location: LocationDemand(desiredAccuracy: .best), heading: HeadingDemand(),
            activity: true, altitude: true)
        var s = Scheduler(sensors: sensors, receiver: TestBoard.receiver, policy: AdaptivePolicy(), demands: [everything])
        s.observe(fix: fix(atTimeS: 0, speedMps: 0)) // it has had its first fix
        settle(&s, .stationary, at: 0)
        #expect(s.plan.gnss?.mode == .off)
        #expect(s.plan.sensors[0].configuration.powerMode == .lowPower)
        #expect(s.plan.sensors[1].enabled && s.plan.sensors[1].configuration.powerMode == .lowPower)
        #expect(s.plan.power.totalMilliAmp > 0 && s.plan.power.totalMilliAmp <= 0.5, "\(s.plan.power.totalMilliAmp) mA")

        var moving = Scheduler(sensors: sensors, receiver: TestBoard.receiver, policy: AdaptivePolicy(), demands: [everything])
        settle(&moving, .walk, at: 0)
        #expect(moving.plan.sensors[1].configuration.powerMode == .normal && moving.plan.sensors[1].configuration.rateHz == 40)
        #expect(moving.plan.sensors[0].configuration.powerMode == .normal)
    }

    @Test func headingActivityAndAltitudeEachWakeOnlyTheirSensors() {
        let heading = walkingScheduler([Demand(client: "compass", heading: HeadingDemand())])
        #expect(TestBoard.sensorPlan(heading, "mag").configuration.rateHz == 50)
        #expect(TestBoard.sensorPlan(heading, "imu").configuration.rateHz == 50)
        #expect(!TestBoard.sensorPlan(heading, "baro").enabled)
        #expect(heading.plan.gnss?.mode == .off)
        #expect(heading.plan.causes.contains(.noDemand(what: "location")))

        let activity = walkingScheduler([Demand(client: "fit", activity: true)])
        let imu = TestBoard.sensorPlan(activity, "imu")
        #expect(imu.configuration.rateHz == 25 && imu.configuration.fifo == .stream && imu.readRateHz == 1)
        #expect(!TestBoard.sensorPlan(activity, "mag").enabled && !TestBoard.sensorPlan(activity, "baro").enabled)

        var altitude = walkingScheduler([Demand(client: "hike", altitude: true)])
        let baro = TestBoard.sensorPlan(altitude, "baro")
        #expect(baro.configuration.rateHz == 10 && baro.configuration.oversampling == 16)
        settle(&altitude, .stationary, at: 1)
        #expect(TestBoard.sensorPlan(altitude, "baro").configuration.rateHz == 2)
        #expect(altitude.plan.causes.contains(.demand(client: "hike", what: "altitude")))
    }

    @Test func lostSignalBacksOffLongerEachTimeAndAFixResetsIt() {
        var s = TestBoard.scheduler(demands: [Self.location(.best)], firstFix: false)
        settle(&s, .walk, at: 0)
        var offPeriods: [Double] = []
        var offSinceS: Double?
        for k in 0..<1200 {
            let t = Double(k)
            _ = s.replanIfNeeded(timeS: t)
            let on = s.plan.gnss?.mode.isOn ?? false
            if !on, offSinceS == nil {
                offSinceS = t; #expect(s.plan.causes.contains { if case .gnssSignal = $0 { true } else { false } })
            }
            if on, let since = offSinceS { offPeriods.append(t - since); offSinceS = nil }
        }
        // No fix ever: 90 s to the first back-off (a cold start), then off 30, 60, 120, 240, 480 s…
        #expect(offPeriods.count >= 4)
        #expect(offPeriods.prefix(4) == [30, 60, 120, 240], "\(offPeriods)")
        // A fix while on resets the back-off.
        var r = TestBoard.scheduler(demands: [Self.location(.best)], firstFix: false)
        settle(&r, .walk, at: 0)
        for k in 0..<100 { _ = r.replanIfNeeded(timeS: Double(k)) } // backed off at 90 s
        #expect(r.plan.gnss?.mode == .off)
        for k in 100..<121 { _ = r.replanIfNeeded(timeS: Double(k)) } // back on at 120 s
        #expect(r.plan.gnss?.mode == .continuous(rateHz: 1))
        #expect(r.plan.causes.contains(.gnssSignal("retrying after signal loss")))
        r.observe(fix: fix(atTimeS: 122))
        let r99 = r.replanIfNeeded(timeS: 123)
        #expect(r99)
        #expect(!r.plan.causes.contains { if case .gnssSignal = $0 { true } else { false } })
        // Fixes stop at 122: off 45 s later, and the back-off starts again at 30 s.
        var offAtS: Double?, onAgainS: Double?
        for k in 124..<300 {
            _ = r.replanIfNeeded(timeS: Double(k))
            let on = r.plan.gnss?.mode.isOn ?? false
            if !on, offAtS == nil { offAtS = Double(k) }
            if on, offAtS != nil, onAgainS == nil { onAgainS = Double(k) }
        }
        #expect(offAtS == 167)
        #expect(onAgainS == 197)
    }

    @Test func aCoarseClientAtRestForHoursLetsTheEphemeridesExpire() {
        var s = TestBoard.scheduler(demands: [Self.location(.hundredMeters)])
        s.observe(fix: fix(atTimeS: 0))
        settle(&s, .stationary, at: 0)
        var stream = AccelerometerStream(seed: 1, noiseMps2: 0.01)
        var t = 10.0
        while t < 3 * 3600 {
            s.observe(accelerationMps2: stream.still(), timeS: t)
            _ = s.replanIfNeeded(timeS: t)
            #expect(s.plan.gnss?.mode == .off, "receiver on at \(t) s")
            if s.plan.gnss?.mode != .off { break }
            t += 1
        }
    }

    @Test func hoursStationaryWakeTheReceiverToRefreshItsEphemerides() {
        var s = TestBoard.scheduler(demands: [Self.location(.best)])
        s.observe(fix: fix(atTimeS: 0))
        settle(&s, .stationary, at: 0)
        #expect(s.plan.gnss?.mode == .off)
        var onAtS: Double?
        var t = 10.0
        var stream = AccelerometerStream(seed: 1, noiseMps2: 0.01)
        while t < 7201 {
            // A still sample a second keeps the stillness evidence fresh.
            s.observe(accelerationMps2: stream.still(), timeS: t)
            _ = s.replanIfNeeded(timeS: t)
            if onAtS == nil, s.plan.gnss?.mode.isOn == true { onAtS = t }
            t += 1
        }
        #expect(onAtS == 7200)
        #expect(s.inputs.motion == .stationary)
        #expect(s.plan.causes.contains(.gnssSignal("stationary 2 h without a fix: refreshing ephemerides (hot start on resume)")))
        // It stays on until 30 s after its first fix, then off again (and not again for 2 h).
        var offAtS: Double?
        t = 7201
        while t < 9000 {
            if t == 7205 { s.observe(fix: fix(atTimeS: 7205)) }
            s.observe(accelerationMps2: stream.still(), timeS: t)
            _ = s.replanIfNeeded(timeS: t)
            if offAtS == nil, s.plan.gnss?.mode == .off { offAtS = t }
            if offAtS != nil { #expect(s.plan.gnss?.mode == .off) }
            t += 1
        }
        #expect(offAtS == 7235)
    }

    /// Indoors no refresh finds a signal: the waits between attempts double (2 h, 4 h, then 8 h at most) instead of paying
    /// 90 s of acquisition every 2 h.
    @Test func refreshesThatFindNoSignalIndoorsWaitLongerEachTime() {
        var s = TestBoard.scheduler(demands: [Self.location(.best)])
        s.observe(fix: fix(atTimeS: 0))
        settle(&s, .stationary, at: 0)
        var stream = AccelerometerStream(seed: 3, noiseMps2: 0.01)
        var starts: [Double] = []
        var wasOn = false
        var t = 10.0
        while t < 26 * 3600 {
            s.observe(accelerationMps2: stream.still(), timeS: t)
            _ = s.replanIfNeeded(timeS: t)
            let on = s.plan.gnss?.mode.isOn ?? false
            if on && !wasOn { starts.append(t) }
            wasOn = on
            t += 1
        }
        // Attempts end after the 90 s window without a fix; the next comes 4 h, then 8 h, then 8 h after the last ended.
        #expect(starts.count == 4, "\(starts)")
        if starts.count == 4 {
            let hoursS = 3600.0, windowS = 90.0
            #expect(starts[0] == 2 * hoursS)
            #expect(starts[1] == starts[0] + windowS + 4 * hoursS)
            #expect(starts[2] == starts[1] + windowS + 8 * hoursS)
            #expect(starts[3] == starts[2] + windowS + 8 * hoursS)
        }
    }

    /// Walking into a building (fixes stop a minute before the carrier sits down): no refresh while it rests there.
    @Test func aCarrierThatComesToRestWithoutASignalGetsNoEphemerisRefresh() {
        var s = walkingScheduler([Self.location(.best)])
        s.observe(fix: fix(atTimeS: 0))
        var stream = AccelerometerStream(seed: 6)
        drive(&s, from: 0, to: 60) { t in stream.walking(timeS: t) } // indoors from 0 s: no more fixes
        #expect(s.plan.causes.contains(.gnssSignal("no fix: signal lost, receiver off, retrying later")))
        var t = 60.0
        s.observe(activity: .stationary, timeS: t)
        while t < 5 * 3600 {
            s.observe(accelerationMps2: stream.still(), timeS: t)
            _ = s.replanIfNeeded(timeS: t)
            if t > 90 { #expect(s.plan.gnss?.mode == .off, "receiver on at \(t) s") }
            if t > 90, s.plan.gnss?.mode != .off { break }
            t += 1
        }
    }

    @Test func aFailedReconfigurationKeepsTheRolledBackSettingForAWhileAndSaysSo() {
        var s = walkingScheduler([Self.location(.best)])
        let moving = TestBoard.sensorPlan(s, "imu")
        settle(&s, .stationary, at: 1)
        #expect(TestBoard.sensorPlan(s, "imu").configuration.powerMode == .lowPower)
        // The engine could not apply low power: it rolled the chip back to the moving setting.
        s.reportFailure(sensor: "imu", message: "NACK at 0x68 register 0x6B", timeS: 12)
        let r10 = s.replanIfNeeded(timeS: 12)
        #expect(r10)
        #expect(TestBoard.sensorPlan(s, "imu") == moving)
        #expect(s.plan.causes.contains(.failure(sensor: "imu", message: "NACK at 0x68 register 0x6B")))
        // Still avoided a minute later; tried again after the hold (300 s).
        var stream = AccelerometerStream(seed: 2, noiseMps2: 0.01)
        for k in 13..<313 {
            s.observe(accelerationMps2: stream.still(), timeS: Double(k))
            _ = s.replanIfNeeded(timeS: Double(k))
            if k == 72 { #expect(TestBoard.sensorPlan(s, "imu") == moving) }
        }
        #expect(TestBoard.sensorPlan(s, "imu").configuration.powerMode == .lowPower)
        // A receiver failure is held the same way; an unknown id is ignored.
        s.reportFailure(sensor: "nonexistent", message: "x", timeS: 313)
        let r11 = s.replanIfNeeded(timeS: 313.5)
        #expect(!r11)
    }

    @Test func aReceiverThatRefusesPowerSaveStaysAtItsRolledBackModeAndSaysSo() {
        var s = walkingScheduler([Self.location(.best)])
        #expect(s.plan.gnss?.mode == .continuous(rateHz: 1))
        s.update(battery: BatteryState(levelFraction: 0.8, charging: .discharging, source: "test"), timeS: 1)
        s.setDemands([Self.location(.hundredMeters)], timeS: 1)
        let changed = s.replanIfNeeded(timeS: 1)
        #expect(changed)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 30))
        s.reportFailure(sensor: "gnss", message: "no UBX-ACK-ACK for CFG-PM2", timeS: 2)
        let rolledBack = s.replanIfNeeded(timeS: 2)
        #expect(rolledBack)
        #expect(s.plan.gnss?.mode == .continuous(rateHz: 1))
        #expect(s.plan.causes.contains(.failure(sensor: "gnss", message: "no UBX-ACK-ACK for CFG-PM2")))
    }

    @Test func aPolicyPlansFromInputsOnItsOwn() {
        var policy = AdaptivePolicy()
        var plan = Plan(
            sensors: TestBoard.sensors.map {
                SensorPlan(id: $0.id, enabled: true, configuration: SensorConfiguration(), readRateHz: 0)
            },
            gnss: GNSSPlan(id: "gnss", mode: .continuous(rateHz: 1)))
        let inputs = SchedulerInputs(
            demand: CombinedDemand([Self.location(.kilometer)]), motion: .drive, gnss: GNSSQuality(lastFixTimeS: 9),
            timeS: 10, sensors: TestBoard.sensors, receiver: TestBoard.receiver, receiverOnSinceS: 0)
        policy.plan(inputs, into: &plan)
        #expect(plan.gnss?.mode == .powerSave(updatePeriodS: 20)) // 0.5 × 1000 m / 20 m/s = 25 s
        #expect(plan.sensors.map(\.enabled) == [true, false, false])
    }

    @Test func theMeasuredSpeedShortensThePeriodWhenTheActivityUnderstatesItAndIsForgottenSlowly() {
        // The classifier says walk, the receiver measures 20 m/s: served as a car (0.5 × 100 m / 20 m/s = 2.5 s).
        var s = walkingScheduler([Self.location(.hundredMeters)])
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 30))
        s.observe(fix: fix(atTimeS: 1, speedMps: 20))
        _ = s.replanIfNeeded(timeS: 1.5)
        #expect(s.plan.gnss?.mode == .powerSave(updatePeriodS: 2))
        // Back at walking speed the envelope decays (τ = 120 s): the period lengthens in a few steps, not at once,
        // and never flaps back.
        var periods: [Double] = []
        for k in 2..<1200 {
            if k % 30 == 0 { s.observe(fix: fix(atTimeS: Double(k), speedMps: 1.4)) }
            _ = s.replanIfNeeded(timeS: Double(k))
            if case .powerSave(let p) = s.plan.gnss?.mode, p != periods.last { periods.append(p) }
        }
        #expect(periods.last == 30)
        #expect(periods == periods.sorted(), "\(periods)")
        #expect(periods.count <= 10)
    }

    /// A client that asks for a location before the session's first fix gets one at once, at any tier and moving or
    /// not: the receiver runs continuously until the first fix, then the tier's plan applies.
    @Test func theFirstFixComesAtOnceAtEveryTier() {
        for (a, motion) in [(DesiredAccuracy.reduced, CarrierMotion.stationary), (.kilometer, .walk), (.hundredMeters, .drive)] {
            var s = TestBoard.scheduler(demands: [Self.location(a)], firstFix: false)
            let t = settle(&s, motion, at: 0)
            _ = s.replanIfNeeded(timeS: t)
            #expect(s.plan.gnss?.mode == .continuous(rateHz: 1), "\(a) \(motion)")
            #expect(s.plan.causes.contains(.policy("no fix yet: receiver on until the first one")), "\(a) \(motion)")
            var f = fix(atTimeS: t + 1)
            f.speedMps = nil
            s.observe(fix: f)
            _ = s.replanIfNeeded(timeS: t + 2)
            #expect(s.plan.gnss?.mode != .continuous(rateHz: 1), "\(a) \(motion): \(String(describing: s.plan.gnss?.mode))")
        }
        // A compass alone (the declination's coarse position) does not turn the receiver on for a first fix at rest.
        var compass = TestBoard.scheduler(demands: [Demand(client: "app", heading: HeadingDemand())], firstFix: false)
        let t = settle(&compass, .stationary, at: 0)
        _ = compass.replanIfNeeded(timeS: t)
        #expect(compass.plan.gnss?.mode == .off)
    }
}
