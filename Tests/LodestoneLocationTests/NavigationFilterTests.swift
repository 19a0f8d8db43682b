import Foundation
import LodestoneCore
import LodestoneLocation
import LodestoneSimulation
import Testing

/// Drives a `NavigationFilter` with the simulator's truth: the simulated receiver's fixes (1 Hz), an
/// accelerometer made from the true specific force (with a board-fixed bias and white noise) at 100 Hz with an
/// orientation (the truth, possibly disturbed), and a barometer from the true pressure at 25 Hz. Faster than the
/// full board (no register-level chips), so these tests can walk whole scenarios.
struct FilterRun {
    struct Epoch {
        var timeS: Double
        var truth: TruthSample
        var fix: GNSSFix?
        var location: Location?
        var update: NavigationFilter.Update

        var fusedErrorM: Double? {
            location.flatMap {
                Coordinate(latitudeDeg: truth.latitudeDeg, longitudeDeg: truth.longitudeDeg).distanceM(to: $0.coordinate)
            }
        }
        var receiverErrorM: Double? {
            fix.flatMap { f in
                Coordinate(latitudeDeg: truth.latitudeDeg, longitudeDeg: truth.longitudeDeg)
                    .distanceM(to: Coordinate(latitudeDeg: f.latitudeDeg, longitudeDeg: f.longitudeDeg))
            }
        }
        var isCovered: Bool? {
            guard let e = fusedErrorM, let l = location else { return nil }
            return e <= l.horizontalAccuracyM
        }
    }

    var scenario: String
    var seed: UInt64 = 1
    /// Feed the inertial sensors (with this orientation error about up, degrees).
    var inertial = false
    var headingErrorDeg = 0.0
    var barometer = true
    var parameters = NavigationFilter.Parameters.default
    /// Multiply the receiver's claimed accuracies by this.
    var claimScale = 1.0
    var durationS: Double?

    /// Runs and returns one epoch per second (at the receiver's epochs).
    func run() throws -> [Epoch] {
        let sc = try #require(Scenario.named(scenario))
        var generator = TrajectoryGenerator(scenario: sc, seed: seed)
        var gnss = GNSSSimulator(seed: seed)
        var filter = NavigationFilter(parameters: parameters)
        var noise = SeededGenerator(seed: seed ^ 0xF11)
        let biasBoard = Vector3(0.08, -0.05, 0.06)
        let error = Quaternion(axis: Vector3(0, 0, 1), angleRad: headingErrorDeg * Double.pi / 180)
        var epochs: [Epoch] = []
        let end = durationS ?? sc.totalDurationS + 5
        var step = 0
        while true {
            let t = Double(step) * 0.01
            if t > end { break }
            step += 1
            let truth = generator.sample(atTimeS: t)
            if inertial {
                let f =
                    truth.specificForceBoardMps2 + biasBoard
                    + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * 0.02
                filter.updateInertial(timeS: t, specificForceBoardMps2: f, boardToENU: error * truth.boardToENU)
            } else {
                filter.advance(toTimeS: t)
            }
            if barometer && step % 4 == 0 {
                filter.updateBarometer(timeS: t, pressurePa: truth.pressurePa + 30 + noise.gaussian() * 1.3)
            }
            guard let fix = gnss.fix(for: truth) else {
                if step % 100 == 0 {
                    epochs.append(Epoch(timeS: t, truth: truth, fix: nil, location: filter.location, update: []))
                }
                continue
            }
            var r = fix.receiverFix()
            r.horizontalAccuracyM = r.horizontalAccuracyM.map { $0 * claimScale }
            r.verticalAccuracyM = r.verticalAccuracyM.map { $0 * claimScale }
            let update = filter.update(fix: r)
            epochs.append(Epoch(timeS: t, truth: truth, fix: fix, location: filter.location, update: update))
        }
        return epochs
    }
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.isEmpty ? .nan : s[s.count / 2]
}

func fraction(_ flags: [Bool]) -> Double { Double(flags.filter { $0 }.count) / Double(max(flags.count, 1)) }

