import LodestoneCore

/// How accurate the locations a client wants must be: Core Location's `desiredAccuracy` tiers
/// (`kCLLocationAccuracyBestForNavigation` … `kCLLocationAccuracyReduced`), strictest first.
public enum DesiredAccuracy: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Navigation: the best the receiver and fusion can do, with the IMU at full rate for dead reckoning.
    case bestForNavigation = "navigation"
    /// The best the receiver can do.
    case best
    /// Within 10 m.
    case nearestTenMeters = "10m"
    /// Within 100 m.
    case hundredMeters = "100m"
    /// Within 1 km.
    case kilometer = "1km"
    /// Within 3 km.
    case threeKilometers = "3km"
    /// Approximate location (Core Location's "reduced accuracy", a few kilometres).
    case reduced

    /// The horizontal accuracy (95 %, m) a delivered location must have to meet this tier. Core Location promises
    /// no number for `best`/`bestForNavigation`; we take a consumer receiver's open-sky figure with margin (10 m).
    /// `reduced` is taken as 5 km.
    public var requiredHorizontalAccuracyM: Double {
        switch self {
        case .bestForNavigation, .best, .nearestTenMeters: 10
        case .hundredMeters: 100
        case .kilometer: 1_000
        case .threeKilometers: 3_000
        case .reduced: 5_000
        }
    }

    /// Rank for `Comparable`: a smaller value is stricter.
    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    /// `a < b` when `a` is stricter than `b`.
    public static func < (a: DesiredAccuracy, b: DesiredAccuracy) -> Bool { a.rank < b.rank }
}

/// What a client wants of locations (Core Location's `CLLocationManager` settings).
public struct LocationDemand: Sendable, Hashable, Codable {
    /// Accuracy tier (default `.best`).
    public var desiredAccuracy: DesiredAccuracy
    /// Deliver a new location only after the carrier moved at least this far, m (`nil`: every location, like
    /// `kCLDistanceFilterNone`).
    public var distanceFilterM: Double?
    /// Only significant changes (Core Location's significant-change service: about 500 m, no more often than every
    /// 5 minutes); location at the lowest cost.
    public var significantChangeOnly: Bool
    /// The oldest location the client accepts unmarked, s: a delivered location older than this is marked stale
    /// (default 10 s).
    public var maximumAgeS: Double
    /// The client takes one location every this many seconds and no more (a fleet publishing every 5 minutes: 300;
    /// Android's `LocationRequest` interval), s; `nil` (default): as often as the accuracy tier needs. Where the tier
    /// lets the receiver duty-cycle, the power-save period is this interval (below 2 s: a continuous receiver).
    public var updateIntervalS: Double?

    public init(
        desiredAccuracy: DesiredAccuracy = .best, distanceFilterM: Double? = nil,
        significantChangeOnly: Bool = false, maximumAgeS: Double = 10, updateIntervalS: Double? = nil
    ) {
        self.desiredAccuracy = desiredAccuracy; self.distanceFilterM = distanceFilterM
        self.significantChangeOnly = significantChangeOnly; self.maximumAgeS = maximumAgeS
        self.updateIntervalS = updateIntervalS
    }
}

/// What a client wants of headings (Core Location's heading updates).
public struct HeadingDemand: Sendable, Hashable, Codable {
    /// Deliver a new heading only after it changed by at least this much, degrees (`headingFilter`; 0 = every one).
    public var headingFilterDeg: Double
    /// True north wanted (needs a position for the declination), else magnetic.
    public var trueNorth: Bool

    public init(headingFilterDeg: Double = 1, trueNorth: Bool = true) {
        self.headingFilterDeg = headingFilterDeg; self.trueNorth = trueNorth
    }
}

