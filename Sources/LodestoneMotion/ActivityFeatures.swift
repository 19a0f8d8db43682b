import LodestoneCore
import RealModule

/// The activity classifier's input: 36 numbers describing the last 5 s of motion, computed every second.
///
/// Built to be independent of how the board is mounted or carried and of how the data were sampled:
/// - The accelerometer is first **clipped at ±2 g per axis** (`clipMps2`): many boards run their IMU at ±2 g
///   and one training source clips there, so no feature may depend on what lies beyond.
/// - Samples are averaged into **20 Hz bins** on the `SampleTimeline` (empty bins hold the last value, as
///   event-driven phone logs do), so 20 Hz phones, 59 Hz thigh sensors and 100–400 Hz boards look alike.
/// - **Held values are not signal.** An event-driven logger reports a value only now and then (the TMD phones
///   every 0.3 s on median, even while walking) and a recording put on a fixed grid repeats it in between. A
///   sample that repeats the previous one exactly (all three axes) is no new measurement; bins without one are
///   filled, inside each window, by linear interpolation between the measurements around them (the bins after
///   the last measurement hold it). The steps of a held staircase would otherwise read as broadband vibration
///   (a still phone looking like a car). `accFreshFraction` says how much of the window was measured, so the
///   model can tell a sparse log from a dense sensor.
/// - Every feature is invariant to rotating the board: magnitudes, components along and across the window's
///   mean specific force (gravity), spectra and autocorrelations of scalars, the angle of the specific force
///   from its mean (tilt). The gyroscope enters only through scale-free shapes (periodicity, spectral entropy,
///   coefficient of variation, correlation, the share about the vertical), because gyroscope scales differ
///   between sources by up to 8×.
/// - Logarithms of amplitudes have a floor (`amplitudeFloorMps2`, 0.05 m/s²) above sensor noise, so a
///   perfectly still logged value and a noisy still sensor give the same number.
///
/// Allocation-free after `init`: all buffers are fixed, and the feature vector is rewritten in place.
public struct ActivityFeatures: Sendable {
    /// Feature names, in order: the contract with a trained `ActivityModel`.
    public static let names: [String] = [
        "accVerticalLogStd", "accHorizontalLogRMS", "accMagnitudeLogStd", "accMagnitudeLogRange90",
        "accMagnitudeSkewness", "accMagnitudeLogKurtosis",
        "accBand0.2-0.7Hz", "accBand0.7-1.3Hz", "accBand1.3-2.0Hz", "accBand2.0-2.8Hz", "accBand2.8-4.0Hz",
        "accBand4.0-6.0Hz", "accBand6.0-10Hz", "accSpectralEntropy",
        "accPeriodicity", "accPeriodS", "accAutocorrDoublePeriod", "accAutocorrHalfPeriod",
        "tiltLogStdDeg", "tiltAutocorrAtPeriod", "tiltAutocorrDoublePeriod", "tiltPeriodicity", "tiltSpectralEntropy",
        "accJerkRatio", "accHorizontalSustainedLogRMS", "accVerticalSustainedLogRMS",
        "accFreshFraction", "accMagnitudeLowG", "tiltPerAmplitude",
        "gyroPresent", "gyroAutocorrAtPeriod", "gyroPeriodicity", "gyroSpectralEntropy", "gyroLogVariation",
        "gyroAccCorrelation", "gyroVerticalShare"
    ]

    /// Indices of the features that describe the shape of the motion rather than its amplitude.
    static let shapeFeatureIndices: [Int] = Array(4...23) + [28] + Array(30...35)

    /// Bin rate, Hz.
    public static let binRateHz = 20.0
    /// Window length in bins (5 s) and hop between windows in bins (1 s).
    public static let windowBins = 100
    public static let hopBins = 20
    /// Frequency bands of the spectral fractions, Hz (lower bound inclusive, upper exclusive).
    static let bandsHz: [(Double, Double)] = [
        (0.2, 0.7), (0.7, 1.3), (1.3, 2.0), (2.0, 2.8), (2.8, 4.0), (4.0, 6.0), (6.0, 10.01)
    ]
    /// Autocorrelation lags searched for the step or pedal period: 5…32 bins (0.25–1.6 s); lags kept: 1…50.
    static let periodLags = 5...32
    static let maximumLag = 50

