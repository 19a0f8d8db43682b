import LodestoneCalibration
import LodestoneCore
import LodestoneOrientation
import LodestoneTrace

/// The orientation stage of fusion (issue 4): runs `OrientationFilter` over the gyroscope, accelerometer and
/// magnetometer, writes `boardToENU` and `atRest` into the context, and derives the `CLHeading`-style heading
/// (magnetic, true from the World Magnetic Model at the context's position and date, accuracy, calibration).
public struct OrientationStage: FusionStage {
    /// The stage's settings (part of `FusionConfiguration`).
    public struct Configuration: Sendable {
        /// Which sensors fuse into the orientation.
        public enum Mode: String, Sendable, CaseIterable {
            /// Gyroscope and accelerometer: inclination is absolute, heading is relative to the start and drifts
            /// with the residual gyroscope bias (its accuracy is reported as invalid, −1).
            case sixD = "6d"
            /// Gyroscope, accelerometer and magnetometer: absolute heading.
            case nineD = "9d"
        }

        /// The filter's tunables (defaults tuned once on BROAD's development trials).
        public var parameters = OrientationFilter.Parameters()
        /// 6D or 9D. Default 9D (a board without a magnetometer runs 6D by itself).
        public var mode = Mode.nineD
        /// A fixed declination, degrees east, instead of the World Magnetic Model's (0 for BROAD, whose lab north
        /// is magnetic). `nil`: from the model at the best known position and date.
        public var declinationOverrideDeg: Double?
        /// Core Location's heading filter for the live view: the smallest change of heading shown, degrees;
        /// `nil` shows every change.
        public var headingFilterDeg: Double?
        /// Takes the carrier's own acceleration (`FusionContext.carrierAccelerationENUMps2`, a vehicle's fused
        /// velocity) out of the accelerometer before levelling. Default true; false levels on the specific force as
        /// measured (what the location harness's comparison rows run).
        public var removesCarrierAcceleration = true

        /// The defaults: 9D, the model's declination, no heading filter.
        public init() {}

        /// The decimal year of a date given as `YYYY-MM-DD` (UTC midnight) or as a decimal year (`2026.5`), or
        /// `nil` when it is neither (or not a real date).
        public static func decimalYear(parsing text: String) -> Double? {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            if parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), parts[0].count == 4 {
                return MagneticDeclination.decimalYear(year: y, month: m, day: d)
            }
            guard let year = Double(text), year.isFinite, (1900...2100).contains(year) else { return nil }
            return year
        }

