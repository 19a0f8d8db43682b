import LodestoneCalibration
import LodestoneCore
import LodestoneEngine
import LodestoneSimulation

/// What one sensor's calibration came to.
struct SensorOutcome {
    /// A failure: the reason and what was measured, then what to do.
    static func failed(_ id: String, _ e: CalibrationError, _ style: CalibrationStyle) -> SensorOutcome {
        SensorOutcome(
            id: id, result: .failure(e),
            lines: [
                style.red("\(id): failed: \(e.reason)") + " — \(e.detail)",
                "  what to do: " + CommandLineWording.naming(e.reason.advice)
            ])
    }

    /// The board id.
    var id: String
    /// The entry to merge into the document (only the kind calibrated is set), or why it failed.
    var result: Result<SensorCalibration, CalibrationError>
    /// Lines for a person: the parameters and quality figures, or the failure and what to do.
    var lines: [String]
}

/// What the guides need to know about the session that is not in the samples.
struct GuideContext {
    var style: CalibrationStyle
    /// The document's time stamp, UTC.
    var date: String
    /// The WMM's field at the board, once its position is known.
    var expectedField: ExpectedField?
    /// Local gravity, m/s².
    var gravityMps2: Double
    /// The board's sensors as the board file has them, and the engine's label of each (bus, address).
    var board: BoardDescription
    var labels: [String: String]
    /// Barometer reference and the pressure expected there (ISA), when given.
    var barometerReference: BarometerReference?
    var expectedPressurePa: Double?

    /// A document entry for `id` with the board file's chip and mount.
    func entry(_ id: String) -> SensorCalibration {
        let s = board.sensors.first { $0.id == id }
        return SensorCalibration(id: id, chip: s?.chip ?? "unknown", identity: labels[id], mount: s?.mount ?? .identity)
    }
}

/// One kind of guided calibration: what to tell the person, what to do with each sample, what to show, and
/// what it all came to.
protocol CalibrationGuide {
    /// "Magnetometer calibration".
    var title: String { get }
    /// The board ids being calibrated.
    var sensors: [String] { get }
    /// What the person is asked to do, before the start.
    func intro(_ style: CalibrationStyle, context: GuideContext) -> [String]
    /// One reading of any sensor of the board (a guide picks what it needs).
    mutating func consume(sensor: String, reading: SensorReading)
    /// Periodic work (once a second of data): refits.
    mutating func tick()
    /// True when the session has what it needs (or can go no further, e.g. the board moved).
    var isComplete: Bool { get }
    /// The live view's lines.
    func screen(elapsedS: Double, context: GuideContext) -> [String]
    /// One line of progress for logs (non-interactive runs).
    func progressLine(elapsedS: Double) -> String
    /// The outcome per sensor.
    func finish(timedOut: Bool, elapsedS: Double, context: GuideContext) -> [SensorOutcome]
}

// MARK: - Magnetometer

/// Guided magnetometer calibration of every selected magnetometer at once (they turn together).
struct MagnetometerGuide: CalibrationGuide {
    let title = "Magnetometer calibration"
    let sensors: [String]
    private var sessions: [MagnetometerSession]
    /// The latest specific force from each sensor that has an accelerometer, with its time.
    private var latestAcceleration: [String: (timeS: Double, value: Vector3)] = [:]
    private var latestAnyAcceleration: (timeS: Double, value: Vector3)?
    private(set) var firstTimeS: Double?
    private(set) var lastTimeS = 0.0
    /// When the session became complete (s since start), for the "motion needed" figure.
    private(set) var completedAfterS: Double?

    init(sensors: [String], parameters: MagnetometerSession.Parameters = MagnetometerSession.Parameters()) {
        self.sensors = sensors
        sessions = sensors.map { _ in MagnetometerSession(parameters: parameters) }
    }

    func intro(_ style: CalibrationStyle, context: GuideContext) -> [String] {
        var lines = [
            style.bold("\(title) — \(context.board.name)") + " ("
                + sensors.map { "\($0): \(context.labels[$0] ?? $0)" }.joined(separator: ", ") + ")",
            "",
            "Take the board away from metal, magnets, motors and cables. Hold it in your hand and, once you",
            "press Enter, twirl it about itself while slowly turning it over, so that every edge and face",
            "points every way. The sphere fills in as you go; the session ends by itself when it is full."
        ]
        if let e = context.expectedField {
            lines.append(
                "Expected here (WMM2025): |B| \(formatFixed(e.strengthMicroTesla, digits: 1)) µT, dip \(formatFixed(e.inclinationDeg, digits: 0))°."
            )
        }
        return lines
    }

