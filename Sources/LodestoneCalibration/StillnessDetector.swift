import LodestoneCore

/// Notices when the board is held still: over the last `windowS` seconds, the accelerometer's per-axis
/// standard deviation and (when there is a gyroscope) the rate's per-axis standard deviation and mean are
/// below their limits. Standard deviations rather than magnitudes so an unknown gyroscope bias or
/// accelerometer offset does not matter.
///
/// A fixed ring of samples (sized at `init`) holds the window; `add` recomputes the window's statistics from
/// it and allocates nothing.
public struct StillnessDetector: Sendable {
    /// Thresholds, with their defaults.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The window, s. Default 1 s.
        public var windowS = 1.0
        /// Largest per-axis standard deviation of the specific force in the window, m/s². Default 0.06 (3× the
        /// MPU-9250's 300 µg/√Hz over a 50 Hz bandwidth; a hand trembles at ≈ 0.1 and a table does not).
        public var accelerationSpreadMps2 = 0.06
        /// Largest per-axis standard deviation of the angular rate, rad/s. Default 0.01 (0.6 °/s).
        public var rateSpreadRadS = 0.01
        /// Largest per-axis mean angular rate, rad/s (room for a turn-on bias of a few °/s). Default 0.1.
        public var rateMeanRadS = 0.1
        /// Samples the ring holds: the window at the highest rate expected. Default 1024.
        public var capacity = 1024
        public init() {}
    }

    public let parameters: Parameters
    private var times: [Double]
    private var accelerations: [Vector3]
    private var rates: [Vector3?]
    private var head = 0
    private var count = 0
    /// Since when the board has been still (s), `nil` while it moves.
    public private(set) var stillSinceS: Double?
    /// Mean specific force (m/s²) and rate (rad/s) over the current window.
    public private(set) var meanAccelerationMps2 = Vector3.zero
    public private(set) var meanRateRadS: Vector3?
    /// Per-axis standard deviation of the specific force over the current window, m/s².
    public private(set) var accelerationSpreadMps2 = Vector3.zero
    /// Samples in the current window.
    public private(set) var windowCount = 0

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        let n = max(parameters.capacity, 2)
        times = [Double](repeating: 0, count: n)
        accelerations = [Vector3](repeating: .zero, count: n)
        rates = [Vector3?](repeating: nil, count: n)
    }

    /// Adds a sample (time s, specific force m/s², angular rate rad/s if there is a gyroscope) and returns
    /// whether the board is still over the last window. Allocation-free.
    @discardableResult
    public mutating func add(timeS: Double, accelerationMps2 a: Vector3, angularVelocityRadS w: Vector3?) -> Bool {
        let n = times.count
        let index = (head + count) % n
        if count == n { head = (head + 1) % n } else { count += 1 }
        times[index] = timeS
        accelerations[index] = a
        rates[index] = w
        // Drop samples older than the window.
        while count > 1, timeS - times[head] > parameters.windowS + 1e-9 {
            head = (head + 1) % n
            count -= 1
        }
        var sumA = Vector3.zero, sumW = Vector3.zero
        var withRate = 0
        for k in 0..<count {
            let i = (head + k) % n
            sumA += accelerations[i]
            if let r = rates[i] { sumW += r; withRate += 1 }
        }
        let meanA = sumA / Double(count)
        let meanW = withRate > 0 ? sumW / Double(withRate) : Vector3.zero
        var varA = Vector3.zero, varW = Vector3.zero
        for k in 0..<count {
            let i = (head + k) % n
            let d = accelerations[i] - meanA
            varA += d * d
            if let r = rates[i] { let e = r - meanW; varW += e * e }
        }
        let spreadA = (varA / Double(count)).squareRoot()
        let spreadW = withRate > 0 ? (varW / Double(withRate)).squareRoot() : Vector3.zero
        meanAccelerationMps2 = meanA
        meanRateRadS = withRate > 0 ? meanW : nil
        accelerationSpreadMps2 = spreadA
        windowCount = count
        let full = timeS - times[head] >= parameters.windowS * 0.9
        let still =
            full && spreadA.max() <= parameters.accelerationSpreadMps2
            && (withRate == 0
                || (spreadW.max() <= parameters.rateSpreadRadS && meanW.absoluteValues.max() <= parameters.rateMeanRadS))
        if still {
            if stillSinceS == nil { stillSinceS = times[head] }
        } else {
            stillSinceS = nil
        }
        return still
    }

    /// How long the board has been still, s (0 while it moves).
    public func stillDurationS(at timeS: Double) -> Double { stillSinceS.map { max(0, timeS - $0) } ?? 0 }
}
