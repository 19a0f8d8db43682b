// The scheduler's evaluation harness (issue 8): the simulated board through a day-long scenario, once per policy and
// demand, through `RunJob` (what `lodestone run` runs) via `SchedulingEvaluation`. Writes `<out>/summaries.json` (one
// summary per run) and `<out>/timeline-<demand>-<policy>.csv` (one row per second); `report.py` makes the table and
// the plot. Run from the repository root:
//
//     (cd benchmarks/accuracy/scheduler && swift build -c release)
//     nice benchmarks/accuracy/scheduler/.build/release/scheduler-harness --scenario day-commute --seed 1 --out /tmp/sched
//     python3 benchmarks/accuracy/scheduler/report.py /tmp/sched
import Foundation
import LodestoneEngine
import LodestoneEvaluation
import LodestoneScheduler

/// The demands compared (stated in results.md).
let demandSets: [(name: String, demands: [Demand])] = [
    (
        "foreground-best",
        [
            Demand(
                client: "app", location: LocationDemand(desiredAccuracy: .best, maximumAgeS: 10),
                heading: HeadingDemand(headingFilterDeg: 1), activity: true, altitude: true, foreground: true)
        ]
    ),
    (
        "background-100m",
        [
            Demand(
                client: "logger", location: LocationDemand(desiredAccuracy: .hundredMeters, maximumAgeS: 30),
                activity: true, foreground: false)
        ]
    )
]

var scenario = "day-commute"
var seed: UInt64 = 1
var out = "/tmp/scheduler-harness"
var boardPath = "boards/simulated.json"
var policies = SchedulingConfiguration.policyNames
var demandFilter: String?
var durationS: Double?
// Monitoring mode (issue 16): --monitoring [--seeds 1,7] [--runs far,mixed,significant-change,always-on]
// [--markdown FILE]; --merge DIR,DIR prints the section from earlier runs' monitoring.json. See Monitoring.swift.
var monitoring = false
var seeds: [UInt64] = [1, 7]
var runs = ["far", "mixed", "significant-change", "always-on"]
var markdown: String?
var merge: [String]?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--monitoring": monitoring = true
    case "--seeds": seeds = (arguments.next() ?? "").split(separator: ",").compactMap { UInt64($0) }
    case "--runs": runs = (arguments.next() ?? "").split(separator: ",").map(String.init)
    case "--markdown": markdown = arguments.next()
    case "--merge": merge = (arguments.next() ?? "").split(separator: ",").map(String.init)
    case "--scenario": scenario = arguments.next() ?? scenario
    case "--seed": seed = arguments.next().flatMap { UInt64($0) } ?? seed
    case "--out": out = arguments.next() ?? out
    case "--board": boardPath = arguments.next() ?? boardPath
    case "--policies": policies = (arguments.next() ?? "").split(separator: ",").map(String.init)
    case "--demand": demandFilter = arguments.next()
    case "--duration": durationS = arguments.next().flatMap { Double($0) }
    default:
        FileHandle.standardError.write(
            Data(
                ("scheduler-harness: unknown argument \(a); use --scenario, --seed, --out, --board, --policies, --demand, --duration, "
                    + "or --monitoring with --seeds, --runs, --markdown, or --merge\n").utf8))
        exit(2)
    }
}

let board: BoardDescription
do { board = try BoardDescription.load(path: boardPath) } catch {
    FileHandle.standardError.write(Data("scheduler-harness: \(error.description)\n".utf8))
    exit(1)
}
try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
if let merge {
    mergeMonitoring(merge, scenario: scenario, markdown: markdown)
    exit(0)
}
if monitoring {
    runMonitoringMode(
        board: board, scenario: scenario, seeds: seeds, runs: runs, durationS: durationS, out: out, markdown: markdown)
    exit(0)
}

var summaries: [SchedulingEvaluation.Summary] = []
for set in demandSets where demandFilter == nil || demandFilter == set.name {
    for policy in policies {
        // A battery that does not run low over the day (sensors only drain it), so every policy plans in the normal
        // tier; battery life is predicted from the energy account afterwards (SchedulingEvaluation.BatteryModel).
        let configuration = SchedulingConfiguration(
            policy: policy, demands: set.demands,
            battery: .simulated(capacityMilliAmpHour: 3000, levelFraction: 1),
            boardBaselineMilliWatt: 600)
        var drainOnly = configuration
        drainOnly.boardBaselineMilliWatt = 0
        var rows = [SchedulingEvaluation.TimelineRow.header]
        let started = Date()
        do {
            var summary = try SchedulingEvaluation.run(
                board: board, scenario: scenario, seed: seed, configuration: drainOnly,
                demandName: set.name, durationS: durationS,
                timeline: { rows.append($0.csv) })
            // Battery life with the stated board baseline (the drain above left it out so the tier stays normal).
            summary.boardBaselineMilliWatt = configuration.boardBaselineMilliWatt
            summary.batteryLifeWithBaselineH =
                summary.battery.milliWattHours / (summary.meanMilliWatt + configuration.boardBaselineMilliWatt)
            summaries.append(summary)
            writeSummaries()
            let csv = rows.joined(separator: "\n") + "\n"
            try? csv.write(toFile: "\(out)/timeline-\(set.name)-\(policy).csv", atomically: true, encoding: .utf8)
            let wall = Date().timeIntervalSince(started)
            print(
                "\(set.name) \(policy): \(String(format: "%.1f", summary.totalMilliAmpHours)) mAh "
                    + "(GNSS \(String(format: "%.1f", summary.gnssMilliAmpHours))), delivered \(summary.delivered), "
                    + "\(String(format: "%.0f", wall)) s wall")
        } catch {
            FileHandle.standardError.write(Data("scheduler-harness: \(error.description)\n".utf8))
            exit(1)
        }
    }
}
if summaries.isEmpty { writeSummaries() }

/// Writes what was run so far (after every run: a long harness run that is stopped keeps its finished runs).
@MainActor func writeSummaries() {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
        try encoder.encode(summaries).write(to: URL(fileURLWithPath: "\(out)/summaries.json"))
    } catch {
        FileHandle.standardError.write(Data("scheduler-harness: cannot write \(out)/summaries.json: \(error)\n".utf8))
        exit(1)
    }
}
