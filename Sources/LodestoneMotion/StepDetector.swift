import LodestoneCore

/// Detects steps in the magnitude of the specific force, whatever the placement (hand, pocket, bag, belt) and
/// orientation of the board: causal, any sample rate (times from the samples), allocation-free.
///
/// 1. **Signal.** |f| through two cascaded one-pole low-passes (`smoothingTimeConstantS`, ≈ 3 Hz), minus a
///    slow baseline (`baselineTimeConstantS`): gravity and slow trends go, each foot contact leaves a peak.
/// 2. **Peaks.** Alternating maxima and minima with a small hysteresis (`peakHysteresisMps2`); a maximum's
///    prominence is its height above the preceding minimum.
/// 3. **Steps.** A peak is a step when its prominence is at least `strongFraction` of the running step
///    amplitude (and `minimumProminenceMps2`), or — once walking — at least `weakFraction` of it when it comes
///    at a plausible time after the previous step (`weakWindow` × the current step period): the small steps of
///    a turn or of stopping. Peaks closer than `minimumIntervalS` to the previous step are not steps.
/// 4. **Walking.** Steps are held back until `confirmationSteps` in a row come at regular intervals (the
///    longest at most `regularityRatio` × the shortest, none longer than `maximumIntervalS`): then they all
///    count at once, as Android's step counter and `CMPedometer` do after a few steps. A pause longer than
///    `maximumIntervalS` ends the walk, and the next one must be confirmed again. Handling the board, a tap, a
///    car's bumps give isolated peaks and are never counted. At confirmation the first held-back step is dropped
///    when its prominence is under `leadingStepFraction` of the mean of the others: the sway of gait initiation
///    (the weight shift before the first heel strike), which would otherwise open every walk with one step too
///    many.
/// 5. **Closing step.** The last step of a walk (the trailing foot brought beside the other) is soft and often
///    under the weak thresholds. While walking, the most prominent peak that was not a step but came within
///    `closingStepWindow` × the step period after the last step (and is at least
///    `closingStepMinimumProminenceMps2`) is remembered; a step after it forgets it, and when the walk ends
///    (`maximumIntervalS` without a step) it is counted. That count arrives `maximumIntervalS` after the step
///    itself: a later correction of the live count, as `CMPedometer` makes. At rest and in vehicles nothing
///    changes: there is no confirmed walk to close.
///
/// Parameters were tuned on the development split of `shared/datasets/steps` (Oxford step counter data set
/// and the IPOL gait data set): the filters and thresholds by a random search, the leading-step, closing-step and
/// confirmation parameters by a grid with leave-one-subject-out cross-validation (`benchmarks/accuracy/steps/
/// tune.py`; results, error analysis and false steps at rest in `benchmarks/accuracy/results/steps.md`).
public struct StepDetector: Sendable {
    /// What can be tuned.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Time constant of each of the two smoothing low-passes, s. Default 0.05.
        public var smoothingTimeConstantS = 0.05
        /// Time constant of the baseline removed, s. Default 0.7.
        public var baselineTimeConstantS = 0.7
        /// Hysteresis of the peak/valley detector, m/s². Default 0.2.
        public var peakHysteresisMps2 = 0.2
        /// Smallest prominence of a step, m/s². Default 0.6.
        public var minimumProminenceMps2 = 0.6
        /// Smallest prominence of a weak step (while walking), m/s². Default 0.5.
        public var minimumWeakProminenceMps2 = 0.5
        /// Fraction of the running amplitude a step needs, and a weak step. Defaults 0.4 and 0.2.
        public var strongFraction = 0.4
        public var weakFraction = 0.2
        /// A weak step must come between these multiples of the current step period after the last step.
        /// Default 0.9…2.0.
        public var weakWindow: ClosedRange<Double> = 0.9...2.0
        /// How fast the running amplitude and the step period follow new steps (0…1). Defaults 0.5 and 0.2.
        public var amplitudeGain = 0.5
        public var periodGain = 0.2
        /// Amplitude and step period assumed before the first steps, m/s² and s. Defaults 2 and 0.55.
        public var initialAmplitudeMps2 = 2.0
        public var initialPeriodS = 0.55
        /// Steps closer than this are one step, s. Default 0.25 (240 steps/min: a sprint).
        public var minimumIntervalS = 0.25
        /// Steps further apart than this end a walk, s. Default 1.3.
        public var maximumIntervalS = 1.3
        /// Steps needed in a row before a walk is confirmed. Default 6.
        public var confirmationSteps = 6
        /// Largest ratio of the longest to the shortest interval among those steps. Default 1.6.
        public var regularityRatio = 1.6
        /// The first held-back step counts only if its prominence is at least this fraction of the mean prominence
        /// of the others (0 keeps it always). Default 0.35.
        public var leadingStepFraction = 0.35
        /// Smallest prominence of a walk's closing step, m/s². Default 0.25.
        public var closingStepMinimumProminenceMps2 = 0.25
        /// A closing step must come between these multiples of the step period after the last step. Default
        /// 0.7…2.0.
        public var closingStepWindow: ClosedRange<Double> = 0.7...2.0

