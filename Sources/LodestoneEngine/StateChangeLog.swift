import LodestoneFusion
import LodestoneOrientation
import LodestoneScheduler

/// The quiet output of `lodestone run` without a terminal and without `--json` (a service, a pipe, a journal): one
/// line per state change instead of a live frame every second (which was about 3.9 M lines a day).
///
/// Fed a ``Snapshot`` about once a second of engine time; returns the lines to print for what changed since the
/// previous one. The first call returns one start line that summarises the board and its state. Every line starts
/// with the session time, `t=12.3 s`. What counts as a change, one line each:
///
/// | what | a line when | e.g. |
/// |---|---|---|
/// | a sensor's health | its kind changes (`starting`, `ok`, `degraded`), unless a new note names the sensor | `imu ok` |
/// | the activity | its kind changes (not its confidence) | `activity walk` |
/// | the location | it appears, is lost, or its accuracy crosses a tier of ``locationTiersM`` | `location available ±4.2 m` |
/// | the plan | its generation changes | `plan #3 adaptive: imu 100 Hz normal, …; predicted 0.40 mA; why: …` |
/// | the heading | its validity or the calibration-needed flag changes | `heading needs magnetometer calibration (±24.0°)` |
/// | a note | each new one (degraded, recovered, a rolled-back reconfiguration) | `baro degraded at t=3.02 s: …` |
///
/// A value type with no I/O: the caller prints the lines.
public struct StateChangeLog: Sendable {
    /// Accuracy tiers of the location, m (95 % horizontal): Core Location's `desiredAccuracy` steps (10 m, 100 m,
    /// 1 km, 3 km). A line is logged when the accuracy moves into another tier.
    public static let locationTiersM: [Double] = [10, 100, 1_000, 3_000]
    /// A location moves to a worse tier only once its accuracy is this factor beyond the boundary (1.25: ±10 m → ±12.5 m),
    /// so an accuracy hovering at a boundary does not log a line a second. Moving to a better tier needs the boundary.
    public static let worseTierMargin = 1.25

    /// What the log needs to know of the run at one moment: small, `Sendable`, built once a second.
    public struct Snapshot: Sendable, Equatable {
        /// One sensor's state.
        public struct Sensor: Sendable, Equatable {
            /// The board file's id (`imu`).
            public var id: String
            /// Chip and bus, for the start line (`MPU-9250 @ sim:0x68`).
            public var label: String
            /// `starting`, `ok` or `degraded`: a change of this text is a state change.
            public var health: String
            /// Why it is degraded (the last error), shown with the health; not a change by itself.
            public var detail: String?
            public init(id: String, label: String = "", health: String, detail: String? = nil) {
                self.id = id; self.label = label; self.health = health; self.detail = detail
            }
        }

        /// The heading's state.
        public enum HeadingState: Sendable, Equatable {
            /// No heading yet (the orientation filter has not started).
            case none
            /// A heading that is not absolute (no magnetometer yet, or 6D mode).
            case notAbsolute
            /// An absolute heading with its accuracy, deg; `calibrationNeeded`: the magnetometer needs calibrating.
            case valid(accuracyDeg: Double, calibrationNeeded: Bool)
        }

        /// Session time (engine clock), s.
        public var timeS: Double
        /// The board's name, for the start line.
        public var boardName: String
        public var sensors: [Sensor]
        /// The carrier's activity (`walk`, …); `nil` while fusion has none.
        public var activity: String?
        /// The fused location's horizontal accuracy, m (95 %); `nil`: no location.
        public var locationAccuracyM: Double?
        /// The plan's generation (1 for the first); `nil` in an unscheduled run.
        public var planGeneration: Int?
        /// The plan in one line (policy, each sensor's mode, predicted draw, why).
        public var planSummary: String?
        public var heading: HeadingState
        /// How many notes the run has made so far (a counter that only grows).
        public var noteCount: Int
        /// The latest notes, oldest first (at least the ones made since the previous snapshot, when there were few).
        public var recentNotes: [String]

