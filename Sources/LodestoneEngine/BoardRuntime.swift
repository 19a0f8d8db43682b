import LodestoneCore
import LodestoneWire
import LodestoneDrivers
import LodestoneFusion
import LodestoneGNSSSources
import LodestoneLinux
import LodestoneScheduler
import LodestoneSimulation
import LodestoneSources
import LodestoneTrace

/// A board made ready to run: one source per sensor, and the simulated world when the board is simulated.
public struct BoardRuntime {
    public var sources: [any SensorSource]
    public var world: SimulatedWorld?

    /// Scenario names of the simulated board.
    public static var scenarioNames: [String] { (Scenario.catalog + Scenario.dayLong).map(\.name) }

    /// Builds sources for every sensor of `board`. Opening a bus can fail (permission, no such bus): that is
    /// an error here, before anything runs, because the board file names a bus that is not usable. A chip
    /// that does not answer is not: it shows as degraded and the others run.
    public static func assemble(_ board: BoardDescription, seed: UInt64, scenario: String?) throws(JobError) -> BoardRuntime {
        var sources: [any SensorSource] = []
        var world: SimulatedWorld?
        var buses: [String: I2CDevBus] = [:]
        let simulated = board.sensors.filter { $0.bus == .simulated }
        if !simulated.isEmpty {
            let name = scenario ?? board.simulation?.scenario ?? Scenario.defaultName
            guard let sc = Scenario.named(name) else {
                throw JobError(
                    "\(board.path ?? board.name): simulation.scenario: \"\(name)\" is unknown; allowed: "
                        + scenarioNames.joined(separator: ", "))
            }
            let placements = simulated.map { s in
                SimulatedBoard.Placement(
                    id: s.id, chip: s.chip, address: s.address ?? ChipCatalog.entry(named: s.chip)?.addresses.first ?? 0,
                    mount: s.mount, rateHz: s.rateHz)
            }
            let disturbance = MagneticDisturbance(
                hardIronMicroTesla: board.simulation?.hardIronMicroTesla ?? .zero,
                softIron: board.simulation?.softIron ?? .identity)
            do {
                world = SimulatedWorld(
                    board: try SimulatedBoard(
                        scenario: sc, placements: placements, disturbance: disturbance, seed: seed,
                        unit: board.simulation?.unit ?? SimulatedBoard.defaultUnit))
            } catch { throw JobError(error.description) }
        }
        for s in board.sensors {
            switch s.bus {
            case .simulated:
                guard let w = world else { continue }
                sources.append(try driverSource(s, bus: w.board.bus, path: "sim"))
            case .i2c(let path):
                let bus: I2CDevBus
                if let b = buses[path] {
                    bus = b
                } else {
                    do { bus = try I2CDevBus(path: path) } catch {
                        throw JobError("\(board.path ?? board.name): sensor \(s.id): \(error.description)")
                    }
                    buses[path] = bus
                }
                sources.append(try driverSource(s, bus: bus, path: path))
            case let .iio(device, uri):
                sources.append(try IIOSource(id: s.id, device: device, uri: uri, rateHz: s.rateHz, mount: s.mount))
            case let .serial(path, baud):
                sources.append(
                    GNSSSerialSource(
                        id: s.id, path: path, baudRate: baud, rateHz: s.rateHz, chip: s.chip,
                        receiverModel: s.receiverModel))
            case .modemManager(let modem):
                sources.append(
                    GNSSModemManagerSource(id: s.id, modem: modem, rateHz: s.rateHz, receiverModel: s.receiverModel))
            case let .gpsd(host, port):
                sources.append(GNSSGpsdSource(id: s.id, host: host, port: port, rateHz: s.rateHz, receiverModel: s.receiverModel))
            case .file(let path):
                let resolved = Self.resolve(path, relativeTo: board.path)
                if GNSSChip(rawValue: s.chip) == .gpx {
                    sources.append(GNSSGPXSource(id: s.id, path: resolved, rateHz: s.rateHz))
                } else {
                    sources.append(GNSSLogSource(id: s.id, path: resolved, rateHz: s.rateHz, receiverModel: s.receiverModel))
                }
            case let .spi(path, speedHz):
                // One chip per chip select: each SPI sensor gets its own bus with its chip's framing.
                let bus: SPIDevBus
                do { bus = try SPIDevBus.opening(path: path, chip: s.chip, speedHz: speedHz) } catch {
                    throw JobError("\(board.path ?? board.name): sensor \(s.id): \(error.description)")
                }
                sources.append(try driverSource(s, bus: bus, path: path))
            }
        }
        if let w = world { sources.append(SimulatedGNSSSource(world: w)) }
        return BoardRuntime(sources: sources, world: world)
    }

