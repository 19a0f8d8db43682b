import LodestoneCore
import LodestoneLocation
import LodestoneSimulation
import RealModule

/// The location accuracy harness (`benchmarks/accuracy/location`): runs the simulated board through a scenario
/// exactly as `lodestone run` does (register-level chips, real drivers, the engine's scheduling, the simulated
/// receiver), feeds the location stage, and measures the fused position against the simulator's truth — and
/// the receiver's own fixes against it, as an app without fusion would see them.
public struct LocationTrial {
    /// Where the location stage's orientation comes from.
    public enum OrientationSource: String, Sendable, CaseIterable {
        /// None: the receiver alone (GNSS-only smoothing and constant-velocity dead reckoning).
        case none
        /// A reference AHRS (`ReferenceAHRS`, Mahony's filter on the board's own IMU and magnetometer): stands
        /// for the orientation stage (issue 4) until it lands, so that inertial dead reckoning can be measured.
        case reference
        /// The fusion pipeline's own orientation stage (whatever this build has; none before issue 4 lands).
        case pipeline
    }

    /// What to run.
    public struct Options: Sendable {
        /// Scenario name, seed of the board and receiver, and the orientation source.
        public var scenario: String
        public var seed: UInt64
        public var orientation: OrientationSource
        /// Stop after this much scenario time, s (default: the scenario plus 5 s of its final hold).
        public var durationS: Double?
        /// The filter's tunables.
        public var filter: NavigationFilter.Parameters
        /// The receiver under-reports its accuracy by this factor (1 = honest; 3 = claims a third of its error).
        public var receiverOptimism: Double
        /// The reference AHRS's settings (`.reference`).
        public var ahrs: ReferenceAHRS.Settings

        public init(scenario: String, seed: UInt64, orientation: OrientationSource, durationS: Double? = nil,
                    filter: NavigationFilter.Parameters = .default, receiverOptimism: Double = 1,
                    ahrs: ReferenceAHRS.Settings = .init()) {
            self.scenario = scenario; self.seed = seed; self.orientation = orientation; self.durationS = durationS
            self.filter = filter; self.receiverOptimism = receiverOptimism; self.ahrs = ahrs
        }
    }

    /// One evaluation instant (every receiver epoch, 1 Hz, including those without a fix).
    public struct Epoch: Sendable, Hashable {
        /// Engine time, s.
        public var timeS: Double
        /// A receiver fix arrived at this epoch.
        public var hasFix: Bool
        /// The fix was displaced by a simulated multipath episode.
        public var isMultipath: Bool
        /// No signal (tunnel, indoors).
        public var inOutage: Bool
        /// Seconds since the outage began (when `inOutage`).
        public var intoOutageS: Double?
        /// Horizontal error of the receiver's fix, m (when `hasFix`), and the accuracy it claimed (as it
        /// reports it: DRMS for the simulated receiver).
        public var receiverErrorM: Double?
        public var receiverAccuracyM: Double?
        /// Horizontal error of the latest fix an app would still hold (the last fix, however old), m.
        public var heldFixErrorM: Double?
        /// Horizontal error of the fused location, m, and its reported 95 % accuracy, m.
        public var fusedErrorM: Double?
        public var fusedAccuracyM: Double?
        /// Vertical error of the fused height and its reported 95 % accuracy, m.
        public var fusedVerticalErrorM: Double?
        public var fusedVerticalAccuracyM: Double?
        /// Speed error of the fused location, m/s.
        public var fusedSpeedErrorMps: Double?
        /// The orientation's errors (when it has one): tilt of its "up", and heading, degrees.
        public var orientationTiltErrorDeg: Double?
        public var orientationHeadingErrorDeg: Double?
        /// Diagnostics: the error of the ENU acceleration the orientation gives (R·f − γ·up − a), and the filter's
        /// estimate of it (its acceleration-bias states), east and north, m/s².
        public var accelerationErrorENUMps2: Vector3?
        public var estimatedAccelerationErrorENUMps2: Vector3?
        /// The variance scale the filter has learned for the receiver's accuracy claims.
        public var receiverVarianceScale: Double?
    }

