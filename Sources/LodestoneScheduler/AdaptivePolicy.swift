import LodestoneCore
import RealModule

/// The product: spends only the battery that the clients' demands need, given the motion state, the battery tier and
/// the receiver's signal. Every part of a plan names its cause. See docs/scheduler.md for the user's view.
///
/// **Location** (the receiver), with the accuracy tier lowered one step for a background-only client and one step
/// on a `low` battery (`DesiredAccuracy.coarser(by:)`):
/// - no client wants locations → receiver off (`noDemand`);
/// - carrier stationary → receiver off (within the motion hysteresis: 8–20 s after a walk stops, 120 s after a
///   drive; see `MotionHysteresis`), except that, where the (effective) tier is 10 m or finer, after
///   `ephemerisRefreshIntervalS` (2 h) without a fix it is woken for up to `ephemerisRefreshWindowS` so that its
///   ephemerides stay valid and the next start is a hot one (coarser tiers accept a warm start); a refresh that
///   finds no signal doubles the wait before the next, up to 8 h, until a fix; and a carrier that came to rest
///   without a signal (the receiver on but no fix for `outageAfterS`: indoors) gets no refresh at all;
/// - moving, `bestForNavigation` or `best` → continuous 1 Hz;
/// - moving, coarser tiers → the receiver's power-save with an update period of
///   `accuracyMargin × requiredHorizontalAccuracyM / speed`, with the nominal speed of the current activity
///   (`nominalSpeedMps`) or, when higher, the speed the receiver measured (its latest fixes' ground speed, an
///   envelope that decays with time constant `measuredSpeedDecayS`, so that a misclassified car is not served as
///   a walk) — or, where every location client states an `updateIntervalS`, that interval instead (a fleet taking a
///   location every 5 minutes) —, lengthened to `accuracyMargin × distanceFilterM / speed` when a distance filter asks
///   for fewer fixes, ×`lowBatteryPeriodFactor` on a low battery, rounded down to a step of `periodStepsS` (so that
///   the period does not wander), clamped to `maximumPowerSavePeriodS`; below `minimumPowerSavePeriodS` →
///   continuous 1 Hz. (Walking at 1.5 m/s for 10 m: a fix every 3 s; for 100 m: every 30 s; driving at 20 m/s
///   for 100 m: every 2 s.)
/// - significant-change only, or a `critical` battery → a fix about every `significantChangeDistanceM` (500 m) of
///   travel at the activity's speed, no more often than every `significantChangePeriodS` (300 s);
/// - moving but paused — no accelerometer motion for `pausedAfterS` (20 s) and the receiver's ground speed below
///   `pausedMaximumSpeedMps` (a car at traffic lights, which the motion state holds as `drive` for 120 s) →
///   power-save every `pausedPowerSavePeriodS` (10 s) until the accelerometer sees motion, which re-plans at once;
/// - no fix for `outageAfterS` (45 s; 90 s before the first fix, a cold start) while on → off for a back-off that
///   starts at `outageBackoffInitialS` (30 s) and doubles to `outageBackoffMaximumS` (600 s), then on again to
///   retry; a fix resets the back-off. Said as `PlanCause.gnssSignal`.
///
/// **Sensors**, per kind, combined per chip (a chip serving several kinds gets the highest rate and the most awake
/// mode any of them needs; a combined accelerometer/gyroscope chip in `.lowPower` runs its accelerometer only):
/// - accelerometer: navigation (`bestForNavigation`, or `best` in the normal and unrestricted tiers) moving →
///   board maximum; heading → `headingRateHz` (50 Hz; 25 Hz on a low or critical battery); activity or location
///   moving → `activityRateHz` (25 Hz: the activity classifier bins at 20 Hz) with FIFO batching up to
///   `batchLatencyS` (1 s) where nobody needs low latency; stationary → `.lowPower` at `activityRateHz` (activity
///   demanded) or `motionDetectorRateHz` (10 Hz: the software any-motion detector still sees motion), with
///   wake-on-motion at `wakeOnMotionThresholdMps2` where the chip has it (then batched up to 1 s, else 0.2 s);
/// - gyroscope: navigation moving → board maximum; heading moving → `headingRateHz`; otherwise suspended (the
///   activity classifier works without it; a stationary compass needs only accelerometer and magnetometer);
/// - magnetometer: heading → `headingRateHz` moving, `headingStationaryRateHz` in `.lowPower` stationary (the
///   accelerometer then also in `.lowPower`: a compass at rest needs only the gravity direction); one magnetometer
///   serves heading — a dedicated chip where the board has one, so an IMU's built-in magnetometer is not asked for
///   — otherwise suspended;
/// - barometer: altitude → `barometerMovingRateHz` (10 Hz) moving, `barometerStationaryRateHz` (2 Hz: lifts
///   are "stationary") stationary, oversampling 16 (8 on a low or critical battery at 1 Hz); navigation without
///   altitude → 1 Hz, oversampling 4 (vertical aiding); otherwise suspended;
/// - accelerometer ranges: ±2 g stationary, ±8 g running or cycling, ±4 g otherwise; gyroscope ±2000 °/s running,
///   ±500 °/s otherwise; thermometers and anything else no demand needs → suspended.
/// - no demand at all → everything suspended, receiver off.
///
/// **Battery tiers**: `saver` keeps the IMU at the activity rate for `best` (only navigation gets full rate);
/// `low` lowers the accuracy tier one step, doubles power-save periods and halves heading and barometer rates;
/// `critical` serves location as significant change only; `unrestricted` (charging) and `normal` give full service.
///
/// Allocates nothing per plan (its state is a few numbers; its causes are literals and the clients' names).
public struct AdaptivePolicy: SchedulingPolicy {
    /// The tunable numbers (defaults in the type's documentation above and on each field).
    public struct Parameters: Sendable, Hashable, Codable {
        /// Heading filter rate for accelerometer, gyroscope and magnetometer, Hz. Default 50.
        public var headingRateHz = 50.0
        /// The same on a low or critical battery, Hz. Default 25.
        public var headingReducedRateHz = 25.0
        /// Magnetometer (and accelerometer) rate for heading while stationary, Hz. Default 25.
        public var headingStationaryRateHz = 25.0
        /// Accelerometer rate for the activity classifier and pedometer, Hz. Default 25 (the classifier bins at 20 Hz).
        public var activityRateHz = 25.0
        /// Low-power accelerometer rate while stationary, for the software any-motion detector, Hz. Default 10.
        public var motionDetectorRateHz = 10.0
        /// Wake-on-motion threshold, m/s². Default 0.3 (the software detector's).
        public var wakeOnMotionThresholdMps2 = 0.3
        /// Longest FIFO batching where nobody needs low latency, s. Default 1.
        public var batchLatencyS = 1.0
        /// Longest FIFO batching while stationary without wake-on-motion (the software detector must see motion
        /// soon), s. Default 0.2.
        public var stationaryBatchLatencyS = 0.2
        /// Barometer rates for altitude, Hz. Defaults 10 moving, 2 stationary.
        public var barometerMovingRateHz = 10.0
        public var barometerStationaryRateHz = 2.0
        /// Barometer oversampling for altitude. Default 16 (BMP280 "ultra high resolution").
        public var barometerOversampling = 16
        /// Share of the accuracy budget the carrier may travel between fixes. Default 0.5.
        public var accuracyMargin = 0.5
        /// Power-save periods shorter than this run continuous instead, s. Default 2.
        public var minimumPowerSavePeriodS = 2.0
        /// Longest power-save period, s. Default 600.
        public var maximumPowerSavePeriodS = 600.0
        /// Power-save periods are rounded down to one of these, s.
        public var periodStepsS: [Double] = [2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 450, 600]
        /// Power-save periods are multiplied by this on a low battery. Default 2.
        public var lowBatteryPeriodFactor = 2.0
        /// Significant-change service: a fix every this much travel, m, … Default 500.
        public var significantChangeDistanceM = 500.0
        /// … but not more often than this, s. Default 300.
        public var significantChangePeriodS = 300.0
        /// No fix for this long while on is an outage, s. Default 45.
        public var outageAfterS = 45.0
        /// The same before the first fix (a cold start may take this long), s. Default 90.
        public var outageAfterColdStartS = 90.0
        /// First back-off after an outage, s; doubled after each failed retry up to the maximum. Defaults 30, 600.
        public var outageBackoffInitialS = 30.0
        public var outageBackoffMaximumS = 600.0
        /// While stationary, wake the receiver when its last fix is this old, s. Default 7200 (ephemerides are valid
        /// about 4 h; GPS broadcasts a new set every 2 h).
        public var ephemerisRefreshIntervalS = 7200.0
        /// A refresh starts only after the carrier has been stationary this long, so that a stop first turns the
        /// receiver off (and a short stop never pays for a refresh), s. Default 60.
        public var ephemerisRefreshSettleS = 60.0
        /// Longest ephemeris refresh, s. Default 90.
        public var ephemerisRefreshWindowS = 90.0
        /// A refresh ends this long after its first fix (a full GPS subframe 1–3 cycle is 30 s), s. Default 30.
        public var ephemerisAfterFixS = 30.0

