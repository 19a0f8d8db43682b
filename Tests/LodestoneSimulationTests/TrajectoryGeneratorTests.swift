import LodestoneCore
import LodestoneSimulation
import Testing

/// Helpers shared by the trajectory tests.
enum Truth {
    static let mixedDay = Scenario.named("mixed-day")!

    /// ENU displacement, m, from `a` to `b` (small separations: local radii at `a`).
    static func displacementENU(from a: TruthSample, to b: TruthSample) -> Vector3 {
        let latitudeRad = Angle.radians(fromDegrees: a.latitudeDeg)
        let m = Geodesy.meridianRadiusM(latitudeRad: latitudeRad) + a.heightM
        let n = (Geodesy.primeVerticalRadiusM(latitudeRad: latitudeRad) + a.heightM) * Double.cosForTests(latitudeRad)
        return Vector3(
            Angle.radians(fromDegrees: b.longitudeDeg - a.longitudeDeg) * n,
            Angle.radians(fromDegrees: b.latitudeDeg - a.latitudeDeg) * m,
            b.heightM - a.heightM)
    }

    static func allFinite(_ s: TruthSample) -> Bool {
        let vectors =
            [s.velocityENUMps, s.accelerationENUMps2, s.angularVelocityBoardRadS, s.specificForceBoardMps2]
            + [s.magneticFieldENUMicroTesla, s.magneticFieldBoardMicroTesla].compactMap { $0 }
        let scalars = [
            s.timeS, s.latitudeDeg, s.longitudeDeg, s.heightM, s.altitudeMSLM, s.gravityMps2, s.pressurePa,
            s.seaLevelPressurePa, s.temperatureC, s.boardToENU.w, s.boardToENU.x, s.boardToENU.y, s.boardToENU.z
        ]
        return scalars.allSatisfy(\.isFinite) && vectors.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
    }
}

extension Double {
    /// cos via the quaternion helpers' own dependency-free path (tests import no math module).
    static func cosForTests(_ x: Double) -> Double { Quaternion(axis: Vector3(0, 0, 1), angleRad: 2 * x).w }
}