    /// What to run.
    public let options: Options

    /// A trial with `options`.
    public init(options: Options) { self.options = options }

    /// The simulated board of `boards/simulated.json` (MPU-9250 at 100 Hz, LIS3MDL at 40 Hz, BMP280 at 25 Hz).
    public static func simulatedBoard(scenario: String) -> BoardDescription {
        BoardDescription(name: "Simulated board", sensors: [
            .init(id: "imu", chip: "mpu9250", bus: .simulated, address: 0x68, rateHz: 100),
            .init(id: "mag", chip: "lis3mdl", bus: .simulated, address: 0x1C,
                  mount: Matrix3(rows: Vector3(0, -1, 0), Vector3(1, 0, 0), Vector3(0, 0, 1)), rateHz: 40),
            .init(id: "baro", chip: "bmp280", bus: .simulated, address: 0x76, rateHz: 25),
        ], simulation: .init(scenario: scenario))
    }

    /// Runs the trial. Throws when the scenario is unknown.
    public func run() throws(JobError) -> [Epoch] {
        guard let scenario = Scenario.named(options.scenario) else {
            throw JobError("unknown scenario \"\(options.scenario)\"; allowed: " + BoardRuntime.scenarioNames.joined(separator: ", "))
        }
        let runtime = try BoardRuntime.assemble(Self.simulatedBoard(scenario: scenario.name), seed: options.seed,
                                                scenario: scenario.name)
        guard let world = runtime.world else { throw JobError("the simulated board has no world") }
        var engine = Engine(sources: runtime.sources)
        var configuration = FusionConfiguration()
        configuration.location.filter = options.filter
        var pipeline = FusionPipeline(configuration: configuration)
        var stage = LocationStage(configuration: configuration)
        var context = FusionContext()
        var ahrs = ReferenceAHRS(settings: options.ahrs)
        let duration = options.durationS ?? scenario.totalDurationS + 5
        let optimism = max(options.receiverOptimism, 1e-3)

        var epochs: [Epoch] = []
        var nextEpochS = 1.0
        var lastFix: ReceiverFix?
        var lastAcceleration: Vector3?
        var fixThisEpoch = false
        var outageStartS: Double?
        let geodesic = Geodesic.wgs84

        func horizontalError(_ lat: Double, _ lon: Double, _ truth: TruthSample) -> Double? {
            geodesic.inverse(latitude1Deg: lat, longitude1Deg: lon, latitude2Deg: truth.latitudeDeg,
                             longitude2Deg: truth.longitudeDeg)?.distanceM
        }

        func location() -> Location? {
            options.orientation == .pipeline ? pipeline.location.latest : stage.latest
        }

        func feed(_ sample: FusionSample, truth: TruthSample) {
            switch options.orientation {
            case .pipeline:
                pipeline.process(sample)
            case .none, .reference:
                if options.orientation == .reference {
                    ahrs.update(sample.reading, fieldENUMicroTesla: truth.magneticFieldENUMicroTesla, gravityMps2: truth.gravityMps2)
                    context.boardToENU = ahrs.boardToENU
                }
                stage.process(sample, context: &context)
            }
        }

        while engine.nextDueS <= duration + 1e-9 {
            let t = engine.nextDueS
            var events: [Engine.Event] = []
            engine.step(prepare: { world.advance(toTimeS: $0) }) { events.append($0) }
            let truth = world.board.truth
            for event in events {
                switch event {
                case .reading(_, let reading):
                    if let f = reading.accelerationMps2 { lastAcceleration = f }
                    feed(FusionSample(reading: reading), truth: truth)
                case .fix(_, var fix):
                    if optimism != 1 {
                        fix.horizontalAccuracyM = fix.horizontalAccuracyM.map { $0 / optimism }
                        fix.verticalAccuracyM = fix.verticalAccuracyM.map { $0 / optimism }
                    }
                    feed(FusionSample(reading: SensorReading(timeS: fix.timeS), fix: fix), truth: truth)
                    lastFix = fix
                    fixThisEpoch = true
                case .degraded, .recovered:
                    break
                }
            }
            if truth.gnssOutage { outageStartS = outageStartS ?? t } else { outageStartS = nil }
            guard t + 1e-9 >= nextEpochS else { continue }
            nextEpochS += 1
            var epoch = Epoch(timeS: t, hasFix: fixThisEpoch, isMultipath: fixThisEpoch && (world.board.latestFix?.isMultipath ?? false),
                              inOutage: truth.gnssOutage, intoOutageS: outageStartS.map { t - $0 })
            if let f = lastFix, let lat = f.latitudeDeg, let lon = f.longitudeDeg {
                let error = horizontalError(lat, lon, truth)
                epoch.heldFixErrorM = error
                if fixThisEpoch {
                    epoch.receiverErrorM = error
                    epoch.receiverAccuracyM = f.horizontalAccuracyM
                }
            }
            let orientation = options.orientation == .pipeline ? pipeline.context.boardToENU : context.boardToENU
            if let q = orientation, let f = lastAcceleration {
                var a = q.rotate(f)
                a.z -= truth.gravityMps2
                epoch.accelerationErrorENUMps2 = a - truth.accelerationENUMps2
                let s = (options.orientation == .pipeline ? pipeline.location.filter : stage.filter).state
                epoch.estimatedAccelerationErrorENUMps2 = Vector3(s.east[2], s.north[2], s.up[2])
            }
            if let q = orientation {
                let error = q * truth.boardToENU.conjugate   // ENU-frame error rotation
                let up = error.rotate(Vector3(0, 0, 1))
                epoch.orientationTiltErrorDeg = Angle.degrees(fromRadians: Double.acos(min(1, max(-1, up.z))))
                let north = error.rotate(Vector3(0, 1, 0))
                epoch.orientationHeadingErrorDeg = Angle.degrees(fromRadians: Double.atan2(y: north.x, x: north.y))
            }
            let filterState = (options.orientation == .pipeline ? pipeline.location.filter : stage.filter).state
            epoch.receiverVarianceScale = Double.exp(filterState.receiverLogVarianceScale)
            if let l = location() {
                epoch.fusedErrorM = horizontalError(l.coordinate.latitudeDeg, l.coordinate.longitudeDeg, truth)
                epoch.fusedAccuracyM = l.horizontalAccuracyM
                if let h = l.ellipsoidalAltitudeM {
                    epoch.fusedVerticalErrorM = abs(h - truth.heightM)
                    epoch.fusedVerticalAccuracyM = l.verticalAccuracyM
                }
                if let v = l.speedMps {
                    let trueSpeed = (truth.velocityENUMps.x * truth.velocityENUMps.x + truth.velocityENUMps.y * truth.velocityENUMps.y).squareRoot()
                    epoch.fusedSpeedErrorMps = abs(v - trueSpeed)
                }
            }
            epochs.append(epoch)
            fixThisEpoch = false
        }
        return epochs
    }
}

