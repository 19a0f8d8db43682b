// The location accuracy harness: position error against the simulator's truth, with and without fusion,
// and at the end of a 30 s outage. See README.md in this folder for what it measures and the committed results.
//
//   cd benchmarks && swift run -c release LocationAccuracy [--seeds 101-120] [--output accuracy/location/results.md]
//
// Seeds 1–10 were used while tuning the filter's defaults; the committed table uses 101–120.

import Foundation
import LodestoneEngine
import LodestoneEvaluation
import LodestoneLocation

func f(_ x: Double?, _ digits: Int = 1) -> String {
    guard let x, x.isFinite else { return "–" }
    return String(format: "%.\(digits)f", x)
}
func pct(_ x: Double?) -> String { x.map { $0.isFinite ? String(format: "%.1f %%", 100 * $0) : "–" } ?? "–" }
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// One row of the table: where the orientation comes from and how the filter uses it.
struct Row {
    var key: String
    var label: String
    var source: LocationTrial.OrientationSource
    var vehicleFrame: Bool
}
let rows = [
    Row(key: "gnss", label: "GNSS only (no orientation)", source: .none, vehicleFrame: true),
    Row(key: "orientation", label: "pipeline, acceleration through the orientation", source: .pipeline, vehicleFrame: false),
    Row(key: "pipeline", label: "pipeline (GNSS + IMU + baro, vehicle frame)", source: .pipeline, vehicleFrame: true)
]

var seeds: ClosedRange<UInt64> = 101...120
var outputPath: String?
var filter = NavigationFilter.Parameters.default
var optimism = 1.0
var removesCarrierAcceleration = true
var scenarios = ["drive", "urban-drive", "mixed-day"]
var rowKeys = rows.map(\.key)
var arguments = CommandLine.arguments.dropFirst()
@MainActor func number(_ flag: String) -> Double {
    guard let x = Double(arguments.popFirst() ?? "") else { fail("\(flag) needs a number") }
    return x
}
while let a = arguments.popFirst() {
    switch a {
    case "--seeds":
        let parts = (arguments.popFirst() ?? "").split(separator: "-").compactMap { UInt64($0) }
        guard parts.count == 2, parts[0] <= parts[1] else { fail("--seeds A-B") }
        seeds = parts[0]...parts[1]
    case "--output": outputPath = arguments.popFirst()
    case "--optimism": optimism = number(a)
    case "--no-carrier-acceleration": removesCarrierAcceleration = false
    case "--mount-sigma": filter.mountedAccelerationErrorSigmaMps2 = number(a)
    case "--mount-tau": filter.mountedAccelerationErrorCorrelationS = number(a)
    case "--mount-psd": filter.mountedAccelerationPSD = number(a)
    case "--aiding":
        guard let aiding = NavigationFilter.HorizontalAiding(rawValue: arguments.popFirst() ?? "") else {
            fail("--aiding none|vehicle|full")
        }
        filter.horizontalAiding = aiding
    case "--scenarios": scenarios = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
    case "--rows": rowKeys = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
    case "--epochs":
        // --epochs SCENARIO,SEED,ROW: print one trial's epochs as CSV (for plots and debugging).
        let parts = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
        guard parts.count == 3, let seed = UInt64(parts[1]), let row = rows.first(where: { $0.key == parts[2] }) else {
            fail("--epochs SCENARIO,SEED," + rows.map(\.key).joined(separator: "|"))
        }
        var p = filter
        p.learnsVehicleFrame = row.vehicleFrame
        let epochs = try LocationTrial(
            options: .init(
                scenario: parts[0], seed: seed, orientation: row.source, filter: p,
                receiverOptimism: optimism, removesCarrierAcceleration: removesCarrierAcceleration)
        ).run()
        print(
            "t_s,fix,multipath,outage,receiver_error_m,receiver_accuracy_m,fused_error_m,fused_accuracy_m,vertical_error_m,"
                + "vertical_accuracy_m,speed_error_mps,tilt_error_deg,heading_error_deg,acc_err_e,acc_err_n,bias_e,bias_n,"
                + "receiver_scale,true_speed_mps,true_acc_mps2,at_rest,mount_error_deg")
        for e in epochs {
            print(
                [
                    f(e.timeS, 2), e.hasFix ? "1" : "0", e.isMultipath ? "1" : "0", e.inOutage ? "1" : "0",
                    f(e.receiverErrorM, 2),
                    f(e.receiverAccuracyM, 2), f(e.fusedErrorM, 2), f(e.fusedAccuracyM, 2), f(e.fusedVerticalErrorM, 2),
                    f(e.fusedVerticalAccuracyM, 2), f(e.fusedSpeedErrorMps, 3), f(e.orientationTiltErrorDeg, 2),
                    f(e.orientationHeadingErrorDeg, 2), f(e.accelerationErrorENUMps2?.x, 3), f(e.accelerationErrorENUMps2?.y, 3),
                    f(e.estimatedAccelerationErrorENUMps2?.x, 3), f(e.estimatedAccelerationErrorENUMps2?.y, 3),
                    f(e.receiverVarianceScale, 2), f(e.trueSpeedMps, 2), f(e.trueHorizontalAccelerationMps2, 2),
                    e.orientationAtRest ? "1" : "0", f(e.mountForwardErrorDeg, 2)
                ].joined(separator: ","))
        }
        exit(0)
    default: fail("unknown argument \(a)")
    }
}

