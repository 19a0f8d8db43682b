import LodestoneCore
import RealModule

/// Detects a magnetometer mounted with swapped or inverted axes (a wrong mount matrix in the board file) by
/// comparing it with the accelerometer.
///
/// The angle between gravity and the Earth's field is fixed where the board is: the field dips below the
/// horizon by the inclination `I` whatever the board's orientation, so `asin(−m̂·û)` (m̂ the calibrated
/// field's direction, û the accelerometer's "up") is the same `I` in every still moment of the session. With a
/// wrong mount matrix the calibrated field is in the wrong axes and that dip swings by tens of degrees as the
/// board turns. The check tries the 48 signed axis permutations `P` and names the one that makes the dip
/// constant; `±P` give the same spread, so the sign is chosen by the World Magnetic Model's inclination when
/// the position is known (otherwise the proper rotation, det +1, is preferred).
public enum MountingCheck {
    /// Thresholds of the check.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Dip spread (standard deviation, °) below which the axes are consistent. Default 6°: noise, the
        /// magnetometer's sample-and-hold lag while the board turns at 150 °/s (≈ 2–3°) and small accelerations
        /// stay below it; a swapped or inverted axis gives tens of degrees.
        public var consistentDipSpreadDeg = 6.0
        /// Fewest still moments (gravity and field pairs) the check needs. Default 30.
        public var minimumPairs = 30
        /// Smallest angle (°) the "up" directions must span between pairs for the check to mean anything
        /// (a board only spun flat cannot tell a swapped x/y). Default 60°.
        public var minimumTiltSpanDeg = 60.0
        public init() {}
    }

    /// What the check found.
    public enum Outcome: Sendable, Hashable {
        /// The axes agree: the dip was `dipDeg` (mean) with spread `spreadDeg`.
        case consistent(dipDeg: Double, spreadDeg: Double)
        /// The axes disagree; `correction` applied to the calibrated field (board axes as the file says) gives
        /// the real board axes, i.e. the mount matrix should be `correction · mount`. `spreadDeg` is the dip
        /// spread as mounted, `correctedSpreadDeg` with the correction.
        case mistake(correction: Matrix3, description: String, spreadDeg: Double, correctedSpreadDeg: Double)
        /// The check could not be made (no accelerometer, too few still moments, not enough tilt).
        case notChecked(String)
    }

    /// The 48 signed permutation matrices (identity first).
    public static let signedPermutations: [Matrix3] = {
        var list: [Matrix3] = []
        let permutations = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        for p in permutations {
            for signs in 0..<8 {
                var rows = [Vector3.zero, .zero, .zero]
                for i in 0..<3 { rows[i][p[i]] = (signs >> i) & 1 == 0 ? 1 : -1 }
                list.append(Matrix3(rows: rows[0], rows[1], rows[2]))
            }
        }
        return list
    }()

    /// Runs the check on pairs of the calibrated field (µT, board axes) and the accelerometer's up direction
    /// (any length) taken at the same still moments. `expectedInclinationDeg` is the WMM's, when known.
    public static func check(
        fieldMicroTesla: [Vector3], up: [Vector3], expectedInclinationDeg: Double?,
        parameters: Parameters = Parameters()
    ) -> Outcome {
        var pairs: [(Vector3, Vector3)] = []
        for (m, u) in zip(fieldMicroTesla, up) {
            if let mn = m.normalized, let un = u.normalized { pairs.append((mn, un)) }
        }
        guard pairs.count >= parameters.minimumPairs else {
            return .notChecked("only \(pairs.count) still moments with both field and gravity (need \(parameters.minimumPairs))")
        }
        // How far apart the up directions are: without tilt, the dip cannot tell swapped horizontal axes apart.
        var meanUp = Vector3.zero
        for (_, u) in pairs { meanUp += u }
        meanUp /= Double(pairs.count)
        var widest = 0.0
        if let axis = meanUp.normalized {
            for (_, u) in pairs { widest = max(widest, Angle.degrees(fromRadians: Double.acos(max(-1, min(1, u.dot(axis)))))) }
        } else {
            widest = 180
        }
        guard 2 * widest >= parameters.minimumTiltSpanDeg else {
            return .notChecked("the board was not tilted enough (up directions within \(Int(2 * widest))°)")
        }

        func dipStatistics(_ p: Matrix3) -> (mean: Double, spread: Double) {
            var sum = 0.0, sumSquares = 0.0
            for (m, u) in pairs {
                let dip = Angle.degrees(fromRadians: Double.asin(max(-1, min(1, -(p * m).dot(u)))))
                sum += dip
                sumSquares += dip * dip
            }
            let n = Double(pairs.count)
            let mean = sum / n
            return (mean, max(0, sumSquares / n - mean * mean).squareRoot())
        }

        let asMounted = dipStatistics(.identity)
        let limit = parameters.consistentDipSpreadDeg
        if asMounted.spread <= limit {
            // ±I give the same spread; only the sign of the dip tells "all three axes inverted" apart.
            if let expected = expectedInclinationDeg, abs(expected) > 10, asMounted.mean * expected < 0, abs(asMounted.mean) > 10
            {
                let minus = Matrix3.identity * -1
                return .mistake(
                    correction: minus, description: describe(minus), spreadDeg: asMounted.spread,
                    correctedSpreadDeg: asMounted.spread)
            }
            return .consistent(dipDeg: asMounted.mean, spreadDeg: asMounted.spread)
        }
        var best: (p: Matrix3, mean: Double, spread: Double)?
        for p in signedPermutations.dropFirst() {
            let s = dipStatistics(p)
            guard s.spread <= limit else { continue }
            if let b = best, abs(b.spread - s.spread) > 1e-9 {
                if s.spread < b.spread { best = (p, s.mean, s.spread) }
                continue
            }
            // A tie is ±P: choose the sign by the model's inclination, else the proper rotation.
            if let b = best {
                let prefersNew: Bool
                if let expected = expectedInclinationDeg, abs(expected) > 10 {
                    prefersNew = s.mean * expected > 0 && b.mean * expected <= 0
                } else {
                    prefersNew = p.determinant > 0 && b.p.determinant < 0
                }
                if prefersNew { best = (p, s.mean, s.spread) }
            } else {
                best = (p, s.mean, s.spread)
            }
        }
        guard let b = best, b.spread < asMounted.spread / 2 else {
            return .notChecked(
                "the dip varied by \(formatDegrees(asMounted.spread))° and no axis swap explains it "
                    + "(strong accelerations during the motion, or a disturbed field)")
        }
        return .mistake(correction: b.p, description: describe(b.p), spreadDeg: asMounted.spread, correctedSpreadDeg: b.spread)
    }

    /// A signed permutation in words: "x and y swapped, z inverted".
    public static func describe(_ p: Matrix3) -> String {
        let names = ["x", "y", "z"]
        var source = [0, 0, 0], sign = [1.0, 1, 1]
        for i in 0..<3 {
            let row = [p.row0, p.row1, p.row2][i]
            for j in 0..<3 where abs(row[j]) > 0.5 { source[i] = j; sign[i] = row[j] > 0 ? 1 : -1 }
        }
        if sign.allSatisfy({ $0 < 0 }) && source == [0, 1, 2] { return "all three axes inverted" }
        var parts: [String] = []
        var seen: Set<Int> = []
        for i in 0..<3 where source[i] != i && !seen.contains(i) {
            let j = source[i]
            if source[j] == i {
                parts.append("\(names[i]) and \(names[j]) swapped")
                seen.formUnion([i, j])
            } else {
                parts.append(
                    "axes rotated (board x, y, z read the sensor's " + (0..<3).map { names[source[$0]] }.joined(separator: ", ")
                        + ")")
                seen.formUnion([0, 1, 2])
            }
        }
        let inverted = (0..<3).filter { sign[$0] < 0 }.map { names[$0] }
        if !inverted.isEmpty {
            parts.append((inverted.count == 1 ? "board " : "board axes ") + inverted.joined(separator: " and ") + " inverted")
        }
        return parts.joined(separator: ", ")
    }

    static func formatDegrees(_ v: Double) -> String { String(Int(v.rounded())) }
}
