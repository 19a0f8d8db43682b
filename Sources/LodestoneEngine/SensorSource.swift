import LodestoneCore
import LodestoneDrivers

/// Something the engine samples: a chip driver on a register bus, a kernel IIO device, a simulated GNSS.
/// Readings come out in **board axes** (the mount matrix already applied) and SI units.
public protocol SensorSource {
    /// The board file's id (`imu`, `baro`).
    var id: String { get }
    /// What it is, for display (`mpu9250 @ /dev/i2c-2 0x68`).
    var label: String { get }
    /// Sample rate, Hz.
    var rateHz: Double { get }
    /// Probes and configures the chip. Called at start and again to recover after failures.
    mutating func start() throws(SourceError)
    /// One reading at `timeS`, board axes.
    mutating func read(timeS: Double) throws(SourceError) -> SourceReading
}

/// What a source delivers.
public enum SourceReading: Sendable {
    /// A sensor sample (board axes, SI).
    case sensor(SensorReading)
    /// A position fix as the receiver reported it.
    case fix(ReceiverFix)
    /// Nothing new at this instant (e.g. a 1 Hz GNSS polled at 100 Hz, or an outage).
    case none
}

/// A source failure, already phrased for a person: one line.
public struct SourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sensor id.
    public var sensor: String
    /// The message (bus, address, register, errno where known).
    public var message: String
    /// True when the device seems gone (NACK / no device) rather than glitching.
    public var deviceGone: Bool
    public init(sensor: String, message: String, deviceGone: Bool = false) {
        self.sensor = sensor; self.message = message; self.deviceGone = deviceGone
    }
    public var description: String { "\(sensor): \(message)" }
}

extension SourceError {
    init(sensor: String, _ e: SensorError) {
        var gone = false
        if case .bus(let b) = e { gone = b.kind == .nack || b.kind == .noSuchBus }
        self.init(sensor: sensor, message: e.description, deviceGone: gone)
    }
}

/// A register chip driver as a source.
public struct DriverSource: SensorSource {
    public let id: String
    public let label: String
    public let rateHz: Double
    public let mount: Matrix3
    private var driver: any SensorDriver

    public init(id: String, label: String, rateHz: Double, mount: Matrix3, driver: any SensorDriver) {
        self.id = id; self.label = label; self.rateHz = rateHz; self.mount = mount; self.driver = driver
    }

    /// The chip identity after `start()`.
    public private(set) var identity: ChipIdentity?

    public mutating func start() throws(SourceError) {
        do {
            identity = try driver.probe()
            try driver.configure(SensorConfiguration(rateHz: rateHz, powerMode: .normal, oversampling: 4))
        } catch { throw SourceError(sensor: id, error) }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        do { return .sensor(try driver.read(timeS: timeS).mounted(by: mount)) } catch { throw SourceError(sensor: id, error) }
    }
}

/// A source whose chip the scheduler reconfigures while it runs (rate, power mode, oversampling, FIFO, wake-on-motion).
public protocol ReconfigurableSource: SensorSource {
    /// The configuration the chip reported for the last successful `start()` or `reconfigure(_:)`; `nil` before.
    var configuration: SensorConfiguration? { get }
    /// Applies `configuration` through the driver and returns what the chip set. When the chip refuses or the bus
    /// fails, the previous configuration is written back before the error is thrown, and the error's message says
    /// both what failed and whether the rollback succeeded.
    mutating func reconfigure(_ configuration: SensorConfiguration) throws(SourceError) -> SensorConfiguration
}

/// A GNSS source whose receiver can be commanded into power-save or off.
public protocol GNSSPowerControllable: SensorSource {
    /// Energy model key of the receiver (`EnergyModel.receiverModels`).
    var receiverModel: String { get }
    /// True when `setMode` reaches the receiver; false when the mode is only modelled (a receiver that cannot be
    /// commanded keeps running; the source then drops fixes it was not asked for).
    var canCommandPower: Bool { get }
    /// The mode last set.
    var mode: GNSSReceiverMode { get }
    /// The receiver's power state now, for energy accounting.
    var powerState: GNSSPowerState { get }
    /// Switches the receiver to `mode` at `timeS`.
    mutating func setMode(_ mode: GNSSReceiverMode, timeS: Double) throws(SourceError)
}
