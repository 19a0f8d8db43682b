import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneScheduler
import Testing

@Suite struct SignificantChangeTests {
    @Test func aDriveGivesAnEventEvery500MetresAtMostEveryFiveMinutes() {
        var detector = SignificantChangeDetector()
        var times: [Double] = []
        var lastEvent: Location?
        // An hour at speeds that change every 10 minutes (walk 1.4, drive 20, stop, cycle 5).
        var position = zurich
        for t in 0..<3_600 {
            let speed = [1.4, 20, 0, 5, 20, 1.4][t / 600]
            position = offset(position, distanceM: speed, azimuthDeg: 45)
            let location = fix(position, timeS: Double(t), accuracyM: 4, speedMps: speed)
            if let c = detector.update(location) {
                if let previous = lastEvent {
                    #expect(location.timeS - previous.timeS >= 300)
                    #expect(c.distanceM! >= 500)
                }
                times.append(location.timeS); lastEvent = location
            } else if let previous = lastEvent {
                // No event missed: whenever 500 m and 5 minutes have passed, the event is there.
                let moved = location.coordinate.distanceM(to: previous.coordinate)!
                #expect(!(moved >= 500 && location.timeS - previous.timeS >= 300))
            }
        }
        #expect(times.first == 0)
        #expect(times.count >= 8)
    }

    /// A power-save receiver with a fix every 300 s whose fixes land a moment early, and the fused location between
    /// them (every second, too inaccurate to count): each change is reported as the 5 minutes end, with the fix that
    /// made it, not 5 minutes later at the next fix.
    @Test func aFixJustBeforeTheIntervalEndsIsReportedWhenItEnds() {
        var detector = SignificantChangeDetector()
        var changes: [SignificantChangeDetector.Change] = []
        for t in 0...1_300 {
            let timeS = Double(t)
            let here = offset(zurich, distanceM: 15 * timeS, azimuthDeg: 90)
            // Fixes at 0, 299.6, 599.2, … (each 0.4 s early); between them the fused location drifts off in accuracy.
            let fixTimes = (0...4).map { 299.6 * Double($0) }
            let location: Location
            if let f = fixTimes.first(where: { $0 > timeS - 1 && $0 <= timeS }) {
                location = fix(offset(zurich, distanceM: 15 * f, azimuthDeg: 90), timeS: f)
            } else {
                location = fix(here, timeS: timeS, accuracyM: 250)
            }
            if let c = detector.update(location) { changes.append(c) }
        }
        let fixTimes = changes.dropFirst().map(\.location.timeS)
        #expect(
            fixTimes.count == 4 && zip(fixTimes, [299.6, 599.2, 898.8, 1_198.4]).allSatisfy { abs($0 - $1) < 1e-6 }, "\(changes)")
        // Each within 3 s of its fix (the fix's own time is a moment before the update that carried it).
        #expect(changes.allSatisfy { $0.timeS - $0.location.timeS <= 3 }, "\(changes.map(\.timeS))")
        for (a, b) in zip(changes, changes.dropFirst()) { #expect(b.timeS - a.timeS >= 300) }
        #expect(changes.dropFirst().allSatisfy { ($0.distanceM ?? 0) >= 500 })
    }

    /// A held location is dropped when an accurate one comes back within 500 m: no change is reported for a trip that
    /// returned before the interval ended.
    @Test func aTripThatReturnsWithinTheIntervalIsNoChange() {
        var detector = SignificantChangeDetector()
        #expect(detector.update(fix(zurich, timeS: 0)) != nil)
        #expect(detector.update(fix(offset(zurich, distanceM: 900, azimuthDeg: 0), timeS: 120)) == nil)
        #expect(detector.heldLocation != nil)
        #expect(detector.update(fix(offset(zurich, distanceM: 100, azimuthDeg: 0), timeS: 240)) == nil)
        #expect(detector.heldLocation == nil)
        #expect(detector.update(fix(offset(zurich, distanceM: 150, azimuthDeg: 0), timeS: 400)) == nil)
        // An inaccurate location cannot make one either, nor drop a held one.
        #expect(detector.update(fix(offset(zurich, distanceM: 700, azimuthDeg: 0), timeS: 500)) != nil)
        #expect(detector.update(fix(offset(zurich, distanceM: 1_400, azimuthDeg: 0), timeS: 600)) == nil)
        #expect(
            detector.update(fix(offset(zurich, distanceM: 0, azimuthDeg: 0), timeS: 810, accuracyM: 900))?.location.timeS == 600)
    }

    @Test func aWalkOf400MetresAndAPoorFixAreNoChange() {
        var detector = SignificantChangeDetector()
        #expect(detector.update(fix(zurich, timeS: 0)) != nil)
        #expect(detector.update(fix(offset(zurich, distanceM: 400, azimuthDeg: 0), timeS: 1_000)) == nil)
        #expect(detector.update(fix(offset(zurich, distanceM: 2_000, azimuthDeg: 0), timeS: 1_100, accuracyM: 900)) == nil)
        #expect(detector.update(fix(offset(zurich, distanceM: 520, azimuthDeg: 0), timeS: 1_200))?.distanceM ?? 0 > 500)
    }
}

