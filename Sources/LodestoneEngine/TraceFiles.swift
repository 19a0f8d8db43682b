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
    mutating func write(_ bytes: [UInt8]) throws { try handle.write(contentsOf: bytes) }
    mutating func close() throws { try handle.synchronize(); try handle.close() }
}

/// A gzip-compressed file, written as a stream.
struct GzipSink: TraceSink {
    let writer: GzipWriter
    init(path: String) throws { writer = try GzipWriter(path: path) }
    mutating func write(_ bytes: [UInt8]) throws { try writer.write(bytes) }
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

/// Files the CLI writes whole (atomically: temp file, fsync, rename).
public enum OutputFiles {
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try AtomicFile.write(bytes, to: path)
    }
}
