/// Splits a receiver's byte stream into packets: NMEA 0183 sentences (checksum verified), u-blox UBX frames
/// (Fletcher checksum verified), `#` comment lines of recorded logs, and gpsd JSON lines (skipped). Bad input is
/// counted by reason and skipped; nothing is ever fatal.
///
/// Byte-level and allocation-free: one fixed buffer per packet kind, sized once in `init`.
///
/// Framing rules (NMEA 0183 v4.11 §5.3; u-blox M8 Receiver Description §32.2), with gpsd's lexer as the
/// reference for the corner cases real receivers produce:
/// - A sentence runs from `$` or `!` to CR or LF and must end in `*hh`, the XOR of the bytes between the start
///   character and `*`. A sentence without a checksum is rejected (gpsd does the same).
/// - A `$` inside a sentence is a collision: a receiver's co-processor injected its own sentence. The interrupted
///   sentence is set aside and resumed after the injected one ends, if the bytes that follow do not start a new
///   sentence; otherwise it is counted as truncated.
/// - Non-printable bytes inside a sentence (NUL, line noise) end it as invalid.
/// - A sentence is framed whatever its length up to `maximumSentenceLength`, gpsd's packet buffer: gpsd's lexer
///   has no NMEA-specific limit (NMEA 0183's 82 characters are exceeded by real receivers: Trimble's 91-character
///   GGA, Skytraq's 103-character PSTI, SiRF/Broadcom's PGLOR past 110). Whether a framed sentence is *decoded* is
///   the decoder's business: gpsd's `nmea_parse` ignores sentences longer than its `NMEA_MAX`
///   (`GNSSDecoder.maximumDecodedSentenceLength`).
/// - The talker must be one NMEA 0183 defines (or `P` for proprietary sentences); `IM` and other invented ones
///   are rejected.
public struct GNSSFramer {
    /// The kinds of packet.
    public enum PacketKind: Sendable, Hashable {
        /// An NMEA 0183 sentence with a valid checksum, from `$`/`!` up to (not including) `*hh`.
        case nmea
        /// A UBX frame: class, id, little-endian length and payload (sync bytes and checksum removed).
        case ubx
        /// A `#` comment line of a recorded log (without the line end).
        case comment
    }