@Suite struct VisitTests {
    /// A synthetic day: the carrier goes at `speedMps` along `azimuthDeg` for `durationS`, fixes at 1 Hz with a few
    /// metres of noise (none while `indoors`), activity `activity`.
    struct Leg {
        var durationS: Double
        var speedMps: Double
        var activity: MotionActivity.Kind
        var indoors = false
        var azimuthDeg = 60.0
    }

    func run(_ legs: [Leg], seed: UInt64 = 1) -> [VisitEvent] {
        var detector = VisitDetector()
        var rng = SplitMix(seed: seed)
        var position = zurich
        var t = 0.0
        var out: [VisitEvent] = []
        for leg in legs {
            let end = t + leg.durationS
            while t < end {
                position = offset(position, distanceM: leg.speedMps, azimuthDeg: leg.azimuthDeg)
                if let e = detector.update(activity: leg.activity, timeS: t) { out.append(e) }
                if leg.indoors {
                    if let e = detector.advance(toTimeS: t) { out.append(e) }
                } else {
                    let noisy = offset(
                        position, distanceM: Double.random(in: 0...4, using: &rng),
                        azimuthDeg: Double.random(in: -180...180, using: &rng))
                    let speed = max(0, leg.speedMps + Double.random(in: -0.2...0.2, using: &rng))
                    if let e = detector.update(fix(noisy, timeS: t, accuracyM: 4, speedMps: speed)) { out.append(e) }
                }
                t += 1
            }
        }
        return out
    }

    @Test func aStayOfTwelveMinutesIsFoundWithItsArrivalAndDeparture() throws {
        let e = run([
            Leg(durationS: 300, speedMps: 1.4, activity: .walk),
            Leg(durationS: 720, speedMps: 0, activity: .stationary),
            Leg(durationS: 300, speedMps: 1.4, activity: .walk, azimuthDeg: 200)
        ])
        #expect(e.count == 2)
        guard case .arrival(let a)? = e.first, case .departure(let d)? = e.last else {
            Issue.record("expected an arrival and a departure, got \(e)"); return
        }
        // The stop is at 300–1020 s; the place is entered (100 m) at about 230 s and left at about 1090 s.
        #expect(abs(a.arrivalS - 300) <= 120)
        #expect(a.departureS == nil && a.arrivedBy == .walk)
        #expect(abs(try #require(d.departureS) - 1_020) <= 120)
        #expect(abs(d.dwellS - 720) <= 240)
        #expect(a.horizontalAccuracyM <= 5)
    }

    @Test func stopsInTrafficMakeNoVisit() {
        // Half an hour of driving with stops of 40 s to 4 minutes, the activity automotive throughout.
        var legs: [Leg] = []
        for stopS in [40.0, 90, 240, 60, 180] {
            legs.append(Leg(durationS: 240, speedMps: 12, activity: .drive))
            legs.append(Leg(durationS: stopS, speedMps: 0, activity: .drive))
        }
        #expect(run(legs).isEmpty)
    }

    @Test func aShortStopOnFootIsNoVisit() {
        let e = run([
            Leg(durationS: 200, speedMps: 1.4, activity: .walk),
            Leg(durationS: 200, speedMps: 0, activity: .stationary),
            Leg(durationS: 300, speedMps: 1.4, activity: .walk)
        ])
        #expect(e.isEmpty)
    }

    @Test func anIndoorStayWithoutFixesIsFoundFromTheLastFixAtTheDoor() throws {
        let e = run([
            Leg(durationS: 400, speedMps: 1.4, activity: .walk),
            Leg(durationS: 30, speedMps: 1.0, activity: .walk, indoors: true),
            Leg(durationS: 1_800, speedMps: 0, activity: .stationary, indoors: true),
            Leg(durationS: 30, speedMps: 1.0, activity: .walk, indoors: true, azimuthDeg: 240),
            Leg(durationS: 300, speedMps: 1.4, activity: .walk, azimuthDeg: 240)
        ])
        #expect(e.count == 2)
        guard case .arrival(let a)? = e.first, case .departure(let d)? = e.last else {
            Issue.record("expected an arrival and a departure, got \(e)"); return
        }
        #expect(abs(a.arrivalS - 400) <= 120)
        #expect(abs(try #require(d.departureS) - 2_260) <= 120)
        #expect(d.fromCoordinate == nil)
    }
}

