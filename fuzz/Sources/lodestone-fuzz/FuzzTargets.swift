import Foundation
import LodestoneCore
import LodestoneEngine
import LodestoneLocation
import LodestoneService
import LodestoneTrace
import LodestoneWire
@testable import LodestoneDaemon
@testable import LodestoneGNSSSources

/// The fuzz targets. Each takes one input and runs a parser over it the way Lodestone does; anything the parser
/// reports as an error is fine, a trap (overflow, out-of-bounds, force-unwrap, precondition) or a memory error
/// found by AddressSanitizer is a finding. Where two ways of reading the same bytes must agree (a trace in memory
/// and streamed in small chunks), the target checks that they do.
enum FuzzTargets {
    /// A target's name (the command line's) and what it reads.
    struct Target {
        var name: String
        var summary: String
    }

    /// Every target, in `scripts/fuzz --list`'s order.
    static let all: [Target] = [
        Target(name: "framer", summary: "GNSSFramer: raw receiver bytes (NMEA, UBX, comments, noise) split into packets"),
        Target(name: "nmea", summary: "GNSSDecoder: NMEA lines, each given a valid checksum, decoded"),
        Target(name: "ubx", summary: "GNSSDecoder: UBX frames built from the input (class, id, length, payload), decoded"),
        Target(name: "gnss-stream", summary: "GNSSDecoder: raw bytes as from a receiver or a recorded log"),
        Target(name: "gpx", summary: "GPXReader.points: a GPX document"),
        Target(name: "board", summary: "BoardDescription.parse: a board file (JSON)"),
        Target(name: "calibration", summary: "CalibrationFiles.parse: a calibration file (JSON)"),
        Target(name: "demands", summary: "DemandsFile.parse: a demands file (JSON)"),
        Target(name: "trace-csv", summary: "TraceParser: a CSV trace, in memory and streamed in small chunks (must agree)"),
        Target(name: "trace-gzip", summary: "TraceParser(reading:) and TraceFiles.readText: a trace file, gzip or plain"),
        Target(name: "gpsd-client", summary: "GNSSGpsdSource: gpsd's JSON reports, line by line"),
        Target(name: "wire", summary: "Wire.Message.decode: the JSON wire (run --json), line by line"),
        Target(name: "native", summary: "NativeProtocol: the daemon's native protocol, client and daemon messages, line by line"),
        Target(name: "gpsd-command", summary: "GPSDRequestParser: a gpsd client's command line (?WATCH=…;?POLL;)")
    ]

    /// Runs target `index` (of `all`) on `bytes`.
    static func run(_ index: Int, _ bytes: UnsafeRawBufferPointer) {
        switch all[index].name {
        case "framer": framer(bytes)
        case "nmea": nmea(bytes)
        case "ubx": ubx(bytes)
        case "gnss-stream": gnssStream(bytes)
        case "gpx": gpx(bytes)
        case "board": board(bytes)
        case "calibration": calibration(bytes)
        case "demands": demands(bytes)
        case "trace-csv": traceCSV(bytes)
        case "trace-gzip": traceGzip(bytes)
        case "gpsd-client": gpsdClient(bytes)
        case "wire": wire(bytes)
        case "native": native(bytes)
        case "gpsd-command": gpsdCommand(bytes)
        default: fatalError("no fuzz target \(all[index].name)")
        }
    }

    // MARK: GNSS

    static func framer(_ bytes: UnsafeRawBufferPointer) {
        var framer = GNSSFramer()
        var sum = 0
        for b in bytes {
            guard framer.push(b) != nil else { continue }
            framer.withPacket { packet in for c in packet { sum &+= Int(c) } }
        }
        framer.finish()
        blackHole(sum)
    }