@Suite struct TrajectoryGeneratorTests {
    @Test func integratingTheGyroReproducesTheAttitudeOverAMixedDay() {
        var generator = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 7)
        let rateHz = 100.0, dt = 1 / rateHz
        let steps = Int((Truth.mixedDay.totalDurationS + 10) * rateHz)
        let first = generator.sample(atTimeS: 0)
        var attitude = first.boardToENU
        var previousRate = first.angularVelocityBoardRadS
        var worstRad = 0.0
        for k in 1...steps {
            let s = generator.sample(atTimeS: Double(k) * dt)
            let rate = s.angularVelocityBoardRadS
            // Two-sample rotation vector with the coning correction (Bortz): ∫ω + (Δt²/12)·ω₁ × ω₂.
            let rotation = (previousRate + rate) * (dt / 2) + previousRate.cross(rate) * (dt * dt / 12)
            attitude = (attitude * Quaternion(rotationVector: rotation)).normalized
            previousRate = rate
            worstRad = max(worstRad, attitude.angularDistanceRad(to: s.boardToENU))
        }
        #expect(Angle.degrees(fromRadians: worstRad) < 0.5)
        #expect(Angle.degrees(fromRadians: worstRad) < 0.05, "worst \(Angle.degrees(fromRadians: worstRad))°")
    }

    @Test func finiteDifferencesMatchVelocityAccelerationAndAngularRate() {
        var generator = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 3)
        let h = 1e-3
        var t = 0.37
        var checked = 0
        while t < Truth.mixedDay.totalDurationS + 5 {
            let before = generator.sample(atTimeS: t - h)
            let now = generator.sample(atTimeS: t)
            let after = generator.sample(atTimeS: t + h)
            let velocity = Truth.displacementENU(from: before, to: after) / (2 * h)
            #expect((velocity - now.velocityENUMps).length < 2e-4, "velocity at t=\(t) \(now.segment)")
            let acceleration = (after.velocityENUMps - before.velocityENUMps) / (2 * h)
            #expect((acceleration - now.accelerationENUMps2).length < 5e-3, "acceleration at t=\(t) \(now.segment)")
            // The accelerometer truth is R⁻¹(a + γ·up): rotate back and remove gravity.
            let kinematic = now.boardToENU.rotate(now.specificForceBoardMps2) - Vector3(0, 0, now.gravityMps2)
            #expect((kinematic - now.accelerationENUMps2).length < 1e-9)
            // Angular rate from the attitude: q(t)* ⊗ q(t+h) ≈ exp(ω h / 2).
            let delta = now.boardToENU.conjugate * after.boardToENU
            let sign = delta.w < 0 ? -1.0 : 1.0
            let rate = Vector3(delta.x, delta.y, delta.z) * (2 * sign / h)
            let expected = (now.angularVelocityBoardRadS + after.angularVelocityBoardRadS) / 2
            #expect((rate - expected).length < 1e-4, "angular rate at t=\(t)")
            checked += 1
            t += 1.3
        }
        #expect(checked > 300)
    }

    @Test func accelerometerAtRestReadsGravityRotatedByTheMounting() {
        for name in ["stationary", "mixed-day", "walk", "drive"] {
            let scenario = Scenario.named(name)!
            var generator = TrajectoryGenerator(scenario: scenario, seed: 1)
            let s = generator.sample(atTimeS: 5) // every scenario starts at rest
            #expect(s.segment == .stationary && s.activity == .stationary)
            let expected = scenario.boardMounting.conjugate.rotate(Vector3(0, 0, s.gravityMps2))
            #expect((s.specificForceBoardMps2 - expected).length < 1e-9, "\(name)")
            #expect(s.angularVelocityBoardRadS.length < 1e-12)
            #expect(s.velocityENUMps.length < 1e-12)
            #expect(abs(s.gravityMps2 - 9.807) < 0.002) // Zürich, 47.4° N, 455 m
        }
        // Flat on the table: (0, 0, γ) exactly, whatever the heading.
        var table = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 9)
        let s = table.sample(atTimeS: 100)
        #expect(abs(s.specificForceBoardMps2.x) < 1e-12 && abs(s.specificForceBoardMps2.y) < 1e-12)
        #expect(abs(s.specificForceBoardMps2.z - s.gravityMps2) < 1e-12)
        #expect(abs(s.boardToENU.rollPitchHeadingDeg.headingDeg - 40) < 1e-9)
    }

    @Test func sameSeedSameTrajectoryWhateverTheSampleTimes() {
        var a = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 42)
        var b = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 42)
        var c = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 43)
        var jitter = SeededGenerator(seed: 5)
        var tb = 0.0
        for k in 0...400 {
            let t = Double(k)
            for sub in 1..<100 { _ = a.sample(atTimeS: t - 1 + Double(sub) / 100) } // 100 Hz
            while true { // variable rate
                let next = tb + jitter.uniform(in: 0.001...0.05)
                if next >= t { break }
                tb = next
                _ = b.sample(atTimeS: tb)
            }
            tb = t
            let sa = a.sample(atTimeS: t), sb = b.sample(atTimeS: t)
            #expect(sa == sb, "t=\(t)")
            if k == 200 { #expect(c.sample(atTimeS: t) != sa) }
        }
    }

    @Test func smallBackwardJitterNeedsNoRestartAndChangesNothing() {
        var a = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 8)
        _ = a.sample(atTimeS: 300.004)
        let stateBefore = a.state
        var fresh = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 8)
        #expect(a.sample(atTimeS: 299.993) == fresh.sample(atTimeS: 299.993)) // one grid step back
        #expect(a.state == stateBefore)
        var rest = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 8)
        _ = rest.sample(atTimeS: 3000.0)
        var fresh2 = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 8)
        #expect(rest.sample(atTimeS: 2999.995) == fresh2.sample(atTimeS: 2999.995))
    }

    @Test func anEarlierTimeRestartsTheIntegration() {
        var a = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 8)
        _ = a.sample(atTimeS: 300)
        var fresh = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 8)
        #expect(a.sample(atTimeS: 150.5) == fresh.sample(atTimeS: 150.5))
        #expect(a.state == fresh.state)
    }

    @Test func segmentLabelsFloorsAndHeights() {
        var g = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 2)
        let start = g.sample(atTimeS: 0)
        // Segment start times in mixed-day: 0 stationary, 20 walk ×3, 80 stairs up, 110 walk, 130 lift down,
        // 150 walk, 165 run, 205 cycle ×2, 265 drive ×4, 385 stationary, 415 hold.
        let expected: [(Double, SegmentKind, ActivityKind, Int)] = [
            (10, .stationary, .stationary, 0), (50, .walk, .walk, 0), (95, .stairsUp, .walk, 1),
            (120, .walk, .walk, 2), (140, .liftDown, .stationary, 1), (160, .walk, .walk, 0),
            (185, .run, .run, 0), (230, .cycle, .cycle, 0), (300, .drive, .drive, 0),
            (400, .stationary, .stationary, 0), (2000, .stationary, .stationary, 0)
        ]
        for (t, segment, activity, floor) in expected {
            let s = g.sample(atTimeS: t)
            #expect(s.segment == segment && s.activity == activity && s.floor == floor, "t=\(t): \(s.segment) \(s.floor)")
        }
        var h = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 2)
        let upstairs = h.sample(atTimeS: 111) // just after the stairs: 2 floors × 3 m up
        #expect(abs(upstairs.heightM - start.heightM - 6) < 0.1)
        #expect(upstairs.floor == 2)
        let afterLift = h.sample(atTimeS: 150.5)
        #expect(abs(afterLift.heightM - start.heightM) < 0.1)
        let rest = h.sample(atTimeS: 5000)
        #expect(rest.velocityENUMps.length < 1e-12 && rest.angularVelocityBoardRadS.length < 1e-12)
        #expect(!rest.gnssOutage)
    }

    @Test func outagesFollowTheScenario() {
        var g = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 2)
        #expect(!g.sample(atTimeS: 50).gnssOutage)
        #expect(g.sample(atTimeS: 100).gnssOutage) // stairwell
        #expect(g.sample(atTimeS: 140).gnssOutage) // lift
        #expect(!g.sample(atTimeS: 160).gnssOutage)
        #expect(!g.sample(atTimeS: 290).gnssOutage)
        #expect(g.sample(atTimeS: 315).gnssOutage) // tunnel 305–325 s
        #expect(!g.sample(atTimeS: 330).gnssOutage)
    }

    @Test func pressureFallsAboutTwelvePascalPerMetre() {
        let seaLevel = StandardAtmosphere.pressurePa(altitudeMSLM: 0) - StandardAtmosphere.pressurePa(altitudeMSLM: 1)
        #expect(abs(seaLevel - 12.0) < 0.1)
        #expect(StandardAtmosphere.pressurePa(altitudeMSLM: 0) == 101_325)
        var g = TrajectoryGenerator(scenario: Scenario.named("stairs-and-lift")!, seed: 4)
        let ground = g.sample(atTimeS: 24)
        let top = g.sample(atTimeS: 72) // 3 floors up
        let perMetre = (ground.pressurePa - top.pressurePa) / (top.heightM - ground.heightM)
        #expect(top.floor == 3)
        #expect(perMetre > 11.0 && perMetre < 12.5, "\(perMetre) Pa/m at \(ground.altitudeMSLM) m")
    }

    @Test func weatherDriftsAFewHectopascalPerDay() {
        let g = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 11)
        var largestRate = 0.0
        var low = Double.infinity, high = -Double.infinity
        for minute in 0..<(3 * 24 * 60) {
            let t = Double(minute) * 60
            let p = g.seaLevelPressurePa(atTimeS: t)
            low = min(low, p); high = max(high, p)
            let rate = abs(g.seaLevelPressurePa(atTimeS: t + 60) - p) * 24 * 60 // Pa/day
            largestRate = max(largestRate, rate)
        }
        #expect(largestRate > 100 && largestRate < 1500, "peak drift \(largestRate / 100) hPa/day")
        #expect(high - low > 50 && high - low < 2000)
        #expect(low > 95_000 && high < 106_000)
    }

    @Test func walkingAndRunningBounceAtTheirCadence() {
        func crossingsPerSecond(_ scenario: Scenario, from: Double, to: Double) -> Double {
            var g = TrajectoryGenerator(scenario: scenario, seed: 6)
            var previous = g.sample(atTimeS: from).accelerationENUMps2.z
            var crossings = 0
            var peak = 0.0
            var t = from
            while t < to {
                t += 0.005
                let a = g.sample(atTimeS: t).accelerationENUMps2.z
                if (a > 0) != (previous > 0) { crossings += 1 }
                peak = max(peak, abs(a))
                previous = a
            }
            return Double(crossings) / 2 / (to - from)
        }
        let walk = crossingsPerSecond(Truth.mixedDay, from: 25, to: 75)
        #expect(abs(walk - 1.8) < 0.15, "walk cadence \(walk) Hz")
        let run = crossingsPerSecond(Truth.mixedDay, from: 170, to: 200)
        #expect(abs(run - 2.8) < 0.2, "run cadence \(run) Hz")
    }

    @Test func liftMovesSmoothly() {
        // Lift down 130–150 s: doors 2 s at each end; the walking bounce has blended out by 131.5 s. What is
        // left at the doors is the lift's own 11 Hz / 28 Hz vibration (velocity amplitude < 0.5 mm/s).
        var g = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 2)
        var peakAcceleration = 0.0, peakSpeed = 0.0
        let doorsOpen = g.sample(atTimeS: 131.6)
        #expect(doorsOpen.velocityENUMps.length < 1e-3)
        var previousVertical = doorsOpen.velocityENUMps.z
        var t = 131.6
        while t < 148.4 {
            t += 0.01
            let s = g.sample(atTimeS: t)
            peakAcceleration = max(peakAcceleration, abs(s.accelerationENUMps2.z))
            peakSpeed = max(peakSpeed, abs(s.velocityENUMps.z))
            #expect(abs(s.velocityENUMps.z - previousVertical) < 0.02) // no jumps
            previousVertical = s.velocityENUMps.z
        }
        #expect(peakAcceleration > 0.3 && peakAcceleration < 1.5, "\(peakAcceleration)")
        #expect(peakSpeed > 0.3 && peakSpeed < 1.0, "\(peakSpeed)")
        #expect(g.sample(atTimeS: 148.4).velocityENUMps.length < 1e-3)
    }

    @Test func drivingTurnsHaveCentripetalAcceleration() {
        var g = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 2)
        // Drive segment 325–355 s turns −90° in the middle (≈ 336–344 s).
        var peakLateral = 0.0
        var t = 330.0
        while t < 350 {
            let s = g.sample(atTimeS: t)
            let v = Vector3(s.velocityENUMps.x, s.velocityENUMps.y, 0)
            let a = Vector3(s.accelerationENUMps2.x, s.accelerationENUMps2.y, 0)
            if let along = v.normalized { peakLateral = max(peakLateral, (a - along * a.dot(along)).length) }
            t += 0.05
        }
        #expect(peakLateral > 3 && peakLateral < 8, "\(peakLateral) m/s²")
    }

    @Test func magneticFieldIsTheWMMFieldRotatedIntoTheBoard() throws {
        var g = TrajectoryGenerator(scenario: Truth.mixedDay, seed: 2)
        let s = g.sample(atTimeS: 60)
        let enu = try #require(s.magneticFieldENUMicroTesla)
        let board = try #require(s.magneticFieldBoardMicroTesla)
        #expect((s.boardToENU.rotate(board) - enu).length < 1e-9)
        #expect(enu.length > 45 && enu.length < 51) // Zürich ≈ 48 µT, inclination ≈ 64°
        #expect(enu.z < -40)
        // Outside WMM2025's validity there is no field, and nothing else breaks.
        var old = Truth.mixedDay
        old.startDecimalYear = 2020
        var h = TrajectoryGenerator(scenario: old, seed: 2)
        let o = h.sample(atTimeS: 60)
        #expect(o.magneticFieldENUMicroTesla == nil && Truth.allFinite(o))
    }

    @Test func noNaNAnywhereOverLongRuns() {
        for scenario in Scenario.catalog {
            var g = TrajectoryGenerator(scenario: scenario, seed: 99)
            var t = 0.0
            var allFinite = true
            while t < scenario.totalDurationS * 2 + 30 {
                let s = g.sample(atTimeS: t)
                allFinite = allFinite && Truth.allFinite(s) && abs(s.boardToENU.norm - 1) < 1e-9
                t += 0.04
            }
            for far in [1e4, 1e6, 1e9, 1e12, Double.infinity, .nan, -5] {
                allFinite = allFinite && Truth.allFinite(g.sample(atTimeS: far))
            }
            #expect(allFinite, "\(scenario.name)")
        }
    }

    @Test func hostileScenariosStayFinite() {
        var s = Truth.mixedDay
        s.segments = [
            ScenarioSegment(.drive, durationS: .nan, speedMps: -3, headingChangeDeg: .infinity),
            ScenarioSegment(.liftUp, durationS: 0, floors: -2),
            ScenarioSegment(.stairsDown, durationS: 1, floors: 40)
        ]
        s.startLatitudeDeg = 91
        s.boardMounting = Quaternion(w: 0, x: 0, y: 0, z: 0)
        s.floorHeightM = -1
        var g = TrajectoryGenerator(scenario: s, seed: 0)
        var t = 0.0
        var ok = true
        while t < 30 { ok = ok && Truth.allFinite(g.sample(atTimeS: t)); t += 0.01 }
        #expect(ok)
        var empty = Truth.mixedDay
        empty.segments = []
        var e = TrajectoryGenerator(scenario: empty, seed: 0)
        #expect(e.sample(atTimeS: 10).segment == .stationary)
    }
}

