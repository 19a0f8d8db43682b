import LodestoneCore
import LodestoneEngine
import LodestoneLinux
import LodestoneLocation

/// `lodestone gnss decode`: decodes a receiver log (NMEA 0183 and/or u-blox UBX, plain or `.gz`) and prints one
/// report per epoch, as gpsd-style JSON objects (`--json`) or as a table for people.
///
/// JSON output, one object per line (gpsd_json(5) names and units):
/// - `TPV` once per epoch: the epoch's complete solution (what gpsd's last TPV for that time holds). Reports
///   before the receiver knows the date have no `time` and are printed as they happen.
/// - `SKY` whenever a complete satellite view arrives: `nSat`, `uSat`, DOPs, `satellites[]` with `PRN`, `gnssid`,
///   `svid`, `el`, `az`, `ss`, `used`.
/// - `ATT` with `heading` for a true heading (HDT).
/// Bad input is counted by reason and skipped; the summary goes to standard error.
public struct GNSSDecodeJob {
    /// What a run decoded.
    public struct Summary: Sendable {
        public var epochs = 0
        public var untimedReports = 0
        public var sentences = 0
        public var ubxFrames = 0
        public var skipped: [(reason: String, count: Int)] = []
        public var shortSentences = 0
        /// Sentences framed but longer than gpsd decodes (`GNSSDecoder.maximumDecodedSentenceLength`).
        public var overLongSentences = 0
        public var ignoredSentences = 0

        /// One line for standard error.
        public var description: String {
            var s =
                "\(epochs) epochs (\(untimedReports) reports without time) from \(sentences) NMEA sentences and \(ubxFrames) UBX frames"
            let bad = skipped.filter { $0.count > 0 }
            if !bad.isEmpty || shortSentences > 0 || overLongSentences > 0 {
                var parts = bad.map { "\($0.count) \($0.reason)" }
                if shortSentences > 0 { parts.append("\(shortSentences) too short") }
                if overLongSentences > 0 { parts.append("\(overLongSentences) too long to decode") }
                s += "; skipped: " + parts.joined(separator: ", ")
            }
            return s
        }
    }

    public var json: Bool
    public var century: Int

    public init(json: Bool, century: Int = 2000) { self.json = json; self.century = century }

    /// The size of the pieces `run(path:emit:)` reads: its memory is this and the decoder's, whatever the log's size.
    public static let readChunkBytes = 65_536

    /// Reads and decodes `path` as a stream, `readChunkBytes` at a time. A read error mid-file (a cut `.gz`) throws
    /// after the epochs before it were emitted.
    public func run(path: String, emit: (String) -> Void) throws(JobError) -> Summary {
        let remedy = "pass a receiver log (NMEA 0183 or u-blox UBX, plain or .gz)"
        let reader: GzipReader
        do { reader = try GzipReader(path: path) } catch { throw JobError("\(error.description); \(remedy)") }
        let decoding = Decoding(job: self, emit: emit)
        var chunk = [UInt8](repeating: 0, count: Self.readChunkBytes)
        while true {
            // withUnsafeMutableBytes is `rethrows`, which erases the error type: carry it out in a Result.
            let read = chunk.withUnsafeMutableBytes { raw in Result { () throws(FileError) in try reader.read(into: raw) } }
            let count: Int
            switch read {
            case .success(let n): count = n
            case .failure(let error): throw JobError("\(error.description); \(remedy)")
            }
            if count == 0 { break }
            decoding.feed(chunk[..<count], emit: emit)
        }
        return decoding.finish(emit: emit)
    }

    /// Decodes `bytes`.
    public func run(bytes: [UInt8], emit: (String) -> Void) -> Summary {
        let decoding = Decoding(job: self, emit: emit)
        decoding.feed(bytes[...], emit: emit)
        return decoding.finish(emit: emit)
    }

    /// One run's decoding state, fed piece by piece. A class so that the decoder's callback may update the pending
    /// epoch and the counts while the decoder itself is being mutated (exclusivity is per stored property).
    private final class Decoding {
        let json: Bool
        var decoder: GNSSDecoder
        var summary = Summary()
        var pending: GNSSFixReport?
        var skyReady = false

        init(job: GNSSDecodeJob, emit: (String) -> Void) {
            json = job.json
            decoder = GNSSDecoder(configuration: .init(century: job.century))
            if !json { emit(GNSSDecodeJob.tableHeader) }
        }

        func flush(emit: (String) -> Void) {
            guard let p = pending else { return }
            emit(json ? GNSSDecodeJob.tpvJSON(p) : GNSSDecodeJob.tableRow(p))
            summary.epochs += 1
            pending = nil
        }

        func feed(_ bytes: ArraySlice<UInt8>, emit: (String) -> Void) {
            let json = self.json
            func flush() { self.flush(emit: emit) }
            for byte in bytes {
                decoder.feed(byte: byte) { event in
                    switch event {
                    case .report(let r, _):
                        if r.time == nil {
                            flush()
                            self.summary.untimedReports += 1
                            if json { emit(GNSSDecodeJob.tpvJSON(r)) }
                        } else if self.pending?.time == r.time {
                            self.pending = r
                        } else {
                            flush()
                            self.pending = r
                        }
                    case .sky:
                        self.skyReady = json
                    case .heading(let h):
                        if json { emit("{\"class\":\"ATT\",\"heading\":\(formatFixed(h, digits: 4))}") }
                    }
                }
                if skyReady {
                    skyReady = false
                    emit(GNSSDecodeJob.skyJSON(decoder))
                }
            }
        }

