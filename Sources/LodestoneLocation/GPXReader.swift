import LodestoneCore
import RealModule

/// Reads GPX 1.1 files (<https://www.topografix.com/GPX/1/1/>, schema gpx.xsd): waypoints (`wpt`), routes
/// (`rte`/`rtept`) and tracks (`trk`/`trkseg`/`trkpt`), each point with `lat`/`lon` attributes and optional
/// `ele` (m) and `time` (ISO 8601, UTC). GPX 1.0 files read the same way for these elements.
///
/// A small, strict XML reader of its own (no Foundation): elements, attributes in single or double quotes,
/// the five predefined entities and numeric character references, comments, CDATA, processing instructions
/// and a DOCTYPE are understood; anything malformed is an error naming the line.
public enum GPXReader {
    /// One point of a GPX file.
    public struct Point: Sendable, Hashable {
        /// WGS84 latitude and longitude, degrees.
        public var latitudeDeg: Double
        public var longitudeDeg: Double
        /// `ele`, m (GPX gives no datum; receivers and apps write heights above mean sea level).
        public var elevationM: Double?
        /// `time`, UTC.
        public var time: UTCTime?
        /// Which list the point came from.
        public var kind: Kind
        public enum Kind: String, Sendable, Hashable { case waypoint, routePoint, trackPoint }
    }

    /// A GPX file that could not be read: one line with the line number and what is wrong.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var problem: String
        public var description: String { "line \(line): \(problem)" }
    }

    /// The points of `text`, in document order: waypoints, route points and track points as they appear.
    public static func points(in text: String) throws(Error) -> [Point] {
        var points: [Point] = []
        var parser = XMLScanner(Array(text.utf8))
        var current: Point?
        var capture: String? // the element whose text we are collecting (ele, time)
        var captured = ""
        var sawRoot = false
        while let token = try parser.next() {
            switch token {
            case .start(let name, let attributes, let selfClosing):
                let local = name.split(separator: ":").last.map(String.init) ?? name
                if !sawRoot {
                    guard local == "gpx" else {
                        throw Error(line: parser.line, problem: "the root element is <\(name)>, not <gpx>: not a GPX file")
                    }
                    sawRoot = true
                }
                switch local {
                case "wpt", "rtept", "trkpt":
                    guard let latText = attributes["lat"], let lonText = attributes["lon"] else {
                        throw Error(line: parser.line, problem: "<\(name)> needs lat and lon attributes")
                    }
                    guard let lat = Double(latText), (-90...90).contains(lat) else {
                        throw Error(line: parser.line, problem: "lat=\"\(latText)\" is not a latitude in [-90, 90]")
                    }
                    guard let lon = Double(lonText), (-180...180).contains(lon) else {
                        throw Error(line: parser.line, problem: "lon=\"\(lonText)\" is not a longitude in [-180, 180]")
                    }
                    let kind: Point.Kind = local == "wpt" ? .waypoint : local == "rtept" ? .routePoint : .trackPoint
                    current = Point(latitudeDeg: lat, longitudeDeg: lon, elevationM: nil, time: nil, kind: kind)
                    if selfClosing, let p = current { points.append(p); current = nil }
                case "ele" where current != nil, "time" where current != nil:
                    capture = selfClosing ? nil : local
                    captured = ""
                default:
                    break
                }
            case .text(let t):
                if capture != nil { captured += t }
            case .end(let name):
                let local = name.split(separator: ":").last.map(String.init) ?? name
                if let c = capture, c == local {
                    let value = captured.trimmingASCIIWhitespace
                    if c == "ele" {
                        guard let e = Double(value) else {
                            throw Error(line: parser.line, problem: "<ele>\(value)</ele> is not a number of metres")
                        }
                        current?.elevationM = e
                    } else {
                        guard let t = parseISO8601(value) else {
                            throw Error(
                                line: parser.line,
                                problem: "<time>\(value)</time> is not an ISO 8601 UTC time like 2024-05-01T12:00:00Z")
                        }
                        current?.time = t
                    }
                    capture = nil
                } else if local == "wpt" || local == "rtept" || local == "trkpt", let p = current {
                    points.append(p)
                    current = nil
                }
            }
        }
        guard sawRoot else { throw Error(line: parser.line, problem: "no <gpx> element: not a GPX file") }
        return points
    }

    /// Initial course from `a` to `b`, degrees clockwise from true north, [0, 360) (spherical formula; adequate
    /// between neighbouring points of a track).
    public static func courseDeg(from a: Point, to b: Point) -> Double {
        let p1 = Angle.radians(fromDegrees: a.latitudeDeg), p2 = Angle.radians(fromDegrees: b.latitudeDeg)
        let dl = Angle.radians(fromDegrees: b.longitudeDeg - a.longitudeDeg)
        let y = Double.sin(dl) * Double.cos(p2)
        let x = Double.cos(p1) * Double.sin(p2) - Double.sin(p1) * Double.cos(p2) * Double.cos(dl)
        return Angle.wrap360(Angle.degrees(fromRadians: Double.atan2(y: y, x: x)))
    }

    /// `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm)` (XML Schema `dateTime` as GPX uses it), as UTC.
    public static func parseISO8601(_ s: String) -> UTCTime? {
        let b = Array(s.utf8)
        func num(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard b.count >= 19, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A,
            let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
            let se = num(17, 2),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61
        else { return nil }
        var i = 19
        var nanos = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var scale = 100_000_000
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { nanos += Int(b[i] - 0x30) * scale; scale /= 10; i += 1 }
        }
        var offset = 0
        if i < b.count {
            if b[i] == 0x5A {
                i += 1
            } else if b[i] == 0x2B || b[i] == 0x2D, let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3A,
                let om = num(i + 4, 2)
            {
                offset = (oh * 3600 + om * 60) * (b[i] == 0x2D ? -1 : 1)
                i += 6
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let secs = UTCTime.secondsSince1970(year: y, month: mo, day: d, hour: h, minute: mi, second: se) - Int64(offset)
        return UTCTime(seconds: secs, nanoseconds: Int32(nanos))
    }
}

extension String {
    var trimmingASCIIWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\n" || f == "\r" || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\n" || l == "\r" || l == "\t" { s.removeLast() }
        return String(s)
    }
}