var lines: [String] = []
lines.append(
    "| scenario | fusion | receiver p50 / p95 m | fused p50 / p95 m | coverage at fixes (worst seed) | coverage all | vertical coverage | multipath fixes: receiver / fused p50 m | outage end: fused mean / max m | outage end: accuracy m | outage end: coverage | outage end: last fix held m |"
)
lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
var diagnostics: [String] = []
diagnostics.append(
    "| scenario | tilt error cruising p50 ° | tilt error manoeuvring p95 / max ° | \"at rest\" while moving > 1 m/s, s | trials never at rest | vehicle forward axis error p95 ° |"
)
diagnostics.append("|---|---|---|---|---|---|")
let start = Date()
for scenario in scenarios {
    for row in rows where rowKeys.contains(row.key) {
        var p = filter
        p.learnsVehicleFrame = row.vehicleFrame
        var runs: [[LocationTrial.Epoch]] = []
        for seed in seeds {
            do {
                runs.append(
                    try LocationTrial(
                        options: .init(
                            scenario: scenario, seed: seed, orientation: row.source, filter: p,
                            receiverOptimism: optimism, removesCarrierAcceleration: removesCarrierAcceleration)
                    ).run())
            } catch {
                fail("\(scenario) seed \(seed): \(error.message)")
            }
        }
        let s = LocationAccuracySummary(trials: runs)
        // The issue's coverage target holds per trial, so the worst seed is shown beside the pooled share.
        let worstCoverage = runs.map { LocationAccuracySummary(trials: [$0]).coverageAtFixes }.min()
        let multipath =
            s.multipathFixes == 0 ? "–" : "\(f(s.multipathReceiverMedianM)) / \(f(s.multipathFusedMedianM)) (\(s.multipathFixes))"
        let outage = s.outages == 0 ? "–" : "\(f(s.outageEndFusedMeanM)) / \(f(s.outageEndFusedMaxM))"
        lines.append(
            "| \(scenario) | \(row.label) | \(f(s.receiverMedianM)) / \(f(s.receiverP95M)) | \(f(s.fusedMedianM)) / \(f(s.fusedP95M)) | "
                + "\(pct(s.coverageAtFixes)) (\(pct(worstCoverage))) | \(pct(s.coverageAll)) | \(pct(s.verticalCoverage)) | \(multipath) | \(outage) | "
                + "\(f(s.outageEndAccuracyMeanM)) | \(pct(s.outageEndCoverage)) | \(f(s.outageEndHeldFixMeanM)) |")
        print(lines.last!)
        if row.key == "pipeline" {
            diagnostics.append(
                "| \(scenario) | \(f(s.cruiseTiltMedianDeg)) | \(f(s.manoeuvreTiltP95Deg)) / \(f(s.manoeuvreTiltMaxDeg)) | "
                    + "\(s.restWhileMovingS) | \(s.trialsNeverAtRest) of \(s.trials) | \(f(s.mountForwardErrorP95Deg)) |")
            print(diagnostics.last!)
        }
    }
}
let elapsed = Date().timeIntervalSince(start)
let trialCount = scenarios.count * rows.filter { rowKeys.contains($0.key) }.count * seeds.count
print("\(trialCount) trials in \(f(elapsed, 0)) s")
if let outputPath {
    let text = """
        Location accuracy on the simulated board, seeds \(seeds.lowerBound)–\(seeds.upperBound) (\(seeds.count) trials per row), \
        generated by `swift run -c release LocationAccuracy --output \(outputPath)` in benchmarks/.

        \(lines.joined(separator: "\n"))

        What the orientation stage handed location fusion in the pipeline rows (the simulator's truth against
        `FusionContext.boardToENU` and `atRest`, once a second):

        \(diagnostics.joined(separator: "\n"))

        """
    try text.write(toFile: outputPath, atomically: true, encoding: .utf8)
}
