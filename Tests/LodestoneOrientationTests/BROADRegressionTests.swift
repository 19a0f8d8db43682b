import Foundation
import LodestoneCore
@testable import LodestoneOrientation
import LodestoneLinux
import Testing

/// Keeps the committed accuracy table (benchmarks/accuracy/orientation/results.md) honest in CI: two real BROAD
/// trials (Laidig et al. 2021, CC BY 4.0; ../shared/datasets/broad), scored with BROAD's metric, with the default
/// parameters. Trial 21 (fast combined motion, undisturbed) exercises the inclination low-pass, the bias
/// estimation and the sensor-delay compensation; trial 32 (a magnet attached 1 cm from the IMU for a minute)
/// exercises disturbance rejection and the board-fixed field tracker. The bounds are the committed results plus
/// about 25 %: a regression fails here long before the table would be re-run.
@Suite struct BROADRegressionTests {
    struct Trial {
        var timeS: [Double] = []
        var accelerometer: [Vector3] = []
        var gyroscope: [Vector3] = []
        var magnetometer: [Vector3] = []
        var truth: [Quaternion?] = []
        var valid: [Bool] = []
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/datasets/broad").standardized.path

    /// Reads a BROAD file (its README: fixed header, `nan` where the truth is missing).
    static func load(_ name: String) throws -> Trial {
        let bytes = try GzipFile.readAll(path: directory + "/" + name + ".csv.gz")
        var trial = Trial()
        var first = true
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            if first { first = false; continue }
            let v = line.split(separator: ",").map { Double($0) ?? .nan }
            guard v.count == 15 else { throw CocoaError(.fileReadCorruptFile) }
            trial.timeS.append(v[0])
            trial.accelerometer.append(Vector3(v[1], v[2], v[3]))
            trial.gyroscope.append(Vector3(v[4], v[5], v[6]))
            trial.magnetometer.append(Vector3(v[7], v[8], v[9]))
            trial.truth.append(v[10].isFinite ? Quaternion(w: v[10], x: v[11], y: v[12], z: v[13]) : nil)
            trial.valid.append(v[14] == 1 && v[10].isFinite)
        }
        return trial
    }

    /// BROAD's RMSEs (total, heading, inclination; degrees) over the valid samples, and the share of them whose
    /// heading error is within the reported accuracy.
    /// `expectedFieldMicroTesla`: the field strength a calibration would have measured in the lab (`setExpectedField`).
    static func score(_ trial: Trial, expectedFieldMicroTesla: Double? = nil)
        -> (total: Double, heading: Double, inclination: Double, coverage: Double)
    {
        var filter = OrientationFilter()
        filter.setExpectedField(normMicroTesla: expectedFieldMicroTesla, dipDeg: nil)
        var sum = (0.0, 0.0, 0.0), count = 0, inside = 0
        for i in trial.timeS.indices {
            filter.update(
                timeS: trial.timeS[i], gyroscopeRadS: trial.gyroscope[i], accelerometerMps2: trial.accelerometer[i],
                magnetometerMicroTesla: trial.magnetometer[i])
            guard trial.valid[i], let truth = trial.truth[i], let q = filter.boardToENU else { continue }
            let e = orientationErrorDeg(q, truth)
            sum.0 += e.total * e.total; sum.1 += e.heading * e.heading; sum.2 += e.inclination * e.inclination
            count += 1
            if let accuracy = filter.headingAccuracyDeg, e.heading <= accuracy { inside += 1 }
        }
        let n = Double(count)
        return ((sum.0 / n).squareRoot(), (sum.1 / n).squareRoot(), (sum.2 / n).squareRoot(), Double(inside) / n)
    }

    @Test func fastCombinedMotionStaysAccurate() throws {
        let r = Self.score(try Self.load("21_undisturbed_fast_combined"))
        #expect(r.total < 2.4, "total RMSE \(r.total)° (committed 1.9°)")
        #expect(r.inclination < 1.3, "inclination RMSE \(r.inclination)° (committed 1.0°)")
        #expect(r.coverage > 0.8, "heading accuracy coverage \(r.coverage)")
    }

    @Test func attachedMagnetIsTrackedAndTheHeadingKept() throws {
        let r = Self.score(try Self.load("32_disturbed_attached_magnet_1cm"))
        #expect(r.total < 1.6, "total RMSE \(r.total)° (committed 1.3°; VQF 7.7°)")
        #expect(r.heading < 1.5, "heading RMSE \(r.heading)°")
        #expect(r.coverage > 0.9, "heading accuracy coverage \(r.coverage)")
    }

    /// Trial 27: a vibrating phone on the board, moved without turning, so its field (1.8 µT more than the lab's) is
    /// fixed to the board and nothing shows it; the heading is 6° off throughout. Alone the filter states an accuracy
    /// that misses it; told the lab's field strength (here trial 21's median |B|, as a calibration made in the lab
    /// would have measured it), its accuracy covers the error (issue 17).
    @Test func aPhoneOnTheBoardWidensTheAccuracyWhenTheLabsFieldIsKnown() throws {
        let lab = try Self.load("21_undisturbed_fast_combined")
        let norms = lab.magnetometer.map(\.length).filter(\.isFinite).sorted()
        let labFieldMicroTesla = norms[norms.count / 2]
        let trial = try Self.load("27_disturbed_phone_vibration_B")
        let alone = Self.score(trial)
        #expect(alone.heading > 6 && alone.coverage < 0.1, "\(alone) (committed: heading 6.7°, covered 3.4 %)")
        let told = Self.score(trial, expectedFieldMicroTesla: labFieldMicroTesla)
        #expect(abs(told.heading - alone.heading) < 1e-9, "the expected field does not steer the filter")
        #expect(told.coverage >= 0.9, "heading accuracy coverage \(told.coverage) with the lab's \(labFieldMicroTesla) µT")
    }
}
