import LodestoneCore
import LodestoneSimulation
@testable import LodestoneCalibration

/// Synthetic magnetometer data: the Earth's field seen through a known hard and soft iron, in orientations
/// spread over the sphere, with Gaussian noise.
struct SyntheticMagnetometer {
    var fieldENUMicroTesla = Vector3(0.9, 21.3, -43.3)   // roughly Zürich, WMM2025 (F ≈ 48.3 µT, I ≈ 63.8°)
    var hardIronMicroTesla = Vector3(12.0, -7.5, 4.0)
    var softIron = Matrix3(rows: Vector3(1.03, 0.02, 0.0), Vector3(0.02, 0.97, 0.01), Vector3(0.0, 0.01, 1.0))
    var noiseMicroTesla = 0.32
    var seed: UInt64 = 1

    /// A uniformly random rotation (Shoemake, *Uniform random rotations*, Graphics Gems III, 1992).
    static func randomRotation(_ r: inout SeededGenerator) -> Quaternion {
        let u1 = r.uniform(), u2 = r.uniform() * 2 * Double.pi, u3 = r.uniform() * 2 * Double.pi
        let a = (1 - u1).squareRoot(), b = u1.squareRoot()
        return Quaternion(w: b * cos(u3), x: a * sin(u2), y: a * cos(u2), z: b * sin(u3))
    }

    /// The reading for a board orientation (board → ENU), and the true board-frame field.
    func reading(_ boardToENU: Quaternion, _ random: inout SeededGenerator) -> (measured: Vector3, truth: Vector3) {
        let truth = boardToENU.conjugate.rotate(fieldENUMicroTesla)
        let noise = Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * noiseMicroTesla
        return (softIron * truth + hardIronMicroTesla + noise, truth)
    }

    /// `count` readings in uniformly random orientations.
    func samples(_ count: Int) -> [Vector3] {
        var r = SeededGenerator(seed: seed)
        return (0..<count).map { _ in reading(Self.randomRotation(&r), &r).measured }
    }

    /// Readings while the board spins flat about its z axis (a cone of directions, not a sphere).
    func flatSpin(_ count: Int) -> [Vector3] {
        var r = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            reading(Quaternion(axis: Vector3(0, 0, 1), angleRad: Double(i) * 0.1), &r).measured
        }
    }
}

/// Largest absolute entry-wise difference.
func maximumDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
    zip(a.rowMajor, b.rowMajor).map { abs($0 - $1) }.max() ?? 0
}

/// A matrix scaled to determinant 1.
func unitDeterminant(_ m: Matrix3) -> Matrix3 {
    let d = m.determinant
    return m * (1 / (d < 0 ? -1 : 1) / Double.pow(abs(d), 1.0 / 3))
}

import RealModule
func cos(_ x: Double) -> Double { Double.cos(x) }
func sin(_ x: Double) -> Double { Double.sin(x) }
