// The region monitoring accuracy harness (issue 16): enter/exit events, visits and significant changes against the
// simulator's truth on the day scenarios. See README.md in this folder for what it measures and the committed results.
//
//   cd benchmarks && swift run -c release MonitoringAccuracy [--seeds 101-110] [--scenarios day-commute,hour-errands]
//                                                            [--output accuracy/monitoring/results.md]

import Foundation
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneSimulation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}
func f(_ x: Double?, _ digits: Int = 1) -> String {
    guard let x, x.isFinite else { return "–" }
    return String(format: "%.\(digits)f", x)
}
func percentile(_ xs: [Double], _ p: Double) -> Double? {
    guard !xs.isEmpty else { return nil }
    let s = xs.sorted()
    return s[min(s.count - 1, Int((p * Double(s.count - 1)).rounded()))]
}

// MARK: Options

var seeds: ClosedRange<UInt64> = 101...110
var scenarioNames = ["day-commute", "hour-errands"]
var outputPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    switch a {
    case "--seeds":
        let parts = (arguments.popFirst() ?? "").split(separator: "-").compactMap { UInt64($0) }
        guard let lo = parts.first, let hi = parts.last, lo <= hi else { fail("--seeds needs A-B, e.g. 101-105") }
        seeds = lo...hi
    case "--scenarios":
        scenarioNames = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
    case "--output":
        outputPath = arguments.popFirst()
    default:
        fail("unknown argument \(a); see the header of main.swift")
    }
}

// MARK: The simulated day

/// What the harness keeps of one truth sample (the whole `TruthSample` at 10 Hz for 14.5 h would be 200 MB).
struct TruthPoint {
    var timeS: Double
    var latitudeDeg: Double
    var longitudeDeg: Double
    var speedMps: Double
    var activity: ActivityKind
    var coordinate: Coordinate { Coordinate(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg) }
}

/// The truth at 10 Hz and the receiver's fixes (1 Hz, none indoors or in tunnels) of one scenario and seed.
struct Day {
    var truth: [TruthPoint] = []
    var fixes: [Location] = []
    /// The activity as the classifier reports it, once a second (see `reportedActivity`).
    var activity: [MotionActivity.Kind] = []
}

/// 95 % radius of a circular Gaussian from the simulator's DRMS: σ per axis = DRMS/√2, r95 = σ √(2 ln 20).
let drmsTo95 = (2 * log(20.0)).squareRoot() / 2.0.squareRoot()

func simulate(_ scenario: Scenario, seed: UInt64) -> Day {
    var generator = TrajectoryGenerator(scenario: scenario, seed: seed)
    var receiver = GNSSSimulator(seed: seed &+ 7_919)
    var day = Day()
    let endS = scenario.totalDurationS
    var step = 0
    while Double(step) * 0.1 <= endS {
        let t = Double(step) * 0.1
        let truth = generator.sample(atTimeS: t)
        let v = truth.velocityENUMps
        day.truth.append(
            TruthPoint(
                timeS: t, latitudeDeg: truth.latitudeDeg, longitudeDeg: truth.longitudeDeg,
                speedMps: (v.x * v.x + v.y * v.y).squareRoot(), activity: truth.activity))
        if let fix = receiver.fix(for: truth) {
            day.fixes.append(
                Location(
                    coordinate: Coordinate(latitudeDeg: fix.latitudeDeg, longitudeDeg: fix.longitudeDeg),
                    horizontalAccuracyM: fix.horizontalAccuracyM * drmsTo95, speedMps: fix.speedMps, timeS: fix.timeS))
        }
        step += 1
    }
    day.activity = reportedActivity(day.truth)
    return day
}

/// The truth's activity as a classifier reports it, once a second: 10 s late, and automotive through stops of less
/// than 3 minutes between two drives (Core Motion says automotive while waiting in traffic; `MotionActivity.Kind.drive`).
func reportedActivity(_ truth: [TruthPoint]) -> [MotionActivity.Kind] {
    let perSecond = stride(from: 0, to: truth.count, by: 10).map { truth[$0].activity }
    var kinds: [MotionActivity.Kind] = perSecond.map {
        switch $0 {
        case .stationary: .stationary
        case .walk: .walk
        case .run: .run
        case .cycle: .cycle
        case .drive: .drive
        }
    }
    var i = 0
    while i < kinds.count {
        if kinds[i] == .stationary, i > 0, kinds[i - 1] == .drive {
            var j = i
            while j < kinds.count && kinds[j] == .stationary { j += 1 }
            if j < kinds.count && kinds[j] == .drive && j - i < 180 { for k in i..<j { kinds[k] = .drive } }
            i = j
        } else {
            i += 1
        }
    }
    let lagS = 10
    return (0..<kinds.count).map { kinds[max(0, $0 - lagS)] }
}

