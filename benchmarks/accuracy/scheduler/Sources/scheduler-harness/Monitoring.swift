// The harness's monitoring mode (issue 16, "Low power"): region monitoring and significant change alone — no location
// subscriber — under the adaptive policy, against always-on GNSS, through `SchedulingEvaluation.runMonitoring`, with
// the events the session made scored against the truth (`MonitoringEvaluation`). Writes a markdown section for
// results.md, `<out>/monitoring.json` and, per run, `<out>/plan-<run>-<seed>.csv` (one row per minute: the receiver's
// state, the demand, the truth's nearest boundary). See README.md.
import Foundation
import LodestoneCore
import LodestoneEngine
import LodestoneEvaluation
import LodestoneLocation
import LodestoneMonitoring
import LodestoneScheduler
import LodestoneSimulation

/// One monitoring run's outcome, for monitoring.json.
struct MonitoringOutcome: Codable {
    var run: String
    var policy: String
    var seed: UInt64
    var summary: SchedulingEvaluation.Summary
    var regions: [String: MonitoringEvaluation.RegionScore]
    var changes: MonitoringEvaluation.ChangeScore?
    /// The significant changes the session made: time, s, and the location's claimed accuracy, m.
    var changeEvents: [[Double]]?
    var wallS: Double
}

/// The region sets of one seed: `far` (20 regions 1–3 km off the route) and `mixed` (30 on, 20 off, radii
/// 50 m–5 km), placed as the monitoring harness places them; ids prefixed with the set's name.
func regionSets(truth: [MonitoringEvaluation.TruthPoint], seed: UInt64) -> [(name: String, regions: [CircularRegion])] {
    func prefixed(_ name: String, _ regions: [CircularRegion]) -> [CircularRegion] {
        regions.map { try! CircularRegion(id: "\(name)-\($0.id)", center: $0.center, radiusM: $0.radiusM) }
    }
    let far = MonitoringEvaluation.placeRegions(
        truth: truth, seed: seed &+ 1_000, onRoute: 0, offRoute: 20, offRouteGapM: 1_000...3_000)
    let mixed = MonitoringEvaluation.placeRegions(truth: truth, seed: seed, onRoute: 30, offRoute: 20, offRouteGapM: 20...3_000)
    return [("far", prefixed("far", far)), ("mixed", prefixed("mixed", mixed))]
}

/// Runs the monitoring comparison: per seed, `far` and `mixed` regions and significant change alone under the
/// adaptive policy, and one always-on run with all of them (its energy is the reference; its events are scored too).
@MainActor func runMonitoringMode(
    board: BoardDescription, scenario: String, seeds: [UInt64], runs: [String], durationS: Double?, out: String,
    markdown: String?
) {
    guard let sc = Scenario.named(scenario) else {
        FileHandle.standardError.write(Data("scheduler-harness: scenario \(scenario) is unknown\n".utf8))
        exit(1)
    }
    var outcomes: [MonitoringOutcome] = []
    let started = Date()
    for seed in seeds {
        let truth = MonitoringEvaluation.truth(scenario: sc, seed: seed, durationS: durationS.map { min($0, sc.totalDurationS) })
        let sets = regionSets(truth: truth, seed: seed)
        let all = sets.flatMap(\.regions)
        let setups: [(run: String, policy: String, setup: SchedulingEvaluation.MonitoringSetup)] = [
            ("far", "adaptive", .init(regions: sets[0].regions, name: "far")),
            ("mixed", "adaptive", .init(regions: sets[1].regions, name: "mixed")),
            ("significant-change", "adaptive", .init(significantChange: true, name: "significant-change")),
            ("always-on", "always-on", .init(regions: all, significantChange: true, name: "always-on"))
        ]
        for (run, policy, setup) in setups where runs.contains(run) {
            let runStarted = Date()
            var plan = [PlanRow.header]
            var planner = PlanRecorder(regions: setup.regions)
            let result: SchedulingEvaluation.MonitoringRun
            do throws(JobError) {
                result = try SchedulingEvaluation.runMonitoring(
                    board: board, scenario: scenario, seed: seed, policy: policy, setup: setup, durationS: durationS,
                    observe: { step, truthSample in if let row = planner.observe(step, truthSample) { plan.append(row) } })
            } catch {
                FileHandle.standardError.write(Data("scheduler-harness: \(error.description)\n".utf8))
                exit(1)
            }
            var scores: [String: MonitoringEvaluation.RegionScore] = [:]
            for set in sets where setup.regions.contains(where: { $0.id.hasPrefix(set.name + "-") }) {
                let events = result.regionEvents.filter { $0.conditionId.hasPrefix(set.name + "-") }
                scores[set.name] = MonitoringEvaluation.scoreRegions(
                    truth: truth, regions: set.regions, events: events, label: "\(scenario)#\(seed) \(run)")
            }
            let changes =
                setup.significantChange
                ? MonitoringEvaluation.scoreChanges(
                    truth: truth, events: result.significantChanges.map { ($0.timeS, $0.location.coordinate) }) : nil
            let wall = Date().timeIntervalSince(runStarted)
            outcomes.append(
                MonitoringOutcome(
                    run: run, policy: policy, seed: seed, summary: result.summary, regions: scores, changes: changes,
                    changeEvents: result.significantChanges.map { [$0.timeS, $0.location.horizontalAccuracyM] }, wallS: wall))
            try? (plan.joined(separator: "\n") + "\n").write(
                toFile: "\(out)/plan-\(run)-\(seed).csv", atomically: true, encoding: .utf8)
            writeOutcomes(outcomes, out: out)
            print(
                "\(run) seed \(seed): \(String(format: "%.2f", result.summary.totalMilliWattHours)) mWh (receiver "
                    + "\(String(format: "%.2f", result.summary.gnssMilliAmpHours)) mAh), \(result.regionEvents.count) region events, "
                    + "\(result.significantChanges.count) significant changes, \(String(format: "%.0f", wall)) s wall")
        }
    }
    let text = monitoringMarkdown(outcomes, scenario: scenario, wallS: Date().timeIntervalSince(started))
    if let markdown {
        do { try text.write(toFile: markdown, atomically: true, encoding: .utf8) } catch {
            FileHandle.standardError.write(Data("scheduler-harness: cannot write \(markdown): \(error)\n".utf8))
            exit(1)
        }
    } else {
        print(text, terminator: "")
    }
}

