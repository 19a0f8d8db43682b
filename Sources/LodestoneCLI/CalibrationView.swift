import LodestoneCalibration
import LodestoneCore
import LodestoneEngine

/// Drawing for the guided calibration's terminal view: colours (ANSI SGR, only when the terminal supports
/// them), a progress bar, and the coverage sphere as two discs — the half of the sphere of field directions
/// on the board's face side and the half on its back — so a person sees at a glance which parts are missing.
public struct CalibrationStyle: Sendable {
    /// Use ANSI colours.
    public var color: Bool
    /// Use block characters (█ ░ ·) rather than ASCII (# - .).
    public var unicode: Bool

    public init(color: Bool, unicode: Bool = true) {
        self.color = color
        self.unicode = unicode
    }

    /// Plain ASCII, no colour (logs, pipes, `TERM=dumb`).
    public static let plain = CalibrationStyle(color: false, unicode: false)

    /// Colour is for terminals that have it: not with `NO_COLOR` set (no-color.org), not on `TERM=dumb` or an
    /// unset `TERM`, and only when the output is a terminal.
    public static func colorSupported(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal, environment["NO_COLOR"].map({ $0.isEmpty }) ?? true else { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    func sgr(_ code: String, _ text: String) -> String { color ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text }
    func green(_ t: String) -> String { sgr("32", t) }
    func yellow(_ t: String) -> String { sgr("33", t) }
    func red(_ t: String) -> String { sgr("31", t) }
    func bold(_ t: String) -> String { sgr("1", t) }
    func dim(_ t: String) -> String { sgr("2", t) }

    /// Colours a value by how good it is.
    func graded(_ t: String, good: Bool, acceptable: Bool) -> String { good ? green(t) : (acceptable ? yellow(t) : red(t)) }

    /// `[████████░░░░]  63 %`.
    func progressBar(_ fraction: Double, width: Int = 30) -> String {
        let f = max(0, min(1, fraction.isFinite ? fraction : 0))
        let filled = Int((f * Double(width)).rounded(.down))
        let bar =
            String(repeating: unicode ? "█" : "#", count: filled) + String(repeating: unicode ? "░" : "-", count: width - filled)
        let percent = String(Int((f * 100).rounded(.down)))
        return "[" + (f >= 1 ? green(bar) : bar) + "] " + String(repeating: " ", count: 3 - percent.count) + percent + " %"
    }

    /// The coverage sphere: two discs, 9 rows × 19 columns each. Left: field directions towards the board's
    /// face (+z), seen from the face (+x right, +y up). Right: towards the back (−z), seen from the back
    /// (+x left, +y up). A covered cell is a green block, a missing one a red dot.
    func sphere(_ coverage: SphereCoverage) -> [String] {
        let rows = 9, columns = 19
        var lines: [String] = []
        lines.append("      face side (+z)              back side (−z)")
        lines.append("           +y                          +y")
        for r in 0..<rows {
            let v = Double(rows / 2 - r) / (Double(rows) / 2)
            var line = ""
            for half in 0..<2 {
                line += half == 0 ? (r == rows / 2 ? "−x " : "   ") : (r == rows / 2 ? "  +x    " : "        ")
                for c in 0..<columns {
                    let u = Double(c - columns / 2) / (Double(columns) / 2)
                    guard u * u + v * v <= 1 else { line += " "; continue }
                    let z = (1 - u * u - v * v).squareRoot()
                    let direction = half == 0 ? Vector3(u, v, max(z, 0.02)) : Vector3(-u, v, -max(z, 0.02))
                    line += coverage.contains(direction) ? green(unicode ? "█" : "#") : red(unicode ? "·" : ".")
                }
                line += half == 0 ? (r == rows / 2 ? " +x" : "   ") : (r == rows / 2 ? " −x" : "")
            }
            lines.append(line)
        }
        lines.append("           −y                          −y")
        return lines
    }
}

/// Fixed-width text helpers for the view.
extension String {
    /// Pads with spaces to `width` characters (counting characters, not escape codes).
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// Formats a vector: "12.01 −7.49 4.02".
func formatVector(_ v: Vector3, digits: Int) -> String {
    [v.x, v.y, v.z].map { formatFixed($0, digits: digits) }.joined(separator: " ")
}
