import LodestoneLocation
import LodestoneMotion

/// A place where the carrier stayed (Core Location's `CLVisit`).
public struct Visit: Sendable, Hashable, Codable {
    /// The place: the mean of the slow fixes there, or the last fix before the fixes stopped (indoors).
    public var coordinate: Coordinate
    /// Radius of the place's uncertainty, m (the mean accuracy of the fixes that made `coordinate`).
    public var horizontalAccuracyM: Double
    /// When the carrier arrived, s (session time): the first fix of the run of fixes within the stay radius.
    public var arrivalS: Double
    /// When it left, s: the last fix within the stay radius, or the last time the activity said stationary there when
    /// that is later (fixes stop indoors); `nil` until it has left.
    public var departureS: Double?
    /// Where it came from: the previous visit's place, `nil` for the first visit.
    public var fromCoordinate: Coordinate?
    /// How it came: the last travel activity (walk, run, cycle, drive) before it arrived, if one was seen.
    public var arrivedBy: MotionActivity.Kind?
    /// How long it has stayed, s: departure − arrival once it has left, else up to the last thing the detector saw.
    public var dwellS: Double

    /// A visit; see each property.
    public init(
        coordinate: Coordinate, horizontalAccuracyM: Double, arrivalS: Double, departureS: Double? = nil,
        fromCoordinate: Coordinate? = nil, arrivedBy: MotionActivity.Kind? = nil, dwellS: Double
    ) {
        self.coordinate = coordinate; self.horizontalAccuracyM = horizontalAccuracyM; self.arrivalS = arrivalS
        self.departureS = departureS; self.fromCoordinate = fromCoordinate; self.arrivedBy = arrivedBy
        self.dwellS = dwellS
    }
}

/// What the visit detector reports: an arrival when a stay is confirmed, a departure when the carrier leaves it.
public enum VisitEvent: Sendable, Hashable, Codable {
    /// A stay was confirmed (`departureS` is `nil`).
    case arrival(Visit)
    /// The carrier left (`departureS` set).
    case departure(Visit)

    /// The visit either way.
    public var visit: Visit {
        switch self {
        case .arrival(let v), .departure(let v): v
        }
    }
}

/// Finds visits from locations and activities, like Core Location's visit service.
///
/// A *candidate* place follows the carrier while it travels (each moving fix re-anchors it) and holds still once it
/// slows down (fixes slower than `movingSpeedMps` are averaged into its centre) or once fixes stop (indoors: the last
/// fix before the door is the place). A fix more than `stayRadiusM` (plus its accuracy, at most as much again) from the
/// centre ends the candidate. A candidate becomes a visit, reported at once by an `.arrival`, when it has lasted
/// `minimumDwellS` and the carrier is not travelling by vehicle, bicycle or running at that moment: so stops in traffic
/// (automotive activity, stops of seconds to a few minutes) make no visit; one lasting `automotiveMinimumDwellS` with
/// slow fixes does (a car parked with the engine running). The arrival time is looked up in the recent fixes: the
/// earliest of the unbroken run of fixes within the stay radius of the place. A `.departure` follows the first fix
/// outside; its time is the last fix inside, or the last stationary activity at the place when that is later.
///
/// Allocates nothing after `init` (the recent fixes are a fixed ring).
public struct VisitDetector: Sendable {
    /// Tunables.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The radius of a place, m (default 100: a building and its doorstep).
        public var stayRadiusM: Double
        /// How long a stay must last before it is a visit, s (default 300: a stay of 10 minutes is reported 5 minutes
        /// after arrival).
        public var minimumDwellS: Double
        /// How long a stay must last while the activity is automotive, s (default 1 200).
        public var automotiveMinimumDwellS: Double
        /// A fix faster than this is travelling, m/s (default 1.0; walking is 1.2–1.6).
        public var movingSpeedMps: Double
        /// How many recent fixes are kept to find the arrival time (default 1 024: 17 minutes at 1 Hz).
        public var historyCapacity: Int

        /// Parameters; defaults in parentheses.
        public init(
            stayRadiusM: Double = 100, minimumDwellS: Double = 300, automotiveMinimumDwellS: Double = 1_200,
            movingSpeedMps: Double = 1.0, historyCapacity: Int = 1_024
        ) {
            self.stayRadiusM = stayRadiusM; self.minimumDwellS = minimumDwellS
            self.automotiveMinimumDwellS = automotiveMinimumDwellS; self.movingSpeedMps = movingSpeedMps
            self.historyCapacity = historyCapacity
        }

