// swift-tools-version:6.0
//
// Layering (dependencies point one way, math at the bottom):
//
//   LodestoneCore          units, vectors, quaternions, frames, bus protocols, byte decoding, decimal parsing, the UTC
//                          calendar — imports nothing
//                          but swift-numerics' RealModule (pure math: sin/atan2/exp without Foundation or Glibc)
//   LodestoneGeomagnetism  World Magnetic Model                     — Core only
//   LodestoneDrivers       chip drivers, generic over RegisterBus    — Core only
//   LodestoneOrientation   orientation filter, heading (magnetic/true), declination — Core, Geomagnetism
//   LodestoneMotion        altitude, activity, pedometer              — Core
//   LodestoneLocation      NMEA/UBX decoding, geodesy, location fusion — Core, Geomagnetism
//   LodestoneCalibration   magnetometer/accelerometer/gyro/baro calibration — Core, Geomagnetism
//   LodestoneScheduler     demands, battery and motion state, energy model, sampling policies — Core only
//   LodestoneSimulation    register-file simulator bus, chip models, scenarios — Core, Drivers, Geomagnetism
//   LodestoneTrace         trace rows, CSV text (parser on bytes, formatter, recorder) — Core only
//                          (reading and writing files is the engine's: it imports no file system)
//   LodestoneFusion        the fusion pipeline and its stages (calibration, orientation, motion, location)
//                          — Core, Orientation, Motion, Location, Calibration, Trace
//   LodestoneSources       what the engine samples: the SensorSource protocols, SourceReading, SourceError — Core
//   CLodestoneLinux        module map for <i2c/smbus.h>, <iio.h>, zlib and an ioctl shim; libiio loaded when first used
//   LodestoneLinux         the ONLY target touching Glibc, ioctls, libi2c and libiio — Core
//   LodestoneGNSSSources   GNSS receivers as sources: serial port, gpsd, recorded log, GPX — Core, Sources, Location, Linux
//   LodestoneService       the API a program uses: live streams, their updates, the protocol Session and the daemon's
//                          client share — Core, Location, Orientation, Motion, Scheduler, Trace
//   LodestoneEngine        the runtime: board files, the sampling engine, driver and IIO sources, the scheduler's glue,
//                          trace and calibration files, the JSON wire — everything above
//   LodestoneSockets       sockets, poll, peer credentials, accounts, systemd's notify/listen protocols — Glibc (and a
//                          small C target for what Glibc's module hides); no libiio, so clients link it
//   LodestoneLog           the daemon's logger: one line a message on standard error, journald's `<N>` priority prefixes
//                          under systemd, a timestamp otherwise; a value type, no global logging system — Core, Sockets
//   LodestoneDaemon        `lodestone serve`: server, native and gpsd protocols, authorization — Engine, Sockets, Log
//   LodestoneCLI           the command line's testable core: one job per command, the live views (not a product)
//   LodestoneMonitoring    region monitoring (conditions, spatial index, hysteresis), significant change, visits, the
//                          monitor's location demand — Core, Location, Motion, Scheduler
//   CSQLite                module map for Debian's libsqlite3 (<sqlite3.h>), loaded when first used
//   LodestoneStore         the monitors' and the motion history's SQLite store (issue 16): conditions, states, the
//                          event queue, pedometer and activity history — Monitoring, Motion, Location, CSQLite, Linux, FoundationEssentials
//   LodestoneEvaluation    evaluation harnesses (scheduling, location accuracy, monitoring energy) — CLI, Engine,
//                          Monitoring; a product only because the harness packages under benchmarks/ can import
//                          nothing else; not for apps
//   CMosquitto             module map for Debian's libmosquitto (<mosquitto.h>), loaded when first used
//   LodestoneFleet         `lodestone serve --mqtt` (issue 20): the session's wire messages to an MQTT broker through
//                          libmosquitto, the on-disk outbound queue (LodestoneStore), the fleet's commands, Home
//                          Assistant discovery — Engine, Service, Wire, Store, CMosquitto, Log
//   lodestone              the command line (swift-argument-parser) — CLI
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
        .library(name: "LodestoneOrientation", targets: ["LodestoneOrientation"]),
        .library(name: "LodestoneMotion", targets: ["LodestoneMotion"]),
        .library(name: "LodestoneLocation", targets: ["LodestoneLocation"]),
        .library(name: "LodestoneCalibration", targets: ["LodestoneCalibration"]),
        .library(name: "LodestoneScheduler", targets: ["LodestoneScheduler"]),
        .library(name: "LodestoneWire", targets: ["LodestoneWire"]),
        .library(name: "LodestoneTrace", targets: ["LodestoneTrace"]),
        .library(name: "LodestoneFusion", targets: ["LodestoneFusion"]),
        .library(name: "LodestoneGNSSSources", targets: ["LodestoneGNSSSources"]),
        .library(name: "LodestoneEngine", targets: ["LodestoneEngine"]),
        .library(name: "LodestoneService", targets: ["LodestoneService"]),
        .library(name: "LodestoneClient", targets: ["LodestoneClient"]),
        // For the harness packages under benchmarks/accuracy (another package can import products only); not for apps.
        .library(name: "LodestoneEvaluation", targets: ["LodestoneEvaluation"]),
        .library(name: "LodestoneMonitoring", targets: ["LodestoneMonitoring"]),
        .library(name: "LodestoneStore", targets: ["LodestoneStore"]),
        // For the fuzz targets under fuzz/ (the gpsd command parser is the daemon's); not for apps.
        .library(name: "LodestoneDaemon", targets: ["LodestoneDaemon"]),
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
        .target(name: "LodestoneOrientation",
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

        // Traces and CSV text, on bytes (issue 14): no file system, so that the motion tests read a trace without the engine.
        .target(name: "LodestoneTrace", dependencies: ["LodestoneCore"], swiftSettings: strict),

        // The fusion pipeline over the orientation, motion, location and calibration targets (issue 14).
        .target(name: "LodestoneFusion",
                dependencies: ["LodestoneCore", "LodestoneOrientation", "LodestoneMotion", "LodestoneLocation",
                               "LodestoneCalibration", "LodestoneTrace"],
                swiftSettings: strict),

        // The source protocols the engine samples and the GNSS sources implement (issue 14).
        .target(name: "LodestoneSources", dependencies: ["LodestoneCore"], swiftSettings: strict),

        // Headers from libi2c-dev, libiio-dev and zlib1g-dev; libiio is dlopen()ed when first used (iio_loader.c).
        .target(name: "CLodestoneLinux", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "LodestoneLinux", dependencies: ["LodestoneCore", "CLodestoneLinux"], swiftSettings: strict),
        // The wire: versioned Codable messages (Foundation's JSON only), shared by `run --json`, the daemon and clients.
        .target(name: "LodestoneWire", swiftSettings: strict),

        // The API a program uses (issue 15): the live streams and their updates, and the protocol both the in-process
        // Session and the daemon's client conform to. No Glibc, no board libraries.
        .target(name: "LodestoneService",
                dependencies: ["LodestoneCore", "LodestoneLocation", "LodestoneOrientation", "LodestoneMotion", "LodestoneScheduler",
                               "LodestoneTrace", "LodestoneWire", "LodestoneMonitoring"],
                swiftSettings: strict),

        // GNSS receivers as sources (issue 14).
        .target(name: "LodestoneGNSSSources",
                dependencies: ["LodestoneCore", "LodestoneSources", "LodestoneLocation", "LodestoneLinux"],
                swiftSettings: strict),

        // The runtime and the session: the one run loop, live streams, the scheduler's glue.
        .target(
            name: "LodestoneEngine",
            dependencies: ["LodestoneCore", "LodestoneDrivers", "LodestoneSimulation", "LodestoneGeomagnetism", "LodestoneLinux",
                           "LodestoneOrientation", "LodestoneMotion", "LodestoneLocation", "LodestoneCalibration", "LodestoneScheduler",
                           "LodestoneTrace", "LodestoneFusion", "LodestoneSources", "LodestoneGNSSSources", "LodestoneWire",
                           "LodestoneService", "LodestoneMonitoring", "LodestoneStore",
                           .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strict),

        // Sockets, poll, peer credentials, accounts, systemd's notify and listen protocols (issue 15): Glibc, beside
        // LodestoneLinux; no libiio, so that a client links it without the board's libraries.
        .target(name: "CLodestoneSockets"),
        .target(name: "LodestoneSockets", dependencies: ["LodestoneCore", "CLodestoneSockets"], swiftSettings: strict),
        // The daemon's and the fleet's logger (issue 15; in house since issue 19: swift-log's current releases need
        // Swift 6.2, Debian 13 ships 6.0.3).
        .target(name: "LodestoneLog", dependencies: ["LodestoneCore", "LodestoneSockets"], swiftSettings: strict),
        .testTarget(name: "LodestoneLogTests", dependencies: ["LodestoneLog", "LodestoneSockets"], swiftSettings: strict),

        // The daemon's client (issue 15): a LodestoneService over the Unix socket. Links no board library.
        .target(name: "LodestoneClient", dependencies: ["LodestoneService", "LodestoneSockets", "LodestoneWire", "LodestoneMonitoring"],
                swiftSettings: strict),

        // `lodestone serve` (issue 15): the server, the native and gpsd protocols, authorization, systemd.
        .target(
            name: "LodestoneDaemon",
            dependencies: ["LodestoneCore", "LodestoneEngine", "LodestoneWire", "LodestoneSockets", "LodestoneLocation",
                           "LodestoneScheduler", "LodestoneLinux", "LodestoneService", "LodestoneClient", "LodestoneMonitoring",
                           "LodestoneStore", "LodestoneFleet", "LodestoneLog"],
            swiftSettings: strict),

        // The command line's testable core (issue 14): every job and the live views. Not a product.
        .target(
            name: "LodestoneCLI",
            dependencies: ["LodestoneCore", "LodestoneDrivers", "LodestoneSimulation", "LodestoneGeomagnetism", "LodestoneLinux",
                           "LodestoneOrientation", "LodestoneLocation", "LodestoneCalibration", "LodestoneScheduler",
                           "LodestoneTrace", "LodestoneFusion", "LodestoneSources", "LodestoneEngine", "LodestoneWire",
                           "LodestoneMonitoring"],
            swiftSettings: strict),

        // Evaluation harnesses, out of the engine (issue 14).
        .target(
            name: "LodestoneEvaluation",
            dependencies: ["LodestoneCore", "LodestoneSimulation", "LodestoneMotion", "LodestoneLocation", "LodestoneScheduler",
                           "LodestoneOrientation", "LodestoneFusion", "LodestoneEngine", "LodestoneCLI", "LodestoneMonitoring",
                           .product(name: "RealModule", package: "swift-numerics")],
            swiftSettings: strict),

        .executableTarget(
            name: "lodestone",
            dependencies: ["LodestoneCore", "LodestoneCLI", "LodestoneEngine", "LodestoneWire", "LodestoneLinux", "LodestoneDrivers",
                           "LodestoneMotion", "LodestoneScheduler", "LodestoneFusion", "LodestoneDaemon", "LodestoneClient",
                           "LodestoneService", "LodestoneFleet", "LodestoneLog",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),

        // The fault soak (issue 18, `scripts/soak`): the engine alone, built in release.
        .executableTarget(name: "lodestone-soak", dependencies: ["LodestoneEngine"], swiftSettings: strict),

        // Examples (README): built with the package, run briefly by the tests.
        .executableTarget(name: "lodestone-compass", dependencies: ["LodestoneEngine", "LodestoneClient"], path: "Examples/Compass", swiftSettings: strict),
        .executableTarget(name: "lodestone-track-logger", dependencies: ["LodestoneEngine", "LodestoneLocation", "LodestoneClient"],
                          path: "Examples/TrackLogger", swiftSettings: strict),

        .testTarget(name: "LodestoneCoreTests", dependencies: ["LodestoneCore"], swiftSettings: strict),
        .testTarget(name: "LodestoneGeomagnetismTests", dependencies: ["LodestoneGeomagnetism"], swiftSettings: strict),
        .testTarget(name: "LodestoneDriversTests", dependencies: ["LodestoneDrivers", "LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneSimulationTests", dependencies: ["LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneOrientationTests", dependencies: ["LodestoneOrientation", "LodestoneSimulation", "LodestoneLinux"],
                    swiftSettings: strict),
        .testTarget(name: "LodestoneMotionTests", dependencies: ["LodestoneMotion", "LodestoneSimulation", "LodestoneDrivers",
                                                                 "LodestoneTrace", "LodestoneLinux"], swiftSettings: strict),
        .testTarget(name: "LodestoneLocationTests", dependencies: ["LodestoneLocation", "LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneCalibrationTests", dependencies: ["LodestoneCalibration", "LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneSchedulerTests", dependencies: ["LodestoneScheduler", "LodestoneDrivers"], swiftSettings: strict),
        .testTarget(name: "LodestoneLinuxTests", dependencies: ["LodestoneLinux"], swiftSettings: strict),
        .testTarget(name: "LodestoneWireTests", dependencies: ["LodestoneWire"], swiftSettings: strict),
        .testTarget(name: "LodestoneTraceTests", dependencies: ["LodestoneTrace", "LodestoneSimulation"], swiftSettings: strict),
        .testTarget(name: "LodestoneGNSSSourcesTests",
                    dependencies: ["LodestoneGNSSSources", "LodestoneSources", "LodestoneLocation", "LodestoneLinux"],
                    swiftSettings: strict),
        .testTarget(name: "LodestoneDaemonTests",
                    dependencies: ["LodestoneDaemon", "LodestoneSockets", "LodestoneEngine", "LodestoneWire", "LodestoneLocation",
                                   "LodestoneScheduler", "LodestoneClient", "LodestoneService", "LodestoneLog", "lodestone"],
                    swiftSettings: strict),
        .testTarget(name: "LodestoneEngineTests",
                    dependencies: ["LodestoneEngine", "LodestoneWire", "LodestoneCLI", "LodestoneEvaluation", "LodestoneFusion",
                                   "LodestoneTrace", "LodestoneSources", "LodestoneGNSSSources", "LodestoneOrientation",
                                   "LodestoneScheduler", "LodestoneLocation", "LodestoneMonitoring", "lodestone"],
                    swiftSettings: strict),

        // Region monitoring, significant location change and visits (issue 16): the synchronous core, no I/O.
        .target(name: "LodestoneMonitoring",
                dependencies: ["LodestoneCore", "LodestoneLocation", "LodestoneMotion", "LodestoneScheduler",
                               .product(name: "RealModule", package: "swift-numerics")],
                swiftSettings: strict),
        .testTarget(name: "LodestoneMonitoringTests", dependencies: ["LodestoneMonitoring", "LodestoneLocation", "LodestoneMotion"],
                    swiftSettings: strict),

        // The monitors' and the history's store (issue 16): Debian's SQLite used directly (no GRDB: one C library, a
        // thin wrapper), beside the monitoring core so that the core stays free of I/O and of libsqlite3.
        // The header from libsqlite3-dev; libsqlite3 is dlopen()ed when first used (sqlite3_loader.c).
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "LodestoneStore",
                dependencies: ["CSQLite", "LodestoneMonitoring", "LodestoneLocation", "LodestoneMotion", "LodestoneLinux"],
                swiftSettings: strict),
        // Opens a store and makes a scripted sequence of writes, printing each committed step: the crash test kills it
        // at every write and fsync (Tests/LodestoneStoreTests/StoreCrashTests.swift). Not a product.
        .executableTarget(name: "lodestone-store-writer", dependencies: ["LodestoneStore", "LodestoneMonitoring", "LodestoneLocation"],
                          path: "Tests/StoreWriter", swiftSettings: strict),
        .testTarget(name: "LodestoneStoreTests",
                    dependencies: ["LodestoneStore", "LodestoneMonitoring", "LodestoneLocation", "LodestoneMotion",
                                   "lodestone-store-writer"],
                    swiftSettings: strict),
    
        // Fleets (issue 20): Debian's libmosquitto, the MQTT client of the Eclipse Mosquitto project, used directly.
        // The header from libmosquitto-dev; libmosquitto is dlopen()ed when first used (mosquitto_loader.c).
        .target(name: "CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "LodestoneFleet",
                dependencies: ["CMosquitto", "LodestoneEngine", "LodestoneService", "LodestoneWire", "LodestoneStore",
                               "LodestoneScheduler", "LodestoneLog"],
                swiftSettings: strict),
        // Against Debian's real mosquitto broker, started by the tests on loopback (and `lodestone serve` processes):
        // run on their own by scripts/test, like the daemon's.
        .testTarget(name: "LodestoneFleetTests",
                    dependencies: ["LodestoneFleet", "LodestoneDaemon", "LodestoneStore", "LodestoneWire", "LodestoneScheduler",
                                   "lodestone"],
                    swiftSettings: strict),
    ]
)
