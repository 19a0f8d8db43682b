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
    static func readRaw<Bus: RegisterBus>(bus: Bus, address: UInt8, register: UInt8,
                                         chip: String) throws(SensorError) -> (pressure: Int32, temperature: Int16) {
        let raw = try withUnsafeTemporaryAllocation(byteCount: 5, alignment: 1) { (b) throws(SensorError) -> (Int32, Int16) in
            try bus.sensorRead(address: address, register: register, into: b)
            let bytes = UnsafeRawBufferPointer(b)
            return (Bytes.leS24(bytes, 0), Bytes.leS16(bytes, 3))
        }
        if raw.0 <= 0 { throw invalidPressure(raw.0, chip: chip, bus: bus.name, address: address) }
        return raw
    }

    static func invalidPressure(_ raw: Int32, chip: String, bus: String, address: UInt8) -> SensorError {
        .invalidReading(chip: chip, bus: bus, address: address,
                        detail: "pressure output \(raw) LSB (≤ 0): no measurement made yet; is the chip configured?")
    }

    /// Decodes `count` FIFO samples of `stride` bytes from `b` (pressure at the start of each; temperature from
    /// `temperatureC(k)`) into `samples[0..<count]`, without time stamps. All or nothing: a pressure of 0 or below is
    /// returned (and nothing written).
    static func decodeFIFOSamples(_ b: UnsafeRawBufferPointer, count: Int, stride: Int, temperatureC: (Int) -> Double,
                                  into samples: UnsafeMutableBufferPointer<SensorReading>) -> Int32? {
        for k in 0..<count where Bytes.leS24(b, k * stride) <= 0 { return Bytes.leS24(b, k * stride) }
        for k in 0..<count {
            samples[k] = SensorReading(pressurePa: pressurePa(raw: Bytes.leS24(b, k * stride)), temperatureC: temperatureC(k))
        }
        return nil
    }
}
