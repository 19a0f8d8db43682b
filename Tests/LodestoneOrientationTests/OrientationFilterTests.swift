import Foundation
import LodestoneCore
@testable import LodestoneOrientation
import Testing

/// The filter against exact synthetic motion (`SyntheticMotion`): what each feature promises, one test each.
@Suite struct OrientationFilterTests {
    /// A tour of orientations: turns about each axis and combined ones, with pauses.
    static let tour: [SyntheticMotion.Segment] = [
        .init(rateRadS: .zero, durationS: 3),
        .init(rateRadS: Vector3(0, 0, 0.6), durationS: 4),
        .init(rateRadS: Vector3(0.5, 0, 0), durationS: 2),
        .init(rateRadS: Vector3(0, -0.4, 0.3), durationS: 4),
        .init(rateRadS: .zero, durationS: 2),
        .init(rateRadS: Vector3(-0.5, 0.3, -0.8), durationS: 3),
        .init(rateRadS: Vector3(0, 0.6, 0), durationS: 2),
        .init(rateRadS: .zero, durationS: 3)
    ]

    @Test func stillLevelBoardFacingNorthGivesIdentity() throws {
        let motion = SyntheticMotion(segments: [.init(rateRadS: .zero, durationS: 5)])
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        run(&filter, motion.samples())
        let q = try #require(filter.boardToENU)
        let error = orientationErrorDeg(q, .identity)
        #expect(error.total < 0.5, "\(error)")
        #expect(filter.isAtRest)
        #expect(!filter.isMagneticallyDisturbed)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func initialisesToAnyStartingOrientationWithinOneSecond(seed: UInt64) throws {
        // Property: whatever the board's starting orientation, one second of data puts the filter within a few
        // degrees (fast initialisation: the first sample sets the inclination, the first seconds average heading).
        var generator = SplitMix64(seed: seed)
        let axis = generator.gaussianVector()
        let start = Quaternion(axis: axis, angleRad: 2 * Double.pi * generator.uniform())
        let motion = SyntheticMotion(segments: [.init(rateRadS: .zero, durationS: 1)], initialOrientation: start, seed: seed)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        run(&filter, motion.samples())
        let error = orientationErrorDeg(try #require(filter.boardToENU), start)
        #expect(error.inclination < 1, "\(error)")
        #expect(error.heading < 3, "\(error)")
    }

    @Test func followsATourOfOrientationsWithAGyroscopeBias() {
        let bias = Vector3(0.004, -0.006, 0.003) // ≈ 0.2–0.35 °/s
        let motion = SyntheticMotion(segments: Self.tour, gyroscopeBiasRadS: bias)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        var worst = 0.0
        run(&filter, motion.samples()) { s, f in
            if s.timeS > 2, let q = f.boardToENU { worst = max(worst, orientationErrorDeg(q, s.truth).total) }
        }
        #expect(worst < 2.5, "largest error \(worst)°")
    }

    @Test func estimatesTheGyroscopeBiasAtRest() {
        let bias = Vector3(0.01, -0.005, 0.008) // 0.57, −0.29, 0.46 °/s
        let motion = SyntheticMotion(segments: [.init(rateRadS: .zero, durationS: 12)], gyroscopeBiasRadS: bias)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        run(&filter, motion.samples())
        let error = (filter.gyroscopeBiasRadS - bias) * (180 / Double.pi)
        #expect(error.length < 0.02, "bias error \(error) °/s")
        #expect(filter.isAtRest)
    }

    @Test func restIsDetectedAfterTheMinimumTimeAndEndsWithMotion() throws {
        let motion = SyntheticMotion(segments: [
            .init(rateRadS: .zero, durationS: 3), .init(rateRadS: Vector3(0, 0, 0.5), durationS: 1)
        ])
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        var restStartedS: Double?
        var restAtEnd = true
        run(&filter, motion.samples()) { s, f in
            if f.isAtRest, restStartedS == nil { restStartedS = s.timeS }
            restAtEnd = f.isAtRest
        }
        let started = try #require(restStartedS)
        #expect(started >= OrientationFilter.Parameters().restMinimumDurationS && started < 2.0)
        #expect(!restAtEnd)
    }

    @Test func sixDHeadingDriftsOnlyWithTheResidualBiasAndSaysSo() throws {
        let motion = SyntheticMotion(segments: Self.tour)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        run(&filter, motion.samples(), magnetometer: false)
        #expect(filter.headingAccuracyDeg == nil, "6D heading is not absolute")
        #expect(filter.relativeHeadingDriftSigmaDeg > 0)
        let q = try #require(filter.boardToENU)
        let error = orientationErrorDeg(q, motion.samples().last!.truth)
        #expect(error.inclination < 1.5, "\(error)")
        // Heading is relative to the start, which faced north here: still close after the tour.
        #expect(error.heading < 3, "\(error)")
        let found = filter.heading(timeS: 0, declinationDeg: 5)
        let heading = try #require(found)
        #expect(heading.headingAccuracyDeg < 0 && heading.trueHeadingDeg == nil)
    }

    @Test func rejectsAMagneticDisturbanceAndRecoversWhenItEnds() {
        // A still board; a magnet brought near it from 5 s to 15 s adds 25 µT eastward: without rejection the
        // heading would swing by tens of degrees.
        let motion = SyntheticMotion(
            segments: [.init(rateRadS: .zero, durationS: 25)],
            disturbanceENUMicroTesla: Vector3(25, 0, 0), disturbanceS: 5...15)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        var worst = 0.0
        var sawDisturbance = false
        run(&filter, motion.samples()) { s, f in
            worst = max(worst, orientationErrorDeg(f.boardToENU!, s.truth).heading)
            if (6...14).contains(s.timeS) { sawDisturbance = sawDisturbance || f.isMagneticallyDisturbed }
        }
        #expect(sawDisturbance)
        #expect(worst < 2, "worst heading error \(worst)°")
        #expect(!filter.isMagneticallyDisturbed, "recovered after the disturbance ended")
    }

    @Test func findsAMagnetAttachedToTheBoardAndKeepsTheHeading() {
        // A magnet attached at 10 s (after the filter learnt the earth's field) adds a board-fixed 20 µT: the
        // tracker estimates it from the rotation and the filter uses the corrected field again.
        let offset = Vector3(12, -8, 14)
        var segments = Self.tour
        segments += segments
        let motion = SyntheticMotion(segments: segments, boardFieldMicroTesla: offset, boardFieldFromS: 10)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        var errors: [Double] = []
        run(&filter, motion.samples()) { s, f in
            if s.timeS > 20 { errors.append(orientationErrorDeg(f.boardToENU!, s.truth).heading) }
        }
        #expect((filter.boardFixedFieldMicroTesla - offset).length < 1.5, "offset \(filter.boardFixedFieldMicroTesla)")
        #expect(filter.needsMagnetometerCalibration)
        let rms = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
        #expect(rms < 2, "heading RMS \(rms)°")
    }

    @Test func slowerMagnetometerAndJitteredTimestampsStillConverge() {
        // Gyroscope and accelerometer at 200 Hz, magnetometer at 20 Hz, each timestamp jittered by ±10 %.
        var motion = SyntheticMotion(segments: Self.tour, rateHz: 200, magnetometerRateHz: 20)
        motion.seed = 7
        var generator = SplitMix64(seed: 9)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        var worst = 0.0
        for s in motion.samples() {
            let t = s.timeS + (generator.uniform() - 0.5) * 0.001
            filter.update(
                timeS: t, gyroscopeRadS: s.gyroscopeRadS, accelerometerMps2: s.accelerometerMps2,
                magnetometerMicroTesla: s.magnetometerMicroTesla)
            if s.timeS > 2 { worst = max(worst, orientationErrorDeg(filter.boardToENU!, s.truth).total) }
        }
        #expect(worst < 3, "largest error \(worst)°")
        #expect(abs(filter.state.intervals.magnetometer.derivedS - 0.05) < 0.0025)
        #expect(abs(filter.state.intervals.gyroscope.derivedS - 0.005) < 0.00025)
    }

    @Test func aRepeatedMagnetometerSampleIsNotUsedTwice() {
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        let g = Vector3.zero, a = Vector3(0, 0, 9.81), m = Vector3(0, 20, -40)
        filter.update(timeS: 0, gyroscopeRadS: g, accelerometerMps2: a, magnetometerMicroTesla: m)
        let before = filter.state.magnetic
        let changes = filter.update(timeS: 0.01, gyroscopeRadS: g, accelerometerMps2: a, magnetometerMicroTesla: m)
        #expect(changes.contains(.repeatedMagnetometerSample))
        #expect(!changes.contains(.headingCorrected))
        #expect(filter.state.magnetic == before)
    }

    @Test func nonFiniteSamplesAreIgnoredAndSaidSo() {
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        filter.update(
            timeS: 0, gyroscopeRadS: .zero, accelerometerMps2: Vector3(0, 0, 9.81), magnetometerMicroTesla: Vector3(0, 20, -40))
        let before = filter.state
        let nan = Vector3(.nan, 0, 0)
        let changes = filter.update(timeS: 0.01, gyroscopeRadS: nan, accelerometerMps2: nan, magnetometerMicroTesla: nan)
        #expect(changes == .rejectedInput)
        #expect(filter.state == before)
        #expect(filter.update(timeS: 0.02, gyroscopeRadS: nil, accelerometerMps2: .zero) == .rejectedInput)
    }

    @Test func timeGoingBackwardsIntegratesNothing() {
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        filter.update(timeS: 10, gyroscopeRadS: .zero, accelerometerMps2: Vector3(0, 0, 9.81))
        let before = filter.state.qGyroscope
        filter.update(timeS: 5, gyroscopeRadS: Vector3(0, 0, 3), accelerometerMps2: nil)
        #expect(filter.state.qGyroscope == before)
    }

    @Test func aGapInTheGyroscopeIsFlaggedAndBounded() {
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        filter.update(timeS: 0, gyroscopeRadS: .zero, accelerometerMps2: Vector3(0, 0, 9.81))
        let changes = filter.update(timeS: 5, gyroscopeRadS: Vector3(0, 0, 1), accelerometerMps2: nil)
        #expect(changes.contains(.gyroscopeGap))
        let turned = orientationErrorDeg(filter.boardToENU6D, .identity).heading
        #expect(abs(turned - Angle.degrees(fromRadians: OrientationFilter.Parameters().maximumGyroscopeIntervalS)) < 0.01)
    }

    @Test func stateSnapshotRestoresTheRunExactly() throws {
        let samples = SyntheticMotion(segments: Self.tour).samples()
        var a = OrientationFilter(parameters: SyntheticMotion.parameters)
        run(&a, Array(samples.prefix(1500)))
        let snapshot = try JSONEncoder().encode(a.state)
        var b = OrientationFilter(parameters: SyntheticMotion.parameters)
        b.restore(try JSONDecoder().decode(OrientationFilter.State.self, from: snapshot))
        #expect(b.state == a.state)
        #expect(b.coefficients == a.coefficients)
        run(&a, Array(samples.dropFirst(1500)))
        run(&b, Array(samples.dropFirst(1500)))
        #expect(b.state == a.state)
    }

    @Test func headingAccuracyContainsTheErrorOnATour() {
        let motion = SyntheticMotion(segments: Self.tour + Self.tour, gyroscopeBiasRadS: Vector3(0.003, 0.002, -0.004), seed: 3)
        var filter = OrientationFilter(parameters: SyntheticMotion.parameters)
        var inside = 0, count = 0
        run(&filter, motion.samples()) { s, f in
            guard s.timeS > 3, let accuracy = f.headingAccuracyDeg else { return }
            count += 1
            if orientationErrorDeg(f.boardToENU!, s.truth).heading <= accuracy { inside += 1 }
        }
        #expect(Double(inside) / Double(count) > 0.9)
    }
}
