import LodestoneCore
import LodestoneMotion
import LodestoneScheduler
import LodestoneSources
import LodestoneTrace

/// Where a run's battery readings come from (`lodestone run --battery`).
public enum BatteryChoice: Sendable, Hashable, CustomStringConvertible {
    /// A battery under `/sys/class/power_supply` if the system has one, else external power.
    case auto
    /// No battery: the board is mains or USB powered.
    case none
    /// A simulated battery of `capacityMilliAmpHour` (mAh, > 0) starting at `levelFraction` (0…1), drained by the
    /// plan's predicted current plus the board baseline.
    case simulated(capacityMilliAmpHour: Double, levelFraction: Double)

    public var description: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case let .simulated(c, l): "simulated:\(formatFixed(c, digits: 0)):\(formatFixed(l * 100, digits: 0))"
        }
    }
}

/// How a run is scheduled: the policy, the clients' demands, the battery, and the board's own draw.
public struct SchedulingConfiguration: Sendable {
    /// The policy's name: one of `SchedulingConfiguration.policyNames` (default `adaptive`).
    public var policy: String
    /// The active clients' demands (default: `Demand.everything(client: "run")`).
    public var demands: [Demand]
    /// Where battery readings come from (default `.auto`).
    public var battery: BatteryChoice
    /// What the rest of the board (processor, radio, regulators) draws from the battery, mW: added to the sensors'
    /// draw when a simulated battery drains and when the harness predicts battery life. Default 600 mW: a Raspberry Pi
    /// Zero 2 W idle on Raspberry Pi OS Bullseye, 120 mA at 5 V (CNX Software, "A deep dive into Raspberry Pi Zero 2 W's
    /// power consumption", 2021-12-09, measured with an Otii Arc).
    public var boardBaselineMilliWatt: Double
    /// Nominal battery voltage, V, to turn the baseline's mW into battery mA (default 3.7 V, a Li-ion cell).
    public var batteryNominalV: Double
    /// How often the system battery is read, s (default 30).
    public var batteryReadPeriodS: Double

    /// The policies `lodestone run --policy` accepts.
    public static let policyNames = ["adaptive", "always-on", "duty-cycle", "raps"]

    public init(
        policy: String = "adaptive", demands: [Demand] = [Demand.everything(client: "run")],
        battery: BatteryChoice = .auto, boardBaselineMilliWatt: Double = 600, batteryNominalV: Double = 3.7,
        batteryReadPeriodS: Double = 30
    ) {
        self.policy = policy; self.demands = demands; self.battery = battery
        self.boardBaselineMilliWatt = boardBaselineMilliWatt; self.batteryNominalV = batteryNominalV
        self.batteryReadPeriodS = batteryReadPeriodS
    }
}

extension Demand {
    /// One client wanting everything in the foreground: `best` locations, headings, activity and altitude (what
    /// `lodestone run` serves without options).
    public static func everything(client: String) -> Demand {
        Demand(
            client: client, location: LocationDemand(desiredAccuracy: .best), heading: HeadingDemand(),
            activity: true, altitude: true, foreground: true)
    }
}

extension CarrierMotion {
    /// The scheduler's motion state for an activity classifier's decision (`unknown` stays unknown).
    public init(_ kind: MotionActivity.Kind) {
        switch kind {
        case .stationary: self = .stationary
        case .walk: self = .walk
        case .run: self = .run
        case .cycle: self = .cycle
        case .drive: self = .drive
        case .unknown: self = .unknown
        }
    }
}

/// What `ScheduledSampling.update(engine:timeS:)` did.
public enum PlanUpdate: Sendable {
    /// The plan did not change (the per-sample case; nothing allocated).
    case unchanged
    /// A new plan was made and applied; `failures` lists the sensors whose reconfiguration failed and was rolled back.
    case changed(failures: [SourceError])
}

