import LodestoneCore
import LodestoneFusion
import LodestoneOrientation
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneScheduler
import LodestoneService
import LodestoneStore
import LodestoneWire

/// A subscription on its way into the loop: who asks, what the scheduler must serve for it, and its buffer.
enum SubscriberRequest: Sendable {
    case location(SubscriberInfo, LocationSubscriber.Options, UpdateBuffer<LocationUpdate>)
    case heading(SubscriberInfo, filterDeg: Double, rateHz: Double, UpdateBuffer<HeadingUpdate>)
    case deviceMotion(SubscriberInfo, rateHz: Double, UpdateBuffer<DeviceMotion>)
    case activity(SubscriberInfo, UpdateBuffer<ActivityUpdate>)
    case pedometer(SubscriberInfo, fromS: Double?, UpdateBuffer<PedometerUpdate>)
    case altitude(SubscriberInfo, rateHz: Double, UpdateBuffer<AltitudeUpdate>)
    case sensor(SubscriberInfo, ids: Set<String>, UpdateBuffer<SensorSample>)
    case messages(SubscriberInfo, MessageSubscriber.Options, UpdateBuffer<Wire.Message>)
    case status(SubscriberInfo, periodS: Double, UpdateBuffer<SessionStatus>)
    /// Monitoring's streams (`MonitoringRuntime` takes them).
    case monitorEvents(MonitorKey, UpdateBuffer<MonitorEvent>)
    case significantChange(UpdateBuffer<SignificantLocationChange>)
    case visits(UpdateBuffer<VisitEvent>)
}

/// Who asks and what the scheduler must serve for it.
struct SubscriberInfo: Sendable {
    var id: Int
    var demand: Demand
}

/// One subscriber: its kind's state and its buffer.
struct Subscriber<KindState, Element: Sendable> {
    var info: SubscriberInfo
    var kind: KindState
    let buffer: UpdateBuffer<Element>
}

/// The loop's subscribers, one array per kind, so that a step touches only the kinds it has news for and nothing is
/// boxed.
struct Subscribers {
    var location: [Subscriber<LocationSubscriber, LocationUpdate>] = []
    var heading: [Subscriber<HeadingSubscriber, HeadingUpdate>] = []
    var deviceMotion: [Subscriber<RateLimit, DeviceMotion>] = []
    var activity: [Subscriber<ActivitySubscriber, ActivityUpdate>] = []
    var pedometer: [Subscriber<PedometerSubscriber, PedometerUpdate>] = []
    var altitude: [Subscriber<AltitudeSubscriber, AltitudeUpdate>] = []
    var sensor: [Subscriber<Set<String>, SensorSample>] = []
    var messages: [Subscriber<MessageSubscriber, Wire.Message>] = []
    var status: [Subscriber<RateLimit, SessionStatus>] = []

    /// Every subscriber's demand (allocates: called when subscriptions change).
    var demands: [Demand] {
        location.map(\.info.demand) + heading.map(\.info.demand) + deviceMotion.map(\.info.demand)
            + activity.map(\.info.demand) + pedometer.map(\.info.demand) + altitude.map(\.info.demand)
            + sensor.map(\.info.demand) + messages.map(\.info.demand) + status.map(\.info.demand)
    }

    /// How many subscribers there are.
    var count: Int {
        location.count + heading.count + deviceMotion.count + activity.count + pedometer.count + altitude.count + sensor.count
            + messages.count + status.count
    }

    /// Buffers a session on virtual time waits for (lossless and full).
    func fullLosslessBuffer() -> (any WaitableBuffer)? {
        for s in messages where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in location where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in sensor where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in heading where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in deviceMotion where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in activity where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in pedometer where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in altitude where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        for s in status where s.buffer.isLossless && s.buffer.isFull { return s.buffer }
        return nil
    }

    /// Drops subscribers whose consumer has gone; true when any was dropped. Reads one atomic flag per subscriber.
    mutating func pruneEnded() -> Bool {
        var any = false
        func prune<K, E>(_ list: inout [Subscriber<K, E>]) {
            var i = 0
            while i < list.count {
                if list[i].buffer.isCancelled || list[i].buffer.isFinished { list.remove(at: i); any = true } else { i += 1 }
            }
        }
        prune(&location); prune(&heading); prune(&deviceMotion); prune(&activity); prune(&pedometer); prune(&altitude)
        prune(&sensor); prune(&messages); prune(&status)
        return any
    }

