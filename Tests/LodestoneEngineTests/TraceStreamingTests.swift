import Foundation
import LodestoneCore
import LodestoneLinux
import LodestoneSimulation
@testable import LodestoneTrace
import Testing
@testable import LodestoneEngine

/// The byte-level, streaming `TraceParser` against the `Substring` parser it replaced, kept below verbatim as the
/// oracle (`ReferenceTraceParser`): the same rows, bit for bit, and the same errors at the same lines, on random
/// traces (good and broken), on a real BROAD trial and on a recorded simulated drive; streamed from plain and gzip
/// files in reads so small that lines straddle them. Where the two differ by design (CRLF line ends, which the
/// old parser could not split, and a floor number beyond `Int`, on which it trapped) the new behaviour is tested
/// on its own.
@Suite struct TraceStreamingTests {
    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-stream-\(getpid())-\(name)").path
    }

    /// Rows until the end or the first error, and that error.
    struct Outcome: Equatable, CustomStringConvertible {
        var rows: [TraceRow]
        var error: TraceError?
        /// Printed rows show a sign of zero that `==` does not compare.
        var description: String { "\(rows.count) rows, \(error?.description ?? "no error")\n\(rows)" }
    }

    static func outcome(_ next: () throws(TraceError) -> TraceRow?) -> Outcome {
        var rows: [TraceRow] = []
        do throws(TraceError) {
            while let row = try next() { rows.append(row) }
            return Outcome(rows: rows, error: nil)
        } catch { return Outcome(rows: rows, error: error) }
    }

    static func reference(_ text: String, path: String) -> Outcome {
        var parser = ReferenceTraceParser(text: text, path: path)
        return outcome { () throws(TraceError) in try parser.next() }
    }

    static func inMemory(_ text: String, path: String) -> Outcome {
        var parser = TraceParser(text: text, path: path)
        return outcome { () throws(TraceError) in try parser.next() }
    }

    /// The file at `path` streamed `chunkBytes` at a time.
    static func streamed(_ path: String, chunkBytes: Int) -> Outcome {
        do throws(TraceError) {
            var parser = try TraceParser(reading: path, chunkBytes: chunkBytes)
            return outcome { () throws(TraceError) in try parser.next() }
        } catch { return Outcome(rows: [], error: error) }
    }

    /// `text` written plain and gzip-compressed, streamed in reads of 1, 7, 64 and 4096 bytes: each the same as
    /// `expected` (the error's path is the file's).
    static func expectStreamsLike(
        _ expected: Outcome, text: String, name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let plain = temporary(name)
        let gzip = plain + ".gz"
        defer { try? FileManager.default.removeItem(atPath: plain); try? FileManager.default.removeItem(atPath: gzip) }
        try text.write(toFile: plain, atomically: true, encoding: .utf8)
        try GzipFile.write(bytes: Array(text.utf8), to: gzip, level: 1)
        for (path, chunks) in [(plain, [1, 7, 64, 4096]), (gzip, [7, 4096])] {
            for chunkBytes in chunks {
                var want = expected
                want.error?.path = path
                let got = streamed(path, chunkBytes: chunkBytes)
                #expect(got == want, "\(path) in \(chunkBytes)-byte reads", sourceLocation: sourceLocation)
                #expect(got.description == want.description, sourceLocation: sourceLocation)
            }
        }
    }

    @Test func randomTracesParseAsTheFormerParserParsedThem() throws {
        var random = SeededGenerator(seed: 11)
        for trial in 0..<300 {
            let text = Self.randomTrace(&random)
            let expected = Self.reference(text, path: "t.csv")
            let got = Self.inMemory(text, path: "t.csv")
            #expect(got == expected, "trial \(trial):\n\(text)")
            #expect(got.description == expected.description, "trial \(trial)")
            if trial % 10 == 0 { try Self.expectStreamsLike(expected, text: text, name: "random-\(trial).csv") }
        }
    }

    /// A BROAD trial (CC BY 4.0, Laidig et al. 2021) and a simulated drive with GNSS and truth, whole.
    @Test func realRecordingsParseAsTheFormerParserParsedThem() throws {
        let broad = OrientationStageTests.broad + "/21_undisturbed_fast_combined.csv.gz"
        for path in [broad, LocationStageTests.recording] {
            let text = try TraceFiles.readText(path: path)
            let expected = Self.reference(text, path: path)
            #expect(expected.error == nil && expected.rows.count > 5_000)
            let got = Self.streamed(path, chunkBytes: TraceInput.chunkBytes)
            #expect(got == expected, "\(path)")
            #expect(got.description == expected.description, "\(path)")
        }
    }

    /// The last line, without a newline, found only after the window was compacted by the read that hit the end
    /// of the file (a parser once kept the offsets from before the move and then looped on empty lines).
    @Test func aLastLineWithoutNewlineAfterARefillIsReadWhole() throws {
        let text = "t_s,acc_x,acc_y,acc_z\n0,1,2,3\n0.01,4,5,6"
        let expected = Self.reference(text, path: "t.csv")
        #expect(expected.rows.count == 2 && expected.error == nil)
        try Self.expectStreamsLike(expected, text: text, name: "no-final-newline.csv")
    }

    @Test func crlfLineEndsReadAsLF() throws {
        let lf = "t_s,acc_x,acc_y,acc_z,label\n0,0,0,9.8,walk\n\n0.01,1,2,3,run\n"
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        let expected = Self.inMemory(lf, path: "t.csv")
        #expect(expected.rows.count == 2 && expected.error == nil)
        #expect(Self.inMemory(crlf, path: "t.csv") == expected)
        try Self.expectStreamsLike(expected, text: crlf, name: "crlf.csv")
        // A cut CRLF file is truncated like an LF one.
        let cut = "t_s,acc_x,acc_y,acc_z\r\n0,0,0,9.8\r\n0.01,1,2\r\n"
        #expect(
            Self.inMemory(cut, path: "t.csv").error?.description
                == "t.csv:3: column acc_z: 3 fields where the header has 4 (the file is truncated)")
    }

    @Test func aFloorNumberBeyondIntIsAnErrorNotACrash() {
        let got = Self.inMemory("t_s,gt_floor\n0,2.7\n1,-3\n2,1e300\n", path: "t.csv")
        #expect(got.rows.map { $0.truth?.floor } == [2, -3])
        #expect(got.error == TraceError(path: "t.csv", line: 4, column: "gt_floor", problem: "\"1e300\" is not a floor number"))
    }

    /// A gzip file cut short: the rows before the cut are delivered, then the read error, as `GzipFile` words it.
    @Test func aCutGzipFileDeliversItsRowsThenTheReadError() throws {
        var text = "t_s,acc_x,acc_y,acc_z\n"
        for i in 0..<20_000 { text += "\(Double(i) / 100),0.\(i % 97),-1.\(i % 13),9.8\n" }
        let whole = Self.temporary("whole.csv.gz"), cut = Self.temporary("cut.csv.gz")
        defer { try? FileManager.default.removeItem(atPath: whole); try? FileManager.default.removeItem(atPath: cut) }
        try GzipFile.write(bytes: Array(text.utf8), to: whole)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let got = Self.streamed(cut, chunkBytes: 4096)
        let all = Self.reference(text, path: cut).rows
        #expect(got.rows.count > 1_000 && got.rows.count < all.count)
        #expect(got.rows == Array(all.prefix(got.rows.count)))
        var wholeFileError: String?
        do { _ = try TraceFiles.readText(path: cut) } catch { wholeFileError = error.description }
        #expect(got.error?.description == wholeFileError)
        #expect(got.error?.description.contains("truncated") == true)
    }

    @Test func aMissingFileIsOneLineNamingIt() {
        let got = Self.streamed("/nonexistent-lodestone/trace.csv", chunkBytes: 64)
        #expect(got.rows.isEmpty)
        #expect(got.error?.description.hasPrefix("/nonexistent-lodestone/trace.csv: ") == true)
    }

    /// A random trace: a header of known and unknown columns in random order, then rows of numbers in the shapes
    /// the datasets and other writers use, with empty cells, `nan`, padding, labels, blank lines, and now and
    /// then a broken cell, a partial vector, a missing time, a row with a field too many or too few, or a file
    /// cut off mid-row. No `\r`: the former parser could not split CRLF lines (see `crlfLineEndsReadAsLF`).
    static func randomTrace(_ random: inout SeededGenerator) -> String {
        var columns = TraceColumn.allCases.filter { _ in random.next() % 3 != 0 }.map(\.rawValue)
        if random.next() % 20 != 0 && !columns.contains("t_s") { columns.append("t_s") }
        columns += ["valid", "subject"].filter { _ in random.next() % 2 == 0 }
        columns.shuffle(using: &random)
        func pad(_ s: String) -> String { random.next() % 12 == 0 ? [" ", "\t", "  "][Int(random.next() % 3)] + s + " " : s }
        var lines = [columns.map(pad).joined(separator: ",")]
        let rowCount = Int(random.next() % 40)
        var t = 0.0
        for _ in 0..<rowCount {
            if random.next() % 15 == 0 { lines.append(""); continue }
            t += 0.0035
            var cells: [String] = []
            let blankVectors = random.next() % 3 == 0
            for name in columns {
                let r = random.next() % 100
                switch name {
                case "t_s": cells.append(r == 0 ? "" : formatFixed(t, digits: 4))
                case "label", "gt_activity": cells.append(["walk", "drive", "", "stationary", "é"][Int(r % 5)])
                case "subject": cells.append("hugadb-01")
                case "valid": cells.append(r % 2 == 0 ? "1" : "0")
                case "gt_floor": cells.append(["", "0", "2", "-1", "3.0"][Int(r % 5)])
                default:
                    let isVector = ["acc_", "gyr_", "mag_", "gt_q", "gt_vel"].contains { name.hasPrefix($0) }
                    if isVector && blankVectors && r != 1 { cells.append(""); continue }
                    if r < 3 { cells.append(["x2", "1e999", "inf", "--1", "1.2.3"][Int(random.next() % 5)]); continue }
                    if r < 8 {
                        cells.append(["nan", "", "NaN", "+1.5", ".25", "1e-3", "-0", "5."][Int(random.next() % 8)]); continue
                    }
                    let value = (random.uniform() - 0.5) * [2e-3, 20, 2e5, 360][Int(random.next() % 4)]
                    cells.append(formatFixed(value, digits: Int(random.next() % 10)))
                }
            }
            if random.next() % 60 == 0 { cells.append("9") }
            if random.next() % 60 == 0, !cells.isEmpty { cells.removeLast() }
            lines.append(cells.map(pad).joined(separator: ","))
        }
        var text = lines.joined(separator: "\n")
        switch random.next() % 6 {
        case 0: break // no final newline
        case 1: text += "\n\n" // a blank line at the end
        case 2 where text.count > 10: text.removeLast(Int(random.next() % 10)) // cut off
        default: text += "\n"
        }
        return text
    }
}