/// The glue between the engine, fusion and the scheduler, shared by `lodestone run` and the evaluation harness: owns the
/// `Scheduler`; feeds it every accelerometer sample (board axes), motion-wake interrupts, the activity classifier's
/// decisions, receiver fixes and battery readings; after each engine step asks it to re-plan and applies a changed plan
/// through `Engine.apply` (each sensor, then the receiver), reporting failures back to it; and keeps the energy account.
///
/// The per-sample calls (`observe(_:)`, `observe(activity:timeS:)`, `update(engine:timeS:)` when nothing changed)
/// allocate nothing (benchmark `Scheduling.observeAndReplanCheck`).
public struct ScheduledSampling {
    /// The scheduler (plan, inputs).
    public private(set) var scheduler: Scheduler
    /// Energy spent so far.
    public private(set) var energy: EnergyAccount
    /// The latest battery reading.
    public private(set) var battery: BatteryState
    /// Plans applied (the first included).
    public private(set) var plansApplied = 0
    /// Reconfigurations that failed and were rolled back.
    public private(set) var failures = 0
    /// The plan last applied to the engine (`nil` before the first).
    public private(set) var applied: Plan?
    /// When the plan last applied was applied, s.
    public private(set) var appliedTimeS: Double?
    /// The receiver's power state at the last accounting (`nil`: no receiver, or one that cannot tell).
    public private(set) var receiverState: GNSSPowerState?
    public let configuration: SchedulingConfiguration

    private let accelerometerID: String?
    private let receiver: PlannedReceiver?
    private var lastAccountS: Double
    private var nextReceiverQueryS: Double
    private var receiverDraw: PowerDraw?
    private var lastActivity: MotionActivity.Kind?
    private var nextActivityS = -Double.infinity
    private var nextBatteryReadS: Double
    private var simulatedBattery: SimulatedBattery?
    private let systemBattery: (() -> BatteryState?)?

    /// How often the receiver's power state is sampled for the energy account, s. Its states last seconds (acquisition)
    /// to minutes; sampling at 5 Hz keeps the account within a fraction of a percent of the exact integral.
    public static let receiverQueryPeriodS = 0.2
    /// The longest a scheduled run goes without a step, s: the scheduler is asked to re-plan at least this often even
    /// while every sensor sleeps.
    public static let heartbeatS = 1.0

    /// The glue for a board of `sensors` and `receiver`, with `configuration`'s policy, demands and battery, starting
    /// at `timeS`. `systemBattery` reads the system's battery (`/sys/class/power_supply`; `nil` when it has none) for
    /// `BatteryChoice.auto`.
    /// - Throws: `JobError` for an unknown policy name.
    public init(
        sensors: [PlannedSensor], receiver: PlannedReceiver?, configuration: SchedulingConfiguration,
        timeS: Double = 0, systemBattery: (() -> BatteryState?)? = nil
    ) throws(JobError) {
        self.configuration = configuration
        let policy = try Self.policy(named: configuration.policy)
        var initial = BatteryState.externalPower
        switch configuration.battery {
        case .none: self.systemBattery = nil
        case .auto:
            self.systemBattery = systemBattery
            if let b = systemBattery?() { initial = b }
        case let .simulated(capacity, level):
            self.systemBattery = nil
            let cell = SimulatedBattery(
                capacityMilliAmpHour: capacity, levelFraction: level,
                nominalVoltageV: configuration.batteryNominalV, timeS: timeS)
            simulatedBattery = cell
            initial = cell.state
        }
        battery = initial
        scheduler = Scheduler(
            sensors: sensors, receiver: receiver, policy: policy, demands: configuration.demands,
            battery: initial, timeS: timeS)
        energy = EnergyAccount(sensorIDs: sensors.map(\.id), receiverID: receiver?.id)
        accelerometerID = sensors.first { $0.kinds.contains(.accelerometer) }?.id
        self.receiver = receiver
        lastAccountS = timeS
        nextReceiverQueryS = timeS
        nextBatteryReadS = timeS + configuration.batteryReadPeriodS
    }

    /// The scheduling policy called `name` (`SchedulingConfiguration.policyNames`).
    /// - Throws: `JobError` naming the allowed ones.
    public static func policy(named name: String) throws(JobError) -> any SchedulingPolicy {
        switch name {
        case "adaptive": return AdaptivePolicy()
        case "always-on": return AlwaysOnPolicy()
        case "duty-cycle": return FixedDutyCyclePolicy()
        case "raps": return RAPSPolicy()
        default:
            throw JobError(
                "policy \"\(name)\" is unknown; allowed: " + SchedulingConfiguration.policyNames.joined(separator: ", "))
        }
    }

