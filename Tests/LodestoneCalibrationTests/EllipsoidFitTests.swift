import LodestoneCore
import LodestoneSimulation
import Testing
@testable import LodestoneCalibration

@Suite struct EllipsoidFitTests {
    /// Known answer on synthetic data: hard iron [12, −7.5, 4] µT and the simulated board's soft iron, 0.32 µT
    /// noise (the LIS3MDL's RMS noise), 1500 orientations uniformly over the sphere.
    @Test func recoversKnownHardAndSoftIronFromNoisySamples() throws {
        let synthetic = SyntheticMagnetometer()
        let fit = try EllipsoidFit.fit(synthetic.samples(1500))
        #expect((fit.hardIronMicroTesla - synthetic.hardIronMicroTesla).length < 0.1)
        // W ≈ S⁻¹ up to the overall scale (det W = 1).
        let expected = unitDeterminant(synthetic.softIron.inverted!)
        #expect(maximumDifference(fit.softIronCorrection, expected) < 0.003)
        #expect(abs(fit.softIronCorrection.determinant - 1) < 1e-9)
        #expect(
            abs(
                fit.fieldStrengthMicroTesla - synthetic.fieldENUMicroTesla.length
                    * Double.pow(synthetic.softIron.determinant, 1.0 / 3)) < 0.1)
        #expect(abs(fit.residualMicroTesla - 0.32) < 0.05) // radial noise of isotropic noise = the per-axis σ
        #expect(fit.outlierCount == 0)
        #expect(!fit.isSphere)
    }

    @Test func aFewWildSamplesAreRejectedAsOutliers() throws {
        let synthetic = SyntheticMagnetometer()
        var samples = synthetic.samples(1000)
        for i in stride(from: 0, to: 1000, by: 25) { samples[i] += Vector3(30, -20, 25) } // 40 samples near a magnet
        let fit = try EllipsoidFit.fit(samples)
        #expect(fit.outlierCount >= 38)
        #expect((fit.hardIronMicroTesla - synthetic.hardIronMicroTesla).length < 0.15)
        #expect(fit.residualMicroTesla < 0.4)
    }

    @Test func aSphereFitFindsHardIronOnly() throws {
        var synthetic = SyntheticMagnetometer()
        synthetic.softIron = .identity
        var p = EllipsoidFit.Parameters()
        p.sphereOnly = true
        let fit = try EllipsoidFit.fit(synthetic.samples(500), parameters: p)
        #expect(fit.isSphere)
        #expect(fit.softIronCorrection == .identity)
        #expect((fit.hardIronMicroTesla - synthetic.hardIronMicroTesla).length < 0.1)
    }

    @Test func tooFewOrIdenticalSamplesAreNotAnEllipsoid() {
        #expect(throws: EllipsoidFit.Failure.tooFewSamples(count: 5)) {
            try EllipsoidFit.fit(Array(repeating: Vector3(1, 2, 3), count: 5))
        }
        #expect(throws: EllipsoidFit.Failure.notAnEllipsoid) {
            try EllipsoidFit.fit(Array(repeating: Vector3(1, 2, 3), count: 50))
        }
    }

    @Test func symmetricEigenDecompositionReassembles() {
        let m = Matrix3.symmetric(xx: 2, yy: 3, zz: 4, xy: 0.5, xz: -0.3, yz: 0.2)
        let e = SymmetricEigen3(m)
        #expect(maximumDifference(e.map { $0 }, m) < 1e-12)
        let root = e.map { $0.squareRoot() }
        #expect(maximumDifference(root * root, m) < 1e-12)
        #expect(e.values.x <= e.values.y && e.values.y <= e.values.z)
    }
}
