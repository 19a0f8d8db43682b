import Foundation
import LodestoneCore
import LodestoneSimulation
import Testing
@testable import LodestoneMotion

@Suite struct BarometricAltitudeTests {
    /// ISO 2533:1975 / ICAO Doc 7488 standard atmosphere table: pressure at geopotential altitude (p₀ = 101 325 Pa).
    @Test(arguments: [
        (0.0, 101_325.0), (1000, 89_874.6), (2000, 79_495.2), (3000, 70_108.5), (5000, 54_019.9),
        (11_000, 22_632.1)
    ])
    func altitudeMatchesTheStandardAtmosphereTable(altitudeM: Double, pressurePa: Double) {
        #expect(abs(StandardAtmosphere.altitudeM(pressurePa: pressurePa) - altitudeM) < 0.5)
    }

    @Test func seaLevelPressureInvertsTheAltitude() {
        for qnh in [98_000.0, 101_325, 104_000] {
            for h in [-200.0, 0, 408, 2500] {
                // Pressure at h for this QNH, by bisection on altitudeM (an independent inverse).
                var lo = 50_000.0, hi = 120_000.0
                for _ in 0..<200 {
                    let mid = (lo + hi) / 2
                    if StandardAtmosphere.altitudeM(pressurePa: mid, seaLevelPressurePa: qnh) > h { lo = mid } else { hi = mid }
                }
                #expect(abs(StandardAtmosphere.seaLevelPressurePa(pressurePa: lo, altitudeM: h) - qnh) < 0.01)
            }
        }
    }

    @Test func metresPerPascalIsTheDerivative() {
        for p in [80_000.0, 95_000, 101_325] {
            let numeric = (StandardAtmosphere.altitudeM(pressurePa: p + 0.5) - StandardAtmosphere.altitudeM(pressurePa: p - 0.5))
            #expect(abs(StandardAtmosphere.metresPerPascal(pressurePa: p) - numeric) < 1e-6)
        }
        #expect(abs(StandardAtmosphere.metresPerPascal(pressurePa: 101_325) + 0.0833) < 0.001)
    }

    @Test func pressuresOutsideTheTroposphereAreClampedNotNaN() {
        for p in [0.0, -5, 1e9, 1] { #expect(StandardAtmosphere.altitudeM(pressurePa: p).isFinite) }
    }
}

@Suite struct AltitudeFilterTests {
    /// Feeds the filter a pressure track (Pa) at 25 Hz with an accelerometer at rest at 100 Hz.
    func feed(_ f: inout AltitudeFilter, from t0: Double, to t1: Double, pressure: (Double) -> Double) {
        var t = t0
        var tick = 0
        while t < t1 {
            f.addAcceleration(specificForceBoardMps2: Vector3(0, 0, 9.81), boardToENU: nil, timeS: t)
            if tick % 4 == 0 { f.addPressure(pressure(t), timeS: t) }
            tick += 1
            t = t0 + Double(tick) / 100
        }
    }

    @Test func aSteadyPressureGivesTheISAAltitudeAndNoClimb() {
        var f = AltitudeFilter()
        let p = StandardAtmosphere.pressurePa(altitudeMSLM: 408)
        feed(&f, from: 0, to: 30) { _ in p }
        #expect(abs((f.altitudeM ?? 0) - 408) < 0.05)
        #expect(abs(f.relativeAltitudeM ?? 1) < 0.01)
        #expect(abs(f.verticalSpeedMps ?? 1) < 0.01)
        #expect(f.altitudeAccuracyM ?? 0 > 100, "without a QNH or GNSS the absolute altitude is only pressure altitude")
    }

    @Test func aGivenQNHGivesAltitudeAboveSeaLevel() {
        var p = AltitudeFilter.Parameters()
        p.seaLevelPressurePa = 102_000
        var f = AltitudeFilter(parameters: p)
        let pressure = StandardAtmosphere.pressurePa(altitudeMSLM: 300, seaLevelPressurePa: 102_000)
        feed(&f, from: 0, to: 10) { _ in pressure }
        #expect(abs((f.altitudeM ?? 0) - 300) < 0.05)
        #expect((f.altitudeAccuracyM ?? 0) < 6)
    }

