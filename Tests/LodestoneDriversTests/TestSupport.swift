import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Synchronization
import Testing

/// The `SensorError` `body` throws, or `nil` if it returns (any other error is recorded as an issue).
func thrownError<T>(_ body: () throws -> T) -> SensorError? {
    do {
        _ = try body()
        return nil
    } catch let error as SensorError {
        return error
    } catch {
        Issue.record("not a SensorError: \(error)")
        return nil
    }
}

/// The `BusError` inside a `.bus` error, or `nil`.
func busError(_ error: SensorError?) -> BusError? {
    if case .bus(let e)? = error { return e }
    return nil
}

/// A driver made by `make`, probed and configured with `configuration`, on a fresh bus (`transport`) carrying `model`
/// at `address`.
func probedAndConfigured<Model: SimulatedChip, Driver: SensorDriver>(
    _ model: Model, at address: UInt8, transport: BusTransport = .i2c, _ configuration: SensorConfiguration,
    make: (SimulatedBus) -> Driver
) throws -> (SimulatedBus, Model, Driver) {
    let bus = SimulatedBus(transport: transport)
    bus.attach(model, at: address)
    var driver = make(bus)
    _ = try driver.probe()
    try driver.configure(configuration)
    return (bus, model, driver)
}

/// Sets a few fields spanning ±`limitMicroTesla` on a magnetometer model (`set`) and expects `driver` to read each back
/// within `toleranceMicroTesla`.
func expectFieldsReadBack<D: SensorDriver>(
    _ driver: inout D, limitMicroTesla limit: Double, toleranceMicroTesla tolerance: Double,
    set: (Vector3) -> Void
) throws {
    for field in [Vector3(0.9, -0.5, 0.123), Vector3(-0.99, 0.01, -0.7), .zero] {
        set(field * limit)
        #expect(isClose(try driver.read(timeS: 0).magneticFieldMicroTesla, field * limit, tolerance: tolerance))
    }
}

/// Data-ready follows the chip: set by the measurement `configure` started, cleared by a read, set again by the next
/// measurement (`measure`).
func expectDataReadyFollowsMeasurementsAndReads<D: DataReadyReporting>(_ driver: inout D, measure: () -> Void) throws {
    #expect(try driver.isDataReady())
    _ = try driver.read(timeS: 0)
    #expect(try driver.isDataReady() == false)
    measure()
    #expect(try driver.isDataReady())
}

/// The logged transactions as their one-line descriptions.
func logLines(_ bus: SimulatedBus) -> [String] { bus.log.map(\.description) }

/// Records the microseconds a driver asks to sleep.
final class DelayRecorder: Sendable {
    private let storage = Mutex<[Int]>([])
    /// The delays asked for so far, µs.
    var delaysUs: [Int] { storage.withLock { $0 } }
    /// A `delay` closure for drivers that records instead of sleeping.
    var delay: @Sendable (Int) -> Void { { us in self.storage.withLock { $0.append(us) } } }
}

/// `|a − b| ≤ tolerance` for every component.
func isClose(_ a: Vector3?, _ b: Vector3, tolerance: Double) -> Bool {
    guard let a else { return false }
    let d = a - b
    return abs(d.x) <= tolerance && abs(d.y) <= tolerance && abs(d.z) <= tolerance
}

/// Wraps a chip model so that its ID register reads 0xFF after the first write: a chip that does not come
/// back from a reset.
final class IdentityLostAfterWrite: SimulatedChip {
    let inner: any SimulatedChip
    let idRegister: UInt8
    private var written = false
    init(_ inner: any SimulatedChip, idRegister: UInt8) { self.inner = inner; self.idRegister = idRegister }
    func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        inner.read(register: register, into: buffer)
        if written, register == idRegister, buffer.count > 0 { buffer[0] = 0xFF }
    }
    func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        written = true
        inner.write(register: register, bytes: bytes)
    }
}

/// Drains `driver`'s FIFO into a fresh buffer of `capacity` samples: what the drain reported, and the samples it wrote.
func drained<D: FIFOBuffering>(_ driver: inout D, newestTimeS: Double, capacity: Int = 128) throws -> (
    drain: FIFODrain, samples: [SensorReading]
) {
    let buffer = UnsafeMutableBufferPointer<SensorReading>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    let drain = try driver.drainFIFO(into: buffer, newestTimeS: newestTimeS)
    return (drain, Array(buffer[0..<drain.count]))
}