    /// What can be tuned (the model is trained with the defaults; change them and retrain).
    public struct Parameters: Sendable, Hashable, Codable {
        /// Accelerometer axes are clipped into ±this, m/s². Default 2 g = 19.6133.
        public var clipMps2 = 2 * PhysicalConstants.standardGravityMps2
        /// Floor added inside the logarithm of amplitudes, m/s². Default 0.05.
        public var amplitudeFloorMps2 = 0.05
        /// Empty bins hold the last value for at most this many bins; a longer gap restarts the window. Default 200 (10 s).
        public var maximumHoldBins = 200
        /// A gyroscope value is held for at most this many bins before the gyroscope counts as absent. Default 20 (1 s).
        public var maximumGyroscopeHoldBins = 20
        /// Below this standard deviation of |f| (m/s²) there is no motion to describe: the shape features
        /// (spectra, periods, skewness, tilt, jerk, gyroscope shapes) are NaN, and only amplitudes speak. The
        /// shape of sensor noise, or of a logger's hold-last-value steps, says nothing about the activity.
        /// Default 0.15 (a still board: < 0.05; a car's vibration: 0.2–1).
        public var minimumShapeAmplitudeMps2 = 0.15
        /// Whether held bins are interpolated between the measurements around them (default) or hold the last.
        public var interpolatesHeldValues = true

        /// The defaults.
        public init() {}
    }

    /// The settings.
    public let parameters: Parameters
    /// The latest feature vector (`names.count` numbers; NaN where a feature is absent, e.g. without a gyroscope).
    public private(set) var values: [Double]
    /// End of the window the latest vector describes, s on the timeline; `nil` before the first window.
    public private(set) var windowEndTimeS: Double?

    // Binning.
    private var timeline = SampleTimeline()
    private var currentBin: Int?
    private var accSum = Vector3.zero, accCount = 0
    private var gyroSum = Vector3.zero, gyroCount = 0
    private var lastAcc: Vector3?
    private var lastGyro: Vector3?
    /// The latest raw samples, to tell a new measurement from a logger's repeat of the last one.
    private var lastRawAcc: Vector3?
    private var lastRawGyro: Vector3?
    /// Whether the open bin had a gyroscope sample at all (a repeat included: the gyroscope is there).
    private var gyroSeen = false
    private var binsSinceFreshAcc = 0, binsSinceFreshGyro = 0
    private var binsSinceGyro = Int.max / 2
    private var binsSinceWindow = 0
    private var accBins: FixedRing<Vector3>
    private var gyroBins: FixedRing<Vector3>
    private var gyroValid: FixedRing<Bool>
    /// Per bin: how many bins ago the last measurement was (0: this bin has one).
    private var accAge: FixedRing<Int>
    private var gyroAge: FixedRing<Int>

    // Work buffers (fixed size).
    private var a: [Vector3], w: [Vector3], measured: [Vector3]
    private var magnitude: [Double], vertical: [Double], tilt: [Double], angle: [Double], gyroMagnitude: [Double]
    private var sorted: [Double], centred: [Double], spectrum: [Double]
    private var autocorrelation: [Double], tiltAutocorrelation: [Double], gyroAutocorrelation: [Double]
    private let hann: [Double], cosTable: [Double], sinTable: [Double]

