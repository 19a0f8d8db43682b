import LodestoneCLI
import LodestoneCore
import LodestoneEngine
import LodestoneLocation
import LodestoneSimulation
import RealModule

/// The location accuracy harness (`benchmarks/accuracy/location`): runs the simulated board through a scenario
/// exactly as `lodestone run` does (register-level chips, real drivers, the engine's scheduling, the simulated
/// receiver), feeds the product's `FusionPipeline` (or the location stage alone, without an orientation), and
/// measures the fused position against the simulator's truth — and the receiver's own fixes against it, as an app
/// without fusion would see them — with diagnostics of what the orientation stage handed location fusion.
public struct LocationTrial {
    /// Where the location stage's orientation comes from.
    public enum OrientationSource: String, Sendable, CaseIterable {
        /// None: the location stage alone, the receiver smoothed and its velocity held through outages.
        case none
        /// The fusion pipeline's orientation stage (`OrientationStage`), as `run` and `replay` use it.
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
        /// The orientation stage takes a vehicle's acceleration out of its levelling
        /// (`OrientationStage.Configuration.removesCarrierAcceleration`; the product's default, true).
        public var removesCarrierAcceleration: Bool

        public init(
            scenario: String, seed: UInt64, orientation: OrientationSource, durationS: Double? = nil,
            filter: NavigationFilter.Parameters = .default, receiverOptimism: Double = 1,
            removesCarrierAcceleration: Bool = true
        ) {
            self.scenario = scenario; self.seed = seed; self.orientation = orientation; self.durationS = durationS
            self.filter = filter; self.receiverOptimism = receiverOptimism
            self.removesCarrierAcceleration = removesCarrierAcceleration
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
        /// True horizontal speed, m/s, and horizontal acceleration magnitude, m/s² (for the orientation diagnostics).
        public var trueSpeedMps: Double = 0
        /// See `trueSpeedMps`.
        public var trueHorizontalAccelerationMps2: Double = 0
        /// The orientation stage said "at rest".
        public var orientationAtRest = false
        /// Angle between the vehicle's forward axis as location fusion learned it (`VehicleMount`) and the truth's,
        /// in board axes, degrees (while moving faster than 2 m/s with the mount known).
        public var mountForwardErrorDeg: Double?
    }

    /// What to run.
    public let options: Options

    /// A trial with `options`.
    public init(options: Options) { self.options = options }

    /// The simulated board of `boards/simulated.json` (MPU-9250 at 100 Hz, LIS3MDL at 40 Hz, BMP280 at 25 Hz).
    /// `unit`: which unit of the chips (their accelerometer offsets); the trials use their seed, so that each is
    /// another uncalibrated board, as a fleet of them would be.
    public static func simulatedBoard(scenario: String, unit: UInt64? = nil) -> BoardDescription {
        BoardDescription(
            name: "Simulated board",
            sensors: [
                .init(id: "imu", chip: "mpu9250", bus: .simulated, address: 0x68, rateHz: 100),
                .init(
                    id: "mag", chip: "lis3mdl", bus: .simulated, address: 0x1C,
                    mount: Matrix3(rows: Vector3(0, -1, 0), Vector3(1, 0, 0), Vector3(0, 0, 1)), rateHz: 40),
                .init(id: "baro", chip: "bmp280", bus: .simulated, address: 0x76, rateHz: 25)
            ], simulation: .init(scenario: scenario, unit: unit))
    }

