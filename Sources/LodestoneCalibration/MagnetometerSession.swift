import LodestoneCore
import LodestoneGeomagnetism
import RealModule

/// The Earth's field where and when the board is, from the World Magnetic Model: what a calibrated
/// magnetometer should measure.
public struct ExpectedField: Sendable, Hashable, Codable {
    /// Total intensity F, µT.
    public var strengthMicroTesla: Double
    /// Inclination (dip) I, degrees, positive down.
    public var inclinationDeg: Double
    /// Declination D, degrees east of true north.
    public var declinationDeg: Double
    /// Where and when: geodetic latitude and longitude (deg, WGS84), height above the ellipsoid (m), decimal year.
    public var latitudeDeg: Double
    public var longitudeDeg: Double
    public var heightM: Double
    public var decimalYear: Double

    /// The WMM2025 field at a position and date; `nil` outside the model's validity (dates, heights).
    public static func worldMagneticModel(
        latitudeDeg: Double, longitudeDeg: Double, heightM: Double,
        decimalYear: Double
    ) -> ExpectedField? {
        guard
            let e = try? WorldMagneticModel.wmm2025.elements(
                latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg,
                heightKm: heightM / 1000, decimalYear: decimalYear)
        else { return nil }
        return ExpectedField(
            strengthMicroTesla: e.totalNT / 1000, inclinationDeg: e.inclinationDeg,
            declinationDeg: e.declinationDeg, latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg,
            heightM: heightM, decimalYear: decimalYear)
    }
}

/// A guided magnetometer calibration in progress, for one sensor: it collects samples while the person turns
/// the board, keeps the sphere coverage up to date, refits on request, and at the end checks the fit and
/// grades it (or names why it failed).
///
/// `add` is the per-sample path and allocates nothing: the sample stores are reserved at `init` and, when
/// full, thinned in place (every other sample dropped). `refit` and `finish` allocate (they are called once a
/// second and once).
public struct MagnetometerSession: Sendable {
    /// Limits and thresholds, with their defaults (ArduPilot's compass calibrator uses the same kind of
    /// figures: a fitness in mG, an offset limit of 1800 mG, a field-strength check against the WMM).
    public struct Parameters: Sendable, Hashable, Codable {
        /// Most samples kept for the fit. Default 6000 (150 s at 40 Hz).
        public var maximumSamples = 6000
        /// A sample is kept only when it differs from the last kept one by at least this, µT, so a board
        /// held still does not flood the fit with one direction. Default 1.0 µT (3× the LIS3MDL's noise).
        public var minimumSpacingMicroTesla = 1.0
        /// Fewest kept samples for a result. Default 150.
        public var minimumSamples = 150
        /// Coverage at which the session is complete (and the least for a "good" grade), 0…1. Default 0.9.
        public var goodCoverage = 0.9
        /// Least coverage for an "acceptable" grade. Default 0.75.
        public var acceptableCoverage = 0.75
        /// Fit residual (RMS, µT) for "good" and the most for "acceptable". Defaults 1.0 and 1.6 µT.
        public var goodResidualMicroTesla = 1.0
        public var acceptableResidualMicroTesla = 1.6
        /// The Earth's field strength anywhere on the surface is within this, µT (WMM: about 22–67 µT),
        /// with room for sensor scale error. Default 15…95 µT.
        public var fieldRangeMicroTesla: ClosedRange<Double> = 15...95
        /// Relative deviation from the WMM's strength for "good" and the most for "acceptable". Defaults 0.10, 0.30.
        public var goodFieldTolerance = 0.10
        public var acceptableFieldTolerance = 0.30
        /// Largest hard iron, µT (ArduPilot COMPASS_OFFS_MAX: 1800 mG). Default 180 µT.
        public var maximumHardIronMicroTesla = 180.0
        /// Largest ratio between the soft-iron correction's largest and smallest stretch. Default 2.
        public var maximumSoftIronAxisRatio = 2.0
        /// Largest share of samples off the fit (outliers) before the field is taken to have changed during
        /// the session. Default 0.1.
        public var maximumOutlierFraction = 0.1
        /// The fit's own settings.
        public var fit = EllipsoidFit.Parameters()
        /// The mounting check's settings.
        public var mounting = MountingCheck.Parameters()
        public init() {}
    }

