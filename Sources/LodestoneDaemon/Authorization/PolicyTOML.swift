/// The subset of TOML 1.0 (https://toml.io/en/v1.0.0) a policy file is written in, read strictly: comments, `[table]`
/// and `[[array-of-tables]]` headers with bare names, and `key = value` lines with bare keys whose values are basic
/// ("…") or literal ('…') single-line strings, `true`/`false`, decimal integers, and arrays of those (over several
/// lines, with comments, a trailing comma allowed). Everything else TOML has — dotted and quoted keys, floats, dates,
/// inline tables, multi-line strings, nested arrays — is refused with the line, so that nothing in a policy is
/// read other than as its author meant.
///
/// This layer knows nothing of policies: `Policy.parse` checks the table and key names and the values.
struct PolicyTOML {
    /// A value of the subset.
    enum Value: Equatable {
        case string(String)
        case bool(Bool)
        case integer(Int64)
        case array([Value])

        /// How an error names the value: `"denied"`, `true`, `12`, `[…]`.
        var quoted: String {
            switch self {
            case .string(let s): "\"\(s)\""
            case .bool(let b): b ? "true" : "false"
            case .integer(let i): "\(i)"
            case .array(let a): "[" + a.map(\.quoted).joined(separator: ", ") + "]"
            }
        }

        /// How an error names the value's type: "a string", "true or false", "a number", "an array".
        var typeName: String {
            switch self {
            case .string: "a string"
            case .bool: "true or false"
            case .integer: "a number"
            case .array: "an array"
            }
        }
    }

    /// One `key = value` line.
    struct Entry {
        var key: String
        var value: Value
        /// Line of the key, from 1.
        var line: Int
    }

    /// One table: its header and its entries in file order.
    struct Table {
        var name: String
        /// Written `[[name]]`: one element of an array of tables.
        var isArrayElement: Bool
        /// Line of the header, from 1.
        var line: Int
        var entries: [Entry]
    }

    /// The tables in file order.
    var tables: [Table]

    /// Reads `text`; errors name `origin` and the line.
    init(_ text: String, origin: String) throws(PolicyError) {
        var reader = Reader(scalars: Array(text.unicodeScalars), origin: origin)
        tables = try reader.document()
    }
}

/// The scanner: one pass over the Unicode scalars, counting lines.
private struct Reader {
    let scalars: [Unicode.Scalar]
    let origin: String
    var index = 0
    var line = 1

    init(scalars: [Unicode.Scalar], origin: String) {
        self.scalars = scalars; self.origin = origin
        if scalars.first == "\u{FEFF}" { index = 1 } // a byte-order mark some editors write
    }

    var atEnd: Bool { index >= scalars.count }
    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

    func error(_ message: String, line: Int? = nil) -> PolicyError {
        PolicyError(file: origin, line: line ?? self.line, message: message)
    }

    /// What is at the cursor, for an error: `"abc"` (up to the end of the line, at most 20 characters) or
    /// "the end of the line" / "the end of the file".
    var found: String {
        guard let c = current else { return "the end of the file" }
        if c == "\n" || c == "\r" { return "the end of the line" }
        var s = ""
        var i = index
        while i < scalars.count, scalars[i] != "\n", scalars[i] != "\r", s.unicodeScalars.count < 20 {
            s.unicodeScalars.append(scalars[i]); i += 1
        }
        return "\"\(s)\""
    }

    mutating func document() throws(PolicyError) -> [PolicyTOML.Table] {
        var tables: [PolicyTOML.Table] = []
        while true {
            skipBlanks()
            guard let c = current else { break }
            if try skipNewline() { continue }
            if c == "#" {
                try skipComment()
            } else if c == "[" {
                tables.append(try header())
            } else {
                let keyLine = line
                let entry = try keyValue()
                guard !tables.isEmpty else {
                    throw error(
                        "key \"\(entry.key)\" outside a table (start with [default], [gpsd] or [[rule]])", line: keyLine)
                }
                tables[tables.count - 1].entries.append(entry)
            }
        }
        return tables
    }

    mutating func skipBlanks() {
        while let c = current, c == " " || c == "\t" { index += 1 }
    }

    /// Consumes a line break (`\n` or `\r\n`) if one is at the cursor.
    mutating func skipNewline() throws(PolicyError) -> Bool {
        if current == "\n" {
            index += 1; line += 1; return true
        }
        if current == "\r" {
            guard peek(1) == "\n" else { throw error("a carriage return not followed by a line feed") }
            index += 2; line += 1; return true
        }
        return false
    }

