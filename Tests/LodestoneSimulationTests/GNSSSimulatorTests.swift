import LodestoneCore
import LodestoneSimulation
import Testing

@Suite struct GNSSSimulatorTests {
    @Test func noFixesDuringOutagesAndReacquisitionAfter() {
        let scenario = Scenario.named("mixed-day")!
        var truth = TrajectoryGenerator(scenario: scenario, seed: 1)
        var gnss = GNSSSimulator(seed: 1)
        var fixes: [GNSSFix] = []
        var outageFixes = 0
        var lastOutageEnd: Double?
        var wasOut = false
        var firstFixAfterOutage: [Double] = []
        var t = 0.0
        while t <= scenario.totalDurationS {
            let s = truth.sample(atTimeS: t)
            let fix = gnss.fix(for: s)
            if s.gnssOutage {
                wasOut = true
                if fix != nil { outageFixes += 1 }
            } else {
                if wasOut { lastOutageEnd = t; wasOut = false }
                if let f = fix {
                    if let end = lastOutageEnd { firstFixAfterOutage.append(f.timeS - end); lastOutageEnd = nil }
                    fixes.append(f)
                }
            }
            t += 0.1
            t = (t * 10).rounded() / 10
        }
        #expect(outageFixes == 0)
        #expect(firstFixAfterOutage.count == 2) // after the building and after the tunnel
        #expect(firstFixAfterOutage.allSatisfy { $0 >= 1.5 && $0 <= 3.5 }, "\(firstFixAfterOutage)")
        // 1 Hz: consecutive fixes one second apart, at most one per epoch.
        let gaps = zip(fixes.dropFirst(), fixes).map { $0.timeS - $1.timeS }
        #expect(gaps.allSatisfy { $0 >= 0.99 })
        #expect(gaps.filter { abs($0 - 1) < 1e-6 }.count > 300)
        #expect(fixes.first.map { $0.fixMode == .twoDimensional && $0.satellitesUsed == 3 } == true)
        #expect(fixes.contains { $0.fixMode == .threeDimensional && $0.satellitesUsed >= 10 })
        #expect(fixes.allSatisfy { [$0.latitudeDeg, $0.longitudeDeg, $0.heightM, $0.speedMps].allSatisfy(\.isFinite) })
    }

    @Test func accuracyFiguresAreHonest() {
        // Ten simulated hours at rest: normalised errors (error / reported σ) have unit variance.
        var truth = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 2)
        var gnss = GNSSSimulator(seed: 2)
        var horizontal = 0.0, vertical = 0.0, count = 0.0, largest = 0.0
        for second in 0..<36_000 {
            let s = truth.sample(atTimeS: Double(second))
            guard let f = gnss.fix(for: s), f.fixMode == .threeDimensional else { continue }
            let latitudeRad = Angle.radians(fromDegrees: s.latitudeDeg)
            let north =
                Angle.radians(fromDegrees: f.latitudeDeg - s.latitudeDeg)
                * (Geodesy.meridianRadiusM(latitudeRad: latitudeRad) + s.heightM)
            let east =
                Angle.radians(fromDegrees: f.longitudeDeg - s.longitudeDeg)
                * (Geodesy.primeVerticalRadiusM(latitudeRad: latitudeRad) + s.heightM) * Double.cosForTests(latitudeRad)
            horizontal += (east * east + north * north) / (f.horizontalAccuracyM * f.horizontalAccuracyM)
            vertical += (f.heightM - s.heightM) * (f.heightM - s.heightM) / (f.verticalAccuracyM * f.verticalAccuracyM)
            largest = max(largest, (east * east + north * north).squareRoot())
            count += 1
        }
        #expect(count > 35_000)
        #expect(abs(horizontal / count - 1) < 0.3, "\(horizontal / count)")
        #expect(abs(vertical / count - 1) < 0.4, "\(vertical / count)")
        #expect(largest > 2 && largest < 20, "largest horizontal error \(largest) m")
    }

    @Test func sameSeedSameFixes() {
        var t1 = TrajectoryGenerator(scenario: Scenario.named("drive")!, seed: 3)
        var t2 = TrajectoryGenerator(scenario: Scenario.named("drive")!, seed: 3)
        var a = GNSSSimulator(seed: 10), b = GNSSSimulator(seed: 10), c = GNSSSimulator(seed: 11)
        var differs = false
        for second in 0..<200 {
            let s = t1.sample(atTimeS: Double(second))
            let fa = a.fix(for: s)
            #expect(fa == b.fix(for: t2.sample(atTimeS: Double(second))))
            if let fa, let fc = c.fix(for: s), fa != fc { differs = true }
        }
        #expect(differs)
    }

    @Test func courseAndSpeedFollowTheTruth() throws {
        var truth = TrajectoryGenerator(scenario: Scenario.named("drive")!, seed: 4)
        var gnss = GNSSSimulator(seed: 4)
        for second in 0..<60 { _ = gnss.fix(for: truth.sample(atTimeS: Double(second))) }
        let s = truth.sample(atTimeS: 60) // driving east at 13 m/s
        let maybeFix = gnss.fix(for: s)
        let f = try #require(maybeFix)
        #expect(abs(f.speedMps - 13) < 0.5)
        let course = try #require(f.courseDeg)
        #expect(abs(Angle.wrap180(course - 90)) < 3)
        var parked = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 4)
        var g2 = GNSSSimulator(seed: 4)
        var lastCourse: Double?? = .none
        for second in 0..<10 { if let f = g2.fix(for: parked.sample(atTimeS: Double(second))) { lastCourse = f.courseDeg } }
        #expect(lastCourse == .some(nil)) // no course at rest
    }
}