extension VisitTests {
    @Test func leavingAnIndoorStayWithoutFixesDepartsWhenTheCarrierStoppedBeingStill() throws {
        // A shop: fixes stop at the door, 15 minutes still inside, out by car; the receiver's first fix after that is
        // already 300 m away. The departure is the last stationary activity, not the last fix at the door.
        let e = run([
            Leg(durationS: 300, speedMps: 1.4, activity: .walk),
            Leg(durationS: 900, speedMps: 0, activity: .stationary, indoors: true),
            Leg(durationS: 40, speedMps: 10, activity: .drive, indoors: true),
            Leg(durationS: 200, speedMps: 12, activity: .drive)
        ])
        guard case .departure(let d)? = e.last else { Issue.record("no departure in \(e)"); return }
        #expect(abs(try #require(d.departureS) - 1_199) <= 2)
        #expect(abs(d.arrivalS - 300) <= 120)
    }
}

@Suite struct MonitoringDemandTests {
    @Test func farAndSlowAsksForRareCoarseFixesAndNearForDenseFineOnes() throws {
        // 1 km is as far as the runtime looks (`RegionMonitor.boundaryHorizonM`); it is planned as 905 m (10 × √2¹³).
        let far = MonitoringDemand.demand(nearestBoundaryM: 1_000, speedMps: 1.3, activity: .walk)
        let near = MonitoringDemand.demand(nearestBoundaryM: 50, speedMps: 1.3, activity: .walk)
        let driving = MonitoringDemand.demand(nearestBoundaryM: 1_000, speedMps: 25, activity: .drive)
        let planned = 640 * 2.0.squareRoot()
        #expect(abs(try #require(far.fixIntervalS) - planned / 5) < 1e-9) // half of 905 m at walking's fastest 2.5 m/s
        #expect(abs(try #require(near.fixIntervalS) - 8) < 1e-9) // half of 40 m at 2.5 m/s
        #expect(abs(try #require(driving.fixIntervalS) - planned / 80) < 1e-9) // at driving's fastest 40 m/s
        #expect(far.desiredAccuracy == .hundredMeters && near.desiredAccuracy == .nearestTenMeters)
        #expect(abs(try #require(far.locationDemand?.distanceFilterM) - planned / 2) < 1e-9)
        // A measured speed above the activity's fastest counts, rounded up: 50 m/s → 64 m/s (√2¹²).
        let fast = MonitoringDemand.demand(nearestBoundaryM: 1_000, speedMps: 50, activity: .drive)
        #expect(abs(try #require(fast.fixIntervalS) - planned / 128) < 1e-9)
    }

    /// The steps of the ladders: never above the distance (a fix is never planned late), never below its 1/√2; the speed
    /// never below the measured one.
    @Test func distanceAndSpeedAreRoundedToTheSafeSide() {
        for d in stride(from: 0.0, through: 3_000, by: 0.7) {
            let q = MonitoringDemand.quantizedDistanceM(d)
            #expect(q <= d && (d < 10 ? d - q < 1 : q >= d / 2.0.squareRoot() - 1e-9), "\(d) → \(q)")
        }
        for v in stride(from: 0.0, through: 300, by: 0.13) {
            let q = MonitoringDemand.quantizedSpeedMps(v)
            #expect(q >= v && (v <= 1 || q <= v * 2.0.squareRoot() + 1e-9), "\(v) → \(q)")
        }
        #expect(MonitoringDemand.quantizedSpeedMps(.nan) == 0 && MonitoringDemand.quantizedDistanceM(.nan) == 0)
    }

    /// Walking straight at a boundary from 1 km: the demand, derived every 5 s, changes once per step of the ladder
    /// (about 13 times), not at every derivation (about 140).
    @Test func theDemandChangesOnlyWhenTheDistanceCrossesAStep() {
        var changes = 0
        var previous: LocationDemand?
        for k in 0..<143 {
            let d = 1_000 - 7 * Double(k)
            let demand = MonitoringDemand.demand(nearestBoundaryM: d, speedMps: 1.4, activity: .walk).locationDemand
            if demand != previous { changes += 1 }
            previous = demand
        }
        #expect(changes <= 16, "\(changes) changes")
    }

    @Test func atRestNoFixIsNeededAndWithoutConditionsNoDemand() {
        #expect(MonitoringDemand.demand(nearestBoundaryM: 10, speedMps: 0, activity: .stationary).fixIntervalS == nil)
        #expect(MonitoringDemand.demand(nearestBoundaryM: 10, speedMps: 0, activity: .stationary).locationDemand != nil)
        #expect(MonitoringDemand.demand(nearestBoundaryM: nil, speedMps: 3, activity: .walk).locationDemand == nil)
    }

    @Test func theIntervalNeverGrowsAsTheBoundaryNears() {
        var previous = Double.infinity
        for d in stride(from: 10_000.0, through: 0, by: -37) {
            let interval = MonitoringDemand.demand(nearestBoundaryM: d, speedMps: 10, activity: .cycle).fixIntervalS!
            #expect(interval <= previous)
            #expect(d / 12 >= interval || interval == 1) // it can't cross before the next fix (12 m/s the fastest)
            previous = interval
        }
    }
}
