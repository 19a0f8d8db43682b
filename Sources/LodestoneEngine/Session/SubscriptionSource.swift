import LodestoneCore
import LodestoneScheduler
import LodestoneWire

/// What hands out live streams: a `Session` (the actor, paced by its clock) or a `SessionCore` driven directly (a
/// harness, a benchmark). Each stream joins the loop at its next step once iterated, and leaves it when its consumer
/// stops.
public protocol SubscriptionSource {
    /// Where streams wait to join the loop.
    var subscriptionRegistry: SubscriptionRegistry { get }
}

extension SubscriptionSource {

    /// Live locations, like `CLLocationUpdate.liveUpdates(_:)`: one a second at most (and each new receiver fix as it
    /// arrives), only those meeting `desiredAccuracy` (default: the configuration's), after the carrier moved
    /// `distanceFilterM`; one `isStationary` update when the carrier comes to rest (then nothing until it moves, unless
    /// the configuration is `.airborne`); one `locationUnavailable` update after 10 s without a location.
    public func locationUpdates(
        _ configuration: LiveConfiguration = .default, desiredAccuracy: DesiredAccuracy? = nil,
        distanceFilterM: Double? = nil, maximumAgeS: Double = 10,
        options: SubscriptionOptions = SubscriptionOptions()
    ) -> Updates<LocationUpdate> {
        let demand = LocationDemand(
            desiredAccuracy: desiredAccuracy ?? configuration.desiredAccuracy, distanceFilterM: distanceFilterM,
            maximumAgeS: maximumAgeS)
        let o = LocationSubscriber.Options(configuration: configuration, demand: demand, timeoutS: nil)
        return make(options, kind: "location", demand: { Demand(client: $0, location: demand, foreground: options.foreground) }) {
            .location($0, o, $1)
        }
    }

    /// One location meeting `desiredAccuracy`, or the best one found by `timeoutS` (session time), like
    /// `CLLocationManager.requestLocation()`. Its receiver demand lasts only while it waits.
    /// - Throws: `SessionError.locationUnavailable` when no location at all came in time; `.sessionEnded`.
    public func requestLocation(
        desiredAccuracy: DesiredAccuracy = .best, timeoutS: Double = 30,
        options: SubscriptionOptions = SubscriptionOptions()
    ) async throws(SessionError) -> LocationUpdate {
        let demand = LocationDemand(desiredAccuracy: desiredAccuracy)
        let o = LocationSubscriber.Options(configuration: .default, demand: demand, timeoutS: timeoutS)
        let updates: Updates<LocationUpdate> = make(
            options, kind: "request",
            demand: {
                Demand(client: $0, location: demand, foreground: options.foreground)
            }
        ) { .location($0, o, $1) }
        for await u in updates {
            guard u.location != nil else { throw .locationUnavailable(timeoutS: timeoutS) }
            return u
        }
        throw .sessionEnded
    }

    /// Headings (`CLHeading`) that changed by at least `filterDeg` (0: every one, at most 20 a second).
    public func headingUpdates(
        filterDeg: Double = 1, trueNorth: Bool = true,
        options: SubscriptionOptions = SubscriptionOptions()
    ) -> Updates<HeadingUpdate> {
        make(
            options, kind: "heading",
            demand: {
                Demand(
                    client: $0, heading: HeadingDemand(headingFilterDeg: filterDeg, trueNorth: trueNorth),
                    foreground: options.foreground)
            }
        ) { .heading($0, filterDeg: filterDeg, $1) }
    }

    /// Device motion (`CMDeviceMotion`) at `rateHz` at most (as fast as the IMU is read).
    public func deviceMotionUpdates(
        rateHz: Double = 50,
        options: SubscriptionOptions = SubscriptionOptions()
    ) -> Updates<DeviceMotion> {
        make(
            options, kind: "motion",
            demand: {
                Demand(client: $0, heading: HeadingDemand(headingFilterDeg: 0, trueNorth: false), foreground: options.foreground)
            }
        ) { .deviceMotion($0, rateHz: rateHz, $1) }
    }

    /// The carrier's activity (`CMMotionActivity`) at each change of kind or confidence.
    public func activityUpdates(options: SubscriptionOptions = SubscriptionOptions()) -> Updates<ActivityUpdate> {
        make(options, kind: "activity", demand: { Demand(client: $0, activity: true, foreground: options.foreground) }) {
            .activity($0, $1)
        }
    }

