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
        let (directory, base) = split(path)
        guard !base.isEmpty, base != ".", base != ".." else {
            throw FileError(kind: .isDirectory, path: path, operation: "atomic write", errno: EISDIR)
        }
        /// Runs `real` unless the test injects a failure at `step`, in which case `real` is not run at all.
        func perform(_ step: Step, _ real: () -> Result<Void, Errno>) -> Result<Void, Errno> {
            injected == step ? .failure(.io) : real()
        }

        // 1. A fresh temporary file beside the target. O_EXCL makes the name ours; retry on a name clash.
        var temporaryPath = ""
        var fd: Int32 = -1
        var attempts = 0
        while fd < 0 {
            attempts += 1
            temporaryPath = directory + "/." + base + ".tmp-" + randomSuffix()
            let opened: Result<Int32, Errno> =
                injected == .create
                ? .failure(.io)
                : Syscalls.open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            switch opened {
            case .success(let d): fd = d
            case .failure(let e) where e.rawValue == EEXIST && attempts < 16: continue
            case .failure(let e):
                throw FileError(e, path: path, operation: "create temporary file in \(directory)")
            }
        }

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

        // 5. The atomic step.
        if case .failure(let e) = perform(.rename, { Syscalls.rename(temporaryPath, path) }) {
            _ = Syscalls.unlink(temporaryPath)
            throw FileError(e, path: path, operation: "rename \(temporaryPath) over \(path)")
        }

        // 6. Make the rename durable.
        switch Syscalls.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
        case .success(let dirFD):
            let synced = perform(.syncDirectory, { Syscalls.fsync(dirFD) })
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
