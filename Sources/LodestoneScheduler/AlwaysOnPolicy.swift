/// Baseline: every sensor at its board maximum in normal mode and the receiver continuous at 1 Hz, whatever the
/// demands, the battery or the motion. What a system without a scheduler does; the evaluation's reference.
public struct AlwaysOnPolicy: SchedulingPolicy {
    public var name: String { "always-on" }

    public init() {}

    public mutating func plan(_ inputs: SchedulerInputs, into plan: inout Plan) {
        plan.setAllSensorsToMaximum(inputs.sensors)
        plan.gnss?.mode = .continuous(rateHz: 1)
        plan.causes.append(.policy("always on: every sensor at its maximum, GNSS continuous 1 Hz"))
    }
}
