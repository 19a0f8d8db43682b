// swift-tools-version:6.1
//
// Lodestone's scheduler evaluation harness (issue 8): a package of its own, like ../Package.swift, so that the root
// package gains no target. `scheduler-harness` runs the simulated board headless through `RunJob` (the same code as
// `lodestone run`, scheduler glue included) once per policy and demand, and writes one JSON summary and one timeline
// per run; report.py turns them into results.md and plan_day.png. See README.md.
import PackageDescription

let package = Package(
    name: "LodestoneSchedulerHarness",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Lodestone", path: "../../..")],
    targets: [
        .executableTarget(
            name: "scheduler-harness",
            dependencies: [.product(name: "LodestoneEngine", package: "Lodestone"),
                           .product(name: "LodestoneScheduler", package: "Lodestone"),
                           .product(name: "LodestoneSimulation", package: "Lodestone"),
                           .product(name: "LodestoneLocation", package: "Lodestone"),
                           .product(name: "LodestoneMotion", package: "Lodestone"),
                           .product(name: "LodestoneEvaluation", package: "Lodestone"),
                           .product(name: "LodestoneMonitoring", package: "Lodestone"),
                           .product(name: "LodestoneCore", package: "Lodestone")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
