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
