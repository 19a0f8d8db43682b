import LodestoneCore
import LodestoneEngine
import LodestoneWire

/// The live terminal view of `lodestone run`: per-sensor rate, health and latest SI values, redrawn in
/// place (cursor home + clear to end of line, no full-screen clear, so it does not flicker).
///
/// It fits the terminal, re-read before every frame: no line is wider than the terminal (lines are cut with `…`,
/// counting display columns, not bytes), and when the screen is taller than the terminal the least important lines
/// go first (``Role``) instead of scrolling — a frame that scrolls cannot be redrawn in place.
public struct HumanView {
    /// A terminal's size in character cells.
    public struct Size: Sendable, Equatable {
        public var columns: Int
        public var rows: Int
        public init(columns: Int, rows: Int) { self.columns = columns; self.rows = rows }
    }

    /// What a line of the screen is, which decides what is dropped when the terminal is too short. Dropped first
    /// to last: spacing, the plan's detail lines, the sensors' value lines, the sensors' status lines (each from the
    /// last sensor up), the secondary fusion lines and the simulation truth, the summaries (plan, altitude,
    /// pedometer, calibration), the notes (oldest first: what went wrong is what a person watching must see), and last
    /// the orientation and heading, location and activity lines. The header is never dropped.
    public enum Role: Int, Sendable, Comparable {
        case header = 0
        case essential
        case note
        case summary
        case secondary
        case sensor
        case sensorTableHeader
        case sensorValue
        case planDetail
        case spacing

        /// Lower is kept longer (the table header ranks just after the sensor lines it heads).
        var keepRank: Int {
            switch self {
            case .sensorTableHeader: Role.sensor.rawValue
            default: rawValue
            }
        }

        public static func < (a: Role, b: Role) -> Bool { a.rawValue < b.rawValue }
    }

    /// One screen: its lines in display order, each with its role.
    public struct Screen: Sendable, Equatable {
        /// The lines, top to bottom.
        public private(set) var texts: [String] = []
        /// Each line's role.
        public private(set) var roles: [Role] = []
        public init() {}
        /// Adds a line at the bottom.
        public mutating func append(_ text: String, _ role: Role) { texts.append(text); roles.append(role) }
    }

    public var boardName: String
    public var isTerminal: Bool
    /// The terminal's size, asked before every frame (so a resized window is followed without `SIGWINCH`); `nil`, or
    /// an answer of `nil`: the lines are drawn as they are.
    public var terminalSize: (@Sendable () -> Size?)?
    /// Rows the previous frame wrote (each line is one row: ``fit(_:width:height:)`` makes sure none wraps).
    private var drawnLines = 0
    /// The size the previous frame was fitted to.
    private var drawnSize: Size?

    public init(boardName: String, isTerminal: Bool, terminalSize: (@Sendable () -> Size?)? = nil) {
        self.boardName = boardName
        self.isTerminal = isTerminal
        self.terminalSize = terminalSize
    }

    /// The screen for the current engine state.
    public func render(
        timeS: Double, statuses: [Engine.SourceStatus], truth: Wire.Status.Truth?, fusion: [String] = [],
        plan: [String] = [], notes: [String]
    ) -> Screen {
        var screen = Screen()
        screen.append("lodestone — \(boardName) — t = \(formatFixed(timeS, digits: 1)) s", .header)
        screen.append("", .spacing)
        screen.append(pad("sensor", 8) + pad("chip / bus", 34) + pad("rate Hz", 10) + "state", .sensorTableHeader)
        for s in statuses {
            let rate = formatFixed(s.measuredRateHz, digits: 1) + "/" + formatFixed(s.rateHz, digits: 0)
            screen.append(pad(s.id, 8) + pad(s.label, 34) + pad(rate, 10) + s.health.description, .sensor)
            if let r = s.lastReading {
                for v in Self.values(r) { screen.append(pad("", 10) + v, .sensorValue) }
            }
            if let f = s.lastFix, let lat = f.latitudeDeg, let lon = f.longitudeDeg {
                var line = pad("", 10) + "lat \(formatFixed(lat, digits: 6))°  lon \(formatFixed(lon, digits: 6))°"
                if let h = f.ellipsoidalHeightM { line += "  h \(formatFixed(h, digits: 1)) m" }
                if let a = f.horizontalAccuracyM { line += "  ±\(formatFixed(a, digits: 1)) m" }
                if let v = f.speedMps { line += "  \(formatFixed(v, digits: 1)) m/s" }
                screen.append(line, .sensorValue)
            }
        }
        if !fusion.isEmpty {
            screen.append("", .spacing)
            for line in fusion { screen.append(line, Self.role(ofFusionLine: line)) }
        }
        if !plan.isEmpty {
            screen.append("", .spacing)
            for (i, line) in plan.enumerated() { screen.append(line, i == 0 ? .summary : .planDetail) }
        }
        if let t = truth {
            screen.append("", .spacing)
            screen.append(
                "simulation truth: \(t.segment) (activity \(t.activity)), floor \(t.floor), heading \(formatFixed(t.headingDeg, digits: 0))°, h \(formatFixed(t.heightM, digits: 1)) m",
                .secondary)
        }
        for n in notes.suffix(5) { screen.append("! " + n, .note) }
        return screen
    }

    /// The role of one of `FusionPipeline.liveLines`, from its first word: orientation (roll, pitch, heading), location
    /// and activity are essential, continuation lines (indented) and the relative altitude secondary, the rest summaries.
    static func role(ofFusionLine line: String) -> Role {
        if line.first == " " { return .secondary }
        switch line.prefix(while: { $0 != " " && $0 != ":" }) {
        case "orientation", "location", "activity": return .essential
        case "relative": return .secondary
        default: return .summary
        }
    }

