import LodestoneCore

/// One comma-separated field of an NMEA 0183 sentence, as bytes: the one tested vocabulary for field parsing
/// (numbers, hhmmss.ss times, ddmmyy dates, ddmm.mmmm angles), after gpsd's `safe_atof`, `atoi` and `DD()`.
///
/// A field is a view into the decoder's sentence buffer and is valid only while the decoder hands it to a
/// sentence handler. Nothing here allocates.
public struct NMEAField {
    /// The field's bytes, without the separating commas.
    public let bytes: UnsafeBufferPointer<UInt8>

    /// A view of `bytes` (valid while they are).
    @inlinable public init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// An empty field (also what a field past the end of the sentence reads as).
    @inlinable static var empty: NMEAField { NMEAField(UnsafeBufferPointer(start: nil, count: 0)) }

    /// True when the field has no characters (`,,`).
    @inlinable public var isEmpty: Bool { bytes.isEmpty }

    /// The first byte, or 0 for an empty field (like C's `field[0]` on an empty string).
    @inlinable public var first: UInt8 { bytes.isEmpty ? 0 : bytes[0] }

    /// The byte at `i`, or 0 past the end.
    @inlinable public subscript(i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    /// True when the field is exactly the ASCII text `s` (a `StaticString`, so nothing is allocated).
    @inlinable public func equals(_ s: StaticString) -> Bool {
        guard s.utf8CodeUnitCount == bytes.count else { return false }
        let p = s.utf8Start
        for i in 0..<bytes.count where bytes[i] != p[i] { return false }
        return true
    }

    /// True when the field starts with the ASCII text `s`.
    @inlinable public func hasPrefix(_ s: StaticString) -> Bool {
        guard s.utf8CodeUnitCount <= bytes.count else { return false }
        let p = s.utf8Start
        for i in 0..<s.utf8CodeUnitCount where bytes[i] != p[i] { return false }
        return true
    }

    @inlinable static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// The leading integer, like C's `atoi`: optional blanks and sign, then digits; 0 when there are none.
    /// Saturates instead of overflowing.
    @inlinable public var int: Int {
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        var negative = false
        if i < bytes.count, bytes[i] == 0x2D || bytes[i] == 0x2B { negative = bytes[i] == 0x2D; i += 1 }
        var v = 0
        while i < bytes.count, Self.isDigit(bytes[i]) {
            if v < 100_000_000_000_000 { v = v * 10 + Int(bytes[i] - 0x30) }
            i += 1
        }
        return negative ? -v : v
    }

    /// The leading decimal number, like gpsd's locale-independent `safe_atof`: optional sign, digits, a `.` and
    /// more digits, an optional exponent. `nil` when the field does not start with a number. Correctly rounded
    /// (`DecimalParsing.leadingDouble`, the project's one decimal parser).
    @inlinable public var double: Double? { DecimalParsing.leadingDouble(bytes) }

    /// The number, or NaN when the field holds none (the decoder's internal state uses NaN for "unknown",
    /// as gpsd's does; it never leaves the decoder as NaN).
    @inlinable public var doubleOrNaN: Double { double ?? .nan }

    /// Two decimal digits at `offset` as a number (gpsd's `DD()`); nil unless both are digits.
    @inlinable public func twoDigits(at offset: Int) -> Int? {
        let a = self[offset], b = self[offset + 1]
        guard Self.isDigit(a), Self.isDigit(b) else { return nil }
        return Int(a - 0x30) * 10 + Int(b - 0x30)
    }

    /// True when the first `count` bytes are all digits.
    @inlinable public func leadingDigits(_ count: Int) -> Bool {
        guard bytes.count >= count else { return false }
        for i in 0..<count where !Self.isDigit(bytes[i]) { return false }
        return true
    }

    /// A `hhmmss[.sss…]` UTC time of day: hours, minutes, seconds and nanoseconds. `nil` unless the first six
    /// characters are digits (NMEA 0183 §6.3, "UTC time"). The fraction may have any number of digits.
    public var timeOfDay: (hour: Int, minute: Int, second: Int, nanosecond: Int)? {
        guard leadingDigits(6), let h = twoDigits(at: 0), let m = twoDigits(at: 2), let s = twoDigits(at: 4) else { return nil }
        var nanos = 0
        if self[6] == 0x2E, Self.isDigit(self[7]) {
            // gpsd: atoi of the fraction scaled by 10^(9 - length of the rest of the field)
            var i = 7, value = 0, length = 0
            while i < bytes.count, Self.isDigit(bytes[i]) {
                if length < 9 { value = value * 10 + Int(bytes[i] - 0x30); length += 1 }
                i += 1
            }
            var scale = 1
            for _ in 0..<(9 - length) { scale *= 10 }
            nanos = value * scale
        }
        return (h, m, s, nanos)
    }

    /// The field read as seconds of the day (`hhmmss.ss` as the number hhmmss.ss, like gpsd's fractional-time
    /// register, which only needs to tell one epoch from the next).
    @inlinable public var fractionalTimeTag: Double? { double }

    /// An NMEA latitude or longitude `[d]ddmm.mmmm` in degrees, unsigned. `nil` unless the field has digits
    /// followed by a `.` (NMEA 0183 §6.3: the decimal point is mandatory).
    public var degreesMinutes: Double? {
        var i = 0
        let n = bytes.count
        var whole = 0
        var sawDigit = false
        while i < n, Self.isDigit(bytes[i]) { whole = whole &* 10 &+ Int(bytes[i] - 0x30); i += 1; sawDigit = true }
        guard sawDigit || (i < n && bytes[i] == 0x2E), i < n, bytes[i] == 0x2E else { return nil }
        let fraction = NMEAField(UnsafeBufferPointer(rebasing: bytes[i...])).double ?? 0
        let degrees = whole / 100
        let minutes = Double(whole - degrees * 100) + fraction
        return Double(degrees) + minutes / 60
    }
}