    /// One engine event: accelerometer samples (from the first planned sensor with an accelerometer) go to the
    /// any-motion detector, fixes to the signal tracker, wake interrupts to the motion state. Allocates nothing.
    public mutating func observe(_ event: Engine.Event) {
        switch event {
        case let .reading(sensor, r):
            if let a = r.accelerationMps2, sensor == accelerometerID { scheduler.observe(accelerationMps2: a, timeS: r.timeS) }
        case .fix(_, let f):
            scheduler.observe(fix: f)
        case .motionWake(_, let t):
            scheduler.observeMotionWake(timeS: t)
        case .degraded, .recovered:
            break
        }
    }

    /// The activity classifier's latest decision (`FusionContext.activity`): passed on at once when its kind changes and
    /// otherwise once every `activityPeriodS` — the scheduler counts repeated decisions (a change between two moving
    /// kinds needs two in a row; a moving decision keeps the carrier moving), so it needs them at the classifier's
    /// pace, not only the changes.
    public mutating func observe(activity: MotionActivity?, timeS: Double) {
        guard let kind = activity?.kind, kind != lastActivity || timeS >= nextActivityS else { return }
        lastActivity = kind
        nextActivityS = timeS + Self.activityPeriodS
        scheduler.observe(activity: CarrierMotion(kind), timeS: timeS)
    }

    /// How often an unchanged classifier decision is passed on, s (the classifier decides about once a second).
    public static let activityPeriodS = 1.0

    /// Replaces the set of active clients' demands.
    public mutating func setDemands(_ demands: [Demand], timeS: Double) { scheduler.setDemands(demands, timeS: timeS) }

    /// After an engine step at `timeS`: accounts the energy since the last step, reads the battery when due, re-plans
    /// and, when the plan changed, applies it to `engine`. Allocates nothing when the plan did not change.
    public mutating func update(engine: inout Engine, timeS: Double) -> PlanUpdate {
        account(engine: engine, timeS: timeS)
        if timeS >= nextBatteryReadS {
            nextBatteryReadS = timeS + configuration.batteryReadPeriodS
            readBattery(timeS: timeS)
        }
        guard scheduler.replanIfNeeded(timeS: timeS) || applied == nil else { return .unchanged }
        return .changed(failures: apply(to: &engine, timeS: timeS))
    }

    /// The current plan's lines for the live view: per sensor mode and rate, the receiver, the predicted draw, the
    /// energy so far, battery and tier, motion, and why.
    public var liveLines: [String] {
        let plan = scheduler.plan
        let inputs = scheduler.inputs
        var lines = [
            "plan      \(scheduler.policyName) #\(plan.generation) since t=\(formatFixed(appliedTimeS ?? plan.timeS, digits: 1)) s"
                + "  predicted \(formatFixed(plan.power.totalMilliAmp, digits: 2)) mA / \(formatFixed(plan.power.totalMilliWatt, digits: 1)) mW"
                + "  used \(formatFixed(energy.totalMilliAmpHours, digits: 3)) mAh"
        ]
        for s in plan.sensors {
            let draw = plan.power.perSensor.first { $0.id == s.id }
            var line = "          \(s.id): " + Self.describe(s)
            if let d = draw { line += "  \(formatFixed(d.milliAmp, digits: 3)) mA" }
            if let used = energy.milliAmpHours(id: s.id) { line += "  \(formatFixed(used, digits: 3)) mAh" }
            lines.append(line)
        }
        if let g = plan.gnss {
            var line = "          \(g.id): \(g.mode)"
            if let state = receiverState { line += " (\(state.rawValue))" }
            if let d = receiverDraw { line += "  \(formatFixed(d.milliAmp, digits: 2)) mA" }
            line += "  \(formatFixed(energy.receiverMilliAmpHours, digits: 3)) mAh"
            if receiver?.controllable == false { line += "  (not commandable: modelled only)" }
            lines.append(line)
        }
        lines.append(
            "          battery \(Self.describe(battery)), tier \(inputs.tier.rawValue); motion \(inputs.motion.rawValue)"
                + " since t=\(formatFixed(inputs.motionSinceS, digits: 0)) s")
        if !plan.causes.isEmpty { lines.append("          why: " + plan.causes.map(\.description).joined(separator: "; ")) }
        return lines
    }