    @Test func aClimbIsTrackedWithItsVerticalSpeed() {
        var f = AltitudeFilter()
        // 0.25 m/s for 20 s after 10 s at rest (stairs), pressure from the ISA.
        feed(&f, from: 0, to: 40) { t in StandardAtmosphere.pressurePa(altitudeMSLM: 100 + 0.25 * min(max(t - 10, 0), 20)) }
        #expect(abs((f.relativeAltitudeM ?? 0) - 5) < 0.05)
        var g = AltitudeFilter()
        feed(&g, from: 0, to: 20) { t in StandardAtmosphere.pressurePa(altitudeMSLM: 100 + 0.25 * max(t - 10, 0)) }
        #expect(abs((g.verticalSpeedMps ?? 0) - 0.25) < 0.05)
    }

    @Test func gnssAltitudeTeachesTheBiasAndTheQNHButNotTheRelativeAltitude() {
        var f = AltitudeFilter()
        let qnh = 99_800.0
        let pressure = StandardAtmosphere.pressurePa(altitudeMSLM: 520, seaLevelPressurePa: qnh)
        var t = 0.0
        var relativeBefore: Double?
        while t < 300 {
            feed(&f, from: t, to: t + 1) { _ in pressure }
            if t == 5 { relativeBefore = f.relativeAltitudeM }
            // GNSS altitude with a few metres of (deterministic, zero-mean) error.
            f.addGNSSAltitude(520 + 4 * sin(t * 0.7), accuracyM: 4, timeS: t + 1)
            t += 1
        }
        #expect(abs((f.altitudeM ?? 0) - 520) < 1.5)
        #expect(abs((f.seaLevelPressurePa ?? 0) - qnh) < 20)
        #expect(abs((f.relativeAltitudeM ?? 9) - (relativeBefore ?? 0)) < 0.02)
        #expect(f.state.gnssUpdates == 300)
    }

    /// GNSS altitude errors wander over minutes (here a Gauss–Markov process, τ 90 s, 1σ 3 m, as stated by the fix):
    /// an hour of fixes at 1 Hz must not convince the filter that it knows the altitude to decimetres. The fused
    /// altitude's 2σ covers its error in about 95 % of the seconds; taken as white noise (correlation time 0), the
    /// same fixes give a far smaller stated accuracy that its error overruns most of the time.
    @Test(arguments: [1, 2, 3] as [UInt64]) func wanderingGNSSErrorsAreCoveredByTheStatedAccuracy(seed: UInt64) {
        func coverage(correlationTimeS: Double) -> (share: Double, meanSigmaM: Double) {
            var parameters = AltitudeFilter.Parameters()
            parameters.gnssVerticalCorrelationTimeS = correlationTimeS
            var f = AltitudeFilter(parameters: parameters)
            var random = SeededGenerator(seed: seed)
            let pressure = StandardAtmosphere.pressurePa(altitudeMSLM: 408, seaLevelPressurePa: 100_900)
            let sigmaM = 3.0, tauS = 90.0, phi = exp(-1 / tauS)
            var errorM = sigmaM * random.gaussian()
            var within = 0, checks = 0, sigmaSum = 0.0
            for second in 0..<3600 {
                let t = Double(second)
                feed(&f, from: t, to: t + 1) { _ in pressure }
                errorM = phi * errorM + sigmaM * (1 - phi * phi).squareRoot() * random.gaussian()
                f.addGNSSAltitude(408 + errorM, accuracyM: sigmaM, timeS: t + 1)
                guard second >= 60, let a = f.altitudeM, let s = f.altitudeAccuracyM else { continue }
                checks += 1
                sigmaSum += s
                if abs(a - 408) <= 2 * s { within += 1 }
            }
            return (Double(within) / Double(checks), sigmaSum / Double(checks))
        }
        let modelled = coverage(correlationTimeS: AltitudeFilter.Parameters().gnssVerticalCorrelationTimeS)
        #expect(modelled.share >= 0.85, "2σ covers \(modelled.share) of the seconds (mean 1σ \(modelled.meanSigmaM) m)")
        #expect(modelled.meanSigmaM < 3, "the hour of fixes still teaches something: mean 1σ \(modelled.meanSigmaM) m")
        let white = coverage(correlationTimeS: 0)
        #expect(white.share < 0.6, "as white noise: 2σ covers \(white.share) (mean 1σ \(white.meanSigmaM) m)")
    }

