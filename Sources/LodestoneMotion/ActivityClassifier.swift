import LodestoneCore
import RealModule

/// The activity of the carrier, like `CMMotionActivityManager`: causal, a decision every second, stable.
///
/// 1. `ActivityFeatures` describes the last 5 s every second (orientation- and sampling-independent).
/// 2. `ActivityModel` (boosted trees) gives the probability of each of the five activities for that window.
/// 3. A hidden Markov model filters those over time (forward algorithm; Rabiner, "A tutorial on hidden Markov
///    models", Proc. IEEE 77(2), 1989, eq. 20): each second the belief is propagated with a sticky transition
///    matrix (`switchProbabilityPerS` spread over the other activities) and multiplied by the window's
///    probabilities raised to `evidenceExponent` (< 1: the trees are over-confident on unseen people). A GNSS
///    speed, when one is fresh, multiplies in a coarse speed likelihood (`speedLikelihood`): nobody walks at
///    15 m/s.
/// 4. The first activity is reported once one belief reaches `firstDecisionBelief`, or `firstDecisionMaximumS`
///    after the first window, whichever comes first (getting into a car or putting a phone down looks like
///    anything for a few seconds; a wrong first word would be a change). Then the reported activity changes
///    only when another's belief exceeds the current one's by `switchMargin` (hysteresis); its start time is
///    when that activity took the lead. Confidence is high from a belief of `highConfidence`, medium from
///    `mediumConfidence`, else low.
/// 5. A vehicle trip is sticky, as `CMMotionActivity.automotive` is (a duration-aware hold, in the spirit of a
///    semi-Markov model: the longer a trip, the less a few seconds of other evidence can end it). A trip is
///    established once driving has led the belief for `vehicleEstablishS` seconds while `drive` was reported.
///    Then a stop in traffic, which looks stationary, keeps `drive` (with the belief's lower confidence) for up
///    to `vehicleStopHoldS` since driving last led; and walking, running or cycling end the trip only after
///    leading for `vehicleExitS`. Before the trip is established, any other activity (a stop included) ends it
///    after leading for `vehicleEarlyExitS`. Measured on the TMD car
///    and bus sessions (benchmarks/accuracy/results/activity.md): bumps, handling the phone and moving about
///    in a bus look like several seconds of confident walking, up to 12 s, while getting out of a vehicle
///    is followed by minutes of walking; so leaving a vehicle on foot is reported about `vehicleExitS` late.
///    Except after a stop: nobody gets off a moving vehicle, so walking (or running, cycling) that takes the lead
///    within `vehicleExitAfterStopS` of a stop (stationary leading for `vehicleExitStopS`) ends the trip after
///    leading for `vehicleStopExitS`. In the TMD vehicles walking-like bouts right after a stop lead for up to 6 s
///    (bus stops, after stops shorter than `vehicleExitStopS`); walking away from a vehicle parked for 30 s is
///    reported about 8 s after the walking starts instead of 24 s (TMD rides joined with walks of the same
///    subject: benchmarks/accuracy/results/activity-exit.md).
///
/// Before the first 5 s of accelerometer data, and after a gap in it longer than `maximumGapS`, the activity
/// is `unknown`.
public struct ActivityClassifier: Sendable {
    /// What can be tuned.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Probability per second of changing activity in the hidden Markov model. Default 0.05.
        public var switchProbabilityPerS = 0.05
        /// Exponent applied to the model's probabilities. Default 0.5.
        public var evidenceExponent = 0.5
        /// Belief margin needed to change the reported activity. Default 0.2.
        public var switchMargin = 0.2
        /// Belief needed for high and medium confidence. Defaults 0.85 and 0.6.
        public var highConfidence = 0.85
        public var mediumConfidence = 0.6
        /// How long driving must have led the belief, while `drive` was reported, before stops and short
        /// walking-like bouts keep the trip, s. Default 10: with the model that reads sparse logs (interpolated held
        /// values), the TMD buses' driving evidence comes in bouts of 5–20 s between stop-like ones; 20 s let them
        /// flap to `stationary` (47 spurious changes in 3.5 h of TMD vehicles, leaving each subject out; 25 at 10 s).
        public var vehicleEstablishS = 10.0
        /// How long a stop keeps a vehicle trip reported as `drive`, s. Default 120 (a long red light).
        public var vehicleStopHoldS = 120.0
        /// How long walking, running or cycling must lead before an established vehicle trip ends, s. Default 20.
        public var vehicleExitS = 20.0
        /// How long any other activity, a stop included, must lead before a trip not yet established ends, s.
        /// Default 12.
        public var vehicleEarlyExitS = 12.0
        /// How long walking, running or cycling must lead to end a trip when it took the lead right after a stop,
        /// s. Default 4 (after a stop of `vehicleExitStopS` no walking-like bout in the TMD vehicles led this long).
        public var vehicleStopExitS = 4.0
        /// How long stationary must lead to count as a stop for `vehicleStopExitS`, s. Default 15 (5 s gave the
        /// same exits on the TMD joins but also ended trips misread in walking sessions at short standstills, which
        /// lowered the phones' macro-F1 from 0.901 to 0.899).
        public var vehicleExitStopS = 15.0
        /// How soon after a stop the walking must take the lead for `vehicleStopExitS`, s. Default 10.
        public var vehicleExitAfterStopS = 10.0
        /// Belief at which the first activity is reported (0…1). Default 0.8.
        public var firstDecisionBelief = 0.8
        /// Time after the first window by which the first activity is reported whatever the belief, s. Default 10.
        public var firstDecisionMaximumS = 10.0
        /// A GNSS speed older than this is not used, s. Default 3.
        public var maximumSpeedAgeS = 3.0
        /// A gap in the accelerometer longer than this resets the classifier, s. Default 5.
        public var maximumGapS = 5.0