    /// The sensors a scheduler plans, in board order: every source that can be reconfigured (`PlannableSource`). Chip,
    /// kinds, rate and wake-on-motion are known at once; FIFO capacities only once started (`plannedSensors(of:)`).
    public var plannedSensors: [PlannedSensor] { Self.plannedSensors(of: sources) }

    /// The largest gyroscope bias the board's gyroscope chip allows by its data sheet, °/s
    /// (`ChipCatalog.gyroscopeZeroRateToleranceDegS`); `nil` without a gyroscope chip, or for a chip whose data sheet
    /// bounds no bias (the filter's default then stands).
    public var gyroscopeBiasLimitDegS: Double? {
        chips(measuring: .gyroscope).compactMap(ChipCatalog.gyroscopeZeroRateToleranceDegS).first
    }

    /// The board's accelerometer chip (the first register chip that measures acceleration); `nil` without one, or
    /// when it is not a register chip (an IIO device, a trace).
    public var accelerometerChip: ChipID? { chips(measuring: .accelerometer).first }

    /// True when a register chip of the board measures the magnetic field.
    public var hasMagnetometerChip: Bool { !chips(measuring: .magnetometer).isEmpty }

    /// The register chips of the planned sensors that measure `kind`, in board order.
    private func chips(measuring kind: SensorKind) -> some Collection<ChipID> {
        plannedSensors.lazy.filter { $0.kinds.contains(kind) }.compactMap { ChipID(name: $0.chip) }
    }

    /// The receiver a scheduler plans: the first GNSS source whose power can be controlled or modelled
    /// (`GNSSPowerControllable`); `nil` when the board has none (no GNSS, or only a GPX track).
    public var plannedReceiver: PlannedReceiver? { Self.plannedReceiver(of: sources) }

    /// `plannedSensors` of `sources`. A FIFO's capacity is measured when its source first starts, so pass the engine's
    /// sources (`Engine.sources`) after its first step to plan batching; before that it reads 0.
    public static func plannedSensors(of sources: [any SensorSource]) -> [PlannedSensor] {
        sources.compactMap { ($0 as? any PlannableSource)?.plannedSensor }
    }

    /// `plannedReceiver` of `sources`.
    public static func plannedReceiver(of sources: [any SensorSource]) -> PlannedReceiver? {
        for s in sources {
            if let g = s as? any GNSSPowerControllable {
                return PlannedReceiver(id: g.id, model: g.receiverModel, controllable: g.canCommandPower)
            }
        }
        return nil
    }

    /// A relative file path in a board file is relative to the board file's directory.
    static func resolve(_ path: String, relativeTo boardPath: String?) -> String {
        guard !path.hasPrefix("/"), let b = boardPath, let slash = b.lastIndex(of: "/") else { return path }
        return String(b[...slash]) + path
    }

    private static func driverSource<Bus: RegisterBus>(_ s: BoardDescription.SensorEntry, bus: Bus, path: String) throws(JobError)
        -> DriverSource
    {
        do {
            let driver = try ChipCatalog.makeDriver(chip: s.chip, bus: bus, address: s.address, delay: SystemDelay.microseconds)
            return DriverSource(
                id: s.id, label: "\(s.chip) @ \(path) \(hex(driver.address))", rateHz: s.rateHz, mount: s.mount,
                driver: driver, chip: s.chip)
        } catch { throw JobError("sensor \(s.id): \(error.description)") }
    }
}

/// Sleeping for drivers (reset and conversion waits), through the one OS layer.
public enum SystemDelay {
    @Sendable public static func microseconds(_ us: Int) { if us > 0 { MonotonicClock.sleep(microseconds: us) } }
}

/// The wall clock of real runs.
public struct SystemClock: EngineClock {
    public init() {}
    public func nowS() -> Double { MonotonicClock.nowS() }
    public func sleep(untilS deadlineS: Double) { MonotonicClock.sleep(untilS: deadlineS) }
}