    /// A successful calibration and its quality figures.
    public struct Result: Sendable, Hashable {
        public var fit: EllipsoidFit
        public var grade: CalibrationGrade
        /// Covered fraction of the sphere, 0…1, with the final fit.
        public var coverage: SphereCoverage
        /// Samples delivered, and kept for the fit.
        public var delivered: Int
        public var kept: Int
        /// The WMM's field, when the position was known.
        public var expected: ExpectedField?
        /// (fitted − expected) / expected, when known.
        public var fieldDeviation: Double?
        /// What the mounting check found.
        public var mounting: MountingCheck.Outcome
        /// Mean sensor temperature, °C, when the sensor reports one.
        public var temperatureC: Double?
        /// Things a person should know that did not make it fail (e.g. "field 14 % above the WMM").
        public var notes: [String]
    }

    public let parameters: Parameters
    /// Samples kept for the fit, µT (the sensor's axes as delivered: board axes).
    public private(set) var samples: [Vector3]
    /// Still moments: the field (raw, µT) and the accelerometer's up direction at the same instant.
    public private(set) var stillField: [Vector3]
    public private(set) var stillUp: [Vector3]
    /// Sphere coverage with the latest fit (empty until the first fit).
    public private(set) var coverage = SphereCoverage()
    /// The latest fit (`refit`), if any.
    public private(set) var fit: EllipsoidFit?
    /// Samples delivered so far.
    public private(set) var delivered = 0
    private var lastKept: Vector3?
    private var temperatureSumC = 0.0
    private var temperatureCount = 0

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        samples = []
        samples.reserveCapacity(parameters.maximumSamples)
        stillField = []
        stillField.reserveCapacity(parameters.maximumSamples)
        stillUp = []
        stillUp.reserveCapacity(parameters.maximumSamples)
    }

    /// Adds one sample: the field (µT, board axes), and the accelerometer's specific force at the same instant
    /// when the board is momentarily still (any length; only its direction is used), for the mounting check.
    public mutating func add(fieldMicroTesla m: Vector3, stillUp up: Vector3? = nil, temperatureC: Double? = nil) {
        guard m.x.isFinite, m.y.isFinite, m.z.isFinite else { return }
        delivered += 1
        if let t = temperatureC, t.isFinite { temperatureSumC += t; temperatureCount += 1 }
        if let last = lastKept, (m - last).length < parameters.minimumSpacingMicroTesla { return }
        if samples.count == parameters.maximumSamples { Self.thin(&samples) }
        samples.append(m)
        lastKept = m
        // Gravity pairs only with kept samples, so a long still start does not crowd out the turning.
        if let up {
            if stillField.count == parameters.maximumSamples {
                Self.thin(&stillField)
                Self.thin(&stillUp)
            }
            stillField.append(m)
            stillUp.append(up)
        }
        if let f = fit { coverage.insert(f.corrected(m)) }
    }

    /// Drops every other element in place (keeps capacity).
    private static func thin(_ a: inout [Vector3]) {
        var j = 0
        for i in stride(from: 0, to: a.count, by: 2) { a[j] = a[i]; j += 1 }
        a.removeLast(a.count - j)
    }

    /// Fits the samples so far (a sphere while there are fewer than 100) and recomputes the coverage with it.
    /// Leaves the previous fit in place when this one fails. This is the live view's fit: at most
    /// `liveFitSamples` samples evenly spread over those kept, one robust round, few iterations — the final
    /// fit (`finish`) uses every sample.
    public mutating func refit() {
        guard samples.count >= EllipsoidFit.minimumSamples else { return }
        var p = parameters.fit
        if samples.count < 100 { p.sphereOnly = true }
        p.robustRounds = 1
        p.maximumIterations = min(p.maximumIterations, 15)
        let stride = max(1, samples.count / Self.liveFitSamples)
        let subset = stride == 1 ? samples : Swift.stride(from: 0, to: samples.count, by: stride).map { samples[$0] }
        guard let f = try? EllipsoidFit.fit(subset, parameters: p), isPlausible(f) || samples.count < 100 else { return }
        fit = f
        coverage = Self.coverage(of: samples, with: f)
        complete = false
        // A fit of a short arc can place the centre badly and make the coverage look complete: before saying
        // so, confirm with the full fit of every sample, as `finish` will do.
        if coverage.fraction >= parameters.goodCoverage, samples.count >= parameters.minimumSamples,
            let full = try? EllipsoidFit.fit(samples, parameters: parameters.fit), isPlausible(full)
        {
            fit = full
            coverage = Self.coverage(of: samples, with: full)
            complete = coverage.fraction >= parameters.goodCoverage
        }
    }

    /// A fit that could be a calibration: field strength, hard iron and soft iron within the limits.
    private func isPlausible(_ f: EllipsoidFit) -> Bool {
        let stretch = SymmetricEigen3(f.softIronCorrection).values
        return parameters.fieldRangeMicroTesla.contains(f.fieldStrengthMicroTesla)
            && f.hardIronMicroTesla.length <= parameters.maximumHardIronMicroTesla
            && stretch.max() <= parameters.maximumSoftIronAxisRatio * stretch.min()
    }

    private static func coverage(of samples: [Vector3], with f: EllipsoidFit) -> SphereCoverage {
        var c = SphereCoverage()
        for s in samples { c.insert(f.corrected(s)) }
        return c
    }

    /// Most samples the live fit uses.
    public static let liveFitSamples = 400

    /// True when the coverage is good and there are enough samples: the session can stop.
    public var isComplete: Bool { complete }

    /// Set by `refit` once the full fit confirms the coverage.
    private var complete = false

    /// The final fit, its checks and grade — or why it failed.
    /// - Parameters:
    ///   - expected: the WMM's field at the board, when its position is known.
    ///   - timedOut: the session ended because its time ran out (a coverage shortfall is then `timedOut`).
    public func finish(expected: ExpectedField?, timedOut: Bool = false) -> Swift.Result<Result, CalibrationError> {
        let p = parameters
        guard delivered > 0 else { return .failure(CalibrationError(.noSamples, "no magnetometer sample arrived")) }
        guard samples.count >= EllipsoidFit.minimumSamples else {
            return .failure(
                CalibrationError(
                    timedOut ? .timedOut : .incompleteCoverage,
                    "only \(samples.count) distinct samples (the board hardly moved)"))
        }
        let f: EllipsoidFit
        do { f = try EllipsoidFit.fit(samples, parameters: p.fit) } catch {
            let detail =
                switch error {
                case .tooFewSamples(let n): "only \(n) usable samples"
                case .notAnEllipsoid: "the samples do not lie on an ellipsoid"
                case .didNotConverge: "the fit did not converge"
                }
            return .failure(CalibrationError(.fitFailed, detail))
        }
        let outlierShare = Double(f.outlierCount) / Double(samples.count)
        guard outlierShare <= p.maximumOutlierFraction else {
            return .failure(
                CalibrationError(
                    .residualTooHigh,
                    "\(fmt(outlierShare * 100, 0)) % of the samples lie more than "
                        + "\(fmt(f.outlierLimitMicroTesla, 1)) µT off the best ellipsoid: the field changed during the session"))
        }
        // Coverage about the ellipsoid's centre, over its inliers; and about a sphere's, which stays sensible
        // when samples that are not one ellipsoid pull the ellipsoid somewhere odd (the residual check below
        // then says so). The larger counts.
        var coverage = Self.coverage(of: samples.filter { f.isInlier($0) }, with: f)
        var sphereParameters = p.fit
        sphereParameters.sphereOnly = true
        if let sphere = try? EllipsoidFit.fit(samples, parameters: sphereParameters) {
            let c = Self.coverage(of: samples.filter { sphere.isInlier($0) }, with: sphere)
            if c.coveredCount > coverage.coveredCount { coverage = c }
        }
        let percent = Int((coverage.fraction * 100).rounded())
        guard coverage.fraction >= p.acceptableCoverage, samples.count >= p.minimumSamples else {
            let what =
                samples.count < p.minimumSamples
                ? "only \(samples.count) distinct samples (need \(p.minimumSamples)) and \(percent) % of directions covered"
                : "\(percent) % of directions covered (need \(Int(p.acceptableCoverage * 100)) %)"
            return .failure(CalibrationError(timedOut ? .timedOut : .incompleteCoverage, what))
        }
        guard f.residualMicroTesla <= p.acceptableResidualMicroTesla else {
            return .failure(
                CalibrationError(
                    .residualTooHigh,
                    "fit residual \(fmt(f.residualMicroTesla, 2)) µT exceeds \(fmt(p.acceptableResidualMicroTesla, 1)) µT"))
        }
        let strength = f.fieldStrengthMicroTesla
        guard p.fieldRangeMicroTesla.contains(strength) else {
            return .failure(
                CalibrationError(
                    .fieldOutOfRange,
                    "fitted field \(fmt(strength)) µT is outside "
                        + "\(fmt(p.fieldRangeMicroTesla.lowerBound, 0))–\(fmt(p.fieldRangeMicroTesla.upperBound, 0)) µT"))
        }
        let hard = f.hardIronMicroTesla.length
        guard hard <= p.maximumHardIronMicroTesla else {
            return .failure(
                CalibrationError(.hardIronTooLarge, "hard iron \(fmt(hard)) µT exceeds \(fmt(p.maximumHardIronMicroTesla, 0)) µT")
            )
        }
        let stretch = SymmetricEigen3(f.softIronCorrection).values
        let ratio = stretch.max() / max(stretch.min(), 1e-12)
        guard ratio <= p.maximumSoftIronAxisRatio else {
            return .failure(
                CalibrationError(
                    .softIronTooStrong,
                    "the correction stretches one axis \(fmt(ratio, 2))× another (limit \(fmt(p.maximumSoftIronAxisRatio, 1))×)"))
        }
        let mounting = MountingCheck.check(
            fieldMicroTesla: stillField.map { f.corrected($0) }, up: stillUp,
            expectedInclinationDeg: expected?.inclinationDeg, parameters: p.mounting)
        if case let .mistake(_, description, spread, corrected) = mounting {
            return .failure(
                CalibrationError(
                    .mountingMistake,
                    "the field's dip below the horizon swings by \(fmt(spread, 0))° as the "
                        + "board turns (\(fmt(corrected, 1))° with \(description)): \(description)"))
        }
        var deviation: Double?
        var notes: [String] = []
        if let e = expected {
            let d = (strength - e.strengthMicroTesla) / e.strengthMicroTesla
            deviation = d
            guard abs(d) <= p.acceptableFieldTolerance else {
                return .failure(
                    CalibrationError(
                        .fieldDisagreesWithModel,
                        "fitted field \(fmt(strength)) µT is \(fmt(abs(d) * 100, 0)) % "
                            + (d > 0 ? "above" : "below")
                            + " the WMM's \(fmt(e.strengthMicroTesla)) µT here (limit \(fmt(p.acceptableFieldTolerance * 100, 0)) %)"
                    ))
            }
            if abs(d) > p.goodFieldTolerance {
                notes.append(
                    "field \(fmt(abs(d) * 100, 0)) % " + (d > 0 ? "above" : "below")
                        + " the WMM's \(fmt(e.strengthMicroTesla)) µT")
            }
        } else {
            notes.append("field strength not compared with the WMM: position unknown (\(CalibrationFailure.givePosition))")
        }
        if case .notChecked(let why) = mounting { notes.append("mounting not checked: " + why) }
        if f.outlierCount > 0 { notes.append("\(f.outlierCount) outlying samples ignored") }
        let good =
            f.residualMicroTesla <= p.goodResidualMicroTesla && coverage.fraction >= p.goodCoverage
            && (deviation.map { abs($0) <= p.goodFieldTolerance } ?? true)
        return .success(
            Result(
                fit: f, grade: good ? .good : .acceptable, coverage: coverage, delivered: delivered,
                kept: samples.count, expected: expected, fieldDeviation: deviation, mounting: mounting,
                temperatureC: temperatureCount > 0 ? temperatureSumC / Double(temperatureCount) : nil,
                notes: notes))
    }
}

/// `value` with `digits` decimals, for messages (no Foundation here).
func fmt(_ value: Double, _ digits: Int = 1) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let n = (abs(value) * scale).rounded()
    guard n < 9e15 else { return "\(value)" }
    let whole = Int64(n) / Int64(scale), frac = Int64(n) % Int64(scale)
    var s = (value < 0 && n != 0 ? "-" : "") + String(whole)
    if digits > 0 {
        let f = String(frac)
        s += "." + String(repeating: "0", count: digits - f.count) + f
    }
    return s
}
