// swift-tools-version:6.1
//
// Layering (dependencies point one way, math at the bottom):
//
//   LodestoneCore          units, vectors, quaternions, frames, bus protocols, byte decoding — imports nothing
//                          but swift-numerics' RealModule (pure math: sin/atan2/exp without Foundation or Glibc)
//   LodestoneGeomagnetism  World Magnetic Model                     — Core only
//   LodestoneDrivers       chip drivers, generic over RegisterBus    — Core only
//   LodestoneFusion        orientation filter, heading (magnetic/true) — Core, Geomagnetism
//   LodestoneMotion        altitude, activity, pedometer              — Core
//   LodestoneLocation      NMEA/UBX decoding, geodesy, location fusion — Core, Geomagnetism
//   LodestoneCalibration   magnetometer/accelerometer/gyro/baro calibration — Core, Geomagnetism
//   LodestoneScheduler     demands, battery and motion state, energy model, sampling policies — Core only
//   LodestoneSimulation    register-file simulator bus, chip models, scenarios — Core, Drivers, Geomagnetism
//   CLodestoneLinux        module map for <i2c/smbus.h>, <iio.h>, zlib and an ioctl shim
//   LodestoneLinux         the ONLY target touching Glibc, ioctls, libi2c and libiio
//   LodestoneEngine        board files, traces, the sampling engine  — everything above
//   lodestone              the command line (swift-argument-parser)
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "Lodestone",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lodestone", targets: ["lodestone"]),
        .library(name: "LodestoneCore", targets: ["LodestoneCore"]),
        .library(name: "LodestoneDrivers", targets: ["LodestoneDrivers"]),
        .library(name: "LodestoneSimulation", targets: ["LodestoneSimulation"]),
        .library(name: "LodestoneGeomagnetism", targets: ["LodestoneGeomagnetism"]),
        .library(name: "LodestoneFusion", targets: ["LodestoneFusion"]),
        .library(name: "LodestoneMotion", targets: ["LodestoneMotion"]),
        .library(name: "LodestoneLocation", targets: ["LodestoneLocation"]),
        .library(name: "LodestoneCalibration", targets: ["LodestoneCalibration"]),
        .library(name: "LodestoneScheduler", targets: ["LodestoneScheduler"]),
        .library(name: "LodestoneWire", targets: ["LodestoneWire"]),
        .library(name: "LodestoneEngine", targets: ["LodestoneEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // RealModule only: elementary functions (sin, atan2, exp, …) without importing Foundation or Glibc.
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
    ],
    targets: [
        .target(name: "LodestoneCore", dependencies: [.product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),
        .target(name: "LodestoneGeomagnetism",
                dependencies: ["LodestoneCore", .product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),
        .target(name: "LodestoneDrivers", dependencies: ["LodestoneCore"], swiftSettings: strict),

        // Orientation and heading (issue 4).
        .target(name: "LodestoneFusion",
                dependencies: ["LodestoneCore", "LodestoneGeomagnetism", .product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),

        // Altitude, activity and pedometer (issue 5).
        .target(name: "LodestoneMotion",
                dependencies: ["LodestoneCore", .product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),

        // GNSS decoding, geodesy and location fusion (issue 6).
        .target(name: "LodestoneLocation",
                dependencies: ["LodestoneCore", "LodestoneGeomagnetism", .product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),

        // Calibration (issue 7).
        .target(name: "LodestoneCalibration",
                dependencies: ["LodestoneCore", "LodestoneGeomagnetism", .product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),

        // The scheduler (issue 8).
        .target(name: "LodestoneScheduler",
                dependencies: ["LodestoneCore", .product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),

        .target(
            name: "LodestoneSimulation",
            dependencies: ["LodestoneCore", "LodestoneDrivers", "LodestoneGeomagnetism",
                           .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strict),
        .systemLibrary(name: "CLodestoneLinux", path: "Sources/CLodestoneLinux", pkgConfig: "libiio",
                       providers: [.apt(["libi2c-dev", "libiio-dev", "zlib1g-dev"])]),
        .target(name: "LodestoneLinux", dependencies: ["LodestoneCore", "CLodestoneLinux"], swiftSettings: strict),
        // The wire: versioned Codable messages (Foundation's JSON only), shared by `run --json`, the daemon and clients.
        .target(name: "LodestoneWire", swiftSettings: strict),
        .target(
            name: "LodestoneEngine",
            dependencies: ["LodestoneCore", "LodestoneWire", "LodestoneDrivers", "LodestoneSimulation", "LodestoneGeomagnetism", "LodestoneLinux",
                           "LodestoneFusion", "LodestoneMotion", "LodestoneLocation", "LodestoneCalibration", "LodestoneScheduler"],
            swiftSettings: strict),
        .executableTarget(
            name: "lodestone",
            dependencies: ["LodestoneCore", "LodestoneEngine", "LodestoneWire", "LodestoneLinux", "LodestoneDrivers", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),

        // Examples (README): built with the package, run briefly by the tests.
        .executableTarget(name: "lodestone-compass", dependencies: ["LodestoneEngine"], path: "Examples/Compass", swiftSettings: strict),
        .executableTarget(name: "lodestone-track-logger", dependencies: ["LodestoneEngine", "LodestoneLocation"],
                          path: "Examples/TrackLogger", swiftSettings: strict),

        .testTarget(name: "LodestoneCoreTests", dependencies: ["LodestoneCore"], swiftSettings: strict),
        .testTarget(name: "LodestoneGeomagnetismTests", dependencies: ["LodestoneGeomagnetism"], swiftSettings: strict),
        .testTarget(name: "LodestoneDriversTests", dependencies: ["LodestoneDrivers", "LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneSimulationTests", dependencies: ["LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneFusionTests", dependencies: ["LodestoneFusion", "LodestoneSimulation", "LodestoneLinux"], swiftSettings: strict),
        .testTarget(name: "LodestoneMotionTests", dependencies: ["LodestoneMotion", "LodestoneSimulation", "LodestoneDrivers", "LodestoneEngine"], swiftSettings: strict),
        .testTarget(name: "LodestoneLocationTests", dependencies: ["LodestoneLocation", "LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneCalibrationTests", dependencies: ["LodestoneCalibration", "LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneSchedulerTests", dependencies: ["LodestoneScheduler", "LodestoneDrivers"], swiftSettings: strict),
        .testTarget(name: "LodestoneLinuxTests", dependencies: ["LodestoneLinux"], swiftSettings: strict),
        .testTarget(name: "LodestoneWireTests", dependencies: ["LodestoneWire"], swiftSettings: strict),
        .testTarget(name: "LodestoneEngineTests", dependencies: ["LodestoneEngine", "LodestoneWire", "LodestoneScheduler", "lodestone"], swiftSettings: strict),
    ]
)