/// A reference AHRS for the harness, standing for the orientation stage (issue 4) until it lands: Mahony's
/// explicit complementary filter (R. Mahony, T. Hamel, J.-M. Pflimlin, "Nonlinear complementary filters on the
/// special orthogonal group", IEEE TAC 53(5):1203–1218, 2008, eq. 32) fed with the board's own gyroscope,
/// accelerometer and magnetometer readings, so its errors are those a real AHRS makes with these sensors
/// (gyro bias learned by the integral term, tilt disturbed by acceleration, heading by the magnetometer).
///
/// - The error is the accelerometer's direction against the estimated "up" (only while |‖f‖ − g| <
///   `accelerationRejectionMps2`: acceleration rejection), plus `magnetometerWeight` times the horizontal
///   magnetic field's direction against the reference field's (the simulator's WMM field at the true position:
///   a calibrated magnetometer and a known declination), as a rotation about up.
/// - Proportional gain `proportionalGain` (rad/s per rad), integral gain `integralGain` (the gyro bias).
/// - At rest (accelerometer within 0.1 m/s² and gyro within 0.01 rad/s of their 0.5 s running means, for
///   `restTimeS`) the gyro bias is taken from the gyro directly (time constant 2 s), as AHRSs with rest
///   detection do.
/// - Start: TRIAD from the first accelerometer and magnetometer reading (the scenarios start at rest).
public struct ReferenceAHRS: Sendable {
    /// Gains; defaults 0.2 rad/s/rad (5 s), 0.01 /s² (bias learned in ~20 s), magnetometer weight 0.5, and
    /// 0.3 m/s² rejection.
    public struct Settings: Sendable, Hashable {
        /// See the type's description.
        public var proportionalGain = 0.2
        public var integralGain = 0.01
        public var magnetometerWeight = 0.5
        public var accelerationRejectionMps2 = 0.3
        public var restTimeS = 1.0
        public init() {}
    }
    /// The gains.
    public let settings: Settings
    /// The estimate, board → ENU, and the gyro bias estimate (board axes, rad/s).
    public private(set) var boardToENU: Quaternion?
    /// The gyro bias estimate, board axes, rad/s.
    public private(set) var gyroBiasRadS = Vector3.zero
    var lastTimeS: Double?
    var restS = 0.0
    var meanForce = Vector3.zero, meanRate = Vector3.zero

