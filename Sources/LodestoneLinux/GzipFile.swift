import CLodestoneLinux
#if canImport(Glibc)
    import Glibc
#endif

/// Whole-file gzip reading and writing through zlib (RFC 1952).
public enum GzipFile {
    /// Reads and decompresses all of `path`. A file that is not gzip is read as it is (zlib's transparent
    /// mode), so plain and `.gz` traces go through the same call. `GzipReader` reads the same bytes as a stream.
    ///
    /// - Throws: `FileError` with kind `.truncated` when the file ends inside the compressed stream (zlib's
    ///   "unexpected end of file"), `.corrupt` for bad data or a CRC mismatch, or the errno's kind when the
    ///   file cannot be opened or read.
    public static func readAll(path: String) throws(FileError) -> [UInt8] {
        let reader = try GzipReader(path: path)
        var contents: [UInt8] = []
        let chunkBytes = 64 * 1024
        var failure: FileError?
        withUnsafeTemporaryAllocation(byteCount: chunkBytes, alignment: 16) { chunk in
            while true {
                do throws(FileError) {
                    let n = try reader.read(into: chunk)
                    if n == 0 { break }
                    contents.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<n]))
                } catch {
                    failure = error
                    break
                }
            }
        }
        if let failure { throw failure }
        return contents
    }

    /// Compresses `bytes` (gzip, `level` 0–9, default 6) and writes them to `path` atomically with
    /// `AtomicFile`, so a reader never sees a half-written `.gz`.
    public static func write(bytes: [UInt8], to path: String, level: Int = 6, permissions: UInt32 = 0o644) throws(FileError) {
        let compressed = try compress(bytes, level: level, path: path)
        try AtomicFile.write(compressed, to: path, permissions: permissions)
    }

    /// `bytes` as one gzip member (`deflateInit2` with windowBits 15 + 16).
    static func compress(_ bytes: [UInt8], level: Int, path: String) throws(FileError) -> [UInt8] {
        var stream = z_stream()
        let initResult = lodestone_deflate_init_gzip(&stream, Int32(max(0, min(9, level))))
        guard initResult == Z_OK else {
            throw FileError(kind: .other, path: path, operation: "deflateInit2", detail: "zlib error \(initResult)")
        }
        defer { deflateEnd(&stream) }
        var output: [UInt8] = []
        output.reserveCapacity(Int(clamping: deflateBound(&stream, UInt(bytes.count))))
        let chunkBytes = 64 * 1024
        var status: Int32 = Z_OK
        bytes.withUnsafeBufferPointer { input in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: chunkBytes) { chunk in
                var offset = 0
                repeat {
                    // avail_in is 32-bit: feed at most 1 GiB at a time.
                    if stream.avail_in == 0 && offset < input.count {
                        let n = min(1 << 30, input.count - offset)
                        stream.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0 + offset) }
                        stream.avail_in = UInt32(n)
                        offset += n
                    }
                    let flush = offset == input.count ? Z_FINISH : Z_NO_FLUSH
                    stream.next_out = chunk.baseAddress
                    stream.avail_out = UInt32(chunkBytes)
                    status = deflate(&stream, flush)
                    let produced = chunkBytes - Int(stream.avail_out)
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<produced]))
                } while status == Z_OK || status == Z_BUF_ERROR && stream.avail_in > 0
            }
        }
        guard status == Z_STREAM_END else {
            throw FileError(kind: .other, path: path, operation: "deflate", detail: "zlib error \(status)")
        }
        return output
    }
}

/// A file read as a stream of decompressed bytes (zlib's `gzread`; a file that is not gzip is read as it is), for
/// traces too long to hold in memory: the read side of `GzipWriter`.
///
/// Errors surface where the stream breaks: every byte before a cut or a corrupt block is returned by the reads
/// before the one that throws. A reader is used by one task at a time (it is not `Sendable`).
public final class GzipReader {
    /// The file being read.
    public let path: String
    private var file: gzFile?

    /// Opens `path` for reading.
    /// - Throws: `FileError` classified from errno (not found, permission denied, a directory, …).
    public init(path: String) throws(FileError) {
        self.path = path
        let opened = try gzOpen(path, mode: "rbe", operation: "open for reading") // e: O_CLOEXEC
        file = opened
        _ = gzbuffer(opened, 128 * 1024)
    }

    deinit { if let file { _ = gzclose_r(file) } }

    /// Reads up to `buffer.count` decompressed bytes into `buffer` and returns how many; 0 once the file has
    /// ended (and on every later call).
    ///
    /// - Throws: `FileError` with kind `.truncated` when the file ends inside the compressed stream (zlib's
    ///   "unexpected end of file"), `.corrupt` for bad data or a CRC mismatch, or the errno's kind when reading
    ///   fails. The reader is closed after an error.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileError) -> Int {
        guard let file, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        // gzread takes an unsigned count and returns an int: ask for at most 1 GiB at a time.
        let n = gzread(file, base, UInt32(min(buffer.count, 1 << 30)))
        if n > 0 { return Int(n) }
        // End of file or an error. zlib reports a stream cut short as end of file from gzread and Z_BUF_ERROR
        // from gzerror/gzclose_r.
        let pending = streamError(file, path: path, operation: "read")
        self.file = nil
        let result = gzclose_r(file)
        if let pending { throw pending }
        if n < 0 { throw FileError(kind: .other, path: path, operation: "read", detail: "gzread failed") }
        if result == Z_BUF_ERROR {
            throw FileError(kind: .truncated, path: path, operation: "read", detail: "unexpected end of file")
        }
        if result == Z_ERRNO { throw FileError(Syscalls.currentErrno(), path: path, operation: "close") }
        return 0
    }
}