@Suite struct ScenarioCatalogTests {
    @Test func catalogHoldsTheRequiredScenarios() {
        let names = Scenario.catalog.map(\.name)
        for required in ["mixed-day", "stationary", "walk", "drive", "stairs-and-lift"] {
            #expect(names.contains(required))
        }
        #expect(Set(names).count == names.count)
        #expect(Scenario.named(Scenario.defaultName) != nil)
        #expect(Scenario.named("no-such-scenario") == nil)
        for s in Scenario.catalog {
            #expect(s.totalDurationS > 0 && s.totalDurationS <= 600, "\(s.name)")
            #expect(abs(s.boardMounting.norm - 1) < 1e-12)
            #expect(!s.summary.isEmpty)
        }
    }

    @Test func mixedDayHasTheRequestedStructure() {
        let s = Truth.mixedDay
        let kinds = Set(s.segments.map(\.kind))
        #expect(kinds == [.stationary, .walk, .stairsUp, .liftDown, .run, .cycle, .drive])
        let drive = s.segments.filter { $0.kind == .drive }
        #expect(drive.reduce(0) { $0 + $1.durationS } == 120)
        #expect(drive.filter(\.gnssOutage).reduce(0) { $0 + $1.durationS } == 20)
        #expect(s.segments.first?.kind == .stationary && s.segments.last?.kind == .stationary)
    }

