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