    /// "rate 100 Hz, normal, FIFO 10" style summary of a sensor's plan.
    static func describe(_ s: SensorPlan) -> String {
        guard s.enabled else { return "suspended" }
        var text =
            "\(formatFixed(s.configuration.rateHz, digits: s.configuration.rateHz < 10 ? 1 : 0)) Hz \(s.configuration.powerMode.rawValue)"
        if s.readRateHz != s.configuration.rateHz { text += ", read \(formatFixed(s.readRateHz, digits: 1)) Hz" }
        if s.fifoDepthSamples > 0 { text += ", FIFO \(s.fifoDepthSamples)" }
        if let w = s.configuration.wakeOnMotionThresholdMps2 { text += ", wake on motion > \(formatFixed(w, digits: 2)) m/s²" }
        return text
    }

    static func describe(_ b: BatteryState) -> String {
        if b.charging == .externalPower { return "none (external power)" }
        var text = b.levelFraction.map { "\(formatFixed($0 * 100, digits: 0)) %" } ?? "level unknown"
        text += " \(b.charging.rawValue)"
        return text
    }

    // MARK: - Private

    private mutating func account(engine: Engine, timeS: Double) {
        let dt = timeS - lastAccountS
        guard dt > 0 else { return }
        lastAccountS = timeS
        if let r = receiver, timeS >= nextReceiverQueryS {
            nextReceiverQueryS = timeS + Self.receiverQueryPeriodS
            receiverState = engine.gnssPowerState(id: r.id)
            let mode = (applied ?? scheduler.plan).gnss?.mode ?? .continuous(rateHz: 1)
            receiverDraw = receiverState.flatMap { EnergyModel.draw(receiver: r.model, state: $0, mode: mode) }
        }
        let plan = applied ?? scheduler.plan
        let milliAmp = energy.add(durationS: dt, plan: plan, receiverState: receiverState, receiverDraw: receiverDraw)
        if simulatedBattery != nil {
            let baselineMilliAmp = configuration.boardBaselineMilliWatt / configuration.batteryNominalV
            simulatedBattery?.drain(milliAmp: milliAmp + baselineMilliAmp, untilS: timeS)
        }
    }

    private mutating func readBattery(timeS: Double) {
        let reading: BatteryState?
        if let cell = simulatedBattery { reading = cell.state } else { reading = systemBattery?() }
        guard let b = reading, b != battery else { return }
        battery = b
        scheduler.update(battery: b, timeS: timeS)
    }

    private mutating func apply(to engine: inout Engine, timeS: Double) -> [SourceError] {
        let plan = scheduler.plan
        var errors: [SourceError] = []
        for s in plan.sensors {
            if let old = applied?.sensors.first(where: { $0.id == s.id }), old == s { continue }
            // Reading at the new rate starts one period on: `Engine.apply` re-times the source from the instant it is
            // given, and the source may have been read at `timeS` already (a second reading at the same instant would
            // give fusion a zero time step).
            let startS = s.readRateHz > 0 ? timeS + 1 / s.readRateHz : timeS
            do throws(SourceError) { try engine.apply(s, timeS: startS) } catch {
                errors.append(error)
                scheduler.reportFailure(sensor: s.id, message: error.message, timeS: timeS)
            }
        }
        if let g = plan.gnss, applied?.gnss != g {
            do throws(SourceError) { try engine.apply(g, timeS: timeS) } catch {
                errors.append(error)
                scheduler.reportFailure(sensor: g.id, message: error.message, timeS: timeS)
            }
        }
        failures += errors.count
        applied = plan
        appliedTimeS = timeS
        plansApplied += 1
        // The receiver's state may have changed with the plan: look again at the next step.
        nextReceiverQueryS = timeS
        return errors
    }
}
