import LodestoneCore
import LodestoneEngine

/// The live terminal view of `lodestone run`: per-sensor rate, health and latest SI values, redrawn in
/// place (cursor home + clear to end of line, no full-screen clear, so it does not flicker).
public struct HumanView {
    public var boardName: String
    public var isTerminal: Bool
    private var drawnLines = 0

    public init(boardName: String, isTerminal: Bool) {
        self.boardName = boardName
        self.isTerminal = isTerminal
    }

    /// The screen for the current engine state.
    public func render(timeS: Double, statuses: [Engine.SourceStatus], truth: Wire.Status.Truth?, fusion: [String] = [],
                       plan: [String] = [], notes: [String]) -> [String] {
        var lines: [String] = []
        lines.append("lodestone — \(boardName) — t = \(formatFixed(timeS, digits: 1)) s")
        lines.append("")
        lines.append(pad("sensor", 8) + pad("chip / bus", 34) + pad("rate Hz", 10) + "state")
        for s in statuses {
            let rate = formatFixed(s.measuredRateHz, digits: 1) + "/" + formatFixed(s.rateHz, digits: 0)
            lines.append(pad(s.id, 8) + pad(s.label, 34) + pad(rate, 10) + s.health.description)
            if let r = s.lastReading {
                for v in Self.values(r) { lines.append(pad("", 10) + v) }
            }
            if let f = s.lastFix, let lat = f.latitudeDeg, let lon = f.longitudeDeg {
                var line = pad("", 10) + "lat \(formatFixed(lat, digits: 6))°  lon \(formatFixed(lon, digits: 6))°"
                if let h = f.ellipsoidalHeightM { line += "  h \(formatFixed(h, digits: 1)) m" }
                if let a = f.horizontalAccuracyM { line += "  ±\(formatFixed(a, digits: 1)) m" }
                if let v = f.speedMps { line += "  \(formatFixed(v, digits: 1)) m/s" }
                lines.append(line)
            }
        }
        if !fusion.isEmpty {
            lines.append("")
            lines.append(contentsOf: fusion)
        }
        if !plan.isEmpty {
            lines.append("")
            lines.append(contentsOf: plan)
        }
        if let t = truth {
            lines.append("")
            lines.append("simulation truth: \(t.segment) (activity \(t.activity)), floor \(t.floor), heading \(formatFixed(t.headingDeg, digits: 0))°, h \(formatFixed(t.heightM, digits: 1)) m")
        }
        for n in notes.suffix(5) { lines.append("! " + n) }
        return lines
    }

    /// Text that replaces the previous frame with `lines`.
    public mutating func frame(_ lines: [String]) -> String {
        guard isTerminal else { return lines.joined(separator: "\n") + "\n\n" }
        var out = drawnLines > 0 ? "\u{1B}[\(drawnLines)F" : ""   // cursor up to the first line of the last frame
        for l in lines { out += l + "\u{1B}[K\n" }
        if lines.count < drawnLines {
            for _ in lines.count..<drawnLines { out += "\u{1B}[K\n" }
            out += "\u{1B}[\(drawnLines - lines.count)F"
        }
        drawnLines = max(lines.count, 0)
        return out
    }

    static func values(_ r: SensorReading) -> [String] {
        var v: [String] = []
        func vec(_ name: String, _ x: Vector3, _ unit: String, _ d: Int) -> String {
            "\(name) \(formatFixed(x.x, digits: d)) \(formatFixed(x.y, digits: d)) \(formatFixed(x.z, digits: d)) \(unit)"
        }
        if let a = r.accelerationMps2 { v.append(vec("accel", a, "m/s²", 3)) }
        if let g = r.angularVelocityRadS { v.append(vec("gyro ", g, "rad/s", 4)) }
        if let m = r.magneticFieldMicroTesla { v.append(vec("mag  ", m, "µT", 2) + "  |B| \(formatFixed(m.length, digits: 1)) µT") }
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