    mutating func consume(sensor: String, reading r: SensorReading) {
        let t = r.timeS
        if let a = r.accelerationMps2 {
            latestAcceleration[sensor] = (t, a)
            latestAnyAcceleration = (t, a)
        }
        guard let i = sensors.firstIndex(of: sensor), let m = r.magneticFieldMicroTesla else { return }
        if firstTimeS == nil { firstTimeS = t }
        lastTimeS = max(lastTimeS, t)
        // The accelerometer's up direction at the same instant, when the board is not accelerating (|a| ≈ g).
        var up: Vector3?
        if let a = latestAcceleration[sensor] ?? latestAnyAcceleration, abs(a.timeS - t) <= 0.03,
            abs(a.value.length - PhysicalConstants.standardGravityMps2) < 0.5
        {
            up = a.value
        }
        sessions[i].add(fieldMicroTesla: m, stillUp: up, temperatureC: r.temperatureC)
    }

    mutating func tick() {
        for i in sessions.indices { sessions[i].refit() }
        if completedAfterS == nil, isComplete, let first = firstTimeS { completedAfterS = lastTimeS - first }
    }

    var isComplete: Bool { !sessions.isEmpty && sessions.allSatisfy(\.isComplete) }

    /// The least-covered sensor's coverage (what the person still has to do).
    private var coverage: SphereCoverage {
        sessions.min { $0.coverage.coveredCount < $1.coverage.coveredCount }?.coverage ?? SphereCoverage()
    }

    func screen(elapsedS: Double, context: GuideContext) -> [String] {
        let s = context.style
        let c = coverage
        let goal = sessions.first?.parameters.goodCoverage ?? 0.9
        var lines = [s.bold("\(title) — \(context.board.name)") + "   " + formatFixed(elapsedS, digits: 1) + " s", ""]
        lines += s.sphere(c)
        lines.append("")
        lines.append(
            "coverage " + s.progressBar(c.fraction / goal) + "   \(c.coveredCount)/\(SphereCoverage.sectorCount) sectors")
        for (id, session) in zip(sensors, sessions) {
            var line = "  " + id.padded(6) + " samples " + String(session.samples.count).padded(5)
            if let f = session.fit {
                let r = f.residualMicroTesla
                line += " residual " + s.graded(formatFixed(r, digits: 2) + " µT", good: r <= 1.0, acceptable: r <= 1.6)
                line += "  |B| " + formatFixed(f.fieldStrengthMicroTesla, digits: 1) + " µT"
                line += "  hard iron " + formatVector(f.hardIronMicroTesla, digits: 1) + " µT"
            } else {
                line += " residual –"
            }
            lines.append(line)
        }
        lines.append("")
        if isComplete {
            lines.append(s.green("Done: every direction covered."))
        } else if let gap = c.largestGapDirection, c.coveredCount > 0 {
            let dip =
                context.expectedField.map { " (\(formatFixed($0.inclinationDeg, digits: 0))° below the horizon)" } ?? " and down"
            lines.append("Next: point " + s.bold(SphereCoverage.boardPart(toward: gap)) + " towards magnetic north" + dip + ".")
        } else {
            lines.append("Twirl the board and turn it over slowly.")
        }
        if !isComplete { lines.append(s.dim("Enter: finish now   q Enter: quit")) }
        return lines
    }

    func progressLine(elapsedS: Double) -> String {
        var line = "\(formatFixed(elapsedS, digits: 1)) s: coverage \(coverage.coveredCount)/\(SphereCoverage.sectorCount)"
        for (id, session) in zip(sensors, sessions) {
            line += ", \(id) \(session.samples.count) samples"
            if let f = session.fit { line += " residual \(formatFixed(f.residualMicroTesla, digits: 2)) µT" }
        }
        return line
    }

