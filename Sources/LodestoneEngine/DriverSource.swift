import LodestoneCore
import LodestoneDrivers
import LodestoneScheduler
import LodestoneSources

/// A register chip driver as a source, reconfigurable by the scheduler.
///
/// The source keeps the configuration **planned** for it (the board file's rate in `.normal` power at first, then what
/// the last successful `reconfigure(_:)` asked for) and re-applies it whenever it starts, so that a chip which vanished
/// and came back (or was reset) resumes the scheduler's plan rather than its defaults.
///
/// The driver sits in a class handle specialised for its capabilities (wake-on-motion, FIFO), built once in `init`,
/// so that polling the wake flag and reading stay free of existential copies and allocate nothing.
public struct DriverSource: PlannableSource {
    public let id: String
    public let label: String
    /// The rate the board file asks for, Hz: the most a plan gives this source.
    public let rateHz: Double
    /// `v_board = mount · v_chip`.
    public let mount: Matrix3
    /// The `ChipCatalog` name of the chip (the board file's `chip`; the energy model's key).
    public let chip: String
    /// The kinds of quantity the chip reports (the catalogue's list for `chip`, else the driver's).
    public let kinds: [SensorKind]
    private let handle: any DriverHandle
    /// Where FIFO drains land: as long as the FIFO holds, allocated when a configuration turns the FIFO on.
    private var fifoBuffer: [SensorReading] = []

    /// A source for `driver`. `chip` (default: the driver's `chipName`) names the part for the scheduler's energy model.
    public init(id: String, label: String, rateHz: Double, mount: Matrix3, driver: any SensorDriver, chip: String? = nil) {
        self.id = id; self.label = label; self.rateHz = rateHz; self.mount = mount
        let name = chip ?? type(of: driver).chipName
        self.chip = name
        kinds = ChipCatalog.entry(named: name)?.kinds ?? type(of: driver).kinds
        handle = makeDriverHandle(driver)
        plannedConfiguration = SensorConfiguration(rateHz: rateHz, powerMode: .normal, oversampling: 4)
    }

    /// The chip identity after `start()`.
    public private(set) var identity: ChipIdentity?
    /// What the chip set for the last successful `start()` or `reconfigure(_:)`; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    /// What `start()` applies: the board file's rate in `.normal` power with oversampling 4 until a plan is applied,
    /// then the configuration of the last successful `reconfigure(_:)`.
    public private(set) var plannedConfiguration: SensorConfiguration

    /// Whether the driver can wake the host on motion (`MotionWakeReporting`).
    public var hasMotionWake: Bool { handle.hasMotionWake }
    /// Whether the driver drains its chip's FIFO (`FIFOBuffering`).
    public var hasFIFO: Bool { handle.hasFIFO }
    /// Samples the chip's FIFO holds with the configuration now applied (0 while the FIFO is off or there is none).
    public var fifoCapacitySamples: Int { handle.fifoCapacitySamples }
    /// Samples the chip's FIFO holds when a plan turns it on at the board file's rate, measured once at the first
    /// `start()` (0 without a FIFO, or before the first start): what a scheduler plans batching with.
    public private(set) var fifoCapacityWhenOnSamples = 0
    /// Whether the configuration now applied batches samples in the chip's FIFO (`fifo: .stream`).
    public var isBatching: Bool { handle.hasFIFO && configuration?.fifo == .stream && !fifoBuffer.isEmpty }

    /// Whether the configuration now applied arms the chip's wake-on-motion (`wakeOnMotionThresholdMps2` set).
    public var isMotionWakeArmed: Bool { handle.hasMotionWake && configuration?.wakeOnMotionThresholdMps2 != nil }

    /// The sensor as the scheduler plans it (FIFO capacity: with the configuration now applied).
    public var plannedSensor: PlannedSensor {
        PlannedSensor(
            id: id, chip: chip, kinds: kinds, maximumRateHz: rateHz, hasMotionWake: hasMotionWake,
            fifoCapacitySamples: max(fifoCapacitySamples, fifoCapacityWhenOnSamples))
    }

