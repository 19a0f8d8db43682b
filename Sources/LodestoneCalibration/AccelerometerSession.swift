import LodestoneCore
import RealModule

/// The six faces a board can rest on, named by the board axis that points up (the accelerometer then reads
/// +g on it).
public enum BoardFace: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case xUp, xDown, yUp, yDown, zUp, zDown

    /// The axis index (0 x, 1 y, 2 z) and sign (+1 up, −1 down).
    public var axis: Int { rawValue / 2 }
    public var sign: Double { rawValue % 2 == 0 ? 1 : -1 }

    /// The unit vector of the up axis in board axes.
    public var upVector: Vector3 {
        var v = Vector3.zero
        v[axis] = sign
        return v
    }

    /// How a person puts the board in this position.
    public var instruction: String {
        switch self {
        case .zUp: "flat, face up"
        case .zDown: "flat, face down"
        case .xUp: "on its left edge (right edge up)"
        case .xDown: "on its right edge (left edge up)"
        case .yUp: "standing on its bottom edge (top edge up)"
        case .yDown: "standing on its top edge (bottom edge up)"
        }
    }

    /// Short label: "+z up".
    public var description: String { (sign > 0 ? "+" : "−") + ["x", "y", "z"][axis] + " up" }

    /// The face whose up axis is nearest `specificForce`, when it is within `toleranceDeg` of it.
    public static func nearest(to specificForce: Vector3, toleranceDeg: Double = 25) -> BoardFace? {
        guard let u = specificForce.normalized else { return nil }
        let axis = [0, 1, 2].max { abs(u[$0]) < abs(u[$1]) } ?? 2
        guard abs(u[axis]) >= Double.cos(Angle.radians(fromDegrees: toleranceDeg)) else { return nil }
        return BoardFace(rawValue: axis * 2 + (u[axis] > 0 ? 0 : 1))
    }
}

/// Six-position accelerometer calibration with automatic still detection.
///
/// The person sets the board down on each of its six faces; the session notices on its own when it has been
/// still for `holdS` in a new position and captures the mean specific force there. With the six means
/// `aₖ` and gravity `g` along `±eᵢ` in each, the model `a_raw = K·(g·sₖ·eᵢ) + b` (K = scale and cross-axis,
/// b = offset) gives, pair by pair, `K·eᵢ = (a₊ᵢ − a₋ᵢ) / 2g` and `b` = the mean of the three pair mid-points
/// (the least-squares solution of the 18 equations in 12 unknowns; the classic six-position method, e.g.
/// ST AN4508 §6 / Freescale AN3447). The correction is `calibrated = T·(raw − b)` with `T = K⁻¹`.
///
/// The cross-axis terms include any misalignment between the chip and the board's edges, which is what the
/// board frame needs, provided the faces rest on a level surface. The residual (how far the six positions are
/// from the model, m/s²) shows how square and level they were.
public struct AccelerometerSession: Sendable {
    /// Thresholds, with their defaults.
    public struct Parameters: Sendable, Hashable, Codable {
        /// How long the board must be still in a new position before it is captured, s. Default 1.5 s.
        public var holdS = 1.5
        /// Largest angle between the measured up direction and the face's axis, degrees. Default 25°.
        public var faceToleranceDeg = 25.0
        /// Residual for "good" and the most for "acceptable", m/s². Defaults 0.05 and 0.15 (≈ 0.3° and 0.9°).
        public var goodResidualMps2 = 0.05
        public var acceptableResidualMps2 = 0.15
        /// Largest deviation of a scale factor from 1, and largest cross-axis term. Defaults 0.1 and 0.1.
        public var maximumScaleError = 0.1
        public var maximumCrossAxis = 0.1
        /// Largest offset, m/s² (0.3 g; MPU-9250 zero-g tolerance is ±0.06 g X/Y, ±0.08 g Z). Default 3.
        public var maximumOffsetMps2 = 3.0
        /// The stillness detector.
        public var stillness = StillnessDetector.Parameters()
        public init() {}
    }

    /// One captured position.
    public struct Capture: Sendable, Hashable, Codable {
        public var face: BoardFace
        /// Mean specific force over the still window, m/s², board axes.
        public var meanMps2: Vector3
        /// Per-axis standard deviation there, m/s².
        public var spreadMps2: Vector3
        public var samples: Int
        public var timeS: Double
    }

    /// The result.
    public struct Result: Sendable, Hashable {
        /// Offset b, m/s², board axes.
        public var offsetMps2: Vector3
        /// Correction T (scale and cross-axis): calibrated = T·(raw − b).
        public var correction: Matrix3
        /// RMS over the six positions of |T·(aₖ − b) − g·upₖ|, m/s².
        public var residualMps2: Double
        public var gravityMps2: Double
        public var grade: CalibrationGrade
        public var captures: [Capture]
        public var temperatureC: Double?
    }

    public let parameters: Parameters
    /// Local gravity the calibration scales to, m/s².
    public let gravityMps2: Double
    public private(set) var detector: StillnessDetector
    /// Captured positions by face (indexed by `BoardFace.rawValue`).
    public private(set) var captures: [Capture?] = Array(repeating: nil, count: 6)
    /// The face the board rests on now, once still.
    public private(set) var currentFace: BoardFace?
    private var temperatureSumC = 0.0
    private var temperatureCount = 0
    /// Samples delivered.
    public private(set) var delivered = 0

    /// - Parameter gravityMps2: local gravity (WGS84 normal gravity at the board's latitude and height when
    ///   known), default standard gravity 9.80665 m/s².
    public init(gravityMps2: Double = PhysicalConstants.standardGravityMps2, parameters: Parameters = Parameters()) {
        self.parameters = parameters
        self.gravityMps2 = gravityMps2
        detector = StillnessDetector(parameters: parameters.stillness)
    }

