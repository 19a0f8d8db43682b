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
        updateCarrierAcceleration(
            timeS: t, sinceS: startTimeS, velocityChange: (filter.state.east[1] - startEast, filter.state.north[1] - startNorth),
            context: &context)
        if let p = sample.reading.pressurePa { filter.updateBarometer(timeS: t, pressurePa: p) }
        if context.atRest == true && t - lastRestUpdateS >= 0.1 {
            filter.updateAtRest(timeS: t)
            lastRestUpdateS = t
        }
        if let fix = sample.fix {
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

    /// The carrier's acceleration while the filter dead-reckons a vehicle in its own frame (`usesVehicleMount`: the
    /// along-track acceleration from the board's axes in the car, the turns from the gyroscope about the car's up, so
    /// nothing of the orientation's tilt comes back through it): the velocity's change by this sample's prediction and
    /// inertial step (not by a fix's correction), per second, low-passed. `nil` in the context otherwise.
    mutating func updateCarrierAcceleration(
        timeS: Double, sinceS: Double, velocityChange dv: (east: Double, north: Double), context: inout FusionContext
    ) {
        guard filter.state.isVehicleMode && filter.state.usesVehicleMount && filter.state.isInitialized else {
            carrierAccelerationENUMps2 = .zero
            context.carrierAccelerationENUMps2 = nil
            return
        }
        // a ← a + (Δv − a·Δt)/τ: a first-order low-pass of Δv/Δt that also takes a turn applied at the same instant.
        let dt = max(0, timeS - sinceS)
        let gain = 1 / max(Self.carrierAccelerationTimeConstantS, dt)
        carrierAccelerationENUMps2 += (Vector3(dv.east, dv.north, 0) - carrierAccelerationENUMps2 * dt) * gain
        context.carrierAccelerationENUMps2 = carrierAccelerationENUMps2
    }

    /// The latest location's cells (empty before the first fix).
    public func appendCells(to line: inout CSVLine) {
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