    /// Probes the chip and applies `plannedConfiguration`.
    public mutating func start() throws(SourceError) {
        configuration = nil
        do {
            identity = try handle.probe()
            if handle.hasFIFO, fifoCapacityWhenOnSamples == 0 {
                // Once: what the FIFO holds when on (the drivers size it by the configuration), then the plan.
                var trial = plannedConfiguration
                trial.fifo = .stream
                trial.wakeOnMotionThresholdMps2 = nil
                if (try? handle.configure(trial)) != nil { fifoCapacityWhenOnSamples = handle.fifoCapacitySamples }
            }
            configuration = try handle.configure(plannedConfiguration)
        } catch { throw SourceError(sensor: id, error) }
        sizeFIFOBuffer()
    }

    /// Makes `fifoBuffer` as long as the FIFO now holds (not on the sample path: only when the configuration changes).
    private mutating func sizeFIFOBuffer() {
        let capacity = configuration?.fifo == .stream ? handle.fifoCapacitySamples : 0
        if fifoBuffer.count != capacity { fifoBuffer = [SensorReading](repeating: SensorReading(timeS: 0), count: capacity) }
    }

    /// Drains the chip's FIFO (`FIFOBuffering.drainFIFO`) into the source's buffer and hands each sample, mounted into
    /// board axes, to `deliver`. Allocates nothing.
    public mutating func drain(newestTimeS: Double, deliver: (SensorReading) -> Void) throws(SourceError) -> FIFODrain {
        guard isBatching else { return FIFODrain(count: 0, overrun: false) }
        let handle = self.handle
        let result = fifoBuffer.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(SensorError) in try handle.drainFIFO(into: buffer, newestTimeS: newestTimeS) }
        }
        switch result {
        case .success(let drained):
            for i in 0..<drained.count { deliver(fifoBuffer[i].mounted(by: mount)) }
            return drained
        case .failure(let error):
            throw SourceError(sensor: id, error)
        }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        do { return .sensor(try handle.read(timeS: timeS).mounted(by: mount)) } catch { throw SourceError(sensor: id, error) }
    }

    /// Applies `wanted` through the driver. A source not started yet is started with it (probe, then configure). On
    /// failure the previous planned configuration is written back and the error says what failed (the driver's message:
    /// bus, address, register) and whether the rollback succeeded; when it did not, the error is `deviceGone` so that
    /// the engine re-probes the chip (which re-applies the previous plan).
    public mutating func reconfigure(_ wanted: SensorConfiguration) throws(SourceError) -> SensorConfiguration {
        guard identity != nil, configuration != nil else {
            let previous = plannedConfiguration
            plannedConfiguration = wanted
            do throws(SourceError) {
                try start()
            } catch {
                plannedConfiguration = previous
                throw SourceError(
                    sensor: id,
                    message: "reconfiguration to \(Self.summary(wanted)) failed while starting: "
                        + error.message, deviceGone: error.deviceGone)
            }
            return configuration ?? wanted
        }
        do {
            let applied = try handle.configure(wanted)
            plannedConfiguration = wanted
            configuration = applied
            sizeFIFOBuffer()
            return applied
        } catch {
            let failure = error.description
            let rollback: String
            var gone = false
            do {
                configuration = try handle.configure(plannedConfiguration)
                sizeFIFOBuffer()
                rollback = "rolled back to \(Self.summary(plannedConfiguration))"
            } catch let second {
                configuration = nil
                gone = true
                rollback = "rollback failed too (\(second.description)); the chip will be re-probed"
            }
            throw SourceError(
                sensor: id, message: "reconfiguration to \(Self.summary(wanted)) failed: \(failure); \(rollback)",
                deviceGone: gone)
        }
    }

    /// Reads and clears the chip's latched motion flag (`MotionWakeReporting.motionDetected()`); false when the chip
    /// cannot wake on motion or it is not armed. One register read; allocates nothing.
    public mutating func pollMotionWake() throws(SourceError) -> Bool {
        guard isMotionWakeArmed else { return false }
        do { return try handle.motionDetected() } catch { throw SourceError(sensor: id, error) }
    }

    /// A configuration in a few words, for messages: `12.5 Hz lowPower wake 0.5 m/s²`.
    static func summary(_ c: SensorConfiguration) -> String {
        var s = "\(c.rateHz) Hz \(c.powerMode.rawValue)"
        if c.oversampling > 1 { s += " ×\(c.oversampling)" }
        if c.fifo != .off { s += " fifo \(c.fifo.rawValue)" }
        if let w = c.wakeOnMotionThresholdMps2 { s += " wake \(w) m/s²" }
        return s
    }
}