    mutating func add(_ request: SubscriberRequest, state: SessionCore.State, timeS: Double) {
        switch request {
        case let .location(info, options, buffer):
            location.append(Subscriber(info: info, kind: LocationSubscriber(options: options, startS: timeS), buffer: buffer))
        case let .heading(info, filter, rateHz, buffer):
            // A heading from more than a second before the stream joined (the sensors were off since) is not delivered.
            heading.append(
                Subscriber(
                    info: info,
                    kind: HeadingSubscriber(
                        filter: HeadingFilter(minimumChangeDeg: filter), limit: RateLimit(rateHz: rateHz), lastTimeS: timeS - 1),
                    buffer: buffer))
        case let .deviceMotion(info, rate, buffer):
            deviceMotion.append(Subscriber(info: info, kind: RateLimit(rateHz: rate), buffer: buffer))
        case let .activity(info, buffer):
            activity.append(Subscriber(info: info, kind: ActivitySubscriber(), buffer: buffer))
        case let .pedometer(info, fromS, buffer):
            let estimator = state.fusion.motion.estimator
            pedometer.append(
                Subscriber(
                    info: info, kind: PedometerSubscriber(estimator: estimator, fromS: fromS, nowS: timeS),
                    buffer: buffer))
        case let .altitude(info, rate, buffer):
            altitude.append(Subscriber(info: info, kind: AltitudeSubscriber(limit: RateLimit(rateHz: rate)), buffer: buffer))
        case let .sensor(info, ids, buffer):
            sensor.append(Subscriber(info: info, kind: ids, buffer: buffer))
        case let .messages(info, options, buffer):
            var m = MessageSubscriber(options: options, demand: info.demand.location)
            for header in state.header where options.classes.contains(header.messageClass ?? .version) { buffer.push(header) }
            m.started = true
            messages.append(Subscriber(info: info, kind: m, buffer: buffer))
        case let .status(info, period, buffer):
            status.append(Subscriber(info: info, kind: RateLimit(periodS: period), buffer: buffer))
        case .monitorEvents, .significantChange, .visits:
            break // MonitoringRuntime's
        }
    }

    // MARK: - Per event

    mutating func offer(reading r: SensorReading, sensor id: String, state: SessionCore.State) {
        for i in sensor.indices where sensor[i].kind.isEmpty || sensor[i].kind.contains(id) {
            sensor[i].buffer.push(SensorSample(sensor: id, reading: r))
        }
        for i in messages.indices where messages[i].kind.options.classes.contains(.sample) {
            messages[i].buffer.push(
                .sample(Wire.Sample(sensor: id, reading: r, messageClass: "SAMPLE", time: state.utc(r.timeS))))
        }
    }

    mutating func offer(fix f: ReceiverFix, sensor id: String, state: SessionCore.State) {
        for i in messages.indices where messages[i].kind.options.classes.contains(.fix) {
            messages[i].buffer.push(.fix(Wire.Fix(sensor: id, fix: f, time: state.utc(f.timeS))))
        }
    }

    mutating func offer(notice: Wire.Notice) {
        let c = Wire.Class(rawValue: notice.class) ?? .degraded
        for i in messages.indices where messages[i].kind.options.classes.contains(c) { messages[i].buffer.push(.notice(notice)) }
    }

    // MARK: - After each step

