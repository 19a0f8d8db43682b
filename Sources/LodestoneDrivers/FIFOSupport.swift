import LodestoneCore

// What every `FIFOBuffering` driver in this module does the same way: decide whether there is anything to drain, and
// stamp what it drained (the protocol's time rule). Bus access for the drain itself is `sensorReadFIFO` in
// DriverSupport.swift.

/// The most bytes a drain reads into one `withUnsafeTemporaryAllocation` buffer: the size the standard library always
/// places on the stack (larger requests may go to the heap), so that a drain allocates nothing. A driver whose FIFO
/// can hold more (the LSM6DS3's 8 KiB) reads it in bursts of this size, in whole frames.
let fifoBurstBytes = 1024

/// The time between two FIFO samples with `configuration`, s: 1 / the configured rate. `nil` when the FIFO is off or
/// the chip is not measuring (`configure` empties the FIFO in both cases, so there is nothing to drain).
func fifoSamplePeriodS(_ configuration: SensorConfiguration?) -> Double? {
    guard let configuration, configuration.fifo == .stream, configuration.rateHz > 0 else { return nil }
    return 1 / configuration.rateHz
}

/// The FIFO depth a driver reports as `fifoCapacitySamples`: `depth` while `configuration` has the FIFO on, else 0.
func fifoCapacity(_ depth: Int, _ configuration: SensorConfiguration?) -> Int {
    configuration?.fifo == .stream ? depth : 0
}

/// Stamps `samples[0..<count]`, the oldest `count` of the `waiting` samples a drain found, `periodS` apart with the
/// newest waiting one at `newestTimeS` (`FIFOBuffering`'s time rule).
func stampFIFOSamples(
    _ samples: UnsafeMutableBufferPointer<SensorReading>, count: Int, waiting: Int,
    newestTimeS: Double, periodS: Double
) {
    for i in 0..<count { samples[i].timeS = newestTimeS - Double(waiting - 1 - i) * periodS }
}
