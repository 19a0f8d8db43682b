import LodestoneCore
import LodestoneSimulation
import Testing
@testable import LodestoneCalibration

@Suite struct SphereCoverageTests {
    /// Equal-height bands are equal-area (Archimedes): uniformly random directions fall into each of the 64
    /// sectors about equally often.
    @Test func sectorsHaveEqualArea() {
        var r = SeededGenerator(seed: 3)
        var counts = [Int](repeating: 0, count: SphereCoverage.sectorCount)
        let n = 64_000
        for _ in 0..<n {
            let v = SyntheticMagnetometer.randomRotation(&r).rotate(Vector3(0, 0, 1))
            counts[SphereCoverage.sector(of: v)!] += 1
        }
        for c in counts { #expect(abs(Double(c) - 1000) < 150) } // ±4.7σ of a binomial with p = 1/64
    }

    @Test func centresLieInTheirOwnSectorsAndCoverageCounts() {
        var c = SphereCoverage()
        for s in 0..<SphereCoverage.sectorCount {
            #expect(SphereCoverage.sector(of: SphereCoverage.center(ofSector: s)) == s)
            #expect(!c.contains(sector: s))
            c.insert(SphereCoverage.center(ofSector: s) * 40)
        }
        #expect(c.coveredCount == 64)
        #expect(c.fraction == 1)
        #expect(c.largestGapDirection == nil)
        #expect(SphereCoverage.sector(of: .zero) == nil)
    }

    @Test func theLargestGapIsWhereNothingWasSeen() {
        var c = SphereCoverage()
        for s in 0..<SphereCoverage.sectorCount where SphereCoverage.center(ofSector: s).z > -0.5 {
            c.insert(SphereCoverage.center(ofSector: s))
        }
        let gap = c.largestGapDirection!
        #expect(gap.z < -0.7)
        #expect(SphereCoverage.boardPart(toward: gap).hasPrefix("the back (−z)"))
        #expect(SphereCoverage.boardPart(toward: Vector3(0.7, 0.7, 0)) == "the right edge (+x) and the top edge (+y)")
    }
}

@Suite struct MountingCheckTests {
    /// Calibrated field and up direction in `count` random orientations, the field in axes `axes`.
    func pairs(axes: Matrix3, count: Int = 300) -> ([Vector3], [Vector3]) {
        var r = SeededGenerator(seed: 5)
        var f: [Vector3] = [], u: [Vector3] = []
        for _ in 0..<count {
            let q = SyntheticMagnetometer.randomRotation(&r)
            f.append(axes * q.conjugate.rotate(Vector3(0.9, 21.3, -43.3)))
            u.append(q.conjugate.rotate(Vector3(0, 0, 9.81)))
        }
        return (f, u)
    }

    @Test func correctAxesAreConsistentAndGiveTheDip() {
        let (f, u) = pairs(axes: .identity)
        guard case let .consistent(dip, spread) = MountingCheck.check(fieldMicroTesla: f, up: u, expectedInclinationDeg: 63.8)
        else {
            Issue.record("not consistent"); return
        }
        #expect(abs(dip - 63.8) < 0.5)
        #expect(spread < 0.1)
    }

    @Test(arguments: [
        ([0.0, 1, 0, 1, 0, 0, 0, 0, 1], "x and y swapped"),
        ([1.0, 0, 0, 0, 1, 0, 0, 0, -1], "board z inverted"),
        ([0.0, -1, 0, 1, 0, 0, 0, 0, 1], "x and y swapped, board y inverted"),
        ([-1.0, 0, 0, 0, -1, 0, 0, 0, -1], "all three axes inverted")
    ])
    func swappedOrInvertedAxesAreNamed(_ wrong: [Double], _ description: String) {
        let axes = Matrix3(rowMajor: wrong)!
        let (f, u) = pairs(axes: axes)
        guard
            case let .mistake(correction, text, spread, corrected) = MountingCheck.check(
                fieldMicroTesla: f, up: u, expectedInclinationDeg: 63.8)
        else {
            Issue.record("\(description) not detected"); return
        }
        #expect(text == description)
        // The correction undoes the mistake.
        #expect(maximumDifference(correction * axes, .identity) < 1e-12)
        #expect(corrected < 0.1)
        #expect(spread > 10 || description == "all three axes inverted")
    }

    @Test func aBoardOnlySpunFlatIsNotChecked() {
        let f = (0..<100).map { i in
            Quaternion(axis: Vector3(0, 0, 1), angleRad: Double(i) * 0.1).conjugate.rotate(Vector3(0.9, 21.3, -43.3))
        }
        let u = [Vector3](repeating: Vector3(0, 0, 9.81), count: 100)
        guard case .notChecked(let why) = MountingCheck.check(fieldMicroTesla: f, up: u, expectedInclinationDeg: 63.8) else {
            Issue.record("checked without tilt"); return
        }
        #expect(why.contains("not tilted enough"))
    }
}