    /// Consumes `# …` up to (not including) the line break.
    mutating func skipComment() throws(PolicyError) {
        while let c = current, c != "\n", c != "\r" {
            // TOML forbids control characters in comments but the tab; an invisible one is likely a pasting accident.
            if c.value < 0x20 && c != "\t" || c.value == 0x7F {
                throw error("a control character (U+\(hex(c.value))) in a comment")
            }
            index += 1
        }
    }

    /// After a header or a value: blanks, an optional comment, then a line break or the end of the file.
    mutating func endOfLine(after what: String) throws(PolicyError) {
        skipBlanks()
        if current == "#" { try skipComment() }
        if atEnd { return }
        guard try skipNewline() else { throw error("expected the end of the line after \(what), found \(found)") }
    }

    mutating func header() throws(PolicyError) -> PolicyTOML.Table {
        let headerLine = line
        index += 1 // [
        let isArray = current == "["
        if isArray { index += 1 }
        skipBlanks()
        let name = bareKey()
        guard !name.isEmpty else {
            throw error("expected a table name ([default], [gpsd] or [[rule]]), found \(found)")
        }
        skipBlanks()
        if current == "." { throw error("dotted table names are not part of the policy format: [\(name).…]") }
        let close = isArray ? "]]" : "]"
        for _ in 0..<(isArray ? 2 : 1) {
            guard current == "]" else { throw error("expected \"\(close)\" to close the table name \"\(name)\", found \(found)") }
            index += 1
        }
        try endOfLine(after: "the table name")
        return PolicyTOML.Table(name: name, isArrayElement: isArray, line: headerLine, entries: [])
    }

    /// A bare key: ASCII letters, digits, `_` and `-` (TOML's bare keys).
    mutating func bareKey() -> String {
        var s = ""
        while let c = current, isBareKeyScalar(c) {
            s.unicodeScalars.append(c); index += 1
        }
        return s
    }

    func isBareKeyScalar(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
    }

    mutating func keyValue() throws(PolicyError) -> PolicyTOML.Entry {
        let keyLine = line
        if current == "\"" || current == "'" {
            throw error("quoted keys are not part of the policy format: write the key bare (location = …)")
        }
        let key = bareKey()
        guard !key.isEmpty else { throw error("expected a key, a [table] or a comment, found \(found)") }
        skipBlanks()
        if current == "." { throw error("dotted keys are not part of the policy format: \(key).…") }
        guard current == "=" else { throw error("expected \"=\" after the key \"\(key)\", found \(found)") }
        index += 1
        skipBlanks()
        let value = try value(of: key)
        try endOfLine(after: "the value of \"\(key)\"")
        return PolicyTOML.Entry(key: key, value: value, line: keyLine)
    }

    mutating func value(of key: String) throws(PolicyError) -> PolicyTOML.Value {
        switch current {
        case nil, "\n", "\r", "#":
            throw error("expected a value for \"\(key)\", found \(found)")
        case "\"":
            if peek(1) == "\"" && peek(2) == "\"" { throw unsupported("multi-line strings") }
            return .string(try basicString())
        case "'":
            if peek(1) == "'" && peek(2) == "'" { throw unsupported("multi-line strings") }
            return .string(try literalString())
        case "[":
            return .array(try array(of: key))
        case "{":
            throw unsupported("inline tables")
        default:
            return try bareValue(of: key)
        }
    }

    func unsupported(_ what: String) -> PolicyError {
        error(
            "\(what) are not part of the policy format (values are \"strings\", true, false, whole numbers and [arrays] of them)")
    }

    /// `true`, `false` or a decimal integer (TOML's: an optional sign, no leading zeros, `_` only between digits).
    mutating func bareValue(of key: String) throws(PolicyError) -> PolicyTOML.Value {
        let start = index
        var word = ""
        while let c = current, isBareKeyScalar(c) || c == "+" || c == "." || c == ":" {
            word.unicodeScalars.append(c); index += 1
        }
        if word == "true" { return .bool(true) }
        if word == "false" { return .bool(false) }
        if let n = Self.integer(word) { return .integer(n) }
        index = start
        if word.isEmpty { throw error("expected a value for \"\(key)\", found \(found)") }
        if word.first?.isLetter == true {
            throw error("expected a value for \"\(key)\", found \(word) (strings are quoted: \"\(word)\")")
        }
        throw error("\(word) is not a whole number (floats, dates, hexadecimal and such are not part of the policy format)")
    }

