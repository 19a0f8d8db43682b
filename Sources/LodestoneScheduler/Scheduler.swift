import LodestoneCore

/// A sensor the scheduler plans for, as the board describes it.
public struct PlannedSensor: Sendable, Hashable {
    /// The board file's id.
    public var id: String
    /// `ChipCatalog` name (energy model key).
    public var chip: String
    public var kinds: [SensorKind]
    /// The rate the board file asks for: the most the scheduler plans, Hz.
    public var maximumRateHz: Double
    /// The driver can wake the host on motion (`MotionWakeReporting`).
    public var hasMotionWake: Bool
    /// The chip's FIFO holds this many samples (0: no FIFO the driver uses).
    public var fifoCapacitySamples: Int

    public init(
        id: String, chip: String, kinds: [SensorKind], maximumRateHz: Double, hasMotionWake: Bool = false,
        fifoCapacitySamples: Int = 0
    ) {
        self.id = id; self.chip = chip; self.kinds = kinds; self.maximumRateHz = maximumRateHz
        self.hasMotionWake = hasMotionWake; self.fifoCapacitySamples = fifoCapacitySamples
    }
}

/// The board's GNSS receiver as the scheduler sees it.
public struct PlannedReceiver: Sendable, Hashable {
    /// The board file's id.
    public var id: String
    /// Energy model key (`EnergyModel.receiverModels`).
    public var model: String
    /// The receiver can be commanded (power save, off); otherwise plans for it are only modelled.
    public var controllable: Bool

    public init(id: String, model: String, controllable: Bool) {
        self.id = id; self.model = model; self.controllable = controllable
    }
}

/// Everything a policy plans from.
public struct SchedulerInputs: Sendable {
    public var demand: CombinedDemand
    public var battery: BatteryState
    public var tier: BatteryTier
    public var motion: CarrierMotion
    /// Since when the carrier is in `motion`, s.
    public var motionSinceS: Double
    public var gnss: GNSSQuality
    /// Now, s (engine clock).
    public var timeS: Double
    public var sensors: [PlannedSensor]
    public var receiver: PlannedReceiver?
    /// Since when the receiver has been planned on (continuous or power-save), s; `nil` while it is planned off. The
    /// scheduler keeps it from the plans it hands out; policies use it to tell a signal outage from a cold start.
    public var receiverOnSinceS: Double?
    /// The any-motion detector's (or a wake interrupt's) latest sign of motion, s (engine clock); the time the
    /// scheduler started before any, and now while no accelerometer samples arrive (nothing says the carrier is
    /// quiet). The classifier does not move it: it holds `drive` through a stop.
    public var lastAccelerationMotionS: Double

    /// Inputs for a policy used on its own (tests, the evaluation); the `Scheduler` keeps its own.
    public init(
        demand: CombinedDemand, battery: BatteryState = .externalPower, tier: BatteryTier = .unrestricted,
        motion: CarrierMotion = .unknown, motionSinceS: Double = 0, gnss: GNSSQuality = GNSSQuality(),
        timeS: Double, sensors: [PlannedSensor], receiver: PlannedReceiver?, receiverOnSinceS: Double? = nil
    ) {
        self.demand = demand; self.battery = battery; self.tier = tier; self.motion = motion
        self.motionSinceS = motionSinceS; self.gnss = gnss; self.timeS = timeS; self.sensors = sensors
        self.receiver = receiver; self.receiverOnSinceS = receiverOnSinceS
        lastAccelerationMotionS = timeS
    }
}

/// A way of planning. The adaptive policy is the product; the others are the evaluation's baselines.
public protocol SchedulingPolicy: Sendable {
    /// Short name (`adaptive`, `always-on`, `duty-cycle`, `raps`).
    var name: String { get }
    /// Writes the plan for `inputs` into `plan` (whose `sensors` already has one entry per `inputs.sensors`, in
    /// order, and `gnss` one for the receiver): sensors, receiver and causes; the scheduler adds the prediction.
    /// Called whenever an input changes and at least once a second; must not allocate once `plan` has its shape.
    mutating func plan(_ inputs: SchedulerInputs, into plan: inout Plan)
}