/// A driver in a class box specialised for what it can do, so that the sample path calls it directly (no existential
/// copies of a value-type driver, hence no allocation). Built by `makeDriverHandle`.
protocol DriverHandle: AnyObject {
    var hasMotionWake: Bool { get }
    var hasFIFO: Bool { get }
    var fifoCapacitySamples: Int { get }
    func probe() throws(SensorError) -> ChipIdentity
    func configure(_ c: SensorConfiguration) throws(SensorError) -> SensorConfiguration
    func read(timeS: Double) throws(SensorError) -> SensorReading
    func motionDetected() throws(SensorError) -> Bool
    func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double) throws(SensorError) -> FIFODrain
}

/// Any driver: no wake, no FIFO.
private class PlainHandle<D: SensorDriver>: DriverHandle {
    var driver: D
    init(_ driver: D) { self.driver = driver }
    var hasMotionWake: Bool { false }
    var hasFIFO: Bool { false }
    var fifoCapacitySamples: Int { 0 }
    func probe() throws(SensorError) -> ChipIdentity { try driver.probe() }
    func configure(_ c: SensorConfiguration) throws(SensorError) -> SensorConfiguration { try driver.configure(c) }
    func read(timeS: Double) throws(SensorError) -> SensorReading { try driver.read(timeS: timeS) }
    func motionDetected() throws(SensorError) -> Bool { false }
    func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double) throws(SensorError) -> FIFODrain
    {
        FIFODrain(count: 0, overrun: false)
    }
}

private final class WakeHandle<D: MotionWakeReporting>: PlainHandle<D> {
    override var hasMotionWake: Bool { true }
    override func motionDetected() throws(SensorError) -> Bool { try driver.motionDetected() }
}

private final class FIFOHandle<D: FIFOBuffering>: PlainHandle<D> {
    override var hasFIFO: Bool { true }
    override var fifoCapacitySamples: Int { driver.fifoCapacitySamples }
    override func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double) throws(SensorError)
        -> FIFODrain
    {
        try driver.drainFIFO(into: samples, newestTimeS: newestTimeS)
    }
}

private final class WakeFIFOHandle<D: MotionWakeReporting & FIFOBuffering>: PlainHandle<D> {
    override var hasMotionWake: Bool { true }
    override var hasFIFO: Bool { true }
    override var fifoCapacitySamples: Int { driver.fifoCapacitySamples }
    override func motionDetected() throws(SensorError) -> Bool { try driver.motionDetected() }
    override func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double) throws(SensorError)
        -> FIFODrain
    {
        try driver.drainFIFO(into: samples, newestTimeS: newestTimeS)
    }
}

private func plainHandle<D: SensorDriver>(_ d: D) -> any DriverHandle { PlainHandle(d) }
private func wakeHandle<D: MotionWakeReporting>(_ d: D) -> any DriverHandle { WakeHandle(d) }
private func fifoHandle<D: FIFOBuffering>(_ d: D) -> any DriverHandle { FIFOHandle(d) }
private func wakeFIFOHandle<D: MotionWakeReporting & FIFOBuffering>(_ d: D) -> any DriverHandle { WakeFIFOHandle(d) }

/// The handle for `driver`, by the capabilities it has (its existential opened once, here).
func makeDriverHandle(_ driver: any SensorDriver) -> any DriverHandle {
    if let d = driver as? any (MotionWakeReporting & FIFOBuffering) { return wakeFIFOHandle(d) }
    if let d = driver as? any MotionWakeReporting { return wakeHandle(d) }
    if let d = driver as? any FIFOBuffering { return fifoHandle(d) }
    return plainHandle(driver)
}

/// A reconfigurable source the scheduler plans: it says what it is (`PlannedSensor`: chip, kinds, maximum rate,
/// wake-on-motion, FIFO capacity).
public protocol PlannableSource: ReconfigurableSource {
    /// The sensor as a scheduler sees it.
    var plannedSensor: PlannedSensor { get }
}