@Suite struct NavigationFilterTests {
    /// The target scenario with the receiver alone: the 30 s tunnel of `drive` is straight at 16 m/s,
    /// so holding the velocity ends within metres; the reported accuracy covers the truth at ≥ 90 % of fixes and
    /// at the end of the outage; and the accuracy grows monotonically through the outage.
    @Test func driveOutageWithTheReceiverAlone() throws {
        let epochs = try FilterRun(scenario: "drive").run()
        let atFixes = epochs.filter { $0.fix != nil }
        #expect(fraction(atFixes.compactMap(\.isCovered)) >= 0.9)
        let outage = epochs.filter { $0.truth.gnssOutage }
        #expect(outage.count >= 28)
        let last = try #require(outage.last)
        let error = try #require(last.fusedErrorM)
        #expect(error <= 15, "error at the end of the outage \(error) m")
        #expect(last.isCovered == true)
        let accuracies = outage.compactMap { $0.location?.horizontalAccuracyM }
        #expect(zip(accuracies, accuracies.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(last.location?.sourceInformation.method == .deadReckoning)
        #expect(last.location?.sinceFixS ?? 0 >= 25)
    }

    /// With the inertial sensors (truth orientation, a board-fixed accelerometer bias): the tunnel of
    /// `urban-drive` brakes from 16 to 9 m/s and curves 60°, which holding the velocity cannot follow; dead
    /// reckoning ends within tens of metres, covered by the reported accuracy.
    @Test func urbanDriveTunnelWithInertialDeadReckoning() throws {
        let inertial = try FilterRun(scenario: "urban-drive", inertial: true).run()
        let alone = try FilterRun(scenario: "urban-drive").run()
        let inertialEnd = try #require(inertial.last { $0.truth.gnssOutage })
        let aloneEnd = try #require(alone.last { $0.truth.gnssOutage })
        let inertialError = try #require(inertialEnd.fusedErrorM), aloneError = try #require(aloneEnd.fusedErrorM)
        #expect(inertialError < 40, "inertial \(inertialError) m")
        #expect(aloneError > 100, "receiver alone \(aloneError) m")
        #expect(inertialEnd.isCovered == true)
        #expect(aloneEnd.isCovered == true)
        #expect(fraction(inertial.filter { $0.fix != nil }.compactMap(\.isCovered)) >= 0.9)
    }

    /// Multipath jumps (15–60 m, while the receiver claims its usual 2 m) are rejected: the fused error at
    /// those fixes stays at the open-sky level.
    @Test func multipathJumpsAreRejected() throws {
        let epochs = try FilterRun(scenario: "urban-drive", inertial: true).run()
        let jumped = epochs.filter { $0.fix?.isMultipath == true }
        #expect(jumped.count >= 10)
        let receiver = median(jumped.compactMap(\.receiverErrorM))
        let fused = median(jumped.compactMap(\.fusedErrorM))
        #expect(receiver > 15)
        #expect(fused < 5, "fused \(fused) m vs receiver \(receiver) m")
        #expect(jumped.filter { $0.update.contains(.positionRejected) }.count >= jumped.count / 2)
    }

    /// Smoothing without lag: through the turns of `drive` (90° at 8 m/s, a 270° roundabout) the fused
    /// position is no further from the truth than the fixes, because the receiver's velocity turns it.
    @Test func turnsAreFollowedWithoutLag() throws {
        let epochs = try FilterRun(scenario: "drive").run()
        let turning = epochs.filter { $0.fix != nil && abs($0.truth.velocityENUMps.x) > 1 && abs($0.truth.velocityENUMps.y) > 1 }
        #expect(turning.count >= 20)
        #expect(median(turning.compactMap(\.fusedErrorM)) <= median(turning.compactMap(\.receiverErrorM)))
        #expect((turning.compactMap(\.fusedErrorM).max() ?? .infinity) < 8)
    }

    /// The barometer carries the height through the building of `mixed-day` (70 s without a fix, two floors
    /// up and down), and the vertical accuracy covers it.
    @Test func barometerCarriesTheHeightIndoors() throws {
        let epochs = try FilterRun(scenario: "mixed-day").run()
        let indoor = epochs.filter { $0.truth.gnssOutage && $0.timeS < 200 }
        #expect(indoor.count > 50)
        for e in indoor {
            let l = try #require(e.location)
            let h = try #require(l.ellipsoidalAltitudeM)
            #expect(abs(h - e.truth.heightM) < 3, "t=\(e.timeS): \(h) vs \(e.truth.heightM)")
            let accuracy = try #require(l.verticalAccuracyM)
            #expect(abs(h - e.truth.heightM) <= accuracy)
        }
        let noBarometer = try FilterRun(scenario: "mixed-day", barometer: false).run()
        let end = try #require(noBarometer.last { $0.truth.gnssOutage && $0.timeS < 200 })
        #expect((end.location?.verticalAccuracyM ?? 0) > 10)
    }