/// Decides, continuously, how each sensor samples: combines the clients' demands, tracks the battery, the motion state
/// and the receiver's signal, asks the policy for a plan and says when it changed.
///
/// - **Inputs**: demands (`setDemands`), battery (`update(battery:)`, tiers with `BatteryTierThresholds`' hysteresis),
///   every accelerometer sample (`observe(accelerationMps2:)`, the `AnyMotionDetector`), a chip's wake-on-motion
///   (`observeMotionWake`), the activity classifier (`observe(activity:)`), fixes (`observe(fix:)` → `GNSSQuality`)
///   and failed reconfigurations (`reportFailure`).
/// - **Motion state**: moving at once on any evidence, stationary after the stillness `MotionHysteresis` asks for.
/// - **Re-planning** (`replanIfNeeded`): when an input changed past its hysteresis, and once a second for what time
///   decides (duty cycles, outages, timers). It returns true only when the plan really changed; the first call always
///   returns true (generation 1), so that the caller applies the first plan.
/// - **Failures**: a sensor whose reconfiguration failed keeps the setting it was rolled back to, whenever the policy
///   asks for the failing one again, for `failureHoldS` (default 300 s), and the plan says so (`PlanCause.failure`).
/// - **Allocation**: none per sample, and none per re-plan once warmed up: the plan and a scratch plan are updated in
///   place and swapped, causes keep their capacity, no text is built.
public struct Scheduler: Sendable {
    public private(set) var plan: Plan
    public private(set) var inputs: SchedulerInputs
    private var policy: any SchedulingPolicy

    /// Battery tier thresholds and hysteresis (default `BatteryTierThresholds.default`).
    public var tierThresholds: BatteryTierThresholds = .default {
        didSet { retier(timeS: inputs.timeS) }
    }
    /// How long a failed setting is avoided, s. Default 300.
    public var failureHoldS: Double = 300
    /// The period of time-driven re-plans, s. Default 1.
    public var timerPeriodS: Double = 1

    private var motionTracker: MotionTracker
    /// The plan being built; swapped with `plan` when it differs.
    private var scratch: Plan
    /// The sensors' plans before the current one (what a failed reconfiguration rolled back to).
    private var previousSensors: [SensorPlan]
    private var previousGNSSMode: GNSSReceiverMode?
    /// Per sensor (board order, the receiver last): the failed setting to avoid and until when.
    private var failures: [FailureRecord?]
    private var dirty = true
    private var planned = false
    private var lastPolicyRunS = -Double.infinity

    private struct FailureRecord: Sendable {
        /// The setting that failed, and the one the engine rolled back to.
        var failedSensor: SensorPlan?
        var fallbackSensor: SensorPlan?
        var failedMode: GNSSReceiverMode?
        var fallbackMode: GNSSReceiverMode?
        var message: String
        var untilS: Double
    }

    public init(
        sensors: [PlannedSensor], receiver: PlannedReceiver?, policy: any SchedulingPolicy, demands: [Demand],
        battery: BatteryState = .externalPower, timeS: Double = 0
    ) {
        self.init(
            sensors: sensors, receiver: receiver, policy: policy, demands: demands, battery: battery, timeS: timeS,
            detector: AnyMotionDetector(), hysteresis: .default)
    }

    /// A scheduler with its own any-motion detector parameters and motion hysteresis.
    public init(
        sensors: [PlannedSensor], receiver: PlannedReceiver?, policy: any SchedulingPolicy, demands: [Demand],
        battery: BatteryState = .externalPower, timeS: Double = 0, detector: AnyMotionDetector,
        hysteresis: MotionHysteresis
    ) {
        self.policy = policy
        let tier = BatteryTierThresholds.default.tier(for: battery, previous: .normal)
        inputs = SchedulerInputs(
            demand: CombinedDemand(demands), battery: battery, tier: tier, motion: .unknown,
            motionSinceS: timeS, gnss: GNSSQuality(), timeS: timeS, sensors: sensors, receiver: receiver,
            receiverOnSinceS: receiver == nil ? nil : timeS)
        func makePlan() -> Plan {
            var p = Plan(
                sensors: sensors.map {
                    SensorPlan(
                        id: $0.id, enabled: true, configuration: SensorConfiguration(rateHz: $0.maximumRateHz),
                        readRateHz: $0.maximumRateHz)
                },
                gnss: receiver.map { GNSSPlan(id: $0.id, mode: .continuous(rateHz: 1)) }, timeS: timeS)
            p.causes.reserveCapacity(16)
            p.power.perSensor =
                sensors.map { PowerPrediction.SensorPower(id: $0.id, milliAmp: 0, milliWatt: 0) }
                + (receiver.map { [PowerPrediction.SensorPower(id: $0.id, milliAmp: 0, milliWatt: 0)] } ?? [])
            return p
        }
        plan = makePlan()
        scratch = makePlan()
        previousSensors = plan.sensors.map { $0 }
        previousGNSSMode = plan.gnss?.mode
        failures = Array(repeating: nil, count: sensors.count + 1)
        motionTracker = MotionTracker(hysteresis: hysteresis, detector: detector, timeS: timeS)
    }

