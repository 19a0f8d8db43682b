#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCore
import LodestoneFusion
import LodestoneLocation
import LodestoneTrace

/// A track file that cannot be written: which file and why.
public struct TrackExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, and what went wrong.
    public var path: String
    public var problem: String
    public var description: String { "\(path): \(problem)" }
}

/// Collects the fused track of a run or a replay and writes it as GPX 1.1 and/or GeoJSON (RFC 7946)
/// (`--gpx FILE`, `--geojson FILE`): as it goes, each file kept valid on disk after every point (`LiveTrackFile`), so
/// that a `kill -9` or a power cut loses at most the last seconds; and when the run ends, each file replaced
/// atomically by the whole track in its final form.
///
/// One point per second of data time at most (the location stage updates at every sample; a track needs no
/// more). The track is split into segments where there is no location for more than `gapS` (before the first
/// fix, or when the position is lost). Memory: one `Location` per second (about 200 bytes), i.e. ~17 MB a day.
///
/// A file that cannot be written as it goes (a full disk, a file system turned read-only) is reported once
/// (`takeLiveProblem()`) and no longer touched until the end; the track is still collected in memory and `write()`
/// tries again.
public final class TrackExport {
    /// Where to write.
    public struct Paths: Sendable, Hashable {
        /// The GPX file and the GeoJSON file; either may be absent.
        public var gpx: String?
        public var geoJSON: String?
        public init(gpx: String? = nil, geoJSON: String? = nil) {
            self.gpx = gpx
            self.geoJSON = geoJSON
        }
    }

    /// Where to write.
    public let paths: Paths
    /// The track name written into the files.
    public let name: String
    /// Minimum time between points, s.
    public let intervalS: Double
    /// A gap longer than this starts a new segment, s.
    public let gapS: Double
    /// The segments collected so far.
    public private(set) var segments: [[Location]] = []
    private var lastTimeS = -Double.infinity
    /// The files written as the track grows (closed, and then replaced, by `write()`).
    private var liveFiles: [LiveTrackFile] = []
    /// Problems of the live files not yet taken.
    private var liveProblems: [String] = []

    /// Creates the files (each a valid, empty track) before anything runs, so that a path that cannot be written
    /// fails at once.
    /// - Throws: `TrackExportError` naming the file and the errno's meaning.
    public init(paths: Paths, name: String, intervalS: Double = 1, gapS: Double = 10) throws(TrackExportError) {
        self.paths = paths
        self.name = name
        self.intervalS = intervalS
        self.gapS = gapS
        let wanted: [(String?, LiveTrackFile.Format)] = [(paths.gpx, .gpx), (paths.geoJSON, .geoJSON)]
        for case let (path?, format) in wanted {
            do { liveFiles.append(try LiveTrackFile(path: path, format: format, name: name)) } catch {
                throw TrackExportError(path: path, problem: "cannot write the track there: \(error.problemDescription)")
            }
        }
    }

    /// Adds the latest location (ignored when `nil` or within `intervalS` of the previous point), and writes it to
    /// the files as they stand.
    public func add(_ location: Location?) {
        guard let l = location, l.timeS >= lastTimeS + intervalS - 1e-9 else { return }
        let startsSegment = segments.isEmpty || l.timeS - lastTimeS > gapS
        if startsSegment { segments.append([]) }
        segments[segments.count - 1].append(l)
        lastTimeS = l.timeS
        for file in liveFiles where file.isOpen {
            file.add(l, startsSegment: startsSegment, segment: segments.count - 1)
            if let problem = file.problem { liveProblems.append(problem) }
        }
    }

    /// The lines saying which file stopped being written as it goes, and why, since the last call (empty
    /// almost always).
    public func takeLiveProblems() -> [String] {
        guard !liveProblems.isEmpty else { return [] }
        defer { liveProblems.removeAll() }
        return liveProblems
    }

    /// Number of points collected.
    public var pointCount: Int { segments.reduce(0) { $0 + $1.count } }

    /// Closes the files written as they go and replaces each with the whole track in its final form (atomically: a
    /// temporary file, fsync, rename).
    public func write() throws(TrackExportError) {
        for file in liveFiles { file.close() }
        if let path = paths.gpx { try write(Self.gpx(segments, name: name), to: path) }
        if let path = paths.geoJSON { try write(Self.geoJSON(segments, name: name), to: path) }
    }

    private func write(_ text: String, to path: String) throws(TrackExportError) {
        do { try OutputFiles.writeAtomically(Array(text.utf8), to: path) } catch {
            throw TrackExportError(path: path, problem: "cannot write the track: \(error)")
        }
    }

    // MARK: - Formats

    /// GPX 1.1 (topografix.com/GPX/1/1): one `trk` with a `trkseg` per segment. `ele` is the altitude above
    /// mean sea level when known (GPX's elevation), else omitted; `geoidheight` is the geoid separation; `fix` is
    /// `none` for dead-reckoned points (the receiver had no fix), `3d`/`2d` otherwise; `time` is UTC when a
    /// receiver has told it. Accuracies (95 %), speed and course are in `extensions` under the namespace
    /// `urn:lodestone:gpx:1`.
    public static func gpx(_ segments: [[Location]], name: String) -> String {
        var out = gpxHeader(name: name)
        for segment in segments {
            out += gpxSegmentStart
            for l in segment { out += gpxPoint(l) }
            out += gpxSegmentEnd
        }
        out += gpxEnd
        return out
    }