    /// Why input was skipped.
    public enum BadReason: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case badChecksum, missingChecksum, overLong, invalidCharacter, truncated, unknownTalker
        case ubxBadChecksum, ubxTooLong, garbage
        public var description: String {
            switch self {
            case .badChecksum: "bad checksum"
            case .missingChecksum: "missing checksum"
            case .overLong: "over-long sentence"
            case .invalidCharacter: "invalid character in sentence"
            case .truncated: "truncated sentence"
            case .unknownTalker: "unknown talker"
            case .ubxBadChecksum: "UBX bad checksum"
            case .ubxTooLong: "UBX frame too long"
            case .garbage: "stray bytes"
            }
        }
    }

    /// Counts of skipped input by reason (`garbage` counts runs of stray bytes, not bytes).
    public private(set) var badCounts: [Int]
    /// Sentences and frames delivered.
    public private(set) var nmeaCount = 0
    public private(set) var ubxCount = 0
    /// gpsd JSON lines skipped (left in some recorded logs by the capture).
    public private(set) var jsonLinesSkipped = 0

    /// Longest framed sentence, bytes without CR LF: gpsd's `MAX_PACKET_LENGTH` (9216), the size of its lexer's
    /// packet buffer and the only bound its lexer puts on an NMEA sentence. NMEA 0183 v4.11 §5.3 allows 82
    /// characters with CR LF; receivers exceed it (see the type's notes).
    public static let maximumSentenceLength = 9216
    /// Longest accepted UBX payload, bytes (NAV-SAT with 255 satellites is 8 + 12·255 = 3068).
    public static let maximumUBXPayload = 4096

    private enum State { case idle, sentence, ubxHeader, ubxPayload, comment, json, garbage }
    private var state = State.idle
    private var atLineStart = true

    private var sentence: [UInt8]
    private var sentenceLength = 0
    private var suspended: [UInt8]
    private var suspendedLength = 0
    /// True right after a sentence ended while another was suspended: the next non-CR/LF byte decides.
    private var mayResume = false

    private var ubx: [UInt8]
    private var ubxLength = 0
    private var ubxExpected = 0
    private var comment: [UInt8]
    private var commentLength = 0
    private var lastSyncB5 = false

    private var packetKind: PacketKind = .nmea

    public init() {
        badCounts = Array(repeating: 0, count: BadReason.allCases.count)
        sentence = Array(repeating: 0, count: Self.maximumSentenceLength + 8)
        suspended = Array(repeating: 0, count: Self.maximumSentenceLength + 8)
        ubx = Array(repeating: 0, count: Self.maximumUBXPayload + 8)
        comment = Array(repeating: 0, count: 256)
    }

    /// How many inputs were skipped for `reason`.
    public func count(_ reason: BadReason) -> Int { badCounts[reason.rawValue] }

    /// Total skipped inputs.
    public var badTotal: Int { badCounts.reduce(0, +) }

    private mutating func bad(_ r: BadReason) { badCounts[r.rawValue] += 1 }

    /// Feeds one byte. Returns the kind of a packet completed by this byte; read it with `withPacket` before the
    /// next `push`.
    public mutating func push(_ c: UInt8) -> PacketKind? {
        let wasLineStart = atLineStart
        atLineStart = c == 0x0A || c == 0x0D
        switch state {
        case .idle, .garbage:
            if mayResume {
                if c == 0x0D || c == 0x0A { return nil }
                mayResume = false
                if c != 0x24 && c != 0x21 && c >= 0x20 && c < 0x7F {
                    // Resume the interrupted sentence with this byte.
                    swapSuspended()
                    state = .sentence
                    return appendToSentence(c)
                }
                if suspendedLength > 0 { suspendedLength = 0; bad(.truncated) }
            }
            if c == 0x24 || c == 0x21 {
                state = .sentence
                sentence[0] = c
                sentenceLength = 1
                return nil
            }
            if c == 0x62 && lastSyncB5 {
                lastSyncB5 = false
                state = .ubxHeader
                ubxLength = 0
                return nil
            }
            lastSyncB5 = c == 0xB5
            if c == 0xB5 { return nil }
            if wasLineStart && c == 0x23 { state = .comment; commentLength = 0; return nil }
            if wasLineStart && c == 0x7B { state = .json; return nil }
            if c == 0x0A || c == 0x0D || c == 0x20 || c == 0x09 || c == 0 { state = .idle; return nil }
            if state == .idle { bad(.garbage) }
            state = .garbage
            return nil
        case .sentence:
            return appendToSentence(c)
        case .comment:
            if c == 0x0A || c == 0x0D {
                state = .idle
                packetKind = .comment
                return .comment
            }
            if commentLength < comment.count { comment[commentLength] = c; commentLength += 1 }
            return nil
        case .json:
            if c == 0x0A || c == 0x0D { state = .idle; jsonLinesSkipped += 1 }
            return nil
        case .ubxHeader:
            ubx[ubxLength] = c
            ubxLength += 1
            if ubxLength == 4 {
                ubxExpected = Int(ubx[2]) | Int(ubx[3]) << 8
                if ubxExpected > Self.maximumUBXPayload {
                    bad(.ubxTooLong)
                    state = .idle
                    return nil
                }
                state = .ubxPayload
            }
            return nil
        case .ubxPayload:
            ubx[ubxLength] = c
            ubxLength += 1
            guard ubxLength == 4 + ubxExpected + 2 else { return nil }
            state = .idle
            let (a, b) = UBXFrame.checksum(ubx[0..<(4 + ubxExpected)])
            guard a == ubx[4 + ubxExpected], b == ubx[5 + ubxExpected] else { bad(.ubxBadChecksum); return nil }
            ubxCount += 1
            packetKind = .ubx
            return .ubx
        }
    }

    private mutating func swapSuspended() {
        swap(&sentence, &suspended)
        swap(&sentenceLength, &suspendedLength)
        suspendedLength = 0
    }

    private mutating func appendToSentence(_ c: UInt8) -> PacketKind? {
        if c == 0x24 || c == 0x21 {
            // A collision: keep the interrupted sentence (one level) and start the injected one.
            if suspendedLength > 0 { bad(.truncated) }
            swap(&sentence, &suspended)
            suspendedLength = sentenceLength
            sentence[0] = c
            sentenceLength = 1
            return nil
        }
        if c == 0x0D || c == 0x0A {
            state = .idle
            mayResume = suspendedLength > 0
            return finishSentence()
        }
        guard c >= 0x20 && c < 0x7F else {
            bad(.invalidCharacter)
            state = .garbage
            mayResume = suspendedLength > 0
            return nil
        }
        guard sentenceLength < Self.maximumSentenceLength else {
            bad(.overLong)
            state = .garbage
            sentenceLength = 0
            return nil
        }
        sentence[sentenceLength] = c
        sentenceLength += 1
        return nil
    }

    private mutating func finishSentence() -> PacketKind? {
        let n = sentenceLength
        sentenceLength = 0
        guard n >= 3 else { bad(.truncated); return nil }
        // The checksum: "*hh" at the very end.
        guard n >= 4, sentence[n - 3] == 0x2A else { bad(.missingChecksum); return nil }
        guard let hi = Self.hex(sentence[n - 2]), let lo = Self.hex(sentence[n - 1]) else { bad(.badChecksum); return nil }
        var x: UInt8 = 0
        for i in 1..<(n - 3) { x ^= sentence[i] }
        guard x == hi << 4 | lo else { bad(.badChecksum); return nil }
        guard Self.isKnownTalker(sentence[1], sentence[2]) else { bad(.unknownTalker); return nil }
        packetLength = n - 3
        nmeaCount += 1
        packetKind = .nmea
        return .nmea
    }

    private var packetLength = 0

    @inline(__always) static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    /// Talker identifiers of NMEA 0183 v4.11 Table 7 (plus `BD` and `QZ`, which receivers used before `GB` and
    /// `GQ` existed, `PQ`, Quectel's, and `P` for proprietary sentences).
    static func isKnownTalker(_ a: UInt8, _ b: UInt8) -> Bool {
        switch (a, b) {
        case (0x50, _): true // P: proprietary
        // GA GB GL GN GP GQ GI
        case (0x47, 0x41), (0x47, 0x42), (0x47, 0x4C), (0x47, 0x4E), (0x47, 0x50), (0x47, 0x51), (0x47, 0x49): true
        case (0x42, 0x44), (0x51, 0x5A): true // BD QZ
        case (0x41, 0x47), (0x41, 0x49), (0x41, 0x50): true // AG AI AP
        case (0x43, 0x44), (0x43, 0x52), (0x43, 0x53), (0x43, 0x54), (0x43, 0x56), (0x43, 0x58): true // CD CR CS CT CV CX
        case (0x44, 0x45), (0x44, 0x46), (0x45, 0x43), (0x45, 0x49), (0x45, 0x50), (0x45, 0x52): true // DE DF EC EI EP ER
        case (0x46, 0x44), (0x46, 0x45), (0x46, 0x52), (0x46, 0x53): true // FD FE FR FS
        case (0x48, 0x43), (0x48, 0x45), (0x48, 0x4E), (0x49, 0x49), (0x49, 0x4E): true // HC HE HN II IN
        case (0x4C, 0x43), (0x52, 0x41), (0x53, 0x44), (0x53, 0x4E), (0x53, 0x53): true // LC RA SD SN SS
        // TI TR U# VD VM VW VR
        case (0x54, 0x49), (0x54, 0x52), (0x55, _), (0x56, 0x44), (0x56, 0x4D), (0x56, 0x57), (0x56, 0x52): true
        case (0x57, 0x49), (0x59, 0x58), (0x5A, 0x41), (0x5A, 0x43), (0x5A, 0x51), (0x5A, 0x56): true // WI YX ZA ZC ZQ ZV
        case (0x47, 0x59): true // GY: Unicore's inertial sentences (non-standard, accepted by gpsd)
        default: false
        }
    }

    /// Calls `body` with the bytes of the packet the last `push` completed: for `.nmea` the sentence from `$`
    /// up to, not including, `*`; for `.ubx` class, id, length and payload; for `.comment` the line from `#`.
    public func withPacket<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch packetKind {
        case .nmea: sentence.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<packetLength])) }
        case .ubx: ubx.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<(4 + ubxExpected)])) }
        case .comment: comment.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<commentLength])) }
        }
    }

    /// Ends the input: a sentence still open is counted as truncated.
    public mutating func finish() {
        if state == .sentence && sentenceLength > 0 { bad(.truncated) }
        if suspendedLength > 0 { bad(.truncated) }
        if state == .ubxHeader || state == .ubxPayload { bad(.truncated) }
        sentenceLength = 0
        suspendedLength = 0
        state = .idle
        mayResume = false
    }
}