    /// A feature extractor with `parameters`.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        let n = Self.windowBins
        values = Array(repeating: .nan, count: Self.names.count)
        accBins = FixedRing(capacity: n, filler: .zero)
        gyroBins = FixedRing(capacity: n, filler: .zero)
        gyroValid = FixedRing(capacity: n, filler: false)
        accAge = FixedRing(capacity: n, filler: 0)
        gyroAge = FixedRing(capacity: n, filler: 0)
        a = Array(repeating: .zero, count: n)
        w = Array(repeating: .zero, count: n)
        measured = w
        magnitude = Array(repeating: 0, count: n)
        vertical = magnitude; tilt = magnitude; angle = magnitude; gyroMagnitude = magnitude
        sorted = magnitude; centred = magnitude
        spectrum = Array(repeating: 0, count: n / 2 + 1)
        autocorrelation = Array(repeating: 0, count: Self.maximumLag + 1)
        tiltAutocorrelation = autocorrelation; gyroAutocorrelation = autocorrelation
        // numpy.hanning: 0.5 − 0.5·cos(2πi/(N−1)).
        hann = (0..<n).map { 0.5 - 0.5 * Double.cos(2 * Double.pi * Double($0) / Double(n - 1)) }
        var c: [Double] = [], s: [Double] = []
        for k in 0...(n / 2) {
            for i in 0..<n {
                let phase = 2 * Double.pi * Double(k * i % n) / Double(n)
                c.append(Double.cos(phase))
                s.append(Double.sin(phase))
            }
        }
        cosTable = c
        sinTable = s
    }

    /// Adds one accelerometer sample (specific force, board axes, m/s²) with the gyroscope's rate (rad/s) when
    /// the same sample has one. Returns true when a new feature vector is ready in `values`.
    public mutating func add(specificForceMps2 f: Vector3, angularVelocityRadS gyro: Vector3?, timeS: Double) -> Bool {
        guard f.x.isFinite, f.y.isFinite, f.z.isFinite, timeS.isFinite else { return false }
        let tau = timeline.place(reportedTimeS: timeS)
        let bin = Int((tau * Self.binRateHz).rounded(.down))
        var ready = false
        if let current = currentBin, bin != current {
            if bin < current || bin - current > parameters.maximumHoldBins {
                restart()
            } else {
                ready = closeBins(through: bin - 1)
            }
        }
        if currentBin == nil { currentBin = bin }
        let clip = parameters.clipMps2
        if f != lastRawAcc {
            accSum += Vector3(min(max(f.x, -clip), clip), min(max(f.y, -clip), clip), min(max(f.z, -clip), clip))
            accCount += 1
            lastRawAcc = f
        }
        if let g = gyro, g.x.isFinite, g.y.isFinite, g.z.isFinite {
            gyroSeen = true
            if g != lastRawGyro {
                gyroSum += g
                gyroCount += 1
                lastRawGyro = g
            }
        }
        return ready
    }

    /// Forgets everything (a gap in the data).
    public mutating func restart() {
        currentBin = nil
        accSum = .zero; accCount = 0; gyroSum = .zero; gyroCount = 0; gyroSeen = false
        lastAcc = nil; lastGyro = nil; lastRawAcc = nil; lastRawGyro = nil
        binsSinceFreshAcc = 0; binsSinceFreshGyro = 0
        binsSinceGyro = Int.max / 2
        binsSinceWindow = 0
        accBins.removeAll(); gyroBins.removeAll(); gyroValid.removeAll(); accAge.removeAll(); gyroAge.removeAll()
    }

    /// Closes the current bin and the empty ones after it up to `last`; computes a window when due.
    private mutating func closeBins(through last: Int) -> Bool {
        guard let first = currentBin else { return false }
        var ready = false
        for bin in first...last {
            if bin == first, accCount > 0 {
                lastAcc = accSum / Double(accCount)
                binsSinceFreshAcc = 0
            } else {
                binsSinceFreshAcc += 1
            }
            if bin == first, gyroCount > 0 {
                lastGyro = gyroSum / Double(gyroCount)
                binsSinceFreshGyro = 0
            } else {
                binsSinceFreshGyro += 1
            }
            if bin == first, gyroSeen {
                binsSinceGyro = 0
            } else {
                binsSinceGyro += 1
            }
            guard let acc = lastAcc else { continue }
            accBins.append(acc)
            accAge.append(binsSinceFreshAcc)
            let gyroOK = lastGyro != nil && binsSinceGyro <= parameters.maximumGyroscopeHoldBins
            gyroBins.append(gyroOK ? lastGyro ?? .zero : .zero)
            gyroAge.append(gyroOK ? binsSinceFreshGyro : 0)
            gyroValid.append(gyroOK)
            binsSinceWindow += 1
            if accBins.isFull, binsSinceWindow >= Self.hopBins {
                binsSinceWindow = 0
                compute()
                windowEndTimeS = Double(bin + 1) / Self.binRateHz
                ready = true
            }
        }
        accSum = .zero; accCount = 0; gyroSum = .zero; gyroCount = 0; gyroSeen = false
        currentBin = last + 1
        return ready
    }

    // MARK: - Features of one window

    private mutating func compute() {
        let n = Self.windowBins
        let eps = parameters.amplitudeFloorMps2
        var gyroPresent = true
        var mean = Vector3.zero
        var fresh = 0
        for i in 0..<n {
            if !gyroValid[i] { gyroPresent = false }
            if accAge[i] == 0 { fresh += 1 }
        }
        Self.interpolateHeld(accBins, ages: accAge, interpolating: parameters.interpolatesHeldValues, into: &measured)
        Self.interpolateHeld(gyroBins, ages: gyroAge, interpolating: parameters.interpolatesHeldValues, into: &w)
        for i in 0..<n {
            a[i] = measured[i]
            mean += a[i]
        }
        mean /= Double(n)
        let g = mean.length
        let up = g > 1e-9 ? mean / g : Vector3(0, 0, 1)
        var horizontalSquares = 0.0
        for i in 0..<n {
            let along = a[i].dot(up)
            vertical[i] = along - g
            let h = a[i] - along * up
            horizontalSquares += h.dot(h)
            magnitude[i] = a[i].length
        }
        var k = 0
        values[k] = Double.log(standardDeviation(vertical) + eps); k += 1
        values[k] = Double.log((horizontalSquares / Double(n)).squareRoot() + eps); k += 1
        let magnitudeStd = standardDeviation(magnitude)
        let accMagnitudeLogStd = Double.log(magnitudeStd + eps)
        values[k] = accMagnitudeLogStd; k += 1
        // Sorted once for the three percentiles of |f| (the 5th is used again below); `magnitude` does not change.
        sortMagnitude()
        let magnitudeP5 = sortedPercentile(5)
        values[k] = Double.log(sortedPercentile(95) - magnitudeP5 + eps); k += 1
        let magnitudeMean = average(magnitude)
        if magnitudeStd < eps {
            values[k] = 0; values[k + 1] = Double.log(3.0)
        } else {
            var m3 = 0.0, m4 = 0.0
            for i in 0..<n {
                let z = (magnitude[i] - magnitudeMean) / magnitudeStd
                m3 += z * z * z
                m4 += z * z * z * z
            }
            values[k] = m3 / Double(n)
            values[k + 1] = Double.log(m4 / Double(n))
        }
        k += 2
        let (accEntropy, _) = spectralShape(of: magnitude, bandsInto: k)
        k += Self.bandsHz.count
        values[k] = accEntropy; k += 1
        Self.autocorrelate(magnitude, into: &autocorrelation, centred: &centred)
        var lag = Self.periodLags.lowerBound
        for l in Self.periodLags where autocorrelation[l] > autocorrelation[lag] { lag = l }
        values[k] = autocorrelation[lag]; k += 1
        values[k] = Double(lag) / Self.binRateHz; k += 1
        values[k] = autocorrelation[min(2 * lag, Self.maximumLag)]; k += 1
        values[k] = autocorrelation[lag / 2]; k += 1

        // Tilt: the direction of the specific force, its angle from the mean and its main axis of variation.
        var directionMean = Vector3.zero
        for i in 0..<n {
            let d = magnitude[i] > 1e-6 ? a[i] / magnitude[i] : up
            a[i] = d // a now holds unit directions
            directionMean += d
            angle[i] = Angle.degrees(fromRadians: Double.acos(min(1, max(-1, d.dot(up)))))
        }
        directionMean /= Double(n)
        var sxx = 0.0, sxy = 0.0, sxz = 0.0, syy = 0.0, syz = 0.0, szz = 0.0
        for i in 0..<n {
            let d = a[i] - directionMean
            sxx += d.x * d.x; sxy += d.x * d.y; sxz += d.x * d.z
            syy += d.y * d.y; syz += d.y * d.z; szz += d.z * d.z
        }
        let axis = Self.principalAxis(Matrix3(rows: Vector3(sxx, sxy, sxz), Vector3(sxy, syy, syz), Vector3(sxz, syz, szz)))
        for i in 0..<n { tilt[i] = (a[i] - directionMean).dot(axis) }
        let tiltLogStdDeg = Double.log(standardDeviation(angle) + 0.2)
        values[k] = tiltLogStdDeg; k += 1
        Self.autocorrelate(tilt, into: &tiltAutocorrelation, centred: &centred)
        values[k] = tiltAutocorrelation[lag]; k += 1
        values[k] = tiltAutocorrelation[min(2 * lag, Self.maximumLag)]; k += 1
        var tiltPeak = -Double.infinity
        for l in Self.periodLags { tiltPeak = max(tiltPeak, tiltAutocorrelation[l]) }
        values[k] = tiltPeak; k += 1
        values[k] = spectralShape(of: tilt, bandsInto: nil).entropy; k += 1

        // Jerk relative to amplitude (impacts vs smooth motion), sustained accelerations (1 s block means).
        var jerk = 0.0
        for i in 1..<n { jerk += (measured[i] - measured[i - 1]).length }
        jerk *= Self.binRateHz / Double(n - 1)
        values[k] = Double.log(jerk + eps) - Double.log(magnitudeStd + eps); k += 1
        let blocks = n / Self.hopBins
        var horizontalBlocks = 0.0, verticalBlocks = 0.0
        for b in 0..<blocks {
            var h = Vector3.zero, v = 0.0
            for i in (b * Self.hopBins)..<((b + 1) * Self.hopBins) {
                let acc = measured[i]
                let along = acc.dot(up)
                h += acc - along * up
                v += vertical[i]
            }
            h /= Double(Self.hopBins)
            v /= Double(Self.hopBins)
            horizontalBlocks += h.dot(h)
            verticalBlocks += v * v
        }
        values[k] = Double.log((horizontalBlocks / Double(blocks)).squareRoot() + eps); k += 1
        values[k] = Double.log((verticalBlocks / Double(blocks)).squareRoot() + eps); k += 1

        // How much of the window was measured; how close |f| came to free fall (a runner's flight phase: about
        // 0 g whatever the placement, a walker's lowest about 0.6 g); tilt per amplitude (a pedalling thigh turns
        // much and hits little, a walking one hits hard).
        values[k] = Double(fresh) / Double(n); k += 1
        values[k] = magnitudeP5 / max(g, 1e-6); k += 1
        values[k] = tiltLogStdDeg - accMagnitudeLogStd; k += 1

        // Gyroscope: scale-free shapes only.
        defer {
            if magnitudeStd < parameters.minimumShapeAmplitudeMps2 {
                for i in Self.shapeFeatureIndices { values[i] = .nan }
            }
        }
        guard gyroPresent else {
            values[k] = 0; k += 1
            while k < values.count { values[k] = .nan; k += 1 }
            return
        }
        values[k] = 1; k += 1
        var aboutVertical = 0.0, total = 0.0
        for i in 0..<n {
            gyroMagnitude[i] = w[i].length
            aboutVertical += abs(w[i].dot(up))
            total += gyroMagnitude[i]
        }
        Self.autocorrelate(gyroMagnitude, into: &gyroAutocorrelation, centred: &centred)
        values[k] = gyroAutocorrelation[lag]; k += 1
        var gyroPeak = -Double.infinity
        for l in Self.periodLags { gyroPeak = max(gyroPeak, gyroAutocorrelation[l]) }
        values[k] = gyroPeak; k += 1
        values[k] = spectralShape(of: gyroMagnitude, bandsInto: nil).entropy; k += 1
        let gyroMean = total / Double(n)
        let gyroStd = standardDeviation(gyroMagnitude)
        values[k] = Double.log(gyroStd / (gyroMean + 1e-3) + 0.01); k += 1
        values[k] = Self.correlation(gyroMagnitude, magnitude); k += 1
        values[k] = aboutVertical / (total + 1e-3); k += 1
    }

    // MARK: - Helpers (no allocation)

    /// Writes `bins` into `out`, a held bin (age > 0: it repeats the measurement `age` bins before it) replaced by
    /// the straight line from that measurement to the next measured bin of the window; bins after the window's
    /// last measurement keep holding it.
    private static func interpolateHeld(
        _ bins: FixedRing<Vector3>, ages: FixedRing<Int>, interpolating: Bool, into out: inout [Vector3]
    ) {
        var next = -1
        var i = bins.count - 1
        while i >= 0 {
            let age = ages[i]
            if age == 0 {
                next = i
                out[i] = bins[i]
            } else if next < 0 || !interpolating {
                out[i] = bins[i]
            } else {
                let start = i - age
                out[i] = bins[i] + (bins[next] - bins[i]) * (Double(i - start) / Double(next - start))
            }
            i -= 1
        }
    }

    private func average(_ x: [Double]) -> Double {
        var s = 0.0
        for v in x { s += v }
        return s / Double(x.count)
    }

    /// Population standard deviation (numpy's default).
    private func standardDeviation(_ x: [Double]) -> Double {
        let m = average(x)
        var s = 0.0
        for v in x { s += (v - m) * (v - m) }
        return (s / Double(x.count)).squareRoot()
    }

    /// Copies `magnitude` into `sorted` and sorts it (insertion sort: 100 values, no allocation).
    private mutating func sortMagnitude() {
        for i in magnitude.indices { sorted[i] = magnitude[i] }
        for i in 1..<sorted.count {
            let v = sorted[i]
            var j = i - 1
            while j >= 0 && sorted[j] > v { sorted[j + 1] = sorted[j]; j -= 1 }
            sorted[j + 1] = v
        }
    }

    /// Percentile `q` of the values `sortMagnitude()` sorted, with linear interpolation between order statistics
    /// (numpy's default).
    private func sortedPercentile(_ q: Double) -> Double {
        let position = q / 100 * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
    }

    /// Writes the band fractions of `x`'s Hann-windowed power spectrum into `values[start...]` (when given) and
    /// returns the normalised spectral entropy and the dominant frequency (Hz). DC is left out.
    private mutating func spectralShape(of x: [Double], bandsInto start: Int?) -> (entropy: Double, peakHz: Double) {
        let n = x.count
        let m = average(x)
        var total = 0.0
        var peak = 1
        for k in 0...(n / 2) {
            var re = 0.0, im = 0.0
            let row = k * n
            for i in 0..<n {
                let v = (x[i] - m) * hann[i]
                re += v * cosTable[row + i]
                im -= v * sinTable[row + i]
            }
            spectrum[k] = re * re + im * im
            if k >= 1 {
                total += spectrum[k]
                if spectrum[k] > spectrum[peak] { peak = k }
            }
        }
        total += 1e-12
        let resolutionHz = Self.binRateHz / Double(n)
        if let start {
            for (b, band) in Self.bandsHz.enumerated() {
                var s = 0.0
                for k in 1...(n / 2) {
                    let f = Double(k) * resolutionHz
                    if f >= band.0 && f < band.1 { s += spectrum[k] }
                }
                values[start + b] = s / total
            }
        }
        var entropy = 0.0
        for k in 1...(n / 2) {
            let p = spectrum[k] / total
            entropy -= p * Double.log(p + 1e-12)
        }
        return (entropy / Double.log(Double(n / 2)), Double(peak) * resolutionHz)
    }

    /// Normalised autocorrelation r[L] = Σ x̃ᵢ x̃ᵢ₊L / Σ x̃ᵢ² (x̃ = x − mean) for L = 1…`maximumLag`; r[0] unused.
    private static func autocorrelate(_ x: [Double], into r: inout [Double], centred: inout [Double]) {
        let n = x.count
        var m = 0.0
        for v in x { m += v }
        m /= Double(n)
        var energy = 1e-12
        for i in 0..<n {
            centred[i] = x[i] - m
            energy += centred[i] * centred[i]
        }
        r[0] = 1
        for lag in 1...maximumLag {
            var s = 0.0
            for i in 0..<(n - lag) { s += centred[i] * centred[i + lag] }
            r[lag] = s / energy
        }
    }

    /// Pearson correlation of two series; 0 when either is constant.
    private static func correlation(_ x: [Double], _ y: [Double]) -> Double {
        let n = Double(x.count)
        var mx = 0.0, my = 0.0
        for i in x.indices { mx += x[i]; my += y[i] }
        mx /= n; my /= n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for i in x.indices {
            sxy += (x[i] - mx) * (y[i] - my)
            sxx += (x[i] - mx) * (x[i] - mx)
            syy += (y[i] - my) * (y[i] - my)
        }
        guard sxx > 1e-12, syy > 1e-12 else { return 0 }
        return sxy / (sxx * syy).squareRoot()
    }

    /// The eigenvector of the largest eigenvalue of a symmetric positive semi-definite 3×3 matrix, by power
    /// iteration from the column of largest norm (any unit vector when the matrix is zero).
    static func principalAxis(_ s: Matrix3) -> Vector3 {
        var v = s.row0
        if s.row1.dot(s.row1) > v.dot(v) { v = s.row1 }
        if s.row2.dot(s.row2) > v.dot(v) { v = s.row2 }
        guard var u = v.normalized else { return Vector3(1, 0, 0) }
        for _ in 0..<40 {
            guard let next = (s * u).normalized else { break }
            u = next
        }
        return u
    }
}
