import LodestoneCore

/// Where a streaming `TraceParser` reads a trace's bytes from: a plain or gzip file (LodestoneEngine's
/// `TraceParser(reading: path)`), a pipe, a socket. Reading a file is not this target's business: it imports
/// no file system, so that it builds and tests without one.
public protocol TraceByteReader: AnyObject {
    /// Reads up to `buffer.count` bytes into `buffer`; returns how many, 0 at the end of the stream.
    /// - Throws: `TraceError` naming the stream and what failed.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int
}

/// The bytes a `TraceParser` reads: all of them in memory, or a window on a stream (`TraceByteReader`) that is
/// refilled as the parser consumes it (`bytes[start..<end]` is what has been read and not consumed yet).
struct TraceInput {
    /// The window: room for one read, doubled when a line does not fit.
    private(set) var bytes: [UInt8]
    /// The first byte not consumed yet.
    var start = 0
    /// The end of the bytes read so far.
    private(set) var end: Int
    /// The stream, until it has ended (`nil` for bytes in memory).
    private var reader: (any TraceByteReader)?

    /// Bytes read per refill.
    static let chunkBytes = 64 * 1024

    init(bytes: [UInt8]) {
        self.bytes = bytes
        end = bytes.count
    }

    /// The bytes of `reader`, read `chunkBytes` at a time (at least 1).
    init(reader: any TraceByteReader, chunkBytes: Int = chunkBytes) {
        self.reader = reader
        bytes = Array(repeating: 0, count: max(chunkBytes, 1))
        end = 0
    }

    /// Reads more of the stream after what is unconsumed (moved to the front of the window first). Returns false
    /// when the stream has ended (or the bytes were all in memory).
    /// - Throws: the stream's reading error (`TraceByteReader.read`), a `TraceError` naming the file.
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
            Result { () throws(TraceError) in try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: window[from...])) }
        }
        let n: Int
        do { n = try result.get() } catch {
            self.reader = nil
            throw error
        }
        if n == 0 { self.reader = nil }
        end += n
        return n > 0
    }

    /// True when everything has been consumed and the stream has ended (reading more to find out).
    mutating func isExhausted() throws(TraceError) -> Bool {
        while start == end {
            if try !readMore() { return true }
        }
        return false
    }
}
