import LodestoneCore

/// A simulated accelerometer/gyroscope chip the simulated board can drive: it is given the physical quantities in
/// its own axes and converts them when it samples.
public protocol InertialChipModel: SimulatedChip {
    /// Specific force in the chip's axes, m/s².
    var accelerationMps2: Vector3 { get set }
    /// Angular velocity in the chip's axes, rad/s (ignored by accelerometer-only chips).
    var angularVelocityRadS: Vector3 { get set }
    /// Die temperature, °C.
    var temperatureC: Double { get set }
    /// Whether the chip has a magnetometer inside (an MPU-9250's AK8963, an ICM-20948's AK09916).
    var hasMagnetometer: Bool { get }
    /// Gives an embedded magnetometer its field, expressed in the IMU chip's axes, µT (ignored without one).
    func setMagneticField(chipAxesMicroTesla: Vector3)
    /// Simulated time, s, set by the simulated board after the inputs at every advance: a model that keeps its own
    /// output data rate samples when it reaches its next sample instant (see `MPUModel`); others ignore it and sample
    /// whenever an input changes.
    var sampleTimeS: Double? { get set }
}

extension InertialChipModel {
    public var hasMagnetometer: Bool { false }
    public func setMagneticField(chipAxesMicroTesla: Vector3) {}
    public var sampleTimeS: Double? {
        get { nil }
        set {}
    }
}

/// A hardware FIFO of bytes with a fixed capacity, for chip models: `push` drops the oldest bytes when full (stream
/// mode) and raises `hasOverrun` until the next `pop`, `pop` gives `emptyValue` when empty. Storage is allocated once,
/// in `init`.
struct ByteFIFO {
    private var storage: [UInt8]
    private var head = 0
    /// Bytes waiting.
    private(set) var count = 0
    /// Bytes taken out since the last `removeAll`, read or dropped: the position of the next byte in the stream.
    private(set) var consumed = 0
    /// What a read of an empty FIFO returns.
    let emptyValue: UInt8
    /// Whether a `push` has dropped a byte since the last `pop` (the FIFO is full and has overwritten data).
    private(set) var hasOverrun = false

    init(capacity: Int, emptyValue: UInt8 = 0xFF) {
        storage = [UInt8](repeating: 0, count: capacity)
        self.emptyValue = emptyValue
    }

    var capacity: Int { storage.count }

    mutating func push(_ byte: UInt8) {
        if count == storage.count { // full: the oldest byte goes
            head = (head + 1) % storage.count
            count -= 1
            consumed += 1
            hasOverrun = true
        }
        storage[(head + count) % storage.count] = byte
        count += 1
    }

    /// The byte `offset` places from the oldest, without taking it (`emptyValue` past the end).
    func peek(_ offset: Int) -> UInt8 {
        offset < count ? storage[(head + offset) % storage.count] : emptyValue
    }

    mutating func pop() -> UInt8 {
        hasOverrun = false
        guard count > 0 else { return emptyValue }
        let byte = storage[head]
        head = (head + 1) % storage.count
        count -= 1
        consumed += 1
        return byte
    }

    mutating func removeAll() { head = 0; count = 0; consumed = 0; hasOverrun = false }
}
