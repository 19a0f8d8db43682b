import LodestoneCore

/// What the parts of a policy need of one sensor, combined over its kinds and the demands: the highest rate, the
/// most awake power mode, the finest oversampling, the shortest batching latency. Written into a `SensorPlan` in
/// place by `write(for:into:)`. A value with no need (`rateHz == 0`) suspends the sensor.
struct SensorNeed: Sendable, Hashable {
    /// Output data rate, Hz (0: not needed).
    var rateHz = 0.0
    var powerMode = PowerMode.suspend
    var oversampling = 1
    /// Longest time samples may wait in the chip's FIFO, s (0: every sample read at once).
    var batchLatencyS = Double.infinity
    /// Arm wake-on-motion with this threshold, m/s² (only in `.lowPower`, only where the chip has it).
    var wakeOnMotionThresholdMps2: Double?
    var accelerationRangeMps2: Double?
    var angularRateRangeRadS: Double?

    /// Adds one need.
    mutating func need(rateHz r: Double, mode: PowerMode, oversampling os: Int = 1, batchLatencyS latency: Double = 0) {
        rateHz = max(rateHz, r)
        if mode.awakeRank > powerMode.awakeRank { powerMode = mode }
        oversampling = max(oversampling, os)
        batchLatencyS = min(batchLatencyS, latency)
    }

    /// Writes this need into `plan` (whose `id` is `sensor.id`) without allocating.
    func write(for sensor: PlannedSensor, into plan: inout SensorPlan) {
        guard rateHz > 0, powerMode != .suspend else {
            plan.enabled = false
            plan.configuration = SensorConfiguration(rateHz: sensor.maximumRateHz, powerMode: .suspend)
            plan.readRateHz = 0
            plan.fifoDepthSamples = 0
            return
        }
        let rate = min(rateHz, sensor.maximumRateHz)
        var configuration = SensorConfiguration(
            rateHz: rate, powerMode: powerMode, oversampling: oversampling,
            accelerationRangeMps2: sensor.kinds.contains(.accelerometer) ? accelerationRangeMps2 : nil,
            angularRateRangeRadS: sensor.kinds.contains(.gyroscope) ? angularRateRangeRadS : nil,
            wakeOnMotionThresholdMps2: powerMode == .lowPower && sensor.hasMotionWake ? wakeOnMotionThresholdMps2 : nil)
        var depth = 0
        if batchLatencyS.isFinite, batchLatencyS > 0, sensor.fifoCapacitySamples > 1 {
            // Three quarters of the FIFO at most, so that a late read does not overflow it.
            depth = min(Int(rate * batchLatencyS), sensor.fifoCapacitySamples * 3 / 4)
            if depth < 2 { depth = 0 }
        }
        configuration.fifo = depth > 0 ? .stream : .off
        plan.enabled = true
        plan.configuration = configuration
        plan.readRateHz = depth > 0 ? rate / Double(depth) : rate
        plan.fifoDepthSamples = depth
    }
}

extension PowerMode {
    /// suspend < lowPower < normal.
    var awakeRank: Int {
        switch self {
        case .suspend: 0
        case .lowPower: 1
        case .normal: 2
        }
    }
}

extension DesiredAccuracy {
    /// The tier `steps` coarser (capped at `reduced`). (A switch, not `allCases`: no array on the planning path.)
    public func coarser(by steps: Int) -> DesiredAccuracy {
        var a = self
        for _ in 0..<max(steps, 0) { a = a.nextCoarser }
        return a
    }

    private var nextCoarser: DesiredAccuracy {
        switch self {
        case .bestForNavigation: .best
        case .best: .nearestTenMeters
        case .nearestTenMeters: .hundredMeters
        case .hundredMeters: .kilometer
        case .kilometer: .threeKilometers
        case .threeKilometers, .reduced: .reduced
        }
    }

    /// What a client wants, for `PlanCause.demand` (literals: no text is built on the planning path).
    var demandText: String {
        switch self {
        case .bestForNavigation: "location for navigation"
        case .best: "best location"
        case .nearestTenMeters: "location within 10 m"
        case .hundredMeters: "location within 100 m"
        case .kilometer: "location within 1 km"
        case .threeKilometers: "location within 3 km"
        case .reduced: "approximate location"
        }
    }
}

extension GNSSReceiverMode {
    /// True when the receiver delivers fixes (continuous or power-save).
    public var isOn: Bool {
        if case .off = self { return false }
        return true
    }
}

extension Plan {
    /// Every sensor at its board maximum in normal mode, no FIFO: the always-on setting.
    mutating func setAllSensorsToMaximum(_ sensors: [PlannedSensor]) {
        var need = SensorNeed()
        for i in self.sensors.indices where i < sensors.count {
            need = SensorNeed()
            need.need(rateHz: sensors[i].maximumRateHz, mode: .normal)
            need.write(for: sensors[i], into: &self.sensors[i])
        }
    }
}
