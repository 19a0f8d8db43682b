// swift-tools-version:6.1
//
// Lodestone's fuzz targets (issue 18): one libFuzzer executable, `lodestone-fuzz TARGET [libFuzzer options]`, whose
// targets call the root package's parsers. A package of its own so that the root package's `swift build --build-tests`
// neither builds nor links it: scripts/fuzz builds it with `--sanitize=fuzzer --sanitize=address` into its own
// folder (fuzz/.build-fuzz), a full instrumented build of the root package's modules.
//
// Built optimized (scripts/fuzz: `-c release`, which keeps Swift's overflow and bounds checks) and with testability
// (`-Xswiftc -enable-testing`), so that the targets reach parsers the modules keep internal (`@testable import`): the
// gpsd command parser and the gpsd client's line handler.
import PackageDescription

let package = Package(
    name: "LodestoneFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Lodestone", path: "..")],
    targets: [
        .executableTarget(
            name: "lodestone-fuzz",
            dependencies: [
                .product(name: "LodestoneCore", package: "Lodestone"),
                .product(name: "LodestoneLocation", package: "Lodestone"),
                .product(name: "LodestoneTrace", package: "Lodestone"),
                .product(name: "LodestoneWire", package: "Lodestone"),
                .product(name: "LodestoneGNSSSources", package: "Lodestone"),
                .product(name: "LodestoneEngine", package: "Lodestone"),
                .product(name: "LodestoneService", package: "Lodestone"),
                .product(name: "LodestoneDaemon", package: "Lodestone"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
