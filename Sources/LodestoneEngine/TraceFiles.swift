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

/// A plain file, created or truncated.
struct FileSink: TraceSink {
    let writer: FileWriter
    init(path: String) throws { writer = try FileWriter(path: path) }
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws { try writer.write(bytes) }
    mutating func close() throws { try writer.close() }
}

/// A gzip-compressed file, written as a stream.
struct GzipSink: TraceSink {
    let writer: GzipWriter
    init(path: String) throws { writer = try GzipWriter(path: path) }
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws { try writer.write(bytes) }
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
