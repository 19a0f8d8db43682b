import LodestoneCore
import LodestoneLocation
import LodestoneTrace

/// The location stage of fusion (issue 6): receiver fixes fused with the accelerometer (through the
/// orientation stage's `boardToENU`) and the barometer by `NavigationFilter`, giving a `Location` after every
/// sample. Without an orientation (before the orientation stage initialises, or on a board without an IMU) it
/// smooths the receiver alone. It keeps the context's position current (for true heading) and its decimal
/// year (from the receiver's UTC).
public struct LocationStage: FusionStage {
    /// The stage's settings (part of `FusionConfiguration`).
    public struct Configuration: Sendable {
        /// The filter's tunables.
        public var filter = NavigationFilter.Parameters.default
        /// Whether `lodestone replay` shows the location columns (off for a trace without GNSS columns).
        public var showsColumns = true
        public init() {}
    }

    /// The replay columns, in order: position (deg), altitude above MSL (m), 95 % accuracies, speed, course.
    public static let locationColumns = [
        "lat", "lon", "alt_msl_m", "horizontal_accuracy_m", "vertical_accuracy_m",
        "speed_mps", "speed_accuracy_mps", "course_deg", "course_accuracy_deg"
    ]

    /// The fusion filter.
    public private(set) var filter: NavigationFilter
    /// The latest estimate; `nil` before the first fix or once the position is lost.
    public private(set) var latest: Location?
    /// What the latest fix did.
    public private(set) var lastUpdate: NavigationFilter.Update = []
    /// Fixes seen.
    public private(set) var fixesSeen = 0
    let showsColumns: Bool
    var lastRestUpdateS = -Double.infinity
    /// The carrier's acceleration from the filter's dead reckoning, ENU, m/s², low-passed over
    /// `carrierAccelerationTimeConstantS` (`FusionContext.carrierAccelerationENUMps2`).
    var carrierAccelerationENUMps2 = Vector3.zero
    /// The receiver's last horizontal velocity (ENU, m/s, with its per-axis σ) and its time, s.
    var lastReceiverVelocity: (timeS: Double, east: Double, north: Double, sigmaMps: Double)?
    /// The carrier's horizontal acceleration between the receiver's last two velocities (ENU, m/s², shrunk by their
    /// noise), the time of the later one (s), and the mean of `levelledAccelerationENUMps2` over the same interval
    /// (`receiverAcceleration(from:)`).
    var receiverAccelerationENUMps2: (timeS: Double, value: Vector3, levelledMean: Vector3)?
    /// The horizontal acceleration as the orientation levels it (the filter's `accelerationENUMps2`: the specific
    /// force turned into ENU, gravity taken off), ENU, m/s², low-passed over `carrierAccelerationTimeConstantS`; its tilt
    /// error (g times the tilt) changes slowly, so its change over a second or two is the carrier's.
    var levelledAccelerationENUMps2 = Vector3.zero
    /// The integral of `levelledAccelerationENUMps2` since the last fix (m/s) and the time it covers (s).
    var levelledSinceFix = (integralMps: Vector3.zero, durationS: 0.0)
    /// The smoothing of the carrier's acceleration, s: 0.1 (the samples' granularity; the dead reckoning's along-track
    /// acceleration is smoothed over 0.5 s already, and the orientation low-passes what it levels on).
    static let carrierAccelerationTimeConstantS = 0.1

    /// The stage with the configuration's filter parameters.
    public init(configuration: FusionConfiguration) {
        filter = NavigationFilter(parameters: configuration.location.filter)
        showsColumns = configuration.location.showsColumns
    }

    /// `locationColumns`, or none for a trace without GNSS.
    public var columns: [String] { showsColumns ? Self.locationColumns : [] }

    public mutating func process(_ sample: FusionSample, context: inout FusionContext) {
        let t = sample.timeS
        let (startTimeS, startEast, startNorth) = (filter.state.timeS, filter.state.east[1], filter.state.north[1])
        filter.advance(toTimeS: t)
        if let f = sample.reading.accelerationMps2 {
            filter.updateInertial(
                timeS: t, specificForceBoardMps2: f, boardToENU: context.boardToENU,
                angularVelocityBoardRadS: sample.reading.angularVelocityRadS, atRest: context.atRest == true)
        }
        updateLevelledAcceleration(timeS: t, sinceS: startTimeS)
        updateCarrierAcceleration(
            timeS: t, sinceS: startTimeS, velocityChange: (filter.state.east[1] - startEast, filter.state.north[1] - startNorth),
            context: &context)
        if let p = sample.reading.pressurePa { filter.updateBarometer(timeS: t, pressurePa: p) }
        if context.atRest == true && t - lastRestUpdateS >= 0.1 {
            filter.updateAtRest(timeS: t)
            lastRestUpdateS = t
        }
        if let fix = sample.fix {
            receiverAcceleration(from: fix)
            lastUpdate = filter.update(fix: fix)
            fixesSeen += 1
            if let utc = fix.utcS, let year = UTCCalendar.decimalYear(unixS: utc) { context.decimalYear = year }
        }
        latest = filter.location
        if let l = latest {
            context.latitudeDeg = l.coordinate.latitudeDeg
            context.longitudeDeg = l.coordinate.longitudeDeg
            if let h = l.ellipsoidalAltitudeM { context.heightAboveEllipsoidM = h }
        }
    }