/// Writes what was run so far.
func writeOutcomes(_ outcomes: [MonitoringOutcome], out: String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try? encoder.encode(outcomes).write(to: URL(fileURLWithPath: "\(out)/monitoring.json"))
}

/// Reads outcomes written by earlier processes (`--merge DIR,DIR`) and prints the section from all of them.
@MainActor func mergeMonitoring(_ directories: [String], scenario: String, markdown: String?) {
    var outcomes: [MonitoringOutcome] = []
    for d in directories {
        guard let data = FileManager.default.contents(atPath: "\(d)/monitoring.json"),
            let o = try? JSONDecoder().decode([MonitoringOutcome].self, from: data)
        else {
            FileHandle.standardError.write(Data("scheduler-harness: no readable \(d)/monitoring.json\n".utf8))
            exit(1)
        }
        outcomes += o
    }
    let text = monitoringMarkdown(outcomes, scenario: scenario, wallS: outcomes.map(\.wallS).reduce(0, +))
    if let markdown { try? text.write(toFile: markdown, atomically: true, encoding: .utf8) } else { print(text, terminator: "") }
}

// MARK: - The plan, once a minute

/// One row a minute of a run: what the receiver did and why.
enum PlanRow {
    static let header =
        "t_min,truth_activity,truth_outage,truth_speed_mps,nearest_boundary_m,classifier,motion,location_demand,gnss_mode,"
        + "gnss_state,receiver_on_s,receiver_milliamp_hours,fused_accuracy_m,since_fix_s,fixes_used,fixes_rejected"
}

/// Collects the plan rows: the receiver's time on (acquiring or tracking) during each minute, the state and the demand
/// at its end, and the truth's distance to the nearest monitored boundary.
struct PlanRecorder {
    var monitor: RegionMonitor?
    var nextMinuteS = 60.0
    var previousOnS = 0.0
    var previousReceiverMilliAmpHours = 0.0

    init(regions: [CircularRegion]) {
        guard !regions.isEmpty else { return }
        var m = RegionMonitor()
        for r in regions { _ = try? m.add(r) }
        monitor = m
    }

    mutating func observe(_ core: SessionCore, _ truth: TruthSample) -> String? {
        let state = core.state
        guard state.timeS >= nextMinuteS, let s = state.scheduling else { return nil }
        nextMinuteS += 60
        let energy = s.energy
        let onS = energy.receiverStateS[EnergyAccount.index(.acquiring)] + energy.receiverStateS[EnergyAccount.index(.tracking)]
        let onDuringS = onS - previousOnS
        previousOnS = onS
        let receiver = energy.receiverMilliAmpHours - previousReceiverMilliAmpHours
        previousReceiverMilliAmpHours = energy.receiverMilliAmpHours
        let v = truth.velocityENUMps
        let nearest = monitor?.nearestBoundaryDistanceM(
            from: Coordinate(latitudeDeg: truth.latitudeDeg, longitudeDeg: truth.longitudeDeg))
        var demand = "none"
        if let l = s.scheduler.inputs.demand.location {
            demand = "\(l.desiredAccuracy.rawValue)/filter \(l.distanceFilterM.map { String(format: "%.0f", $0) } ?? "-")"
        }
        var mode = "none"
        switch (s.applied ?? s.scheduler.plan).gnss?.mode {
        case .continuous?: mode = "continuous"
        case .powerSave(let p)?: mode = "power-save \(String(format: "%.0f", p))s"
        case .off?: mode = "off"
        case nil: break
        }
        return [
            String(format: "%.0f", state.timeS / 60), truth.activity.rawValue, truth.gnssOutage ? "1" : "0",
            String(format: "%.1f", (v.x * v.x + v.y * v.y).squareRoot()), nearest.map { String(format: "%.0f", $0) } ?? "",
            state.fusion.context.activity?.kind.rawValue ?? "unknown", s.scheduler.inputs.motion.rawValue, demand, mode,
            s.receiverState?.rawValue ?? "unknown", String(format: "%.0f", onDuringS), String(format: "%.4f", receiver),
            state.fusion.location.latest.map { String(format: "%.0f", $0.horizontalAccuracyM) } ?? "",
            state.fusion.location.latest.map { String(format: "%.0f", $0.sinceFixS) } ?? "",
            "\(state.fusion.location.filter.state.fixesUsed)", "\(state.fusion.location.filter.state.fixesRejected)"
        ].joined(separator: ",")
    }
}