    func finish(timedOut: Bool, elapsedS: Double, context: GuideContext) -> [SensorOutcome] {
        let s = context.style
        return zip(sensors, sessions).map { id, session in
            switch session.finish(expected: context.expectedField, timedOut: timedOut) {
            case .failure(let e):
                return .failed(id, e, s)
            case .success(let r):
                var entry = context.entry(id)
                let mounting: String =
                    switch r.mounting {
                    case let .consistent(dip, spread):
                        "consistent with the accelerometer (dip \(formatFixed(dip, digits: 1))° ± \(formatFixed(spread, digits: 1))°)"
                    case .notChecked(let why): "not checked: " + why
                    case .mistake(_, let d, _, _): "mistake: " + d
                    }
                let motion = completedAfterS ?? elapsedS
                entry.magnetometer = MagnetometerCalibration(
                    date: context.date, temperatureC: r.temperatureC.map { ($0 * 10).rounded() / 10 }, grade: r.grade,
                    hardIronMicroTesla: r.fit.hardIronMicroTesla, softIronCorrection: r.fit.softIronCorrection,
                    fieldStrengthMicroTesla: r.fit.fieldStrengthMicroTesla,
                    expectedFieldMicroTesla: r.expected?.strengthMicroTesla,
                    latitudeDeg: r.expected?.latitudeDeg, longitudeDeg: r.expected?.longitudeDeg,
                    residualMicroTesla: r.fit.residualMicroTesla, coveragePercent: (r.coverage.fraction * 1000).rounded() / 10,
                    samples: r.fit.inlierCount, outliers: r.fit.outlierCount, motionS: (motion * 10).rounded() / 10,
                    mountingCheck: mounting)
                let w = r.fit.softIronCorrection
                var lines = [
                    s.bold("\(id): ") + (r.grade == .good ? s.green("good") : s.yellow("acceptable"))
                        + " — residual \(formatFixed(r.fit.residualMicroTesla, digits: 2)) µT, coverage \(Int((r.coverage.fraction * 100).rounded())) %, "
                        + "|B| \(formatFixed(r.fit.fieldStrengthMicroTesla, digits: 1)) µT"
                        + (r.expected.map { " (WMM \(formatFixed($0.strengthMicroTesla, digits: 1)) µT)" } ?? ""),
                    "  hard iron \(formatVector(r.fit.hardIronMicroTesla, digits: 2)) µT",
                    "  soft iron correction [\(formatVector(w.row0, digits: 4)); \(formatVector(w.row1, digits: 4)); \(formatVector(w.row2, digits: 4))]",
                    "  mounting \(mounting); \(formatFixed(motion, digits: 1)) s of motion"
                ]
                for note in r.notes { lines.append("  note: " + CommandLineWording.naming(note)) }
                return SensorOutcome(id: id, result: .success(entry), lines: lines)
            }
        }
    }
}

// MARK: - Accelerometer

/// Guided six-position accelerometer calibration of every selected accelerometer.
struct AccelerometerGuide: CalibrationGuide {
    let title = "Accelerometer calibration"
    let sensors: [String]
    private var sessions: [AccelerometerSession]
    private var captured: [String] = []

    init(sensors: [String], gravityMps2: Double) {
        self.sensors = sensors
        sessions = sensors.map { _ in AccelerometerSession(gravityMps2: gravityMps2) }
    }

    func intro(_ style: CalibrationStyle, context: GuideContext) -> [String] {
        [
            style.bold("\(title) — \(context.board.name)") + " ("
                + sensors.map { "\($0): \(context.labels[$0] ?? $0)" }.joined(separator: ", ") + ")",
            "",
            "You will set the board down on a flat, level table on each of its six faces, in any order. Hold it",
            "still in each position for two seconds; it is captured by itself and the next one is shown."
        ]
    }

    mutating func consume(sensor: String, reading r: SensorReading) {
        guard let i = sensors.firstIndex(of: sensor), let a = r.accelerationMps2 else { return }
        if let face = sessions[i].add(
            timeS: r.timeS, accelerationMps2: a, angularVelocityRadS: r.angularVelocityRadS,
            temperatureC: r.temperatureC)
        {
            captured.append("\(sensor) \(face)")
        }
    }

    mutating func tick() {}

    var isComplete: Bool { !sessions.isEmpty && sessions.allSatisfy(\.isComplete) }

