import LodestoneCore

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
    /// Whether the source's chip has wake-on-motion armed now, so that the engine polls `pollMotionWake()` at each read.
    /// Default: false.
    var isMotionWakeArmed: Bool { get }
    /// Reads and clears the chip's latched wake-on-motion flag: true when it saw motion above its threshold since the
    /// last poll. Default: false. Allocates nothing.
    mutating func pollMotionWake() throws(SourceError) -> Bool
    /// Whether the source batches samples in its chip's FIFO now, so that the engine drains it (`drain`) at each read
    /// instead of reading one sample. Default: false.
    var isBatching: Bool { get }
    /// Drains what the chip batched, oldest first, handing each sample (board axes, stamped by `FIFOBuffering`'s time
    /// rule with the newest at `newestTimeS`) to `deliver`; returns how many and whether the chip overran (a gap
    /// before them). Default: nothing. Allocates nothing.
    mutating func drain(newestTimeS: Double, deliver: (SensorReading) -> Void) throws(SourceError) -> FIFODrain
    /// True when the source replays a recording (a receiver log, a GPX track): its dates are the recording's, however
    /// old, so the engine does not judge them against today's (the plausibility guard's earliest date). Default false.
    var replaysRecording: Bool { get }
    /// A GNSS receiver's power state now, for energy accounting; `nil` for every other source. Default: `nil`;
    /// `GNSSPowerControllable` sources give their `powerState`. Asked of `any SensorSource` without a cast, so that the
    /// per-sample energy account allocates nothing (casting a source to `any GNSSPowerControllable` boxes it).
    var receiverPowerState: GNSSPowerState? { get }
}

extension SensorSource {
    public var isMotionWakeArmed: Bool { false }
    public mutating func pollMotionWake() throws(SourceError) -> Bool { false }
    public var isBatching: Bool { false }
    public var receiverPowerState: GNSSPowerState? { nil }
    public var replaysRecording: Bool { false }
    public mutating func drain(newestTimeS: Double, deliver: (SensorReading) -> Void) throws(SourceError) -> FIFODrain {
        FIFODrain(count: 0, overrun: false)
    }
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
    /// A driver's error as the source `sensor`'s: `deviceGone` when the bus did not answer (NACK) or is gone.
    public init(sensor: String, _ e: SensorError) {
        var gone = false
        if case .bus(let b) = e { gone = b.kind == .nack || b.kind == .noSuchBus }
        self.init(sensor: sensor, message: e.description, deviceGone: gone)
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

extension GNSSPowerControllable {
    public var receiverPowerState: GNSSPowerState? { powerState }
}

/// A receiver whose power the engine cannot command (a plain NMEA talker, gpsd, a recorded log): it keeps running
/// whatever is planned, so its `powerState` is always `.tracking` (the energy it really spends) and nothing it delivers
/// is dropped; `setMode` only records the plan.
public protocol UncommandedReceiver: GNSSPowerControllable {
    /// The mode last planned (recorded, not applied).
    var mode: GNSSReceiverMode { get set }
}

extension UncommandedReceiver {
    public var canCommandPower: Bool { false }
    public var powerState: GNSSPowerState { .tracking }
    public mutating func setMode(_ mode: GNSSReceiverMode, timeS: Double) throws(SourceError) { self.mode = mode }
}
