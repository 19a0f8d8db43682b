import CLodestoneSockets

#if canImport(Glibc)
    import Glibc
#endif

/// Who is on the other end of a connection: a local process (a Unix socket: the kernel's `SO_PEERCRED`, and the
/// executable behind its pid) or a network peer (TCP: an address only, nothing the daemon can trust).
public struct PeerIdentity: Sendable, Hashable, CustomStringConvertible {
    /// User, group and process of a Unix-socket peer, as the kernel saw them at `connect()`.
    public var uid: UInt32?
    public var gid: UInt32?
    public var pid: Int32?
    /// `/proc/PID/exe` of a Unix-socket peer (`nil` when unreadable: another user's process without privileges).
    public var executablePath: String?
    /// The peer's address: `unix` or `host:port`.
    public var address: String

    public init(uid: UInt32? = nil, gid: UInt32? = nil, pid: Int32? = nil, executablePath: String? = nil, address: String) {
        self.uid = uid; self.gid = gid; self.pid = pid; self.executablePath = executablePath; self.address = address
    }

    /// True for a network peer (no credentials).
    public var isNetwork: Bool { uid == nil }

    public var description: String {
        guard let uid else { return address }
        var s = "uid \(uid)"
        if let gid { s += " gid \(gid)" }
        if let pid { s += " pid \(pid)" }
        if let executablePath { s += " \(executablePath)" }
        return s
    }

    /// The credentials of the peer of a connected Unix socket (`SO_PEERCRED`), and its executable.
    public static func ofUnixPeer(fd: Int32) -> PeerIdentity {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        guard lodestone_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return PeerIdentity(address: "unix") }
        return PeerIdentity(uid: uid, gid: gid, pid: pid, executablePath: executable(ofPID: pid), address: "unix")
    }

    /// The target of `/proc/PID/exe` (`nil` when it cannot be read).
    public static func executable(ofPID pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
