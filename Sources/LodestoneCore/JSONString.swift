/// JSON string literals for the hand-written JSON lines (gpsd's reports, monitor events, GeoJSON export), which are
/// built as text without an encoder so that their member order is fixed and the per-line path allocates little.
public enum JSONString {
    /// Appends `value` as the body of a JSON string (RFC 8259 §7), without the quotes: `"`, `\` and control characters
    /// escaped (`\n`, `\r`, `\t`, `\b`, `\f`, else `\u00XX`), DEL too; everything else as is.
    public static func appendEscaped(_ value: String, to text: inout String) {
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
    }

    /// `value` as a JSON string literal, quotes included.
    public static func quoted(_ value: String) -> String {
        var text = "\""
        appendEscaped(value, to: &text)
        return text + "\""
    }
}
