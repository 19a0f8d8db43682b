// What some drivers can do beyond `SensorDriver`: say that a sample is waiting (data ready), buffer samples in a
// hardware FIFO that the host drains in one burst, and wake the host on motion. Each is a protocol a driver adopts only
// when its chip has the feature (and the driver uses it). The features are switched on with the rest of the chip's
// settings, through `SensorConfiguration` (`fifo`, `wakeOnMotionThresholdMps2`), so that a scheduler plans them
// together: it configures, then reads what the configuration gave (`fifoCapacitySamples`) to choose how often to drain.
//
// They live in Core, beside `SensorDriver` and `SensorConfiguration` which they refine and are driven by, because their
// users are not only the drivers: the sampling engine schedules on them, and the fusion stages (which see Core only)
// consume what a drain reports, `FIFODrain.overrun` in particular, to know where a sample stream has a gap.

/// A driver whose chip flags, in a status register, that a sample is waiting in its output registers. Where the chip
/// has an interrupt pin the driver also routes the flag to INT1 when it configures the chip.
public protocol DataReadyReporting: SensorDriver {
    /// True when the chip holds a sample that has not been read yet: its data-ready status bit(s), read with one
    /// register read (some chips clear the flag as it is read, others when the outputs are; see each driver).
    /// Allocates nothing.
    mutating func isDataReady() throws(SensorError) -> Bool
}

/// What one `FIFOBuffering.drainFIFO` call found.
public struct FIFODrain: Sendable, Hashable {
    /// Samples written to the caller's buffer, oldest first (0…`samples.count`).
    public var count: Int
    /// The FIFO had filled and the chip dropped or overwrote samples since the previous drain, or (on chips that only
    /// say "full") was full, so that the next sample would have overwritten one: the drained samples may not continue
    /// the previous drain's without a gap. A consumer must not integrate or difference across that boundary; a
    /// scheduler that sees it should drain more often. Which chip flag it is, and what the driver does about it (an
    /// InvenSense FIFO that lost its frame alignment is reset and gives no samples), is in each driver's documentation.
    public var overrun: Bool

    public init(count: Int, overrun: Bool) { self.count = count; self.overrun = overrun }
}

/// A driver for a chip with a hardware FIFO: the chip buffers samples at its configured output data rate, and the
/// host drains them in one burst instead of waking for every sample.
///
/// The FIFO is switched on by `configure(_:)` with `SensorConfiguration.fifo = .stream` (continuous mode: when full, the
/// oldest samples go) and off with `.off`; the configuration the driver returns says which it set. Chips without a FIFO,
/// and drivers that do not use theirs, reject `.stream`.
///
/// Time stamps: the newest sample waiting when the drain starts is stamped `newestTimeS` (the caller's clock at the
/// drain: the chip took it within one sample period before) and each older one a sample period (1 / the configured
/// rate) before the next. When `samples` is shorter than what waits, the oldest are drained and the rest stay in the
/// FIFO for the next drain, stamped here by their place behind the newest.
public protocol FIFOBuffering: SensorDriver {
    /// How many samples the FIFO holds when full with the configuration last applied, or 0 while it is off. A scheduler
    /// drains before this many sample periods have passed, into a buffer at least this long.
    var fifoCapacitySamples: Int { get }
    /// How many complete samples are waiting (one short status read), 0 while the FIFO is off.
    mutating func fifoSampleCount() throws(SensorError) -> Int
    /// Reads the waiting samples, oldest first, into `samples` (at most `samples.count` of them) in as few bus
    /// transactions as the chip and the bus allow (one status read and one burst, where the chip allows a burst), in
    /// the chip's axes and SI units like `read(timeS:)`, stamped as the protocol says. Returns how many were written and
    /// whether the chip lost samples (`FIFODrain.overrun`). A sample that decodes to an impossible value is an
    /// `.invalidReading`, and then nothing is written. Allocates nothing.
    mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> FIFODrain
}

/// A driver whose chip can wake the host on motion, armed with `SensorConfiguration.wakeOnMotionThresholdMps2`.
public protocol MotionWakeReporting: SensorDriver {
    /// True when the chip has seen motion above the configured threshold since the last call; the call clears the
    /// chip's latched flag where the chip latches it.
    mutating func motionDetected() throws(SensorError) -> Bool
}