        /// The defaults (tuned, see above).
        public init() {}
    }

    /// Everything `update` changes.
    public struct State: Sendable, Hashable, Codable {
        /// The two low-passes and the baseline of |f|, m/s².
        public var lowPass1 = 0.0, lowPass2 = 0.0, baseline = 0.0
        /// Time of the last sample, s.
        public var lastSampleTimeS: Double?
        /// Looking for a maximum (true) or a minimum (false).
        public var seekingPeak = true
        /// The running extremum and the time of the running maximum.
        public var extremum = -Double.infinity
        public var extremumTimeS = 0.0
        /// The last minimum.
        public var valley = 0.0
        /// Running step amplitude, m/s², and step period, s.
        public var amplitudeMps2 = 0.0
        public var periodS = 0.0
        /// Time of the last step (counted or held back).
        public var lastStepTimeS: Double?
        /// True while a walk is confirmed.
        public var walking = false
        /// Steps held back until the walk is confirmed (times, s; oldest first).
        public var pending: FixedRing<Double>
        /// Their prominences, m/s² (same order).
        public var pendingProminenceMps2: FixedRing<Double>
        /// The candidate closing step since the last step: time, s, and prominence, m/s².
        public var closingTimeS: Double?
        public var closingProminenceMps2 = 0.0
    }

    /// What one sample produced.
    public struct Output: Sendable, Hashable {
        /// Steps counted with this sample: 0, 1, the held-back steps of a walk just confirmed, or the closing step of a
        /// walk that just ended (its time is `latestStepTimeS`, `maximumIntervalS` or more before this sample).
        public var steps = 0
        /// Time of the latest step counted, s.
        public var latestStepTimeS: Double?
        /// Time of the first step counted with this sample (the start of a walk just confirmed), s.
        public var firstStepTimeS: Double?
    }

    /// The settings.
    public let parameters: Parameters
    /// Everything `update` changed so far.
    public private(set) var state: State

    /// A detector with `parameters`.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        let held = max(2, parameters.confirmationSteps)
        state = State(pending: FixedRing(capacity: held, filler: 0), pendingProminenceMps2: FixedRing(capacity: held, filler: 0))
        state.amplitudeMps2 = parameters.initialAmplitudeMps2
        state.periodS = parameters.initialPeriodS
    }

    /// Restores a snapshot.
    public mutating func restore(_ s: State) { state = s }

    /// True while a walk is confirmed.
    public var isWalking: Bool { state.walking }
    /// The current step period, s (the inverse of the cadence while walking).
    public var periodS: Double { state.periodS }

    /// One accelerometer sample: specific force in any axes, m/s², at `timeS`.
    public mutating func update(specificForceMps2 f: Vector3, timeS: Double) -> Output {
        let m = f.length
        var out = Output()
        guard m.isFinite, timeS.isFinite else { return out }
        let p = parameters
        guard let previous = state.lastSampleTimeS, timeS > previous else {
            if state.lastSampleTimeS == nil {
                state.lowPass1 = m; state.lowPass2 = m; state.baseline = m
                state.lastSampleTimeS = timeS
            }
            return out
        }
        let dt = timeS - previous
        state.lastSampleTimeS = timeS
        if dt > p.maximumIntervalS {
            // A gap in the data: restart the filters from this sample.
            state.lowPass1 = m; state.lowPass2 = m; state.baseline = m
            state.seekingPeak = true
            state.extremum = -.infinity
        }
        let a = min(1, dt / p.smoothingTimeConstantS)
        state.lowPass1 += a * (m - state.lowPass1)
        state.lowPass2 += a * (state.lowPass1 - state.lowPass2)
        state.baseline += min(1, dt / p.baselineTimeConstantS) * (state.lowPass2 - state.baseline)
        let s = state.lowPass2 - state.baseline

        if state.walking, let last = state.lastStepTimeS, timeS - last > p.maximumIntervalS {
            endWalk(into: &out)
        }
        if state.seekingPeak {
            if s > state.extremum { state.extremum = s; state.extremumTimeS = timeS }
            if s < state.extremum - p.peakHysteresisMps2 {
                let prominence = state.extremum - state.valley
                let peakTimeS = state.extremumTimeS
                state.seekingPeak = false
                state.extremum = s
                consider(peakTimeS: peakTimeS, prominence: prominence, into: &out)
            }
        } else {
            if s < state.extremum { state.extremum = s }
            if s > state.extremum + p.peakHysteresisMps2 {
                state.valley = state.extremum
                state.seekingPeak = true
                state.extremum = s
                state.extremumTimeS = timeS
            }
        }
        return out
    }

    private mutating func consider(peakTimeS t: Double, prominence: Double, into out: inout Output) {
        let p = parameters
        let gap = state.lastStepTimeS.map { t - $0 }
        if let g = gap, g < p.minimumIntervalS { return }
        let strong = prominence >= p.strongFraction * state.amplitudeMps2 && prominence >= p.minimumProminenceMps2
        var weak = false
        if state.walking, let g = gap {
            weak =
                prominence >= p.weakFraction * state.amplitudeMps2 && prominence >= p.minimumWeakProminenceMps2
                && g >= p.weakWindow.lowerBound * state.periodS && g <= p.weakWindow.upperBound * state.periodS
        }
        guard strong || weak else {
            rememberClosingCandidate(peakTimeS: t, prominence: prominence, gapS: gap)
            return
        }
        state.closingTimeS = nil
        if strong { state.amplitudeMps2 += p.amplitudeGain * (prominence - state.amplitudeMps2) }
        if let g = gap, g <= p.maximumIntervalS {
            state.periodS += p.periodGain * (min(max(g, p.minimumIntervalS), p.maximumIntervalS) - state.periodS)
        } else if gap != nil {
            endWalk(into: &out)
        }
        state.lastStepTimeS = t
        if state.walking {
            out.steps += 1
            out.latestStepTimeS = t
            if out.firstStepTimeS == nil { out.firstStepTimeS = t }
            return
        }
        state.pending.append(t)
        state.pendingProminenceMps2.append(prominence)
        guard state.pending.count >= p.confirmationSteps else { return }
        var shortest = Double.infinity, longest = 0.0
        for i in 1..<state.pending.count {
            let interval = state.pending[i] - state.pending[i - 1]
            shortest = min(shortest, interval)
            longest = max(longest, interval)
        }
        guard longest <= p.maximumIntervalS, longest < p.regularityRatio * shortest else { return }
        state.walking = true
        var others = 0.0
        for i in 1..<state.pendingProminenceMps2.count { others += state.pendingProminenceMps2[i] }
        others /= Double(state.pendingProminenceMps2.count - 1)
        let first = state.pendingProminenceMps2[0] >= p.leadingStepFraction * others ? 0 : 1
        out.steps += state.pending.count - first
        out.firstStepTimeS = state.pending[first]
        out.latestStepTimeS = t
        state.pending.removeAll()
        state.pendingProminenceMps2.removeAll()
    }

    /// A peak that is not a step, while walking: the walk's closing step if it is the most prominent such peak in
    /// the closing window after the last step.
    private mutating func rememberClosingCandidate(peakTimeS t: Double, prominence: Double, gapS gap: Double?) {
        let p = parameters
        guard state.walking, let g = gap, prominence >= p.closingStepMinimumProminenceMps2,
            g >= p.closingStepWindow.lowerBound * state.periodS, g <= p.closingStepWindow.upperBound * state.periodS
        else { return }
        if state.closingTimeS == nil || prominence > state.closingProminenceMps2 {
            state.closingTimeS = t
            state.closingProminenceMps2 = prominence
        }
    }

    /// Ends the walk: counts its closing step if one was seen, and forgets the held-back steps.
    private mutating func endWalk(into out: inout Output) {
        if state.walking, let t = state.closingTimeS {
            out.steps += 1
            out.latestStepTimeS = t
            if out.firstStepTimeS == nil { out.firstStepTimeS = t }
        }
        state.walking = false
        state.closingTimeS = nil
        state.pending.removeAll()
        state.pendingProminenceMps2.removeAll()
    }
}