// MARK: Regions and their true crossings

/// Regions placed around the route: on it (the route passes through, centre off the route by up to 0.9 r) and off it
/// (the chosen route point is `offRouteGapM`, 20 m to 3 km, outside the boundary; other parts of the route may come
/// nearer); radii log-uniform 50 m–5 km.
func placeRegions(
    _ day: Day, seed: UInt64, onRoute: Int = 30, offRoute: Int = 20, offRouteGapM: ClosedRange<Double> = 20...3_000
) -> [CircularRegion] {
    var rng = SeededGenerator(seed: seed &* 31 &+ 5)
    // Route points: where the carrier moves (speed > 0.5 m/s), once a second.
    let route = stride(from: 0, to: day.truth.count, by: 10).map { day.truth[$0] }.filter { $0.speedMps > 0.5 }
    var regions: [CircularRegion] = []
    for i in 0..<(onRoute + offRoute) {
        let p = route[Int(rng.uniform() * Double(route.count - 1))]
        let radiusM = 50 * pow(100, rng.uniform())
        let distanceM = i < onRoute ? radiusM * rng.uniform(in: 0...0.9) : radiusM + rng.uniform(in: offRouteGapM)
        let c = Geodesic.wgs84.direct(
            latitudeDeg: p.latitudeDeg, longitudeDeg: p.longitudeDeg, azimuthDeg: rng.uniform(in: -180...180),
            distanceM: distanceM)!
        regions.append(
            try! CircularRegion(
                id: "\(i < onRoute ? "on" : "off")\(i)", latitudeDeg: c.latitudeDeg,
                longitudeDeg: c.longitudeDeg, radiusM: radiusM))
    }
    return regions
}

/// A true crossing of a region's boundary.
struct Crossing {
    var timeS: Double
    var entering: Bool
    /// The deepest the truth went on the far side before crossing back (or the end), m.
    var depthM: Double
    /// How long it stayed on the far side, s.
    var durationS: Double
    /// At least one fix fell between this crossing and the next (or the end): the receiver could see it.
    var observable = true
}

/// The truth's signed distance to the boundary (positive inside), every 0.1 s.
/// Far from the boundary an equirectangular distance (within 1 % here) decides; near it, the geodesic.
func signedDepths(_ truth: [TruthPoint], _ region: CircularRegion) -> [Double] {
    let c = region.center
    let metresPerDegree = 111_320.0
    let cosLat = cos(c.latitudeDeg * .pi / 180)
    return truth.map { s in
        let dy = (s.latitudeDeg - c.latitudeDeg) * metresPerDegree
        let dx = (s.longitudeDeg - c.longitudeDeg) * metresPerDegree * cosLat
        let approx = (dx * dx + dy * dy).squareRoot()
        if abs(approx - region.radiusM) > 0.01 * approx + 50 { return region.radiusM - approx }
        return region.radiusM - s.coordinate.distanceM(to: c)!
    }
}

/// Whether a fix time in (`after`, `before`) satisfies `clear`; `times` sorted.
func hasFix(_ times: [Double], after: Double, before: Double, _ clear: (Double) -> Bool) -> Bool {
    var a = 0, b = times.count
    while a < b {
        let m = (a + b) / 2
        if times[m] <= after { a = m + 1 } else { b = m }
    }
    while a < times.count && times[a] < before {
        if clear(times[a]) { return true }
        a += 1
    }
    return false
}

