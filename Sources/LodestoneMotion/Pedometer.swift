import LodestoneCore

/// Step length from cadence, like a pedometer's stride model: l = h·(a + b·f) for a carrier of height h at
/// cadence f (steps/s), one line for walking and one for running (walking speed grows with both step length
/// and cadence: Grieve & Gear, "The relationships between length of stride, step frequency, time of swing and
/// speed of walking", Ergonomics 9(5), 1966; the coefficients below put 1.8 steps/s at 0.75 m for 1.70 m,
/// 1.35 m/s, and 2.8 steps/s running at 1.35 m, 3.8 m/s). A GNSS speed, while walking steadily, calibrates a
/// personal scale (`scale`), as `CMPedometer` calibrates with GPS.
public struct StrideModel: Sendable, Hashable, Codable {
    /// Height of the carrier, m. Default 1.70.
    public var heightM = 1.70
    /// Walking: l/h = a + b·f, f clamped into `walkingCadenceHz`. Defaults −0.082 + 0.29·f, 1.2…2.4 Hz.
    public var walkingIntercept = -0.082
    public var walkingSlopePerHz = 0.29
    public var walkingCadenceHz: ClosedRange<Double> = 1.2...2.4
    /// Running (cadence above `runningFromHz` or the activity is running): l/h = a + b·f, f clamped into
    /// `runningCadenceHz`. Defaults −0.62 + 0.5·f, 2.2…3.6 Hz.
    public var runningIntercept = -0.62
    public var runningSlopePerHz = 0.5
    public var runningCadenceHz: ClosedRange<Double> = 2.2...3.6
    public var runningFromHz = 2.4
    /// Personal scale learned from GNSS speed (1 = the model as given), clamped into 0.6…1.5.
    public var scale = 1.0
    /// Gain of one GNSS calibration step. Default 0.05.
    public var calibrationGain = 0.05

    /// The defaults.
    public init() {}

    /// Step length at cadence `cadenceHz` (steps/s), m.
    public func stepLengthM(cadenceHz f: Double, running: Bool) -> Double {
        let isRunning = running || f >= runningFromHz
        let ratio =
            isRunning
            ? runningIntercept + runningSlopePerHz * min(max(f, runningCadenceHz.lowerBound), runningCadenceHz.upperBound)
            : walkingIntercept + walkingSlopePerHz * min(max(f, walkingCadenceHz.lowerBound), walkingCadenceHz.upperBound)
        return heightM * ratio * scale
    }

    /// Learns the personal scale from a GNSS speed (m/s) measured while stepping at `cadenceHz`.
    public mutating func calibrate(speedMps: Double, cadenceHz: Double, running: Bool) {
        let predicted = stepLengthM(cadenceHz: cadenceHz, running: running) * cadenceHz
        guard predicted > 0.3, speedMps.isFinite, speedMps > 0.3 else { return }
        let target = min(max(scale * speedMps / predicted, 0.6), 1.5)
        scale += calibrationGain * (target - scale)
    }
}

/// Counts steps and what follows from them, like `CMPedometer`: steps, distance (stride model), cadence, pace
/// and (with the floor counter) floors, live and over any time range still in its history.
public struct Pedometer: Sendable {
    /// What can be tuned.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The step detector's parameters.
        public var detector = StepDetector.Parameters()
        /// The stride model.
        public var stride = StrideModel()
        /// Cadence is measured over the steps of the last `cadenceWindowS` s (at least 3 steps), and is
        /// unknown when the last step is older than `cadenceTimeoutS`. Defaults 6 and 2.
        public var cadenceWindowS = 6.0
        public var cadenceTimeoutS = 2.0
        /// History: resolution (s) and capacity (records). Defaults 5 s and 8640 (12 hours of walking).
        public var historyResolutionS = 5.0
        public var historyCapacity = 8640

