import LodestoneLinux
import LodestoneTrace

/// Opening trace files for reading and writing.
public enum TraceSinks {
    /// A sink writing `path`; gzip-compressed when the name ends in `.gz`.
    public static func open(path: String) throws -> any TraceSink {
        if path.hasSuffix(".gz") { return try GzipSink(path: path) }
        return try FileSink(path: path)
    }
}

/// How often a recording being written is made durable (`fsync(2)`), s of monotonic time: a power cut loses at most
/// this much plus the recorder's one second of buffered rows; a `kill -9` loses only the buffered second (what was
/// written is in the kernel's page cache). Measured by wall time, not data time, so that a fast replay does not
/// fsync thousands of times.
let traceSyncIntervalS = 5.0

/// A plain file, created or truncated. Each `write` (the recorder writes about once a second of data) goes to the
/// kernel at once; every `traceSyncIntervalS` the file is fsync'ed.
///
/// A write that fails part way (a disk filling up) is undone by cutting the file back to its length before it, so that
/// the recording ends with a whole row rather than a row cut mid-number that would read as a wrong value.
struct FileSink: TraceSink {
    let writer: FileWriter
    private var lastSyncS: Double
    /// Bytes written so far (the file's length: it was created empty).
    private var lengthBytes = 0
    init(path: String) throws {
        writer = try FileWriter(path: path)
        lastSyncS = MonotonicClock.nowS()
    }
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try writer.write(bytes) } catch {
            try? writer.truncate(toBytes: lengthBytes)
            throw error
        }
        lengthBytes += bytes.count
        let now = MonotonicClock.nowS()
        if now - lastSyncS >= traceSyncIntervalS {
            lastSyncS = now
            try writer.sync()
        }
    }
    mutating func close() throws { try writer.close() }
}

/// A gzip-compressed file, written as a stream. Each `write` ends in a sync flush (`GzipWriter.flush()`), so that the
/// file as it stands decompresses up to the last write; every `traceSyncIntervalS` the file is fsync'ed.
struct GzipSink: TraceSink {
    let writer: GzipWriter
    private var lastSyncS: Double
    init(path: String) throws {
        writer = try GzipWriter(path: path)
        lastSyncS = MonotonicClock.nowS()
    }
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        try writer.write(bytes)
        let now = MonotonicClock.nowS()
        if now - lastSyncS >= traceSyncIntervalS {
            lastSyncS = now
            try writer.sync()
        } else {
            try writer.flush()
        }
    }
    mutating func close() throws { try writer.close() }
}

/// Reading whole trace files (plain or gzip).
public enum TraceFiles {
    /// The decompressed text of `path`.
    public static func readText(path: String) throws(TraceError) -> String {
        let bytes: [UInt8]
        do { bytes = try GzipFile.readAll(path: path) } catch {
            throw TraceError(path: path, problem: error.description)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A plain or gzip-compressed trace file as the byte stream a `TraceParser` reads (`GzipReader` reads both).
final class TraceFileReader: TraceByteReader {
    private let reader: GzipReader

    init(path: String) throws(TraceError) {
        do { reader = try GzipReader(path: path) } catch { throw TraceError(path: path, problem: error.description) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int {
        do { return try reader.read(into: buffer) } catch { throw TraceError(path: reader.path, problem: error.description) }
    }
}

extension TraceParser {
    /// Streams the trace at `path`, plain or gzip-compressed, in chunks.
    /// - Throws: `TraceError` when the file cannot be opened (its reading errors come from `next()`, after the
    ///   rows before them).
    public init(reading path: String) throws(TraceError) {
        try self.init(reading: path, chunkBytes: TraceParser.chunkBytes)
    }

    /// Streams with reads of `chunkBytes` (tests use tiny ones so that lines straddle reads).
    init(reading path: String, chunkBytes: Int) throws(TraceError) {
        try self.init(reading: TraceFileReader(path: path), path: path, chunkBytes: chunkBytes)
    }
}

extension TraceRecorder {
    /// Opens `path` for writing (gzip-compressed when it ends in `.gz`).
    public convenience init(path: String, columns: [TraceColumn] = TraceFormatter.fullColumns) throws(TraceError) {
        let sink: any TraceSink
        do { sink = try TraceSinks.open(path: path) } catch {
            throw TraceError(path: path, problem: "cannot record: \(error)")
        }
        self.init(sink: sink, path: path, columns: columns)
    }
}

/// Files the CLI writes whole (atomically: temp file, fsync, rename).
public enum OutputFiles {
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try AtomicFile.write(bytes, to: path)
    }
}