    func screen(elapsedS: Double, context: GuideContext) -> [String] {
        let s = context.style
        var lines = [s.bold("\(title) — \(context.board.name)") + "   " + formatFixed(elapsedS, digits: 1) + " s", ""]
        guard let first = sessions.first else { return lines }
        let done = 6 - (sessions.map(\.missingFaces.count).max() ?? 6)
        lines.append("positions " + s.progressBar(Double(done) / 6) + "   \(done)/6")
        lines.append("")
        for face in [BoardFace.zUp, .zDown, .xUp, .xDown, .yUp, .yDown] {
            let ok = sessions.allSatisfy { $0.captures[face.rawValue] != nil }
            let here = first.currentFace == face
            let mark = ok ? s.green(s.unicode ? "✔" : "x") : (here ? s.yellow(">") : s.dim(s.unicode ? "·" : "."))
            lines.append("  \(mark) \(face.description.padded(6)) \(face.instruction)")
        }
        lines.append("")
        if isComplete {
            lines.append(s.green("Done: all six positions captured."))
        } else if let next = sessions.flatMap(\.missingFaces).first {
            let still = first.detector.stillSinceS != nil
            lines.append("Now: set it down " + s.bold(next.instruction) + (still ? "   holding still" : "   moving"))
        }
        if !isComplete { lines.append(s.dim("Enter: finish now   q Enter: quit")) }
        return lines
    }

    func progressLine(elapsedS: Double) -> String {
        "\(formatFixed(elapsedS, digits: 1)) s: "
            + zip(sensors, sessions).map { id, session in
                "\(id) \(6 - session.missingFaces.count)/6 positions"
            }.joined(separator: ", ")
    }

    func finish(timedOut: Bool, elapsedS: Double, context: GuideContext) -> [SensorOutcome] {
        let s = context.style
        return zip(sensors, sessions).map { id, session in
            switch session.finish(timedOut: timedOut, gravityMps2: context.gravityMps2) {
            case .failure(let e):
                return .failed(id, e, s)
            case .success(let r):
                var entry = context.entry(id)
                entry.accelerometer = AccelerometerCalibration(
                    date: context.date, temperatureC: r.temperatureC.map { ($0 * 10).rounded() / 10 }, grade: r.grade,
                    offsetMps2: r.offsetMps2, correction: r.correction, gravityMps2: r.gravityMps2,
                    residualMps2: r.residualMps2, positions: r.captures.count)
                let t = r.correction
                return SensorOutcome(
                    id: id, result: .success(entry),
                    lines: [
                        s.bold("\(id): ") + (r.grade == .good ? s.green("good") : s.yellow("acceptable"))
                            + " — residual \(formatFixed(r.residualMps2, digits: 3)) m/s² over 6 positions, g = \(formatFixed(r.gravityMps2, digits: 4)) m/s²",
                        "  offset \(formatVector(r.offsetMps2, digits: 3)) m/s²",
                        "  scale and cross-axis [\(formatVector(t.row0, digits: 4)); \(formatVector(t.row1, digits: 4)); \(formatVector(t.row2, digits: 4))]"
                    ])
            }
        }
    }
}

// MARK: - Captures at rest (gyroscope, barometer)

/// What the gyroscope and barometer guides share: a capture of `durationS` at rest.
struct CaptureProgress {
    let title: String
    let durationS: Double

    /// The view's first lines: title, elapsed time, the capture's progress bar (`doneS` of `durationS`).
    func header(elapsedS: Double, doneS: Double, context: GuideContext) -> [String] {
        let s = context.style
        return [
            s.bold("\(title) — \(context.board.name)") + "   " + formatFixed(elapsedS, digits: 1) + " s", "",
            "capture " + s.progressBar(doneS / durationS)
                + "   \(formatFixed(doneS, digits: 1))/\(formatFixed(durationS, digits: 0)) s"
        ]
    }

    /// One progress line for logs.
    func line(elapsedS: Double, doneS: Double) -> String {
        "\(formatFixed(elapsedS, digits: 1)) s: captured \(formatFixed(doneS, digits: 1)) of \(formatFixed(durationS, digits: 0)) s"
    }

    /// The failure of a capture that did not last: out of time, or stopped.
    func incomplete(_ id: String, capturedS: Double, timedOut: Bool, style: CalibrationStyle) -> SensorOutcome {
        .failed(
            id,
            CalibrationError(
                timedOut ? .timedOut : .cancelled,
                "captured \(formatFixed(capturedS, digits: 1)) of \(formatFixed(durationS, digits: 0)) s"), style)
    }
}

// MARK: - Gyroscope

/// Gyroscope bias at rest (and Allan deviation for long captures) of every selected gyroscope.
struct GyroscopeGuide: CalibrationGuide {
    let title = "Gyroscope calibration"
    let sensors: [String]
    private var sessions: [GyroscopeSession]
    private var latestRate: Vector3?
    let durationS: Double
    private var capture: CaptureProgress { CaptureProgress(title: title, durationS: durationS) }

