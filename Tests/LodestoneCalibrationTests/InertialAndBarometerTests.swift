import LodestoneCore
import LodestoneSimulation
import RealModule
import Testing
@testable import LodestoneCalibration

@Suite struct AccelerometerCalibrationTests {
    /// Known answer: six positions made from a known offset, scale and cross-axis matrix K (raw = K·g + b),
    /// with 0.005 m/s² of noise on each mean; the six-position solution recovers T = K⁻¹ and b.
    @Test func sixPositionsRecoverOffsetScaleAndCrossAxis() throws {
        let k = Matrix3(rows: Vector3(1.02, 0.01, -0.005), Vector3(0.004, 0.985, 0.008), Vector3(-0.006, 0.002, 1.01))
        let b = Vector3(0.25, -0.31, 0.42)
        var r = SeededGenerator(seed: 2)
        let captures = BoardFace.allCases.map { face in
            AccelerometerSession.Capture(
                face: face, meanMps2: k * (face.upVector * 9.81) + b + Vector3(r.gaussian(), r.gaussian(), r.gaussian()) * 0.005,
                spreadMps2: Vector3(repeating: 0.02), samples: 100, timeS: 0)
        }
        let result = try AccelerometerSession.solve(captures, gravityMps2: 9.81).get()
        #expect((result.offsetMps2 - b).length < 0.01)
        #expect(maximumDifference(result.correction, k.inverted!) < 0.002)
        #expect(result.grade == .good)
    }

    /// On the simulated board: the simulated person sets the board on each face (`calibrate-accel`); the
    /// session captures all six by itself, and afterwards the calibrated specific force at rest matches the
    /// truth far better than the raw one (the simulator's turn-on bias is 0.2 m/s² per axis, 1σ).
    @Test func theSimulatedBoardIsCapturedOnAllSixFacesAndCorrected() throws {
        let run = try SimulatedBoardRun(scenario: "calibrate-accel", seed: 3)
        var session = AccelerometerSession(gravityMps2: 9.8069)
        var order: [BoardFace] = []
        var rest: [(raw: Vector3, truth: Vector3)] = []
        while run.timeS < 54 {
            let s = try run.step()
            guard let imu = s.imu, let a = imu.accelerationMps2 else { continue }
            if let face = session.add(timeS: s.timeS, accelerationMps2: a, angularVelocityRadS: imu.angularVelocityRadS) {
                order.append(face)
            }
            if s.timeS > 46 { rest.append((a, s.truth.specificForceBoardMps2)) }
        }
        #expect(order == [.zUp, .xUp, .zDown, .xDown, .yUp, .yDown])
        let result = try session.finish().get()
        #expect(result.grade == .good)
        // Mean error over the rest (the noise averages out; the offset does not).
        var rawError = Vector3.zero, calibratedError = Vector3.zero
        for (raw, truth) in rest {
            rawError += (raw - truth) / Double(rest.count)
            calibratedError += (result.correction * (raw - result.offsetMps2) - truth) / Double(rest.count)
        }
        #expect(rawError.length > 0.1)
        #expect(calibratedError.length < 0.01, "calibrated error \(calibratedError.length) m/s²")
    }

    @Test func stillnessNeedsAQuietWindow() {
        var d = StillnessDetector()
        var r = SeededGenerator(seed: 1)
        var stillAt: Double?
        for k in 0..<400 {
            let t = Double(k) * 0.01
            let shaking = k < 200 ? Vector3(r.gaussian(), r.gaussian(), r.gaussian()) * 0.5 : .zero
            if d.add(timeS: t, accelerationMps2: Vector3(0, 0, 9.81) + shaking, angularVelocityRadS: .zero), stillAt == nil {
                stillAt = t
            }
        }
        #expect(stillAt != nil && stillAt! >= 2.9 && stillAt! < 3.1)
    }
}

@Suite struct GyroscopeCalibrationTests {
    /// On the simulated board lying still: the bias found in 10 s, subtracted from the next 10 s, leaves a
    /// mean rate under 0.001 rad/s where the raw mean is the simulator's turn-on bias (1 °/s, 1σ, per axis).
    @Test func biasAtRestOnTheSimulatedBoard() throws {
        let run = try SimulatedBoardRun(scenario: "stationary", seed: 6)
        var session = GyroscopeSession(expectedRateHz: 100)
        var later = Vector3.zero, count = 0.0
        while run.timeS < 20 {
            let s = try run.step()
            guard let w = s.imu?.angularVelocityRadS else { continue }
            if !session.isComplete {
                session.add(timeS: s.timeS, angularVelocityRadS: w, accelerationMps2: s.imu?.accelerationMps2)
            } else {
                later += w; count += 1
            }
        }
        let result = try session.finish().get()
        let raw = later / count
        #expect(raw.length > 0.005)
        #expect((raw - result.biasRadS).length < 0.001)
        #expect(result.allan == nil)
    }