@Suite struct NoiseAndRandomTests {
    @Test func seededGeneratorIsDeterministicWithUnitGaussians() {
        var a = SeededGenerator(seed: 123), b = SeededGenerator(seed: 123), c = SeededGenerator(seed: 124)
        #expect((0..<10).map { _ in a.next() } == (0..<10).map { _ in b.next() })
        #expect(a.next() != c.next())
        var g = SeededGenerator(seed: 1)
        var sum = 0.0, sumSquares = 0.0
        let n = 200_000
        for _ in 0..<n {
            let x = g.gaussian()
            sum += x; sumSquares += x * x
        }
        #expect(abs(sum / Double(n)) < 0.01)
        #expect(abs(sumSquares / Double(n) - 1) < 0.02)
        var u = SeededGenerator(seed: 2)
        #expect(
            (0..<10_000).allSatisfy { _ in
                let x = u.uniform(); return x >= 0 && x < 1
            })
    }

    @Test func noisePresetsAreTheCitedDatasheetFigures() {
        let n = SensorNoise.consumerMEMS
        #expect(abs(n.accelerometer.noiseDensityMps2PerRootHz - 300e-6 * 9.80665) < 1e-12)
        #expect(abs(Angle.degrees(fromRadians: n.gyroscope.noiseDensityRadSPerRootHz) - 0.01) < 1e-12)
        #expect(n.barometer.noiseRMSPa == 1.3 && n.magnetometer.noiseRMSMicroTesla == 0.32)
        #expect(SensorNoise.none.gyroscope.turnOnBiasSigmaRadS == 0)
    }

    @Test func magneticDisturbanceAppliesSoftThenHardIron() {
        let field = Vector3(20, 0, -40)
        #expect(MagneticDisturbance.none.apply(toFieldBoardMicroTesla: field) == field)
        let d = MagneticDisturbance.typicalPhone
        #expect(d.apply(toFieldBoardMicroTesla: field) == d.softIron * field + d.hardIronMicroTesla)
        #expect(d.softIron == d.softIron.transposed)
    }

    /// Urban canyons (`urban-drive`): multipath episodes displace fixes by 15–60 m for 3–12 s while the
    /// accuracy figures stay those of open sky; outside canyons no fix is displaced.
    @Test func multipathEpisodesDisplaceFixesOnlyInUrbanCanyons() throws {
        let scenario = try #require(Scenario.named("urban-drive"))
        var truth = TrajectoryGenerator(scenario: scenario, seed: 3)
        var gnss = GNSSSimulator(seed: 3)
        var jumped: [(GNSSFix, TruthSample)] = []
        var outsideCanyonJumps = 0
        var t = 0.0
        while t <= scenario.totalDurationS {
            let s = truth.sample(atTimeS: t)
            if let f = gnss.fix(for: s) {
                if f.isMultipath {
                    if s.gnssMultipath { jumped.append((f, s)) } else { outsideCanyonJumps += 1 }
                }
            }
            t += 0.5
        }
        #expect(outsideCanyonJumps == 0)
        #expect(jumped.count >= 5)
        for (f, s) in jumped {
            let north = (f.latitudeDeg - s.latitudeDeg) * 111_200
            let east = (f.longitudeDeg - s.longitudeDeg) * 111_200 * 0.677 // cos 47.4°
            let displacement = (north * north + east * east).squareRoot()
            #expect(displacement > 8 && displacement < 75, "\(displacement) m")
            #expect(f.horizontalAccuracyM < 8) // the receiver does not know
        }
    }
}
