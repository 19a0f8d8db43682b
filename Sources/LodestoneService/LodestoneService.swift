import LodestoneScheduler

/// What a program asks of Lodestone, in-process (`Session`) or through the daemon (`LodestoneClient`): the same live
/// streams either way, so moving an app from one to the other changes the line that makes the service.
///
/// ```swift
/// let service: any LodestoneService = try await LodestoneClient.connect()   // or: a started Session
/// for await update in service.locationUpdates(.fitness) { … }
/// ```
///
/// Each stream registers its demand with the scheduler while it is iterated and withdraws it when its loop ends or its
/// task is cancelled. `Session` and `LodestoneClient` are `Sendable`; a `SessionCore` driven directly (a harness) serves
/// streams too but belongs to the task that steps it, hence no `Sendable` requirement here.
public protocol LodestoneService {
    /// A live stream of what `subscription` describes. Each iteration is a new subscription.
    func updates<Element>(_ subscription: Subscription<Element>, options: SubscriptionOptions) -> Updates<Element>
}

/// What a subscription asks for: its kind and the kind's settings. It is what the native protocol's `SUBSCRIBE`
/// carries (docs/wire.md), so the daemon serves exactly what an in-process session would.
public struct SubscriptionSpec: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Live locations (`locationUpdates`).
        case location
        /// One location (`requestLocation`): the stream ends after it.
        case request
        case heading, motion, activity, pedometer, altitude
        /// Raw sensor readings.
        case sensors

        /// Kinds that show where the carrier is (governed by the location authorization); the others by the motion one.
        public var isLocation: Bool { self == .location || self == .request }
    }
    public var kind: Kind
    /// `location`: the live configuration (default `.default`).
    public var configuration: LiveConfiguration?
    /// `location`, `request`: the accuracy asked of the scheduler (default: the configuration's).
    public var desiredAccuracy: DesiredAccuracy?
    /// `location`: deliver only after the carrier moved this far, m.
    public var distanceFilterM: Double?
    /// `location`: a location older than this is stale, s (default 10).
    public var maximumAgeS: Double?
    /// `request`: give up after this long, s (default 30).
    public var timeoutS: Double?
    /// `heading`: the smallest change delivered, deg (default 1; 0: every heading).
    public var filterDeg: Double?
    /// `heading`: serve true headings (the scheduler keeps a position for the declination).
    public var trueNorth: Bool?
    /// `motion`, `altitude`, `heading`: the most updates a second (heading: default and at most 20).
    public var rateHz: Double?
    /// `pedometer`: count from this session time, s (default: when the stream starts).
    public var fromS: Double?
    /// `sensors`: the board file's ids (empty or absent: all).
    public var sensorIDs: [String]?

    public init(
        kind: Kind, configuration: LiveConfiguration? = nil, desiredAccuracy: DesiredAccuracy? = nil,
        distanceFilterM: Double? = nil, maximumAgeS: Double? = nil, timeoutS: Double? = nil, filterDeg: Double? = nil,
        trueNorth: Bool? = nil, rateHz: Double? = nil, fromS: Double? = nil, sensorIDs: [String]? = nil
    ) {
        self.kind = kind; self.configuration = configuration; self.desiredAccuracy = desiredAccuracy
        self.distanceFilterM = distanceFilterM; self.maximumAgeS = maximumAgeS; self.timeoutS = timeoutS
        self.filterDeg = filterDeg; self.trueNorth = trueNorth; self.rateHz = rateHz; self.fromS = fromS
        self.sensorIDs = sensorIDs
    }

    enum CodingKeys: String, CodingKey {
        case kind, configuration, desiredAccuracy = "accuracy", distanceFilterM = "distance_filter_m"
        case maximumAgeS = "max_age_s", timeoutS = "timeout_s", filterDeg = "filter_deg", trueNorth = "true_north"
        case rateHz = "rate_hz", fromS = "from_t_s", sensorIDs = "sensors"
    }
}

/// A subscription and the type of its updates: made by the static functions below, so a `Subscription<LocationUpdate>`
/// always describes locations.
public struct Subscription<Element: Sendable>: Sendable, Hashable {
    public let spec: SubscriptionSpec
    private init(_ spec: SubscriptionSpec) { self.spec = spec }

    /// The typed subscription of a spec received from a client; `nil` when `Element` is not the kind's update type.
    public static func received(_ spec: SubscriptionSpec) -> Subscription? {
        let matches: Bool =
            switch spec.kind {
            case .location, .request: Element.self == LocationUpdate.self
            case .heading: Element.self == HeadingUpdate.self
            case .motion: Element.self == DeviceMotion.self
            case .activity: Element.self == ActivityUpdate.self
            case .pedometer: Element.self == PedometerUpdate.self
            case .altitude: Element.self == AltitudeUpdate.self
            case .sensors: Element.self == SensorSample.self
            }
        return matches ? Subscription(spec) : nil
    }

    fileprivate static func make(_ spec: SubscriptionSpec) -> Subscription { Subscription(spec) }
}