    mutating func afterStep(
        state: SessionCore.State, engine: Engine, runtime: BoardRuntime, timeS t: Double,
        planFailures: [SourceError]
    ) {
        let fusion = state.fusion
        if !location.isEmpty {
            let latest = fusion.location.latest
            let stationary =
                state.scheduling.map { $0.scheduler.inputs.motion == .stationary }
                ?? (fusion.context.activity?.kind == .stationary)
            let receiverOff = state.scheduling?.receiverState == .off
            for i in location.indices {
                if let u = location[i].kind.offer(latest, timeS: t, stationary: stationary, receiverOff: receiverOff) {
                    location[i].buffer.push(u)
                    // A one-shot request answered: its stream ends, and the next step drops it with its demand.
                    if location[i].kind.isDone { location[i].buffer.finish() }
                }
            }
        }
        if !heading.isEmpty, let h = fusion.orientation.heading {
            for i in heading.indices where heading[i].kind.offer(h) { heading[i].buffer.push(HeadingUpdate(h)) }
        }
        if !deviceMotion.isEmpty, let motion = Self.deviceMotion(state: state, timeS: t) {
            for i in deviceMotion.indices where deviceMotion[i].kind.due(t) { deviceMotion[i].buffer.push(motion) }
        }
        if !activity.isEmpty {
            let a = fusion.motion.estimator.activity
            for i in activity.indices where activity[i].kind.offer(a) {
                activity[i].buffer.push(ActivityUpdate(timeS: t, activity: a))
            }
        }
        if !pedometer.isEmpty {
            let estimator = fusion.motion.estimator
            for i in pedometer.indices {
                if let u = pedometer[i].kind.offer(estimator, timeS: t) { pedometer[i].buffer.push(u) }
            }
        }
        if !altitude.isEmpty {
            let alt = fusion.motion.estimator.altitude
            for i in altitude.indices {
                if let u = altitude[i].kind.offer(alt, timeS: t) { altitude[i].buffer.push(u) }
            }
        }
        if !status.isEmpty {
            for i in status.indices where status[i].kind.due(t) {
                status[i].buffer.push(SessionStatus(state: state, engine: engine, runtime: runtime))
            }
        }
        if !messages.isEmpty {
            for i in messages.indices {
                messages[i].kind.afterStep(
                    state: state, engine: engine, runtime: runtime, timeS: t, planFailures: planFailures,
                    buffer: messages[i].buffer)
            }
        }
    }

    /// The session ended: message subscribers get a last STATUS (unless one was sent at this time), every stream ends.
    mutating func finish(state: SessionCore.State, engine: Engine, runtime: BoardRuntime, lastStepS: Double) {
        for i in messages.indices {
            let m = messages[i].kind
            if m.options.classes.contains(.status), m.lastStatusS != lastStepS {
                messages[i].buffer.push(
                    .status(SessionCore.statusMessage(state: state, engine: engine, runtime: runtime, timeS: lastStepS)))
            }
        }
        for s in location { s.buffer.finish() }
        for s in heading { s.buffer.finish() }
        for s in deviceMotion { s.buffer.finish() }
        for s in activity { s.buffer.finish() }
        for s in pedometer { s.buffer.finish() }
        for s in altitude { s.buffer.finish() }
        for s in sensor { s.buffer.finish() }
        for s in messages { s.buffer.finish() }
        for s in status { s.buffer.finish() }
    }

    /// The device motion now (`nil` before the orientation filter has an attitude or an accelerometer reading).
    static func deviceMotion(state: SessionCore.State, timeS: Double) -> DeviceMotion? {
        let filter = state.fusion.orientation.filter
        guard let q = filter.boardToENU, let f = state.lastAccelerationMps2 else { return nil }
        let angles = q.rollPitchHeadingDeg
        // Gravity points down (−U in ENU); in board axes it is the inverse rotation of (0, 0, −g).
        let gravity = q.conjugate.rotate(Vector3(x: 0, y: 0, z: -PhysicalConstants.standardGravityMps2))
        let rate = (state.lastAngularVelocityRadS ?? .zero) - filter.gyroscopeBiasRadS
        let heading = state.fusion.orientation.heading
        let accuracy: MagneticFieldAccuracy
        if let h = heading, h.isValid, !h.calibrationNeeded {
            accuracy = h.headingAccuracyDeg <= 5 ? .high : h.headingAccuracyDeg <= 15 ? .medium : .low
        } else {
            accuracy = .uncalibrated
        }
        return DeviceMotion(
            timeS: timeS, attitude: q, rollDeg: angles.rollDeg, pitchDeg: angles.pitchDeg, yawDeg: angles.headingDeg,
            rotationRateRadS: rate, gravityMps2: gravity, userAccelerationMps2: f + gravity,
            magneticFieldMicroTesla: filter.magneticFieldMicroTesla, magneticFieldAccuracy: accuracy,
            headingDeg: heading.flatMap { $0.isValid ? $0.magneticHeadingDeg : nil })
    }
}

