import LodestoneCore
import LodestoneFusion
import LodestoneOrientation
import LodestoneLocation
import LodestoneMotion
import LodestoneScheduler
import LodestoneWire

/// A subscriber to the wire (`Session.messages`): the header (VERSION, BOARD, CALIBRATION) when it joins, then each
/// class it chose as the session produces it — SAMPLE, FIX, DEGRADED and RECOVERED as they happen, PLAN at each
/// change, DELIVERY for each location delivered to it, ACTIVITY on each change and every `activityPeriodS`, and
/// STATUS, LOCATION, ATTITUDE, HEADING, PEDOMETER and ALTITUDE at `rateHz`.
struct MessageSubscriber {
    struct Options: Sendable, Hashable {
        var classes: Set<Wire.Class>
        var rateHz: Double
        var activityPeriodS: Double
    }
    let options: Options
    var started = false
    var delivery: LocationDelivery?
    var periodic: RateLimit
    var lastStatusS = -Double.infinity
    var lastActivity: MotionActivity?
    var nextActivityS = -Double.infinity
    var sentPlanGeneration = -1

    init(options: Options, demand: LocationDemand?) {
        self.options = options
        periodic = RateLimit(rateHz: options.rateHz)
        // Periodic messages start one period in (the first STATUS after a second of readings, as before).
        periodic.nextS = options.rateHz > 0 ? 1 / options.rateHz : 0
        if options.classes.contains(.delivery), let demand { delivery = LocationDelivery(demand: demand) }
    }

    mutating func afterStep(
        state: SessionCore.State, engine: Engine, runtime: BoardRuntime, timeS t: Double,
        planFailures: [SourceError], buffer: UpdateBuffer<Wire.Message>
    ) {
        let classes = options.classes
        if classes.contains(.plan), let s = state.scheduling, s.applied != nil,
            state.planChangedAtLastStep || sentPlanGeneration < 0
        {
            sentPlanGeneration = s.scheduler.plan.generation
            buffer.push(
                .plan(Wire.Plan(s, timeS: t, failures: state.planChangedAtLastStep ? planFailures : [], time: state.utc(t))))
        }
        if delivery != nil {
            let inputs = state.scheduling?.scheduler.inputs
            if let d = delivery?.offer(
                state.fusion.location.latest, timeS: t, stationary: inputs?.motion == .stationary,
                receiverOff: state.scheduling?.receiverState == .off)
            {
                buffer.push(.delivery(Wire.Delivery(d, time: state.utc(t))))
            }
        }
        if classes.contains(.activity), let a = state.fusion.context.activity,
            a.kind != lastActivity?.kind || t >= nextActivityS
        {
            lastActivity = a
            nextActivityS = t + options.activityPeriodS
            var m = Wire.Activity()
            m.tS = t; m.time = state.utc(t)
            m.activity = a.kind.rawValue; m.confidence = a.confidence.rawValue; m.startTS = a.startTimeS
            buffer.push(.activity(m))
        }
        guard periodic.due(t) else { return }
        let time = state.utc(t)
        if classes.contains(.status) {
            lastStatusS = t
            buffer.push(.status(SessionCore.statusMessage(state: state, engine: engine, runtime: runtime, timeS: t)))
        }
        let fusion = state.fusion
        if classes.contains(.location), let l = fusion.location.latest { buffer.push(.location(Wire.Location(l))) }
        if classes.contains(.attitude), let q = fusion.orientation.filter.boardToENU {
            var m = Wire.Attitude()
            m.tS = t; m.time = time
            m.qw = q.w; m.qx = q.x; m.qy = q.y; m.qz = q.z
            let a = q.rollPitchHeadingDeg
            m.rollDeg = a.rollDeg; m.pitchDeg = a.pitchDeg; m.yawDeg = a.headingDeg
            buffer.push(.attitude(m))
        }
        if classes.contains(.heading), let h = fusion.orientation.heading {
            var m = Wire.Heading()
            m.tS = t; m.time = time
            m.magneticDeg = h.magneticHeadingDeg
            m.trueDeg = h.trueHeadingDeg.finite
            m.accuracyDeg = h.isValid ? h.headingAccuracyDeg.finite : nil
            m.declinationDeg = h.declinationDeg.finite
            m.fieldXMicroTesla = h.magneticFieldMicroTesla?.x.finite
            m.fieldYMicroTesla = h.magneticFieldMicroTesla?.y.finite
            m.fieldZMicroTesla = h.magneticFieldMicroTesla?.z.finite
            m.calibrationNeeded = h.calibrationNeeded ? true : nil
            buffer.push(.heading(m))
        }
        if classes.contains(.pedometer) {
            let p = fusion.motion.estimator.pedometerData
            var m = Wire.Pedometer()
            m.tS = t; m.time = time
            m.startTS = p.startTimeS; m.steps = p.steps; m.distanceM = p.distanceM
            m.cadenceSpm = p.currentCadenceStepsPerMinute.finite; m.paceSPerM = p.currentPaceSPerM.finite
            m.floorsUp = p.floorsAscended; m.floorsDown = p.floorsDescended
            buffer.push(.pedometer(m))
        }
        if classes.contains(.altitude) {
            let alt = fusion.motion.estimator.altitude
            if alt.pressurePa != nil {
                var m = Wire.Altitude()
                m.tS = t; m.time = time
                m.relativeAltitudeM = alt.relativeAltitudeM.finite; m.pressurePa = alt.pressurePa.finite
                m.altitudeM = alt.altitudeM.finite; m.altitudeAccuracyM = alt.altitudeAccuracyM.finite
                m.verticalSpeedMps = alt.verticalSpeedMps.finite
                buffer.push(.altitude(m))
            }
        }
    }
}