    /// The policy's name.
    public var policyName: String { policy.name }

    /// The any-motion detector's state (its slow mean, the latest detection).
    public var motionDetector: AnyMotionDetector { motionTracker.detector }

    /// Replaces the set of active demands.
    public mutating func setDemands(_ demands: [Demand], timeS: Double) {
        let combined = CombinedDemand(demands)
        if combined != inputs.demand { inputs.demand = combined; dirty = true }
    }

    /// A new battery reading.
    public mutating func update(battery: BatteryState, timeS: Double) {
        inputs.battery = battery
        retier(timeS: timeS)
    }

    private mutating func retier(timeS: Double) {
        let tier = tierThresholds.tier(for: inputs.battery, previous: inputs.tier)
        if tier != inputs.tier { inputs.tier = tier; dirty = true }
    }

    /// One accelerometer sample (board axes, m/s²) for the any-motion detector. Allocates nothing.
    public mutating func observe(accelerationMps2: Vector3, timeS: Double) {
        if motionTracker.observe(accelerationMps2: accelerationMps2, timeS: timeS) { motionChanged() }
    }

    /// A chip's wake-on-motion interrupt fired.
    public mutating func observeMotionWake(timeS: Double) {
        if motionTracker.movementSeen(timeS: timeS) { motionChanged() }
    }

    /// The activity classifier's latest decision.
    public mutating func observe(activity: CarrierMotion, timeS: Double) {
        if motionTracker.observe(activity: activity, timeS: timeS) { motionChanged() }
    }

    private mutating func motionChanged() {
        inputs.motion = motionTracker.motion
        inputs.motionSinceS = motionTracker.sinceS
        dirty = true
    }

    /// A receiver fix: one with a position (2D or 3D, latitude and longitude) updates `inputs.gnss`.
    public mutating func observe(fix: ReceiverFix) {
        guard fix.mode >= .twoDimensional, let lat = fix.latitudeDeg, let lon = fix.longitudeDeg else { return }
        inputs.gnss = GNSSQuality(
            lastFixTimeS: fix.timeS, horizontalAccuracyM: fix.horizontalAccuracyM,
            satellitesUsed: fix.satellitesUsed, speedMps: fix.speedMps,
            latitudeDeg: lat, longitudeDeg: lon)
    }

    /// Applying the plan to `sensor` failed and was rolled back: the scheduler records it and plans around it.
    /// `sensor` is a sensor's or the receiver's board id; an id the scheduler does not plan is ignored.
    public mutating func reportFailure(sensor: String, message: String, timeS: Double) {
        if let i = plan.sensors.firstIndex(where: { $0.id == sensor }) {
            failures[i] = FailureRecord(
                failedSensor: plan.sensors[i], fallbackSensor: previousSensors[i], failedMode: nil,
                fallbackMode: nil, message: message, untilS: timeS + failureHoldS)
            dirty = true
        } else if let g = plan.gnss, g.id == sensor {
            failures[plan.sensors.count] = FailureRecord(
                failedSensor: nil, fallbackSensor: nil, failedMode: g.mode,
                fallbackMode: previousGNSSMode, message: message,
                untilS: timeS + failureHoldS)
            dirty = true
        }
    }

    /// Re-plans when an input changed past its hysteresis or a policy's timer ran out; true when `plan` changed (the
    /// caller then applies it). Allocates nothing once warmed up.
    /// Accelerometer motion after at least this long without any re-plans at once, s.
    static let quietSpellS = 5.0

