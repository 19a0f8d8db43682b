import LodestoneCore
import LodestoneLocation
import LodestoneMonitoring
import LodestoneSimulation
import RealModule

/// Scores region monitoring and significant location change against the simulation's truth (issue 16, "How it is
/// judged"): the truth of a scenario at 10 Hz, regions placed on and off its route, the true crossings of their
/// boundaries, and the matching of a run's events with them. `SchedulingEvaluation.runMonitoring` runs the session
/// that makes the events; the harness (`benchmarks/accuracy/scheduler`, mode `--monitoring`) and the fast test
/// (`MonitoringEnergyTests`) score them here. The rules are those of the monitoring harness
/// (`benchmarks/accuracy/monitoring`), except that a crossing is observable when the sky was in view (no fix is
/// known before the run), not when the receiver had a fix.
public enum MonitoringEvaluation {
    /// One sample of the truth.
    public struct TruthPoint: Sendable, Hashable {
        /// Session time, s.
        public var timeS: Double
        public var latitudeDeg: Double
        public var longitudeDeg: Double
        /// Horizontal speed, m/s.
        public var speedMps: Double
        /// The carrier was outdoors with the sky in view (no GNSS outage).
        public var skyInView: Bool
        /// The position.
        public var coordinate: Coordinate { Coordinate(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg) }
    }

    /// The truth's period, s (10 Hz).
    public static let truthPeriodS = 0.1

    /// The truth of `scenario` with `seed` every 0.1 s for `durationS` (default: the scenario): the same trajectory the
    /// simulated board of that seed moves along (`SimulatedBoard` builds `TrajectoryGenerator(scenario:seed:)` too).
    public static func truth(scenario: Scenario, seed: UInt64, durationS: Double? = nil) -> [TruthPoint] {
        var generator = TrajectoryGenerator(scenario: scenario, seed: seed)
        let endS = durationS ?? scenario.totalDurationS
        var points: [TruthPoint] = []
        points.reserveCapacity(Int(endS / truthPeriodS) + 2)
        var step = 0
        while Double(step) * truthPeriodS <= endS {
            let s = generator.sample(atTimeS: Double(step) * truthPeriodS)
            let v = s.velocityENUMps
            points.append(
                TruthPoint(
                    timeS: s.timeS, latitudeDeg: s.latitudeDeg, longitudeDeg: s.longitudeDeg,
                    speedMps: (v.x * v.x + v.y * v.y).squareRoot(), skyInView: !s.gnssOutage))
            step += 1
        }
        return points
    }

    // MARK: - Regions

    /// Regions placed around the route (the monitoring harness's placement): `onRoute` on it (centred within 0.9 r of a
    /// point where the carrier moves, so the route passes through) and `offRoute` off it (a route point `offRouteGapM`
    /// outside the boundary; other parts of the route may come nearer); radii log-uniform in `radiusM`.
    public static func placeRegions(
        truth: [TruthPoint], seed: UInt64, onRoute: Int, offRoute: Int, offRouteGapM: ClosedRange<Double>,
        radiusM: ClosedRange<Double> = 50...5_000
    ) -> [CircularRegion] {
        var rng = SeededGenerator(seed: seed &* 31 &+ 5)
        // Route points: where the carrier moves (speed > 0.5 m/s), once a second.
        let route = stride(from: 0, to: truth.count, by: 10).map { truth[$0] }.filter { $0.speedMps > 0.5 }
        guard !route.isEmpty else { return [] }
        let ratio = radiusM.upperBound / radiusM.lowerBound
        var regions: [CircularRegion] = []
        for i in 0..<(onRoute + offRoute) {
            let p = route[Int(rng.uniform() * Double(route.count - 1))]
            let r = radiusM.lowerBound * Double.pow(ratio, rng.uniform())
            let distanceM = i < onRoute ? r * rng.uniform(in: 0...0.9) : r + rng.uniform(in: offRouteGapM)
            guard
                let c = Geodesic.wgs84.direct(
                    latitudeDeg: p.latitudeDeg, longitudeDeg: p.longitudeDeg, azimuthDeg: rng.uniform(in: -180...180),
                    distanceM: distanceM),
                let region = try? CircularRegion(
                    id: "\(i < onRoute ? "on" : "off")\(i)", latitudeDeg: c.latitudeDeg, longitudeDeg: c.longitudeDeg,
                    radiusM: r)
            else { continue }
            regions.append(region)
        }
        return regions
    }

