import LodestoneCore

/// A heading as Core Location's `CLHeading` reports it: where the board's +y axis points in the horizontal
/// plane, clockwise from north, with an accuracy a user can rely on.
///
/// `headingAccuracyDeg` bounds the error of the orientation's rotation about the vertical (BROAD's heading
/// error, Laidig et al. 2021, section 4): the true error is within it about 90 % of the time
/// (`OrientationFilter.Parameters.headingAccuracyCoverageFactor`). Near pitch ±90° (+y vertical) the azimuth of
/// +y is ill-defined and any heading is shaky; the accuracy still describes the rotation about the vertical.
public struct Heading: Sendable, Hashable, Codable {
    /// Time of the sample the heading belongs to, s.
    public var timeS: Double
    /// Magnetic heading, degrees clockwise from magnetic north, [0, 360) (`CLHeading.magneticHeading`).
    public var magneticHeadingDeg: Double
    /// True heading, degrees clockwise from true (geographic) north, [0, 360); `nil` when the declination is
    /// unknown (no position or no date, and no override) (`CLHeading.trueHeading`, which is negative then).
    public var trueHeadingDeg: Double?
    /// The declination used, degrees east of true north (true = magnetic + declination); `nil` when unknown.
    public var declinationDeg: Double?
    /// Accuracy of the heading, degrees, ≥ 0; negative when the heading is not absolute (no magnetometer yet,
    /// or 6D mode) (`CLHeading.headingAccuracy`).
    public var headingAccuracyDeg: Double
    /// The magnetometer reading fusion used, board frame, µT, with any board-fixed offset found removed
    /// (`CLHeading.x`, `.y`, `.z`); `nil` without a magnetometer.
    public var magneticFieldMicroTesla: Vector3?
    /// True when the magnetometer needs calibrating (`locationManagerShouldDisplayHeadingCalibration`): see
    /// `OrientationFilter.needsMagnetometerCalibration`.
    public var calibrationNeeded: Bool

    /// A heading; see each property for units.
    public init(
        timeS: Double, magneticHeadingDeg: Double, trueHeadingDeg: Double?, declinationDeg: Double?,
        headingAccuracyDeg: Double, magneticFieldMicroTesla: Vector3?, calibrationNeeded: Bool
    ) {
        self.timeS = timeS
        self.magneticHeadingDeg = magneticHeadingDeg
        self.trueHeadingDeg = trueHeadingDeg
        self.declinationDeg = declinationDeg
        self.headingAccuracyDeg = headingAccuracyDeg
        self.magneticFieldMicroTesla = magneticFieldMicroTesla
        self.calibrationNeeded = calibrationNeeded
    }

    /// True when the heading is absolute (its accuracy is not negative).
    public var isValid: Bool { headingAccuracyDeg >= 0 }
}

/// Core Location's `headingFilter`: a new heading is delivered only when it differs from the last delivered one
/// by at least `minimumChangeDeg` (or when its validity or the calibration signal changes). `nil` delivers every
/// heading (`kCLHeadingFilterNone`).
public struct HeadingFilter: Sendable, Hashable, Codable {
    /// Smallest change of the magnetic heading that is delivered, degrees, > 0; `nil` for every heading.
    public var minimumChangeDeg: Double?
    /// The last heading delivered.
    public private(set) var lastDelivered: Heading?

    /// A filter with the given minimum change (degrees; `nil` = deliver everything).
    public init(minimumChangeDeg: Double? = nil) {
        self.minimumChangeDeg = minimumChangeDeg
    }

    /// Offers `heading`; returns true (and remembers it) when it is to be delivered.
    public mutating func offer(_ heading: Heading) -> Bool {
        guard let last = lastDelivered, let minimum = minimumChangeDeg else {
            lastDelivered = heading
            return true
        }
        let change = abs(Angle.wrap180(heading.magneticHeadingDeg - last.magneticHeadingDeg))
        guard change >= minimum || heading.isValid != last.isValid || heading.calibrationNeeded != last.calibrationNeeded
        else { return false }
        lastDelivered = heading
        return true
    }
}