        public init(
            timeS: Double, boardName: String = "", sensors: [Sensor] = [], activity: String? = nil,
            locationAccuracyM: Double? = nil, planGeneration: Int? = nil, planSummary: String? = nil,
            heading: HeadingState = .none, noteCount: Int = 0, recentNotes: [String] = []
        ) {
            self.timeS = timeS; self.boardName = boardName; self.sensors = sensors; self.activity = activity
            self.locationAccuracyM = locationAccuracyM; self.planGeneration = planGeneration; self.planSummary = planSummary
            self.heading = heading; self.noteCount = noteCount; self.recentNotes = recentNotes
        }
    }

    /// Engine time between snapshots taken by ``update(timeS:_:)``, s.
    public static let periodS = 1.0

    private var previous: Snapshot?
    /// The tier index of the last logged location (0: within 10 m … `locationTiersM.count`: worse than 3 km).
    private var locationTier: Int?
    private var nextSnapshotS = -Double.infinity

    public init() {}

    /// The lines for `timeS` when a snapshot is due (the first call, then once per ``periodS`` of engine time), else
    /// none; `snapshot` is only built when one is due, so this can be called after every engine step.
    public mutating func update(timeS: Double, _ snapshot: () -> Snapshot) -> [String] {
        guard timeS >= nextSnapshotS else { return [] }
        nextSnapshotS = timeS + Self.periodS
        return update(snapshot())
    }

    /// The lines for what changed since the previous snapshot (the start line on the first call), each prefixed with
    /// `t=… s`. Empty when nothing changed.
    public mutating func update(_ now: Snapshot) -> [String] {
        let stamp = "t=\(formatFixed(now.timeS, digits: 1)) s "
        guard let before = previous else {
            previous = now
            locationTier = now.locationAccuracyM.map { Self.tier(of: $0, previous: nil) }
            return [stamp + Self.startLine(now)]
        }
        previous = now
        var lines: [String] = []

        // Notes first: each is a line, and one that names a sensor stands for that sensor's health change.
        let newNotes = Array(now.recentNotes.suffix(max(0, min(now.noteCount - before.noteCount, now.recentNotes.count))))
        for s in now.sensors {
            let old = before.sensors.first { $0.id == s.id }
            guard old?.health != s.health else { continue }
            if newNotes.contains(where: { $0.hasPrefix(s.id + " ") }) { continue }
            lines.append(Self.describe(s))
        }
        lines.append(contentsOf: newNotes)

        if now.activity != before.activity { lines.append("activity " + (now.activity ?? "unknown")) }

        switch (before.locationAccuracyM, now.locationAccuracyM) {
        case (nil, let a?):
            locationTier = Self.tier(of: a, previous: nil)
            lines.append("location available ±\(formatFixed(a, digits: 1)) m")
        case (_?, nil):
            locationTier = nil
            lines.append("location lost")
        case (_?, let a?):
            let t = Self.tier(of: a, previous: locationTier)
            if t != locationTier {
                locationTier = t
                lines.append("location accuracy ±\(formatFixed(a, digits: 1)) m (\(Self.describeTier(t)))")
            }
        case (nil, nil): break
        }

        if now.planGeneration != before.planGeneration, now.planGeneration != nil {
            lines.append(Self.describePlan(now))
        }

        if Self.headingKey(now.heading) != Self.headingKey(before.heading) { lines.append(Self.describe(now.heading)) }

        return lines.map { stamp + $0 }
    }

    /// The last line of a run.
    public func endLine(timeS: Double) -> String { "t=\(formatFixed(timeS, digits: 1)) s run ended" }

    // MARK: - Text

    static func startLine(_ s: Snapshot) -> String {
        var parts = ["lodestone \(Lodestone.version) started on \(s.boardName)"]
        if !s.sensors.isEmpty {
            parts.append(
                "sensors "
                    + s.sensors.map { ($0.label.isEmpty ? $0.id : "\($0.id) (\($0.label))") + " " + $0.health }
                    .joined(separator: ", "))
        }
        parts.append("activity " + (s.activity ?? "unknown"))
        parts.append(s.locationAccuracyM.map { "location ±\(formatFixed($0, digits: 1)) m" } ?? "no location")
        parts.append(describe(s.heading))
        if s.planGeneration != nil { parts.append(describePlan(s)) }
        return parts.joined(separator: "; ")
    }