    // MARK: - True crossings

    /// A true crossing of a region's boundary.
    public struct Crossing: Sendable, Hashable {
        /// Interpolated time of the crossing, s.
        public var timeS: Double
        public var entering: Bool
        /// The deepest the truth went on the far side before crossing back (or the end), m.
        public var depthM: Double
        /// How long it stayed on the far side, s.
        public var durationS: Double
        /// The sky was in view with the truth at least `marginalDepthM` clear of the boundary on both sides.
        public var observable: Bool
    }

    /// Crossings shallower than this, or shorter than `marginalDurationS`, are marginal: no decision from a location
    /// whose accuracy circle (and margin) is 5–8 m wide can see them, m.
    public static let marginalDepthM = 15.0
    /// See `marginalDepthM`, s.
    public static let marginalDurationS = 10.0

    /// The truth's signed distance to the boundary (positive inside), m, at each truth point. Far from the boundary an
    /// equirectangular distance (within 1 % here) decides; near it, the geodesic.
    static func signedDepthsM(_ truth: [TruthPoint], _ region: CircularRegion) -> [Double] {
        let c = region.center
        let metresPerDegree = 111_320.0
        let cosLat = Double.cos(c.latitudeDeg * .pi / 180)
        return truth.map { s in
            let dy = (s.latitudeDeg - c.latitudeDeg) * metresPerDegree
            let dx = (s.longitudeDeg - c.longitudeDeg) * metresPerDegree * cosLat
            let approx = (dx * dx + dy * dy).squareRoot()
            if abs(approx - region.radiusM) > 0.01 * approx + 50 { return region.radiusM - approx }
            return region.radiusM - (s.coordinate.distanceM(to: c) ?? approx)
        }
    }

    /// The true crossings of a region whose signed depths are `depthsM`.
    static func crossings(_ truth: [TruthPoint], depthsM: [Double]) -> [Crossing] {
        var out: [Crossing] = []
        for i in 1..<depthsM.count where (depthsM[i - 1] > 0) != (depthsM[i] > 0) {
            let t0 = truth[i - 1].timeS, t1 = truth[i].timeS
            let t = t0 + (t1 - t0) * depthsM[i - 1] / (depthsM[i - 1] - depthsM[i])
            out.append(Crossing(timeS: t, entering: depthsM[i] > 0, depthM: 0, durationS: 0, observable: true))
        }
        // A clear view of each side: the sky in view with the truth `marginalDepthM` clear of the boundary there.
        func seen(from lo: Int, to hi: Int, sign: Double) -> Bool {
            var i = max(0, lo)
            while i <= min(hi, truth.count - 1) {
                if truth[i].skyInView && sign * depthsM[i] >= marginalDepthM { return true }
                i += 1
            }
            return false
        }
        for k in out.indices {
            let start = out[k].timeS
            let end = k + 1 < out.count ? out[k + 1].timeS : truth[truth.count - 1].timeS
            let lo = Int(start / truthPeriodS), hi = min(depthsM.count - 1, Int(end / truthPeriodS) + 1)
            var deepest = 0.0
            for i in lo...hi { deepest = max(deepest, out[k].entering ? depthsM[i] : -depthsM[i]) }
            out[k].depthM = deepest
            out[k].durationS = end - start
            let previous = k > 0 ? Int(out[k - 1].timeS / truthPeriodS) : 0
            let sign = out[k].entering ? 1.0 : -1.0
            out[k].observable = seen(from: lo, to: hi, sign: sign) && seen(from: previous, to: lo, sign: -sign)
        }
        return out
    }

    // MARK: - Region events against the truth