/// A clock that never waits (as-fast-as-possible runs and tests): time is whatever it was set to.
public final class ManualClock: EngineClock {
    public var timeS: Double
    public init(timeS: Double = 0) { self.timeS = timeS }
    public func nowS() -> Double { timeS }
    public func sleep(untilS deadlineS: Double) { timeS = max(timeS, deadlineS) }
}

/// The simulated board as the engine sees it: a world to advance and truth to record.
public final class SimulatedWorld {
    public let board: SimulatedBoard
    init(board: SimulatedBoard) { self.board = board }

    public var scenarioName: String { board.scenario.name }

    /// Moves the world (all chip models) to `timeS`.
    public func advance(toTimeS t: Double) { board.advance(toTimeS: t) }

    /// The truth as trace columns.
    public var truthRow: TraceRow.Truth {
        let t = board.truth
        var r = TraceRow.Truth()
        r.boardToENU = t.boardToENU
        r.latitudeDeg = t.latitudeDeg
        r.longitudeDeg = t.longitudeDeg
        r.heightM = t.heightM
        r.velocityENUMps = t.velocityENUMps
        r.pressurePa = t.pressurePa
        r.activity = t.activity.rawValue
        r.floor = t.floor
        return r
    }

    /// The truth for status messages.
    public var truthSummary: Wire.Status.Truth {
        let t = board.truth
        return Wire.Status.Truth(
            activity: t.activity.rawValue, segment: t.segment.rawValue, floor: t.floor,
            latDeg: t.latitudeDeg, lonDeg: t.longitudeDeg, heightM: t.heightM,
            headingDeg: t.boardToENU.rollPitchHeadingDeg.headingDeg)
    }
}

/// The simulated GNSS receiver, a u-blox M8 whose power the scheduler commands: a fix when the receiver has a new
/// epoch (1 Hz until a mode is set), nothing in outages, while off, or asleep between power-save fixes
/// (`GNSSSimulator.setMode(_:timeS:)`).
struct SimulatedGNSSSource: GNSSPowerControllable {
    let world: SimulatedWorld
    let id = "gnss"
    let label = "simulated GNSS receiver"
    let rateHz = 10.0
    /// The energy model of the u-blox M8 the simulator's power model follows.
    let receiverModel = "ublox-m8"
    let canCommandPower = true
    /// The simulator's time of the last fix delivered, s.
    var lastDeliveredFixS: Double?

    var mode: GNSSReceiverMode { world.board.gnssMode }
    var powerState: GNSSPowerState { world.board.gnssPowerState }

    mutating func setMode(_ mode: GNSSReceiverMode, timeS: Double) throws(SourceError) {
        world.board.setGNSSMode(mode, timeS: timeS)
    }

    mutating func start() throws(SourceError) {}

    mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        // The latest fix not yet delivered, rather than only one made at this very instant: a read re-timed off the
        // receiver's epochs (a retry's back-off) would otherwise miss every fix after it.
        guard var f = world.board.latestFix, f.timeS != lastDeliveredFixS else { return .none }
        lastDeliveredFixS = f.timeS
        let fault = world.board.receiverFault
        f.latitudeDeg += fault?.latitudeOffsetDeg ?? 0
        f.longitudeDeg += fault?.longitudeOffsetDeg ?? 0
        // The simulated receiver knows the date: the scenario's start plus the time run (unless it is faulty).
        return .fix(
            f.receiverFix(
                timeS: timeS,
                utcS: UTCCalendar.unixSeconds(decimalYear: world.board.scenario.startDecimalYear) + timeS
                    + (fault?.utcOffsetS ?? 0)))
    }
}

extension SPIDevBus {
    /// Opens the chip select at `path` with `chip`'s framing (from `ChipCatalog.spiFramings`) and `speedHz` (nil:
    /// `SPISettings`' default).
    /// - Throws: `BusError` `.unsupported` when `chip` is not read over SPI, or what `init` throws.
    package static func opening(path: String, chip: String, speedHz: UInt32?) throws(BusError) -> SPIDevBus {
        guard let framing = ChipCatalog.spiFraming(forChip: chip) else {
            throw BusError(
                kind: .unsupported, bus: path,
                operation: "\(chip) is not read over SPI; SPI chips: "
                    + ChipCatalog.spiEntries.map(\.name).joined(separator: ", "))
        }
        var settings = SPISettings()
        if let speedHz { settings.speedHz = speedHz }
        return try SPIDevBus(path: path, framing: framing, settings: settings)
    }
}
