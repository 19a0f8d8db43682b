import LodestoneCore
import LodestoneSimulation
import Testing
@testable import LodestoneCalibration

/// Every reason in the fixed list can actually happen, each from the situation it names. (`sensorFailed` and
/// `cancelled` in a live session are also shown end to end in the engine's tests.)
@Suite struct FailureReasonTests {
    /// A magnetometer session fed `samples`, each with the up direction of `ups` when given.
    func magnetometer(
        _ samples: [Vector3], ups: [Vector3]? = nil, expected: ExpectedField? = zurichField,
        timedOut: Bool = false
    ) -> CalibrationError? {
        var s = MagnetometerSession()
        for (i, m) in samples.enumerated() { s.add(fieldMicroTesla: m, stillUp: ups?[i]) }
        if case .failure(let e) = s.finish(expected: expected, timedOut: timedOut) { return e }
        return nil
    }

    /// Board orientations spread over the sphere, the field each sees (through `softIron` and `hardIron`, in
    /// the axes `axes` maps to), and gravity's up direction in board axes.
    func tumble(
        count: Int = 1500, field: Vector3 = Vector3(0.9, 21.3, -43.3), hardIron: Vector3 = Vector3(12, -7.5, 4),
        softIron: Matrix3 = .identity, axes: Matrix3 = .identity, noise: Double = 0.3
    ) -> (fields: [Vector3], ups: [Vector3]) {
        var r = SeededGenerator(seed: 11)
        var fields: [Vector3] = [], ups: [Vector3] = []
        for _ in 0..<count {
            let q = SyntheticMagnetometer.randomRotation(&r)
            let b = softIron * q.conjugate.rotate(field) + hardIron
            fields.append(axes * b + Vector3(r.gaussian(), r.gaussian(), r.gaussian()) * noise)
            ups.append(q.conjugate.rotate(Vector3(0, 0, 9.81)))
        }
        return (fields, ups)
    }

    func accelerometerCaptures(tiltDeg: Double = 0, scale: Double = 1, offset: Vector3 = Vector3(0.3, -0.2, 0.1))
        -> [AccelerometerSession.Capture]
    {
        BoardFace.allCases.map { face in
            var up = face.upVector * 9.81
            if face == .xUp { up = Quaternion(axis: Vector3(0, 1, 0), angleRad: Angle.radians(fromDegrees: tiltDeg)).rotate(up) }
            return AccelerometerSession.Capture(
                face: face, meanMps2: up * scale + offset, spreadMps2: Vector3(0.01, 0.01, 0.01),
                samples: 100, timeS: 0)
        }
    }

    func reason(_ failure: CalibrationFailure) -> CalibrationError? {
        switch failure {
        case .noSamples:
            return magnetometer([])
        case .sensorFailed:
            // Raised by the session runner when the engine reports the chip gone; the error itself:
            return CalibrationError(.sensorFailed, "mag: /dev/i2c-1 address 0x1c: no acknowledge")
        case .cancelled:
            var s = AccelerometerSession()
            for k in 0..<300 { s.add(timeS: Double(k) * 0.01, accelerationMps2: Vector3(0, 0, 9.81), angularVelocityRadS: .zero) }
            if case .failure(let e) = s.finish(timedOut: false) { return e }
            return nil
        case .timedOut:
            return magnetometer(SyntheticMagnetometer().flatSpin(400), timedOut: true)
        case .incompleteCoverage:
            return magnetometer(SyntheticMagnetometer().flatSpin(400))
        case .fitFailed:
            // Samples on a flat circle: no ellipsoid (and no sphere) is determined by them.
            return magnetometer((0..<300).map { i in Vector3(30 * cos(Double(i) * 0.05), 30 * sin(Double(i) * 0.05), 5) })
        case .residualTooHigh:
            return magnetometer(tumble(noise: 2.5).fields)
        case .fieldOutOfRange:
            return magnetometer(tumble(field: Vector3(0, 5, -8)).fields, expected: nil)
        case .fieldDisagreesWithModel:
            return magnetometer(tumble(field: Vector3(0, 35, -60)).fields) // 69 µT where the WMM says 48
        case .hardIronTooLarge:
            return magnetometer(tumble(hardIron: Vector3(150, -120, 40)).fields)
        case .softIronTooStrong:
            return magnetometer(tumble(softIron: Matrix3(rows: Vector3(1.5, 0, 0), Vector3(0, 0.7, 0), Vector3(0, 0, 1))).fields)
        case .mountingMistake:
            let t = tumble(axes: Matrix3(rows: Vector3(0, 1, 0), Vector3(1, 0, 0), Vector3(0, 0, 1)))
            return magnetometer(t.fields, ups: t.ups)
        case .boardMoved:
            var s = GyroscopeSession()
            for k in 0..<500 {
                let w = k < 300 ? Vector3(0.01, 0, 0) : Vector3(0.3, 0, 0)
                s.add(timeS: Double(k) * 0.01, angularVelocityRadS: w)
            }
            if case .failure(let e) = s.finish() { return e }
            return nil
        case .positionsInconsistent:
            if case .failure(let e) = AccelerometerSession.solve(accelerometerCaptures(tiltDeg: 8), gravityMps2: 9.81) {
                return e
            }
            return nil
        case .implausibleScale:
            if case .failure(let e) = AccelerometerSession.solve(accelerometerCaptures(scale: 1.25), gravityMps2: 9.81) {
                return e
            }
            return nil
        case .implausibleOffset:
            var s = BarometerSession()
            for k in 0..<300 { s.add(timeS: Double(k) * 0.04, pressurePa: 97_000) }
            if case .failure(let e) = s.finish(
                reference: .altitudeAndQNH(altitudeMSLM: 408, qnhPa: 101_300),
                expectedPressurePa: 96_400)
            {
                return e
            }
            return nil
        case .pressureUnstable:
            var s = BarometerSession()
            for k in 0..<300 { s.add(timeS: Double(k) * 0.04, pressurePa: 96_400 + Double(k)) }
            if case .failure(let e) = s.finish(reference: .altitude(altitudeMSLM: 408), expectedPressurePa: 96_400) { return e }
            return nil
        }
    }

    @Test(arguments: CalibrationFailure.allCases)
    func everyFailureReasonIsReachable(_ failure: CalibrationFailure) {
        let e = reason(failure)
        #expect(e?.reason == failure, "got \(String(describing: e))")
        if let e {
            #expect(!e.detail.isEmpty)
            #expect(!e.description.contains("\n"))
            #expect(e.description.hasPrefix(failure.rawValue + ": "))
            #expect(e.description.contains(failure.advice))
        }
    }

    @Test func everyReasonSaysWhatToDo() {
        for f in CalibrationFailure.allCases {
            #expect(f.advice.count > 20, "\(f)")
            #expect(!f.advice.contains("\n"))
        }
    }
}
