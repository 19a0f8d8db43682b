import LodestoneCore

// Bus access shared by every driver in this module: each call maps a `BusError` into `SensorError.bus`
// so drivers throw one typed error, and polls are bounded by construction.

extension RegisterBus {
    /// Reads one register at `address`; a bus failure becomes `SensorError.bus`.
    func sensorReadByte(address: UInt8, register: UInt8) throws(SensorError) -> UInt8 {
        do { return try readByte(address: address, register: register) } catch { throw .bus(error) }
    }

    /// Writes one register at `address`; a bus failure becomes `SensorError.bus`.
    func sensorWriteByte(address: UInt8, register: UInt8, value: UInt8) throws(SensorError) {
        do { try writeByte(address: address, register: register, value: value) } catch { throw .bus(error) }
    }

    /// Reads `buffer.count` bytes starting at `register` in one transaction; a bus failure becomes `SensorError.bus`.
    func sensorRead(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(SensorError) {
        do { try read(address: address, register: register, into: buffer) } catch { throw .bus(error) }
    }

    /// Reads `buffer.count` bytes from the FIFO read-out `register` in pieces of whole `frameBytes` frames, each
    /// restarting at `register` (`RegisterBus.readFIFO(address:register:frameBytes:into:)`: 1 for a port that does not
    /// advance, the window for one the chip wraps over); a bus failure becomes `SensorError.bus`.
    func sensorReadFIFO(
        address: UInt8, register: UInt8, frameBytes: Int,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(SensorError) {
        do { try readFIFO(address: address, register: register, frameBytes: frameBytes, into: buffer) } catch {
            throw .bus(error)
        }
    }

    /// Waits `initialDelayUs`, then reads `register` up to `attempts` times, `intervalUs` apart, until
    /// `isReady(value)` holds. Throws `SensorError.notReady` with the total time waited when it never does.
    func pollRegister(
        chip: String, address: UInt8, register: UInt8, initialDelayUs: Int, attempts: Int, intervalUs: Int,
        delay: @Sendable (Int) -> Void, until isReady: (UInt8) -> Bool
    ) throws(SensorError) {
        let attempts = max(attempts, 1)
        delay(initialDelayUs)
        for attempt in 0..<attempts {
            if attempt > 0 { delay(intervalUs) }
            if isReady(try sensorReadByte(address: address, register: register)) { return }
        }
        throw .notReady(
            chip: chip, bus: name, address: address,
            waitedMs: (initialDelayUs + (attempts - 1) * intervalUs) / 1000)
    }
}

/// Checks a requested output data rate: finite and positive.
func validateRate(_ rateHz: Double, chip: String) throws(SensorError) {
    guard rateHz.isFinite, rateHz > 0 else {
        throw .unsupportedConfiguration(chip: chip, detail: "rate \(rateHz) Hz: the rate must be a positive number of Hz")
    }
}

/// `true` when `available` covers `requested` (a relative tolerance absorbs unit-conversion rounding, so asking for
/// exactly 2 g in m/s² selects ±2 g).
func covers(_ available: Double, _ requested: Double) -> Bool {
    available >= requested * (1 - 1e-9)
}

/// The error for `configure()` or `read()` called before a successful `probe()` (a caller's ordering mistake,
/// thrown rather than trapped because it is reached on the I/O path).
func notProbed(chip: String) -> SensorError {
    .unsupportedConfiguration(chip: chip, detail: "probe() must succeed before configure() or read()")
}

/// The smallest of `scales` (in ascending order) whose range covers the requested acceleration range, m/s² (default
/// ±4 g), or `.unsupportedConfiguration` naming the largest.
func accelerationFullScale<Scale>(
    _ scales: [Scale], rangeG: (Scale) -> Double, requestedMps2: Double?,
    chip: String
) throws(SensorError) -> Scale {
    let g = PhysicalConstants.standardGravityMps2
    let wanted = requestedMps2 ?? 4 * g
    if let scale = scales.first(where: { covers(rangeG($0) * g, wanted) }) { return scale }
    let largest = scales.last.map(rangeG) ?? 0
    throw .unsupportedConfiguration(
        chip: chip,
        detail: "acceleration range \(wanted) m/s²: at most ±\(Int(largest)) g "
            + "(\((largest * g * 10).rounded() / 10) m/s²)")
}

/// The smallest of `scales` (in ascending order) whose range covers the requested angular-rate range, rad/s (default
/// ±2000 °/s), or `.unsupportedConfiguration` naming the largest.
func angularRateFullScale<Scale>(
    _ scales: [Scale], rangeDegPerS: (Scale) -> Double, requestedRadS: Double?,
    chip: String
) throws(SensorError) -> Scale {
    let wanted = Angle.degrees(fromRadians: requestedRadS ?? Angle.radians(fromDegrees: 2000))
    if let scale = scales.first(where: { covers(rangeDegPerS($0), wanted) }) { return scale }
    throw .unsupportedConfiguration(
        chip: chip, detail: "angular rate range \(wanted) °/s: at most ±\(Int(scales.last.map(rangeDegPerS) ?? 0)) °/s")
}

/// A wake-on-motion threshold register value: `wanted` m/s² in steps of `stepMps2`, rounded to the nearest step and at
/// least 1; `nil` when no threshold is wanted; `.unsupportedConfiguration` when it is not positive or needs more than
/// `maximumSteps`.
func wakeOnMotionSteps(_ wanted: Double?, stepMps2: Double, maximumSteps: Int, chip: String) throws(SensorError) -> UInt8? {
    guard let wanted else { return nil }
    let steps = (wanted / stepMps2).rounded()
    guard wanted.isFinite, wanted > 0, steps <= Double(maximumSteps) else {
        throw .unsupportedConfiguration(
            chip: chip,
            detail: "wake-on-motion threshold \(wanted) m/s²: must be in "
                + "(0, \(Double(maximumSteps) * stepMps2)] m/s² (steps of \(stepMps2) m/s²)")
    }
    return UInt8(max(steps, 1))
}

extension RegisterBus {
    /// Checks the identity register, soft-resets the chip, waits `resetTimeUs` and checks the identity again
    /// instead of polling a self-clearing reset bit, which a plain register file (the kernel's i2c-stub, as the
    /// kernel's own drivers assume) never clears. Returns the identity value read.
    /// - Throws: `.wrongChipID` before the reset, `.notReady` when the identity is gone after it, `.bus` errors.
    func identifyAndReset(
        chip: String, address: UInt8, idRegister: UInt8, expected: [UInt8],
        resetRegister: UInt8, resetValue: UInt8, resetTimeUs: Int,
        delay: @Sendable (Int) -> Void
    ) throws(SensorError) -> UInt8 {
        let id = try sensorReadByte(address: address, register: idRegister)
        guard expected.contains(id) else {
            throw .wrongChipID(chip: chip, bus: name, address: address, register: idRegister, expected: expected, found: id)
        }
        try sensorWriteByte(address: address, register: resetRegister, value: resetValue)
        delay(resetTimeUs)
        guard try sensorReadByte(address: address, register: idRegister) == id else {
            throw .notReady(chip: chip, bus: name, address: address, waitedMs: max(1, resetTimeUs / 1000))
        }
        return id
    }
}

/// Refuses the optional features a driver does not offer, rather than ignoring them (so that a scheduler never waits
/// for a FIFO or an interrupt that will not come): `fifo: .stream` unless the driver is `FIFOBuffering` (`fifo`), a
/// wake-on-motion threshold unless it is `MotionWakeReporting` (`wakeOnMotion`). `why` says why, where the chip has
/// the feature but the driver does not use it.
func rejectFeaturesNotOffered(
    _ requested: SensorConfiguration, chip: String, fifo: Bool = false, wakeOnMotion: Bool = false,
    why: String? = nil
) throws(SensorError) {
    let reason = why.map { " (\($0))" } ?? ""
    if !fifo, requested.fifo != .off {
        throw .unsupportedConfiguration(
            chip: chip, detail: "fifo .stream: the \(chip) driver has no FIFO to batch samples in\(reason); use fifo .off")
    }
    if !wakeOnMotion, let threshold = requested.wakeOnMotionThresholdMps2 {
        throw .unsupportedConfiguration(
            chip: chip,
            detail: "wake-on-motion threshold \(threshold) m/s²: the \(chip) driver has no "
                + "wake-on-motion\(reason); leave it unset")
    }
}

/// Three consecutive 16-bit two's-complement axis outputs X, Y, Z at `offset` of `b`, little-endian (ST, ADI) or
/// big-endian (InvenSense), each converted to SI by `convert` (the datasheet's conversion at the configured scale).
@inline(__always)
func axisTriple(_ b: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool = false, _ convert: (Int16) -> Double) -> Vector3 {
    func raw(_ axis: Int) -> Int16 { bigEndian ? Bytes.beS16(b, offset + 2 * axis) : Bytes.leS16(b, offset + 2 * axis) }
    return Vector3(convert(raw(0)), convert(raw(1)), convert(raw(2)))
}