    /// The carrier's own horizontal acceleration, for the orientation stage to take out of its levelling
    /// (`FusionContext.carrierAccelerationENUMps2`; `nil` when nothing is known of it). A car's acceleration and its
    /// turns press the board as a tilt would; none of what is handed over may come from the orientation's own tilt, or
    /// the tilt would confirm itself.
    /// - A vehicle whose frame is known (`isVehicleMode`, `usesVehicleMount`): the velocity's change by this sample's
    ///   prediction and inertial step (not by a fix's correction), per second, low-passed. The along-track part comes
    ///   from the board's axes in the car, the turns from the gyroscope about the car's up.
    /// - A vehicle before that (the first minutes of a drive, or a mount never learned): the same change across the
    ///   velocity only (the velocity turning with the carrier: a bend's centripetal acceleration), and along it the
    ///   receiver's (`receiverAccelerationENUMps2`): the dead reckoning's along-track acceleration then comes through
    ///   the orientation's levelling. A turn of the velocity faster than `maximumLateralAccelerationMps2` is a heading
    ///   correction, not a bend (a magnetometer correction after a gated spell), and is left out.
    /// - Below the vehicle speed (setting off, stopping, a bicycle): the receiver's, while it is fresh
    ///   (`receiverAccelerationFreshnessS`).
    mutating func updateCarrierAcceleration(
        timeS: Double, sinceS: Double, velocityChange dv: (east: Double, north: Double), context: inout FusionContext
    ) {
        let s = filter.state
        var total: Vector3?
        if s.isVehicleMode && s.isInitialized {
            let dt = max(0, timeS - sinceS)
            var change = Vector3(dv.east, dv.north, 0)
            if !s.usesVehicleMount {
                change -= velocityDirection * change.dot(velocityDirection)
                if dt > 0 && change.length > Self.maximumLateralAccelerationMps2 * dt { change = .zero }
            }
            // a ← a + (Δv − a·Δt)/τ: a first-order low-pass of Δv/Δt that also takes a turn applied at the same instant.
            let gain = 1 / max(Self.carrierAccelerationTimeConstantS, dt)
            carrierAccelerationENUMps2 += (change - carrierAccelerationENUMps2 * dt) * gain
            total = carrierAccelerationENUMps2
        } else {
            carrierAccelerationENUMps2 = .zero
        }
        if !(s.isVehicleMode && s.usesVehicleMount), let r = receiverAccelerationENUMps2,
            timeS - r.timeS <= Self.receiverAccelerationFreshnessS
        {
            // The receiver's mean over its last interval, brought up to now by how much the levelled acceleration has
            // changed since that interval (the tilt's part of it cancels): the receiver's alone lags a second behind.
            var now = r.value + (levelledAccelerationENUMps2 - r.levelledMean)
            if now.length > Self.maximumLateralAccelerationMps2 { now = r.value }
            total = (total ?? .zero) + (s.isVehicleMode ? velocityDirection * now.dot(velocityDirection) : now)
        }
        context.carrierAccelerationENUMps2 = total
    }

    /// Low-passes the filter's levelled horizontal acceleration of this sample (when it has one) into
    /// `levelledAccelerationENUMps2`, and integrates it since the last fix.
    mutating func updateLevelledAcceleration(timeS: Double, sinceS: Double) {
        let s = filter.state
        guard let a = s.accelerationENUMps2, s.accelerationTimeS == timeS else { return }
        let dt = max(0, timeS - sinceS)
        let gain = min(1, dt / Self.carrierAccelerationTimeConstantS)
        levelledAccelerationENUMps2 += (Vector3(a.x, a.y, 0) - levelledAccelerationENUMps2) * gain
        levelledSinceFix.integralMps += levelledAccelerationENUMps2 * dt
        levelledSinceFix.durationS += dt
    }

    /// The filter's horizontal velocity as a unit vector (ENU), zero at a standstill.
    var velocityDirection: Vector3 {
        let s = filter.state
        let speed = (s.east[1] * s.east[1] + s.north[1] * s.north[1]).squareRoot()
        return speed > 0 ? Vector3(s.east[1] / speed, s.north[1] / speed, 0) : .zero
    }

