// motion-harness: the Swift side of the motion accuracy harness (see ../../README.md).
//
//   motion-harness features [--event-rate-hz R|random] [--seed N] --output FEATURES.csv TRACE...
//       Runs `ActivityFeatures` (the engine's own code) over each trace and writes one row per window:
//       session,subject,t_s,label,<ActivityFeatures.names…>. The label is the trace's `label` (datasets) or
//       `gt_activity` (simulated traces) at the end of the window. `--event-rate-hz` degrades the input the
//       way event-driven phone logs are degraded (each accelerometer row keeps its value with probability
//       R·dt, else repeats the last kept one; `random` draws R in 1.5…6 Hz per trace): training material
//       for sampling robustness. `--held-values hold` keeps a logger's held values as steps instead of
//       interpolating them (ActivityFeatures.Parameters.interpolatesHeldValues; for comparison).
//
//   motion-harness record --scenario NAME [--noise consumer|bmp388] [--seed N] [--duration S] --output TRACE.csv
//       Runs the simulated board through a catalog scenario exactly as `lodestone run` samples it (register-level
//       MPU-9250 at 100 Hz and BMP280 at 25 Hz read by the real drivers, the simulated receiver's 1 Hz fixes) but
//       with a choice of barometer noise (`bmp388`: SensorNoise.consumerMEMSWithBMP388), and writes a trace with
//       the truth (gt_height_m, gt_pressure_pa, gt_activity, gt_floor).
//
//   motion-harness simulate --seed N --count K --output DIR
//       Writes K simulated traces (random scenarios: activities, durations, board mountings, stairs and lifts)
//       through the trajectory generator and consumer-MEMS noise, in the trace format with `gt_activity`.
import Foundation
import LodestoneCore
import LodestoneEngine
import LodestoneMotion
import LodestoneSimulation

struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("motion-harness: \(message)\n".utf8))
    exit(1)
}

/// Command-line arguments: `--name value` options and the rest as inputs.
struct Arguments {
    var options: [String: String] = [:]
    var inputs: [String] = []

    init(_ args: ArraySlice<String>) {
        var i = args.startIndex
        while i < args.endIndex {
            let a = args[i]
            if a.hasPrefix("--"), i + 1 < args.endIndex {
                options[String(a.dropFirst(2))] = args[i + 1]
                i += 2
            } else {
                inputs.append(a)
                i += 1
            }
        }
    }
}

/// `hugadb_01_walking_00` → `hugadb-01`, `tmd_andrea_Car_…` → `tmd-andrea`, `ml4qs_austin_…` → `ml4qs-austin`.
func subject(ofSession name: String) -> String {
    let parts = name.split(separator: "_")
    return parts.count >= 2 ? "\(parts[0])-\(parts[1])" : name
}

func sessionName(_ path: String) -> String {
    var name = (path as NSString).lastPathComponent
    for suffix in [".gz", ".csv"] where name.hasSuffix(suffix) { name = String(name.dropLast(suffix.count)) }
    return name
}

func features(_ args: Arguments) throws {
    guard let output = args.options["output"] else { fail("features: --output FILE is required") }
    var random = SeededGenerator(seed: UInt64(args.options["seed"] ?? "1") ?? 1)
    let eventRate = args.options["event-rate-hz"]
    var out = "session,subject,t_s,label," + ActivityFeatures.names.joined(separator: ",") + "\n"
    for path in args.inputs {
        let text = try TraceFiles.readText(path: path)
        var parser = TraceParser(text: text, path: path)
        var parameters = ActivityFeatures.Parameters()
        if args.options["held-values"] == "hold" { parameters.interpolatesHeldValues = false }
        var extractor = ActivityFeatures(parameters: parameters)
        let session = sessionName(path)
        let who = subject(ofSession: session)
        var rate: Double?
        if let e = eventRate { rate = e == "random" ? random.uniform(in: 1.5...6) : Double(e) }
        var kept: (Vector3, Vector3?)?
        var lastTime: Double?
        var label = ""
        while let row = try parser.next() {
            if let l = row.label ?? row.truth?.activity { label = l }
            guard var acc = row.accelerationMps2 else { continue }
            var gyro = row.angularVelocityRadS
            if let r = rate {
                let dt = lastTime.map { max(0, row.timeS - $0) } ?? 1
                if let k = kept, random.uniform(in: 0...1) >= r * dt {
                    (acc, gyro) = k
                } else {
                    kept = (acc, gyro)
                }
                lastTime = row.timeS
            }
            if extractor.add(specificForceMps2: acc, angularVelocityRadS: gyro, timeS: row.timeS),
                let end = extractor.windowEndTimeS
            {
                out += "\(session),\(who),\(formatFixed(end, digits: 2)),\(label)"
                for v in extractor.values { out += v.isNaN ? ",nan" : ",\(v)" }
                out += "\n"
            }
        }
    }
    try out.write(toFile: output, atomically: true, encoding: .utf8)
}