func crossings(_ truth: [TruthPoint], depths: [Double], fixTimes: [Double]) -> [Crossing] {
    var out: [Crossing] = []
    for i in 1..<depths.count where (depths[i - 1] > 0) != (depths[i] > 0) {
        let t0 = truth[i - 1].timeS, t1 = truth[i].timeS
        let t = t0 + (t1 - t0) * depths[i - 1] / (depths[i - 1] - depths[i])
        out.append(Crossing(timeS: t, entering: depths[i] > 0, depthM: 0, durationS: 0))
    }
    for k in out.indices {
        let start = out[k].timeS, end = k + 1 < out.count ? out[k + 1].timeS : truth.last!.timeS
        let lo = Int(start * 10), hi = min(depths.count - 1, Int(end * 10) + 1)
        var deepest = 0.0
        for i in lo...hi { deepest = max(deepest, out[k].entering ? depths[i] : -depths[i]) }
        out[k].depthM = deepest
        out[k].durationS = end - start
        // Observable: the receiver had a fix with the carrier at least `marginalDepthM` clear of the boundary on the
        // near side (between the previous crossing and this one) and on the far side (between this one and the next).
        // An exit from a region the carrier crossed in a tunnel, or entered only by a few metres before going
        // indoors, cannot be reported by anything that decides from fixes.
        let previous = k > 0 ? out[k - 1].timeS : -Double.infinity
        let sign = out[k].entering ? 1.0 : -1.0
        out[k].observable =
            hasFix(fixTimes, after: start, before: end) { sign * depths[min(depths.count - 1, Int($0 * 10))] >= marginalDepthM }
            && hasFix(fixTimes, after: previous, before: start) {
                -sign * depths[min(depths.count - 1, Int($0 * 10))] >= marginalDepthM
            }
    }
    return out
}

// MARK: Region monitoring: one trial

struct RegionTally {
    var crossings = 0, crossingsClear = 0, missed = 0, missedClear = 0, missedClearLarge = 0, falseEvents = 0
    var falseEventsLarge = 0
    var unobservable = 0, marginal = 0, wrongInitial = 0, initialDecided = 0, events = 0, merged = 0
    var delaysS: [Double] = []
    var delaysLargeS: [Double] = []
    var fixesUsed = 0, fixesAvailable = 0
    var missedDetail: [String] = []
    var falseDetail: [String] = []

    mutating func add(_ o: RegionTally) {
        crossings += o.crossings; crossingsClear += o.crossingsClear; missed += o.missed; missedClear += o.missedClear
        missedClearLarge += o.missedClearLarge
        falseEvents += o.falseEvents; falseEventsLarge += o.falseEventsLarge; unobservable += o.unobservable
        marginal += o.marginal; merged += o.merged; wrongInitial += o.wrongInitial; initialDecided += o.initialDecided;
        events += o.events
        delaysS += o.delaysS; delaysLargeS += o.delaysLargeS; fixesUsed += o.fixesUsed; fixesAvailable += o.fixesAvailable
        missedDetail += o.missedDetail; falseDetail += o.falseDetail
    }
}

/// Crossings shallower than this, or shorter than `marginalDurationS`, are marginal: the truth dips across the boundary
/// by less than a fix's accuracy circle and its margin, which no receiver-based monitor can see reliably.
let marginalDepthM = 15.0
let marginalDurationS = 10.0

/// Runs the monitor over the day's fixes — every fix, or (`paced`) only those `MonitoringDemand` asks for — and
/// matches its events with the true crossings.
/// Each region's truth: signed depths every 0.1 s and crossings.
struct RegionTruth {
    var depths: [Double]
    var crossings: [Crossing]
}

func regionTruth(_ day: Day, _ regions: [CircularRegion]) -> [RegionTruth] {
    let fixTimes = day.fixes.map(\.timeS)
    return regions.map { r in
        let depths = signedDepths(day.truth, r)
        return RegionTruth(depths: depths, crossings: crossings(day.truth, depths: depths, fixTimes: fixTimes))
    }
}