        /// The defaults.
        public static let `default` = Parameters()
    }

    /// One recent fix, as the detector keeps it.
    struct Fix: Sendable {
        var timeS: Double
        var coordinate: Coordinate
    }

    /// The place the carrier may be staying at.
    struct Candidate: Sendable {
        /// The first slow fix (the mean is kept as offsets from it, so that it never straddles ±180°), or the anchor.
        var origin: Coordinate
        var sumDeltaLatitudeDeg = 0.0
        var sumDeltaLongitudeDeg = 0.0
        var sumAccuracyM = 0.0
        var slowFixes = 0
        var anchorAccuracyM: Double
        /// When the candidate started (its anchor fix), s.
        var startS: Double
        /// The last fix within the stay radius, s.
        var lastInsideS: Double
        /// The last time the activity said stationary while at the candidate, s (indoors, where fixes stop, the
        /// carrier was still there then).
        var lastStillS: Double
        var arrivedBy: MotionActivity.Kind?
        /// Set once it is a visit.
        var visit: Visit?

        var center: Coordinate {
            guard slowFixes > 0 else { return origin }
            let n = Double(slowFixes)
            var longitude = origin.longitudeDeg + sumDeltaLongitudeDeg / n
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            return Coordinate(latitudeDeg: origin.latitudeDeg + sumDeltaLatitudeDeg / n, longitudeDeg: longitude)
        }

        var accuracyM: Double { slowFixes > 0 ? sumAccuracyM / Double(slowFixes) : anchorAccuracyM }
    }

    /// The tunables.
    public let parameters: Parameters
    private var recent: FixedRing<Fix>
    private var candidate: Candidate?
    private var activity: MotionActivity.Kind = .unknown
    private var lastTravelActivity: MotionActivity.Kind?
    private var lastVisitCoordinate: Coordinate?

    /// A detector that has seen nothing.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
        recent = FixedRing(
            capacity: max(2, parameters.historyCapacity),
            filler: Fix(timeS: 0, coordinate: Coordinate(latitudeDeg: 0, longitudeDeg: 0)))
    }

    /// The visit in progress, if the carrier is at one.
    public var currentVisit: Visit? { candidate?.visit }

    /// Takes the carrier's activity at `timeS`; returns an arrival when the time spent at the place now makes a visit.
    public mutating func update(activity kind: MotionActivity.Kind, timeS: Double) -> VisitEvent? {
        activity = kind
        if kind == .stationary, let c = candidate, timeS > c.lastStillS { candidate?.lastStillS = timeS }
        switch kind {
        case .walk, .run, .cycle, .drive: lastTravelActivity = kind
        case .stationary, .unknown: break
        }
        return confirm(atS: timeS)
    }

    /// Lets time pass without a fix (indoors, receiver off); returns an arrival as `update(activity:timeS:)` does.
    public mutating func advance(toTimeS timeS: Double) -> VisitEvent? {
        confirm(atS: timeS)
    }

    /// Takes one location; returns the arrival or departure it makes, if any. Locations with an invalid coordinate or
    /// accuracy are ignored.
    public mutating func update(_ location: Location) -> VisitEvent? {
        let accuracyM = location.horizontalAccuracyM
        guard location.coordinate.isValid, accuracyM.isFinite, accuracyM >= 0 else { return nil }
        let t = location.timeS
        recent.append(Fix(timeS: t, coordinate: location.coordinate))
        let moving = (location.speedMps ?? 0) > parameters.movingSpeedMps
        guard var c = candidate else {
            candidate = start(location)
            return nil
        }
        let distanceM = location.coordinate.distanceM(to: c.center) ?? .infinity
        if distanceM > parameters.stayRadiusM + min(accuracyM, parameters.stayRadiusM) {
            var event: VisitEvent?
            if var visit = c.visit {
                let departureS = max(c.lastInsideS, c.lastStillS)
                visit.departureS = departureS
                visit.dwellS = departureS - visit.arrivalS
                lastVisitCoordinate = visit.coordinate
                event = .departure(visit)
            }
            candidate = start(location)
            return event
        }
        c.lastInsideS = t
        if !moving {
            if c.slowFixes == 0 {
                c.origin = location.coordinate
                c.sumDeltaLatitudeDeg = 0; c.sumDeltaLongitudeDeg = 0; c.sumAccuracyM = 0
            }
            var dLon = location.coordinate.longitudeDeg - c.origin.longitudeDeg
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            c.sumDeltaLatitudeDeg += location.coordinate.latitudeDeg - c.origin.latitudeDeg
            c.sumDeltaLongitudeDeg += dLon
            c.sumAccuracyM += accuracyM
            c.slowFixes += 1
        } else if c.slowFixes == 0 && c.visit == nil {
            // Still travelling: the candidate follows the carrier.
            candidate = start(location)
            return nil
        }
        if var visit = c.visit {
            visit.coordinate = c.center
            visit.horizontalAccuracyM = c.accuracyM
            visit.dwellS = t - visit.arrivalS
            c.visit = visit
        }
        candidate = c
        return confirm(atS: t)
    }

    private func start(_ location: Location) -> Candidate {
        Candidate(
            origin: location.coordinate, anchorAccuracyM: location.horizontalAccuracyM, startS: location.timeS,
            lastInsideS: location.timeS, lastStillS: location.timeS, arrivedBy: lastTravelActivity)
    }

    /// Makes the candidate a visit when it has lasted long enough; returns the arrival.
    private mutating func confirm(atS t: Double) -> VisitEvent? {
        guard var c = candidate, c.visit == nil else { return nil }
        let dwellS = t - c.startS
        let travelling: Bool
        switch activity {
        case .drive: travelling = c.slowFixes == 0 || dwellS < parameters.automotiveMinimumDwellS
        case .cycle, .run: travelling = true
        case .walk, .stationary, .unknown: travelling = false
        }
        guard dwellS >= parameters.minimumDwellS, !travelling else { return nil }
        let center = c.center
        // The arrival: back through the recent fixes while they are within the stay radius.
        var arrivalS = c.startS
        var age = 0
        while let fix = recent.back(age) {
            guard let d = fix.coordinate.distanceM(to: center), d <= parameters.stayRadiusM else { break }
            arrivalS = min(arrivalS, fix.timeS)
            age += 1
        }
        let visit = Visit(
            coordinate: center, horizontalAccuracyM: c.accuracyM, arrivalS: arrivalS, departureS: nil,
            fromCoordinate: lastVisitCoordinate, arrivedBy: c.arrivedBy, dwellS: t - arrivalS)
        c.visit = visit
        candidate = c
        return .arrival(visit)
    }
}
