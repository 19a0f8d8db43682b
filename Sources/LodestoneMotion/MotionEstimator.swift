import LodestoneCore

/// Altitude, activity and pedometer together, fed sample by sample: what Core Motion's `CMAltimeter`,
/// `CMMotionActivityManager` and `CMPedometer` give an iPhone. Synchronous, owned by one task, allocation-free
/// per sample once built.
///
/// Inputs: the accelerometer (board axes, any mounting), the gyroscope and the barometer when present, a
/// receiver's fix (altitude for the barometer's bias and the QNH, speed for the activity and the stride), and
/// the orientation when the orientation stage has one (for the vertical acceleration; without it a gravity
/// estimate of its own is used).
public struct MotionEstimator: Sendable {
    /// Everything that can be set before a run.
    public struct Configuration: Sendable {
        /// Settings of each part.
        public var altitude = AltitudeFilter.Parameters()
        public var floors = FloorCounter.Parameters()
        public var pedometer = Pedometer.Parameters()
        public var activity = ActivityClassifier.Parameters()
        /// The activity model (default: the shipped one).
        public var model: ActivityModel = .standard

        /// The defaults.
        public init() {}
    }

    /// What one sample changed.
    public struct Changes: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: UInt8
        /// Changes from bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// A barometer reading: pressure, altitude, relative altitude, vertical speed.
        public static let altitude = Changes(rawValue: 1 << 0)
        /// GNSS corrected the barometer's bias (absolute altitude, QNH).
        public static let bias = Changes(rawValue: 1 << 1)
        /// A floor was counted.
        public static let floors = Changes(rawValue: 1 << 2)
        /// Steps were counted.
        public static let steps = Changes(rawValue: 1 << 3)
        /// The activity was re-evaluated (once a second).
        public static let activityEvaluated = Changes(rawValue: 1 << 4)
        /// The reported activity changed (kind or confidence).
        public static let activity = Changes(rawValue: 1 << 5)
    }

    /// The parts: altitude filter, floor counter, pedometer, activity classifier.
    public private(set) var altitude: AltitudeFilter
    public private(set) var floors: FloorCounter
    public private(set) var pedometer: Pedometer
    public private(set) var classifier: ActivityClassifier
    private var timeline = SampleTimeline()
    /// Time of the latest sample, s.
    public private(set) var timeS: Double?

    /// An estimator with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        altitude = AltitudeFilter(parameters: configuration.altitude)
        floors = FloorCounter(parameters: configuration.floors)
        pedometer = Pedometer(parameters: configuration.pedometer)
        classifier = ActivityClassifier(model: configuration.model, parameters: configuration.activity)
    }

    /// The activity now.
    /// `@inlinable` for the reason `pedometerData` is.
    @inlinable public var activity: MotionActivity { classifier.activity }

    /// True while the carrier is on foot: steps are being taken and the activity is not cycling or driving with
    /// high confidence (a pedalling thigh would otherwise count steps and floors).
    public var isOnFoot: Bool {
        guard let t = timeS, pedometer.isStepping(atTimeS: t) else { return false }
        return stepsAllowed
    }

    private var stepsAllowed: Bool {
        let a = classifier.activity
        return !((a.kind == .cycle || a.kind == .drive) && a.confidence == .high)
    }

    /// Live pedometer data since the start.
    ///
    /// Inlined into its caller (with `Pedometer.data`): `replay` reads it once a row from another module, and a plain
    /// getter of this 2.9 KB value copied it first.
    @inlinable @inline(__always) public var pedometerData: PedometerData {
        pedometer.data(atTimeS: timeS ?? 0, running: classifier.activity.kind == .run)
    }

    /// Consumes one sample: a sensor reading (board axes, SI), a receiver's fix if one arrived, and the
    /// orientation (board → ENU) when known.
    public mutating func process(reading: SensorReading, fix: ReceiverFix?, boardToENU: Quaternion?) -> Changes {
        var changes: Changes = []
        let t = reading.timeS
        guard t.isFinite else { return changes }
        timeS = max(timeS ?? t, t)
        if let f = fix {
            if let v = f.speedMps, v.isFinite {
                classifier.addSpeed(v, timeS: t)
                if isOnFoot { pedometer.addSpeed(v, timeS: t, running: classifier.activity.kind == .run) }
            }
            if f.mode >= .threeDimensional, let h = Self.altitudeMSLM(of: f) {
                if !altitude.addGNSSAltitude(h, accuracyM: f.verticalAccuracyM, timeS: t).isEmpty { changes.insert(.bias) }
            }
        }
        if let acc = reading.accelerationMps2 {
            altitude.addAcceleration(specificForceBoardMps2: acc, boardToENU: boardToENU, timeS: t)
            let before = classifier.activity
            if classifier.update(specificForceMps2: acc, angularVelocityRadS: reading.angularVelocityRadS, timeS: t) {
                changes.insert(.activityEvaluated)
                let now = classifier.activity
                if now.kind != before.kind || now.confidence != before.confidence { changes.insert(.activity) }
            }
            let tau = timeline.place(reportedTimeS: t)
            if pedometer.update(
                specificForceMps2: acc, timeS: tau, allowSteps: stepsAllowed,
                running: classifier.activity.kind == .run) > 0
            {
                changes.insert(.steps)
            }
        }
        if let p = reading.pressurePa, !altitude.addPressure(p, timeS: t).isEmpty {
            changes.insert(.altitude)
            if let h = altitude.barometricAltitudeM, let v = altitude.verticalSpeedMps {
                let counted = floors.update(altitudeM: h, verticalSpeedMps: v, onFoot: isOnFoot, timeS: t)
                if counted != 0 {
                    pedometer.addFloors(ascended: max(0, counted), descended: max(0, -counted), timeS: t)
                    changes.insert(.floors)
                }
            }
        }
        return changes
    }

    /// The altitude above mean sea level a fix states: its MSL altitude, or its ellipsoidal height minus the
    /// geoid separation; without either, its ellipsoidal height (the datum is then the ellipsoid, tens of
    /// metres off MSL, and the learned QNH absorbs the difference).
    static func altitudeMSLM(of f: ReceiverFix) -> Double? {
        if let a = f.altitudeMSLM { return a }
        if let h = f.heightAboveEllipsoidM, let n = f.geoidSeparationM { return h - n }
        return f.heightAboveEllipsoidM
    }
}
