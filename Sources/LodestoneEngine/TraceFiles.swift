import Foundation
import LodestoneLinux

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
    let handle: FileHandle
    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path,
                NSLocalizedDescriptionKey: "cannot create \(path) (does the directory exist and is it writable?)"])
        }
        guard let h = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: "cannot open \(path) for writing"])
        }
        handle = h
    }
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws { try handle.write(contentsOf: bytes) }
    mutating func close() throws { try handle.synchronize(); try handle.close() }
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

/// The bytes a `TraceParser` reads: all of them in memory, or a window on a plain or gzip file that is refilled
/// as the parser consumes it (`bytes[start..<end]` is what has been read and not consumed yet).
struct TraceInput {
    /// The window: room for one read, doubled when a line does not fit.
    private(set) var bytes: [UInt8]
    /// The first byte not consumed yet.
    var start = 0
    /// The end of the bytes read so far.
    private(set) var end: Int
    /// The file, until it has ended (`nil` for bytes in memory).
    private var reader: GzipReader?

    /// Bytes read per refill.
    static let chunkBytes = 64 * 1024

    init(bytes: [UInt8]) {
        self.bytes = bytes
        end = bytes.count
    }

    /// The file at `path`, read `chunkBytes` at a time (at least 1).
    init(path: String, chunkBytes: Int = chunkBytes) throws(TraceError) {
        do { reader = try GzipReader(path: path) } catch { throw TraceError(path: path, problem: error.description) }
        bytes = Array(repeating: 0, count: max(chunkBytes, 1))
        end = 0
    }

    /// Reads more of the file after what is unconsumed (moved to the front of the window first). Returns false
    /// when the file has ended (or the bytes were all in memory).
    /// - Throws: the file's reading error (`GzipReader.read`), as a `TraceError` naming the file.
    mutating func readMore() throws(TraceError) -> Bool {
        guard let reader else { return false }
        if start > 0 {
            let unconsumed = end - start
            bytes.withUnsafeMutableBytes { window in
                guard let base = window.baseAddress else { return }
                base.copyMemory(from: base + start, byteCount: unconsumed)
            }
            start = 0
            end = unconsumed
        }
        if end == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
        let from = end
        let result = bytes.withUnsafeMutableBytes { window in
            Result { () throws(FileError) in try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: window[from...])) }
        }
        let n: Int
        do { n = try result.get() } catch {
            self.reader = nil
            throw TraceError(path: reader.path, problem: error.description)
        }
        if n == 0 { self.reader = nil }
        end += n
        return n > 0
    }

    /// True when everything has been consumed and the file has ended (reading more to find out).
    mutating func isExhausted() throws(TraceError) -> Bool {
        while start == end {
            if try !readMore() { return true }
        }
        return false
    }
}

/// Files the CLI writes whole (atomically: temp file, fsync, rename).
public enum OutputFiles {
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try AtomicFile.write(bytes, to: path)
    }
}