    /// How a run's enter/exit events compare with the true crossings. Delays in s.
    public struct RegionScore: Sendable, Codable, Hashable {
        /// True crossings after each region's first decision; of them clear (neither marginal nor unobservable).
        public var crossings = 0
        public var clearCrossings = 0
        /// Crossings with no event; of them clear ones; of those, at regions of radius ≥ 100 m.
        public var missed = 0
        public var missedClear = 0
        public var missedClearLarge = 0
        /// Events matched to no crossing; of them at regions of radius ≥ 100 m.
        public var falseEvents = 0
        public var falseEventsLarge = 0
        public var marginal = 0
        public var unobservable = 0
        /// Crossings back after a missed marginal one (the monitor's state never changed: nothing to report).
        public var merged = 0
        /// First decisions (`unknown` → …) and how many disagreed with the truth at that instant.
        public var firstDecisions = 0
        public var wrongFirstDecisions = 0
        /// Regions never decided.
        public var undecided = 0
        public var events = 0
        /// Event time − crossing time, s, for matched crossings; at regions of radius ≥ 100 m.
        public var delaysS: [Double] = []
        public var delaysLargeS: [Double] = []
        /// One line per missed clear crossing and per false event.
        public var detail: [String] = []

        public init() {}

        /// Adds another trial's score.
        public mutating func add(_ o: RegionScore) {
            crossings += o.crossings; clearCrossings += o.clearCrossings; missed += o.missed; missedClear += o.missedClear
            missedClearLarge += o.missedClearLarge; falseEvents += o.falseEvents; falseEventsLarge += o.falseEventsLarge
            marginal += o.marginal; unobservable += o.unobservable; merged += o.merged; firstDecisions += o.firstDecisions
            wrongFirstDecisions += o.wrongFirstDecisions; undecided += o.undecided; events += o.events
            delaysS += o.delaysS; delaysLargeS += o.delaysLargeS; detail += o.detail
        }
    }

    /// Matches `events` with the true crossings of `regions` (the monitoring harness's rules): a crossing is reported by
    /// the first unused event of its direction from 30 s before it (a location's error may show it early) until the next
    /// crossing of the same direction; events matched to nothing are false; each region's first decision is checked
    /// against the truth at that instant and is no crossing; crossings before it are not the monitor's to report.
    public static func scoreRegions(
        truth: [TruthPoint], regions: [CircularRegion], events: [MonitorEvent], label: String = ""
    ) -> RegionScore {
        var score = RegionScore()
        score.events = events.count
        var byRegion: [String: [MonitorEvent]] = [:]
        for e in events { byRegion[e.conditionId, default: []].append(e) }
        for region in regions {
            let depths = signedDepthsM(truth, region)
            let truthCrossings = crossings(truth, depthsM: depths)
            var mine = (byRegion[region.id] ?? []).sorted { $0.id < $1.id }
            guard let first = mine.first else {
                score.undecided += 1
                continue
            }
            var decidedS = -Double.infinity
            if first.previousState == .unknown {
                score.firstDecisions += 1
                let i = min(depths.count - 1, max(0, Int((first.timeS / truthPeriodS).rounded())))
                if (depths[i] > 0) != (first.state == .satisfied) { score.wrongFirstDecisions += 1 }
                decidedS = first.timeS
                mine.removeFirst()
            }
            var used = [Bool](repeating: false, count: mine.count)
            var previousMissedMarginal = false
            for (k, c) in truthCrossings.enumerated() where c.timeS > decidedS {
                let marginal = c.depthM < marginalDepthM || c.durationS < marginalDurationS
                let merged = previousMissedMarginal
                previousMissedMarginal = false
                score.crossings += 1
                if !marginal && c.observable { score.clearCrossings += 1 }
                if marginal { score.marginal += 1 }
                if !c.observable { score.unobservable += 1 }
                let nextSame = truthCrossings[(k + 1)...].first { $0.entering == c.entering }?.timeS ?? .infinity
                if let j = mine.indices.first(where: {
                    !used[$0] && (mine[$0].state == .satisfied) == c.entering && mine[$0].timeS >= c.timeS - 30
                        && mine[$0].timeS < nextSame
                }) {
                    used[j] = true
                    score.delaysS.append(mine[j].timeS - c.timeS)
                    if region.radiusM >= 100 { score.delaysLargeS.append(mine[j].timeS - c.timeS) }
                } else if merged {
                    score.merged += 1
                } else {
                    score.missed += 1
                    previousMissedMarginal = marginal
                    if !marginal && c.observable {
                        score.missedClear += 1
                        if region.radiusM >= 100 { score.missedClearLarge += 1 }
                        score.detail.append(
                            "\(label) missed \(region.id) r=\(Int(region.radiusM)) m \(c.entering ? "enter" : "exit") "
                                + "t=\(Int(c.timeS)) s depth \(Int(c.depthM)) m for \(Int(c.durationS)) s; events: "
                                + mine.map { "\($0.state == .satisfied ? "in" : "out")@\(Int($0.timeS))" }
                                .joined(separator: " "))
                    }
                }
            }
            for j in mine.indices where !used[j] {
                score.falseEvents += 1
                if region.radiusM >= 100 { score.falseEventsLarge += 1 }
                score.detail.append(
                    "\(label) false \(region.id) r=\(Int(region.radiusM)) m \(mine[j].state.rawValue) t=\(Int(mine[j].timeS)) s")
            }
        }
        return score
    }