        /// Time constant with which the measured-speed envelope forgets a speed, s. Default 120.
        public var measuredSpeedDecayS = 120.0

        /// A moving carrier whose accelerometer has seen no motion for this long while the receiver's latest ground
        /// speed is below `pausedMaximumSpeedMps` is paused (a car at traffic lights, a person waiting at a crossing):
        /// the receiver goes to power-save with `pausedPowerSavePeriodS` until motion returns, so that it is in
        /// power-save within 30 s of any stop even where the motion state holds `drive` for 120 s. s. Default 20.
        public var pausedAfterS = 20.0
        /// Ground speed below which a quiet carrier counts as paused, m/s. Default 1.
        public var pausedMaximumSpeedMps = 1.0
        /// Power-save period while paused, s (cyclic tracking: the receiver stays hot and serves again at once).
        /// Default 10.
        public var pausedPowerSavePeriodS = 10.0

        public init() {}

        /// The nominal speed of a motion state, m/s: walk 1.5, run 3.5, cycle 6, drive 20 (urban and suburban roads,
        /// conservative), unknown 10, stationary 0.
        public func nominalSpeedMps(_ motion: CarrierMotion) -> Double {
            switch motion {
            case .stationary: 0
            case .walk: 1.5
            case .run: 3.5
            case .cycle: 6
            case .drive: 20
            case .unknown: 10
            }
        }
    }

