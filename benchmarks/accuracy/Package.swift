// swift-tools-version:6.1
//
// Lodestone's accuracy harness for altitude, activity and the pedometer (issue 5): a package of its own, like
// ../Package.swift, so that the root package gains no target. `motion-harness` computes the activity
// classifier's features with the Swift code the engine runs (the training script learns from exactly those
// numbers) and generates simulated traces. See README.md.
import PackageDescription

let package = Package(
    name: "LodestoneAccuracy",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Lodestone", path: "../..")],
    targets: [
        .executableTarget(
            name: "motion-harness",
            dependencies: [.product(name: "LodestoneMotion", package: "Lodestone"),
                           .product(name: "LodestoneEngine", package: "Lodestone"),
                           .product(name: "LodestoneSimulation", package: "Lodestone"),
                           .product(name: "LodestoneDrivers", package: "Lodestone"),
                           .product(name: "LodestoneCore", package: "Lodestone")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
