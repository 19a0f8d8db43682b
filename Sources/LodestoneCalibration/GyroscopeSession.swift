import LodestoneCore

/// Gyroscope bias at rest, and noise figures (Allan deviation) from a longer still capture.
///
/// The board lies still for `durationS`; the bias is the mean rate. The capture aborts as soon as the board
/// moves: a rate sample further than `motionRateRadS` from the running mean, or a specific force further than
/// `motionAccelerationMps2` from its running mean (a knock the gyroscope might miss). Captures of at least
/// `allanMinimumDurationS` also give the Allan deviation's noise density, bias instability and rate random
/// walk, which the orientation filter can take as its noise model.
public struct GyroscopeSession: Sendable {
    /// Settings, with their defaults.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Capture length, s. Default 10 s (bias only); 100 s or more adds the Allan deviation.
        public var durationS = 10.0
        /// Largest departure of one rate sample from the running mean, rad/s (≈ 2.9 °/s). Default 0.05.
        public var motionRateRadS = 0.05
        /// Largest departure of one specific-force sample from the running mean, m/s². Default 0.5.
        public var motionAccelerationMps2 = 0.5
        /// Samples before the motion check starts (the running mean needs a few). Default 20.
        public var settleSamples = 20
        /// Shortest capture that gets an Allan deviation, s. Default 100 s.
        public var allanMinimumDurationS = 100.0
        /// Largest plausible bias, rad/s (the MPU-9250's ±5 °/s initial tolerance, with margin). Default 0.35 (20 °/s).
        public var maximumBiasRadS = 0.35
        public init() {}
    }

    /// The result.
    public struct Result: Sendable, Hashable {
        /// Mean rate at rest, rad/s, board axes: subtract it from every reading.
        public var biasRadS: Vector3
        /// Per-axis standard deviation of the rate at rest, rad/s (per sample).
        public var noiseRMSRadS: Vector3
        /// The Allan deviation, for captures of at least `allanMinimumDurationS`.
        public var allan: AllanDeviation?
        /// Length of the capture, s, and its samples.
        public var durationS: Double
        public var samples: Int
        public var temperatureC: Double?
    }

    public let parameters: Parameters
    /// The rate samples, rad/s (reserved for the whole capture at `init`).
    public private(set) var rates: [Vector3]
    private var firstTimeS: Double?
    public private(set) var lastTimeS = 0.0
    private var sum = Vector3.zero
    private var accelerationSum = Vector3.zero
    private var accelerationCount = 0
    private var temperatureSumC = 0.0
    private var temperatureCount = 0
    /// Set when the board moved: what moved and when.
    public private(set) var motion: CalibrationError?

    /// - Parameter expectedRateHz: the gyroscope's rate, to reserve the sample store (no allocation while
    ///   capturing).
    public init(parameters: Parameters = Parameters(), expectedRateHz: Double = 1000) {
        self.parameters = parameters
        rates = []
        rates.reserveCapacity(Int(min(parameters.durationS * max(expectedRateHz, 1) * 1.1 + 16, 5_000_000)))
    }

    /// Seconds captured so far.
    public var elapsedS: Double { firstTimeS.map { lastTimeS - $0 } ?? 0 }

    /// True once the capture lasted `durationS` (or the board moved).
    public var isComplete: Bool { motion != nil || elapsedS >= parameters.durationS }

    /// Adds a sample. Allocation-free while the store has room.
    public mutating func add(
        timeS: Double, angularVelocityRadS w: Vector3, accelerationMps2 a: Vector3? = nil,
        temperatureC: Double? = nil
    ) {
        guard motion == nil, !isComplete, w.x.isFinite, w.y.isFinite, w.z.isFinite else { return }
        if firstTimeS == nil { firstTimeS = timeS }
        lastTimeS = timeS
        if let t = temperatureC, t.isFinite { temperatureSumC += t; temperatureCount += 1 }
        if rates.count >= parameters.settleSamples {
            let mean = sum / Double(rates.count)
            let departure = (w - mean).absoluteValues.max()
            if departure > parameters.motionRateRadS {
                motion = CalibrationError(
                    .boardMoved,
                    "the rate jumped by \(fmt(Angle.degrees(fromRadians: departure), 1)) °/s "
                        + "at t = \(fmt(elapsedS, 1)) s (limit \(fmt(Angle.degrees(fromRadians: parameters.motionRateRadS), 1)) °/s)"
                )
                return
            }
            if let a, accelerationCount > 0 {
                let change = (a - accelerationSum / Double(accelerationCount)).length
                if change > parameters.motionAccelerationMps2 {
                    motion = CalibrationError(
                        .boardMoved,
                        "the accelerometer changed by \(fmt(change, 2)) m/s² at t = \(fmt(elapsedS, 1)) s "
                            + "(limit \(fmt(parameters.motionAccelerationMps2, 1)) m/s²)")
                    return
                }
            }
        }
        if let a { accelerationSum += a; accelerationCount += 1 }
        rates.append(w)
        sum += w
    }

    /// The bias and noise figures, or why not.
    public func finish() -> Swift.Result<Result, CalibrationError> {
        if let motion { return .failure(motion) }
        guard rates.count >= 10 else {
            return .failure(CalibrationError(.noSamples, "only \(rates.count) gyroscope samples arrived"))
        }
        let n = Double(rates.count)
        let bias = sum / n
        var variance = Vector3.zero
        for w in rates { let d = w - bias; variance += d * d }
        guard bias.length <= parameters.maximumBiasRadS else {
            return .failure(
                CalibrationError(
                    .implausibleOffset,
                    "bias \(fmt(Angle.degrees(fromRadians: bias.length), 1)) °/s exceeds "
                        + "\(fmt(Angle.degrees(fromRadians: parameters.maximumBiasRadS), 0)) °/s: the board was turning, or the chip is faulty"
                ))
        }
        let duration = elapsedS
        var allan: AllanDeviation?
        if duration >= parameters.allanMinimumDurationS - 1e-9, rates.count > 1 {
            allan = AllanDeviation.compute(samples: rates, sampleIntervalS: duration / Double(rates.count - 1))
        }
        return .success(
            Result(
                biasRadS: bias, noiseRMSRadS: (variance / n).squareRoot(), allan: allan,
                durationS: duration, samples: rates.count,
                temperatureC: temperatureCount > 0 ? temperatureSumC / Double(temperatureCount) : nil))
    }
}
