/// The u-blox UBX frame, the one place that knows its checksum: sync `B5 62`, class, id, little-endian payload
/// length, payload, `CK_A CK_B` (u-blox 8 / u-blox M8 Receiver Description including Protocol Specification,
/// UBX-13003221, 32.2 "UBX frame structure", 32.4 "UBX checksum"). `GNSSFramer` checks frames with it;
/// `UBXPowerCommands` builds them with it.
public enum UBXFrame {
    /// The two sync characters every frame starts with.
    public static let syncCharacters: [UInt8] = [0xB5, 0x62]

    /// The 8-bit Fletcher checksum (RFC 1145) over `bytes`: class, id, length and payload, sync characters excluded.
    @inlinable
    public static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> (a: UInt8, b: UInt8) {
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in bytes {
            a &+= byte
            b &+= a
        }
        return (a, b)
    }

    /// One frame of `messageClass`, `id` and `payload` (at most 65 535 bytes), checksum included.
    public static func frame(messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [
            messageClass, id, UInt8(truncatingIfNeeded: payload.count), UInt8(truncatingIfNeeded: payload.count >> 8)
        ]
        body += payload
        let (a, b) = checksum(body)
        return syncCharacters + body + [a, b]
    }
}
