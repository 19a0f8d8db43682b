import LodestoneCore
import LodestoneScheduler
import LodestoneWire

// The scheduler's wire messages (`PLAN`, the plan summary in `STATUS`, `DELIVERY`) made from the engine's values.

extension Wire.Plan {
    /// The message for the plan `sampling` applied at `timeS`, with the failures of applying it.
    public init(_ sampling: ScheduledSampling, timeS: Double, failures: [SourceError], time: String? = nil) {
        self.init()
        let plan = sampling.scheduler.plan
        let inputs = sampling.scheduler.inputs
        tS = timeS
        self.time = time
        generation = plan.generation
        policy = sampling.scheduler.policyName
        sensors = plan.sensors.map { s in
            let p = plan.power.perSensor.first { $0.id == s.id }
            return Sensor(
                id: s.id, enabled: s.enabled, rateHz: s.configuration.rateHz, readRateHz: s.readRateHz,
                powerMode: (s.enabled ? s.configuration.powerMode : .suspend).rawValue,
                oversampling: s.configuration.oversampling,
                fifoDepth: s.fifoDepthSamples > 0 ? s.fifoDepthSamples : nil,
                wakeThresholdMps2: s.configuration.wakeOnMotionThresholdMps2.finite,
                predictedMA: p?.milliAmp.finite, predictedMW: p?.milliWatt.finite)
        }
        gnss = plan.gnss.map { g in
            var m = GNSS(
                id: g.id, mode: "off", powerState: sampling.receiverState?.rawValue,
                predictedMA: plan.power.perSensor.first { $0.id == g.id }?.milliAmp.finite)
            switch g.mode {
            case .continuous(let r): m.mode = "continuous"; m.rateHz = r
            case .powerSave(let p): m.mode = "power-save"; m.updatePeriodS = p
            case .off: m.mode = "off"
            }
            return m
        }
        predictedMA = plan.power.totalMilliAmp.finite ?? 0
        predictedMW = plan.power.totalMilliWatt.finite ?? 0
        causes = plan.causes.map(\.description)
        battery = Battery(sampling.battery)
        tier = inputs.tier.rawValue
        motion = inputs.motion.rawValue
        self.failures = failures.isEmpty ? nil : failures.map(\.description)
    }
}

extension Wire.Plan.Battery {
    init(_ b: BatteryState) {
        self.init(
            levelPercent: b.levelFraction.map { ($0 * 1000).rounded() / 10 }, charging: b.charging.rawValue, source: b.source)
    }
}

extension Wire.PlanSummary {
    /// The plan `sampling` runs now, in brief.
    public init(_ sampling: ScheduledSampling) {
        self.init()
        let plan = sampling.applied ?? sampling.scheduler.plan
        generation = plan.generation
        policy = sampling.scheduler.policyName
        predictedMA = plan.power.totalMilliAmp.finite ?? 0
        usedMAh = (sampling.energy.totalMilliAmpHours * 1e4).rounded() / 1e4
        gnssState = sampling.receiverState?.rawValue
        motion = sampling.scheduler.inputs.motion.rawValue
        tier = sampling.scheduler.inputs.tier.rawValue
        batteryPercent = sampling.battery.levelFraction.map { ($0 * 1000).rounded() / 10 }
    }
}

extension Wire.Delivery {
    /// The message for a delivered location.
    public init(_ d: DeliveredLocation, time: String? = nil) {
        self.init()
        tS = d.timeS; self.time = time; location = Wire.Location(d.location); ageS = d.ageS; stale = d.isStale
    }
}