/// Random scenarios for training and testing: a walk through every activity with random durations, turns,
/// speeds, stairs and lifts, and the board held at a random orientation for the whole trace.
func simulate(_ args: Arguments) throws {
    guard let directory = args.options["output"] else { fail("simulate: --output DIR is required") }
    let seed = UInt64(args.options["seed"] ?? "1") ?? 1
    let count = Int(args.options["count"] ?? "10") ?? 10
    let rateHz = Double(args.options["rate-hz"] ?? "50") ?? 50
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var random = SeededGenerator(seed: seed)
    let kinds: [SegmentKind] = [.stationary, .walk, .run, .cycle, .drive, .stairsUp, .stairsDown, .liftUp, .liftDown]
    for n in 0..<count {
        var segments: [ScenarioSegment] = []
        var total = 0.0
        while total < 600 {
            let kind = kinds[Int(random.uniform(in: 0...0.999_999) * Double(kinds.count))]
            let duration = kind.verticalDirection != 0 ? random.uniform(in: 15...40) : random.uniform(in: 20...120)
            let floors = kind.verticalDirection != 0 ? Int(random.uniform(in: 1...3.999)) : 0
            let speed: Double? =
                switch kind {
                case .walk: random.uniform(in: 1.0...1.8)
                case .run: random.uniform(in: 2.3...4.5)
                case .cycle: random.uniform(in: 3...8)
                case .drive: random.uniform(in: 5...25)
                default: nil
                }
            segments.append(
                ScenarioSegment(
                    kind, durationS: duration, speedMps: speed,
                    headingChangeDeg: random.uniform(in: -180...180), floors: floors))
            total += duration
        }
        let axis = Vector3(random.gaussian(), random.gaussian(), random.gaussian())
        let mounting = Quaternion(axis: axis, angleRad: random.uniform(in: 0...Double.pi))
        let scenario = Scenario(
            name: "training-\(seed)-\(n)", summary: "random", segments: segments,
            startLatitudeDeg: 47.3769, startLongitudeDeg: 8.5417, startHeightM: 455.5,
            startHeadingDeg: random.uniform(in: 0...360), startDecimalYear: 2026.5,
            geoidUndulationM: 47.5, boardMounting: mounting)
        var generator = TrajectoryGenerator(scenario: scenario, seed: seed &* 1000 &+ UInt64(n))
        let noise = SensorNoise.consumerMEMS
        let accSigma = noise.accelerometer.noiseDensityMps2PerRootHz * (rateHz / 2).squareRoot()
        let gyroSigma = noise.gyroscope.noiseDensityRadSPerRootHz * (rateHz / 2).squareRoot()
        let accBias = Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * noise.accelerometer.turnOnBiasSigmaMps2
        let gyroBias = Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * noise.gyroscope.turnOnBiasSigmaRadS
        var text = "t_s,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,gt_activity\n"
        var i = 0
        while Double(i) / rateHz < total {
            let t = Double(i) / rateHz
            let truth = generator.sample(atTimeS: t)
            let f =
                truth.specificForceBoardMps2 + accBias + Vector3(random.gaussian(), random.gaussian(), random.gaussian())
                * accSigma
            let w =
                truth.angularVelocityBoardRadS + gyroBias + Vector3(random.gaussian(), random.gaussian(), random.gaussian())
                * gyroSigma
            text +=
                "\(formatFixed(t, digits: 3)),\(formatFixed(f.x, digits: 4)),\(formatFixed(f.y, digits: 4)),\(formatFixed(f.z, digits: 4)),"
            text +=
                "\(formatFixed(w.x, digits: 5)),\(formatFixed(w.y, digits: 5)),\(formatFixed(w.z, digits: 5)),\(truth.activity.rawValue)\n"
            i += 1
        }
        try text.write(toFile: "\(directory)/sim_s\(seed)n\(n)_random.csv", atomically: true, encoding: .utf8)
    }
}

func record(_ args: Arguments) throws {
    guard let output = args.options["output"], let name = args.options["scenario"], let scenario = Scenario.named(name) else {
        fail("record: --scenario NAME (from the catalog) and --output FILE are required")
    }
    let seed = UInt64(args.options["seed"] ?? "1") ?? 1
    let noise: SensorNoise = args.options["noise"] == "bmp388" ? .consumerMEMSWithBMP388 : .consumerMEMS
    let duration = Double(args.options["duration"] ?? "") ?? scenario.totalDurationS + 10
    var sampler = try SimulatedSampler(scenario: scenario, noise: noise, seed: seed)
    var text =
        "t_s,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,pressure_pa,lat_deg,lon_deg,height_m,speed_mps,h_acc_m,"
        + "gt_height_m,gt_pressure_pa,gt_activity,gt_floor\n"
    func cell(_ v: Double?, _ digits: Int) -> String { v.map { formatFixed($0, digits: digits) } ?? "" }
    while true {
        let (r, fix, truth) = try sampler.next()
        let t = r.timeS
        guard t <= duration else { break }
        let p = r.pressurePa
        let a = r.accelerationMps2 ?? .zero, w = r.angularVelocityRadS ?? .zero
        text +=
            "\(formatFixed(t, digits: 2)),\(cell(a.x, 4)),\(cell(a.y, 4)),\(cell(a.z, 4)),\(cell(w.x, 5)),\(cell(w.y, 5)),\(cell(w.z, 5)),"
        text += "\(cell(p, 2)),\(cell(fix?.latitudeDeg, 8)),\(cell(fix?.longitudeDeg, 8)),\(cell(fix?.heightM, 2)),"
        text += "\(cell(fix?.speedMps, 2)),\(cell(fix?.horizontalAccuracyM, 2)),"
        text += "\(cell(truth.heightM, 3)),\(cell(truth.pressurePa, 2)),\(truth.activity.rawValue),\(truth.floor)\n"
    }
    try text.write(toFile: output, atomically: true, encoding: .utf8)
}

let args = CommandLine.arguments
guard args.count >= 2 else { fail("usage: motion-harness features|simulate …") }
do {
    switch args[1] {
    case "features": try features(Arguments(args.dropFirst(2)))
    case "simulate": try simulate(Arguments(args.dropFirst(2)))
    case "record": try record(Arguments(args.dropFirst(2)))
    default: fail("unknown command \(args[1]); use features, simulate or record")
    }
} catch {
    fail("\(error)")
}