func monitorTrial(_ day: Day, _ regions: [CircularRegion], _ truths: [RegionTruth], paced: Bool, label: String) -> RegionTally {
    var monitor = RegionMonitor()
    for r in regions { try! monitor.add(r) }
    var events: [MonitorEvent] = []
    var tally = RegionTally()
    var nextDueS = -Double.infinity
    var lastActivity: MotionActivity.Kind = .unknown
    for location in day.fixes {
        tally.fixesAvailable += 1
        let second = min(day.activity.count - 1, Int(location.timeS))
        let activity = day.activity[max(0, second)]
        if paced {
            // A change of activity re-plans at once (the scheduler's motion state does).
            if activity != lastActivity { nextDueS = -Double.infinity; lastActivity = activity }
            guard location.timeS >= nextDueS - 1e-6 else { continue }
        }
        tally.fixesUsed += 1
        monitor.evaluate(location) { events.append($0) }
        if paced {
            let demand = MonitoringDemand.demand(
                nearestBoundaryM: monitor.nearestBoundaryDistanceM(from: location.coordinate).map {
                    max(0, $0 - location.horizontalAccuracyM)
                },
                speedMps: location.speedMps, activity: activity)
            nextDueS = demand.fixIntervalS.map { location.timeS + $0 } ?? .infinity
        }
    }
    tally.events = events.count
    for (region, truth) in zip(regions, truths) {
        let depths = truth.depths
        let truthCrossings = truth.crossings
        var mine = events.filter { $0.conditionId == region.id }
        // The first decision (unknown → …) is no crossing: is it right?
        if let first = mine.first, first.previousState == .unknown {
            tally.initialDecided += 1
            let i = min(depths.count - 1, Int((first.timeS * 10).rounded()))
            if (depths[i] > 0) != (first.state == .satisfied) { tally.wrongInitial += 1 }
            // Crossings before the first decision are not the monitor's to report.
            mine.removeFirst()
        }
        let decidedS = events.first { $0.conditionId == region.id }?.timeS ?? .infinity
        var used = [Bool](repeating: false, count: mine.count)
        var previousMissedMarginal = false
        for (k, c) in truthCrossings.enumerated() where c.timeS > decidedS {
            let marginal = c.depthM < marginalDepthM || c.durationS < marginalDurationS
            // The crossing back after a marginal one the monitor (rightly) did not report: its state never changed, so
            // there is nothing to report either (an event, if one comes, is still matched to it below).
            let merged = previousMissedMarginal
            previousMissedMarginal = false
            tally.crossings += 1
            if !marginal && c.observable { tally.crossingsClear += 1 }
            if marginal { tally.marginal += 1 }
            if !c.observable { tally.unobservable += 1 }
            // The event for it: the first unused one of the same direction after the crossing (less 30 s: a fix's
            // error may show it early) and before the next crossing of the same direction.
            let nextSame = truthCrossings[(k + 1)...].first { $0.entering == c.entering }?.timeS ?? .infinity
            if let j = mine.indices.first(where: {
                !used[$0] && (mine[$0].state == .satisfied) == c.entering && mine[$0].timeS >= c.timeS - 30
                    && mine[$0].timeS < nextSame
            }) {
                used[j] = true
                tally.delaysS.append(mine[j].timeS - c.timeS)
                if region.radiusM >= 100 { tally.delaysLargeS.append(mine[j].timeS - c.timeS) }
            } else if merged {
                tally.merged += 1
            } else {
                tally.missed += 1
                previousMissedMarginal = marginal
                if !marginal && c.observable {
                    tally.missedClear += 1
                    if region.radiusM >= 100 { tally.missedClearLarge += 1 }
                    tally.missedDetail.append(
                        "\(label) \(region.id) r=\(f(region.radiusM, 0)) \(c.entering ? "enter" : "exit") t=\(f(c.timeS)) "
                            + "depth=\(f(c.depthM)) dur=\(f(c.durationS)); first decision at \(f(decidedS)); events: "
                            + mine.map { "\($0.state == .satisfied ? "in" : "out")@\(f($0.timeS))" }.joined(separator: " "))
                }
            }
        }
        for j in mine.indices where !used[j] {
            tally.falseEvents += 1
            if region.radiusM >= 100 { tally.falseEventsLarge += 1 }
            tally.falseDetail.append(
                "\(label) \(region.id) r=\(f(region.radiusM, 0)) \(mine[j].state.rawValue) t=\(f(mine[j].timeS))")
        }
    }
    return tally
}

// MARK: Visits: one trial

/// A true stay: the carrier within `placeRadiusM` of a place where it stood still, for at least 10 minutes (5 for the
/// short stays a visit may also be found at).
struct Stay {
    var center: Coordinate
    var arrivalS: Double
    var departureS: Double?
    var observable: Bool
}

let placeRadiusM = 100.0