/// The error pending on `file`, if any, from `gzerror`.
private func streamError(_ file: gzFile, path: String, operation: String) -> FileError? {
    var code: Int32 = Z_OK
    let message = gzerror(file, &code).map { String(cString: $0) } ?? ""
    switch code {
    case Z_OK: return nil
    case Z_ERRNO: return FileError(Syscalls.currentErrno(), path: path, operation: operation)
    case Z_BUF_ERROR: return FileError(kind: .truncated, path: path, operation: operation, detail: message)
    case Z_DATA_ERROR: return FileError(kind: .corrupt, path: path, operation: operation, detail: message)
    default: return FileError(kind: .other, path: path, operation: operation, detail: message)
    }
}

/// A gzip file written as a stream (`gzopen`/`gzwrite`/`gzclose`), for recordings too long to hold in memory.
///
/// Unlike `GzipFile.write`, the file is written in place: after a crash it ends mid-stream, and
/// `GzipFile.readAll` reports it as `.truncated` rather than returning part of it silently.
public final class GzipWriter {
    /// The file being written.
    public let path: String
    private var file: gzFile?
    /// The descriptor zlib writes to (owned by `file`: `gzclose_w` closes it), kept for `fsync(2)`.
    private let fd: Int32

    /// Creates or truncates `path` (mode 0644 less the umask) for gzip output at compression `level` 0–9
    /// (default 6).
    /// - Throws: `FileError` classified from errno (permission denied, no such directory, …).
    public init(path: String, level: Int = 6) throws(FileError) {
        self.path = path
        let d: Int32
        switch Syscalls.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) {
        case .success(let opened): d = opened
        case .failure(let e): throw FileError(e, path: path, operation: "create for writing")
        }
        let mode = "wb\(max(0, min(9, level)))"
        guard let f = mode.withCString({ gzdopen(d, $0) }) else {
            _ = Syscalls.close(d)
            throw FileError(kind: .other, path: path, operation: "gzdopen", detail: "zlib could not allocate its state")
        }
        fd = d
        file = f
    }

    /// Compresses and writes everything given so far, ending the deflate block (`gzflush(Z_SYNC_FLUSH)`): a
    /// reader of the file as it stands (after a `kill -9`, say) decompresses every byte written before the flush
    /// and then finds the stream cut short. Costs a few bytes of compression per call.
    /// - Throws: `FileError` (operation "flush").
    public func flush() throws(FileError) {
        guard let file else { throw FileError(kind: .other, path: path, operation: "flush", detail: "already closed") }
        guard gzflush(file, Z_SYNC_FLUSH) == Z_OK else { throw Self.error(file, path: path, operation: "flush") }
    }

    /// `flush()`, then `fsync(2)`: what was written so far survives a power cut.
    /// - Throws: `FileError` (flush or fsync).
    public func sync() throws(FileError) {
        try flush()
        if case .failure(let e) = Syscalls.fsync(fd) { throw FileError(e, path: path, operation: "fsync") }
    }

    deinit { if let file { _ = gzclose_w(file) } }

    /// Compresses and writes `bytes`.
    public func write(_ bytes: [UInt8]) throws(FileError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(FileError) in try write(raw) } }
        try result.get()
    }

    /// Compresses and writes `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        guard let file else { throw FileError(kind: .other, path: path, operation: "write", detail: "already closed") }
        var offset = 0
        while offset < bytes.count {
            let n = min(1 << 30, bytes.count - offset)
            guard let base = bytes.baseAddress else { return }
            let written = gzwrite(file, base + offset, UInt32(n))
            guard written > 0 else { throw Self.error(file, path: path, operation: "write") }
            offset += Int(written)
        }
    }

    /// Flushes, writes the gzip trailer and closes. Further writes throw; closing twice does nothing.
    public func close() throws(FileError) {
        guard let file else { return }
        self.file = nil
        let result = gzclose_w(file)
        if result == Z_ERRNO { throw FileError(Syscalls.currentErrno(), path: path, operation: "close") }
        if result != Z_OK {
            throw FileError(kind: .other, path: path, operation: "close", detail: "zlib error \(result)")
        }
    }

    private static func error(_ file: gzFile, path: String, operation: String) -> FileError {
        var code: Int32 = Z_OK
        let message = gzerror(file, &code).map { String(cString: $0) } ?? ""
        if code == Z_ERRNO { return FileError(Syscalls.currentErrno(), path: path, operation: operation) }
        return FileError(kind: .other, path: path, operation: operation, detail: message)
    }
}

/// `gzopen(path, mode)` with its failure classified: gzopen sets errno when open(2) fails; errno 0 means zlib
/// could not allocate its state.
private func gzOpen(_ path: String, mode: String, operation: String) throws(FileError) -> gzFile {
    let opened = path.withCString { p in mode.withCString { m in Syscalls.pointer { gzopen(p, m) } } }
    switch opened {
    case .success(let f): return f
    case .failure(let e):
        throw e.rawValue == 0
            ? FileError(kind: .other, path: path, operation: "gzopen", detail: "zlib could not allocate its state")
            : FileError(e, path: path, operation: operation)
    }
}
