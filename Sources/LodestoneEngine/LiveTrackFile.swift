import LodestoneLinux
import LodestoneLocation

/// A GPX or GeoJSON track file kept valid on disk while the track grows, so that a `kill -9` or a power cut leaves a
/// file every reader opens, missing at most the last seconds.
///
/// The file is a part that never changes again (the header and every point written) followed by a short closing part
/// (`</trkseg></trk></gpx>`, or `]}`). Each new point is written, with the closing part after it, by one `pwrite(2)` at
/// the offset where the old closing part began: the file is whole before the call and whole after it, and it never
/// gets shorter. Every `syncIntervalS` of monotonic time the file is fsync'ed.
///
/// - GPX: the file is exactly what `TrackExport.gpx` writes for the points so far.
/// - GeoJSON: a FeatureCollection cannot grow by appending to a feature's arrays without rewriting the feature, so
///   while the run goes on each segment is written as features of at most `geoJSONPiecePoints` points (the open
///   piece rewritten with each point), tagged with a `"segment"` property. A run that ends normally replaces the file
///   with `TrackExport.geoJSON`'s one feature per segment; a killed one leaves the pieces.
///
/// A write that fails (`ENOSPC`, `EROFS`, `EIO`) sets `problem` once and closes the file; nothing more is written to it.
final class LiveTrackFile {
    enum Format { case gpx, geoJSON }

    /// Points per GeoJSON feature while the file grows (each point rewrites at most this many).
    static let geoJSONPiecePoints = 30
    /// How often the file is made durable, s of monotonic time.
    static let syncIntervalS = 5.0

    let path: String
    let format: Format
    let name: String
    private var writer: FileWriter?
    /// Bytes at the start of the file that no later write changes.
    private var stableBytes = 0
    /// The file's length now, and its closing part (the bytes after `stableBytes`).
    private var fileBytes = 0
    private var closingText = ""
    private var lastSyncS: Double
    /// GeoJSON: the open piece, its segment and how many features precede it.
    private var piece: [Location] = []
    private var pieceSegment = 0
    private var closedFeatures = 0
    /// Why the file stopped being written (set once).
    private(set) var problem: String?

    /// Creates or truncates `path` and writes an empty, valid track.
    /// - Throws: `FileError` from creating or writing the file.
    init(path: String, format: Format, name: String) throws(FileError) {
        self.path = path
        self.format = format
        self.name = name
        lastSyncS = MonotonicClock.nowS()
        let w = try FileWriter(path: path)
        writer = w
        let (start, end) =
            format == .gpx
            ? (TrackExport.gpxHeader(name: name), TrackExport.gpxEnd)
            : (TrackExport.geoJSONStart, TrackExport.geoJSONEnd)
        try commit(stable: start, closing: end, on: w)
        try w.sync()
    }

    /// Whether points are still written (no failure, not closed).
    var isOpen: Bool { writer != nil }

    /// Writes `l`, the newest point of segment `segment` (`startsSegment`: its first).
    func add(_ l: Location, startsSegment: Bool, segment: Int) {
        guard let w = writer else { return }
        var stable = ""
        let closing: String
        switch format {
        case .gpx:
            if startsSegment {
                if segment > 0 { stable += TrackExport.gpxSegmentEnd }
                stable += TrackExport.gpxSegmentStart
            }
            stable += TrackExport.gpxPoint(l)
            closing = TrackExport.gpxSegmentEnd + TrackExport.gpxEnd
        case .geoJSON:
            if !piece.isEmpty, startsSegment || piece.count >= Self.geoJSONPiecePoints {
                stable = separator + TrackExport.geoJSONFeature(piece[...], name: name, segment: pieceSegment)
                closedFeatures += 1
                piece.removeAll(keepingCapacity: true)
            }
            pieceSegment = segment
            piece.append(l)
            closing =
                separator + TrackExport.geoJSONFeature(piece[...], name: name, segment: pieceSegment)
                + TrackExport.geoJSONEnd
        }
        do throws(FileError) {
            try commit(stable: stable, closing: closing, on: w)
            let now = MonotonicClock.nowS()
            if now - lastSyncS >= Self.syncIntervalS {
                lastSyncS = now
                try w.sync()
            }
        } catch {
            fail(error)
        }
    }

    /// Makes the file durable and closes it (before `TrackExport.write()` replaces it).
    func close() {
        guard let w = writer else { return }
        writer = nil
        do throws(FileError) { try w.close() } catch { problem = problem ?? line(for: error) }
    }

    /// `","` before every feature but the first.
    private var separator: String { closedFeatures == 0 ? "" : ",\n" }

    /// Writes `stable` then `closing` where the old closing part began; `stable` stays. When the write fails part way
    /// (`ENOSPC` after some blocks), the old closing part is put back and the file cut to its old length, so that it
    /// stays whole: overwriting bytes already stored needs no new space.
    private func commit(stable: String, closing: String, on w: FileWriter) throws(FileError) {
        var text = stable + closing
        let length = stableBytes + text.utf8.count
        let result = text.withUTF8 { bytes in
            Result { () throws(FileError) in try w.write(UnsafeRawBufferPointer(bytes), atOffset: stableBytes) }
        }
        if case .failure(let error) = result {
            var previous = closingText
            _ = previous.withUTF8 { bytes in
                Result { () throws(FileError) in try w.write(UnsafeRawBufferPointer(bytes), atOffset: stableBytes) }
            }
            try? w.truncate(toBytes: fileBytes)
            throw error
        }
        closingText = closing
        // Never reached by the formats above (each closing part is at least as long as the previous one); kept so that
        // the file cannot end in stale bytes if that changes.
        if length < fileBytes { try w.truncate(toBytes: length) }
        fileBytes = length
        stableBytes += stable.utf8.count
    }

    private func fail(_ error: FileError) {
        problem = line(for: error)
        _ = try? writer?.close()
        writer = nil
    }

    private func line(for error: FileError) -> String {
        "track export stopped writing as it goes: \(error); the run goes on, the track is kept in memory and written "
            + "when the run ends if it can be"
    }
}