/// The trace parser of commit 756965b (`Substring` lines and cells, `Double(Substring)`), kept verbatim as the
/// oracle of `TraceStreamingTests`; only its name changed.
struct ReferenceTraceParser {
    let path: String
    private var columns: [TraceColumn?] = []
    private var header: [Substring] = []
    private var lines: [Substring]
    private var index = 0
    private var sawHeader = false

    /// `text` is the whole (decompressed) file; `path` is used in messages.
    init(text: String, path: String) {
        self.path = path
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // A final newline yields one empty trailing element: not a row.
        if let last = lines.last, last.isEmpty { lines.removeLast() }
    }

    /// Columns of the header that Lodestone understands.
    var knownColumns: [TraceColumn] { columns.compactMap { $0 } }

    /// The next row, nil at the end.
    mutating func next() throws(TraceError) -> TraceRow? {
        if !sawHeader {
            guard index < lines.count else {
                throw TraceError(
                    path: path, line: 1, problem: "empty file: a trace starts with a header row such as \"t_s,acc_x,acc_y,acc_z\""
                )
            }
            header = lines[index].split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
            columns = header.map { TraceColumn(rawValue: String($0)) }
            index += 1
            sawHeader = true
            guard columns.contains(.timeS) else {
                throw TraceError(path: path, line: 1, problem: "no t_s column in the header; a trace needs t_s (seconds) first")
            }
        }
        while index < lines.count {
            let lineNumber = index + 1
            let raw = lines[index]
            index += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.isEmpty { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == header.count else {
                let lastLine = index == lines.count
                throw TraceError(
                    path: path, line: lineNumber, column: fields.count < header.count ? String(header[fields.count]) : nil,
                    problem: "\(fields.count) fields where the header has \(header.count)"
                        + (lastLine && fields.count < header.count ? " (the file is truncated)" : ""))
            }
            var row = TraceRow(timeS: .nan)
            var truth = TraceRow.Truth()
            var hasTruth = false
            var acc = Vector3.zero, gyr = Vector3.zero, mag = Vector3.zero, q = SIMD4<Double>.zero, vel = Vector3.zero
            var accN = 0, gyrN = 0, magN = 0, qN = 0, velN = 0
            for (i, column) in columns.enumerated() {
                guard let column else { continue }
                let cell = fields[i].trimmingWhitespace
                if cell.isEmpty { continue }
                if column.isText {
                    if column == .label { row.label = String(cell) } else { truth.activity = String(cell); hasTruth = true }
                    continue
                }
                guard let v = Double(cell) else {
                    throw TraceError(
                        path: path, line: lineNumber, column: column.rawValue, problem: "\"\(cell)\" is not a number")
                }
                if v.isNaN { continue } // datasets write `nan` for "no value"
                guard v.isFinite else {
                    throw TraceError(path: path, line: lineNumber, column: column.rawValue, problem: "\"\(cell)\" is not finite")
                }
                switch column {
                case .timeS: row.timeS = v
                case .accX: acc.x = v; accN += 1
                case .accY: acc.y = v; accN += 1
                case .accZ: acc.z = v; accN += 1
                case .gyrX: gyr.x = v; gyrN += 1
                case .gyrY: gyr.y = v; gyrN += 1
                case .gyrZ: gyr.z = v; gyrN += 1
                case .magX: mag.x = v; magN += 1
                case .magY: mag.y = v; magN += 1
                case .magZ: mag.z = v; magN += 1
                case .pressurePa: row.pressurePa = v
                case .temperatureC: row.temperatureC = v
                case .speedMps: row.speedMps = v
                case .latDeg: row.latitudeDeg = v
                case .lonDeg: row.longitudeDeg = v
                case .heightM: row.heightM = v
                case .horizontalAccuracyM: row.horizontalAccuracyM = v
                case .courseDeg: row.courseDeg = v
                case .verticalAccuracyM: row.verticalAccuracyM = v
                case .speedAccuracyMps: row.speedAccuracyMps = v
                case .geoidSeparationM: row.geoidSeparationM = v
                case .gtQW: q[0] = v; qN += 1
                case .gtQX: q[1] = v; qN += 1
                case .gtQY: q[2] = v; qN += 1
                case .gtQZ: q[3] = v; qN += 1
                case .gtLatDeg: truth.latitudeDeg = v; hasTruth = true
                case .gtLonDeg: truth.longitudeDeg = v; hasTruth = true
                case .gtHeightM: truth.heightM = v; hasTruth = true
                case .gtVelE: vel.x = v; velN += 1
                case .gtVelN: vel.y = v; velN += 1
                case .gtVelU: vel.z = v; velN += 1
                case .gtPressurePa: truth.pressurePa = v; hasTruth = true
                case .gtFloor: truth.floor = Int(v); hasTruth = true
                case .label, .gtActivity: break
                }
            }
            guard row.timeS.isFinite else {
                throw TraceError(path: path, line: lineNumber, column: "t_s", problem: "missing time; every row needs t_s")
            }
            for (name, n) in [("acc", accN), ("gyr", gyrN), ("mag", magN)] where n != 0 && n != 3 {
                throw TraceError(
                    path: path, line: lineNumber, column: name + "_x/y/z",
                    problem: "only \(n) of 3 axes given; give all three or none")
            }
            if accN == 3 { row.accelerationMps2 = acc }
            if gyrN == 3 { row.angularVelocityRadS = gyr }
            if magN == 3 { row.magneticFieldMicroTesla = mag }
            if qN == 4 { truth.boardToENU = Quaternion(w: q[0], x: q[1], y: q[2], z: q[3]); hasTruth = true }
            if velN == 3 { truth.velocityENUMps = vel; hasTruth = true }
            if hasTruth { row.truth = truth }
            return row
        }
        return nil
    }
}