    /// Runs the trial. Throws when the scenario is unknown.
    public func run() throws(JobError) -> [Epoch] {
        guard let scenario = Scenario.named(options.scenario) else {
            throw JobError(
                "unknown scenario \"\(options.scenario)\"; allowed: " + BoardRuntime.scenarioNames.joined(separator: ", "))
        }
        let duration = options.durationS ?? scenario.totalDurationS + 5
        // The session's loop, unscheduled; the trial fuses the events itself (its own orientation and fix options).
        var core: SessionCore
        do {
            core = try SessionCore(
                configuration: SessionConfiguration(
                    board: Self.simulatedBoard(scenario: scenario.name, unit: options.seed),
                    scenario: scenario.name, seed: options.seed, durationS: duration,
                    speed: 0, scheduling: nil))
        } catch { throw JobError(error.description) }
        guard let world = core.runtime.world else { throw JobError("the simulated board has no world") }
        var configuration = FusionConfiguration()
        configuration.location.filter = options.filter
        configuration.orientation.removesCarrierAcceleration = options.removesCarrierAcceleration
        var pipeline = FusionPipeline(configuration: configuration)
        var stage = LocationStage(configuration: configuration)
        var context = FusionContext()
        let optimism = max(options.receiverOptimism, 1e-3)

        var epochs: [Epoch] = []
        var nextEpochS = 1.0
        var lastFix: ReceiverFix?
        var lastAcceleration: Vector3?
        var fixThisEpoch = false
        var outageStartS: Double?
        let geodesic = Geodesic.wgs84

        func horizontalError(_ lat: Double, _ lon: Double, _ truth: TruthSample) -> Double? {
            geodesic.inverse(
                latitude1Deg: lat, longitude1Deg: lon, latitude2Deg: truth.latitudeDeg,
                longitude2Deg: truth.longitudeDeg)?.distanceM
        }

        func location() -> Location? {
            options.orientation == .pipeline ? pipeline.location.latest : stage.latest
        }

        func feed(_ sample: FusionSample) {
            switch options.orientation {
            case .pipeline: pipeline.process(sample)
            case .none: stage.process(sample, context: &context)
            }
        }

        while let t = core.nextStepTimeS {
            var events: [Engine.Event] = []
            core.step(at: t) { events.append($0) }
            let truth = world.board.truth
            for event in events {
                switch event {
                case .reading(_, let reading):
                    if let f = reading.accelerationMps2 { lastAcceleration = f }
                    feed(FusionSample(reading: reading))
                case .fix(_, var fix):
                    if optimism != 1 {
                        fix.horizontalAccuracyM = fix.horizontalAccuracyM.map { $0 / optimism }
                        fix.verticalAccuracyM = fix.verticalAccuracyM.map { $0 / optimism }
                    }
                    feed(FusionSample(reading: SensorReading(timeS: fix.timeS), fix: fix))
                    lastFix = fix
                    fixThisEpoch = true
                case .degraded, .recovered, .motionWake:
                    break
                }
            }
            if truth.gnssOutage { outageStartS = outageStartS ?? t } else { outageStartS = nil }
            guard t + 1e-9 >= nextEpochS else { continue }
            nextEpochS += 1
            var epoch = Epoch(
                timeS: t, hasFix: fixThisEpoch, isMultipath: fixThisEpoch && (world.board.latestFix?.isMultipath ?? false),
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
                let error = q * truth.boardToENU.conjugate // ENU-frame error rotation
                let up = error.rotate(Vector3(0, 0, 1))
                epoch.orientationTiltErrorDeg = Angle.degrees(fromRadians: Double.acos(min(1, max(-1, up.z))))
                let north = error.rotate(Vector3(0, 1, 0))
                epoch.orientationHeadingErrorDeg = Angle.degrees(fromRadians: Double.atan2(y: north.x, x: north.y))
            }
            let filterState = (options.orientation == .pipeline ? pipeline.location.filter : stage.filter).state
            epoch.receiverVarianceScale = Double.exp(filterState.receiverLogVarianceScale)
            let v = truth.velocityENUMps, a = truth.accelerationENUMps2
            epoch.trueSpeedMps = (v.x * v.x + v.y * v.y).squareRoot()
            epoch.trueHorizontalAccelerationMps2 = (a.x * a.x + a.y * a.y).squareRoot()
            epoch.orientationAtRest = (options.orientation == .pipeline ? pipeline.context : context).atRest == true
            if let forward = filterState.vehicleMount.forwardBoard, epoch.trueSpeedMps > 2,
                let direction = Vector3(v.x, v.y, 0).normalized
            {
                let trueForward = truth.boardToENU.conjugate.rotate(direction)
                epoch.mountForwardErrorDeg = Angle.degrees(fromRadians: Double.acos(min(1, max(-1, forward.dot(trueForward)))))
            }
            if let l = location() {
                epoch.fusedErrorM = horizontalError(l.coordinate.latitudeDeg, l.coordinate.longitudeDeg, truth)
                epoch.fusedAccuracyM = l.horizontalAccuracyM
                if let h = l.ellipsoidalAltitudeM {
                    epoch.fusedVerticalErrorM = abs(h - truth.heightM)
                    epoch.fusedVerticalAccuracyM = l.verticalAccuracyM
                }
                if let v = l.speedMps {
                    let trueSpeed =
                        (truth.velocityENUMps.x * truth.velocityENUMps.x + truth.velocityENUMps.y * truth.velocityENUMps.y)
                        .squareRoot()
                    epoch.fusedSpeedErrorMps = abs(v - trueSpeed)
                }
            }
            epochs.append(epoch)
            fixThisEpoch = false
        }
        return epochs
    }
}

/// Statistics of location trials (one scenario, one fusion configuration, several seeds).
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
    /// The orientation's tilt error, degrees: median while cruising (horizontal acceleration < 0.2 m/s², moving
    /// faster than 2 m/s), 95th percentile and maximum while manoeuvring (≥ 1 m/s²: braking, accelerating, turning).
    public var cruiseTiltMedianDeg: Double?
    public var manoeuvreTiltP95Deg: Double?
    public var manoeuvreTiltMaxDeg: Double?
    /// Seconds the orientation stage said "at rest" while the board moved faster than 1 m/s, and the trials where
    /// it never said so at all (its rest detection never fired).
    public var restWhileMovingS: Int
    public var trialsNeverAtRest: Int
    /// 95th percentile of the vehicle mount's forward-axis error, degrees (`VehicleMount`).
    public var mountForwardErrorP95Deg: Double?

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
        verticalCoverage =
            vertical.isEmpty
            ? nil
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
        let moving = all.filter { $0.trueSpeedMps > 2 && $0.orientationTiltErrorDeg != nil }
        let cruise = moving.filter { $0.trueHorizontalAccelerationMps2 < 0.2 }.compactMap(\.orientationTiltErrorDeg)
        let manoeuvre = moving.filter { $0.trueHorizontalAccelerationMps2 >= 1 }.compactMap(\.orientationTiltErrorDeg)
        cruiseTiltMedianDeg = cruise.isEmpty ? nil : Self.percentile(cruise, 0.5)
        manoeuvreTiltP95Deg = manoeuvre.isEmpty ? nil : Self.percentile(manoeuvre, 0.95)
        manoeuvreTiltMaxDeg = manoeuvre.max()
        restWhileMovingS = all.filter { $0.orientationAtRest && $0.trueSpeedMps > 1 }.count
        trialsNeverAtRest =
            runs.filter { run in run.contains { $0.orientationTiltErrorDeg != nil } && !run.contains(where: \.orientationAtRest) }
            .count
        let mount = all.compactMap(\.mountForwardErrorDeg)
        mountForwardErrorP95Deg = mount.isEmpty ? nil : Self.percentile(mount, 0.95)
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