/// A buffer the session can wait on.
protocol WaitableBuffer: Sendable {
    func waitForSpace() async
}
extension UpdateBuffer: WaitableBuffer {}

/// At most `rateHz` updates a second (on session time).
struct RateLimit {
    var periodS: Double
    var nextS = -Double.infinity
    init(rateHz: Double) { periodS = rateHz > 0 ? 1 / rateHz : 0 }
    init(periodS: Double) { self.periodS = max(0, periodS) }
    mutating func due(_ t: Double) -> Bool {
        guard t >= nextS - 1e-9 else { return false }
        // Keep a grid: a late step does not shift every later update.
        nextS = nextS.isFinite && t - nextS < periodS ? nextS + periodS : t + periodS
        return true
    }
}

/// A live location stream's delivery: its own accuracy, distance filter and age; auto-pause and unavailability.
struct LocationSubscriber {
    struct Options: Sendable, Hashable {
        var configuration: LiveConfiguration
        var demand: LocationDemand
        /// One-shot (`requestLocation`): the first location meeting the accuracy, or the best at `timeoutS`.
        var timeoutS: Double?
    }
    let options: Options
    var delivery: LocationDelivery
    var pausedAnnounced = false
    var unavailableAnnounced = false
    var lastUpdateS: Double
    let startS: Double
    var best: DeliveredLocation?
    private(set) var isDone = false

    /// How long without a delivery before an update says the location is unavailable, s.
    static let unavailableAfterS = 10.0

    init(options: Options, startS: Double) {
        self.options = options
        self.startS = startS
        lastUpdateS = startS
        var parameters = LocationDelivery.Parameters()
        if options.timeoutS != nil { parameters.deliveryPeriodS = 0.1 }
        // A one-shot request looks at every location (it keeps the best); a stream gets only what meets its tier.
        var demand = options.demand
        if options.timeoutS != nil { demand.desiredAccuracy = .reduced }
        delivery = LocationDelivery(demand: demand, parameters: parameters)
    }

    mutating func offer(_ latest: Location?, timeS t: Double, stationary: Bool, receiverOff: Bool) -> LocationUpdate? {
        if let timeout = options.timeoutS { return request(latest, timeS: t, timeoutS: timeout) }
        let pausing = options.configuration.pausesAtRest && stationary
        if let d = delivery.offer(latest, timeS: t, stationary: pausing, receiverOff: receiverOff) {
            pausedAnnounced = false
            unavailableAnnounced = false
            lastUpdateS = t
            return LocationUpdate(timeS: t, location: d.location, ageS: d.ageS, isStale: d.isStale)
        }
        if pausing, receiverOff, !pausedAnnounced, let last = delivery.last {
            pausedAnnounced = true
            lastUpdateS = t
            let d = last.asked(atS: t, maximumAgeS: options.demand.maximumAgeS)
            return LocationUpdate(timeS: t, location: d.location, ageS: d.ageS, isStale: d.isStale, isStationary: true)
        }
        if !pausedAnnounced, !unavailableAnnounced, t - lastUpdateS >= Self.unavailableAfterS {
            unavailableAnnounced = true
            let d = delivery.last?.asked(atS: t, maximumAgeS: options.demand.maximumAgeS)
            return LocationUpdate(
                timeS: t, location: d?.location, ageS: d?.ageS, isStale: d?.isStale ?? false,
                locationUnavailable: true)
        }
        return nil
    }

    private mutating func request(_ latest: Location?, timeS t: Double, timeoutS: Double) -> LocationUpdate? {
        if let d = delivery.offer(latest, timeS: t, stationary: false, receiverOff: false) {
            if best == nil || d.location.horizontalAccuracyM < best!.location.horizontalAccuracyM { best = d }
            if d.location.horizontalAccuracyM <= options.demand.desiredAccuracy.requiredHorizontalAccuracyM {
                isDone = true
                return LocationUpdate(timeS: t, location: d.location, ageS: d.ageS, isStale: d.isStale)
            }
        }
        guard t - startS >= timeoutS else { return nil }
        isDone = true
        guard let b = best?.asked(atS: t, maximumAgeS: options.demand.maximumAgeS) else {
            return LocationUpdate(timeS: t, location: nil, locationUnavailable: true)
        }
        return LocationUpdate(timeS: t, location: b.location, ageS: b.ageS, isStale: b.isStale)
    }
}