        func finish(emit: (String) -> Void) -> Summary {
            decoder.finish()
            flush(emit: emit)
            summary.sentences = decoder.framer.nmeaCount
            summary.ubxFrames = decoder.framer.ubxCount
            summary.shortSentences = decoder.shortSentences
            summary.overLongSentences = decoder.overLongSentences
            summary.ignoredSentences = decoder.ignoredSentences
            summary.skipped = GNSSFramer.BadReason.allCases.map { ($0.description, decoder.framer.count($0)) }
            return summary
        }
    }

    /// A TPV object as gpsd prints it (same names, units and decimals).
    public static func tpvJSON(_ r: GNSSFixReport) -> String {
        var s = "{\"class\":\"TPV\",\"mode\":\(r.mode.rawValue)"
        if let st = r.status { s += ",\"status\":\(st.rawValue)" }
        if let t = r.time { s += ",\"time\":\"\(t.iso8601)\"" }
        func add(_ name: String, _ v: Double?, _ digits: Int) {
            if let v, v.isFinite { s += ",\"\(name)\":" + formatFixed(v, digits: digits) }
        }
        add("ept", r.eptS, 3)
        add("lat", r.latitudeDeg, 9)
        add("lon", r.longitudeDeg, 9)
        add("altHAE", r.altitudeHAEM, 4)
        add("altMSL", r.altitudeMSLM, 4)
        add("epv", r.epvM, 3)
        add("track", r.trackDeg, 4)
        add("magtrack", r.magneticTrackDeg, 4)
        add("magvar", r.magneticVariationDeg, 1)
        add("speed", r.speedMps, 3)
        add("climb", r.climbMps, 3)
        add("epd", r.epdDeg, 4)
        add("eps", r.epsMps, 2)
        add("geoidSep", r.geoidSeparationM, 3)
        add("eph", r.ephM, 3)
        if let n = r.velocityNEDMps {
            add("velN", n.north, 3); add("velE", n.east, 3); add("velD", n.down, 3)
        }
        if let a = r.dgpsAgeS, let st = r.dgpsStation { add("dgpsAge", a, 1); s += ",\"dgpsSta\":\(st)" }
        return s + "}"
    }

    /// A SKY object from the decoder's current sky view.
    public static func skyJSON(_ d: GNSSDecoder) -> String {
        var s = "{\"class\":\"SKY\""
        let dops = d.dilutions
        if let v = dops.hdop { s += ",\"hdop\":" + formatFixed(v, digits: 2) }
        if let v = dops.vdop { s += ",\"vdop\":" + formatFixed(v, digits: 2) }
        if let v = dops.pdop { s += ",\"pdop\":" + formatFixed(v, digits: 2) }
        let sats = d.satellites
        s += ",\"nSat\":\(sats.count),\"uSat\":\(sats.filter(\.used).count),\"satellites\":["
        s += sats.map { sat in
            var o = "{\"PRN\":\(sat.prn),\"gnssid\":\(sat.gnssID),\"svid\":\(sat.svID)"
            if let sig = sat.signalID { o += ",\"sigid\":\(sig)" }
            if let v = sat.elevationDeg { o += ",\"el\":" + formatFixed(v, digits: 1) }
            if let v = sat.azimuthDeg { o += ",\"az\":" + formatFixed(v, digits: 1) }
            if let v = sat.signalDBHz { o += ",\"ss\":" + formatFixed(v, digits: 1) }
            return o + ",\"used\":\(sat.used)}"
        }.joined(separator: ",")
        return s + "]}"
    }

    static let tableHeader =
        "time                     mode  lat_deg        lon_deg         alt_msl_m  alt_hae_m  speed_mps  track_deg  eph_m    epv_m    status"

    static func tableRow(_ r: GNSSFixReport) -> String {
        func cell(_ v: Double?, _ digits: Int, _ width: Int) -> String {
            let t = v.map { formatFixed($0, digits: digits) } ?? "-"
            return t.count >= width ? t : t + String(repeating: " ", count: width - t.count)
        }
        let mode = ["?", "none", "2D", "3D"][r.mode.rawValue]
        let time = r.time?.iso8601 ?? "(no time)               "
        return time + " " + mode.padding(5) + " " + cell(r.latitudeDeg, 9, 14) + " " + cell(r.longitudeDeg, 9, 15) + " "
            + cell(r.altitudeMSLM, 3, 10) + " " + cell(r.altitudeHAEM, 3, 10) + " " + cell(r.speedMps, 3, 10) + " "
            + cell(r.trackDeg, 2, 10) + " " + cell(r.ephM, 2, 8) + " " + cell(r.epvM, 2, 8) + " "
            + (r.status.map { "\($0)" } ?? "")
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
