#if canImport(Glibc)
    import Glibc
#endif

/// Standard error as journald sees it (`systemd.exec(5)`, `JOURNAL_STREAM`): when systemd connects a service's
/// standard error to the journal it sets `JOURNAL_STREAM=DEVICE:INODE` of that stream, so a process can tell that its
/// own standard error is still that stream (not redirected by a shell in between) and write syslog priority prefixes
/// (`<3>`) instead of timestamps.
public enum SystemdJournalStream {
    /// A stream's identity: `st_dev` and `st_ino` of `fstat(2)`.
    public struct Identity: Sendable, Hashable {
        /// `st_dev`.
        public var device: UInt64
        /// `st_ino`.
        public var inode: UInt64

        /// Creates an identity.
        public init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }

        /// Parses `JOURNAL_STREAM` (`DEVICE:INODE`, both decimal); `nil` when malformed.
        public init?(journalStream value: String) {
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
            self.init(device: device, inode: inode)
        }
    }

    /// The identity of an open descriptor (`fstat(2)`); `nil` when it is not open.
    public static func identity(of fd: Int32) -> Identity? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Whether standard error is the journal stream `JOURNAL_STREAM` names (of this process's environment unless
    /// `environment` is given).
    public static func standardErrorIsJournal(environment: [String: String]? = nil) -> Bool {
        let environment = environment ?? SystemdEnvironment.current(["JOURNAL_STREAM"])
        guard let value = environment["JOURNAL_STREAM"], let expected = Identity(journalStream: value) else { return false }
        return identity(of: 2) == expected
    }

    /// Writes all of `bytes` to `fd` (standard error unless told), retrying on `EINTR` and after short writes; `false`
    /// when it could not (a closed or full non-blocking stream). Never throws: losing a log line must not stop the daemon.
    @discardableResult
    public static func write(_ bytes: [UInt8], to fd: Int32 = 2) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }
}