    /// Steps, distance and floors since `fromS` (session time; default: when iteration starts), at most once a second
    /// while they change, and pause/resume events (`CMPedometer.startUpdates(from:)`, `startEventUpdates`).
    public func pedometerUpdates(
        from fromS: Double? = nil,
        options: SubscriptionOptions = SubscriptionOptions()
    ) -> Updates<PedometerUpdate> {
        make(options, kind: "pedometer", demand: { Demand(client: $0, activity: true, foreground: options.foreground) }) {
            .pedometer($0, fromS: fromS, $1)
        }
    }

    /// Relative altitude and pressure, and absolute altitude with its accuracy (`CMAltimeter`), at `rateHz`.
    public func altitudeUpdates(
        rateHz: Double = 1,
        options: SubscriptionOptions = SubscriptionOptions()
    ) -> Updates<AltitudeUpdate> {
        make(options, kind: "altitude", demand: { Demand(client: $0, altitude: true, foreground: options.foreground) }) {
            .altitude($0, rateHz: rateHz, $1)
        }
    }

    /// Raw readings of the sensors named (all when empty), board axes, as read. Keeps the IMU, magnetometer and
    /// barometer sampling.
    public func sensorUpdates(
        _ sensorIDs: Set<String> = [],
        options: SubscriptionOptions = SubscriptionOptions(buffering: .newest(256))
    ) -> Updates<SensorSample> {
        make(
            options, kind: "sensors",
            demand: {
                Demand(
                    client: $0, heading: HeadingDemand(headingFilterDeg: 0, trueNorth: false), activity: true, altitude: true,
                    foreground: options.foreground)
            }
        ) { .sensor($0, ids: sensorIDs, $1) }
    }

    /// The wire (`LodestoneWire`): VERSION, BOARD and CALIBRATION first, then the `classes` chosen as the session
    /// produces them (see `Wire.Class`); periodic classes at `rateHz`, ACTIVITY on change and every
    /// `activityPeriodS`. `demand`: what the stream's reader needs served (default: what its classes imply).
    public func messages(
        _ classes: Set<Wire.Class> = Wire.Class.defaultSet, rateHz: Double = 1, activityPeriodS: Double = 10,
        demand: Demand? = nil,
        options: SubscriptionOptions = SubscriptionOptions(buffering: .lossless(4096))
    ) -> Updates<Wire.Message> {
        let o = MessageSubscriber.Options(classes: classes, rateHz: rateHz, activityPeriodS: activityPeriodS)
        return make(
            options, kind: "wire",
            demand: { client in
                if var d = demand { d.client = options.client ?? d.client; return d }
                return Demand.reading(classes, client: client, foreground: options.foreground)
            }
        ) { .messages($0, o, $1) }
    }

    /// A status snapshot every `periodS` of session time (the live view, the quiet log). `demand`: what its reader
    /// needs served (default: nothing).
    public func statusUpdates(
        periodS: Double = 1, demand: Demand? = nil,
        options: SubscriptionOptions = SubscriptionOptions(buffering: .newest(1))
    ) -> Updates<SessionStatus> {
        make(
            options, kind: "status",
            demand: { client in
                guard var d = demand else { return Demand(client: client, foreground: options.foreground) }
                d.client = options.client ?? d.client
                return d
            }
        ) { .status($0, periodS: periodS, $1) }
    }

    func make<E: Sendable>(
        _ options: SubscriptionOptions, kind: String,
        demand: @escaping @Sendable (String) -> Demand,
        request: @escaping @Sendable (SubscriberInfo, UpdateBuffer<E>) -> SubscriberRequest
    ) -> Updates<E> {
        let registry = subscriptionRegistry
        return Updates(registry: registry, buffering: options.buffering) { buffer in
            let id = registry.makeID()
            let client = options.client ?? "\(kind)#\(id)"
            return request(SubscriberInfo(id: id, demand: demand(client)), buffer)
        }
    }
}

extension Demand {
    /// What a reader of the wire `classes` needs served: locations for LOCATION and DELIVERY, headings for HEADING and
    /// ATTITUDE, activity for ACTIVITY and PEDOMETER, altitude for ALTITUDE.
    public static func reading(_ classes: Set<Wire.Class>, client: String, foreground: Bool = true) -> Demand {
        Demand(
            client: client,
            location: classes.contains(.location) || classes.contains(.delivery) ? LocationDemand(desiredAccuracy: .best) : nil,
            heading: classes.contains(.heading) || classes.contains(.attitude) ? HeadingDemand() : nil,
            activity: classes.contains(.activity) || classes.contains(.pedometer),
            altitude: classes.contains(.altitude), foreground: foreground)
    }
}
