import LodestoneLinux

/// Where a job writes its lines. Injected so that tests capture output.
public protocol LineOutput: AnyObject {
    /// Writes `line` followed by a newline.
    func write(_ line: String)
    /// Writes raw text (no newline added), for terminal redraws.
    func writeRaw(_ text: String)
    /// Pushes buffered output out.
    func flush()
    /// Writes the UTF-8 bytes of one line followed by a newline (`replay`'s rows: no `String` per line). The
    /// default decodes them into a `String` for `write(_:)`.
    func write(lineBytes: UnsafeRawBufferPointer)
    /// True once a write failed (the reader went away): the job stops producing.
    var isBroken: Bool { get }
}

extension LineOutput {
    public var isBroken: Bool { false }
    public func write(lineBytes: UnsafeRawBufferPointer) { write(String(decoding: lineBytes, as: UTF8.self)) }
}

/// Standard output, buffered and flushed by `flush()` (and when the buffer grows past 64 KiB).
public final class StandardOutput: LineOutput {
    private var buffer: [UInt8] = []
    private let stream: StandardStream
    /// The buffer is written out once it holds this many bytes.
    private static let flushBytes = 65_536
    /// True once a write failed (the reader went away); callers stop producing.
    public private(set) var isBroken = false
    /// - Parameter stream: standard output (default) or standard error.
    public init(stream: StandardStream = .output) {
        self.stream = stream
        buffer.reserveCapacity(Self.flushBytes + 4096)
    }
    public func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count > Self.flushBytes { flush() }
    }
    public func writeRaw(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count > Self.flushBytes { flush() }
    }
    public func write(lineBytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: lineBytes)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count > Self.flushBytes { flush() }
    }
    public func flush() {
        guard !buffer.isEmpty else { return }
        // A closed pipe (`lodestone run --json | head`) must not crash the engine: note it so the job can stop
        // cleanly (and close its recording).
        let written = buffer.withUnsafeBytes { raw in (try? stream.write(raw)) != nil }
        if !written { isBroken = true }
        buffer.removeAll(keepingCapacity: true)
    }
    deinit { flush() }
}

/// Collects lines in memory (tests).
public final class CapturedOutput: LineOutput {
    public private(set) var lines: [String] = []
    private var partial = ""
    public init() {}
    public func write(_ line: String) { lines.append(line) }
    public func writeRaw(_ text: String) { partial += text }
    public func flush() {}
    /// Everything written with `writeRaw`.
    public var raw: String { partial }
}