    // MARK: - Fitting

    /// The lines of `screen` that fit a terminal of `width` × `height` cells: at most `height - 1` rows (the cursor
    /// rests on the row below the frame, so a full-height frame would scroll), each at most `width - 1` display columns
    /// (a character in the last column leaves the cursor in the terminal's pending-wrap state, where the following
    /// erase-to-end-of-line would erase it), cut with `…`. What is dropped when rows are short: ``Role``. Pure.
    public static func fit(_ screen: Screen, width: Int, height: Int) -> [String] {
        let budget = max(1, height - 1)
        let columns = max(1, width - 1)
        var kept = Array(screen.texts.indices)
        if kept.count > budget {
            let roles = screen.roles
            // Within a role earlier lines are kept longer, except notes: the newest is kept longest.
            let order = kept.sorted { a, b in
                let (ra, rb) = (roles[a].keepRank, roles[b].keepRank)
                if ra != rb { return ra < rb }
                return roles[a] == .note ? a > b : a < b
            }
            kept = order.prefix(budget).sorted()
            if !kept.contains(where: { roles[$0] == .sensor }) { kept.removeAll { roles[$0] == .sensorTableHeader } }
            // No spacing before nothing or before more spacing.
            kept = kept.enumerated().filter { i, index in
                roles[index] != .spacing || (i + 1 < kept.count && roles[kept[i + 1]] != .spacing)
            }.map(\.element)
        }
        return kept.map { truncate(screen.texts[$0], toColumns: columns) }
    }

    /// `line` cut to at most `columns` display columns, ending in `…` when it was cut. Counts grapheme clusters, so
    /// `°`, `±`, `µ`, `↑` and a letter with a combining accent are one column each, East Asian wide characters and
    /// emoji two.
    public static func truncate(_ line: String, toColumns columns: Int) -> String {
        guard displayWidth(line) > columns else { return line }
        guard columns > 0 else { return "" }
        var out = ""
        var used = 0
        for c in line {
            let w = displayWidth(c)
            if used + w > columns - 1 { break }
            out.append(c)
            used += w
        }
        return out + "…"
    }

    /// Display columns of `text` in a terminal (see ``displayWidth(_:)-(Character)``).
    public static func displayWidth(_ text: String) -> Int { text.reduce(0) { $0 + displayWidth($1) } }

    /// Display columns of one grapheme cluster: 2 for East Asian wide and fullwidth characters and emoji shown as
    /// emoji, 0 for control characters, else 1 (what `wcwidth(3)` gives for the characters a screen here holds).
    public static func displayWidth(_ c: Character) -> Int {
        guard let first = c.unicodeScalars.first else { return 0 }
        let v = first.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if first.properties.isEmojiPresentation || c.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD
        ]
        return wide.contains { $0.contains(v) } ? 2 : 1
    }

    // MARK: - Drawing

    /// Text that replaces the previous frame with `screen`, fitted to the terminal's size when it is known.
    public mutating func frame(_ screen: Screen) -> String {
        guard isTerminal, let size = terminalSize?() else { return frame(screen.texts) }
        return frame(Self.fit(screen, width: size.columns, height: size.rows), size: size)
    }

    /// Text that replaces the previous frame with `lines`, as they are.
    public mutating func frame(_ lines: [String]) -> String { frame(lines, size: nil) }

    /// Text that replaces the previous frame with `lines` (already fitted to `size` when it is given). The cursor goes up
    /// exactly the rows the previous frame wrote, each line is followed by erase-to-end-of-line, and when the new frame
    /// is shorter the previous frame's leftover rows are erased. After a resize (the terminal may have re-wrapped the
    /// previous frame, so its rows are unknown) the frame is drawn from the top of the screen after erasing it
    /// (`ESC[H ESC[J`: the screen's content, not its scrollback).
    public mutating func frame(_ lines: [String], size: Size?) -> String {
        guard isTerminal else { return lines.joined(separator: "\n") + "\n\n" }
        var out: String
        let resized = size != nil && drawnSize != nil && size != drawnSize
        if resized {
            out = "\u{1B}[H\u{1B}[J"
        } else {
            out = drawnLines > 0 ? "\u{1B}[\(drawnLines)F" : "" // cursor up to the first line of the last frame
        }
        for l in lines { out += l + "\u{1B}[K\n" }
        if !resized, lines.count < drawnLines {
            for _ in lines.count..<drawnLines { out += "\u{1B}[K\n" }
            out += "\u{1B}[\(drawnLines - lines.count)F"
        }
        drawnLines = lines.count
        drawnSize = size
        return out
    }

    static func values(_ r: SensorReading) -> [String] {
        var v: [String] = []
        func vec(_ name: String, _ x: Vector3, _ unit: String, _ d: Int) -> String {
            "\(name) \(formatFixed(x.x, digits: d)) \(formatFixed(x.y, digits: d)) \(formatFixed(x.z, digits: d)) \(unit)"
        }
        if let a = r.accelerationMps2 { v.append(vec("accel", a, "m/s²", 3)) }
        if let g = r.angularVelocityRadS { v.append(vec("gyro ", g, "rad/s", 4)) }
        if let m = r.magneticFieldMicroTesla {
            v.append(vec("mag  ", m, "µT", 2) + "  |B| \(formatFixed(m.length, digits: 1)) µT")
        }
        var scalars: [String] = []
        if let p = r.pressurePa { scalars.append("pressure \(formatFixed(p, digits: 2)) Pa") }
        if let t = r.temperatureC { scalars.append("temp \(formatFixed(t, digits: 2)) °C") }
        if !scalars.isEmpty { v.append(scalars.joined(separator: "  ")) }
        return v
    }

    private func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count)
    }
}