    /// A stuck register reads 12 kPa high for a second (a kilometre in 40 ms: not physics): the readings are left
    /// out and the altitude carries on. Stuck for 20 s, the new level is taken after 2 s without a climb in the
    /// relative altitude, and when the register lets go the track comes back; with GNSS the fused altitude is
    /// then within its stated 2σ again instead of tens of metres off.
    @Test func aStuckBarometerIsLeftOutAndItsLevelChangesAreNotClimbs() {
        var f = AltitudeFilter()
        let truthM = 408.0, pressure = StandardAtmosphere.pressurePa(altitudeMSLM: truthM, seaLevelPressurePa: 100_900)
        var t = 0.0
        func run(_ seconds: Double, stuckPa: Double? = nil) {
            for _ in 0..<Int(seconds) {
                feed(&f, from: t, to: t + 1) { _ in stuckPa ?? pressure }
                f.addGNSSAltitude(truthM + 1.5 * sin(t / 40), accuracyM: 3, timeS: t + 1)
                t += 1
            }
        }
        run(300)
        let relative = f.relativeAltitudeM ?? .nan
        run(1, stuckPa: pressure + 12_000)
        #expect(f.state.rejectedPressureReadings > 20 && f.state.pressureSteps == 0)
        #expect(abs((f.altitudeM ?? 0) - truthM) < 3)
        run(20, stuckPa: pressure + 12_000)
        #expect(f.state.pressureSteps == 1, "the stuck level is taken after 2 s")
        #expect(abs((f.relativeAltitudeM ?? .nan) - relative) < 1, "a level change is not a climb")
        run(120)
        #expect(f.state.pressureSteps == 2, "and the true level again when the register lets go")
        #expect(abs((f.relativeAltitudeM ?? .nan) - relative) < 1)
        let error = abs((f.altitudeM ?? 0) - truthM), sigma = f.altitudeAccuracyM ?? 0
        #expect(error <= 2 * sigma && sigma < 10, "2 min after: error \(error) m, 1σ \(sigma) m")
    }

    /// Without GNSS (indoors, a receiver asleep) nothing teaches the bias again after a stuck register lets go: the
    /// track coming back to the level it left takes that level's bias back, so the stated accuracy is what it was,
    /// not the kilometre of the excursion. A step to a level of its own (the board carried up a lift with the
    /// accelerometer away) still widens it by the step.
    @Test func aStuckExcursionWithoutGNSSLeavesTheAccuracyAsItWas() {
        let truthM = 408.0, pressure = StandardAtmosphere.pressurePa(altitudeMSLM: truthM, seaLevelPressurePa: 100_900)
        func excursion(levelMemoryS: Double) -> (f: AltitudeFilter, before: Double, after: Double, moved: Double, t: Double) {
            var p = AltitudeFilter.Parameters()
            p.levelMemoryS = levelMemoryS
            var f = AltitudeFilter(parameters: p)
            var t = 0.0
            func run(_ seconds: Double, pa: Double) {
                feed(&f, from: t, to: t + seconds) { _ in pa }
                t += seconds
            }
            run(60, pa: pressure)
            for k in 0..<60 { f.addGNSSAltitude(truthM, accuracyM: 3, timeS: Double(k)) }
            run(60, pa: pressure)
            let before = f.altitudeAccuracyM ?? .nan, altitude = f.altitudeM ?? .nan
            run(20, pa: pressure + 12_000)
            #expect(f.state.pressureSteps == 1 && (f.altitudeAccuracyM ?? 0) > 500, "the stuck level, as unsure as it is far")
            run(60, pa: pressure)
            #expect(f.state.pressureSteps == 2)
            return (f, before, f.altitudeAccuracyM ?? .nan, abs((f.altitudeM ?? .nan) - altitude), t)
        }
        var kept = excursion(levelMemoryS: AltitudeFilter.Parameters().levelMemoryS)
        #expect(kept.after < kept.before + 1, "stated 1σ \(kept.before) m before, \(kept.after) m after")
        #expect(kept.moved < 1)
        let forgotten = excursion(levelMemoryS: 0)
        #expect(forgotten.after > 500, "without the memory: \(forgotten.after) m")
        // A level of its own: 30 m up (about 350 Pa), kept.
        feed(&kept.f, from: kept.t, to: kept.t + 60) { _ in pressure - 350 }
        #expect(kept.f.state.pressureSteps == 3)
        #expect((kept.f.altitudeAccuracyM ?? 0) > 25, "a new level: \(kept.f.altitudeAccuracyM ?? .nan) m")
    }

