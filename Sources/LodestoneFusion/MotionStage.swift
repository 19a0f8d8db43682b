import LodestoneCore
import LodestoneMotion
import LodestoneTrace

/// The motion stage of fusion (issue 5): barometric and fused altitude, floors, activity and pedometer
/// (`MotionEstimator`). It reads the orientation stage's `boardToENU` when there is one and writes the activity
/// and the altitude into `FusionContext` for the stages after it.
public struct MotionStage: FusionStage {
    /// The stage's settings (part of `FusionConfiguration`).
    public struct Configuration: Sendable {
        /// The local sea-level pressure (QNH), Pa; `nil` = learn it from GNSS altitude (pressure altitude until then).
        public var seaLevelPressurePa: Double?
        /// Height of one floor, m. Default 3.
        public var floorHeightM = 3.0
        /// Height of the person carrying the board (stride model), m. Default 1.70.
        public var carrierHeightM = 1.70
        /// An activity model to use instead of the shipped one (e.g. one fold of a cross-validation).
        public var activityModel: ActivityModel?

        /// The defaults.
        public init() {}

        /// The estimator's configuration these settings make.
        public var estimator: MotionEstimator.Configuration {
            var c = MotionEstimator.Configuration()
            c.altitude.seaLevelPressurePa = seaLevelPressurePa
            c.floors.floorHeightM = floorHeightM
            c.pedometer.stride.heightM = carrierHeightM
            if let m = activityModel { c.model = m }
            return c
        }
    }

    /// The estimator.
    public private(set) var estimator: MotionEstimator

    public init(configuration: FusionConfiguration) {
        estimator = MotionEstimator(configuration: configuration.motion.estimator)
    }

    /// `lodestone replay` columns of this stage, in order.
    public static let columnNames = [
        "pressure_pa", "altitude_m", "altitude_accuracy_m", "relative_altitude_m",
        "vertical_speed_mps", "floors_up", "floors_down", "activity",
        "activity_confidence", "steps", "cadence_spm"
    ]

    public var columns: [String] { Self.columnNames }

    public mutating func process(_ sample: FusionSample, context: inout FusionContext) {
        _ = estimator.process(reading: sample.reading, fix: sample.fix, boardToENU: context.boardToENU)
        let a = estimator.activity
        context.activity = a.kind == .unknown ? nil : a
        context.altitudeM = estimator.altitude.altitudeM
        context.altitudeAccuracyM = estimator.altitude.altitudeAccuracyM
        context.verticalSpeedMps = estimator.altitude.verticalSpeedMps
    }

    public mutating func appendCells(to line: inout CellTape) {
        // `estimator.altitude` read in place each time: a local `let` of it copied the filter.
        let pedometer = estimator.pedometerData
        line.appendCell(estimator.altitude.pressurePa, digits: 1)
        line.appendCell(estimator.altitude.altitudeM, digits: 2)
        line.appendCell(estimator.altitude.altitudeAccuracyM, digits: 2)
        line.appendCell(estimator.altitude.relativeAltitudeM, digits: 3)
        line.appendCell(estimator.altitude.verticalSpeedMps, digits: 3)
        line.appendCell(pedometer.floorsAscended)
        line.appendCell(pedometer.floorsDescended)
        let activity = estimator.activity
        line.appendCell(activity.kind.rawValue)
        line.appendCell(activity.confidence.rawValue)
        line.appendCell(pedometer.steps)
        line.appendCell(pedometer.currentCadenceStepsPerMinute, digits: 1)
    }

    public var liveLines: [String] {
        let alt = estimator.altitude
        let p = estimator.pedometerData
        let a = estimator.activity
        var lines: [String] = []
        if let pressure = alt.pressurePa, let h = alt.altitudeM, let acc = alt.altitudeAccuracyM {
            var s =
                "altitude     \(formatFixed(h, digits: 1)) m ±\(formatFixed(acc, digits: 1)) m, "
                + "\(formatFixed(pressure / 100, digits: 2)) hPa"
            if let qnh = alt.seaLevelPressurePa { s += ", QNH \(formatFixed(qnh / 100, digits: 1)) hPa" }
            lines.append(s)
            var r = "relative     "
            r += alt.relativeAltitudeM.map { (v: Double) in (v >= 0 ? "+" : "") + formatFixed(v, digits: 2) + " m" } ?? "settling"
            if let v = alt.verticalSpeedMps { r += ", vertical speed \(formatFixed(v, digits: 2)) m/s" }
            lines.append(r)
        }
        var activity = "activity     \(a.kind.rawValue) (\(a.confidence.rawValue) confidence)"
        if a.kind != .unknown { activity += " since t=\(formatFixed(a.startTimeS, digits: 1)) s" }
        lines.append(activity)
        var steps =
            "pedometer    \(p.steps) steps, \(formatFixed(p.distanceM, digits: 1)) m, floors ↑\(p.floorsAscended) ↓\(p.floorsDescended)"
        if let c = p.currentCadenceStepsPerMinute { steps += ", \(formatFixed(c, digits: 0)) steps/min" }
        if let pace = p.currentPaceSPerM, pace > 0 { steps += ", \(formatFixed(1 / pace, digits: 2)) m/s" }
        lines.append(steps)
        return lines
    }
}