    /// Updates `receiverAccelerationENUMps2` from a fix's velocity: the difference from the last one over the time
    /// between them (at most `receiverAccelerationMaximumIntervalS`), shrunk towards zero by its noise (σ of the
    /// difference from the two velocities' σ: `w = 1 − (2σ)² / |a|²`, 0 within 2σ), so that a receiver's velocity noise
    /// at rest or cruising hands over nothing. A difference beyond `maximumLateralAccelerationMps2` is a receiver's
    /// jump (multipath), not the carrier's, and hands over nothing either.
    mutating func receiverAcceleration(from fix: ReceiverFix) {
        let levelled = levelledSinceFix
        levelledSinceFix = (.zero, 0)
        guard fix.timeS.isFinite, let v = filter.horizontalVelocity(fix) else { return }
        defer { lastReceiverVelocity = (fix.timeS, v.velocity.east, v.velocity.north, v.sigma) }
        guard let last = lastReceiverVelocity else { return }
        let dt = fix.timeS - last.timeS
        guard dt > 0, dt <= Self.receiverAccelerationMaximumIntervalS else {
            receiverAccelerationENUMps2 = nil
            return
        }
        let a = Vector3(v.velocity.east - last.east, v.velocity.north - last.north, 0) / dt
        let noise2 = (v.sigma * v.sigma + last.sigmaMps * last.sigmaMps) / (dt * dt)
        let size2 = a.dot(a)
        guard size2 <= Self.maximumLateralAccelerationMps2 * Self.maximumLateralAccelerationMps2 else {
            receiverAccelerationENUMps2 = nil
            return
        }
        let weight = size2 > 0 ? max(0, 1 - 4 * noise2 / size2) : 0
        let levelledMean = levelled.durationS > 0 ? levelled.integralMps / levelled.durationS : levelledAccelerationENUMps2
        receiverAccelerationENUMps2 = (fix.timeS, a * weight, levelledMean)
    }

    /// The largest horizontal acceleration a road vehicle gives, m/s² (8: about 0.8 g, beyond a car's tyres).
    static let maximumLateralAccelerationMps2 = 8.0
    /// The receiver's acceleration is handed over until this long after its fix, s (1.5: a 1 Hz receiver's next fix,
    /// with slack).
    static let receiverAccelerationFreshnessS = 1.5
    /// Two velocities further apart than this give no acceleration, s (2).
    static let receiverAccelerationMaximumIntervalS = 2.0

    /// The latest location's cells (empty before the first fix).
    public mutating func appendCells(to line: inout CellTape) {
        guard showsColumns else { return }
        let l = latest
        line.appendCell(l?.coordinate.latitudeDeg, digits: 8)
        line.appendCell(l?.coordinate.longitudeDeg, digits: 8)
        line.appendCell(l?.altitudeMSLM, digits: 2)
        line.appendCell(l?.horizontalAccuracyM, digits: 2)
        line.appendCell(l?.verticalAccuracyM, digits: 2)
        line.appendCell(l?.speedMps, digits: 3)
        line.appendCell(l?.speedAccuracyMps, digits: 3)
        line.appendCell(l?.courseDeg, digits: 2)
        line.appendCell(l?.courseAccuracyDeg, digits: 2)
    }

    /// Two lines: position, altitude and accuracies; speed, course, method and fix counts.
    public var liveLines: [String] {
        guard let l = latest else {
            return fixesSeen == 0 ? ["location  waiting for a receiver fix"] : ["location  no position (lost; waiting for a fix)"]
        }
        let c = l.coordinate
        var first =
            "location  \(formatFixed(abs(c.latitudeDeg), digits: 6))° \(c.latitudeDeg < 0 ? "S" : "N")  "
            + "\(formatFixed(abs(c.longitudeDeg), digits: 6))° \(c.longitudeDeg < 0 ? "W" : "E")  ±\(formatFixed(l.horizontalAccuracyM, digits: 1)) m"
        if let a = l.altitudeMSLM ?? l.ellipsoidalAltitudeM {
            first += "  alt \(formatFixed(a, digits: 1)) m \(l.altitudeMSLM == nil ? "(ellipsoid)" : "MSL")"
            if let v = l.verticalAccuracyM { first += " ±\(formatFixed(v, digits: 1))" }
        }
        var second = "          "
        if let v = l.speedMps {
            second += "\(formatFixed(v, digits: 1)) m/s" + (l.speedAccuracyMps.map { " ±\(formatFixed($0, digits: 1))" } ?? "")
        }
        if let course = l.courseDeg {
            second +=
                "  course \(formatFixed(course, digits: 0))°"
                + (l.courseAccuracyDeg.map { " ±\(formatFixed($0, digits: 0))°" } ?? "")
        }
        second += "  \(l.sourceInformation.method.rawValue)"
        if l.sinceFixS > 0.05 { second += ", last fix \(formatFixed(l.sinceFixS, digits: 1)) s ago" }
        let s = filter.state
        second += "  (fixes used \(s.fixesUsed), rejected \(s.fixesRejected))"
        return [first, second]
    }
}
