#if canImport(Glibc)
    import Glibc
#endif

/// A file operation that failed, with the path, what was being done, and the errno.
///
/// `description` is one line that says what, where and what to do, e.g.
/// `/etc/lodestone/board.json: permission denied (create temporary file in /etc/lodestone) [errno 13]: …`.
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The classification.
    public enum Kind: Sendable, Hashable {
        /// `ENOENT`: the file or a directory on its path does not exist.
        case notFound
        /// `EACCES`, `EPERM`: the process may not do this.
        case permissionDenied
        /// `EROFS`: the file system is mounted read-only.
        case readOnlyFileSystem
        /// `ENOSPC`, `EDQUOT`, `EFBIG`: out of space, quota or file size limit.
        case noSpace
        /// `EISDIR`: a directory is where a file was expected.
        case isDirectory
        /// `ENOTDIR`: a path component is not a directory.
        case notDirectory
        /// The compressed stream ends before its end (a cut-short `.gz`).
        case truncated
        /// The data are not what the format requires (bad gzip header, CRC mismatch).
        case corrupt
        /// `EIO`: the device reported an I/O error.
        case io
        /// Anything else; see `errno`.
        case other
    }

    /// The classification.
    public var kind: Kind
    /// The file the operation was about.
    public var path: String
    /// What was being done, e.g. "fsync", "rename .board.json.tmp-1a2b over board.json".
    public var operation: String
    /// The errno reported, 0 when the failure has none (e.g. a truncated gzip stream).
    public var errno: Int32
    /// Extra text from the library that failed (zlib's message), or "".
    public var detail: String

    /// An error with every field given.
    public init(kind: Kind, path: String, operation: String, errno: Int32 = 0, detail: String = "") {
        self.kind = kind; self.path = path; self.operation = operation; self.errno = errno; self.detail = detail
    }

    /// A `FileError` classified from `errno`.
    init(_ errno: Errno, path: String, operation: String) {
        self.init(
            kind: Self.kind(forErrno: errno.rawValue), path: path, operation: operation, errno: errno.rawValue,
            detail: errno.rawValue == 0 ? "" : errno.description)
    }

    /// Classifies a Linux errno.
    public static func kind(forErrno e: Int32) -> Kind {
        switch e {
        case ENOENT: .notFound
        case EACCES, EPERM: .permissionDenied
        case EROFS: .readOnlyFileSystem
        case ENOSPC, EDQUOT, EFBIG: .noSpace
        case EISDIR: .isDirectory
        case ENOTDIR: .notDirectory
        case EIO: .io
        default: .other
        }
    }

    /// One line: path, what went wrong and what to do, the operation, the C library's text, the errno.
    public var description: String {
        let what: String =
            switch kind {
            case .notFound: "no such file or directory"
            case .permissionDenied: "permission denied: check the owner and mode of the file and its directory"
            case .readOnlyFileSystem: "read-only file system: write somewhere else or remount it read-write"
            case .noSpace: "no space left (or quota/file size limit reached): free some space"
            case .isDirectory: "is a directory: give a file path"
            case .notDirectory: "a component of the path is not a directory"
            case .truncated: "truncated: the file ends before its compressed stream does (an interrupted write or copy?)"
            case .corrupt: "corrupt data: not a valid gzip file"
            case .io: "I/O error: the storage device may be failing"
            case .other: "failed"
            }
        var line = "\(path): \(what) (\(operation))"
        if !detail.isEmpty { line += ": \(detail)" }
        if errno != 0 { line += " [errno \(errno)]" }
        return line
    }
}