    /// Adds a sample; returns the face captured by this sample, if one was. Allocation-free.
    @discardableResult
    public mutating func add(
        timeS: Double, accelerationMps2 a: Vector3, angularVelocityRadS w: Vector3?,
        temperatureC: Double? = nil
    ) -> BoardFace? {
        guard a.x.isFinite, a.y.isFinite, a.z.isFinite else { return nil }
        delivered += 1
        if let t = temperatureC, t.isFinite { temperatureSumC += t; temperatureCount += 1 }
        guard detector.add(timeS: timeS, accelerationMps2: a, angularVelocityRadS: w) else {
            currentFace = nil
            return nil
        }
        let face = BoardFace.nearest(to: detector.meanAccelerationMps2, toleranceDeg: parameters.faceToleranceDeg)
        currentFace = face
        guard let face, captures[face.rawValue] == nil, detector.stillDurationS(at: timeS) >= parameters.holdS else { return nil }
        captures[face.rawValue] = Capture(
            face: face, meanMps2: detector.meanAccelerationMps2,
            spreadMps2: detector.accelerationSpreadMps2,
            samples: detector.windowCount, timeS: timeS)
        return face
    }

    /// Faces still to do, in the order a person would naturally go.
    public var missingFaces: [BoardFace] {
        [BoardFace.zUp, .zDown, .xUp, .xDown, .yUp, .yDown].filter { captures[$0.rawValue] == nil }
    }

    /// True when all six positions are captured.
    public var isComplete: Bool { missingFaces.isEmpty }

    /// Solves and checks, or says why not.
    /// - Parameter gravityMps2: local gravity when it became known after `init` (e.g. from a GNSS fix).
    public func finish(timedOut: Bool = false, gravityMps2 g: Double? = nil) -> Swift.Result<Result, CalibrationError> {
        guard delivered > 0 else { return .failure(CalibrationError(.noSamples, "no accelerometer sample arrived")) }
        let done = captures.compactMap { $0 }
        guard done.count == 6 else {
            let missing = missingFaces.map(\.description).joined(separator: ", ")
            return .failure(
                CalibrationError(timedOut ? .timedOut : .cancelled, "\(done.count) of 6 positions captured; missing \(missing)"))
        }
        return Self.solve(
            done, gravityMps2: g ?? gravityMps2, parameters: parameters,
            temperatureC: temperatureCount > 0 ? temperatureSumC / Double(temperatureCount) : nil)
    }

    /// The six-position solution from one capture per face.
    public static func solve(
        _ captures: [Capture], gravityMps2 g: Double, parameters p: Parameters = Parameters(),
        temperatureC: Double? = nil
    ) -> Swift.Result<Result, CalibrationError> {
        var byFace = [Vector3?](repeating: nil, count: 6)
        for c in captures { byFace[c.face.rawValue] = c.meanMps2 }
        var columns = [Vector3](repeating: .zero, count: 3)
        var offset = Vector3.zero
        for axis in 0..<3 {
            guard let up = byFace[axis * 2], let down = byFace[axis * 2 + 1] else {
                return .failure(
                    CalibrationError(.positionsInconsistent, "positions missing for the \(["x", "y", "z"][axis]) axis"))
            }
            columns[axis] = (up - down) / (2 * g)
            offset += (up + down) / 2
        }
        offset /= 3
        let k = Matrix3(rows: columns[0], columns[1], columns[2]).transposed // columns K·eᵢ
        guard let t = k.inverted else {
            return .failure(CalibrationError(.implausibleScale, "the six positions do not span three axes"))
        }
        var sum = 0.0
        for c in captures {
            let e = t * (c.meanMps2 - offset) - c.face.upVector * g
            sum += e.dot(e)
        }
        let residual = (sum / Double(captures.count)).squareRoot()
        for i in 0..<3 {
            let scale = t[i, i]
            guard abs(scale - 1) <= p.maximumScaleError else {
                return .failure(
                    CalibrationError(
                        .implausibleScale,
                        "\(["x", "y", "z"][i]) scale factor \(fmt(scale, 3)) (allowed 1 ± \(fmt(p.maximumScaleError, 2)))"))
            }
            for j in 0..<3 where j != i && abs(t[i, j]) > p.maximumCrossAxis {
                return .failure(
                    CalibrationError(
                        .implausibleScale,
                        "cross-axis term \(["x", "y", "z"][i])\(["x", "y", "z"][j]) = \(fmt(t[i, j], 3)) (allowed ±\(fmt(p.maximumCrossAxis, 2)))"
                    ))
            }
        }
        guard offset.length <= p.maximumOffsetMps2 else {
            return .failure(
                CalibrationError(
                    .implausibleOffset, "offset \(fmt(offset.length, 2)) m/s² exceeds \(fmt(p.maximumOffsetMps2, 1)) m/s²"))
        }
        guard residual <= p.acceptableResidualMps2 else {
            return .failure(
                CalibrationError(
                    .positionsInconsistent,
                    "the six positions disagree by \(fmt(residual, 3)) m/s² RMS (limit \(fmt(p.acceptableResidualMps2, 2)))"))
        }
        return .success(
            Result(
                offsetMps2: offset, correction: t, residualMps2: residual, gravityMps2: g,
                grade: residual <= p.goodResidualMps2 ? .good : .acceptable,
                captures: captures.sorted { $0.face.rawValue < $1.face.rawValue }, temperatureC: temperatureC))
    }
}