    static func integer(_ word: String) -> Int64? {
        var digits = Substring(word)
        var negative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            negative = sign == "-"; digits = digits.dropFirst()
        }
        guard let first = digits.first, let last = digits.last, first.isASCII, first.isNumber, last.isASCII, last.isNumber
        else { return nil }
        if first == "0" && digits.count > 1 { return nil } // TOML: no leading zeros
        var value: Int64 = 0
        var previousUnderscore = false
        for c in digits {
            if c == "_" {
                if previousUnderscore { return nil }
                previousUnderscore = true; continue
            }
            previousUnderscore = false
            guard let d = c.wholeNumberValue, c.isASCII else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            value = next
        }
        return negative ? -value : value
    }

    mutating func basicString() throws(PolicyError) -> String {
        index += 1 // "
        var s = ""
        while true {
            guard let c = current, c != "\n", c != "\r" else {
                throw error("a string not closed (\") before the end of the line")
            }
            index += 1
            if c == "\"" { return s }
            if c == "\\" {
                guard let e = current else { throw error("a string not closed (\") before the end of the file") }
                index += 1
                switch e {
                case "\"": s.unicodeScalars.append("\"")
                case "\\": s.unicodeScalars.append("\\")
                case "b": s.unicodeScalars.append("\u{08}")
                case "t": s.unicodeScalars.append("\t")
                case "n": s.unicodeScalars.append("\n")
                case "f": s.unicodeScalars.append("\u{0C}")
                case "r": s.unicodeScalars.append("\r")
                case "u", "U":
                    let width = e == "u" ? 4 : 8
                    var v: UInt32 = 0
                    for _ in 0..<width {
                        guard let h = current, let d = h.properties.isASCIIHexDigit ? Int(String(h), radix: 16) : nil else {
                            throw error("\\\(e) takes \(width) hexadecimal digits")
                        }
                        v = v * 16 + UInt32(d); index += 1
                    }
                    guard let scalar = Unicode.Scalar(v) else { throw error("\\\(e)\(hex(v)) is not a Unicode scalar value") }
                    s.unicodeScalars.append(scalar)
                default:
                    throw error(
                        "unknown escape \\\(e) in a string (TOML's are \\\" \\\\ \\b \\t \\n \\f \\r \\uXXXX \\UXXXXXXXX)")
                }
                continue
            }
            if c.value < 0x20 && c != "\t" || c.value == 0x7F {
                throw error("a control character (U+\(hex(c.value))) in a string: write it as an escape")
            }
            s.unicodeScalars.append(c)
        }
    }

    mutating func literalString() throws(PolicyError) -> String {
        index += 1 // '
        var s = ""
        while true {
            guard let c = current, c != "\n", c != "\r" else { throw error("a string not closed (') before the end of the line") }
            index += 1
            if c == "'" { return s }
            if c.value < 0x20 && c != "\t" || c.value == 0x7F {
                throw error("a control character (U+\(hex(c.value))) in a string")
            }
            s.unicodeScalars.append(c)
        }
    }

    /// `[ v, v, … ]`, over any number of lines, with comments between the elements and an optional trailing comma.
    mutating func array(of key: String) throws(PolicyError) -> [PolicyTOML.Value] {
        let openLine = line
        index += 1 // [
        var elements: [PolicyTOML.Value] = []
        while true {
            try skipWhitespaceNewlinesAndComments()
            guard let c = current else { throw error("the array of \"\(key)\" opened at line \(openLine) is not closed (])") }
            if c == "]" {
                index += 1; return elements
            }
            if c == "[" { throw error("arrays of arrays are not part of the policy format") }
            elements.append(try value(of: key))
            try skipWhitespaceNewlinesAndComments()
            if current == "," {
                index += 1
            } else if current != "]" {
                throw error("expected \",\" or \"]\" in the array of \"\(key)\", found \(found)")
            }
        }
    }

    mutating func skipWhitespaceNewlinesAndComments() throws(PolicyError) {
        while true {
            skipBlanks()
            if current == "#" {
                try skipComment()
            } else if try !skipNewline() {
                return
            }
        }
    }
}

private func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}
