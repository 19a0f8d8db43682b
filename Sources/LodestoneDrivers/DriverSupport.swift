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

    /// Waits `initialDelayUs`, then reads `register` up to `attempts` times, `intervalUs` apart, until
    /// `isReady(value)` holds. Throws `SensorError.notReady` with the total time waited when it never does.
    func pollRegister(chip: String, address: UInt8, register: UInt8, initialDelayUs: Int, attempts: Int, intervalUs: Int,
                      delay: @Sendable (Int) -> Void, until isReady: (UInt8) -> Bool) throws(SensorError) {
        let attempts = max(attempts, 1)
        delay(initialDelayUs)
        for attempt in 0..<attempts {
            if attempt > 0 { delay(intervalUs) }
            if isReady(try sensorReadByte(address: address, register: register)) { return }
        }
        throw .notReady(chip: chip, bus: name, address: address,
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

extension RegisterBus {
    /// Checks the identity register, soft-resets the chip, waits `resetTimeUs` and checks the identity again
    /// instead of polling a self-clearing reset bit, which a plain register file (the kernel's i2c-stub, as the
    /// kernel's own drivers assume) never clears. Returns the identity value read.
    /// - Throws: `.wrongChipID` before the reset, `.notReady` when the identity is gone after it, `.bus` errors.
    func identifyAndReset(chip: String, address: UInt8, idRegister: UInt8, expected: [UInt8],
                          resetRegister: UInt8, resetValue: UInt8, resetTimeUs: Int,
                          delay: @Sendable (Int) -> Void) throws(SensorError) -> UInt8 {
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