        /// The decimal year of a time in seconds since 1970-01-01T00:00:00Z (e.g. the system clock's "now").
        public static func decimalYear(unixTimeS: Double) -> Double? {
            MagneticDeclination.decimalYear(unixTimeS: unixTimeS)
        }
    }

    /// The filter (its state can be inspected or snapshotted).
    public private(set) var filter: OrientationFilter
    /// The heading of the latest sample; `nil` before the filter has an orientation.
    public private(set) var heading: Heading?
    /// The filter's orientation after the latest sample and its angles (deg), read once for the heading and the row
    /// (each read of `boardToENU` takes a sine and a cosine, each set of angles two arctangents and an arcsine);
    /// `nil` while the filter has none.
    private var orientation: (boardToENU: Quaternion, angles: (rollDeg: Double, pitchDeg: Double, headingDeg: Double))?
    /// The heading filter (`Configuration.headingFilterDeg`) and the last heading it let through.
    public private(set) var headingFilter: HeadingFilter
    private var declination: MagneticDeclination
    private let usesMagnetometer: Bool
    private let usesCarrierAcceleration: Bool
    /// Position and date from the last receiver fix this stage saw, used when the context has none.
    private var fixLatitudeDeg: Double?
    private var fixLongitudeDeg: Double?
    private var fixHeightM: Double?
    private var fixDecimalYear: Double?
    /// The field strength the magnetometer's calibration measured, µT, and the World Magnetic Model's there and then.
    private let calibratedFieldMicroTesla: Double?
    private let calibrationModelFieldMicroTesla: Double?
    /// The model's field strength for which the expected field was last scaled, µT.
    private var scaledForModelFieldMicroTesla: Double?

    /// A stage for `configuration.orientation` (the filter has seen nothing yet).
    public init(configuration: FusionConfiguration) {
        let c = configuration.orientation
        filter = OrientationFilter(parameters: c.parameters)
        // The field the calibration saw is the one to expect: a field that differs from it (a magnet or a phone put on
        // the board since, steel nearby) widens the heading accuracy.
        let calibrated = configuration.calibration.document?.sensors.lazy.compactMap(\.magnetometer).first
        calibratedFieldMicroTesla = calibrated?.fieldStrengthMicroTesla
        calibrationModelFieldMicroTesla = calibrated?.expectedFieldMicroTesla
        filter.setExpectedField(normMicroTesla: calibratedFieldMicroTesla, dipDeg: nil)
        usesMagnetometer = c.mode == .nineD
        usesCarrierAcceleration = c.removesCarrierAcceleration
        declination = MagneticDeclination(overrideDeg: c.declinationOverrideDeg)
        headingFilter = HeadingFilter(minimumChangeDeg: c.headingFilterDeg)
    }

    /// The columns of `lodestone replay`: quaternion board → ENU (Hamilton, scalar first), roll/pitch/heading
    /// (deg), true heading (deg, empty when unknown), heading accuracy (deg, −1 = invalid), magnetic
    /// disturbance and rest (0/1), gyroscope bias (rad/s, board frame), the magnetometer as fusion used it
    /// (µT, board frame), the declination used (deg east) and the calibration signal (0/1).
    public static let columnNames = [
        "qw", "qx", "qy", "qz", "roll_deg", "pitch_deg", "heading_mag_deg", "heading_true_deg", "heading_accuracy_deg",
        "mag_disturbed", "at_rest", "gyro_bias_x_rads", "gyro_bias_y_rads", "gyro_bias_z_rads",
        "mag_x_ut", "mag_y_ut", "mag_z_ut", "declination_deg", "calibration_needed"
    ]

    public var columns: [String] { Self.columnNames }

    public mutating func process(_ sample: FusionSample, context: inout FusionContext) {
        let r = sample.reading
        let field = usesMagnetometer ? r.magneticFieldMicroTesla : nil
        if r.angularVelocityRadS != nil || r.accelerationMps2 != nil || field != nil {
            // The vehicle's acceleration (true ENU) turned into the filter's magnetic ENU: azimuths less the
            // declination, a turn of +declination about up.
            var carrier = Vector3.zero
            if let c = context.carrierAccelerationENUMps2, usesCarrierAcceleration {
                let declinationRad = Angle.radians(fromDegrees: heading?.declinationDeg ?? 0)
                carrier = Quaternion(axis: Vector3(0, 0, 1), angleRad: declinationRad).rotate(c)
            }
            filter.update(
                timeS: sample.timeS, gyroscopeRadS: r.angularVelocityRadS, accelerometerMps2: r.accelerationMps2,
                magnetometerMicroTesla: field, carrierAccelerationMps2: carrier)
        }
        if let fix = sample.fix {
            if fix.hasPosition {
                fixLatitudeDeg = fix.latitudeDeg
                fixLongitudeDeg = fix.longitudeDeg
                fixHeightM = fix.ellipsoidalHeightM
            }
            if let utc = fix.utcS, let year = MagneticDeclination.decimalYear(unixTimeS: utc) { fixDecimalYear = year }
        }
        guard let q = filter.boardToENU else {
            orientation = nil
            return
        }
        let angles = q.rollPitchHeadingDeg
        orientation = (q, angles)
        context.boardToENU = q
        context.atRest = filter.isAtRest
        // The context's position (the location stage's, else the configured one), else the last fix seen here.
        let hasContextPosition = context.latitudeDeg != nil && context.longitudeDeg != nil
        let d = declination.declinationDeg(
            latitudeDeg: hasContextPosition ? context.latitudeDeg : fixLatitudeDeg,
            longitudeDeg: hasContextPosition ? context.longitudeDeg : fixLongitudeDeg,
            heightM: hasContextPosition ? context.heightAboveEllipsoidM : fixHeightM,
            decimalYear: context.decimalYear ?? fixDecimalYear)
        // Away from where it was calibrated the board should see the calibration's field scaled as the model's changes
        // (the place's own disturbance carried along as a ratio).
        if let strength = calibratedFieldMicroTesla, let there = calibrationModelFieldMicroTesla, there > 0,
            let here = declination.totalIntensityMicroTesla, here != scaledForModelFieldMicroTesla
        {
            scaledForModelFieldMicroTesla = here
            filter.setExpectedField(normMicroTesla: strength * here / there, dipDeg: nil)
        }
        let h = filter.heading(magneticHeadingDeg: angles.headingDeg, timeS: sample.timeS, declinationDeg: d)
        heading = h
        _ = headingFilter.offer(h)
    }

    public mutating func appendCells(to line: inout CellTape) {
        guard let (q, angles) = orientation, let h = heading else {
            line.appendEmptyCells(Self.columnNames.count)
            return
        }
        let bias = filter.gyroscopeBiasRadS
        let field = h.magneticFieldMicroTesla
        let hasMagnetometer = filter.state.hasHeading
        line.appendCell(q.w, digits: 6)
        line.appendCell(q.x, digits: 6)
        line.appendCell(q.y, digits: 6)
        line.appendCell(q.z, digits: 6)
        line.appendCell(angles.rollDeg, digits: 2)
        line.appendCell(angles.pitchDeg, digits: 2)
        line.appendCell(h.magneticHeadingDeg, digits: 2)
        line.appendCell(h.trueHeadingDeg, digits: 2)
        line.appendCell(h.headingAccuracyDeg, digits: 2)
        line.appendCell(hasMagnetometer ? (filter.isMagneticallyDisturbed ? 1 : 0) : nil)
        line.appendCell(filter.isAtRest ? 1 : 0)
        line.appendCell(bias.x, digits: 7)
        line.appendCell(bias.y, digits: 7)
        line.appendCell(bias.z, digits: 7)
        line.appendCell(field?.x, digits: 3)
        line.appendCell(field?.y, digits: 3)
        line.appendCell(field?.z, digits: 3)
        line.appendCell(h.declinationDeg, digits: 2)
        line.appendCell(hasMagnetometer ? (h.calibrationNeeded ? 1 : 0) : nil)
    }

    public var liveLines: [String] {
        guard let q = filter.boardToENU, let now = heading else { return ["orientation   waiting for the accelerometer"] }
        let angles = q.rollPitchHeadingDeg
        let shown = headingFilter.lastDelivered ?? now
        var first =
            "orientation   roll \(formatFixed(angles.rollDeg, digits: 1))°  pitch \(formatFixed(angles.pitchDeg, digits: 1))°  "
        if shown.isValid {
            first += "heading \(formatFixed(shown.magneticHeadingDeg, digits: 1))° magnetic"
            if let t = shown.trueHeadingDeg { first += ", \(formatFixed(t, digits: 1))° true" }
            first += " ±\(formatFixed(shown.headingAccuracyDeg, digits: 1))°"
        } else {
            first +=
                "heading \(formatFixed(shown.magneticHeadingDeg, digits: 1))° relative (no magnetometer: drifts, "
                + "±\(formatFixed(filter.relativeHeadingDriftSigmaDeg, digits: 1))° so far)"
        }
        let bias = filter.gyroscopeBiasRadS * Angle.degreesPerRadian
        var second =
            "              gyro bias \(formatFixed(bias.x, digits: 3)) \(formatFixed(bias.y, digits: 3)) "
            + "\(formatFixed(bias.z, digits: 3)) °/s" + (filter.isAtRest ? ", at rest" : "")
        if filter.state.hasHeading {
            second +=
                filter.isMagneticallyDisturbed ? ", magnetic disturbance: heading from the gyroscope" : ", magnetic field ok"
            if now.calibrationNeeded { second += ", magnetometer calibration needed" }
        }
        return [first, second]
    }
}
