#if canImport(Glibc)
    import Glibc
#endif

// Plain files and the standard streams through the syscalls shim, so that the product needs no Foundation
// `FileHandle` (which lives in swift-corelibs-foundation with ICU behind it: issue 19's footprint).

/// Whole small files: board files, calibration files, scheduling demands.
public enum PlainFile {
    /// The bytes of `path` (at most `maxBytes` of them, default 16 MiB; a longer file is cut there).
    /// - Throws: `FileError` classified from errno, operation "read".
    public static func read(path: String, maxBytes: Int = 16 << 20) throws(FileError) -> [UInt8] {
        switch Syscalls.readFile(path, maxBytes: maxBytes) {
        case .success(let bytes): return bytes
        case .failure(let e): throw FileError(e, path: path, operation: "read")
        }
    }

    /// Whether `path` is a directory (symlinks followed); `false` for anything else and for nothing at all.
    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        guard case .success = path.withCString({ p in Syscalls.call { stat(p, &status) } }) else { return false }
        return status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR)
    }

    /// Checks that the process may create files in the directory `path` (`access(2)` with `W_OK`), so that a
    /// read-only file system is told apart from a permission problem before any work is done.
    /// - Throws: `FileError` (operation "check write access"): `.readOnlyFileSystem`, `.permissionDenied`, `.notFound`.
    public static func checkWritableDirectory(_ path: String) throws(FileError) {
        if case .failure(let e) = path.withCString({ p in Syscalls.call { access(p, W_OK) } }) {
            throw FileError(e, path: path, operation: "check write access")
        }
    }

    /// `fsync(2)` of the directory `path`, so that a new file's name in it is durable. Best effort.
    /// - Throws: `FileError` (open or fsync).
    public static func syncDirectory(_ path: String) throws(FileError) {
        let fd: Int32
        switch Syscalls.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
        case .success(let d): fd = d
        case .failure(let e): throw FileError(e, path: path, operation: "open the directory")
        }
        defer { _ = Syscalls.close(fd) }
        if case .failure(let e) = Syscalls.fsync(fd) { throw FileError(e, path: path, operation: "fsync the directory") }
    }
}

/// A plain file written as a stream, created or truncated (mode 0644 less the umask): the plain counterpart of
/// `GzipWriter`. Used by one task at a time (not `Sendable`).
public final class FileWriter {
    /// The file being written.
    public let path: String
    private var fd: Int32

    /// Creates or truncates `path`.
    /// - Throws: `FileError` (operation "create"): a missing directory is `.notFound`, an unwritable one
    ///   `.permissionDenied`.
    public init(path: String) throws(FileError) {
        self.path = path
        switch Syscalls.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) {
        case .success(let d): fd = d
        case .failure(let e): throw FileError(e, path: path, operation: "create")
        }
    }

    deinit { if fd >= 0 { _ = Syscalls.close(fd) } }

    /// Writes all of `bytes`.
    /// - Throws: `FileError` (operation "write"; `.noSpace` for a full disk).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        guard fd >= 0 else { throw FileError(kind: .other, path: path, operation: "write", detail: "already closed") }
        if case .failure(let e) = Syscalls.writeAll(fd, bytes) { throw FileError(e, path: path, operation: "write") }
    }

    /// Writes all of `bytes` at byte `offset` of the file (`pwrite(2)`), leaving the file position alone: how a
    /// file kept valid on disk rewrites its tail (`LiveTrackFile`).
    /// - Throws: `FileError` (operation "write"; `.noSpace` for a full disk, `.readOnlyFileSystem`).
    public func write(_ bytes: UnsafeRawBufferPointer, atOffset offset: Int) throws(FileError) {
        guard fd >= 0 else { throw FileError(kind: .other, path: path, operation: "write", detail: "already closed") }
        if case .failure(let e) = Syscalls.pwriteAll(fd, bytes, at: offset) {
            throw FileError(e, path: path, operation: "write")
        }
    }

    /// Cuts the file to `length` bytes (`ftruncate(2)`).
    /// - Throws: `FileError` (operation "truncate").
    public func truncate(toBytes length: Int) throws(FileError) {
        guard fd >= 0 else { throw FileError(kind: .other, path: path, operation: "truncate", detail: "already closed") }
        if case .failure(let e) = Syscalls.ftruncate(fd, length) { throw FileError(e, path: path, operation: "truncate") }
    }

    /// `fsync(2)`: what was written so far survives a power cut.
    /// - Throws: `FileError` (operation "fsync": data the kernel could not store, `.noSpace` on some file systems).
    public func sync() throws(FileError) {
        guard fd >= 0 else { throw FileError(kind: .other, path: path, operation: "fsync", detail: "already closed") }
        if case .failure(let e) = Syscalls.fsync(fd) { throw FileError(e, path: path, operation: "fsync") }
    }

    /// `fsync(2)`s and closes the file; later writes throw.
    /// - Throws: `FileError` (fsync or close: data the kernel could not store).
    public func close() throws(FileError) {
        guard fd >= 0 else { return }
        let d = fd
        fd = -1
        let synced = Syscalls.fsync(d)
        let closed = Syscalls.close(d)
        if case .failure(let e) = synced { throw FileError(e, path: path, operation: "fsync") }
        if case .failure(let e) = closed { throw FileError(e, path: path, operation: "close") }
    }
}

extension StandardStream {
    /// How the stream is named in errors: `<stdin>`, `<stdout>`, `<stderr>`.
    public var name: String {
        switch self {
        case .input: "<stdin>"
        case .output: "<stdout>"
        case .error: "<stderr>"
        }
    }

    /// Writes all of `bytes` to the stream (short writes continue, EINTR retried).
    /// - Throws: `FileError` (operation "write"): `EPIPE` once the reader went away (SIGPIPE is ignored by
    ///   `StopSignal`; without that the process ends there).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        if case .failure(let e) = Syscalls.writeAll(rawValue, bytes) { throw FileError(e, path: name, operation: "write") }
    }

    /// Writes the UTF-8 bytes of `text`, ignoring a failure: for diagnostics on standard error and one-off lines,
    /// where there is nowhere left to report one.
    public func print(_ text: String) {
        var text = text
        text.withUTF8 { _ = Syscalls.writeAll(rawValue, UnsafeRawBufferPointer($0)) }
    }

    /// Everything the stream holds until its end (at most `maxBytes`, default 256 MiB).
    /// - Throws: `FileError` (operation "read").
    public func readAll(maxBytes: Int = 256 << 20) throws(FileError) -> [UInt8] {
        var bytes: [UInt8] = []
        var failure: Errno?
        withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) { chunk in
            while bytes.count < maxBytes {
                switch Syscalls.read(rawValue, into: chunk) {
                case .success(0): return
                case .success(let n): bytes.append(contentsOf: chunk[..<min(n, maxBytes - bytes.count)])
                case .failure(let e): failure = e; return
                }
            }
        }
        if let failure { throw FileError(failure, path: name, operation: "read") }
        return bytes
    }
}

/// Ends the process with `status` at once (`exit(3)`: buffered C streams are flushed, no Swift cleanup runs).
public func exitProcess(_ status: Int32) -> Never { exit(status) }

extension FileError {
    /// `description` without the leading path, for messages that name the file already
    /// (`no such file or directory (read) [errno 2]`).
    public var problemDescription: String {
        let prefix = path + ": "
        return description.hasPrefix(prefix) ? String(description.dropFirst(prefix.count)) : description
    }
}