    // MARK: - Significant changes against the truth

    /// How a run's significant-change events compare with how far the truth moved.
    public struct ChangeScore: Sendable, Codable, Hashable {
        public var events = 0
        /// Moments the truth was first 500 m or more from the last event's reported location, 5 minutes or more after
        /// it (a change was due); of them, how many no event followed before the run ended.
        public var due = 0
        public var missed = 0
        /// For each due change that an event followed: how much farther the truth moved before it, m, and how long it
        /// took, s (from the moment the change was due).
        public var extraDistancesM: [Double] = []
        public var delaysS: [Double] = []
        /// The farthest the truth was from the last event's location at any moment 5 minutes or more after it, m.
        public var worstUnreportedM = 0.0
        /// The truth's path length, m.
        public var movedM = 0.0

        public init() {}

        /// Adds another trial's score.
        public mutating func add(_ o: ChangeScore) {
            events += o.events; due += o.due; missed += o.missed; extraDistancesM += o.extraDistancesM; delaysS += o.delaysS
            worstUnreportedM = max(worstUnreportedM, o.worstUnreportedM); movedM += o.movedM
        }
    }

    /// Scores significant-change events (`timeS`, reported location) against the truth, once a second: a change is due
    /// when the truth is `minimumDistanceM` (500 m) or more from the last event's location and `minimumIntervalS`
    /// (300 s) have passed since it; the next event reports it (its delay and the distance moved meanwhile are
    /// recorded); none before the end is a miss. Before the first event nothing is due.
    public static func scoreChanges(
        truth: [TruthPoint], events: [(timeS: Double, coordinate: Coordinate)], minimumDistanceM: Double = 500,
        minimumIntervalS: Double = 300
    ) -> ChangeScore {
        var score = ChangeScore()
        score.events = events.count
        let sorted = events.sorted { $0.timeS < $1.timeS }
        var next = 0
        var last: (timeS: Double, coordinate: Coordinate)?
        var dueAt: (timeS: Double, pathM: Double)?
        var pathM = 0.0
        var previous: TruthPoint?
        for i in stride(from: 0, to: truth.count, by: Int((1 / truthPeriodS).rounded())) {
            let p = truth[i]
            if let q = previous { pathM += p.coordinate.distanceM(to: q.coordinate) ?? 0 }
            previous = p
            while next < sorted.count && sorted[next].timeS <= p.timeS {
                if let due = dueAt {
                    score.delaysS.append(sorted[next].timeS - due.timeS)
                    score.extraDistancesM.append(pathM - due.pathM)
                    dueAt = nil
                }
                last = sorted[next]
                next += 1
            }
            guard let l = last, p.timeS - l.timeS >= minimumIntervalS,
                let d = p.coordinate.distanceM(to: l.coordinate)
            else { continue }
            score.worstUnreportedM = max(score.worstUnreportedM, d)
            if d >= minimumDistanceM && dueAt == nil {
                dueAt = (p.timeS, pathM)
                score.due += 1
            }
        }
        if dueAt != nil { score.missed += 1 }
        score.movedM = pathM
        return score
    }
}
