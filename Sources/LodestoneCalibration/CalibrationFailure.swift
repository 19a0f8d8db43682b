/// Why a calibration failed: a fixed list, each reason with what to do about it. Every failed session ends
/// with exactly one of these (and a detail saying what was measured).
public enum CalibrationFailure: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The sensor delivered no samples at all.
    case noSamples
    /// The sensor stopped answering during the session (NACK, vanished from the bus).
    case sensorFailed
    /// The person stopped the session (q, Ctrl-C).
    case cancelled
    /// The session's time ran out before it had what it needs (coverage, six positions).
    case timedOut
    /// Finished with too little of the sphere of directions covered for a trustworthy fit.
    case incompleteCoverage
    /// No ellipsoid fits the samples (too few distinct directions, or a degenerate arrangement).
    case fitFailed
    /// The samples lie too far from the fitted ellipsoid (above 1.6 µT RMS).
    case residualTooHigh
    /// The fitted field strength is outside 15–95 µT, the range of the Earth's field anywhere on the surface.
    case fieldOutOfRange
    /// The fitted field strength disagrees with the World Magnetic Model's at the board's position.
    case fieldDisagreesWithModel
    /// The hard-iron offset is larger than a calibration can sensibly remove (above 180 µT).
    case hardIronTooLarge
    /// The soft-iron correction stretches one axis more than twice another.
    case softIronTooStrong
    /// The magnetometer's axes do not agree with the accelerometer's: a swapped or inverted axis in the board
    /// file's mount matrix.
    case mountingMistake
    /// The board moved while it had to stay still.
    case boardMoved
    /// The six accelerometer positions disagree with each other (not held square and level).
    case positionsInconsistent
    /// The accelerometer's fitted scale or cross-axis terms are outside what a working chip can have.
    case implausibleScale
    /// An offset (accelerometer, gyroscope bias, barometer) is outside what a working chip can have, or the
    /// reference given for it is wrong.
    case implausibleOffset
    /// The pressure changed during the barometer capture (moving, a door, wind, ventilation).
    case pressureUnstable

    /// Remedies in the library's words that a caller's settings carry out (the command line names its flags instead):
    /// a longer session, and the board's position.
    public static let giveMoreTime = "give the session more time"
    public static let givePosition = "give the board's position (latitude and longitude)"

    /// What to do about it, one sentence.
    public var advice: String {
        switch self {
        case .noSamples:
            "check that the sensor is on the board file and answering (a run's status shows its state)"
        case .sensorFailed:
            "check the wiring and the bus (a run's status shows the sensor's state), then calibrate again"
        case .cancelled:
            "nothing was saved; run the calibration again when ready"
        case .timedOut:
            "follow the prompts more quickly, or \(Self.giveMoreTime)"
        case .incompleteCoverage:
            "keep turning the board until every part of the sphere is filled: turn it over, stand it on each edge"
        case .fitFailed:
            "rotate the board through every orientation (not only about one axis), away from metal and magnets"
        case .residualTooHigh:
            "move away from steel, magnets, motors and cables carrying current, and rotate the board slowly and smoothly"
        case .fieldOutOfRange:
            "check the sensor's range setting, and keep magnets and steel away from the board"
        case .fieldDisagreesWithModel:
            "calibrate away from buildings, vehicles and steel structures, or \(Self.givePosition) if it is wrong"
        case .hardIronTooLarge:
            "move the magnetometer away from magnets, speakers, screws and battery leads"
        case .softIronTooStrong:
            "move the magnetometer away from steel parts and shields, or check that no axis of the sensor is broken"
        case .mountingMistake:
            "fix the sensor's mount matrix in the board file as suggested, then calibrate again"
        case .boardMoved:
            "put the board down on something steady, do not touch it, and run again"
        case .positionsInconsistent:
            "set the board down on each face on a flat, level surface and hold it still until it is captured"
        case .implausibleScale:
            "check the accelerometer's range setting and its mount matrix, and redo the six positions on a level surface"
        case .implausibleOffset:
            "check the reference you gave (altitude in m above sea level, QNH in hPa) and that the sensor is the one in the board file"
        case .pressureUnstable:
            "keep the board still, away from draughts, doors and fans, and capture again"
        }
    }

    public var description: String { rawValue }
}

/// A failed calibration: the reason and what was measured, as one line for a person.
public struct CalibrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, from the fixed list.
    public var reason: CalibrationFailure
    /// What was measured, e.g. "fit residual 2.3 µT (limit 1.6 µT)".
    public var detail: String

    public init(_ reason: CalibrationFailure, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// `reason: detail; advice`.
    public var description: String { "\(reason.rawValue): \(detail); \(reason.advice)" }
}

/// How good a successful calibration is. A result that is not at least acceptable is a failure instead.
public enum CalibrationGrade: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Within the acceptable limits but not the good ones (e.g. residual between 1.0 and 1.6 µT).
    case acceptable
    /// Within every "good" limit.
    case good

    public static func < (a: CalibrationGrade, b: CalibrationGrade) -> Bool { a == .acceptable && b == .good }
}