    @Test func badInputsAreIgnored() {
        var f = AltitudeFilter()
        #expect(f.addPressure(.nan, timeS: 0).isEmpty)
        #expect(f.addPressure(-3, timeS: 0).isEmpty)
        #expect(f.addGNSSAltitude(400, accuracyM: 3, timeS: 0).isEmpty, "no GNSS update before a barometer reading")
        f.addPressure(95_000, timeS: 1)
        #expect(f.addGNSSAltitude(400, accuracyM: 500, timeS: 2).isEmpty, "an altitude with a 500 m accuracy is not used")
        #expect(f.addPressure(95_000, timeS: 0.5) == .altitude, "a reading from the past updates without propagating back")
    }

    @Test func stateRoundTripsThroughCodable() throws {
        var f = AltitudeFilter()
        feed(&f, from: 0, to: 5) { _ in 96_000 }
        let data = try JSONEncoder().encode(f.state)
        var g = AltitudeFilter()
        g.restore(try JSONDecoder().decode(AltitudeFilter.State.self, from: data))
        #expect(g.state == f.state)
    }
}

@Suite struct FloorCounterTests {
    /// Drives the counter with an altitude profile at 25 Hz.
    func count(onFoot: Bool = true, durationS: Double, altitude: (Double) -> Double) -> (up: Int, down: Int) {
        var c = FloorCounter()
        var t = 0.0
        while t <= durationS {
            let v = (altitude(t + 0.5) - altitude(t - 0.5))
            c.update(altitudeM: altitude(t), verticalSpeedMps: v, onFoot: onFoot, timeS: t)
            t += 0.04
        }
        return (c.floorsAscended, c.floorsDescended)
    }

    @Test func threeFloorsOfStairsCountThree() {
        let r = count(durationS: 80) { t in 0.2 * min(max(t - 10, 0), 45) }
        #expect(r.up == 3 && r.down == 0)
    }

    @Test func flightsWithLandingsCountOnePerFloor() {
        // Two flights of 1.5 m per floor with 4 s landings, four floors down.
        let r = count(durationS: 120) { t in
            let tau = max(t - 5, 0)
            let cycle = tau.truncatingRemainder(dividingBy: 11.5), n = (tau / 11.5).rounded(.down)
            let height = n * 1.5 + min(cycle, 7.5) * 0.2
            return -min(height, 12)
        }
        #expect(r.up == 0 && r.down == 4)
    }

    @Test func aLiftRideIsNoFloor() {
        #expect(count(onFoot: false, durationS: 60) { t in min(max(t - 10, 0), 15) }.up == 0)
    }

    @Test func weatherDriftIsNoFloor() {
        // 6 hPa/h ≈ 0.014 m/s of apparent climb for 30 minutes on foot.
        let r = count(durationS: 1800) { t in 0.014 * t + 0.05 * sin(t) }
        #expect(r.up == 0 && r.down == 0)
    }

    @Test func theFloorHeightIsSettable() {
        var p = FloorCounter.Parameters()
        p.floorHeightM = 4.5
        var c = FloorCounter(parameters: p)
        var t = 0.0
        while t < 60 {
            let h = 0.2 * min(max(t - 5, 0), 45)
            c.update(altitudeM: h, verticalSpeedMps: 0.2, onFoot: true, timeS: t)
            t += 0.04
        }
        #expect(c.floorsAscended == 2)
        #expect(
            FloorCounter(
                parameters: {
                    var q = FloorCounter.Parameters(); q.floorHeightM = -1; return q
                }()
            ).parameters.floorHeightM == 3)
    }
}