    /// An AHRS that starts at its first accelerometer and magnetometer reading.
    public init(settings: Settings = .init()) { self.settings = settings }

    /// Feeds one IMU reading (board axes) with the reference magnetic field in ENU (µT) and the local gravity.
    public mutating func update(_ r: SensorReading, fieldENUMicroTesla: Vector3?, gravityMps2: Double) {
        guard let f = r.accelerationMps2, let w = r.angularVelocityRadS else { return }
        guard var q = boardToENU else {
            if let m = r.magneticFieldMicroTesla, let reference = fieldENUMicroTesla {
                boardToENU = Self.triad(upBoard: f, fieldBoard: m, fieldENU: reference)
                lastTimeS = r.timeS
            }
            return
        }
        let dt = r.timeS - (lastTimeS ?? r.timeS)
        lastTimeS = r.timeS
        guard dt > 0, dt < 1 else { return }
        var error = Vector3.zero
        // Gravity: measured up (f̂) × estimated up, both in board axes.
        if abs(f.length - gravityMps2) < settings.accelerationRejectionMps2, let measuredUp = f.normalized {
            let estimatedUp = q.conjugate.rotate(Vector3(0, 0, 1))
            error += measuredUp.cross(estimatedUp)
        }
        // Heading: the horizontal field's direction against the reference's, as a rotation about up.
        if let m = r.magneticFieldMicroTesla, let reference = fieldENUMicroTesla {
            let measured = q.rotate(m)
            let angle = Double.atan2(y: measured.x * reference.y - measured.y * reference.x,
                                     x: measured.x * reference.x + measured.y * reference.y)
            error += settings.magnetometerWeight * q.conjugate.rotate(Vector3(0, 0, angle))
        }
        gyroBiasRadS -= settings.integralGain * error * dt
        let smoothing = min(1, dt / 0.5)
        meanForce += (f - meanForce) * smoothing
        meanRate += (w - meanRate) * smoothing
        let still = (f - meanForce).length < 0.1 && (w - meanRate).length < 0.01
        restS = still ? restS + dt : 0
        if restS >= settings.restTimeS { gyroBiasRadS += (w - gyroBiasRadS) * min(1, dt / 2) }
        let rate = w - gyroBiasRadS + settings.proportionalGain * error
        q = (q * Quaternion(rotationVector: rate * dt)).normalized
        boardToENU = q
    }

