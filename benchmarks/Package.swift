// swift-tools-version:6.1
//
// Lodestone's benchmarks: a package of its own (as swift-nio's Benchmarks/ is) so that the root package
// does not depend on package-benchmark. Each executable target under Benchmarks/ is one suite; the
// committed thresholds are malloc counts only (Thresholds/*.p90.json), never wall-clock ones.
// Run them with ../scripts/benchmarks; see README.md.
import PackageDescription

let package = Package(
    name: "LodestoneBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Lodestone", path: ".."),
        // package-benchmark (now published as ordo-one/benchmark). Only the MallocInterposer trait, which
        // counts mallocs on Swift 6.3+; the default RuntimeInterposer trait (ARC counters on Linux 6.3) is left
        // off: malloc counts do not need it, and without it SwiftPM does not fetch swift-runtime-interposer.
        // Pinned exactly: Package.resolved is not committed, and ../scripts/benchmarks relies on this
        // version's `baseline update` / `thresholds check` behaviour.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The one benchmark configuration (malloc-count thresholds only), shared by every suite.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        suite("Core", ["LodestoneCore"]),
        suite("Drivers", ["LodestoneCore", "LodestoneDrivers", "LodestoneSimulation"]),
        suite("Simulation", ["LodestoneCore", "LodestoneDrivers", "LodestoneSimulation", "LodestoneEngine", "LodestoneScheduler",
                             "LodestoneEvaluation"]),
        suite("GNSS", ["LodestoneCore", "LodestoneLocation"]),
        suite("Calibration", ["LodestoneCore", "LodestoneCalibration", "LodestoneEngine"]),
        suite("Fusion", ["LodestoneCore", "LodestoneOrientation", "LodestoneEngine"]),
        suite("Location", ["LodestoneCore", "LodestoneLocation"]),
        // Not a benchmark (not under Benchmarks/): the location accuracy harness, run by hand; results committed.
        .executableTarget(
            name: "LocationAccuracy",
            dependencies: [.product(name: "LodestoneEngine", package: "Lodestone"),
                           .product(name: "LodestoneEvaluation", package: "Lodestone"),
                           .product(name: "LodestoneLocation", package: "Lodestone")],
            path: "accuracy/location",
            exclude: ["README.md", "results.md"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // Not a benchmark either: the daemon's load harness (issue 15). It starts the release `lodestone serve` as a
        // child and speaks the native protocol to it, so it needs only the protocol's types. Run by
        // ../scripts/bench-daemon; results committed in daemon/results.md.
        .executableTarget(
            name: "DaemonLoad",
            dependencies: [.product(name: "LodestoneService", package: "Lodestone")],
            path: "daemon",
            exclude: ["README.md", "results.md"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        suite("Motion", ["LodestoneCore", "LodestoneMotion", "LodestoneSimulation", "LodestoneEngine"]),
        suite("Replay", ["LodestoneCore", "LodestoneEngine"]),
        suite("Scheduler", ["LodestoneCore", "LodestoneScheduler"]),
        suite("Energy", ["LodestoneCore", "LodestoneScheduler"]),
        suite("Scheduling", ["LodestoneCore", "LodestoneEngine", "LodestoneScheduler", "LodestoneMotion"]),
        suite("Session", ["LodestoneCore", "LodestoneEngine", "LodestoneEvaluation", "LodestoneSimulation", "LodestoneWire",
                          "LodestoneMonitoring", "LodestoneStore"]),
        // Region monitoring (issue 16): one location evaluated against 1, 1 000 and 100 000 conditions.
        suite("Monitoring", ["LodestoneLocation", "LodestoneMonitoring"]),
        // Not a benchmark: the region monitoring accuracy harness (enter/exit events, visits, significant changes
        // against the simulator's truth), run by hand; results committed.
        .executableTarget(
            name: "MonitoringAccuracy",
            dependencies: [.product(name: "LodestoneMonitoring", package: "Lodestone"),
                           .product(name: "LodestoneSimulation", package: "Lodestone"),
                           .product(name: "LodestoneLocation", package: "Lodestone"),
                           .product(name: "LodestoneMotion", package: "Lodestone")],
            path: "accuracy/monitoring",
            exclude: ["README.md", "results.md"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)

/// One benchmark suite: an executable target in `Benchmarks/<name>/` (where package-benchmark looks).
func suite(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["BenchmarkSupport", .product(name: "Benchmark", package: "benchmark")]
            + products.map { .product(name: $0, package: "Lodestone") },
        path: "Benchmarks/\(name)",
        swiftSettings: [.swiftLanguageMode(.v6)],
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")])
}