/// The true stays: each stationary run (truth speed < 0.2 m/s for ≥ 60 s) starts a place at its position unless the
/// carrier is already at one; the place lasts while the truth is within 100 m of it; arrival is the first moment of
/// the unbroken time within 100 m before the run, departure the last after it.
func trueStays(_ day: Day, minimumS: Double = 600) -> [Stay] {
    let perSecond = stride(from: 0, to: day.truth.count, by: 10).map { day.truth[$0] }
    func coordinate(_ s: TruthPoint) -> Coordinate { s.coordinate }
    func speed(_ s: TruthPoint) -> Double { s.speedMps }
    var stays: [Stay] = []
    var i = 0
    while i < perSecond.count {
        var j = i
        while j < perSecond.count && speed(perSecond[j]) < 0.2 { j += 1 }
        if j - i < 60 {
            i = max(j, i + 1)
            continue
        }
        let center = coordinate(perSecond[i])
        var a = i
        while a > 0 && coordinate(perSecond[a - 1]).distanceM(to: center)! <= placeRadiusM { a -= 1 }
        var d = j
        while d < perSecond.count && coordinate(perSecond[d]).distanceM(to: center)! <= placeRadiusM { d += 1 }
        let arrivalS = perSecond[a].timeS
        let departureS: Double? = d < perSecond.count ? perSecond[d - 1].timeS : nil
        let endS = departureS ?? perSecond.last!.timeS
        if endS - arrivalS >= minimumS {
            // Observable: a fix within the place in the first 5 minutes of the stay.
            let observable = day.fixes.contains {
                $0.timeS >= arrivalS && $0.timeS <= arrivalS + 300 && $0.coordinate.distanceM(to: center)! <= placeRadiusM
            }
            stays.append(Stay(center: center, arrivalS: arrivalS, departureS: departureS, observable: observable))
        }
        i = d
    }
    return stays
}

struct VisitTally {
    var stays = 0, observable = 0, found = 0, falseVisits = 0, shortStayVisits = 0
    var arrivalErrorsS: [Double] = []
    var departureErrorsS: [Double] = []
    var visitsInTraffic = 0
    var detail: [String] = []

    mutating func add(_ o: VisitTally) {
        stays += o.stays; observable += o.observable; found += o.found; falseVisits += o.falseVisits
        shortStayVisits += o.shortStayVisits
        arrivalErrorsS += o.arrivalErrorsS; departureErrorsS += o.departureErrorsS; visitsInTraffic += o.visitsInTraffic
        detail += o.detail
    }
}

func visitTrial(_ day: Day, label: String) -> VisitTally {
    var detector = VisitDetector()
    var visits: [Visit] = []
    var fixIndex = 0
    for second in 0..<day.activity.count {
        let t = Double(second)
        if case .arrival(let v)? = detector.update(activity: day.activity[second], timeS: t) { visits.append(v) }
        while fixIndex < day.fixes.count && day.fixes[fixIndex].timeS <= t {
            switch detector.update(day.fixes[fixIndex]) {
            case .arrival(let v)?: visits.append(v)
            case .departure(let v)?: if let k = visits.lastIndex(where: { $0.arrivalS == v.arrivalS }) { visits[k] = v }
            case nil: break
            }
            fixIndex += 1
        }
        if case .arrival(let v)? = detector.advance(toTimeS: t) { visits.append(v) }
    }
    var tally = VisitTally()
    let stays = trueStays(day)
    var matched = [Bool](repeating: false, count: visits.count)
    for stay in stays {
        tally.stays += 1
        guard stay.observable else {
            tally.detail.append("\(label) stay at \(f(stay.arrivalS, 0))–\(f(stay.departureS, 0)) s: no fix, not observable")
            continue
        }
        tally.observable += 1
        let endS = stay.departureS ?? .infinity
        if let k = visits.indices.first(where: {
            !matched[$0] && visits[$0].arrivalS >= stay.arrivalS - 300 && visits[$0].arrivalS < endS
                && visits[$0].coordinate.distanceM(to: stay.center)! <= 2 * placeRadiusM
        }) {
            matched[k] = true
            tally.found += 1
            tally.arrivalErrorsS.append(visits[k].arrivalS - stay.arrivalS)
            if let d = visits[k].departureS, let truthD = stay.departureS { tally.departureErrorsS.append(d - truthD) }
            tally.detail.append(
                "\(label) stay \(f(stay.arrivalS, 0))–\(f(stay.departureS, 0)) s: visit \(f(visits[k].arrivalS, 0))–"
                    + "\(f(visits[k].departureS, 0)) s")
        } else {
            tally.detail.append("\(label) stay \(f(stay.arrivalS, 0))–\(f(stay.departureS, 0)) s: MISSED")
        }
    }
    // Visits at no stay of 10 minutes: at a stay of 5 to 10 minutes (a shop) they are right; elsewhere false, and in
    // traffic when the truth was driving during the visit's first five minutes.
    let shortStays = trueStays(day, minimumS: 300)
    for k in visits.indices where !matched[k] {
        let v = visits[k]
        if shortStays.contains(where: {
            v.arrivalS >= $0.arrivalS - 300 && v.arrivalS < ($0.departureS ?? .infinity)
                && v.coordinate.distanceM(to: $0.center)! <= 2 * placeRadiusM
        }) {
            tally.shortStayVisits += 1
            tally.detail.append("\(label) visit \(f(v.arrivalS, 0))–\(f(v.departureS, 0)) s: at a stay of 5–10 min")
            continue
        }
        tally.falseVisits += 1
        let lo = Int(v.arrivalS * 10), hi = min(day.truth.count - 1, Int((v.arrivalS + 300) * 10))
        if lo <= hi, day.truth[lo...hi].contains(where: { $0.activity == .drive }) { tally.visitsInTraffic += 1 }
        tally.detail.append("\(label) visit \(f(v.arrivalS, 0))–\(f(v.departureS, 0)) s: no true stay")
    }
    return tally
}