    init(sensors: [String], durationS: Double, rateHz: [Double]) {
        self.sensors = sensors
        self.durationS = durationS
        var p = GyroscopeSession.Parameters()
        p.durationS = durationS
        sessions = zip(sensors, rateHz).map { _, rate in GyroscopeSession(parameters: p, expectedRateHz: rate) }
    }

    func intro(_ style: CalibrationStyle, context: GuideContext) -> [String] {
        var lines = [
            style.bold("\(title) — \(context.board.name)") + " ("
                + sensors.map { "\($0): \(context.labels[$0] ?? $0)" }.joined(separator: ", ") + ")",
            "",
            "Put the board down on something steady and do not touch it for \(formatFixed(durationS, digits: 0)) s after you press Enter.",
            "If it moves, the capture stops and says so."
        ]
        if durationS >= GyroscopeSession.Parameters().allanMinimumDurationS {
            lines.append("This long capture also measures the noise (Allan deviation) for the orientation filter.")
        }
        return lines
    }

    mutating func consume(sensor: String, reading r: SensorReading) {
        guard let i = sensors.firstIndex(of: sensor), let w = r.angularVelocityRadS else { return }
        sessions[i].add(
            timeS: r.timeS, angularVelocityRadS: w, accelerationMps2: r.accelerationMps2, temperatureC: r.temperatureC)
        if i == 0 { latestRate = w }
    }

    mutating func tick() {}

    var isComplete: Bool { !sessions.isEmpty && sessions.allSatisfy(\.isComplete) }

    func screen(elapsedS: Double, context: GuideContext) -> [String] {
        let s = context.style
        var lines = capture.header(elapsedS: elapsedS, doneS: sessions.map(\.elapsedS).min() ?? 0, context: context)
        if let w = latestRate {
            lines.append("  rate now " + formatVector(w * Angle.degreesPerRadian, digits: 2) + " °/s")
        }
        if let moved = sessions.compactMap(\.motion).first {
            lines.append(s.red("The board moved: ") + moved.detail)
        } else {
            lines.append("Do not touch the board.")
        }
        lines.append(s.dim("q Enter: quit"))
        return lines
    }

    func progressLine(elapsedS: Double) -> String {
        capture.line(elapsedS: elapsedS, doneS: sessions.map(\.elapsedS).min() ?? 0)
    }

    func finish(timedOut: Bool, elapsedS: Double, context: GuideContext) -> [SensorOutcome] {
        let s = context.style
        return zip(sensors, sessions).map { id, session in
            if !session.isComplete, session.motion == nil, session.elapsedS < durationS * 0.99 {
                return capture.incomplete(id, capturedS: session.elapsedS, timedOut: timedOut, style: s)
            }
            switch session.finish() {
            case .failure(let e):
                return .failed(id, e, s)
            case .success(let r):
                var entry = context.entry(id)
                entry.gyroscope = GyroscopeCalibration(
                    date: context.date, temperatureC: r.temperatureC.map { ($0 * 10).rounded() / 10 }, biasRadS: r.biasRadS,
                    noiseRMSRadS: r.noiseRMSRadS, durationS: (r.durationS * 100).rounded() / 100,
                    noiseDensityRadSPerRootHz: r.allan?.noiseDensity, biasInstabilityRadS: r.allan?.biasInstability,
                    rateRandomWalkRadSPerRootS: r.allan?.rateRandomWalk)
                var lines = [
                    s.bold("\(id): ") + s.green("done") + " — \(r.samples) samples over \(formatFixed(r.durationS, digits: 1)) s",
                    "  bias \(formatVector(r.biasRadS * Angle.degreesPerRadian, digits: 3)) °/s (\(formatVector(r.biasRadS, digits: 5)) rad/s)",
                    "  noise \(formatVector(r.noiseRMSRadS * Angle.degreesPerRadian, digits: 3)) °/s RMS per sample"
                ]
                if let a = r.allan {
                    lines.append(
                        "  Allan: noise density \(formatVector(a.noiseDensity * Angle.degreesPerRadian * 60, digits: 3)) °/√h, "
                            + "bias instability \(formatVector(a.biasInstability * Angle.degreesPerRadian * 3600, digits: 2)) °/h, "
                            + "rate random walk \(formatVector(a.rateRandomWalk, digits: 6)) rad/s/√s")
                }
                return SensorOutcome(id: id, result: .success(entry), lines: lines)
            }
        }
    }
}

// MARK: - Barometer

