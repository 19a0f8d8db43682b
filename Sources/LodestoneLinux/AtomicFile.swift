#if canImport(Glibc)
    import Glibc
#endif

/// Replaces a file atomically: readers see the old contents or the new ones, never a mixture, and after a
/// crash the file is one or the other.
///
/// The sequence is the classic one: create a temporary file in the same directory (so `rename(2)` stays within
/// one file system), write everything, `fsync(2)` it, `rename(2)` it over the target, then `fsync(2)` the
/// directory so the rename itself is durable. If anything before the rename fails, the temporary file is
/// removed and the old file is untouched.
public enum AtomicFile {
    /// Writes `bytes` to `path`, replacing any existing file atomically.
    ///
    /// - Parameters:
    ///   - bytes: the new contents.
    ///   - path: the file to replace or create; its directory must exist.
    ///   - permissions: the new file's mode, applied exactly with `fchmod(2)` (the umask does not apply),
    ///     default `0o644`.
    /// - Throws: `FileError` naming the path and the step that failed (create, write, fsync, close, rename,
    ///   fsync of the directory). A directory fsync failure is reported after the rename: the new contents are
    ///   in place but their durability across a power cut is not guaranteed.
    public static func write(_ bytes: [UInt8], to path: String, permissions: UInt32 = 0o644) throws(FileError) {
        try write(bytes, to: path, permissions: permissions, failing: nil)
    }

    /// Writes the UTF-8 bytes of `text` to `path` atomically (see `write(_:to:permissions:)`).
    public static func write(_ text: String, to path: String, permissions: UInt32 = 0o644) throws(FileError) {
        try write(Array(text.utf8), to: path, permissions: permissions)
    }

    /// The steps of a write, for fault injection in tests.
    enum Step: CaseIterable, Sendable {
        case create, write, fsync, close, rename, syncDirectory
    }

    /// `write(_:to:permissions:)` with fault injection for tests.
    static func write(_ bytes: [UInt8], to path: String, permissions: UInt32, failing injected: Step?) throws(FileError) {
        // Array.withUnsafeBytes is `rethrows`, which erases the error type; carry it out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(FileError) in try write(raw, to: path, permissions: permissions, failing: injected) }
        }
        try result.get()
    }

    /// The implementation; `failing` makes that step fail with `EIO` as if the kernel had reported it.
    static func write(
        _ bytes: UnsafeRawBufferPointer, to path: String, permissions: UInt32,
        failing injected: Step?
    ) throws(FileError) {
        /// Runs `real` unless the test injects a failure at `step`, in which case `real` is not run at all.
        func perform(_ step: Step, _ real: () -> Result<Void, Errno>) -> Result<Void, Errno> {
            injected == step ? .failure(.io) : real()
        }

        // 1. A fresh temporary file beside the target.
        let (directory, temporaryPath, fd) = try openTemporary(for: path, failing: injected)

        // 2–4. Mode, contents, fsync, close; on any failure remove the temporary file and keep the old one.
        let steps: [(Step, String, () -> Result<Void, Errno>)] = [
            (.write, "set mode of \(temporaryPath)", { Syscalls.fchmod(fd, mode_t(permissions)) }),
            (.write, "write \(bytes.count) bytes to \(temporaryPath)", { Syscalls.writeAll(fd, bytes) }),
            (.fsync, "fsync \(temporaryPath)", { Syscalls.fsync(fd) })
        ]
        for (step, what, run) in steps {
            if case .failure(let e) = perform(step, run) {
                _ = Syscalls.close(fd)
                _ = Syscalls.unlink(temporaryPath)
                throw FileError(e, path: path, operation: what)
            }
        }
        // close(2) can report a deferred write error (NFS, quota): it counts.
        if case .failure(let e) = perform(.close, { Syscalls.close(fd) }) {
            _ = Syscalls.unlink(temporaryPath)
            throw FileError(e, path: path, operation: "close \(temporaryPath)")
        }

        // 5–6. The atomic step, and the directory's fsync that makes it durable.
        try renameIntoPlace(temporaryPath, path: path, directory: directory, failing: injected)
    }

    /// Creates a fresh temporary file beside `path` (`dir/.base.tmp-RANDOM`, mode 0600, `O_EXCL`: the name is
    /// ours; a clash draws another name). Returns the directory, the temporary file's path and its descriptor.
    /// - Throws: `FileError` for a `path` that names a directory (`x/`, `.`, `..`) or when the file cannot be created.
    static func openTemporary(
        for path: String, failing injected: Step? = nil
    ) throws(FileError) -> (directory: String, path: String, fd: Int32) {
        let (directory, base) = split(path)
        guard !base.isEmpty, base != ".", base != ".." else {
            throw FileError(kind: .isDirectory, path: path, operation: "atomic write", errno: EISDIR)
        }
        var temporaryPath = ""
        var attempts = 0
        while true {
            attempts += 1
            temporaryPath = directory + "/." + base + ".tmp-" + randomSuffix()
            let opened: Result<Int32, Errno> =
                injected == .create
                ? .failure(.io)
                : Syscalls.open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            switch opened {
            case .success(let d): return (directory, temporaryPath, d)
            case .failure(let e) where e.rawValue == EEXIST && attempts < 16: continue
            case .failure(let e):
                throw FileError(e, path: path, operation: "create temporary file in \(directory)")
            }
        }
    }

    /// Renames the written, synced and closed `temporaryPath` over `path` (removing it when that fails), then fsyncs
    /// the directory so that the rename survives a power cut.
    static func renameIntoPlace(
        _ temporaryPath: String, path: String, directory: String, failing injected: Step? = nil
    ) throws(FileError) {
        if case .failure(let e) = (injected == .rename ? .failure(.io) : Syscalls.rename(temporaryPath, path)) {
            _ = Syscalls.unlink(temporaryPath)
            throw FileError(e, path: path, operation: "rename \(temporaryPath) over \(path)")
        }
        switch Syscalls.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
        case .success(let dirFD):
            let synced = injected == .syncDirectory ? .failure(.io) : Syscalls.fsync(dirFD)
            _ = Syscalls.close(dirFD)
            // EINVAL: this file system cannot fsync a directory (some FUSE and network file systems); there
            // is nothing more to make durable, so that is not an error.
            if case .failure(let e) = synced, e.rawValue != EINVAL {
                throw FileError(e, path: path, operation: "fsync directory \(directory) after replacing the file")
            }
        case .failure(let e):
            throw FileError(e, path: path, operation: "open directory \(directory) to fsync it after replacing the file")
        }
    }

    /// `("dir", "name")` for `dir/name`; `(".", "name")` for a bare name; `("/", "name")` for `/name`.
    static func split(_ path: String) -> (directory: String, base: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func randomSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return String(value, radix: 16)
    }
}

