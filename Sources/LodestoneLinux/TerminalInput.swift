#if canImport(Glibc)
    import Glibc
#endif

/// Lines typed on standard input, read without blocking the caller's loop: `poll(2)` then `read(2)` on fd 0.
/// In a terminal's canonical mode a line becomes readable when the person presses Enter, so a live view can
/// keep redrawing while it waits for an answer.
public final class TerminalInput {
    private var pending: [UInt8] = []
    private var ended = false
    private let fd: Int32

    /// Reads standard input (`fd` 0) unless told otherwise.
    public init(fileDescriptor: Int32 = 0) { fd = fileDescriptor }

    /// A complete line if one is waiting (without its line end), else `nil`. Never blocks.
    public func pollLine() -> String? {
        if let line = takeLine() { return line }
        fill(timeoutMs: 0)
        return takeLine()
    }

    /// Waits for a line; `nil` at the end of the input or as soon as `interrupted()` is true (checked at least
    /// every 200 ms, so Ctrl-C is honoured even while waiting).
    public func waitForLine(interrupted: () -> Bool) -> String? {
        while true {
            if let line = takeLine() { return line }
            if ended {
                guard !pending.isEmpty else { return nil }
                defer { pending.removeAll() }
                return String(decoding: pending, as: UTF8.self)
            }
            if interrupted() { return nil }
            fill(timeoutMs: 200)
        }
    }

    private func takeLine() -> String? {
        guard let newline = pending.firstIndex(where: { $0 == 10 || $0 == 13 }) else { return nil }
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        var rest = newline + 1
        // A CR LF pair is one line end.
        if pending[newline] == 13, rest < pending.count, pending[rest] == 10 { rest += 1 }
        pending.removeFirst(rest)
        return line
    }

    private func fill(timeoutMs: Int32) {
        guard !ended else { return }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        // A signal (Ctrl-C) ends the wait early instead of restarting it: the caller then checks its flag.
        guard case .success(let ready) = Syscalls.call(retryOnInterrupt: false, { poll(&descriptor, 1, timeoutMs) }), ready > 0
        else { return }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Syscalls.read(fd, into: $0) }
        switch n {
        case .success(let count) where count > 0: pending.append(contentsOf: buffer[..<count])
        case .success: ended = true
        case .failure(let e) where e.rawValue == EAGAIN || e.rawValue == EINTR: break
        case .failure: ended = true
        }
    }
}