    @Test func locationCarriesEverythingCLLocationHas() throws {
        let epochs = try FilterRun(scenario: "drive", durationS: 120).run()
        let moving = try #require(epochs.last?.location)
        #expect(moving.speedMps.map { $0 > 5 } == true)
        #expect(moving.courseDeg != nil && moving.courseAccuracyDeg != nil && moving.speedAccuracyMps != nil)
        // The simulated receiver's geoid separation is 47.5 m.
        let msl = try #require(moving.altitudeMSLM), h = try #require(moving.ellipsoidalAltitudeM)
        #expect(abs(h - msl - 47.5) < 1e-6)
        #expect(moving.sourceInformation.isSimulatedBySoftware)
        #expect(moving.sourceInformation.method == .gnss)
        let resting = try #require(epochs.first { $0.timeS > 10 && $0.timeS < 14 }?.location)
        #expect(resting.courseDeg == nil) // at rest before the drive: no course
        #expect(resting.horizontalAccuracyM > 0 && resting.verticalAccuracyM != nil)
    }

    /// State is a value: a snapshot restored into a fresh filter continues bit for bit; it round-trips JSON.
    @Test func stateSnapshotsRestoreExactly() throws {
        var generator = TrajectoryGenerator(scenario: try #require(Scenario.named("drive")), seed: 4)
        var gnss = GNSSSimulator(seed: 4)
        var a = NavigationFilter()
        var fixes: [ReceiverFix] = []
        for second in 0..<120 {
            if let f = gnss.fix(for: generator.sample(atTimeS: Double(second))) { fixes.append(f.receiverFix()) }
        }
        for f in fixes.prefix(60) { a.update(fix: f) }
        let data = try JSONEncoder().encode(a.state)
        var b = NavigationFilter()
        b.restore(try JSONDecoder().decode(NavigationFilter.State.self, from: data))
        #expect(b.state == a.state)
        for f in fixes.dropFirst(60) { a.update(fix: f); b.update(fix: f) }
        #expect(a.state == b.state)
        #expect(a.location == b.location)
    }

    /// A power-save receiver asleep for 5 minutes while its carrier went from walking to driving: when the next fix comes,
    /// the dead reckoning is far off, farther than it claims (here: the fix is ten of its standard deviations away).
    /// That fix restarts the position and the velocity at once, not after 30 rejected fixes (2.5 hours at one a wake);
    /// the same jump a second after a used fix is still an outlier.
    @Test func aFixAfterALongSleepRestartsAStaleDeadReckoning() throws {
        let metresPerDegree = 111_320 * cos(47 * Double.pi / 180)
        func fix(_ t: Double, eastM: Double, speedMps: Double) -> ReceiverFix {
            var f = ReceiverFix(timeS: t, mode: .threeDimensional)
            f.latitudeDeg = 47
            f.longitudeDeg = 8 + eastM / metresPerDegree
            f.horizontalAccuracyM = 5
            f.speedMps = speedMps
            f.courseDeg = 90
            return f
        }
        func run(sleepS: Double) throws -> (update: NavigationFilter.Update, location: Location, fixEastM: Double) {
            var filter = NavigationFilter()
            // A minute's walk east at 1.4 m/s, a fix a second, the accelerometer at 10 Hz (level, gravity only); then
            // the receiver sleeps.
            let end = 60 + sleepS
            for k in 0..<Int((end * 10).rounded()) {
                let t = Double(k) / 10
                filter.updateInertial(timeS: t, specificForceBoardMps2: Vector3(0, 0, 9.81), boardToENU: .identity)
                if k % 10 == 0 && t <= 60 { filter.update(fix: fix(t, eastM: 1.4 * t, speedMps: 1.4)) }
            }
            filter.advance(toTimeS: end)
            let predictedEastM = (filter.state.originLongitudeRad * 180 / Double.pi - 8) * metresPerDegree + filter.state.east[0]
            let fixEastM = predictedEastM + 10 * filter.state.horizontalCovariance.storage[0].squareRoot() // the east variance
            let done = filter.update(fix: fix(end, eastM: fixEastM, speedMps: 15))
            let location = filter.location
            return (done, try #require(location), fixEastM)
        }
        let afterSleep = try run(sleepS: 300)
        #expect(
            afterSleep.update.contains(.restarted) && afterSleep.update.contains(.position)
                && afterSleep.update.contains(.velocity), "\(afterSleep.update)")
        let east = (afterSleep.location.coordinate.longitudeDeg - 8) * metresPerDegree
        #expect(
            abs(east - afterSleep.fixEastM) < 20 && afterSleep.location.horizontalAccuracyM < 30,
            "\(east) m east ±\(afterSleep.location.horizontalAccuracyM) m, the fix at \(afterSleep.fixEastM) m")
        #expect(abs((afterSleep.location.speedMps ?? 0) - 15) < 1, "\(String(describing: afterSleep.location.speedMps)) m/s")
        // The same jump a second after a used fix is an outlier.
        let afterASecond = try run(sleepS: 1)
        #expect(
            afterASecond.update.contains(.positionRejected) && !afterASecond.update.contains(.restarted),
            "\(afterASecond.update)")
    }

    /// A rest claim in a car is not taken (fault soak, 2026-11-29): a car cruising east at 14 m/s, fixes for a minute,
    /// then the receiver gone and the inertial sensor away for two minutes, so that the speed is poorly known. When the
    /// sensor comes back, smooth cruising reads as rest; the χ² gate alone would take the zero velocity (the speed's
    /// variance is large), and the position would then run off at 14 m/s with a small stated accuracy. A walker's rest
    /// claim after the same gap is still taken.
    @Test func aRestClaimWhileCruisingIsNotTakenAfterTheSpeedBecamePoorlyKnown() throws {
        let metresPerDegree = 111_320 * cos(47 * Double.pi / 180)
        func run(speedMps: Double) throws -> (taken: [Bool], gateAloneTakes: Bool, speedAfterMps: Double) {
            var filter = NavigationFilter()
            for k in 0...600 {
                let t = Double(k) / 10
                filter.updateInertial(timeS: t, specificForceBoardMps2: Vector3(0, 0, 9.81), boardToENU: .identity)
                if k % 10 == 0 {
                    var f = ReceiverFix(timeS: t, mode: .threeDimensional)
                    f.latitudeDeg = 47
                    f.longitudeDeg = 8 + speedMps * t / metresPerDegree
                    f.horizontalAccuracyM = 3
                    f.speedMps = speedMps
                    f.speedAccuracyMps = 0.2
                    f.courseDeg = 90
                    filter.update(fix: f)
                }
            }
            filter.advance(toTimeS: 180)
            let s = filter.state
            let speed2 = s.east[1] * s.east[1] + s.north[1] * s.north[1]
            let r = filter.parameters.restVelocitySigmaMps * filter.parameters.restVelocitySigmaMps
            let gateAloneTakes = speed2 <= filter.coefficients.gate2 * (s.horizontalCovariance.storage[9] + r)
            var taken: [Bool] = []
            for k in 1...20 {
                let t = 180 + Double(k) / 10
                filter.updateInertial(timeS: t, specificForceBoardMps2: Vector3(0, 0, 9.81), boardToENU: .identity)
                taken.append(filter.updateAtRest(timeS: t))
            }
            let after = filter.state
            return (taken, gateAloneTakes, (after.east[1] * after.east[1] + after.north[1] * after.north[1]).squareRoot())
        }
        let car = try run(speedMps: 14)
        #expect(car.gateAloneTakes, "the test needs a speed the gate alone would zero")
        #expect(!car.taken.contains(true))
        #expect(abs(car.speedAfterMps - 14) < 0.5, "\(car.speedAfterMps) m/s")
        let walker = try run(speedMps: 1.4)
        #expect(walker.taken.allSatisfy { $0 })
        #expect(walker.speedAfterMps < 0.05, "\(walker.speedAfterMps) m/s")
    }

    /// The vertical channel runs off (an upward acceleration error of 2 m/s² integrated through 10 minutes without a
    /// height): when heights come back, every one fails the gate, and after 30 s without a height used the channel
    /// restarts at the receiver's. Meanwhile the horizontal position stays right (its frame's scale ignores a height
    /// gone wrong).
    @Test func aVerticalChannelThatRanOffRestartsAtTheReceiversHeight() throws {
        var filter = NavigationFilter()
        func fix(_ t: Double) -> ReceiverFix {
            var f = ReceiverFix(timeS: t, mode: .threeDimensional)
            f.latitudeDeg = 47
            f.longitudeDeg = 8
            f.heightAboveEllipsoidM = 500
            f.horizontalAccuracyM = 5
            f.verticalAccuracyM = 8
            f.speedMps = 0
            f.courseDeg = 0
            f.climbMps = 0
            return f
        }
        var restartedAtS: Double?
        for k in 0..<(60 + 600 + 60) * 10 {
            let t = Double(k) / 10
            let outage = t > 60 && t < 660
            filter.updateInertial(timeS: t, specificForceBoardMps2: Vector3(0, 0, outage ? 11.81 : 9.81), boardToENU: .identity)
            guard k % 10 == 0, !outage else { continue }
            let done = filter.update(fix: fix(t))
            if t >= 660 && restartedAtS == nil && done.contains(.heightRestarted) { restartedAtS = t }
        }
        let restart = try #require(restartedAtS, "the height never restarted")
        #expect(restart <= 660 + 31, "restarted at \(restart) s")
        let location = filter.location
        let l = try #require(location)
        #expect(abs(try #require(l.ellipsoidalAltitudeM) - 500) < 20, "\(String(describing: l.ellipsoidalAltitudeM))")
        let offsetM = try #require(l.coordinate.distanceM(to: Coordinate(latitudeDeg: 47, longitudeDeg: 8)))
        #expect(offsetM < 20, "\(offsetM) m off")
    }

    /// Bad input never poisons the state: fixes without a position, with NaN or out-of-range coordinates,
    /// and NaN pressures are ignored; a 2D fix updates the horizontal position only.
    @Test func badInputIsIgnored() {
        var filter = NavigationFilter()
        #expect(filter.update(fix: ReceiverFix(timeS: 0, mode: .noFix)) == .noPosition)
        var nan = ReceiverFix(timeS: 1, mode: .threeDimensional)
        nan.latitudeDeg = .nan
        nan.longitudeDeg = 8
        #expect(filter.update(fix: nan) == .noPosition)
        var wild = ReceiverFix(timeS: 1, mode: .threeDimensional)
        wild.latitudeDeg = 95
        wild.longitudeDeg = 8
        #expect(filter.update(fix: wild) == .noPosition)
        let location = filter.location
        #expect(location == nil)
        var flat = ReceiverFix(timeS: 2, mode: .twoDimensional)
        flat.latitudeDeg = 47
        flat.longitudeDeg = 8
        flat.heightAboveEllipsoidM = 9999
        let done = filter.update(fix: flat)
        #expect(done.contains(.initialized) && done.contains(.position) && !done.contains(.height))
        filter.updateBarometer(timeS: 3, pressurePa: .nan)
        filter.updateInertial(timeS: 3.01, specificForceBoardMps2: Vector3(.nan, 0, 9.8), boardToENU: .identity)
        let l = filter.location
        #expect(l != nil && l?.ellipsoidalAltitudeM == nil)
        #expect(l.map { $0.coordinate.latitudeDeg.isFinite && $0.horizontalAccuracyM.isFinite } == true)
    }

    @Test func parametersAreSanitised() {
        var p = NavigationFilter.Parameters()
        p.confidence = 2
        p.unaidedAccelerationPSD = -1
        p.receiverErrorCorrelationTimeS = .nan
        p.maximumConsecutiveOutliers = -3
        let f = NavigationFilter(parameters: p)
        #expect(f.parameters.confidence == 0.95)
        #expect(f.parameters.unaidedAccelerationPSD == NavigationFilter.Parameters.default.unaidedAccelerationPSD)
        #expect(f.parameters.receiverErrorCorrelationTimeS == 60)
        #expect(f.parameters.maximumConsecutiveOutliers == 1)
        // 95 %: 2.4477 σ for the circle, 1.95996 σ for an interval; gates at 0.1 %.
        #expect(abs(f.coefficients.horizontalRadiusPerSigma - 2.447_746_830_680_816) < 1e-12)
        #expect(abs(f.coefficients.intervalPerSigma - 1.959_963_984_540_054) < 1e-9)
        #expect(abs(f.coefficients.gate2 - 13.815_510_557_964_274) < 1e-9)
        #expect(abs(f.coefficients.gate1 - 10.827_566_170_662_733) < 1e-6)
    }
}