/// A file replaced atomically, written as a stream: the contents go to a temporary file beside the target as they are
/// written (through a 64 KiB buffer), and `commit()` fsyncs it and renames it over the target, as `AtomicFile.write`
/// does with contents held whole. Memory stays at the buffer however long the output grows; readers of the target
/// see the old file until the commit and the whole new one after it; a crash or an error before the commit leaves the
/// old file (the temporary one is removed on error, by `abandon()`, or when the writer is released uncommitted).
/// Used by one task at a time (not `Sendable`).
public final class AtomicFileWriter {
    /// The file replaced on `commit()`.
    public let path: String
    private let directory: String
    private let temporaryPath: String
    private let permissions: UInt32
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var bufferedCount = 0
    private static let bufferBytes = 64 << 10

    /// Creates the temporary file beside `path` (whose directory must exist); `permissions` is the new file's mode.
    /// - Throws: `FileError` (creating the temporary file: a missing directory, no permission, a read-only file system).
    public init(path: String, permissions: UInt32 = 0o644) throws(FileError) {
        let (directory, temporaryPath, fd) = try AtomicFile.openTemporary(for: path)
        self.path = path
        self.directory = directory
        self.temporaryPath = temporaryPath
        self.permissions = permissions
        self.fd = fd
        buffer = [UInt8](repeating: 0, count: Self.bufferBytes)
    }

    deinit { abandon() }

    /// Appends `bytes`; they reach the temporary file whenever the buffer fills.
    /// - Throws: `FileError` (a full disk, an I/O error): the writer is abandoned, the target untouched.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        guard fd >= 0 else { throw FileError(kind: .other, path: path, operation: "write", detail: "already closed") }
        if bufferedCount + bytes.count > buffer.count { try drain() }
        if bytes.count >= buffer.count {
            if case .failure(let e) = Syscalls.writeAll(fd, bytes) { throw failed(e, "write to \(temporaryPath)") }
            return
        }
        let offset = bufferedCount
        buffer.withUnsafeMutableBytes { p in
            UnsafeMutableRawBufferPointer(rebasing: p[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
        }
        bufferedCount += bytes.count
    }

    /// Writes what is buffered, sets the mode, fsyncs and closes the temporary file, renames it over `path` and fsyncs
    /// the directory. After it, writes throw.
    /// - Throws: `FileError` naming the step; before the rename the target is untouched and the temporary file gone.
    public func commit() throws(FileError) {
        guard fd >= 0 else { throw FileError(kind: .other, path: path, operation: "commit", detail: "already closed") }
        try drain()
        if case .failure(let e) = Syscalls.fchmod(fd, mode_t(permissions)) { throw failed(e, "set mode of \(temporaryPath)") }
        if case .failure(let e) = Syscalls.fsync(fd) { throw failed(e, "fsync \(temporaryPath)") }
        let d = fd
        fd = -1
        // close(2) can report a deferred write error (NFS, quota): it counts.
        if case .failure(let e) = Syscalls.close(d) {
            _ = Syscalls.unlink(temporaryPath)
            throw FileError(e, path: path, operation: "close \(temporaryPath)")
        }
        try AtomicFile.renameIntoPlace(temporaryPath, path: path, directory: directory)
    }

    /// Gives the new contents up: the temporary file is closed and removed, the target left as it was. Does nothing
    /// after `commit()` or a failure.
    public func abandon() {
        guard fd >= 0 else { return }
        _ = Syscalls.close(fd)
        fd = -1
        _ = Syscalls.unlink(temporaryPath)
    }

    private func drain() throws(FileError) {
        guard bufferedCount > 0 else { return }
        let n = bufferedCount
        bufferedCount = 0
        let result = buffer.withUnsafeBytes { Syscalls.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        if case .failure(let e) = result { throw failed(e, "write \(n) bytes to \(temporaryPath)") }
    }

    /// Abandons the writer and describes the failure of `operation`.
    private func failed(_ e: Errno, _ operation: String) -> FileError {
        abandon()
        return FileError(e, path: path, operation: operation)
    }
}