    /// Feeds `bytes` to a decoder and reads every event's contents.
    static func decode(_ bytes: UnsafeRawBufferPointer) {
        var decoder = GNSSDecoder()
        var seen = 0
        decoder.feed(bytes) { event in
            switch event {
            // The report's fields folded into a number: `String(describing:)` (reflection) cost most of each run's
            // time in the debug, ASan-instrumented build (about 10 inputs a second).
            case .report(let report, _): seen &+= fold(report)
            case .sky: seen &+= 1
            case .heading(let deg): seen &+= deg.isNaN ? 0 : 1
            }
        }
        decoder.finish()
        seen &+= decoder.satellites.count
        _ = decoder.dilutions
        _ = decoder.satellitesUsed
        blackHole(seen)
    }

    /// Each line of the input that starts with `$` or `!` gets its checksum (`*hh`, any old one dropped) and CR LF,
    /// so that the fuzzer reaches the sentence decoders past the framer's checksum test.
    /// Every value of a report, folded into one number (so that none is optimised away).
    static func fold(_ r: GNSSFixReport) -> Int {
        let values: [Double?] = [
            r.latitudeDeg, r.longitudeDeg, r.altitudeHAEM, r.altitudeMSLM, r.geoidSeparationM, r.speedMps, r.trackDeg,
            r.magneticTrackDeg, r.magneticVariationDeg, r.climbMps, r.ephM, r.epvM, r.eptS, r.epsMps,
            r.velocityNEDMps?.north, r.velocityNEDMps?.east, r.velocityNEDMps?.down
        ]
        var h = r.mode.rawValue &+ (r.status == nil ? 0 : 1) &+ (r.time == nil ? 0 : 2)
        for v in values { h = h &* 31 &+ Int(truncatingIfNeeded: v?.bitPattern ?? 1) }
        return h
    }

