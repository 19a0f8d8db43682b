import LodestoneCore
import LodestoneScheduler

extension Wire {
    /// `{"class":"PLAN",…}` — in `run --json` at every plan change: what each sensor and the receiver were told, the
    /// predicted draw, why, and what failed.
    public struct Plan: Codable, Sendable {
        public var `class` = "PLAN"
        /// When it was applied, s (engine clock).
        public var tS: Double
        /// Counts plans (1 for the first).
        public var generation: Int
        public var policy: String
        public var sensors: [Sensor]
        public var gnss: GNSS?
        /// Predicted mean draw of sensors and receiver, mA and mW (`EnergyModel`; 0 for chips it lacks).
        public var predictedMA: Double
        public var predictedMW: Double
        /// Why, one sentence per cause.
        public var causes: [String]
        public var battery: Battery
        /// Battery tier (`critical` … `unrestricted`).
        public var tier: String
        /// Carrier motion as the scheduler sees it (`stationary`, `walk`, …, `unknown`).
        public var motion: String
        /// Reconfigurations of this plan that failed and were rolled back (`sensor: message`).
        public var failures: [String]?

        public struct Sensor: Codable, Sendable {
            public var id: String
            public var enabled: Bool
            /// Output data rate asked of the chip, Hz.
            public var rateHz: Double
            /// How often the engine reads it, Hz (0 when suspended).
            public var readRateHz: Double
            /// `suspend`, `lowPower` or `normal`.
            public var powerMode: String
            public var oversampling: Int
            /// Samples batched in the FIFO between reads (omitted: no batching).
            public var fifoDepth: Int?
            /// Wake-on-motion threshold, m/s² (omitted: not armed).
            public var wakeThresholdMps2: Double?
            /// Predicted draw, mA and mW.
            public var predictedMA: Double?
            public var predictedMW: Double?
            enum CodingKeys: String, CodingKey {
                case id, enabled, rateHz = "rate_hz", readRateHz = "read_rate_hz", powerMode = "power_mode", oversampling
                case fifoDepth = "fifo_depth", wakeThresholdMps2 = "wake_threshold_mps2", predictedMA = "predicted_ma"
                case predictedMW = "predicted_mw"
            }
        }

        public struct GNSS: Codable, Sendable {
            public var id: String
            /// `continuous`, `power-save` or `off`.
            public var mode: String
            /// Fix rate in continuous mode, Hz.
            public var rateHz: Double?
            /// Time between fixes in power-save mode, s.
            public var updatePeriodS: Double?
            /// The receiver's power state when the plan was applied (`off`, `acquiring`, `tracking`, `powerSaveIdle`).
            public var powerState: String?
            /// Predicted mean draw, mA.
            public var predictedMA: Double?
            enum CodingKeys: String, CodingKey {
                case id, mode, rateHz = "rate_hz", updatePeriodS = "update_period_s", powerState = "power_state"
                case predictedMA = "predicted_ma"
            }
        }

        public struct Battery: Codable, Sendable {
            /// State of charge, % (omitted: unknown or no battery).
            public var levelPercent: Double?
            /// `charging`, `discharging`, `full`, `notCharging`, `unknown`, `externalPower`.
            public var charging: String
            public var source: String
            enum CodingKeys: String, CodingKey { case levelPercent = "level_percent", charging, source }
            init(_ b: BatteryState) {
                levelPercent = b.levelFraction.map { ($0 * 1000).rounded() / 10 }
                charging = b.charging.rawValue; source = b.source
            }
        }

        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", generation, policy, sensors, gnss, predictedMA = "predicted_ma"
            case predictedMW = "predicted_mw", causes, battery, tier, motion, failures
        }

        /// The message for the plan `sampling` applied at `timeS`, with the failures of applying it.
        public init(_ sampling: ScheduledSampling, timeS: Double, failures: [SourceError]) {
            let plan = sampling.scheduler.plan
            let inputs = sampling.scheduler.inputs
            tS = timeS
            generation = plan.generation
            policy = sampling.scheduler.policyName
            sensors = plan.sensors.map { s in
                let p = plan.power.perSensor.first { $0.id == s.id }
                return Sensor(id: s.id, enabled: s.enabled, rateHz: s.configuration.rateHz, readRateHz: s.readRateHz,
                              powerMode: (s.enabled ? s.configuration.powerMode : .suspend).rawValue,
                              oversampling: s.configuration.oversampling,
                              fifoDepth: s.fifoDepthSamples > 0 ? s.fifoDepthSamples : nil,
                              wakeThresholdMps2: s.configuration.wakeOnMotionThresholdMps2.finite,
                              predictedMA: p?.milliAmp.finite, predictedMW: p?.milliWatt.finite)
            }
            gnss = plan.gnss.map { g in
                var m = GNSS(id: g.id, mode: "off", powerState: sampling.receiverState?.rawValue,
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

    /// The plan in brief, in every `{"class":"STATUS",…}` of a scheduled run.
    public struct PlanSummary: Codable, Sendable {
        public var generation: Int
        public var policy: String
        /// Predicted draw now, mA.
        public var predictedMA: Double
        /// Charge drawn by sensors and receiver since the start, mAh.
        public var usedMAh: Double
        /// The receiver's power state (omitted without a receiver that reports it).
        public var gnssState: String?
        public var motion: String
        public var tier: String
        /// Battery state of charge, % (omitted: unknown or no battery).
        public var batteryPercent: Double?
        enum CodingKeys: String, CodingKey {
            case generation, policy, predictedMA = "predicted_ma", usedMAh = "used_mah", gnssState = "gnss_state", motion, tier
            case batteryPercent = "battery_percent"
        }

        public init(_ sampling: ScheduledSampling) {
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

    /// `{"class":"DELIVERY",…}` — a location delivered to the clients of a scheduled run (after their filters), with its
    /// age and whether it is stale.
    public struct Delivery: Codable, Sendable {
        public var `class` = "DELIVERY"
        public var tS: Double
        public var location: Location
        /// Time since the receiver fix that last informed it, s.
        public var ageS: Double
        /// Older than the clients allow (`--max-age`): not a current position.
        public var stale: Bool
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", location, ageS = "age_s", stale }

        public init(_ d: DeliveredLocation) {
            tS = d.timeS; location = Location(d.location); ageS = d.ageS; stale = d.isStale
        }
    }
}
