import LodestoneCore
import LodestoneScheduler
import LodestoneService
import LodestoneWire

/// What hands out live streams: a `Session` (the actor, paced by its clock) or a `SessionCore` driven directly (a
/// harness, a benchmark). Each stream joins the loop at its next step once iterated, and leaves it when its consumer
/// stops.
public protocol SubscriptionSource: LodestoneService {
    /// Where streams wait to join the loop.
    var subscriptionRegistry: SubscriptionRegistry { get }
}

extension SubscriptionSource {

    /// A live stream of what `subscription` describes, joining this loop at its next step once iterated
    /// (`LodestoneService`).
    public func updates<Element>(_ subscription: Subscription<Element>, options: SubscriptionOptions) -> Updates<Element> {
        let spec = subscription.spec
        let fg = options.foreground
        switch spec.kind {
        case .location, .request:
            let configuration = spec.configuration ?? .default
            let demand = LocationDemand(
                desiredAccuracy: spec.desiredAccuracy ?? (spec.kind == .request ? .best : configuration.desiredAccuracy),
                distanceFilterM: spec.kind == .request ? nil : spec.distanceFilterM, maximumAgeS: spec.maximumAgeS ?? 10)
            let o = LocationSubscriber.Options(
                configuration: configuration, demand: demand, timeoutS: spec.kind == .request ? (spec.timeoutS ?? 30) : nil)
            return make(options, kind: spec.kind.rawValue, demand: { Demand(client: $0, location: demand, foreground: fg) }) {
                .location($0, o, typedBuffer($1))
            }
        case .heading:
            let filterDeg = spec.filterDeg ?? 1
            let rateHz = min(
                spec.rateHz.flatMap { $0 > 0 ? $0 : nil } ?? HeadingSubscriber.maximumRateHz, HeadingSubscriber.maximumRateHz)
            let heading = HeadingDemand(headingFilterDeg: filterDeg, trueNorth: spec.trueNorth ?? true)
            return make(options, kind: "heading", demand: { Demand(client: $0, heading: heading, foreground: fg) }) {
                .heading($0, filterDeg: filterDeg, rateHz: rateHz, typedBuffer($1))
            }
        case .motion:
            let rateHz = spec.rateHz ?? 50
            return make(
                options, kind: "motion",
                demand: { Demand(client: $0, heading: HeadingDemand(headingFilterDeg: 0, trueNorth: false), foreground: fg) }
            ) { .deviceMotion($0, rateHz: rateHz, typedBuffer($1)) }
        case .activity:
            return make(options, kind: "activity", demand: { Demand(client: $0, activity: true, foreground: fg) }) {
                .activity($0, typedBuffer($1))
            }
        case .pedometer:
            let fromS = spec.fromS
            return make(options, kind: "pedometer", demand: { Demand(client: $0, activity: true, foreground: fg) }) {
                .pedometer($0, fromS: fromS, typedBuffer($1))
            }
        case .altitude:
            let rateHz = spec.rateHz ?? 1
            return make(options, kind: "altitude", demand: { Demand(client: $0, altitude: true, foreground: fg) }) {
                .altitude($0, rateHz: rateHz, typedBuffer($1))
            }
        case .sensors:
            let ids = Set(spec.sensorIDs ?? [])
            return make(
                options, kind: "sensors",
                demand: {
                    Demand(
                        client: $0, heading: HeadingDemand(headingFilterDeg: 0, trueNorth: false), activity: true, altitude: true,
                        foreground: fg)
                }
            ) { .sensor($0, ids: ids, typedBuffer($1)) }
        }
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
        return Updates(buffering: options.buffering) { buffer in
            let id = registry.makeID()
            let client = options.client ?? "\(kind)#\(id)"
            registry.add(request(SubscriberInfo(id: id, demand: demand(client)), buffer))
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

/// The buffer of a subscription as its kind's update type. `Subscription<Element>` is made only by its typed constructors
/// (or `received(_:)`, which checks), so the kind and `Element` always match: a mismatch is a programmer error and traps.
private func typedBuffer<E, T>(_ buffer: UpdateBuffer<E>) -> UpdateBuffer<T> {
    guard let b = buffer as? UpdateBuffer<T> else { preconditionFailure("subscription kind and update type differ") }
    return b
}
