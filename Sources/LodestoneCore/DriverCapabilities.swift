/// What some drivers can do beyond `SensorDriver`: the data-ready status, the hardware FIFO and the wake-on-motion
/// interrupt that an interrupt-driven, power-aware scheduler uses. Each is a protocol a driver adopts only if its
/// chip has the feature.

/// A driver whose chip reports when a new sample is waiting: the data-ready status bit, which the driver also
/// routes to the chip's INT1 pin when it configures the chip.
public protocol DataReadyReporting: SensorDriver {
    /// True when the chip has converted a sample that has not been read yet (one status-register read).
    mutating func isDataReady() throws(SensorError) -> Bool
}

/// A driver for a chip with a hardware FIFO, enabled with `SensorConfiguration.fifo = .stream`.
public protocol HardwareFIFO: SensorDriver {
    /// How many samples the FIFO holds when full, with the configuration last applied (0 while it is off).
    var fifoCapacitySamples: Int { get }
    /// How many complete samples are waiting (one short status read).
    mutating func fifoSampleCount() throws(SensorError) -> Int
    /// Reads the waiting samples, oldest first, into `samples` (at most `samples.count` of them) in as few
    /// transfers as the chip allows, and returns how many were written. The newest is stamped `newestTimeS`, each
    /// earlier one a sample period (1 / configured rate) before. Chip axes, SI units, like `read(timeS:)`.
    /// Allocates nothing.
    mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> Int
}

/// A driver whose chip can wake the host on motion (`SensorConfiguration.wakeOnMotionThresholdMps2`).
public protocol MotionWakeReporting: SensorDriver {
    /// True when the chip has seen motion above the configured threshold since the last call; the call clears
    /// the chip's latched flag where the chip latches it.
    mutating func motionDetected() throws(SensorError) -> Bool
}