    @Test func segmentKindsMapToActivities() {
        #expect(SegmentKind.stairsUp.activity == .walk && SegmentKind.stairsDown.activity == .walk)
        #expect(SegmentKind.liftUp.activity == .stationary && SegmentKind.liftDown.activity == .stationary)
        #expect(SegmentKind.allCases.map(\.activity).allSatisfy { ActivityKind.allCases.contains($0) })
        #expect(ScenarioSegment(.walk, durationS: 1).targetSpeedMps == 1.4)
        #expect(ScenarioSegment(.run, durationS: 1).targetSpeedMps == 3.0)
        #expect(ScenarioSegment(.cycle, durationS: 1).targetSpeedMps == 5.5)
        #expect(ScenarioSegment(.drive, durationS: 1).targetSpeedMps == 13)
        #expect(ScenarioSegment(.liftUp, durationS: 1, speedMps: 4).targetSpeedMps == 0)
    }

    @Test func mountingAnglesFollowTheRollPitchHeadingConvention() {
        let q = Scenario.mounting(rollDeg: 5, pitchDeg: 30, yawDeg: 20)
        let (roll, pitch, heading) = q.rollPitchHeadingDeg
        #expect(abs(roll - 5) < 1e-9 && abs(pitch - 30) < 1e-9 && abs(heading - 20) < 1e-9)
    }
}