    static func describe(_ s: Snapshot.Sensor) -> String {
        s.id + " " + s.health + (s.detail.map { ": " + $0 } ?? "")
    }

    static func describePlan(_ s: Snapshot) -> String {
        "plan #\(s.planGeneration ?? 0)" + (s.planSummary.map { " " + $0 } ?? "")
    }

    static func describe(_ h: Snapshot.HeadingState) -> String {
        switch h {
        case .none: "no heading yet"
        case .notAbsolute: "heading not absolute"
        case let .valid(accuracy, false): "heading valid ±\(formatFixed(accuracy, digits: 1))°"
        case let .valid(accuracy, true): "heading needs magnetometer calibration (±\(formatFixed(accuracy, digits: 1))°)"
        }
    }

    /// The heading's state without its accuracy (which changes every sample).
    private static func headingKey(_ h: Snapshot.HeadingState) -> Int {
        switch h {
        case .none: 0
        case .notAbsolute: 1
        case .valid(_, false): 2
        case .valid(_, true): 3
        }
    }

    static func describeTier(_ t: Int) -> String {
        t < locationTiersM.count
            ? "within \(distance(locationTiersM[t]))" : "worse than \(distance(locationTiersM[locationTiersM.count - 1]))"
    }

    private static func distance(_ m: Double) -> String {
        m >= 1_000 ? "\(formatFixed(m / 1_000, digits: 0)) km" : "\(formatFixed(m, digits: 0)) m"
    }

    /// The tier of an accuracy `m`, with the margin against falling to a worse tier than `previous`.
    static func tier(of accuracyM: Double, previous: Int?) -> Int {
        let plain = locationTiersM.firstIndex { accuracyM <= $0 } ?? locationTiersM.count
        guard let previous, plain > previous else { return plain }
        // Worse than before: only as far as the margin allows.
        var t = previous
        while t < locationTiersM.count, accuracyM > locationTiersM[t] * worseTierMargin { t += 1 }
        return t
    }
}

extension StateChangeLog.Snapshot {
    /// The snapshot of a session at `timeS`: the engine's sources, what fusion estimates, the plan, and the notes.
    public init(
        timeS: Double, boardName: String, statuses: [Engine.SourceStatus], fusion: FusionPipeline,
        scheduling: ScheduledSampling?, notes: [String], noteCount: Int? = nil
    ) {
        let sensors = statuses.map { s -> Sensor in
            switch s.health {
            case .starting: Sensor(id: s.id, label: s.label, health: "starting")
            case .ok: Sensor(id: s.id, label: s.label, health: "ok")
            case .degraded(let m): Sensor(id: s.id, label: s.label, health: "degraded", detail: m)
            }
        }
        let heading: HeadingState
        if let h = fusion.orientation.heading {
            heading = h.isValid ? .valid(accuracyDeg: h.headingAccuracyDeg, calibrationNeeded: h.calibrationNeeded) : .notAbsolute
        } else {
            heading = .none
        }
        var generation: Int?
        var summary: String?
        if let scheduling {
            let plan = scheduling.applied ?? scheduling.scheduler.plan
            generation = plan.generation
            var parts = plan.sensors.map { "\($0.id) " + ScheduledSampling.describe($0) }
            if let g = plan.gnss { parts.append("\(g.id) \(g.mode)") }
            summary =
                "\(scheduling.scheduler.policyName): " + parts.joined(separator: ", ")
                + "; predicted \(formatFixed(plan.power.totalMilliAmp, digits: 2)) mA"
                + (plan.causes.isEmpty ? "" : "; why: " + plan.causes.map(\.description).joined(separator: "; "))
        }
        self.init(
            timeS: timeS, boardName: boardName, sensors: sensors,
            activity: fusion.context.activity.map(\.kind.rawValue),
            locationAccuracyM: fusion.location.latest?.horizontalAccuracyM,
            planGeneration: generation, planSummary: summary, heading: heading,
            noteCount: noteCount ?? notes.count, recentNotes: Array(notes.suffix(16)))
    }
}