// MARK: Significant change: one trial

struct ChangeTally {
    var events = 0
    /// The farthest the truth was from the last event's location at a fix ≥ 5 minutes after it, m (should stay
    /// near 500 m plus the fix error: anything beyond is a missed change).
    var worstUnreportedM = 0.0
    var missed = 0

    mutating func add(_ o: ChangeTally) {
        events += o.events; worstUnreportedM = max(worstUnreportedM, o.worstUnreportedM); missed += o.missed
    }
}

func changeTrial(_ day: Day) -> ChangeTally {
    var detector = SignificantChangeDetector()
    var tally = ChangeTally()
    var last: SignificantChangeDetector.Change?
    for location in day.fixes {
        if let change = detector.update(location) {
            tally.events += 1
            last = change
            continue
        }
        guard let last, location.timeS - last.timeS >= 300 else { continue }
        let truth = day.truth[min(day.truth.count - 1, Int((location.timeS * 10).rounded()))]
        let d = truth.coordinate.distanceM(to: last.location.coordinate)!
        tally.worstUnreportedM = max(tally.worstUnreportedM, d)
        if d > 500 + 3 * location.horizontalAccuracyM { tally.missed += 1 }
    }
    return tally
}

// MARK: Run

let started = Date()
var lines: [String] = []
var details: [String] = []
var regionRows: [(String, String, RegionTally)] = []
var visitRows: [(String, VisitTally)] = []
var changeRows: [(String, ChangeTally)] = []
for name in scenarioNames {
    guard let scenario = Scenario.named(name) else { fail("no scenario \(name)") }
    var every = RegionTally(), paced = RegionTally(), visits = VisitTally(), changes = ChangeTally()
    var farEvery = RegionTally(), farPaced = RegionTally()
    for seed in seeds {
        let day = simulate(scenario, seed: seed)
        let regions = placeRegions(day, seed: seed)
        let truths = regionTruth(day, regions)
        every.add(monitorTrial(day, regions, truths, paced: false, label: "\(name)#\(seed)"))
        paced.add(monitorTrial(day, regions, truths, paced: true, label: "\(name)#\(seed) paced"))
        let far = placeRegions(day, seed: seed &+ 1_000, onRoute: 0, offRoute: 20, offRouteGapM: 1_000...3_000)
        let farTruths = regionTruth(day, far)
        farEvery.add(monitorTrial(day, far, farTruths, paced: false, label: "\(name)#\(seed) far"))
        farPaced.add(monitorTrial(day, far, farTruths, paced: true, label: "\(name)#\(seed) far paced"))
        visits.add(visitTrial(day, label: "\(name)#\(seed)"))
        changes.add(changeTrial(day))
        FileHandle.standardError.write(Data("\(name) seed \(seed) done (\(Int(Date().timeIntervalSince(started))) s)\n".utf8))
    }
    regionRows.append((name, "every fix (1 Hz)", every))
    regionRows.append((name, "paced by MonitoringDemand", paced))
    regionRows.append((name, "20 regions 1–3 km off the route, every fix", farEvery))
    regionRows.append((name, "20 regions 1–3 km off the route, paced", farPaced))
    visitRows.append((name, visits))
    changeRows.append((name, changes))
    details +=
        every.missedDetail + every.falseDetail + paced.missedDetail + paced.falseDetail + farEvery.missedDetail
        + farEvery.falseDetail + farPaced.missedDetail + farPaced.falseDetail + visits.detail
}