        /// The defaults (chosen with the hidden Markov model's cross-validated scores on the development set;
        /// see `benchmarks/accuracy/README.md`).
        public init() {}
    }

    /// Everything `update` changes (the feature extractor's buffers apart).
    public struct State: Sendable, Hashable, Codable {
        /// Belief over `ActivityModel.classes` (sums to 1).
        public var belief: [Double]
        /// The reported activity; `nil` while unknown.
        public var reported: MotionActivity?
        /// The activity leading the belief and since when, s (the evidence's start, and the window end when it
        /// took the lead).
        public var leaderIndex: Int?
        public var leaderSinceS = 0.0
        public var leaderWindowEndS = 0.0
        /// Last time driving led the belief, s, and the window end when the reported activity last changed.
        public var driveLedS: Double?
        public var reportedSinceS = 0.0
        /// Seconds driving has led the belief since `drive` was last reported (the trip's evidence).
        public var tripDrivingS = 0.0
        /// Last time stationary had led the belief for `vehicleExitStopS` (a stop), s.
        public var stopEndS: Double?
        /// End of the first window since the last reset, s.
        public var firstWindowEndS: Double?
        /// Latest GNSS speed (m/s) and its time, s.
        public var speedMps: Double?
        public var speedTimeS: Double?
        /// Time of the latest accelerometer sample and of the first one since the last reset, s.
        public var lastSampleTimeS: Double?
        public var firstSampleTimeS: Double?
    }

    /// The settings, the model and the state (see each type).
    public let parameters: Parameters
    /// The model scoring each window.
    public let model: ActivityModel
    /// Everything `update` changed so far.
    public private(set) var state: State
    private var features: ActivityFeatures
    private var probabilities: [Double]
    private var prior: [Double]

    /// A classifier with `model` (default: the shipped one) and `parameters`.
    public init(model: ActivityModel = .standard, parameters: Parameters = Parameters()) {
        self.model = model
        self.parameters = parameters
        let n = model.classes.count
        state = State(belief: Array(repeating: 1 / Double(n), count: n))
        features = ActivityFeatures()
        probabilities = Array(repeating: 0, count: n)
        prior = probabilities
    }

    /// The activity now (`unknown`, low confidence, while there is not enough data).
    /// `@inlinable` so that a read from another module (`replay`: twice a row) does not copy the classifier first.
    @inlinable public var activity: MotionActivity {
        state.reported ?? MotionActivity(kind: .unknown, confidence: .low, startTimeS: state.firstSampleTimeS ?? 0)
    }

    /// The latest window's probabilities from the model, in `model.classes` order.
    public var windowProbabilities: [Double] { probabilities }
    /// The latest feature vector.
    public var featureValues: [Double] { features.values }

    /// A GNSS speed over ground (m/s) at `timeS`.
    public mutating func addSpeed(_ speedMps: Double, timeS: Double) {
        guard speedMps.isFinite, speedMps >= 0 else { return }
        state.speedMps = speedMps
        state.speedTimeS = timeS
    }

    /// One accelerometer sample (board axes, m/s²) with the gyroscope's rate when the sample has one. Returns
    /// true when the activity was re-evaluated (once per second).
    @discardableResult
    public mutating func update(specificForceMps2 f: Vector3, angularVelocityRadS gyro: Vector3?, timeS: Double) -> Bool {
        if let last = state.lastSampleTimeS, !(timeS - last <= parameters.maximumGapS && timeS >= last - parameters.maximumGapS) {
            reset()
        }
        if state.firstSampleTimeS == nil { state.firstSampleTimeS = timeS }
        state.lastSampleTimeS = timeS
        guard features.add(specificForceMps2: f, angularVelocityRadS: gyro, timeS: timeS) else { return false }
        model.predict(features.values, into: &probabilities)
        let windowEndS = timeS
        step(windowEndS: windowEndS)
        return true
    }

    /// Forgets the belief and the window (a gap in the data).
    public mutating func reset() {
        features.restart()
        let n = model.classes.count
        for c in 0..<n { state.belief[c] = 1 / Double(n) }
        state.reported = nil
        state.driveLedS = nil
        state.leaderIndex = nil
        state.firstSampleTimeS = nil
        state.firstWindowEndS = nil
        state.tripDrivingS = 0
        state.stopEndS = nil
    }

    private mutating func step(windowEndS: Double) {
        let n = model.classes.count
        let stay = 1 - parameters.switchProbabilityPerS
        let move = parameters.switchProbabilityPerS / Double(max(1, n - 1))
        var total = 0.0
        for c in 0..<n { total += state.belief[c] }
        for c in 0..<n { prior[c] = state.belief[c] * stay + (total - state.belief[c]) * move }
        var sum = 0.0
        let speed = freshSpeed(at: windowEndS)
        for c in 0..<n {
            var likelihood = Double.pow(max(probabilities[c], 1e-6), parameters.evidenceExponent)
            if let v = speed { likelihood *= Self.speedLikelihood(speedMps: v, kind: model.classes[c]) }
            state.belief[c] = prior[c] * likelihood
            sum += state.belief[c]
        }
        for c in 0..<n { state.belief[c] = sum > 0 ? state.belief[c] / sum : 1 / Double(n) }

        var best = 0
        for c in 1..<n where state.belief[c] > state.belief[best] { best = c }
        let windowCentreS = windowEndS - Double(ActivityFeatures.windowBins) / ActivityFeatures.binRateHz / 2
        if state.leaderIndex != best {
            state.leaderIndex = best
            state.leaderSinceS = state.reported == nil ? (state.firstSampleTimeS ?? windowCentreS) : windowCentreS
            state.leaderWindowEndS = windowEndS
        }
        let kind = model.classes[best]
        if kind == .drive { state.driveLedS = windowEndS }
        if kind == .stationary, windowEndS - state.leaderWindowEndS >= parameters.vehicleExitStopS { state.stopEndS = windowEndS }
        if state.firstWindowEndS == nil { state.firstWindowEndS = windowEndS }
        if state.reported?.kind == .drive {
            if kind == .drive { state.tripDrivingS += Double(ActivityFeatures.hopBins) / ActivityFeatures.binRateHz }
        } else {
            state.tripDrivingS = 0
        }
        if let current = state.reported, let i = model.classes.firstIndex(of: current.kind) {
            var allowed = true
            if current.kind == .drive, kind != .drive {
                let established = state.tripDrivingS >= parameters.vehicleEstablishS
                if kind == .stationary {
                    allowed =
                        established
                        ? windowEndS - (state.driveLedS ?? windowEndS) > parameters.vehicleStopHoldS
                        : windowEndS - state.leaderWindowEndS >= parameters.vehicleEarlyExitS
                } else {
                    var exitS = established ? parameters.vehicleExitS : parameters.vehicleEarlyExitS
                    if let stopS = state.stopEndS, state.leaderWindowEndS - stopS <= parameters.vehicleExitAfterStopS {
                        exitS = min(exitS, parameters.vehicleStopExitS)
                    }
                    allowed = windowEndS - state.leaderWindowEndS >= exitS
                }
            }
            if i != best, allowed, state.belief[best] >= state.belief[i] + parameters.switchMargin {
                state.reported = MotionActivity(
                    kind: kind, confidence: confidence(state.belief[best]), startTimeS: state.leaderSinceS)
                state.reportedSinceS = windowEndS
            } else {
                let c = confidence(state.belief[i])
                state.reported?.confidence = c
            }
        } else if state.belief[best] >= parameters.firstDecisionBelief
            || windowEndS - (state.firstWindowEndS ?? windowEndS) >= parameters.firstDecisionMaximumS
        {
            state.reported = MotionActivity(
                kind: kind, confidence: confidence(state.belief[best]), startTimeS: state.leaderSinceS)
            state.reportedSinceS = windowEndS
        }
    }

    private func freshSpeed(at timeS: Double) -> Double? {
        guard let v = state.speedMps, let t = state.speedTimeS, timeS - t <= parameters.maximumSpeedAgeS, timeS >= t - 1 else {
            return nil
        }
        return v
    }

    private func confidence(_ belief: Double) -> MotionActivity.Confidence {
        belief >= parameters.highConfidence ? .high : belief >= parameters.mediumConfidence ? .medium : .low
    }

    /// How likely a GNSS speed over ground is for each activity (relative factors, not trained): speeds people
    /// walk (≤ 2.5 m/s), run (2–7), cycle (2–14) and vehicles drive (any, stops included).
    public static func speedLikelihood(speedMps v: Double, kind: MotionActivity.Kind) -> Double {
        switch kind {
        case .stationary: v < 0.5 ? 1 : v < 2.5 ? 0.3 : 0.05
        case .walk: v < 0.5 ? 0.7 : v < 2.5 ? 1 : v < 4 ? 0.2 : 0.01
        case .run: v < 0.5 ? 0.2 : v < 2 ? 0.6 : v < 7 ? 1 : 0.02
        case .cycle: v < 0.5 ? 0.3 : v < 2 ? 0.6 : v < 14 ? 1 : 0.05
        case .drive: v < 0.5 ? 0.5 : v < 2.5 ? 0.6 : v < 7 ? 0.8 : 1
        case .unknown: 1
        }
    }
}
