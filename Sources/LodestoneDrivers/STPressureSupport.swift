import LodestoneCore

// What ST's LPS22HB and LPS25H share (DocID027083 and DocID023722, table 3 and the output registers): a 24-bit
// two's-complement pressure output at 4096 LSB/hPa, followed by a 16-bit temperature output, read in one burst,
// and the decoding of FIFO drains.

enum STPressureOutput {
    /// Pressure sensitivity of both chips, LSB/hPa (table 3, PSens).
    static let pressureLSBPerHPa = 4096.0

    /// Pressure in Pa from the 24-bit output: `raw / 4096` hPa.
    @inline(__always) static func pressurePa(raw: Int32) -> Double { Double(raw) / pressureLSBPerHPa * 100 }

    /// Reads `PRESS_OUT_XL` … `TEMP_OUT_H` in one 5-byte burst from `register` (with the chip's auto-increment
    /// convention already in it). Throws `.invalidReading` for a pressure of 0 or below, which the chips report before
    /// their first measurement (their range starts at 260 hPa). Allocates nothing.
    static func readRaw<Bus: RegisterBus>(
        bus: Bus, address: UInt8, register: UInt8,
        chip: String
    ) throws(SensorError) -> (pressure: Int32, temperature: Int16) {
        let raw = try withTemporaryBytes(byteCount: 5, alignment: 1) { (b) throws(SensorError) -> (Int32, Int16) in
            try bus.sensorRead(address: address, register: register, into: b)
            let bytes = UnsafeRawBufferPointer(b)
            return (Bytes.leS24(bytes, 0), Bytes.leS16(bytes, 3))
        }
        if raw.0 <= 0 { throw invalidPressure(raw.0, chip: chip, bus: bus.name, address: address) }
        return raw
    }

    static func invalidPressure(_ raw: Int32, chip: String, bus: String, address: UInt8) -> SensorError {
        .invalidReading(
            chip: chip, bus: bus, address: address,
            detail: "pressure output \(raw) LSB (≤ 0): no measurement made yet; is the chip configured?")
    }

    /// The oldest `min(waiting, samples.count)` of the `waiting` FIFO slots, `slotBytes` each, read through the window
    /// at `register` (which the chip wraps back over while its FIFO is on: whole slots per bus transaction), decoded
    /// into `samples` with the temperature `temperatureC(bytes, k)` gives slot `k`, and stamped (`FIFOBuffering`'s time
    /// rule). Returns how many. All or nothing: a pressure of 0 or below throws `.invalidReading` and writes nothing.
    /// Allocates nothing.
    static func drainFIFO<Bus: RegisterBus>(
        bus: Bus, address: UInt8, register: UInt8, slotBytes: Int, waiting: Int,
        newestTimeS: Double, periodS: Double, chip: String,
        into samples: UnsafeMutableBufferPointer<SensorReading>,
        temperatureC: (UnsafeRawBufferPointer, Int) -> Double
    ) throws(SensorError) -> Int {
        let count = min(waiting, samples.count)
        guard count > 0 else { return 0 }
        let bad = try withTemporaryBytes(byteCount: count * slotBytes, alignment: 1) {
            (raw) throws(SensorError) -> Int32? in
            try bus.sensorReadFIFO(address: address, register: register, frameBytes: slotBytes, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            for k in 0..<count where Bytes.leS24(b, k * slotBytes) <= 0 { return Bytes.leS24(b, k * slotBytes) }
            for k in 0..<count {
                samples[k] = SensorReading(
                    pressurePa: pressurePa(raw: Bytes.leS24(b, k * slotBytes)), temperatureC: temperatureC(b, k))
            }
            return nil
        }
        if let bad { throw invalidPressure(bad, chip: chip, bus: bus.name, address: address) }
        stampFIFOSamples(samples, count: count, waiting: waiting, newestTimeS: newestTimeS, periodS: periodS)
        return count
    }
}
