import LodestoneCore

/// What the barometer is calibrated against.
public enum BarometerReference: Sendable, Hashable, Codable {
    /// A known altitude above mean sea level (m) and the current QNH (sea-level pressure, Pa, e.g. from the
    /// nearest airport's METAR): the expected pressure is the ISA pressure at that altitude over that QNH, and
    /// the offset is the sensor's own error.
    case altitudeAndQNH(altitudeMSLM: Double, qnhPa: Double)
    /// A known altitude alone: the expected pressure is the ISA pressure at that altitude over the standard
    /// 1013.25 hPa, so the offset also holds today's weather. Barometric altitude then reads the known altitude
    /// now and drifts with the weather (a few hPa, tens of metres, per day).
    case altitude(altitudeMSLM: Double)

    /// The altitude given, m above MSL.
    public var altitudeMSLM: Double {
        switch self {
        case .altitudeAndQNH(let a, _), .altitude(let a): a
        }
    }

    /// The QNH given, Pa, if any.
    public var qnhPa: Double? {
        if case .altitudeAndQNH(_, let q) = self { return q }
        return nil
    }
}

/// Barometer offset from a known altitude (and QNH): the mean pressure over a still capture minus the
/// pressure expected there. The expected pressure (ISA, ISO 2533) is computed by the caller and passed in,
/// so this stays free of atmosphere models.
public struct BarometerSession: Sendable {
    /// Settings, with their defaults.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Capture length, s. Default 10 s.
        public var durationS = 10.0
        /// Largest standard deviation of the pressure during the capture, Pa (≈ 1 m of height; the BMP280's
        /// noise is 1.3 Pa). Default 12 Pa.
        public var maximumSpreadPa = 12.0
        /// Largest offset with altitude and QNH: a sensor error (BMP280 absolute accuracy ±100 Pa). Default 500 Pa.
        public var maximumSensorOffsetPa = 500.0
        /// Largest offset with an altitude alone: weather plus sensor error. Default 6000 Pa.
        public var maximumWeatherOffsetPa = 6000.0
        public init() {}
    }

    /// The result.
    public struct Result: Sendable, Hashable {
        /// Subtract from every reading, Pa.
        public var offsetPa: Double
        public var reference: BarometerReference
        /// Pressure expected at the reference, and measured (mean), Pa.
        public var expectedPressurePa: Double
        public var measuredPressurePa: Double
        /// Standard deviation of the readings, Pa.
        public var noisePa: Double
        public var durationS: Double
        public var samples: Int
        public var temperatureC: Double?
    }

    public let parameters: Parameters
    private var firstTimeS: Double?
    public private(set) var lastTimeS = 0.0
    private var count = 0
    private var mean = 0.0
    private var m2 = 0.0
    private var temperatureSumC = 0.0
    private var temperatureCount = 0

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Seconds captured so far.
    public var elapsedS: Double { firstTimeS.map { lastTimeS - $0 } ?? 0 }
    public var isComplete: Bool { elapsedS >= parameters.durationS }

    /// Adds a reading (Welford's running mean and variance; allocation-free).
    public mutating func add(timeS: Double, pressurePa: Double, temperatureC: Double? = nil) {
        guard !isComplete, pressurePa.isFinite else { return }
        if firstTimeS == nil { firstTimeS = timeS }
        lastTimeS = timeS
        count += 1
        let d = pressurePa - mean
        mean += d / Double(count)
        m2 += d * (pressurePa - mean)
        if let t = temperatureC, t.isFinite { temperatureSumC += t; temperatureCount += 1 }
    }

    /// The offset against `reference`, whose expected pressure is `expectedPressurePa`; or why not.
    public func finish(reference: BarometerReference, expectedPressurePa: Double) -> Swift.Result<Result, CalibrationError> {
        guard count >= 5 else { return .failure(CalibrationError(.noSamples, "only \(count) pressure samples arrived")) }
        let spread = (m2 / Double(count)).squareRoot()
        guard spread <= parameters.maximumSpreadPa else {
            return .failure(
                CalibrationError(
                    .pressureUnstable,
                    "the pressure varied by \(fmt(spread, 1)) Pa RMS (limit \(fmt(parameters.maximumSpreadPa, 0)) Pa)"))
        }
        let offset = mean - expectedPressurePa
        let limit = reference.qnhPa == nil ? parameters.maximumWeatherOffsetPa : parameters.maximumSensorOffsetPa
        guard abs(offset) <= limit else {
            return .failure(
                CalibrationError(
                    .implausibleOffset,
                    "measured \(fmt(mean / 100, 2)) hPa where \(fmt(expectedPressurePa / 100, 2)) hPa "
                        + "is expected: offset \(fmt(offset / 100, 2)) hPa (limit \(fmt(limit / 100, 0)) hPa)"))
        }
        return .success(
            Result(
                offsetPa: offset, reference: reference, expectedPressurePa: expectedPressurePa,
                measuredPressurePa: mean, noisePa: spread, durationS: elapsedS, samples: count,
                temperatureC: temperatureCount > 0 ? temperatureSumC / Double(temperatureCount) : nil))
    }
}