    /// The rotation taking the measured board-frame directions (up from the accelerometer, the magnetic
    /// field) onto their ENU references (TRIAD: H. D. Black, "A passive system for determining the attitude of
    /// a satellite", AIAA J. 2(7):1350–1351, 1964).
    static func triad(upBoard: Vector3, fieldBoard: Vector3, fieldENU: Vector3) -> Quaternion? {
        guard let b1 = upBoard.normalized, let b2 = b1.cross(fieldBoard).normalized,
              let r2 = Vector3(0, 0, 1).cross(fieldENU).normalized else { return nil }
        let r1 = Vector3(0, 0, 1)
        let b3 = b1.cross(b2), r3 = r1.cross(r2)
        // R = Σ r_i b_iᵀ (board → ENU), rows below.
        let m = Matrix3(rows: Vector3(r1.x * b1.x + r2.x * b2.x + r3.x * b3.x, r1.x * b1.y + r2.x * b2.y + r3.x * b3.y,
                                      r1.x * b1.z + r2.x * b2.z + r3.x * b3.z),
                        Vector3(r1.y * b1.x + r2.y * b2.x + r3.y * b3.x, r1.y * b1.y + r2.y * b2.y + r3.y * b3.y,
                                r1.y * b1.z + r2.y * b2.z + r3.y * b3.z),
                        Vector3(r1.z * b1.x + r2.z * b2.x + r3.z * b3.x, r1.z * b1.y + r2.z * b2.y + r3.z * b3.y,
                                r1.z * b1.z + r2.z * b2.z + r3.z * b3.z))
        return quaternion(m)
    }

    /// The quaternion of a rotation matrix (Shepperd's method: the largest of the four squared components).
    static func quaternion(_ m: Matrix3) -> Quaternion {
        let (a, b, c) = (m.row0, m.row1, m.row2)
        let trace = a.x + b.y + c.z
        if trace > 0 {
            let s = 2 * (1 + trace).squareRoot()
            return Quaternion(w: s / 4, x: (c.y - b.z) / s, y: (a.z - c.x) / s, z: (b.x - a.y) / s).normalized
        } else if a.x > b.y && a.x > c.z {
            let s = 2 * (1 + a.x - b.y - c.z).squareRoot()
            return Quaternion(w: (c.y - b.z) / s, x: s / 4, y: (a.y + b.x) / s, z: (a.z + c.x) / s).normalized
        } else if b.y > c.z {
            let s = 2 * (1 + b.y - a.x - c.z).squareRoot()
            return Quaternion(w: (a.z - c.x) / s, x: (a.y + b.x) / s, y: s / 4, z: (b.z + c.y) / s).normalized
        } else {
            let s = 2 * (1 + c.z - a.x - b.y).squareRoot()
            return Quaternion(w: (b.x - a.y) / s, x: (a.z + c.x) / s, y: (b.z + c.y) / s, z: s / 4).normalized
        }
    }
}

/// Statistics of location trials (one scenario, one orientation source, several seeds).
public struct LocationAccuracySummary: Sendable {
    /// Trials summarised.
    public var trials: Int
    /// Receiver fixes evaluated (epochs with a fix).
    public var fixes: Int
    /// Horizontal error of the receiver's fixes, m: median and 95th percentile.
    public var receiverMedianM: Double
    public var receiverP95M: Double
    /// Horizontal error of the fused location at the same epochs, m.
    public var fusedMedianM: Double
    public var fusedP95M: Double
    /// Fraction of fix epochs where the reported 95 % accuracy covers the true error.
    public var coverageAtFixes: Double
    /// The same over every epoch with a location (outages included).
    public var coverageAll: Double
    /// Fraction of vertical estimates whose 95 % accuracy covers the true error.
    public var verticalCoverage: Double?
    /// Multipath fixes: their receiver error and the fused error at them, m (medians), and how many there were.
    public var multipathFixes: Int
    public var multipathReceiverMedianM: Double?
    public var multipathFusedMedianM: Double?
    /// Outages of at least `minimumOutageS`: the fused error and accuracy at their last second, m (mean and
    /// worst over the trials), the error of the last fix an app would still hold then, and coverage there.
    public var outages: Int
    public var outageLengthS: Double?
    public var outageEndFusedMeanM: Double?
    public var outageEndFusedMaxM: Double?
    public var outageEndAccuracyMeanM: Double?
    public var outageEndHeldFixMeanM: Double?
    public var outageEndCoverage: Double?

