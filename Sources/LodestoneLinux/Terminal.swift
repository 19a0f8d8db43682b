#if canImport(Glibc)
    import Glibc
#endif

/// A standard stream of the process.
public enum StandardStream: Int32, Sendable {
    /// File descriptor 0.
    case input = 0
    /// File descriptor 1.
    case output = 1
    /// File descriptor 2.
    case error = 2
}

/// Facts about the terminal, for the CLI's live view.
public enum Terminal {
    /// True when `stream` is a terminal (`isatty(3)`), e.g. to choose a live view over JSON lines.
    public static func isTerminal(_ stream: StandardStream = .output) -> Bool {
        Syscalls.isTerminal(stream.rawValue)
    }

    /// True when standard output is a terminal: the CLI draws its live view in place only then.
    public static var isStandardOutputATerminal: Bool { isTerminal(.output) }

    /// The terminal's width in columns (`ioctl(TIOCGWINSZ)`), or `nil` when `stream` is not a terminal or the
    /// terminal reports 0 columns (a serial console).
    public static func columns(of stream: StandardStream = .output) -> Int? {
        guard case .success(let n) = Syscalls.terminalColumns(stream.rawValue), n > 0 else { return nil }
        return n
    }

    /// A terminal's size in character cells.
    public struct Size: Sendable, Equatable {
        /// Rows (lines), ≥ 1.
        public var rows: Int
        /// Columns (character cells per line), ≥ 1.
        public var columns: Int
        public init(rows: Int, columns: Int) { self.rows = rows; self.columns = columns }
    }

    /// The terminal's size (`ioctl(TIOCGWINSZ)`), or `nil` when `stream` is not a terminal or reports 0 rows or
    /// 0 columns (a serial console). Cheap (one ioctl): the live view reads it on every frame, so a resized
    /// window is followed without a `SIGWINCH` handler.
    public static func size(of stream: StandardStream = .output) -> Size? {
        guard case .success(let s) = Syscalls.terminalSize(stream.rawValue), s.rows > 0, s.columns > 0 else { return nil }
        return Size(rows: s.rows, columns: s.columns)
    }

    /// The width to lay output out for: the terminal's, else `$COLUMNS` when it is a positive number, else
    /// `fallback` (default 80 columns).
    public static func width(of stream: StandardStream = .output, fallback: Int = 80) -> Int {
        if let n = columns(of: stream) { return n }
        if let raw = getenv("COLUMNS"), let n = Int(String(cString: raw)), n > 0 { return n }
        return fallback
    }
}