    /// The GPX file up to the first `trkseg`.
    static func gpxHeader(name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Lodestone \(Lodestone.version)" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:lodestone="urn:lodestone:gpx:1" \
        xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
          <metadata><name>\(xmlEscaped(name))</name></metadata>
          <trk>
            <name>\(xmlEscaped(name))</name>

        """
    }

    static let gpxSegmentStart = "    <trkseg>\n"
    static let gpxSegmentEnd = "    </trkseg>\n"
    /// What closes the file after the last segment.
    static let gpxEnd = "  </trk>\n</gpx>\n"

    /// One `trkpt` line.
    static func gpxPoint(_ l: Location) -> String {
        var out =
            "      <trkpt lat=\"\(formatFixed(l.coordinate.latitudeDeg, digits: 8))\" lon=\"\(formatFixed(l.coordinate.longitudeDeg, digits: 8))\">"
        if let msl = l.altitudeMSLM { out += "<ele>\(formatFixed(msl, digits: 2))</ele>" }
        if let utc = l.utcS { out += "<time>\(isoTime(utc))</time>" }
        if let h = l.ellipsoidalAltitudeM, let msl = l.altitudeMSLM {
            out += "<geoidheight>\(formatFixed(h - msl, digits: 2))</geoidheight>"
        }
        let fix = l.sourceInformation.method == .deadReckoning ? "none" : (l.ellipsoidalAltitudeM == nil ? "2d" : "3d")
        out += "<fix>\(fix)</fix><extensions>"
        out +=
            "<lodestone:horizontalAccuracy>\(formatFixed(l.horizontalAccuracyM, digits: 2))</lodestone:horizontalAccuracy>"
        if let v = l.verticalAccuracyM {
            out += "<lodestone:verticalAccuracy>\(formatFixed(v, digits: 2))</lodestone:verticalAccuracy>"
        }
        if let v = l.speedMps { out += "<lodestone:speed>\(formatFixed(v, digits: 3))</lodestone:speed>" }
        if let c = l.courseDeg { out += "<lodestone:course>\(formatFixed(c, digits: 2))</lodestone:course>" }
        out += "<lodestone:method>\(l.sourceInformation.method.rawValue)</lodestone:method>"
        out += "</extensions></trkpt>\n"
        return out
    }

    /// GeoJSON (RFC 7946): a FeatureCollection with one LineString Feature per segment, positions
    /// [longitude, latitude, height above the WGS84 ellipsoid] (RFC 7946 §3.1.1; the height is left out of a
    /// segment that lacks it anywhere), and per-point arrays in the properties (`t_s`, `time` UTC or null,
    /// `horizontal_accuracy_m` and `vertical_accuracy_m` (95 %), `speed_mps`, `course_deg`, `method`).
    public static func geoJSON(_ segments: [[Location]], name: String) -> String {
        let features = segments.filter { !$0.isEmpty }.map { geoJSONFeature($0[...], name: name) }
        return geoJSONStart + features.joined(separator: ",\n") + geoJSONEnd
    }

    /// What opens the GeoJSON file, before the first feature.
    static let geoJSONStart = "{\"type\":\"FeatureCollection\",\"features\":[\n"
    /// What closes it after the last feature.
    static let geoJSONEnd = "\n]}\n"

    /// One Feature: a LineString (a Point for a single point) and the per-point arrays; `segment` adds a
    /// `"segment"` property (the live file's pieces of one segment share it).
    static func geoJSONFeature(_ segment: ArraySlice<Location>, name: String, segment index: Int? = nil) -> String {
        func number(_ v: Double?, _ digits: Int) -> String {
            guard let v, v.isFinite else { return "null" }
            return formatFixed(v, digits: digits)
        }
        let withHeight = segment.allSatisfy { $0.ellipsoidalAltitudeM != nil }
        let coordinates = segment.map { l -> String in
            var p =
                "[\(formatFixed(l.coordinate.longitudeDeg, digits: 8)),\(formatFixed(l.coordinate.latitudeDeg, digits: 8))"
            if withHeight, let h = l.ellipsoidalAltitudeM { p += ",\(formatFixed(h, digits: 2))" }
            return p + "]"
        }
        let geometryType = segment.count == 1 ? "Point" : "LineString"
        let geometry = segment.count == 1 ? coordinates[0] : "[" + coordinates.joined(separator: ",") + "]"
        func list(_ f: (Location) -> String) -> String { "[" + segment.map(f).joined(separator: ",") + "]" }
        var properties = ["\"name\":\(JSONString.quoted(name))"]
        if let index { properties.append("\"segment\":\(index)") }
        properties += [
            "\"t_s\":" + list { number($0.timeS, 3) },
            "\"time\":" + list { $0.utcS.map { "\"\(isoTime($0))\"" } ?? "null" },
            "\"horizontal_accuracy_m\":" + list { number($0.horizontalAccuracyM, 2) },
            "\"vertical_accuracy_m\":" + list { number($0.verticalAccuracyM, 2) },
            "\"speed_mps\":" + list { number($0.speedMps, 3) },
            "\"course_deg\":" + list { number($0.courseDeg, 2) },
            "\"method\":" + list { "\"\($0.sourceInformation.method.rawValue)\"" }
        ]
        return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"\(geometryType)\",\"coordinates\":\(geometry)},"
            + "\"properties\":{" + properties.joined(separator: ",") + "}}"
    }

    /// ISO 8601 with milliseconds (`UTCCalendar.iso8601`): `2026-07-02T12:00:00.250Z`.
    static func isoTime(_ unixS: Double) -> String { UTCCalendar.iso8601(unixS: unixS, fractionDigits: 3) }

    static func xmlEscaped(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