/// A minimal XML tokenizer for GPX.
struct XMLScanner {
    enum Token { case start(String, [String: String], selfClosing: Bool), end(String), text(String) }

    let b: [UInt8]
    var i = 0
    var line = 1

    init(_ bytes: [UInt8]) { b = bytes }

    mutating func fail(_ problem: String) -> GPXReader.Error { GPXReader.Error(line: line, problem: problem) }

    mutating func advance() { if b[i] == 0x0A { line += 1 }; i += 1 }

    mutating func skip(until terminator: String) throws(GPXReader.Error) {
        let t = Array(terminator.utf8)
        while i < b.count {
            if b[i] == t[0], i + t.count <= b.count, Array(b[i..<(i + t.count)]) == t { i += t.count; return }
            advance()
        }
        throw fail("unterminated markup (missing \(terminator))")
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x3A || c == 0x5F || c == 0x2D
            || c == 0x2E || c >= 0x80
    }

    mutating func name() throws(GPXReader.Error) -> String {
        let start = i
        while i < b.count, Self.isNameByte(b[i]) { i += 1 }
        guard i > start else { throw fail("expected an element or attribute name") }
        return String(decoding: b[start..<i], as: UTF8.self)
    }

    mutating func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { advance() } }

    func decodeEntities(_ raw: ArraySlice<UInt8>) throws(GPXReader.Error) -> String {
        var out = ""
        var j = raw.startIndex
        var chunk = j
        while j < raw.endIndex {
            if raw[j] == 0x26 { // &
                out += String(decoding: raw[chunk..<j], as: UTF8.self)
                guard let semi = raw[j...].firstIndex(of: 0x3B) else {
                    throw GPXReader.Error(line: line, problem: "unterminated entity reference")
                }
                let entity = String(decoding: raw[(j + 1)..<semi], as: UTF8.self)
                switch entity {
                case "lt": out += "<"
                case "gt": out += ">"
                case "amp": out += "&"
                case "quot": out += "\""
                case "apos": out += "'"
                default:
                    let v: UInt32? =
                        entity.hasPrefix("#x")
                        ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                    guard let v, let scalar = Unicode.Scalar(v) else {
                        throw GPXReader.Error(line: line, problem: "unknown entity &\(entity);")
                    }
                    out.unicodeScalars.append(scalar)
                }
                j = semi + 1
                chunk = j
            } else {
                j += 1
            }
        }
        return out + String(decoding: raw[chunk..<raw.endIndex], as: UTF8.self)
    }

    mutating func next() throws(GPXReader.Error) -> Token? {
        while i < b.count {
            if b[i] != 0x3C { // text up to the next '<'
                let start = i
                while i < b.count, b[i] != 0x3C { advance() }
                let t = try decodeEntities(b[start..<i])
                if !t.trimmingASCIIWhitespace.isEmpty { return .text(t) }
                continue
            }
            // '<'
            if i + 3 < b.count, b[i + 1] == 0x21, b[i + 2] == 0x2D, b[i + 3] == 0x2D { i += 4; try skip(until: "-->"); continue }
            if i + 8 < b.count, String(decoding: b[(i + 1)..<(i + 9)], as: UTF8.self) == "![CDATA[" {
                i += 9
                let start = i
                try skip(until: "]]>")
                return .text(String(decoding: b[start..<(i - 3)], as: UTF8.self))
            }
            if i + 1 < b.count, b[i + 1] == 0x3F { i += 2; try skip(until: "?>"); continue }
            if i + 1 < b.count, b[i + 1] == 0x21 { i += 2; try skip(until: ">"); continue } // DOCTYPE
            if i + 1 < b.count, b[i + 1] == 0x2F {
                i += 2
                let n = try name()
                skipSpace()
                guard i < b.count, b[i] == 0x3E else { throw fail("malformed end tag </\(n)") }
                i += 1
                return .end(n)
            }
            i += 1
            let n = try name()
            var attributes: [String: String] = [:]
            while true {
                skipSpace()
                guard i < b.count else { throw fail("the file ends inside <\(n)>") }
                if b[i] == 0x3E { i += 1; return .start(n, attributes, selfClosing: false) }
                if b[i] == 0x2F, i + 1 < b.count, b[i + 1] == 0x3E { i += 2; return .start(n, attributes, selfClosing: true) }
                let key = try name()
                skipSpace()
                guard i < b.count, b[i] == 0x3D else { throw fail("attribute \(key) of <\(n)> has no value") }
                i += 1
                skipSpace()
                guard i < b.count, b[i] == 0x22 || b[i] == 0x27 else { throw fail("attribute \(key) of <\(n)> is not quoted") }
                let quote = b[i]
                i += 1
                let start = i
                while i < b.count, b[i] != quote { advance() }
                guard i < b.count else { throw fail("unterminated attribute \(key) of <\(n)>") }
                attributes[String(key.split(separator: ":").last ?? Substring(key))] = try decodeEntities(b[start..<i])
                i += 1
            }
        }
        return nil
    }
}
