import LodestoneCore
import LodestoneScheduler

/// The energy a run spent, per sensor and for the receiver, integrated over engine time from what was drawn at each
/// instant: a sensor's draw is its plan's prediction (`Plan.power.perSensor`, from `EnergyModel`), the receiver's is
/// the data-sheet current of the power state it is really in (`GNSSPowerControllable.powerState` ×
/// `EnergyModel.draw(receiver:state:mode:)`), so acquisition after a wake costs what it costs.
///
/// Value type; `add(…)` allocates nothing once the account has its shape (one entry per sensor, set at `init`).
public struct EnergyAccount: Sendable, Hashable {
    /// Board ids of the planned sensors, in plan order (the receiver is kept apart).
    public let sensorIDs: [String]
    /// Charge drawn by each sensor so far, mAh (same order as `sensorIDs`).
    public private(set) var sensorMilliAmpHours: [Double]
    /// Energy drawn by each sensor so far, mWh (same order as `sensorIDs`).
    public private(set) var sensorMilliWattHours: [Double]
    /// The receiver's id (`nil`: the board has none).
    public let receiverID: String?
    /// Charge and energy drawn by the receiver so far, mAh and mWh.
    public private(set) var receiverMilliAmpHours = 0.0
    public private(set) var receiverMilliWattHours = 0.0
    /// Time the receiver spent in each `GNSSPowerState` (index: `GNSSPowerState.allCases`), s.
    public private(set) var receiverStateS: [Double]
    /// Engine time accounted, s.
    public private(set) var durationS = 0.0

    /// An empty account for `sensorIDs` and the receiver `receiverID`.
    public init(sensorIDs: [String], receiverID: String?) {
        self.sensorIDs = sensorIDs; self.receiverID = receiverID
        sensorMilliAmpHours = Array(repeating: 0, count: sensorIDs.count)
        sensorMilliWattHours = Array(repeating: 0, count: sensorIDs.count)
        receiverStateS = Array(repeating: 0, count: GNSSPowerState.allCases.count)
    }

    /// Adds `durationS` seconds at the draws of `plan` (sensors by position in `plan.power.perSensor`, which lists the
    /// sensors in plan order and the receiver last) and the receiver at `receiverDraw` in `receiverState` (`nil`:
    /// the plan's prediction for it, e.g. a receiver that cannot report its state). Returns the current drawn, mA
    /// (sensors and receiver). Allocates nothing.
    @discardableResult
    public mutating func add(durationS dt: Double, plan: Plan, receiverState: GNSSPowerState?, receiverDraw: PowerDraw?) -> Double
    {
        guard dt > 0, dt.isFinite else { return 0 }
        durationS += dt
        let hours = dt / 3600
        let predicted = plan.power.perSensor
        let n = min(sensorIDs.count, predicted.count)
        var milliAmp = 0.0
        for i in 0..<n {
            milliAmp += predicted[i].milliAmp
            sensorMilliAmpHours[i] += predicted[i].milliAmp * hours
            sensorMilliWattHours[i] += predicted[i].milliWatt * hours
        }
        guard receiverID != nil else { return milliAmp }
        if let draw = receiverDraw {
            milliAmp += draw.milliAmp
            receiverMilliAmpHours += draw.milliAmp * hours
            receiverMilliWattHours += draw.milliWatt * hours
        } else if predicted.count > sensorIDs.count {
            milliAmp += predicted[sensorIDs.count].milliAmp
            receiverMilliAmpHours += predicted[sensorIDs.count].milliAmp * hours
            receiverMilliWattHours += predicted[sensorIDs.count].milliWatt * hours
        }
        if let s = receiverState { receiverStateS[Self.index(s)] += dt }
        return milliAmp
    }

    /// The index of `state` in `GNSSPowerState.allCases` (without making that array on the sample path).
    public static func index(_ state: GNSSPowerState) -> Int {
        switch state {
        case .off: 0
        case .acquiring: 1
        case .tracking: 2
        case .powerSaveIdle: 3
        }
    }

    /// Charge drawn by the sensors alone (receiver excluded), mAh.
    public var sensorsMilliAmpHours: Double { sensorMilliAmpHours.reduce(0, +) }
    /// Charge drawn by sensors and receiver, mAh.
    public var totalMilliAmpHours: Double { sensorsMilliAmpHours + receiverMilliAmpHours }
    /// Energy drawn by sensors and receiver, mWh.
    public var totalMilliWattHours: Double { sensorMilliWattHours.reduce(0, +) + receiverMilliWattHours }
    /// Mean current of sensors and receiver over the accounted time, mA (0 before any time passed).
    public var meanMilliAmp: Double { durationS > 0 ? totalMilliAmpHours * 3600 / durationS : 0 }
    /// Mean power of sensors and receiver, mW.
    public var meanMilliWatt: Double { durationS > 0 ? totalMilliWattHours * 3600 / durationS : 0 }
    /// Charge drawn by the sensor `id` so far, mAh (`nil` for an id not in the account; the receiver's id gives its).
    public func milliAmpHours(id: String) -> Double? {
        if id == receiverID { return receiverMilliAmpHours }
        return sensorIDs.firstIndex(of: id).map { sensorMilliAmpHours[$0] }
    }
}