// MARK: - The section

/// The results.md section: energy against always-on, the receiver's time on, and the events against the truth.
func monitoringMarkdown(_ outcomes: [MonitoringOutcome], scenario: String, wallS: Double) -> String {
    func f(_ x: Double?, _ digits: Int = 1) -> String {
        guard let x, x.isFinite else { return "–" }
        return String(format: "%.\(digits)f", x)
    }
    func percentile(_ xs: [Double], _ p: Double) -> Double? { SchedulingEvaluation.percentile(xs, p) }
    let seeds = Array(Set(outcomes.map(\.seed))).sorted()
    let date = ISO8601DateFormatter().string(from: Date()).prefix(10)
    var lines: [String] = []
    lines.append(
        "Scenario `\(scenario)`, seeds \(seeds.map(String.init).joined(separator: ", ")); generated \(date) (\(f(wallS, 0)) s of runs' wall time added up)."
    )
    lines.append("")
    lines.append(
        "| run | policy | seed | total mWh | × less than always-on | receiver mWh | × less | IMU, mag, baro mWh | receiver on (acquiring + tracking) h | power-save idle h | off h |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for o in outcomes {
        let reference = outcomes.first { $0.seed == o.seed && $0.run == "always-on" }?.summary
        let s = o.summary
        let receiverMilliWattHours = s.gnssMilliWattHours
        let referenceReceiver = reference?.gnssMilliWattHours
        let on = (s.gnssStateS["acquiring"] ?? 0) + (s.gnssStateS["tracking"] ?? 0)
        lines.append(
            "| \(o.run) | \(o.policy) | \(o.seed) | \(f(s.totalMilliWattHours)) | "
                + "\(reference.map { f($0.totalMilliWattHours / max(s.totalMilliWattHours, 1e-9)) + "×" } ?? "–") | "
                + "\(f(receiverMilliWattHours)) | \(referenceReceiver.map { f($0 / max(receiverMilliWattHours, 1e-9)) + "×" } ?? "–") | "
                + "\(f(s.imuEtcMilliWattHours)) | \(f(on / 3600, 2)) | "
                + "\(f((s.gnssStateS["powerSaveIdle"] ?? 0) / 3600, 2)) | \(f((s.gnssStateS["off"] ?? 0) / 3600, 2)) |")
    }
    lines.append("")
    lines.append(
        "| regions | run | seed | true crossings (clear) | missed clear (r ≥ 100 m) | false events (r ≥ 100 m) | delay p50 / p95 s (r ≥ 100 m) | marginal / unobservable / back after a missed marginal one | wrong first decisions | undecided regions |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    var details: [String] = []
    for name in ["far", "mixed"] {
        for o in outcomes {
            guard let r = o.regions[name] else { continue }
            details += r.detail
            lines.append(
                "| \(name) | \(o.run) | \(o.seed) | \(r.crossings) (\(r.clearCrossings)) | \(r.missedClear) (\(r.missedClearLarge)) | "
                    + "\(r.falseEvents) (\(r.falseEventsLarge)) | \(f(percentile(r.delaysS, 0.5))) / \(f(percentile(r.delaysS, 0.95))) "
                    + "(\(f(percentile(r.delaysLargeS, 0.5))) / \(f(percentile(r.delaysLargeS, 0.95)))) | \(r.marginal) / "
                    + "\(r.unobservable) / \(r.merged) | \(r.wrongFirstDecisions) of \(r.firstDecisions) | \(r.undecided) |")
        }
    }
    lines.append("")
    lines.append(
        "| significant change | seed | events | changes due (≥ 500 m from the last event, ≥ 5 min after it) | missed (no event by the end) | delay after due p50 / max s | moved before the event p50 / max m | worst distance unreported, m | truth's path, km |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for o in outcomes {
        guard let c = o.changes else { continue }
        lines.append(
            "| \(o.run) | \(o.seed) | \(c.events) | \(c.due) | \(c.missed) | \(f(percentile(c.delaysS, 0.5), 0)) / \(f(c.delaysS.max(), 0)) | "
                + "\(f(percentile(c.extraDistancesM, 0.5), 0)) / \(f(c.extraDistancesM.max(), 0)) | \(f(c.worstUnreportedM, 0)) | "
                + "\(f(c.movedM / 1000)) |")
    }
    if !details.isEmpty {
        lines.append("")
        lines.append("Missed clear crossings and false events:")
        lines.append("")
        lines.append("```")
        lines += details
        lines.append("```")
    }
    return lines.joined(separator: "\n") + "\n"
}
