/// Baseline: the common smartphone approach RAPS compares with (Paek et al., MobiSys 2010, section 1): the IMU and
/// every other sensor always on at the board maximum; the receiver duty-cycled on a fixed timetable, `onS` seconds
/// of continuous 1 Hz tracking every `periodS` seconds, regardless of motion and demands.
///
/// The cycle is timed by the scheduler (`continuous(rateHz: 1)` / `off`, switched by its once-a-second re-plan), not
/// by the receiver's own power-save mode: the on-phase is a hot start followed by tracking, as a phone app that
/// turns its location updates on and off does. The first on-phase starts at the first plan.
public struct FixedDutyCyclePolicy: SchedulingPolicy {
    /// Receiver on this long in each period, s (default 30).
    public var onS: Double
    /// The period, s (default 120).
    public var periodS: Double
    private var startS: Double?
    private let onText: String
    private let offText: String

    public var name: String { "duty-cycle" }

    public init(onS: Double = 30, periodS: Double = 120) {
        self.onS = max(onS, 0); self.periodS = max(periodS, 1)
        onText = "fixed duty cycle: GNSS on \(Int(onS.rounded())) s every \(Int(periodS.rounded())) s (on)"
        offText = "fixed duty cycle: GNSS on \(Int(onS.rounded())) s every \(Int(periodS.rounded())) s (off)"
    }

    /// Whether the receiver is in its on-phase at `timeS`, given the cycle started at `startS`.
    public func isOn(atTimeS timeS: Double, startS: Double) -> Bool {
        let phase = (timeS - startS).truncatingRemainder(dividingBy: periodS)
        return (phase < 0 ? phase + periodS : phase) < onS
    }

    public mutating func plan(_ inputs: SchedulerInputs, into plan: inout Plan) {
        let start = startS ?? inputs.timeS
        startS = start
        plan.setAllSensorsToMaximum(inputs.sensors)
        let on = isOn(atTimeS: inputs.timeS, startS: start)
        plan.gnss?.mode = on ? .continuous(rateHz: 1) : .off
        plan.causes.append(.policy(on ? onText : offText))
    }
}
