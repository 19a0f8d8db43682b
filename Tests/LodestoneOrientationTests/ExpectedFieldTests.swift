import Foundation
import LodestoneCore
import LodestoneOrientation
import Testing

/// The field the board should see (a calibration's field strength): when the measured field disagrees with it, the
/// heading accuracy widens (issue 17: BROAD trial 27, a phone on the board, its field 1.8 µT stronger than the lab's and
/// the heading 6° off, was covered by the stated accuracy in 3.4 % of its samples).
@Suite struct ExpectedFieldTests {
    /// The lab's field: 44.2 µT, dip 69.3° (BROAD's).
    static let normMicroTesla = 44.2, dipRad = 69.3 * Double.pi / 180
    static var horizontalMicroTesla: Double { normMicroTesla * cos(dipRad) }

    struct Outcome { var errorDeg, accuracyDeg: Double }

    /// A board pointing north for `durationS`, rocking ±3° about its x axis (so that it is not at rest: rest has its
    /// own accuracy) but never turning about the vertical (nothing in the data shows a board-fixed offset), with a
    /// board-fixed `offsetMicroTesla` and the field `earthMicroTesla` (ENU), told to expect `expectedNormMicroTesla`
    /// and `expectedDipDeg`.
    static func run(
        offsetMicroTesla offset: Vector3, earthMicroTesla: Vector3? = nil, expectedNormMicroTesla: Double?,
        expectedDipDeg: Double? = nil, durationS: Double = 120
    ) -> Outcome {
        var filter = OrientationFilter()
        filter.setExpectedField(normMicroTesla: expectedNormMicroTesla, dipDeg: expectedDipDeg)
        let earth = earthMicroTesla ?? Vector3(0, horizontalMicroTesla, -normMicroTesla * sin(dipRad))
        let gravity = Vector3(0, 0, PhysicalConstants.standardGravityMps2)
        let amplitudeRad = 3 * Double.pi / 180, omega = 2 * Double.pi * 0.5
        /// An earth vector in the board's axes when the board is turned by `angle` about x.
        func inBoard(_ v: Vector3, _ angle: Double) -> Vector3 {
            Vector3(v.x, v.y * cos(angle) + v.z * sin(angle), -v.y * sin(angle) + v.z * cos(angle))
        }
        for i in 0...Int(durationS / 0.01) {
            let t = Double(i) * 0.01
            let angle = amplitudeRad * sin(omega * t)
            filter.update(
                timeS: t, gyroscopeRadS: Vector3(amplitudeRad * omega * cos(omega * t), 0, 0),
                accelerometerMps2: inBoard(gravity, angle), magnetometerMicroTesla: inBoard(earth, angle) + offset)
        }
        let heading = filter.heading(timeS: durationS, declinationDeg: nil)
        var error = abs(heading?.magneticHeadingDeg ?? .nan).truncatingRemainder(dividingBy: 360)
        if error > 180 { error = 360 - error }
        return Outcome(errorDeg: error, accuracyDeg: heading?.headingAccuracyDeg ?? .nan)
    }

    /// Trial 27's kind: 1.6 µT along magnetic east (the heading error, 5.9°) and 1.8 µT along the field (what the norm
    /// shows). Without an expected field the stated accuracy misses the error; with the lab's strength it covers it.
    @Test func aFieldStrongerThanTheCalibrationsWidensTheAccuracy() {
        let alongField = Vector3(0, cos(Self.dipRad), -sin(Self.dipRad))
        let offset = Vector3(1.6, 0, 0) + 1.8 * alongField
        let expectedErrorDeg = atan(1.6 / Self.horizontalMicroTesla) * 180 / Double.pi
        let without = Self.run(offsetMicroTesla: offset, expectedNormMicroTesla: nil)
        #expect(abs(without.errorDeg - expectedErrorDeg) < 1, "\(without)")
        #expect(without.accuracyDeg < without.errorDeg, "\(without)")
        let with = Self.run(offsetMicroTesla: offset, expectedNormMicroTesla: Self.normMicroTesla)
        #expect(abs(with.errorDeg - without.errorDeg) < 0.01, "the expected field does not steer: \(with) vs \(without)")
        #expect(with.accuracyDeg >= with.errorDeg, "\(with)")
        // One observed component (the norm): σ = atan((1.8 − 1 % of 44.2) / horizontal), times 1.645, added in
        // quadrature to what the filter states anyway.
        let sigmaDeg = atan((1.8 - 0.442) / Self.horizontalMicroTesla) * 180 / Double.pi
        let expected = (without.accuracyDeg * without.accuracyDeg + pow(1.645 * sigmaDeg, 2)).squareRoot()
        #expect(abs(with.accuracyDeg - expected) < 0.3, "\(with) vs \(expected)")
    }

    /// A field that agrees with the expected one (within the 1 % tolerance: a scale drift turns no heading) changes
    /// nothing, and neither does clearing the expected field.
    @Test func anAgreeingFieldChangesNothing() {
        let clean = Self.run(offsetMicroTesla: .zero, expectedNormMicroTesla: nil)
        let agreeing = Self.run(offsetMicroTesla: .zero, expectedNormMicroTesla: Self.normMicroTesla * 1.009)
        #expect(agreeing.accuracyDeg == clean.accuracyDeg && agreeing.errorDeg == clean.errorDeg, "\(agreeing) vs \(clean)")
        let beyond = Self.run(offsetMicroTesla: .zero, expectedNormMicroTesla: Self.normMicroTesla * 1.05)
        #expect(beyond.accuracyDeg > clean.accuracyDeg + 1, "\(beyond) vs \(clean)")

        var filter = OrientationFilter()
        filter.setExpectedField(normMicroTesla: 44.2, dipDeg: 69.3)
        #expect(filter.state.magnetic.expectedNormMicroTesla == 44.2)
        #expect(abs((filter.state.magnetic.expectedDipRad ?? 0) - Self.dipRad) < 1e-12)
        filter.setExpectedField(normMicroTesla: nil, dipDeg: 69.3)
        #expect(filter.state.magnetic.expectedNormMicroTesla == nil && filter.state.magnetic.expectedDipRad == nil)
        filter.setExpectedField(normMicroTesla: .nan, dipDeg: nil)
        #expect(filter.state.magnetic.expectedNormMicroTesla == nil)
    }

    /// The dip, when expected too, is the second component the magnetometer can tell: a field tilted 3° steeper with
    /// its norm unchanged widens the accuracy only when the dip is expected.
    @Test func anExpectedDipIsCompared() {
        let dip = Self.dipRad + 3 * Double.pi / 180
        let steeper = Vector3(0, Self.normMicroTesla * cos(dip), -Self.normMicroTesla * sin(dip))
        let normOnly = Self.run(offsetMicroTesla: .zero, earthMicroTesla: steeper, expectedNormMicroTesla: Self.normMicroTesla)
        let withDip = Self.run(
            offsetMicroTesla: .zero, earthMicroTesla: steeper, expectedNormMicroTesla: Self.normMicroTesla, expectedDipDeg: 69.3)
        // 3° of dip at 44.2 µT is 2.3 µT; less the 0.44 µT tolerance, over √2 components, against 15.6 µT: 4.9° 1σ.
        #expect(withDip.accuracyDeg > normOnly.accuracyDeg + 4, "\(withDip) vs \(normOnly)")
    }
}