let date = ISO8601DateFormatter().string(from: Date()).prefix(10)
let regionCount = 50
lines.append(
    "Region monitoring on the simulated day scenarios, seeds \(seeds.lowerBound)–\(seeds.upperBound), \(regionCount) regions "
        + "per trial (30 on the route, 20 off it; radii 50 m–5 km; the far rows: 20 others), receiver fixes at 1 Hz (`GNSSSimulator`, none indoors "
        + "or in tunnels). Generated \(date) by `swift run -c release MonitoringAccuracy"
        + (outputPath.map { " --output \($0)" } ?? "") + "` in benchmarks/ (\(Int(Date().timeIntervalSince(started))) s).")
lines.append("")
lines.append(
    "| scenario | fixes | true crossings (clear) | missed (clear; clear with r ≥ 100 m) | false events (r ≥ 100 m) | delay p50 / p95 s (r ≥ 100 m) "
        + "| marginal / unobservable / back after a missed marginal one | wrong first decisions | fixes used |")
lines.append("|---|---|---|---|---|---|---|---|---|")
for (name, row, t) in regionRows {
    lines.append(
        "| \(name) | \(row) | \(t.crossings) (\(t.crossingsClear)) | \(t.missed) (\(t.missedClear); \(t.missedClearLarge)) | \(t.falseEvents) "
            + "(\(t.falseEventsLarge)) | \(f(percentile(t.delaysS, 0.5))) / \(f(percentile(t.delaysS, 0.95))) "
            + "(\(f(percentile(t.delaysLargeS, 0.5))) / \(f(percentile(t.delaysLargeS, 0.95)))) | \(t.marginal) / "
            + "\(t.unobservable) / \(t.merged) | \(t.wrongInitial) of \(t.initialDecided) | \(t.fixesUsed) of \(t.fixesAvailable) "
            + "(\(f(Double(t.fixesAvailable) / Double(max(1, t.fixesUsed))))× fewer) |")
}
lines.append("")
lines.append(
    "| scenario | true stays ≥ 10 min | observable | found | arrival error p50 / max s | departure error p50 / max s "
        + "| visits at stays of 5–10 min | visits with no true stay (in traffic) |")
lines.append("|---|---|---|---|---|---|---|---|")
for (name, t) in visitRows {
    let absA = t.arrivalErrorsS.map(abs), absD = t.departureErrorsS.map(abs)
    lines.append(
        "| \(name) | \(t.stays) | \(t.observable) | \(t.found) | \(f(percentile(absA, 0.5))) / \(f(absA.max())) | "
            + "\(f(percentile(absD, 0.5))) / \(f(absD.max())) | \(t.shortStayVisits) | \(t.falseVisits) (\(t.visitsInTraffic)) |")
}
lines.append("")
lines.append("| scenario | significant changes | worst distance unreported after 5 min, m | missed (> 500 m + 3 × accuracy) |")
lines.append("|---|---|---|---|")
for (name, t) in changeRows { lines.append("| \(name) | \(t.events) | \(f(t.worstUnreportedM)) | \(t.missed) |") }
lines.append("")
lines.append("Every missed clear crossing, false event and stay:")
lines.append("")
lines.append("```")
lines += details
lines.append("```")
let text = lines.joined(separator: "\n") + "\n"
if let outputPath {
    do { try text.write(toFile: outputPath, atomically: true, encoding: .utf8) } catch { fail("\(outputPath): \(error)") }
} else {
    print(text, terminator: "")
}
