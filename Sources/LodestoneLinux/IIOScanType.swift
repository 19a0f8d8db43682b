/// How one channel's sample is laid out in an IIO buffer: the `scan_elements/*_type` string of the kernel's
/// IIO ABI (Documentation/ABI/testing/sysfs-bus-iio, "in_voltageY_type"), `[be|le]:[s|u]bits/storagebits[XR]>>shift`.
///
/// Examples: `le:s16/16>>0` (a little-endian signed 16-bit word), `be:u12/16>>4` (12 bits left-aligned in a
/// big-endian word), `le:s64/64>>0` (the timestamp, ns), `le:s16/16X2>>0` (two repeated 16-bit values).
/// Upper-case `S`/`U` ("fully defined": no padding bits to mask) parse like `s`/`u`.
public struct IIOScanType: Sendable, Hashable, CustomStringConvertible {
    /// Byte order of the storage word.
    public enum Endianness: Sendable, Hashable {
        case little, big
    }

    /// Byte order.
    public let endianness: Endianness
    /// True for two's-complement values (`s`), false for unsigned (`u`).
    public let isSigned: Bool
    /// Significant bits, 1…storageBits.
    public let realBits: Int
    /// Bits the value occupies in the buffer: a multiple of 8, 8…64.
    public let storageBits: Int
    /// Right shift applied to the storage word before masking `realBits`.
    public let shift: Int
    /// How many values follow each other (`X` count), 1 when absent.
    public let repeatCount: Int

    /// Bytes of one value in the buffer.
    public var storageBytes: Int { storageBits / 8 }

    /// A validated scan type.
    /// - Throws: `IIOError.Kind.malformedValue` unless storageBits is a multiple of 8 in 8…64, realBits is in
    ///   1…storageBits, shift + realBits ≤ storageBits, and repeatCount ≥ 1.
    public init(
        endianness: Endianness, isSigned: Bool, realBits: Int, storageBits: Int, shift: Int,
        repeatCount: Int = 1
    ) throws(IIOError) {
        guard storageBits % 8 == 0, (8...64).contains(storageBits), (1...storageBits).contains(realBits),
            shift >= 0, shift + realBits <= storageBits, repeatCount >= 1
        else {
            throw IIOError(
                kind: .malformedValue,
                detail:
                    "impossible scan type: \(realBits) real bits, \(storageBits) storage bits, shift \(shift), repeat \(repeatCount)"
            )
        }
        self.endianness = endianness; self.isSigned = isSigned; self.realBits = realBits
        self.storageBits = storageBits; self.shift = shift; self.repeatCount = repeatCount
    }

    /// Parses a kernel type string such as `le:s16/16>>0` (surrounding whitespace, e.g. sysfs's newline, is ignored).
    /// - Throws: `IIOError.Kind.malformedValue` quoting the text.
    public init(parsing text: String) throws(IIOError) {
        func malformed(_ why: String) -> IIOError {
            IIOError(kind: .malformedValue, detail: "scan type '\(text)' is malformed: \(why)")
        }
        var s = Substring(text).trimmingWhitespace

        let endianness: Endianness
        if s.hasPrefix("le:") {
            endianness = .little
        } else if s.hasPrefix("be:") {
            endianness = .big
        } else {
            throw malformed("expected 'le:' or 'be:' first")
        }
        s = s.dropFirst(3)
        let isSigned: Bool
        switch s.first {
        case "s", "S": isSigned = true
        case "u", "U": isSigned = false
        default: throw malformed("expected s, u, S or U after the endianness")
        }
        s = s.dropFirst()

        /// Consumes a decimal number from the front of `s`.
        func number(_ what: String) throws(IIOError) -> Int {
            let digits = s.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 4, let n = Int(digits) else { throw malformed("expected \(what)") }
            s = s.dropFirst(digits.count)
            return n
        }
        let realBits = try number("the number of real bits")
        guard s.first == "/" else { throw malformed("expected '/' after the real bits") }
        s = s.dropFirst()
        let storageBits = try number("the number of storage bits")
        var repeatCount = 1
        if s.first == "X" {
            s = s.dropFirst()
            repeatCount = try number("a repeat count after 'X'")
        }
        guard s.hasPrefix(">>") else { throw malformed("expected '>>' and a shift") }
        s = s.dropFirst(2)
        let shift = try number("the shift")
        guard s.isEmpty else { throw malformed("unexpected '\(s)' at the end") }
        do {
            try self.init(
                endianness: endianness, isSigned: isSigned, realBits: realBits, storageBits: storageBits,
                shift: shift, repeatCount: repeatCount)
        } catch {
            throw malformed(error.detail)
        }
    }

    /// Decodes the first value in `bytes`: reads `storageBytes` bytes in `endianness`, shifts right by
    /// `shift`, keeps `realBits` and sign-extends them when `isSigned`. `nil` when `bytes` is too short.
    @inlinable
    public func decode(bytes: UnsafeRawBufferPointer) -> Int64? {
        let n = storageBits / 8
        guard bytes.count >= n else { return nil }
        var word: UInt64 = 0
        switch endianness {
        case .little:
            for i in stride(from: n - 1, through: 0, by: -1) { word = word << 8 | UInt64(bytes[i]) }
        case .big:
            for i in 0..<n { word = word << 8 | UInt64(bytes[i]) }
        }
        word >>= UInt64(shift)
        let unused = UInt64(64 - realBits)
        if isSigned {
            // Move the sign bit to bit 63, then an arithmetic shift back sign-extends.
            return Int64(bitPattern: word << unused) >> unused
        }
        return Int64(bitPattern: (word << unused) >> unused)
    }

    /// `decode(bytes:)` for an array (tests, tools).
    public func decode(bytes: [UInt8]) -> Int64? {
        bytes.withUnsafeBytes { decode(bytes: $0) }
    }

    /// The canonical kernel string, e.g. `le:s16/16>>0`.
    public var description: String {
        (endianness == .little ? "le:" : "be:") + (isSigned ? "s" : "u") + "\(realBits)/\(storageBits)"
            + (repeatCount > 1 ? "X\(repeatCount)" : "") + ">>\(shift)"
    }
}
