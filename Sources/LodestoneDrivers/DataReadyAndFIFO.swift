import LodestoneCore

// The two ways a chip can tell the engine more than "here are my output registers": a data-ready flag, and a
// hardware FIFO that buffers samples so the host can wake less often and drain them in one burst.

/// A driver whose chip flags, in a status register, that a measurement is waiting in its output registers.
public protocol DataReadySensorDriver: SensorDriver {
    /// True when the chip holds a measurement that has not been read yet: its data-ready status bit(s), read
    /// with one register read. Allocates nothing.
    mutating func isDataReady() throws(SensorError) -> Bool
}

/// What one `drainFIFO` found.
public struct FIFODrain: Sendable, Hashable {
    /// Samples appended, oldest first.
    public var count: Int
    /// The FIFO had filled and the chip dropped or overwrote samples since the previous drain (its overrun
    /// flag): the appended samples are not contiguous with the previous drain's.
    public var overrun: Bool

    public init(count: Int, overrun: Bool) { self.count = count; self.overrun = overrun }
}

/// A driver whose chip buffers samples in a hardware FIFO that the engine drains in one burst.
///
/// Timing: a chip FIFO holds samples taken at the configured output data rate; `drainFIFO(timeS:into:)` stamps
/// the newest sample with `timeS` (the caller's time of the drain) and each older one a period earlier.
public protocol FIFOSensorDriver: SensorDriver {
    /// The FIFO's capacity, samples.
    static var fifoCapacitySamples: Int { get }
    /// Turns the FIFO on (stream mode: when full, the oldest sample is dropped) or off (bypass: the output
    /// registers hold the newest sample, as without a FIFO). Call after `configure(_:)`; `configure` leaves
    /// the FIFO off.
    mutating func setFIFOEnabled(_ enabled: Bool) throws(SensorError)
    /// Appends every sample the FIFO holds, oldest first, to `samples` with one status read and one burst
    /// read, and says whether samples were lost. Allocates nothing when `samples` has capacity for
    /// `fifoCapacitySamples` more elements.
    mutating func drainFIFO(timeS: Double, into samples: inout [SensorReading]) throws(SensorError) -> FIFODrain
}

extension RegisterBus {
    /// Reads `buffer.count` bytes from a FIFO data register, each transaction starting at `register` again and no
    /// longer than `maximumReadBytes` rounded down to whole `frameBytes` frames (a split read at `register + n`
    /// would read other registers). One transaction when the bus allows it. A bus failure becomes `SensorError.bus`.
    func sensorReadFIFO(address: UInt8, register: UInt8, frameBytes: Int,
                        into buffer: UnsafeMutableRawBufferPointer) throws(SensorError) {
        let limit = maximumReadBytes
        let chunk = limit >= buffer.count ? buffer.count : max(frameBytes, limit - limit % max(frameBytes, 1))
        var offset = 0
        while offset < buffer.count {
            let n = min(chunk, buffer.count - offset)
            try sensorRead(address: address, register: register,
                           into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset ..< offset + n]))
            offset += n
        }
    }
}

/// The time between two FIFO samples at `configuration`'s output data rate, s (0 when not measuring).
func fifoSamplePeriodS(_ configuration: SensorConfiguration?) -> Double {
    guard let rate = configuration?.rateHz, rate > 0 else { return 0 }
    return 1 / rate
}