/// What one client needs. A client asks only for what it uses; the scheduler spends power only on that.
public struct Demand: Sendable, Hashable, Codable {
    /// Who asks (shown as the reason of a plan).
    public var client: String
    /// Locations, if wanted.
    public var location: LocationDemand?
    /// Headings, if wanted.
    public var heading: HeadingDemand?
    /// Activity updates (stationary, walk, run, cycle, drive).
    public var activity: Bool
    /// Altitude (barometric / fused) and floors.
    public var altitude: Bool
    /// The client is in the foreground (a person looks at it); in the background it accepts coarser service.
    public var foreground: Bool

    public init(
        client: String, location: LocationDemand? = nil, heading: HeadingDemand? = nil, activity: Bool = false,
        altitude: Bool = false, foreground: Bool = true
    ) {
        self.client = client; self.location = location; self.heading = heading; self.activity = activity
        self.altitude = altitude; self.foreground = foreground
    }
}

/// All active demands combined: the strictest wins where it must (accuracy, distance filter, age, heading filter),
/// anything wanted by one client is served (activity, altitude, heading), and significant-change-only holds only when
/// every location client asks for no more.
public struct CombinedDemand: Sendable, Hashable, Codable {
    /// The combined location demand (`nil`: no client wants locations).
    public var location: LocationDemand?
    /// The combined heading demand (`nil`: no client wants headings).
    public var heading: HeadingDemand?
    public var activity: Bool
    public var altitude: Bool
    /// At least one client with a demand is in the foreground.
    public var foreground: Bool
    /// For each part, the client whose demand decided it (the first of equals), for the plan's reasons.
    public var locationClient: String?
    public var headingClient: String?
    public var activityClient: String?
    public var altitudeClient: String?

    /// Nothing demanded: every sensor may sleep.
    public static let none = CombinedDemand(
        location: nil, heading: nil, activity: false, altitude: false,
        foreground: false)

    public init(location: LocationDemand?, heading: HeadingDemand?, activity: Bool, altitude: Bool, foreground: Bool) {
        self.location = location; self.heading = heading; self.activity = activity; self.altitude = altitude
        self.foreground = foreground
    }

    /// Combines `demands` (in any order: the result does not depend on it, except which of two equally strict
    /// clients is named).
    public init(_ demands: some Sequence<Demand>) {
        self = .none
        for d in demands {
            if let l = d.location {
                if var c = location {
                    if l.desiredAccuracy < c.desiredAccuracy { c.desiredAccuracy = l.desiredAccuracy; locationClient = d.client }
                    c.distanceFilterM = Self.stricter(c.distanceFilterM, l.distanceFilterM)
                    c.significantChangeOnly = c.significantChangeOnly && l.significantChangeOnly
                    c.maximumAgeS = min(c.maximumAgeS, l.maximumAgeS)
                    // An interval holds only when every location client states one: the shortest.
                    if let a = c.updateIntervalS, let b = l.updateIntervalS {
                        c.updateIntervalS = min(a, b)
                    } else {
                        c.updateIntervalS = nil
                    }
                    location = c
                } else {
                    location = l
                    locationClient = d.client
                }
            }
            if let h = d.heading {
                if var c = heading {
                    if h.headingFilterDeg < c.headingFilterDeg {
                        c.headingFilterDeg = h.headingFilterDeg; headingClient = d.client
                    }
                    c.trueNorth = c.trueNorth || h.trueNorth
                    heading = c
                } else {
                    heading = h
                    headingClient = d.client
                }
            }
            if d.activity, !activity { activity = true; activityClient = d.client }
            if d.altitude, !altitude { altitude = true; altitudeClient = d.client }
            let wantsSomething = d.location != nil || d.heading != nil || d.activity || d.altitude
            if wantsSomething && d.foreground { foreground = true }
        }
    }

    /// The smaller distance filter; `nil` (no filter: every location) is the strictest.
    private static func stricter(_ a: Double?, _ b: Double?) -> Double? {
        guard let a, let b else { return nil }
        return min(a, b)
    }
}