        /// The defaults.
        public init() {}
    }

    /// The settings.
    public let parameters: Parameters
    /// The step detector and the stride model (with its learned scale).
    public private(set) var detector: StepDetector
    public private(set) var stride: StrideModel
    /// Running totals now.
    public private(set) var totals = PedometerTotals(timeS: 0)
    /// Totals over time, for queries.
    public private(set) var history: PedometerHistory
    // Internal rather than private for the `@inlinable` outputs below.
    @usableFromInline var recentSteps: FixedRing<Double>
    @usableFromInline var startTimeS: Double?

    /// A pedometer with `parameters`.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        detector = StepDetector(parameters: parameters.detector)
        stride = parameters.stride
        history = PedometerHistory(resolutionS: parameters.historyResolutionS, capacity: parameters.historyCapacity)
        recentSteps = FixedRing(capacity: 32, filler: 0)
    }

    /// One accelerometer sample (any axes, m/s²). `allowSteps` false discards the steps found (the carrier
    /// rides a bicycle or a vehicle); `running` selects the running stride. Returns the steps counted now: the first
    /// steps of a walk arrive together once it is confirmed, and its closing step `maximumIntervalS` after it was
    /// taken (`StepDetector`), as `CMPedometer`'s live updates correct themselves.
    public mutating func update(specificForceMps2 f: Vector3, timeS: Double, allowSteps: Bool, running: Bool) -> Int {
        if startTimeS == nil {
            startTimeS = timeS
            totals.timeS = timeS
            history.record(totals)
        }
        let out = detector.update(specificForceMps2: f, timeS: timeS)
        guard out.steps > 0, allowSteps, let latest = out.latestStepTimeS else { return 0 }
        let cadence = 1 / detector.periodS
        let length = stride.stepLengthM(cadenceHz: cadence, running: running)
        let previousStep = recentSteps.newest
        totals.steps += out.steps
        totals.distanceM += Double(out.steps) * length
        if let first = out.firstStepTimeS {
            if let p = previousStep, first - p <= parameters.detector.maximumIntervalS { totals.activeTimeS += first - p }
            totals.activeTimeS += latest - first
        }
        totals.timeS = latest
        // Walk confirmation hands over several steps at once: record each one's time.
        if out.steps > 1, let first = out.firstStepTimeS {
            for i in 0..<out.steps { recentSteps.append(first + (latest - first) * Double(i) / Double(out.steps - 1)) }
        } else {
            recentSteps.append(latest)
        }
        history.record(totals)
        return out.steps
    }

    /// Floors counted by the floor counter, recorded in the totals at `timeS`.
    public mutating func addFloors(ascended: Int, descended: Int, timeS: Double) {
        guard ascended != 0 || descended != 0 else { return }
        totals.floorsAscended += ascended
        totals.floorsDescended += descended
        totals.timeS = timeS
        history.record(totals)
    }

    /// A GNSS speed over ground (m/s) at `timeS`: calibrates the stride while walking steadily.
    public mutating func addSpeed(_ speedMps: Double, timeS: Double, running: Bool) {
        guard let cadence = cadenceHz(atTimeS: timeS) else { return }
        stride.calibrate(speedMps: speedMps, cadenceHz: cadence, running: running)
    }

    // The live outputs are inlined into their callers: `replay` reads them once a row from another module, and a plain
    // call on this 0.9 KB value copied it first (the optimizer left `data` a call even when it was `@inlinable`).

    /// Cadence at `timeS`, steps/s; `nil` when no steps are being taken.
    @inlinable @inline(__always) public func cadenceHz(atTimeS timeS: Double) -> Double? {
        guard let last = recentSteps.newest, timeS - last <= parameters.cadenceTimeoutS else { return nil }
        var count = 0
        var first = last
        for age in 0..<recentSteps.count {
            guard let t = recentSteps.back(age), last - t <= parameters.cadenceWindowS else { break }
            first = t
            count += 1
        }
        guard count >= 3, last > first else { return nil }
        return Double(count - 1) / (last - first)
    }

    /// Pace at `timeS`, s/m; `nil` when not stepping.
    @inlinable @inline(__always) public func paceSPerM(atTimeS timeS: Double, running: Bool) -> Double? {
        cadenceHz(atTimeS: timeS).flatMap { paceSPerM(cadenceHz: $0, running: running) }
    }

    /// Pace at cadence `f` (steps/s), s/m, by the stride model; `nil` for a zero speed.
    @inlinable @inline(__always) func paceSPerM(cadenceHz f: Double, running: Bool) -> Double? {
        let speed = stride.stepLengthM(cadenceHz: f, running: running) * f
        return speed > 0 ? 1 / speed : nil
    }

    /// True while steps are being taken (a walk is confirmed and the last step is recent).
    public func isStepping(atTimeS timeS: Double) -> Bool {
        guard detector.isWalking, let last = recentSteps.newest else { return false }
        return timeS - last <= parameters.cadenceTimeoutS
    }

    /// Live data since the start, like the updates of `CMPedometer.startUpdates(from:)`.
    @inlinable @inline(__always) public func data(atTimeS timeS: Double, running: Bool) -> PedometerData {
        let cadence = cadenceHz(atTimeS: timeS) // once: the pace follows from it
        return PedometerData(
            startTimeS: startTimeS ?? timeS, endTimeS: timeS, steps: totals.steps, distanceM: totals.distanceM,
            floorsAscended: totals.floorsAscended, floorsDescended: totals.floorsDescended,
            currentCadenceStepsPerS: cadence,
            currentPaceSPerM: cadence.flatMap { paceSPerM(cadenceHz: $0, running: running) },
            averageActivePaceSPerM: totals.distanceM > 0 && totals.activeTimeS > 0 ? totals.activeTimeS / totals.distanceM : nil)
    }

    /// What happened between `startTimeS` and `endTimeS`, like `CMPedometer.queryPedometerData(from:to:)`, to
    /// within the history's resolution. `nil` when `startTimeS` is older than the history holds or the range
    /// is empty. Current cadence and pace are left out (they describe an instant).
    public func query(fromTimeS startTimeS: Double, toTimeS endTimeS: Double) -> PedometerData? {
        guard endTimeS >= startTimeS, let oldest = history.oldestTimeS, startTimeS >= oldest,
            let a = history.totals(atTimeS: startTimeS), let b = history.totals(atTimeS: endTimeS)
        else { return nil }
        let distance = b.distanceM - a.distanceM
        let active = b.activeTimeS - a.activeTimeS
        return PedometerData(
            startTimeS: startTimeS, endTimeS: endTimeS, steps: b.steps - a.steps, distanceM: distance,
            floorsAscended: b.floorsAscended - a.floorsAscended,
            floorsDescended: b.floorsDescended - a.floorsDescended,
            currentCadenceStepsPerS: nil, currentPaceSPerM: nil,
            averageActivePaceSPerM: distance > 0 && active > 0 ? active / distance : nil)
    }
}