    @Test func aBoardPickedUpAbortsTheCapture() throws {
        // mixed-day: 20 s standing still, then walking.
        let run = try SimulatedBoardRun(scenario: "mixed-day", seed: 2)
        var p = GyroscopeSession.Parameters()
        p.durationS = 30
        var session = GyroscopeSession(parameters: p, expectedRateHz: 100)
        while run.timeS < 32, !session.isComplete {
            let s = try run.step()
            if let imu = s.imu, let w = imu.angularVelocityRadS {
                session.add(timeS: s.timeS, angularVelocityRadS: w, accelerationMps2: imu.accelerationMps2)
            }
        }
        guard case .failure(let e) = session.finish() else { Issue.record("motion not noticed"); return }
        #expect(e.reason == .boardMoved)
        #expect(session.elapsedS > 19 && session.elapsedS < 22)
    }

    /// Known answer (IEEE Std 952 Annex C): white rate noise of per-sample σ at 100 Hz has N = σ·√τ₀, and a
    /// rate random walk K gives σ(τ) = K·√(τ/3). 2000 s of synthetic data with N = 1.2e-4 rad/s/√Hz and
    /// K = 2e-5 rad/s/√s: N within 5 %, K within 40 %.
    @Test func allanDeviationRecoversNoiseDensityAndRateRandomWalk() throws {
        let rate = 100.0, n = 1.2e-4, k = 2e-5
        var r = SeededGenerator(seed: 8)
        var walk = Vector3.zero
        let samples = (0..<200_000).map { _ -> Vector3 in
            walk += Vector3(r.gaussian(), r.gaussian(), r.gaussian()) * (k * (1 / rate).squareRoot())
            return walk + Vector3(r.gaussian(), r.gaussian(), r.gaussian()) * (n * rate.squareRoot())
        }
        let a = try #require(AllanDeviation.compute(samples: samples, sampleIntervalS: 1 / rate))
        for axis in 0..<3 {
            #expect(abs(a.noiseDensity[axis] / n - 1) < 0.05, "N \(a.noiseDensity[axis])")
            #expect(abs(a.rateRandomWalk[axis] / k - 1) < 0.4, "K \(a.rateRandomWalk[axis])")
        }
        // The white-noise part of the curve: σ(τ₀) = σ per sample.
        #expect(abs(a.points[0].deviation.x / (n * rate.squareRoot()) - 1) < 0.02)
    }

    /// The simulator's gyroscope density d is one-sided over the bandwidth f/2 (σ = d·√(f/2)), so its Allan
    /// N is d/√2 = 1.234e-4 rad/s/√Hz for the MPU-9250's 0.01 °/s/√Hz; a 300 s capture finds it within 10 %.
    @Test func allanNoiseDensityOfTheSimulatedGyroscope() throws {
        let run = try SimulatedBoardRun(scenario: "stationary", seed: 4)
        var p = GyroscopeSession.Parameters()
        p.durationS = 300
        var session = GyroscopeSession(parameters: p, expectedRateHz: 100)
        while !session.isComplete {
            let s = try run.step()
            if let imu = s.imu, let w = imu.angularVelocityRadS {
                session.add(timeS: s.timeS, angularVelocityRadS: w, accelerationMps2: imu.accelerationMps2)
            }
        }
        let allan = try #require(try session.finish().get().allan)
        let expected = Angle.radians(fromDegrees: 0.01) / 2.0.squareRoot()
        for axis in 0..<3 { #expect(abs(allan.noiseDensity[axis] / expected - 1) < 0.1, "N \(allan.noiseDensity[axis])") }
    }
}

@Suite struct BarometerCalibrationTests {
    /// With the true altitude and QNH, the offset is the sensor's own error: on the simulated board the
    /// calibrated pressure then matches the true pressure within 2 Pa (raw: the BMP280's ±100 Pa class error).
    @Test func offsetWithAltitudeAndQNHIsTheSensorError() throws {
        let run = try SimulatedBoardRun(scenario: "stationary", seed: 12)
        var session = BarometerSession()
        var truth: TruthSample?
        var later: [(Double, Double)] = []
        while run.timeS < 20 {
            let s = try run.step()
            guard let p = s.barometer?.pressurePa else { continue }
            if !session.isComplete {
                session.add(timeS: s.timeS, pressurePa: p); truth = s.truth
            } else {
                later.append((p, s.truth.pressurePa))
            }
        }
        let t = try #require(truth)
        let reference = BarometerReference.altitudeAndQNH(altitudeMSLM: t.altitudeMSLM, qnhPa: t.seaLevelPressurePa)
        let result = try session.finish(reference: reference, expectedPressurePa: t.pressurePa).get()
        let rawError = later.map { abs($0.0 - $0.1) }.reduce(0, +) / Double(later.count)
        let calibratedError = abs(later.map { $0.0 - result.offsetPa - $0.1 }.reduce(0, +) / Double(later.count))
        #expect(rawError > 5)
        #expect(calibratedError < 2, "calibrated off by \(calibratedError) Pa")
        #expect(result.noisePa < 3)
    }
}
