import LodestoneCore
import RealModule

/// Vertical kinematic acceleration (m/s², + up, gravity removed) from an accelerometer's specific force, with
/// or without an orientation.
///
/// - With an orientation (`boardToENU` from the orientation stage) the specific force is rotated into ENU and
///   its up component used.
/// - Without one, the direction of gravity in board axes is the specific force low-passed with
///   `directionTimeConstantS` (1 s): the board may be carried any way up and turn slowly.
///
/// In both cases the gravity *magnitude* subtracted is the up component low-passed over
/// `magnitudeTimeConstantS` (30 s), so an accelerometer scale or bias error does not integrate into a climb.
/// What remains is the acceleration of the last tens of seconds: exactly what a barometer cannot see.
public struct VerticalAcceleration: Sendable, Hashable, Codable {
    /// Time constant of the gravity direction estimate, s (used without an orientation).
    public var directionTimeConstantS = 1.0
    /// Time constant of the gravity magnitude estimate, s.
    public var magnitudeTimeConstantS = 30.0
    /// A gap longer than this (s) restarts the low-pass filters.
    public var maximumGapS = 1.0

    /// Low-passed specific force, board axes, m/s².
    public private(set) var gravityBoardMps2: Vector3?
    /// Low-passed up component of the specific force, m/s².
    public private(set) var gravityMagnitudeMps2: Double?
    /// Time of the last sample, s.
    public private(set) var lastTimeS: Double?

    /// A fresh estimator.
    public init() {}

    /// The vertical acceleration for one accelerometer sample, m/s² (+ up); `boardToENU` is used when known.
    public mutating func update(specificForceBoardMps2 f: Vector3, boardToENU: Quaternion?, timeS: Double) -> Double {
        let dt = lastTimeS.map { timeS - $0 } ?? .infinity
        lastTimeS = timeS
        let restart = !(dt >= 0 && dt <= maximumGapS)
        var g = f
        if !restart, let previous = gravityBoardMps2 {
            g = previous + min(1, dt / directionTimeConstantS) * (f - previous)
        }
        gravityBoardMps2 = g
        let up: Double
        if let q = boardToENU {
            up = q.rotate(f).z
        } else if let u = g.normalized {
            up = f.dot(u)
        } else {
            up = f.length
        }
        var magnitude = up
        if !restart, let previous = gravityMagnitudeMps2 {
            magnitude = previous + min(1, dt / magnitudeTimeConstantS) * (up - previous)
        }
        gravityMagnitudeMps2 = magnitude
        return up - magnitude
    }
}