    static func nmea(_ bytes: UnsafeRawBufferPointer) {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            var body = Array(line)
            if body.last == 0x0D { body.removeLast() }
            guard let first = body.first, first == 0x24 || first == 0x21 else {
                out += body; out.append(0x0A); continue
            }
            if let star = body.lastIndex(of: 0x2A) { body.removeSubrange(star...) }
            var x: UInt8 = 0
            for c in body.dropFirst() { x ^= c }
            let hex = Array("0123456789ABCDEF".utf8)
            out += body
            out += [0x2A, hex[Int(x >> 4)], hex[Int(x & 15)], 0x0D, 0x0A]
        }
        out.withUnsafeBytes { decode($0) }
    }

    /// The input as UBX frames with valid checksums: class, id, a little-endian 16-bit length (cut to what is left)
    /// and that many payload bytes, repeated.
    static func ubx(_ bytes: UnsafeRawBufferPointer) {
        var out: [UInt8] = []
        var i = 0
        while i + 4 <= bytes.count {
            let cls = bytes[i], id = bytes[i + 1]
            let length = min(Int(bytes[i + 2]) | Int(bytes[i + 3]) << 8, bytes.count - i - 4)
            out += UBXFrame.frame(messageClass: cls, id: id, payload: Array(bytes[(i + 4)..<(i + 4 + length)]))
            i += 4 + length
        }
        out.withUnsafeBytes { decode($0) }
    }

    static func gnssStream(_ bytes: UnsafeRawBufferPointer) { decode(bytes) }

    static func gpx(_ bytes: UnsafeRawBufferPointer) {
        guard let points = try? GPXReader.points(in: String(decoding: bytes, as: UTF8.self)) else { return }
        for (a, b) in zip(points, points.dropFirst()) { blackHole(GPXReader.courseDeg(from: a, to: b)) }
    }

    // MARK: files

    static func board(_ bytes: UnsafeRawBufferPointer) {
        if let board = try? BoardDescription.parse(Data(bytes), path: "fuzz.json") { blackHole(board.hashValue) }
    }

    static func calibration(_ bytes: UnsafeRawBufferPointer) {
        if let document = try? CalibrationFiles.parse(Data(bytes), path: "fuzz.json") { blackHole(String(describing: document)) }
    }

    static func demands(_ bytes: UnsafeRawBufferPointer) {
        if let demands = try? DemandsFile.parse(Data(bytes), path: "fuzz.json") { blackHole(demands.count) }
    }

    /// Every row of a parser, then its error if it stopped at one.
    static func rows(_ parser: inout TraceParser) -> (rows: [TraceRow], error: TraceError?) {
        var rows: [TraceRow] = []
        do {
            try parser.readHeader()
            while let row = try parser.next() {
                rows.append(row)
                if rows.count > 100_000 { break }
            }
            return (rows, nil)
        } catch {
            return (rows, error)
        }
    }

    /// A trace in memory, and the same bytes streamed in chunks of 1…64 bytes: the rows and the error must be the
    /// same (NaN fields compared as text).
    static func traceCSV(_ bytes: UnsafeRawBufferPointer) {
        let all = Array(bytes)
        var memory = TraceParser(bytes: all, path: "fuzz.csv")
        let a = rows(&memory)
        let chunk = 1 + (all.first.map { Int($0) } ?? 0) % 64
        var streamed = TraceParser(reading: MemoryReader(all), path: "fuzz.csv", chunkBytes: chunk)
        let b = rows(&streamed)
        if String(describing: a.rows) != String(describing: b.rows) || a.error != b.error {
            fatalError(
                "trace read in memory and streamed in \(chunk)-byte chunks differ: \(a.rows.count) rows, \(String(describing: a.error)) vs \(b.rows.count) rows, \(String(describing: b.error))"
            )
        }
    }

    /// The input written to a file (so that zlib's reader runs on it, gzip or not) and read both ways a trace
    /// file is read.
    static func traceGzip(_ bytes: UnsafeRawBufferPointer) {
        let path = scratchFile
        // Plain POSIX calls: Foundation's `createFile` and a `Data` copy took over a third of each input's time.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0, bytes.isEmpty || write(fd, bytes.baseAddress, bytes.count) == bytes.count else {
            fatalError("cannot write \(path)")
        }
        close(fd)
        if var parser = try? TraceParser(reading: path) { blackHole(rows(&parser).rows.count) }
        if let text = try? TraceFiles.readText(path: path) { blackHole(text.utf8.count) }
    }

    /// This process's scratch file for `traceGzip` (in TMPDIR).
    static let scratchFile: String = {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        return "\(folder)/lodestone-fuzz-\(getpid()).csv.gz"
    }()

    // MARK: protocols

    static func lines(_ bytes: UnsafeRawBufferPointer) -> [ArraySlice<UInt8>] {
        Array(bytes).split(separator: 0x0A, omittingEmptySubsequences: false)
    }

    static func gpsdClient(_ bytes: UnsafeRawBufferPointer) {
        var source = GNSSGpsdSource(id: "fuzz", host: "localhost", port: 2947)
        var fixes = 0
        for (i, line) in lines(bytes).enumerated() where line.count <= GNSSGpsdSource.maximumLineBytes {
            // The fix's hash reads every field; `String(describing:)` (reflection) took about half of each input's time.
            if let fix = source.handle(line: Array(line), timeS: Double(i)) { fixes &+= fix.hashValue }
        }
        blackHole(fixes)
    }

    static func wire(_ bytes: UnsafeRawBufferPointer) {
        for line in lines(bytes) {
            if let message = try? Wire.Message.decode(String(decoding: line, as: UTF8.self)) { blackHole(message.line) }
        }
    }

    static func native(_ bytes: UnsafeRawBufferPointer) {
        for line in lines(bytes) {
            // The messages themselves, not `String(describing:)` of them: reflection is not what is being fuzzed and
            // took a fifth of each input's time.
            if let message = try? NativeProtocol.decodeClientMessage(line) { blackHole(message) }
            if let message = try? NativeProtocol.decodeDaemonMessage(line) { blackHole(message) }
        }
    }

    static func gpsdCommand(_ bytes: UnsafeRawBufferPointer) {
        for line in lines(bytes) {
            blackHole(GPSDRequestParser.parse(String(decoding: line, as: UTF8.self)).count)
        }
    }
}

/// A trace's bytes as a stream (`TraceByteReader`), in whatever chunks the parser asks for.
final class MemoryReader: TraceByteReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TraceError) -> Int {
        let n = min(buffer.count, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes {
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)]))
        }
        offset += n
        return n
    }
}

/// Keeps a value from being optimized away.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
