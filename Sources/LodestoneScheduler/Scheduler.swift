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

    public init(id: String, chip: String, kinds: [SensorKind], maximumRateHz: Double, hasMotionWake: Bool = false,
                fifoCapacitySamples: Int = 0) {
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

    public init(id: String, model: String, controllable: Bool) { self.id = id; self.model = model; self.controllable = controllable }
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
/// SKELETON: the lead's public API for issue 8; the scheduler helper implements it (hysteresis, the any-motion
/// detector, the tiers) and may add API, keeping these entry points.
public struct Scheduler: Sendable {
    public private(set) var plan: Plan
    public private(set) var inputs: SchedulerInputs
    private var policy: any SchedulingPolicy

    public init(sensors: [PlannedSensor], receiver: PlannedReceiver?, policy: any SchedulingPolicy, demands: [Demand],
                battery: BatteryState = .externalPower, timeS: Double = 0) {
        self.policy = policy
        inputs = SchedulerInputs(demand: CombinedDemand(demands), battery: battery, tier: .unrestricted, motion: .unknown,
                                 motionSinceS: timeS, gnss: GNSSQuality(), timeS: timeS, sensors: sensors, receiver: receiver)
        plan = Plan(sensors: sensors.map { SensorPlan(id: $0.id, enabled: true, configuration: SensorConfiguration(rateHz: $0.maximumRateHz),
                                                      readRateHz: $0.maximumRateHz) },
                    gnss: receiver.map { GNSSPlan(id: $0.id, mode: .continuous(rateHz: 1)) }, timeS: timeS)
    }

    /// The policy's name.
    public var policyName: String { policy.name }

    /// Replaces the set of active demands.
    public mutating func setDemands(_ demands: [Demand], timeS: Double) { inputs.demand = CombinedDemand(demands) }

    /// A new battery reading.
    public mutating func update(battery: BatteryState, timeS: Double) { inputs.battery = battery }

    /// One accelerometer sample (board axes, m/s²) for the any-motion detector. Allocates nothing.
    public mutating func observe(accelerationMps2: Vector3, timeS: Double) {}

    /// A chip's wake-on-motion interrupt fired.
    public mutating func observeMotionWake(timeS: Double) {}

    /// The activity classifier's latest decision.
    public mutating func observe(activity: CarrierMotion, timeS: Double) {}

    /// A receiver fix.
    public mutating func observe(fix: ReceiverFix) {}

    /// Applying the plan to `sensor` failed and was rolled back: the scheduler records it and plans around it.
    public mutating func reportFailure(sensor: String, message: String, timeS: Double) {}

    /// Re-plans when an input changed past its hysteresis or a policy's timer ran out; true when `plan` changed (the
    /// caller then applies it). Allocates nothing when nothing changed.
    public mutating func replanIfNeeded(timeS: Double) -> Bool { false }
}