    public mutating func replanIfNeeded(timeS: Double) -> Bool {
        inputs.timeS = timeS
        if motionTracker.evaluate(timeS: timeS) { motionChanged() }
        // Without recent accelerometer samples nothing says the carrier is quiet: count it as moving now.
        let sampled =
            motionTracker.detector.lastSampleTimeS.map { timeS - $0 <= motionTracker.hysteresis.sampleFreshnessS } ?? false
        let accelerationMotionS = sampled ? motionTracker.lastAccelerationMotionS : timeS
        if accelerationMotionS != inputs.lastAccelerationMotionS {
            // Motion after a quiet spell (a car pulling away from a stop) is planned for at once, not at the next tick.
            if accelerationMotionS - inputs.lastAccelerationMotionS >= Self.quietSpellS { dirty = true }
            inputs.lastAccelerationMotionS = accelerationMotionS
        }
        guard dirty || !planned || timeS - lastPolicyRunS >= timerPeriodS else { return false }
        dirty = false
        lastPolicyRunS = timeS

        scratch.causes.removeAll(keepingCapacity: true)
        policy.plan(inputs, into: &scratch)
        avoidFailedSettings(timeS: timeS)
        if planned && scratch.sensors == plan.sensors && scratch.gnss == plan.gnss && scratch.causes == plan.causes {
            return false
        }
        predictScratchPower()
        scratch.timeS = timeS
        scratch.generation = plan.generation + 1
        swap(&plan, &scratch)
        // `scratch` now holds the plan before: remember what each sensor ran with (a failure rolls back to it).
        for i in previousSensors.indices { previousSensors[i] = scratch.sensors[i] }
        previousGNSSMode = scratch.gnss?.mode
        let wasOn = planned ? scratch.gnss.map { $0.mode != .off } ?? false : false
        let isOn = plan.gnss.map { $0.mode != .off } ?? false
        if isOn && (!wasOn || inputs.receiverOnSinceS == nil) { inputs.receiverOnSinceS = timeS }
        if !isOn { inputs.receiverOnSinceS = nil }
        planned = true
        return true
    }

    /// Where the policy asks again for a setting that failed (within `failureHoldS`), keeps the one the sensor was
    /// rolled back to, and says so.
    private mutating func avoidFailedSettings(timeS: Double) {
        for i in failures.indices {
            guard let record = failures[i] else { continue }
            if timeS >= record.untilS { failures[i] = nil; continue }
            if i < scratch.sensors.count, let failed = record.failedSensor, let fallback = record.fallbackSensor {
                let asked = scratch.sensors[i]
                if asked.enabled == failed.enabled && asked.configuration == failed.configuration {
                    scratch.sensors[i] = fallback
                    scratch.causes.append(.failure(sensor: asked.id, message: record.message))
                }
            } else if i == scratch.sensors.count, let failedMode = record.failedMode, let g = scratch.gnss,
                g.mode == failedMode, let fallback = record.fallbackMode
            {
                scratch.gnss?.mode = fallback
                scratch.causes.append(.failure(sensor: g.id, message: record.message))
            }
        }
    }

    /// Fills `scratch.power` from `EnergyModel` (a chip or receiver the table lacks counts 0). Works on `scratch` in
    /// place (a non-mutating function taking `&scratch` would copy `self` and with it the arrays).
    private mutating func predictScratchPower() {
        var totalMilliAmp = 0.0, totalMilliWatt = 0.0
        for i in scratch.sensors.indices {
            let draw = EnergyModel.draw(
                chip: inputs.sensors[i].chip, configuration: scratch.sensors[i].configuration,
                enabled: scratch.sensors[i].enabled)
            let mA = draw?.milliAmp ?? 0, mW = draw?.milliWatt ?? 0
            scratch.power.perSensor[i].milliAmp = mA; scratch.power.perSensor[i].milliWatt = mW
            totalMilliAmp += mA; totalMilliWatt += mW
        }
        if let mode = scratch.gnss?.mode, let receiver = inputs.receiver {
            let draw = EnergyModel.draw(receiver: receiver.model, mode: mode)
            let mA = draw?.milliAmp ?? 0, mW = draw?.milliWatt ?? 0
            let k = scratch.sensors.count
            scratch.power.perSensor[k].milliAmp = mA; scratch.power.perSensor[k].milliWatt = mW
            totalMilliAmp += mA; totalMilliWatt += mW
        }
        scratch.power.totalMilliAmp = totalMilliAmp; scratch.power.totalMilliWatt = totalMilliWatt
    }
}