extension Subscription where Element == LocationUpdate {
    public static func location(
        _ configuration: LiveConfiguration = .default, desiredAccuracy: DesiredAccuracy? = nil, distanceFilterM: Double? = nil,
        maximumAgeS: Double = 10
    ) -> Subscription {
        make(
            SubscriptionSpec(
                kind: .location, configuration: configuration, desiredAccuracy: desiredAccuracy,
                distanceFilterM: distanceFilterM, maximumAgeS: maximumAgeS))
    }
    public static func request(desiredAccuracy: DesiredAccuracy = .best, timeoutS: Double = 30) -> Subscription {
        make(SubscriptionSpec(kind: .request, desiredAccuracy: desiredAccuracy, timeoutS: timeoutS))
    }
}
extension Subscription where Element == HeadingUpdate {
    public static func heading(filterDeg: Double = 1, trueNorth: Bool = true, rateHz: Double? = nil) -> Subscription {
        make(SubscriptionSpec(kind: .heading, filterDeg: filterDeg, trueNorth: trueNorth, rateHz: rateHz))
    }
}
extension Subscription where Element == DeviceMotion {
    public static func deviceMotion(rateHz: Double = 50) -> Subscription { make(SubscriptionSpec(kind: .motion, rateHz: rateHz)) }
}
extension Subscription where Element == ActivityUpdate {
    public static var activity: Subscription { make(SubscriptionSpec(kind: .activity)) }
}
extension Subscription where Element == PedometerUpdate {
    public static func pedometer(from fromS: Double? = nil) -> Subscription {
        make(SubscriptionSpec(kind: .pedometer, fromS: fromS))
    }
}
extension Subscription where Element == AltitudeUpdate {
    public static func altitude(rateHz: Double = 1) -> Subscription { make(SubscriptionSpec(kind: .altitude, rateHz: rateHz)) }
}
extension Subscription where Element == SensorSample {
    public static func sensors(_ ids: Set<String> = []) -> Subscription {
        make(SubscriptionSpec(kind: .sensors, sensorIDs: ids.isEmpty ? nil : ids.sorted()))
    }
}

extension LodestoneService {

    /// Live locations, like `CLLocationUpdate.liveUpdates(_:)`: one a second at most (and each new receiver fix as it
    /// arrives), only those meeting `desiredAccuracy` (default: the configuration's), after the carrier moved
    /// `distanceFilterM`; one `isStationary` update when the carrier comes to rest (then nothing until it moves, unless
    /// the configuration is `.airborne`); one `locationUnavailable` update after 10 s without a location. Through the
    /// daemon, `accuracyLimited` and `authorizationDenied` say what the client's authorization allows.
    public func locationUpdates(
        _ configuration: LiveConfiguration = .default, desiredAccuracy: DesiredAccuracy? = nil,
        distanceFilterM: Double? = nil, maximumAgeS: Double = 10,
        options: SubscriptionOptions = SubscriptionOptions()
    ) -> Updates<LocationUpdate> {
        updates(
            .location(
                configuration, desiredAccuracy: desiredAccuracy, distanceFilterM: distanceFilterM, maximumAgeS: maximumAgeS),
            options: options)
    }

    /// One location meeting `desiredAccuracy`, or the best one found by `timeoutS` (session time), like
    /// `CLLocationManager.requestLocation()`. Its receiver demand lasts only while it waits.
    /// - Throws: `SessionError.locationUnavailable` when no location at all came in time; `.authorizationDenied`;
    ///   `.sessionEnded` (or `.service` through the daemon).
    public func requestLocation(
        desiredAccuracy: DesiredAccuracy = .best, timeoutS: Double = 30,
        options: SubscriptionOptions = SubscriptionOptions()
    ) async throws(SessionError) -> LocationUpdate {
        for await u in updates(.request(desiredAccuracy: desiredAccuracy, timeoutS: timeoutS), options: options) {
            if u.authorizationDenied { throw .authorizationDenied("locations are denied to this client") }
            guard u.location != nil else { throw .locationUnavailable(timeoutS: timeoutS) }
            return u
        }
        throw .sessionEnded
    }

    /// Headings (`CLHeading`) that changed by at least `filterDeg` (0: every one), at most `rateHz` a second (default
    /// and most: 20).
    public func headingUpdates(
        filterDeg: Double = 1, trueNorth: Bool = true, rateHz: Double? = nil,
        options: SubscriptionOptions = SubscriptionOptions()
    ) -> Updates<HeadingUpdate> {
        updates(.heading(filterDeg: filterDeg, trueNorth: trueNorth, rateHz: rateHz), options: options)
    }

    /// Device motion (`CMDeviceMotion`) at `rateHz` at most (as fast as the IMU is read).
    public func deviceMotionUpdates(rateHz: Double = 50, options: SubscriptionOptions = SubscriptionOptions())
        -> Updates<DeviceMotion>
    {
        updates(.deviceMotion(rateHz: rateHz), options: options)
    }

    /// The carrier's activity (`CMMotionActivity`) at each change of kind or confidence.
    public func activityUpdates(options: SubscriptionOptions = SubscriptionOptions()) -> Updates<ActivityUpdate> {
        updates(.activity, options: options)
    }

    /// Steps, distance and floors since `fromS` (session time; default: when iteration starts), at most once a second
    /// while they change, and pause/resume events (`CMPedometer.startUpdates(from:)`, `startEventUpdates`).
    public func pedometerUpdates(from fromS: Double? = nil, options: SubscriptionOptions = SubscriptionOptions())
        -> Updates<PedometerUpdate>
    {
        updates(.pedometer(from: fromS), options: options)
    }

    /// Relative altitude and pressure, and absolute altitude with its accuracy (`CMAltimeter`), at `rateHz`.
    public func altitudeUpdates(rateHz: Double = 1, options: SubscriptionOptions = SubscriptionOptions())
        -> Updates<AltitudeUpdate>
    {
        updates(.altitude(rateHz: rateHz), options: options)
    }

    /// Raw readings of the sensors named (all when empty), board axes, as read. Keeps the IMU, magnetometer and
    /// barometer sampling.
    public func sensorUpdates(
        _ sensorIDs: Set<String> = [], options: SubscriptionOptions = SubscriptionOptions(buffering: .newest(256))
    ) -> Updates<SensorSample> {
        updates(.sensors(sensorIDs), options: options)
    }
}
