import LodestoneCore
import LodestoneEngine

/// One JSON object of gpsd's protocol, written member by member in the order of the calls: `"class"` first,
/// compact separators (`{"class":"TPV","mode":3}`), absent values left out (never `null`, never NaN or infinity).
///
/// gpsd's clients need this exact shape (`/work/shared/gpsd/README.md` §5): libgps finds the class by the text
/// `"class":"TPV"` (a space after the colon decodes nothing) and takes the first `"class"` of a line as the outer
/// one, so `JSONEncoder` (no member order, a space-free but unordered output) cannot be used.
struct GPSDJSONObject {
    /// The object so far, without its closing brace.
    private(set) var text: String

    /// An object whose first member is `"class":name`.
    init(class name: StaticString) {
        text = "{\"class\":\""
        text += name.description
        text += "\""
    }

    /// `"key":"value"`, the value escaped as JSON (gpsd's `json_stringify`).
    mutating func string(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        open(key)
        text += "\""
        JSONString.appendEscaped(value, to: &text)
        text += "\""
    }

    /// `"key":n`.
    mutating func integer(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        open(key)
        text += String(value)
    }

    /// `"key":true` or `"key":false`.
    mutating func boolean(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        open(key)
        text += value ? "true" : "false"
    }

    /// `"key":d.ddd` with `digits` decimals (C's `%.Nf`, rounded half away from zero; `-` only when the rounded
    /// value is not zero, as gpsd's `fix_zero`). Nothing when the value is `nil` or not finite.
    mutating func number(_ key: StaticString, _ value: Double?, digits: Int) {
        guard let value, value.isFinite else { return }
        open(key)
        text += formatFixed(value, digits: digits)
    }

    /// `"key":` followed by JSON text as it is (an array or an object written by another `GPSDJSONObject`).
    mutating func raw(_ key: StaticString, _ json: String) {
        open(key)
        text += json
    }

    /// The object as one report line: closed and terminated by CR LF, as gpsd sends every line.
    var line: String { text + "}\r\n" }

    /// The object closed, without a line end (an element of DEVICES' or POLL's arrays).
    var object: String { text + "}" }

    private mutating func open(_ key: StaticString) {
        text += ",\""
        text += key.description
        text += "\":"
    }

    /// A JSON array of already written elements: `[a,b]`.
    static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }
}

/// A JSON value as a client sent it in `?WATCH={…}` or `?DEVICE={…}`.
enum GPSDJSONValue: Equatable {
    case string(String)
    case number(Double)
    case boolean(Bool)
    case null
    case array([GPSDJSONValue])
    case object([(key: String, value: GPSDJSONValue)])

    static func == (a: GPSDJSONValue, b: GPSDJSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.boolean(let x), .boolean(let y)): x == y
        case (.null, .null): true
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
        default: false
        }
    }

    /// The member `key` of an object (the last one when repeated, as a parser that assigns in order keeps).
    subscript(key: String) -> GPSDJSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }
}

/// A small strict JSON reader over the bytes of one request line: it reads one value starting at an index and says
/// where the value ends, so that the commands after it on the line can be read too. Depth is bounded (a request
/// line is at most `GPSDRequestParser.maximumLineBytes` long, so nothing else needs a bound).
struct GPSDJSONReader {
    /// Why a value could not be read; `description` is the text after gpsd's `Invalid WATCH: `.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// The deepest nesting accepted (a WATCH is flat; gpsd's own parser allows nested objects only where declared).
    static let maximumDepth = 8

    let bytes: [UInt8]
    private(set) var index: Int

    init(bytes: [UInt8], index: Int) {
        self.bytes = bytes
        self.index = index
    }

    /// Reads a value at the current index; on return `index` is just past it.
    mutating func readValue(depth: Int = 0) throws(Failure) -> GPSDJSONValue {
        guard depth <= Self.maximumDepth else { throw Failure(description: "nested too deeply") }
        skipWhitespace()
        guard index < bytes.count else { throw Failure(description: "the JSON ends early") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try readObject(depth: depth)
        case UInt8(ascii: "["): return try readArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectWord("true"); return .boolean(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .boolean(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw Failure(description: "unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func readObject(depth: Int) throws(Failure) -> GPSDJSONValue {
        index += 1 // {
        var members: [(key: String, value: GPSDJSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw Failure(description: "expected a quoted member name")
            }
            let key = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw Failure(description: "expected ':' after \"\(key)\"")
            }
            index += 1
            members.append((key, try readValue(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw Failure(description: "the object is not closed") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw Failure(description: "expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    private mutating func readArray(depth: Int) throws(Failure) -> GPSDJSONValue {
        index += 1 // [
        var elements: [GPSDJSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try readValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw Failure(description: "the array is not closed") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw Failure(description: "expected ',' or ']'") }
            index += 1
            return .array(elements)
        }
    }

    private mutating func readString() throws(Failure) -> String {
        index += 1 // opening quote
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            if !raw.isEmpty {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
        }
        while index < bytes.count {
            let b = bytes[index]
            index += 1
            switch b {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let v = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
                    else { throw Failure(description: "bad \\u escape in a string") }
                    index += 4
                    scalars.append(Unicode.Scalar(v) ?? "\u{FFFD}")
                default: throw Failure(description: "bad escape in a string")
                }
            case 0..<0x20:
                throw Failure(description: "control character in a string")
            default:
                raw.append(b)
            }
        }
        throw Failure(description: "the string is not closed")
    }

    private mutating func readNumber() throws(Failure) -> Double {
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                index += 1
            default:
                guard let v = Double(String(decoding: bytes[start..<index], as: UTF8.self)), v.isFinite else {
                    throw Failure(description: "bad number")
                }
                return v
            }
        }
        guard let v = Double(String(decoding: bytes[start..<index], as: UTF8.self)), v.isFinite else {
            throw Failure(description: "bad number")
        }
        return v
    }

    private mutating func expectWord(_ word: String) throws(Failure) {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else {
            throw Failure(description: "expected \(word)")
        }
        index += w.count
    }

    mutating func skipWhitespace() {
        while index < bytes.count, GPSDJSONReader.isWhitespace(bytes[index]) { index += 1 }
    }

    static func isWhitespace(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "\n")
    }
}
