/// The one byte-decoding vocabulary, named by sign, endianness and width (after gpsd's `bits.h`).
/// All functions read from `bytes` at `offset` and never trap for in-range offsets.
public enum Bytes {
    @inlinable public static func u8(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt8 { b[o] }
    @inlinable public static func s8(_ b: UnsafeRawBufferPointer, _ o: Int) -> Int8 { Int8(bitPattern: b[o]) }
    /// Unsigned 16-bit little-endian.
    @inlinable public static func leU16(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt16 {
        UInt16(b[o]) | UInt16(b[o + 1]) << 8
    }
    /// Signed 16-bit little-endian.
    @inlinable public static func leS16(_ b: UnsafeRawBufferPointer, _ o: Int) -> Int16 {
        Int16(bitPattern: leU16(b, o))
    }
    /// Unsigned 16-bit big-endian.
    @inlinable public static func beU16(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt16 {
        UInt16(b[o]) << 8 | UInt16(b[o + 1])
    }
    /// Signed 16-bit big-endian.
    @inlinable public static func beS16(_ b: UnsafeRawBufferPointer, _ o: Int) -> Int16 {
        Int16(bitPattern: beU16(b, o))
    }
    /// Unsigned 24-bit big-endian.
    @inlinable public static func beU24(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(b[o]) << 16 | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2])
    }
    /// Unsigned 24-bit little-endian.
    @inlinable public static func leU24(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16
    }
    /// Unsigned 32-bit little-endian (u-blox UBX `U4`).
    @inlinable public static func leU32(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }
    /// Signed 32-bit little-endian (u-blox UBX `I4`).
    @inlinable public static func leS32(_ b: UnsafeRawBufferPointer, _ o: Int) -> Int32 {
        Int32(bitPattern: leU32(b, o))
    }
    /// Signed 24-bit little-endian (two's complement, e.g. ST pressure outputs), sign-extended.
    @inlinable public static func leS24(_ b: UnsafeRawBufferPointer, _ o: Int) -> Int32 {
        Int32(bitPattern: leU24(b, o) << 8) >> 8
    }
    /// Unsigned 20-bit big-endian left-aligned in 3 bytes (Bosch BMP280 ADC: msb, lsb, xlsb[7:4]).
    @inlinable public static func beU20(_ b: UnsafeRawBufferPointer, _ o: Int) -> UInt32 {
        beU24(b, o) >> 4
    }

    /// Writes little-endian 16-bit.
    @inlinable public static func putLE16(_ v: UInt16, _ b: UnsafeMutableRawBufferPointer, _ o: Int) {
        b[o] = UInt8(truncatingIfNeeded: v); b[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
    }
    /// Writes big-endian 16-bit.
    @inlinable public static func putBE16(_ v: UInt16, _ b: UnsafeMutableRawBufferPointer, _ o: Int) {
        b[o] = UInt8(truncatingIfNeeded: v >> 8); b[o + 1] = UInt8(truncatingIfNeeded: v)
    }
}