/// Barometer offset against a known altitude (and QNH) for every selected barometer.
struct BarometerGuide: CalibrationGuide {
    let title = "Barometer calibration"
    let sensors: [String]
    private var sessions: [BarometerSession]
    private var latestPressure: Double?
    let durationS: Double
    private var capture: CaptureProgress { CaptureProgress(title: title, durationS: durationS) }

    init(sensors: [String], durationS: Double) {
        self.sensors = sensors
        self.durationS = durationS
        var p = BarometerSession.Parameters()
        p.durationS = durationS
        sessions = sensors.map { _ in BarometerSession(parameters: p) }
    }

    func intro(_ style: CalibrationStyle, context: GuideContext) -> [String] {
        var lines = [
            style.bold("\(title) — \(context.board.name)") + " ("
                + sensors.map { "\($0): \(context.labels[$0] ?? $0)" }.joined(separator: ", ") + ")", ""
        ]
        if let r = context.barometerReference {
            lines.append(
                "Reference: \(formatFixed(r.altitudeMSLM, digits: 1)) m above sea level"
                    + (r.qnhPa.map { ", QNH \(formatFixed($0 / 100, digits: 1)) hPa" }
                        ?? " (no QNH: the offset will include today's weather)"))
        }
        lines.append(
            "Keep the board still, at the reference height, for \(formatFixed(durationS, digits: 0)) s after you press Enter.")
        return lines
    }

    mutating func consume(sensor: String, reading r: SensorReading) {
        guard let i = sensors.firstIndex(of: sensor), let p = r.pressurePa else { return }
        sessions[i].add(timeS: r.timeS, pressurePa: p, temperatureC: r.temperatureC)
        if i == 0 { latestPressure = p }
    }

    mutating func tick() {}

    var isComplete: Bool { !sessions.isEmpty && sessions.allSatisfy(\.isComplete) }

    func screen(elapsedS: Double, context: GuideContext) -> [String] {
        let s = context.style
        var lines = capture.header(elapsedS: elapsedS, doneS: sessions.map(\.elapsedS).min() ?? 0, context: context)
        if let p = latestPressure { lines.append("  pressure now \(formatFixed(p / 100, digits: 2)) hPa") }
        if let e = context.expectedPressurePa { lines.append("  expected     \(formatFixed(e / 100, digits: 2)) hPa") }
        lines.append(s.dim("q Enter: quit"))
        return lines
    }

    func progressLine(elapsedS: Double) -> String {
        capture.line(elapsedS: elapsedS, doneS: sessions.map(\.elapsedS).min() ?? 0)
    }

    func finish(timedOut: Bool, elapsedS: Double, context: GuideContext) -> [SensorOutcome] {
        let s = context.style
        return zip(sensors, sessions).map { id, session in
            guard let reference = context.barometerReference, let expected = context.expectedPressurePa else {
                let e = CalibrationError(.implausibleOffset, "no reference altitude given")
                return .failed(id, e, s)
            }
            if !session.isComplete {
                return capture.incomplete(id, capturedS: session.elapsedS, timedOut: timedOut, style: s)
            }
            switch session.finish(reference: reference, expectedPressurePa: expected) {
            case .failure(let e):
                return .failed(id, e, s)
            case .success(let r):
                var entry = context.entry(id)
                entry.barometer = BarometerCalibration(
                    date: context.date, temperatureC: r.temperatureC.map { ($0 * 10).rounded() / 10 }, offsetPa: r.offsetPa,
                    altitudeMSLM: reference.altitudeMSLM, qnhPa: reference.qnhPa, expectedPressurePa: r.expectedPressurePa,
                    measuredPressurePa: r.measuredPressurePa, noisePa: r.noisePa, durationS: (r.durationS * 100).rounded() / 100)
                return SensorOutcome(
                    id: id, result: .success(entry),
                    lines: [
                        s.bold("\(id): ") + s.green("done") + " — offset \(formatFixed(r.offsetPa, digits: 1)) Pa "
                            + "(measured \(formatFixed(r.measuredPressurePa / 100, digits: 2)) hPa, expected \(formatFixed(r.expectedPressurePa / 100, digits: 2)) hPa, noise \(formatFixed(r.noisePa, digits: 1)) Pa)"
                    ]
                        + (reference.qnhPa == nil
                            ? ["  note: without a QNH the offset holds today's weather; barometric altitude will drift with it"]
                            : []))
            }
        }
    }
}
