import LodestoneCore

/// How one sensor is to be run.
public struct SensorPlan: Sendable, Hashable {
    /// The board file's sensor id.
    public var id: String
    /// False: the chip is put in suspend (`PowerMode.suspend`) and the engine stops reading it.
    public var enabled: Bool
    /// What the driver is asked for: rate, power mode, oversampling, ranges, FIFO and wake-on-motion.
    public var configuration: SensorConfiguration
    /// How often the engine reads the chip (one sample, or one FIFO drain of `fifoDepthSamples`), Hz; 0 when disabled.
    public var readRateHz: Double
    /// Samples the chip batches in its FIFO between two reads (0: no batching, one sample per read).
    public var fifoDepthSamples: Int

    public init(id: String, enabled: Bool, configuration: SensorConfiguration, readRateHz: Double, fifoDepthSamples: Int = 0) {
        self.id = id; self.enabled = enabled; self.configuration = configuration; self.readRateHz = readRateHz
        self.fifoDepthSamples = fifoDepthSamples
    }
}

/// How the GNSS receiver is to be run.
public struct GNSSPlan: Sendable, Hashable {
    /// The board file's receiver id.
    public var id: String
    public var mode: GNSSReceiverMode

    public init(id: String, mode: GNSSReceiverMode) { self.id = id; self.mode = mode }
}

/// Why a plan is what it is: each cause names the demand or the state that decided a part of it.
public enum PlanCause: Sendable, Hashable, CustomStringConvertible {
    /// A client's demand (`what`: "location best", "heading", "activity", "altitude").
    case demand(client: String, what: String)
    /// No client wants anything that needs this part.
    case noDemand(what: String)
    /// The battery tier.
    case battery(BatteryTier)
    /// The motion state (and since when, s on the engine clock).
    case motion(CarrierMotion, sinceS: Double)
    /// The receiver's signal (e.g. "no fix for 60 s: outage").
    case gnssSignal(String)
    /// A reconfiguration failed and was rolled back.
    case failure(sensor: String, message: String)
    /// The policy's own rule (baselines: "always on", "fixed duty cycle 60 s").
    case policy(String)

    public var description: String {
        switch self {
        case let .demand(client, what): "\(client) wants \(what)"
        case .noDemand(let what): "no client wants \(what)"
        case .battery(let t): "battery tier \(t.rawValue)"
        case let .motion(m, since): "carrier \(m.rawValue) since t=\(Int(since.rounded())) s"
        case .gnssSignal(let s): "GNSS: \(s)"
        case let .failure(sensor, message): "\(sensor) reconfiguration failed, rolled back: \(message)"
        case .policy(let s): s
        }
    }
}

/// The predicted cost of a plan.
public struct PowerPrediction: Sendable, Hashable {
    /// Per sensor (board id, same order as `Plan.sensors`, the receiver last) the predicted mean supply current, mA,
    /// and power, mW.
    public var perSensor: [SensorPower]
    /// Sum over the sensors (the receiver included), mA and mW.
    public var totalMilliAmp: Double
    public var totalMilliWatt: Double

    public struct SensorPower: Sendable, Hashable {
        public var id: String
        public var milliAmp: Double
        public var milliWatt: Double
        public init(id: String, milliAmp: Double, milliWatt: Double) {
            self.id = id; self.milliAmp = milliAmp; self.milliWatt = milliWatt
        }
    }

    public init(perSensor: [SensorPower] = [], totalMilliAmp: Double = 0, totalMilliWatt: Double = 0) {
        self.perSensor = perSensor; self.totalMilliAmp = totalMilliAmp; self.totalMilliWatt = totalMilliWatt
    }

    /// mAh drawn in `durationS` seconds at this rate.
    public func milliAmpHours(overS durationS: Double) -> Double { totalMilliAmp * durationS / 3600 }
}

/// What every sensor does now, and why.
public struct Plan: Sendable, Hashable {
    /// One entry per planned sensor, in board order.
    public var sensors: [SensorPlan]
    /// The receiver's plan (`nil` when the board has none).
    public var gnss: GNSSPlan?
    /// Why.
    public var causes: [PlanCause]
    /// Predicted draw.
    public var power: PowerPrediction
    /// When the plan was made, s (engine clock).
    public var timeS: Double
    /// Counts plans made (1 for the first).
    public var generation: Int

    public init(
        sensors: [SensorPlan], gnss: GNSSPlan?, causes: [PlanCause] = [], power: PowerPrediction = PowerPrediction(),
        timeS: Double = 0, generation: Int = 0
    ) {
        self.sensors = sensors; self.gnss = gnss; self.causes = causes; self.power = power; self.timeS = timeS
        self.generation = generation
    }
}