/// Headings changed by at least the filter, at most `limit` a second (20 at most: `HeadingSubscriber.maximumRateHz`).
struct HeadingSubscriber {
    static let maximumRateHz = 20.0
    var filter: HeadingFilter
    var limit = RateLimit(rateHz: 20)
    var lastTimeS = -Double.infinity
    mutating func offer(_ h: Heading) -> Bool {
        guard h.timeS > lastTimeS else { return false }
        lastTimeS = h.timeS
        guard limit.nextS <= h.timeS + 1e-9, filter.offer(h) else { return false }
        return limit.due(h.timeS)
    }
}

/// Activity on each change of kind or confidence.
struct ActivitySubscriber {
    var last: MotionActivity?
    mutating func offer(_ a: MotionActivity) -> Bool {
        guard a.kind != .unknown, a.kind != last?.kind || a.confidence != last?.confidence else { return false }
        last = a
        return true
    }
}

/// Pedometer data since the stream's start, at most once a second while it changes; pause and resume events.
struct PedometerSubscriber {
    let base: PedometerData
    let startS: Double
    /// Counted before the stream joined, when it asked for an earlier start.
    let earlier: PedometerData?
    var limit = RateLimit(rateHz: 1)
    var lastSteps = -1
    var lastFloors = -1
    var walking = false

    init(estimator: MotionEstimator, fromS: Double?, nowS: Double) {
        base = estimator.pedometerData
        startS = min(fromS ?? nowS, nowS)
        earlier = fromS.flatMap { $0 < nowS ? estimator.pedometer.query(fromTimeS: $0, toTimeS: nowS) : nil }
    }

    mutating func offer(_ estimator: MotionEstimator, timeS t: Double) -> PedometerUpdate? {
        let now = estimator.pedometerData
        let isWalking = now.currentCadenceStepsPerS != nil
        var event: PedometerUpdate.Event?
        if isWalking != walking {
            walking = isWalking
            event = isWalking ? .resume : .pause
        }
        let steps = now.steps - base.steps + (earlier?.steps ?? 0)
        let floors = now.floorsAscended + now.floorsDescended
        guard event != nil || ((steps != lastSteps || floors != lastFloors) && limit.due(t)) else { return nil }
        lastSteps = steps
        lastFloors = floors
        let data = PedometerData(
            startTimeS: startS, endTimeS: t, steps: steps,
            distanceM: now.distanceM - base.distanceM + (earlier?.distanceM ?? 0),
            floorsAscended: now.floorsAscended - base.floorsAscended + (earlier?.floorsAscended ?? 0),
            floorsDescended: now.floorsDescended - base.floorsDescended + (earlier?.floorsDescended ?? 0),
            currentCadenceStepsPerS: now.currentCadenceStepsPerS, currentPaceSPerM: now.currentPaceSPerM,
            averageActivePaceSPerM: now.averageActivePaceSPerM)
        return PedometerUpdate(timeS: t, data: data, event: event)
    }
}

/// Altitude at the stream's rate once the barometer has spoken; relative to the stream's first update.
struct AltitudeSubscriber {
    var limit: RateLimit
    var originM: Double?

    mutating func offer(_ alt: AltitudeFilter, timeS t: Double) -> AltitudeUpdate? {
        guard alt.pressurePa != nil, limit.due(t) else { return nil }
        var relative: Double?
        if let r = alt.relativeAltitudeM {
            if originM == nil { originM = r }
            relative = r - (originM ?? r)
        }
        return AltitudeUpdate(
            timeS: t, relativeAltitudeM: relative, pressurePa: alt.pressurePa, altitudeM: alt.altitudeM,
            altitudeAccuracyM: alt.altitudeAccuracyM, verticalSpeedMps: alt.verticalSpeedMps)
    }
}
