// The location accuracy harness: position error against the simulator's truth, with and without fusion,
// and at the end of a 30 s outage. See README.md in this folder for what it measures and the committed results.
//
//   cd benchmarks && swift run -c release LocationAccuracy [--seeds 101-120] [--output accuracy/location/results.md]
//
// Seeds 1–10 were used while tuning the filter's defaults; the committed table uses 101–120.

import Foundation
import LodestoneEngine
import LodestoneLocation

func f(_ x: Double?, _ digits: Int = 1) -> String {
    guard let x, x.isFinite else { return "–" }
    return String(format: "%.\(digits)f", x)
}
func pct(_ x: Double?) -> String { x.map { $0.isFinite ? String(format: "%.1f %%", 100 * $0) : "–" } ?? "–" }

var seeds: ClosedRange<UInt64> = 101...120
var outputPath: String?
var ahrs = ReferenceAHRS.Settings()
var filter = NavigationFilter.Parameters.default
var optimism = 1.0
var scenarios = ["drive", "urban-drive", "mixed-day"]
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    switch a {
    case "--seeds":
        let parts = (arguments.popFirst() ?? "").split(separator: "-").compactMap { UInt64($0) }
        guard parts.count == 2, parts[0] <= parts[1] else { FileHandle.standardError.write(Data("--seeds A-B\n".utf8)); exit(2) }
        seeds = parts[0]...parts[1]
    case "--output": outputPath = arguments.popFirst()
    case "--optimism": optimism = Double(arguments.popFirst() ?? "") ?? 1
    case "--bias-tau": filter.accelerationErrorCorrelationS = Double(arguments.popFirst() ?? "") ?? filter.accelerationErrorCorrelationS
    case "--bias-sigma": filter.accelerationErrorSigmaMps2 = Double(arguments.popFirst() ?? "") ?? filter.accelerationErrorSigmaMps2
    case "--aiding": filter.horizontalAiding = NavigationFilter.HorizontalAiding(rawValue: arguments.popFirst() ?? "") ?? filter.horizontalAiding
    case "--ahrs-kp": ahrs.proportionalGain = Double(arguments.popFirst() ?? "") ?? ahrs.proportionalGain
    case "--ahrs-ki": ahrs.integralGain = Double(arguments.popFirst() ?? "") ?? ahrs.integralGain
    case "--scenarios": scenarios = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
    case "--epochs":
        // --epochs SCENARIO,SEED,MODE: print one trial's epochs as CSV (for plots and debugging).
        let parts = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
        guard parts.count == 3, let seed = UInt64(parts[1]), let mode = LocationTrial.OrientationSource(rawValue: parts[2]) else {
            FileHandle.standardError.write(Data("--epochs SCENARIO,SEED,none|reference|pipeline\n".utf8)); exit(2)
        }
        let epochs = try LocationTrial(options: .init(scenario: parts[0], seed: seed, orientation: mode, filter: filter, receiverOptimism: optimism, ahrs: ahrs)).run()
        print("t_s,fix,multipath,outage,receiver_error_m,receiver_accuracy_m,fused_error_m,fused_accuracy_m,vertical_error_m,vertical_accuracy_m,speed_error_mps,tilt_error_deg,heading_error_deg,acc_err_e,acc_err_n,bias_e,bias_n,receiver_scale")
        for e in epochs {
            print([f(e.timeS, 2), e.hasFix ? "1" : "0", e.isMultipath ? "1" : "0", e.inOutage ? "1" : "0", f(e.receiverErrorM, 2),
                   f(e.receiverAccuracyM, 2), f(e.fusedErrorM, 2), f(e.fusedAccuracyM, 2), f(e.fusedVerticalErrorM, 2), f(e.fusedVerticalAccuracyM, 2),
                   f(e.fusedSpeedErrorMps, 3), f(e.orientationTiltErrorDeg, 2), f(e.orientationHeadingErrorDeg, 2),
                   f(e.accelerationErrorENUMps2?.x, 3), f(e.accelerationErrorENUMps2?.y, 3),
                   f(e.estimatedAccelerationErrorENUMps2?.x, 3), f(e.estimatedAccelerationErrorENUMps2?.y, 3), f(e.receiverVarianceScale, 2)].joined(separator: ","))
        }
        exit(0)
    default: FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8)); exit(2)
    }
}

let modes: [(LocationTrial.OrientationSource, String)] = [
    (.none, "GNSS only (no orientation)"),
    (.reference, "GNSS + IMU + baro (reference AHRS)"),
    (.pipeline, "pipeline (this build's orientation stage)"),
]
var lines: [String] = []
lines.append("| scenario | fusion | receiver p50 / p95 m | fused p50 / p95 m | coverage at fixes | coverage all | vertical coverage | multipath fixes: receiver / fused p50 m | outage end: fused mean / max m | outage end: accuracy m | outage end: coverage | outage end: last fix held m |")
lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
let start = Date()
for scenario in scenarios {
    for (mode, label) in modes {
        var runs: [[LocationTrial.Epoch]] = []
        for seed in seeds {
            do {
                runs.append(try LocationTrial(options: .init(scenario: scenario, seed: seed, orientation: mode, filter: filter, receiverOptimism: optimism, ahrs: ahrs)).run())
            } catch {
                FileHandle.standardError.write(Data("\(scenario) seed \(seed): \(error.message)\n".utf8)); exit(1)
            }
        }
        let s = LocationAccuracySummary(trials: runs)
        let multipath = s.multipathFixes == 0 ? "–" : "\(f(s.multipathReceiverMedianM)) / \(f(s.multipathFusedMedianM)) (\(s.multipathFixes))"
        let outage = s.outages == 0 ? "–" : "\(f(s.outageEndFusedMeanM)) / \(f(s.outageEndFusedMaxM))"
        lines.append("| \(scenario) | \(label) | \(f(s.receiverMedianM)) / \(f(s.receiverP95M)) | \(f(s.fusedMedianM)) / \(f(s.fusedP95M)) | "
                     + "\(pct(s.coverageAtFixes)) | \(pct(s.coverageAll)) | \(pct(s.verticalCoverage)) | \(multipath) | \(outage) | "
                     + "\(f(s.outageEndAccuracyMeanM)) | \(pct(s.outageEndCoverage)) | \(f(s.outageEndHeldFixMeanM)) |")
        print(lines.last!)
    }
}
let elapsed = Date().timeIntervalSince(start)
print("\(scenarios.count * modes.count * seeds.count) trials in \(f(elapsed, 0)) s")
if let outputPath {
    let text = """
    Location accuracy on the simulated board, seeds \(seeds.lowerBound)–\(seeds.upperBound) (\(seeds.count) trials per row), \
    generated by `swift run -c release LocationAccuracy --output \(outputPath)` in benchmarks/.

    \(lines.joined(separator: "\n"))

    """
    try text.write(toFile: outputPath, atomically: true, encoding: .utf8)
}
