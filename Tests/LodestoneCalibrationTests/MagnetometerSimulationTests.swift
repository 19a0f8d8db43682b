import LodestoneCore
import LodestoneSimulation
import RealModule
import Testing
@testable import LodestoneCalibration

/// The guided magnetometer calibration on the simulated board: the simulated person does the `calibrate-mag`
/// motion, the real drivers read the LIS3MDL and the MPU-9250's AK8963 with the carrier's hard iron
/// [12, −7.5, 4] µT and soft iron (boards/simulated.json) and consumer-MEMS noise (0.32 µT RMS).
@Suite struct MagnetometerSimulationTests {
    struct Outcome {
        var result: MagnetometerSession.Result
        var completedAtS: Double
    }

    /// Runs the session as the CLI does (refit once a second, stop when complete) for the LIS3MDL (`mag`) or
    /// the AK8963 (`imu`), then keeps the board running to `untilS`, handing each later step to `after`.
    func calibrate(
        sensor: String, seed: UInt64, magnetometerMount: Matrix3 = SimulatedBoardRun.magnetometerMount,
        untilS: Double = 0, after: (SimulatedBoardRun.Step, EllipsoidFit) -> Void = { _, _ in }
    )
        throws -> Swift.Result<Outcome, CalibrationError>
    {
        let run = try SimulatedBoardRun(scenario: "calibrate-mag", seed: seed, magnetometerMount: magnetometerMount)
        var session = MagnetometerSession()
        var latestUp: Vector3?
        var nextRefitS = 1.0
        var completedAt = Double.infinity
        while run.timeS < 120 {
            let s = try run.step()
            if let a = s.imu?.accelerationMps2 { latestUp = abs(a.length - 9.81) < 0.5 ? a : nil }
            let reading = sensor == "mag" ? s.magnetometer : s.imu
            if let m = reading?.magneticFieldMicroTesla {
                session.add(fieldMicroTesla: m, stillUp: latestUp, temperatureC: reading?.temperatureC)
            }
            if s.timeS >= nextRefitS {
                session.refit()
                nextRefitS += 1
                if session.isComplete { completedAt = s.timeS; break }
            }
        }
        let outcome = session.finish(expected: zurichField).map { Outcome(result: $0, completedAtS: completedAt) }
        if case .success(let o) = outcome {
            while run.timeS < untilS { after(try run.step(), o.result.fit) }
        }
        return outcome
    }

    /// The targets of issue 7: hard iron within 0.5 µT, soft iron within 1 %, complete within 60 s of motion
    /// (the twirl starts at t = 3 s), graded good — for both magnetometers and three seeds.
    @Test(arguments: [("mag", 1 as UInt64), ("mag", 2), ("mag", 3), ("imu", 1), ("imu", 2)])
    func recoversHardAndSoftIronWithinTolerance(sensor: String, seed: UInt64) throws {
        let o = try calibrate(sensor: sensor, seed: seed).get()
        let fit = o.result.fit
        let hardError = (fit.hardIronMicroTesla - SimulatedBoardRun.hardIronMicroTesla).length
        let expectedW = unitDeterminant(SimulatedBoardRun.softIron.inverted!)
        let softError = maximumDifference(fit.softIronCorrection, expectedW)
        #expect(hardError < 0.5, "hard iron off by \(hardError) µT")
        #expect(softError < 0.01, "soft iron off by \(softError * 100) %")
        #expect(o.completedAtS - 3 <= 60, "needed \(o.completedAtS - 3) s of motion")
        #expect(o.result.grade == .good)
        #expect(fit.residualMicroTesla < 0.6)
        #expect(abs(o.result.fieldDeviation ?? 1) < 0.02)
        if case .consistent = o.result.mounting {} else { Issue.record("mounting: \(o.result.mounting)") }
    }

    /// Heading after calibration, two ways. (1) Calibration error alone: the fitted calibration applied to the
    /// noise-free distorted field in 2000 random orientations, heading of the result (via the true attitude)
    /// against the true field's: under 1° everywhere (uncalibrated: tens of degrees). (2) On the simulated
    /// board, noise included: during the still hold after the motion, the calibrated readings averaged over
    /// 1 s, turned into ENU by the true attitude, point within 1° of the WMM field's magnetic north.
    @Test func headingErrorAfterCalibrationIsUnderOneDegree() throws {
        var windows: [(sum: Vector3, n: Int, attitude: Quaternion)] = []
        let o = try calibrate(sensor: "mag", seed: 4, untilS: 58) { step, fit in
            guard step.timeS >= 50, let m = step.magnetometer?.magneticFieldMicroTesla else { return }
            let second = Int(step.timeS)
            if windows.count <= second - 50 { windows.append((.zero, 0, step.truth.boardToENU)) }
            windows[windows.count - 1].sum += fit.corrected(m)
            windows[windows.count - 1].n += 1
        }.get()
        let fit = o.result.fit
        let fieldENU = zurichField.enuMicroTesla
        let trueAzimuth = Angle.degrees(fromRadians: Double.atan2(y: fieldENU.x, x: fieldENU.y))
        var random = SeededGenerator(seed: 9)
        var worstCalibrated = 0.0, worstRaw = 0.0
        for _ in 0..<2000 {
            let q = SyntheticMagnetometer.randomRotation(&random)
            // Heading is defined where the board is not pointing straight up or down.
            guard abs(q.rotate(Vector3(0, 1, 0)).z) < 0.9 else { continue }
            let distorted = SimulatedBoardRun.softIron * q.conjugate.rotate(fieldENU) + SimulatedBoardRun.hardIronMicroTesla
            worstCalibrated = max(worstCalibrated, abs(Angle.wrap180(fieldAzimuthDeg(fit.corrected(distorted), q) - trueAzimuth)))
            worstRaw = max(worstRaw, abs(Angle.wrap180(fieldAzimuthDeg(distorted, q) - trueAzimuth)))
        }
        #expect(worstCalibrated < 1, "calibrated heading off by up to \(worstCalibrated)°")
        #expect(worstRaw > 20, "the uncalibrated field should be far off (\(worstRaw)°)")
        #expect(windows.count >= 7)
        for w in windows {
            let error = Angle.wrap180(fieldAzimuthDeg(w.sum / Double(w.n), w.attitude) - trueAzimuth)
            #expect(abs(error) < 1, "heading off by \(error)° at rest")
        }
    }

    /// The LIS3MDL with the board file's mount matrix wrong (identity instead of a 90° turn): the fit alone
    /// cannot see it, the accelerometer can; the failure names the swap.
    @Test func aWrongMountMatrixIsDetectedAndNamed() throws {
        let outcome = try calibrate(sensor: "mag", seed: 1, magnetometerMount: .identity)
        guard case .failure(let e) = outcome else { Issue.record("a wrong mount was accepted"); return }
        #expect(e.reason == .mountingMistake)
        #expect(e.detail.contains("x and y swapped"), "\(e.detail)")
    }
}

extension ExpectedField {
    /// The field vector, ENU, µT.
    var enuMicroTesla: Vector3 {
        let i = Angle.radians(fromDegrees: inclinationDeg), d = Angle.radians(fromDegrees: declinationDeg)
        let h = strengthMicroTesla * Double.cos(i)
        return Vector3(h * Double.sin(d), h * Double.cos(d), -strengthMicroTesla * Double.sin(i))
    }
}