    public var parameters: Parameters
    public var name: String { "adaptive" }

    // State (all `plan` mutates).
    private var firstPlanS: Double?
    private var backoffUntilS: Double?
    private var backoffS: Double
    private var retryStartS: Double?
    private var refreshStartS: Double?
    private var refreshFirstFixS: Double?
    private var lastRefreshS: Double?
    /// Ephemeris refreshes in a row that found no signal (0…2): the next waits 2^this intervals.
    private var refreshFailures = 0
    /// The carrier is at rest (the stationary branch has run since it last moved).
    private var atRest = false
    /// It came to rest without a signal (indoors): no ephemeris refresh until a fix shows the sky.
    private var noSkyAtRest = false
    /// The measured-speed envelope, m/s, at the time of the fix that set it.
    private var speedEnvelopeMps = 0.0
    private var speedEnvelopeTimeS = -Double.infinity

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        backoffS = parameters.outageBackoffInitialS
    }

    public mutating func plan(_ inputs: SchedulerInputs, into plan: inout Plan) {
        let p = parameters
        let t = inputs.timeS
        if firstPlanS == nil { firstPlanS = t }
        let d = inputs.demand
        let tier = inputs.tier
        let moving = inputs.motion.mayMove
        let anything = d.location != nil || d.heading != nil || d.activity || d.altitude

        // The effective location demand.
        var accuracy: DesiredAccuracy?
        var significantOnly = false
        if let loc = d.location {
            var a = loc.desiredAccuracy
            if !d.foreground { a = a.coarser(by: 1) }
            if tier == .low { a = a.coarser(by: 1) }
            accuracy = a
            significantOnly = loc.significantChangeOnly || tier == .critical
        }
        let navigating =
            moving && !significantOnly
            && (accuracy == .bestForNavigation || accuracy == .best && tier >= .normal)
        let reducedTier = tier <= .low

        // Causes: what is demanded, what is not, the battery, the motion.
        if let a = accuracy, let loc = d.location {
            plan.causes.append(
                .demand(
                    client: d.locationClient ?? "",
                    what: loc.significantChangeOnly ? "significant location changes" : a.demandText))
        } else if plan.gnss != nil {
            plan.causes.append(.noDemand(what: "location"))
        }
        if d.heading != nil {
            plan.causes.append(.demand(client: d.headingClient ?? "", what: "heading"))
        } else if inputs.sensors.contains(where: { $0.kinds.contains(.magnetometer) }) {
            plan.causes.append(.noDemand(what: "heading"))
        }
        if d.activity { plan.causes.append(.demand(client: d.activityClient ?? "", what: "activity")) }
        if d.altitude {
            plan.causes.append(.demand(client: d.altitudeClient ?? "", what: "altitude"))
        } else if inputs.sensors.contains(where: { $0.kinds.contains(.barometer) }) {
            plan.causes.append(.noDemand(what: "altitude"))
        }
        if tier <= .saver { plan.causes.append(.battery(tier)) }
        if anything { plan.causes.append(.motion(inputs.motion, sinceS: inputs.motionSinceS)) }

        // Sensors.
        let accelRange = !moving ? 2 * 9.80665 : (inputs.motion == .run || inputs.motion == .cycle) ? 8 * 9.80665 : 4 * 9.80665
        let gyroRange = inputs.motion == .run ? 2000 * Double.pi / 180 : 500 * Double.pi / 180
        let headingRate = reducedTier ? p.headingReducedRateHz : p.headingRateHz
        // One magnetometer serves heading: a dedicated one where the board has it (an IMU's built-in one stays off for
        // heading; its driver decides what the chip's magnetometer does in the IMU's own modes), else the first.
        let headingMagnetometer =
            inputs.sensors.firstIndex { $0.kinds.contains(.magnetometer) && !$0.kinds.contains(.accelerometer) }
            ?? inputs.sensors.firstIndex { $0.kinds.contains(.magnetometer) }
        for i in plan.sensors.indices where i < inputs.sensors.count {
            let sensor = inputs.sensors[i]
            var need = SensorNeed()
            need.accelerationRangeMps2 = accelRange
            need.angularRateRangeRadS = gyroRange
            for kind in sensor.kinds {
                switch kind {
                case .accelerometer:
                    guard anything else { break }
                    if navigating { need.need(rateHz: sensor.maximumRateHz, mode: .normal) }
                    if d.heading != nil {
                        // At rest a compass needs only the gravity direction: the low-power accelerometer gives it.
                        need.need(rateHz: moving ? headingRate : p.headingStationaryRateHz, mode: moving ? .normal : .lowPower)
                    }
                    if moving {
                        need.need(rateHz: p.activityRateHz, mode: .normal, batchLatencyS: p.batchLatencyS)
                    } else {
                        need.need(
                            rateHz: d.activity ? p.activityRateHz : p.motionDetectorRateHz, mode: .lowPower,
                            batchLatencyS: sensor.hasMotionWake ? p.batchLatencyS : p.stationaryBatchLatencyS)
                        need.wakeOnMotionThresholdMps2 = p.wakeOnMotionThresholdMps2
                    }
                case .gyroscope:
                    if navigating { need.need(rateHz: sensor.maximumRateHz, mode: .normal) }
                    if d.heading != nil && moving { need.need(rateHz: headingRate, mode: .normal) }
                case .magnetometer:
                    if d.heading != nil && i == headingMagnetometer {
                        need.need(rateHz: moving ? headingRate : p.headingStationaryRateHz, mode: moving ? .normal : .lowPower)
                    }
                case .barometer:
                    if d.altitude {
                        if reducedTier {
                            need.need(rateHz: 1, mode: .normal, oversampling: p.barometerOversampling / 2)
                        } else {
                            need.need(
                                rateHz: moving ? p.barometerMovingRateHz : p.barometerStationaryRateHz, mode: .normal,
                                oversampling: p.barometerOversampling)
                        }
                    } else if navigating {
                        need.need(rateHz: 1, mode: .normal, oversampling: 4)
                    }
                case .thermometer, .gnss:
                    break
                }
            }
            need.write(for: sensor, into: &plan.sensors[i])
        }

        // The receiver.
        guard plan.gnss != nil else { return }
        guard let a = accuracy else {
            plan.gnss?.mode = .off
            resetOutage()
            return
        }
        if inputs.gnss.lastFixTimeS == nil, d.location != nil, !significantOnly {
            // No fix yet this session: a client that asked for a location gets a first one at once, at any tier and
            // moving or not (a power-save cycle would wait out its period first, and a carrier at rest would get
            // none). The outage back-off still applies: indoors the receiver does not burn its battery looking.
            plan.causes.append(.policy("no fix yet: receiver on until the first one"))
            plan.gnss?.mode = outageChecked(.continuous(rateHz: 1), inputs, causes: &plan.causes)
            return
        }
        if !moving {
            if !atRest {
                // Just stopped: with the receiver on (or backed off) and no fix for an outage's length, the carrier
                // rests where there is no sky (indoors), and refreshing ephemerides there would only burn acquisition.
                atRest = true
                let lastFixS = inputs.gnss.lastFixTimeS ?? -.infinity
                let receiverWasOn = inputs.receiverOnSinceS != nil || backoffUntilS != nil
                noSkyAtRest = receiverWasOn && t - lastFixS > p.outageAfterS
            }
            resetOutage()
            // Hot starts matter where a client wants fixes within 10 m at once on resuming; for coarser tiers the
            // receiver's warm start (about 25 s) costs less than keeping its ephemerides fresh all day.
            let wantsHotStart = a <= .nearestTenMeters && !significantOnly
            plan.gnss?.mode = wantsHotStart && ephemerisRefresh(inputs, causes: &plan.causes) ? .continuous(rateHz: 1) : .off
            return
        }
        refreshStartS = nil; refreshFirstFixS = nil
        atRest = false
        let speed = max(p.nominalSpeedMps(inputs.motion), measuredSpeedMps(inputs), 0.5)
        let wanted: GNSSReceiverMode
        if significantOnly {
            wanted = .powerSave(updatePeriodS: quantized(max(p.significantChangeDistanceM / speed, p.significantChangePeriodS)))
        } else if a <= .best {
            wanted = .continuous(rateHz: 1)
        } else {
            var periodS = p.accuracyMargin * a.requiredHorizontalAccuracyM / speed
            // A client that takes one location per interval gets a fix per interval, fresh when it is taken: fewer
            // fixes than the tier asks where the interval is long, a continuous receiver where it is short.
            if let intervalS = d.location?.updateIntervalS { periodS = intervalS }
            if let filter = d.location?.distanceFilterM { periodS = max(periodS, p.accuracyMargin * filter / speed) }
            if tier == .low { periodS *= p.lowBatteryPeriodFactor }
            wanted = periodS < p.minimumPowerSavePeriodS ? .continuous(rateHz: 1) : .powerSave(updatePeriodS: quantized(periodS))
        }
        plan.gnss?.mode = outageChecked(paused(wanted, inputs, causes: &plan.causes), inputs, causes: &plan.causes)
    }

    /// `wanted`, or power-save while a moving carrier is paused (see `Parameters.pausedAfterS`).
    private func paused(_ wanted: GNSSReceiverMode, _ inputs: SchedulerInputs, causes: inout [PlanCause]) -> GNSSReceiverMode {
        let p = parameters
        guard inputs.timeS - inputs.lastAccelerationMotionS >= p.pausedAfterS,
            (inputs.gnss.speedMps ?? 0) < p.pausedMaximumSpeedMps
        else { return wanted }
        switch wanted {
        case .continuous:
            break
        case .powerSave(let periodS):
            if periodS >= p.pausedPowerSavePeriodS { return wanted }
        case .off:
            return wanted
        }
        causes.append(.policy("carrier paused (no motion, no ground speed): receiver in power-save until it moves"))
        return .powerSave(updatePeriodS: p.pausedPowerSavePeriodS)
    }

    /// The envelope of the receiver's measured ground speed, decayed to now, m/s.
    private mutating func measuredSpeedMps(_ inputs: SchedulerInputs) -> Double {
        let tau = max(parameters.measuredSpeedDecayS, 1)
        if let f = inputs.gnss.lastFixTimeS, f > speedEnvelopeTimeS, let v = inputs.gnss.speedMps {
            let decayed = speedEnvelopeTimeS.isFinite ? speedEnvelopeMps * Double.exp(-(f - speedEnvelopeTimeS) / tau) : 0
            speedEnvelopeMps = max(v, decayed)
            speedEnvelopeTimeS = f
        }
        guard speedEnvelopeTimeS.isFinite else { return 0 }
        return speedEnvelopeMps * Double.exp(-max(inputs.timeS - speedEnvelopeTimeS, 0) / tau)
    }

    /// `periodS` rounded down to a step, clamped to the maximum.
    private func quantized(_ periodS: Double) -> Double {
        let clamped = min(periodS, parameters.maximumPowerSavePeriodS)
        var step = parameters.periodStepsS.first ?? clamped
        for s in parameters.periodStepsS where s <= clamped { step = max(step, s) }
        return step
    }

    private mutating func resetOutage() {
        backoffUntilS = nil; retryStartS = nil
        backoffS = parameters.outageBackoffInitialS
    }

    /// `wanted`, or off during an outage's back-off.
    private mutating func outageChecked(
        _ wanted: GNSSReceiverMode, _ inputs: SchedulerInputs,
        causes: inout [PlanCause]
    ) -> GNSSReceiverMode {
        let p = parameters
        let t = inputs.timeS
        let lastFixS = inputs.gnss.lastFixTimeS ?? -.infinity
        if let until = backoffUntilS {
            if t < until {
                causes.append(.gnssSignal("no fix: signal lost, receiver off, retrying later"))
                return .off
            }
            backoffUntilS = nil
            retryStartS = t
        }
        if let onS = inputs.receiverOnSinceS {
            if lastFixS >= onS {
                // A fix since the receiver came on: the signal is there.
                backoffS = p.outageBackoffInitialS
                retryStartS = nil
            }
            var allowanceS = inputs.gnss.lastFixTimeS == nil ? p.outageAfterColdStartS : p.outageAfterS
            if case .powerSave(let periodS) = wanted { allowanceS += periodS }
            if t - max(onS, lastFixS) >= allowanceS {
                backoffUntilS = t + backoffS
                backoffS = min(backoffS * 2, p.outageBackoffMaximumS)
                causes.append(.gnssSignal("no fix: signal lost, receiver off, retrying later"))
                return .off
            }
        }
        if let r = retryStartS, lastFixS < r {
            causes.append(.gnssSignal("retrying after signal loss"))
        }
        return wanted
    }

    /// Whether the receiver is to be on to refresh its ephemerides while stationary.
    private mutating func ephemerisRefresh(_ inputs: SchedulerInputs, causes: inout [PlanCause]) -> Bool {
        let p = parameters
        let t = inputs.timeS
        let lastFixS = inputs.gnss.lastFixTimeS
        if let start = refreshStartS {
            if refreshFirstFixS == nil, let f = lastFixS, f >= start { refreshFirstFixS = f }
            let doneAfterFix = refreshFirstFixS.map { t - $0 >= p.ephemerisAfterFixS } ?? false
            if doneAfterFix || t - start >= p.ephemerisRefreshWindowS {
                // A refresh without a fix (indoors: no signal where the carrier rests) is not retried every interval:
                // each failure doubles the wait, up to 4 intervals; a fix resets it.
                refreshFailures = refreshFirstFixS == nil ? min(refreshFailures + 1, 2) : 0
                refreshStartS = nil; refreshFirstFixS = nil
                lastRefreshS = t
                return false
            }
        } else {
            let lastSeenS = max(lastFixS ?? firstPlanS ?? t, lastRefreshS ?? -.infinity)
            if let f = lastFixS, f > (lastRefreshS ?? -.infinity) { refreshFailures = 0 }
            guard !noSkyAtRest else { return false }
            let intervalS = p.ephemerisRefreshIntervalS * Double(1 << refreshFailures)
            guard t - lastSeenS >= intervalS, t - inputs.motionSinceS >= p.ephemerisRefreshSettleS else {
                return false
            }
            refreshStartS = t; refreshFirstFixS = nil
        }
        causes.append(.gnssSignal("stationary 2 h without a fix: refreshing ephemerides (hot start on resume)"))
        return true
    }
}