    /// Summarises `trials` (each the epochs of one run).
    public init(trials runs: [[LocationTrial.Epoch]], minimumOutageS: Double = 20) {
        trials = runs.count
        let all = runs.flatMap { $0 }
        let atFixes = all.filter { $0.hasFix && $0.receiverErrorM != nil }
        fixes = atFixes.count
        receiverMedianM = Self.percentile(atFixes.compactMap(\.receiverErrorM), 0.5)
        receiverP95M = Self.percentile(atFixes.compactMap(\.receiverErrorM), 0.95)
        let fusedAtFixes = atFixes.filter { $0.fusedErrorM != nil && $0.fusedAccuracyM != nil }
        fusedMedianM = Self.percentile(fusedAtFixes.compactMap(\.fusedErrorM), 0.5)
        fusedP95M = Self.percentile(fusedAtFixes.compactMap(\.fusedErrorM), 0.95)
        coverageAtFixes = Self.fraction(fusedAtFixes) { ($0.fusedErrorM ?? 0) <= ($0.fusedAccuracyM ?? 0) }
        let located = all.filter { $0.fusedErrorM != nil && $0.fusedAccuracyM != nil }
        coverageAll = Self.fraction(located) { ($0.fusedErrorM ?? 0) <= ($0.fusedAccuracyM ?? 0) }
        let vertical = all.filter { $0.fusedVerticalErrorM != nil && $0.fusedVerticalAccuracyM != nil }
        verticalCoverage = vertical.isEmpty ? nil
            : Self.fraction(vertical) { ($0.fusedVerticalErrorM ?? 0) <= ($0.fusedVerticalAccuracyM ?? 0) }
        let multipath = atFixes.filter(\.isMultipath)
        multipathFixes = multipath.count
        multipathReceiverMedianM = multipath.isEmpty ? nil : Self.percentile(multipath.compactMap(\.receiverErrorM), 0.5)
        multipathFusedMedianM = multipath.isEmpty ? nil : Self.percentile(multipath.compactMap(\.fusedErrorM), 0.5)
        // The last second of each outage long enough.
        var ends: [LocationTrial.Epoch] = []
        for run in runs {
            for (i, e) in run.enumerated() where e.inOutage && (i + 1 == run.count || !run[i + 1].inOutage) {
                if let into = e.intoOutageS, into >= minimumOutageS - 1 { ends.append(e) }
            }
        }
        outages = ends.count
        let ended = ends.filter { $0.fusedErrorM != nil && $0.fusedAccuracyM != nil }
        outageLengthS = Self.mean(ends.compactMap { $0.intoOutageS.map { $0 + 1 } })
        outageEndFusedMeanM = Self.mean(ended.compactMap(\.fusedErrorM))
        outageEndFusedMaxM = ended.compactMap(\.fusedErrorM).max()
        outageEndAccuracyMeanM = Self.mean(ended.compactMap(\.fusedAccuracyM))
        outageEndHeldFixMeanM = Self.mean(ends.compactMap(\.heldFixErrorM))
        outageEndCoverage = ended.isEmpty ? nil : Self.fraction(ended) { ($0.fusedErrorM ?? 0) <= ($0.fusedAccuracyM ?? 0) }
    }

    static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let position = p * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down)), upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    static func fraction<T>(_ items: [T], _ predicate: (T) -> Bool) -> Double {
        items.isEmpty ? .nan : Double(items.filter(predicate).count) / Double(items.count)
    }
}
