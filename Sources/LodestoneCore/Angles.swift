import RealModule

/// Degrees ↔ radians.
public enum Angle {
    /// Degrees per radian.
    public static let degreesPerRadian = 180.0 / Double.pi
    @inlinable public static func degrees(fromRadians r: Double) -> Double { r * degreesPerRadian }
    @inlinable public static func radians(fromDegrees d: Double) -> Double { d / degreesPerRadian }
    /// `deg` wrapped into [0, 360).
    @inlinable public static func wrap360(_ deg: Double) -> Double {
        var d = deg.truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        return d == 360 ? 0 : d
    }
    /// `deg` wrapped into (-180, 180].
    @inlinable public static func wrap180(_ deg: Double) -> Double {
        let d = wrap360(deg)
        return d > 180 ? d - 360 : d
    }
}

extension Quaternion {
    /// Roll, pitch and heading of a board-to-ENU orientation, in degrees.
    ///
    /// Heading is where the board's +y axis points in the horizontal plane, clockwise from north, in [0, 360).
    /// Pitch is the elevation of +y above the horizon (−90…90); roll is rotation about +y, positive when the
    /// right side (+x) goes down (−180…180).
    public var rollPitchHeadingDeg: (rollDeg: Double, pitchDeg: Double, headingDeg: Double) {
        let yE = rotate(Vector3(0, 1, 0)) // board forward in ENU
        let xE = rotate(Vector3(1, 0, 0)) // board right in ENU
        let heading = Angle.wrap360(Angle.degrees(fromRadians: Double.atan2(y: yE.x, x: yE.y)))
        let pitch = Angle.degrees(fromRadians: Double.asin(max(-1, min(1, yE.z))))
        // roll: angle of the right axis below the horizon, in the plane perpendicular to forward
        let zE = rotate(Vector3(0, 0, 1))
        let roll = Angle.degrees(fromRadians: Double.atan2(y: -xE.z, x: zE.z))
        return (roll, pitch, heading)
    }
}
