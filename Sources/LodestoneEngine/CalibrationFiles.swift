#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCalibration
import LodestoneCore
import LodestoneFusion
import LodestoneLinux
import LodestoneTrace

/// Calibration files on disk: reading and validating one, writing one atomically, and finding a board's.
///
/// **Lookup order** (first that exists wins), for a board file `…/NAME.json`:
/// 1. `--calibration FILE` on the command line;
/// 2. `$LODESTONE_CALIBRATION_DIR/NAME.json`, when that variable is set;
/// 3. `/var/lib/lodestone/NAME.json`, where `lodestone calibrate` saves by default on a deployed board;
/// 4. `calibration/NAME.json` beside the board file's directory (`boards/../calibration/`): the examples
///    shipped in the repository.
public enum CalibrationFiles {
    /// What to do about a calibration file, in the library's words (the command line names its flags instead).
    public enum Remedy {
        /// Fusion can run without any calibration.
        public static let runWithout = "run without calibration"
        /// The calibration is saved elsewhere.
        public static let chooseAnotherOutput = "choose another output path"
        /// The output must name a file.
        public static let giveAFile = "give a file path as the output"
        /// A broken file is replaced by a new calibration.
        public static let makeANewOne = "make a new one by calibrating"
    }

    /// The system directory deployed boards keep their calibration in.
    public static let systemDirectory = "/var/lib/lodestone"
    /// The environment variable naming a directory searched first (and written to by default).
    public static let directoryVariable = "LODESTONE_CALIBRATION_DIR"

    /// `simulated` for `boards/simulated.json`.
    public static func stem(of board: BoardDescription) -> String {
        guard let path = board.path else {
            return String(board.name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
        }
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return base.isEmpty ? "board" : base
    }

    /// Where a board's calibration is looked for, in order (without `--calibration`).
    public static func searchPath(
        for board: BoardDescription, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        let name = stem(of: board) + ".json"
        var paths: [String] = []
        if let dir = environment[directoryVariable], !dir.isEmpty { paths.append(dir + "/" + name) }
        paths.append(systemDirectory + "/" + name)
        if let path = board.path {
            let boardDirectory = URL(fileURLWithPath: path).deletingLastPathComponent()
            paths.append(
                boardDirectory.deletingLastPathComponent().appendingPathComponent("calibration").appendingPathComponent(name).path
            )
        }
        return paths
    }

    /// Where `lodestone calibrate` saves without `--output`: `$LODESTONE_CALIBRATION_DIR/NAME.json` when set,
    /// else `/var/lib/lodestone/NAME.json`.
    public static func defaultOutput(
        for board: BoardDescription, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let name = stem(of: board) + ".json"
        if let dir = environment[directoryVariable], !dir.isEmpty { return dir + "/" + name }
        return systemDirectory + "/" + name
    }

    /// Reads and validates a calibration file. Errors are one line: the file, the key, what is wrong, what to do.
    public static func load(path: String) throws(JobError) -> CalibrationDocument {
        let data: Data
        do { data = try Data(PlainFile.read(path: path)) } catch {
            throw JobError(
                "\(path): cannot read the calibration file (\(BoardDescription.reason(error))); check the path, or \(Remedy.runWithout)"
            )
        }
        return try parse(data, path: path)
    }

    /// Parses and validates calibration JSON; `path` is for messages.
    public static func parse(_ data: Data, path: String) throws(JobError) -> CalibrationDocument {
        let redo = "fix it, or \(Remedy.makeANewOne)"
        do {
            return try JSONDecoder().decode(CalibrationDocument.self, from: data)
        } catch let e as CalibrationDocumentError {
            throw JobError("\(path): \(e.key.isEmpty ? "" : e.key + ": ")\(e.problem); \(redo)")
        } catch let DecodingError.dataCorrupted(context) {
            let underlying = context.underlyingError.map(BoardDescription.reason) ?? context.debugDescription
            throw JobError(
                "\(path): not a valid calibration file: "
                    + (isCutShort(data) ? "the JSON is cut short (an interrupted copy?)" : "not valid JSON (\(underlying))")
                    + "; \(redo)")
        } catch {
            throw JobError("\(path): not a valid calibration file (\(error)); \(redo)")
        }
    }

    /// The document as the bytes written to disk: pretty-printed JSON with sorted keys and a final newline.
    public static func encode(_ document: CalibrationDocument) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding finite numbers and strings cannot fail; an empty result would be refused by `load`.
        return Array((try? encoder.encode(document)) ?? Data()) + Array("\n".utf8)
    }

    /// Writes `document` to `path` atomically (temporary file, fsync, rename, fsync of the directory): an
    /// interruption at any moment leaves the previous file as it was.
    public static func save(_ document: CalibrationDocument, to path: String) throws(JobError) {
        do { try AtomicFile.write(encode(document), to: path, permissions: 0o644) } catch {
            throw JobError("cannot save the calibration: \(error.description)")
        }
    }

    /// Fails early when `path` cannot be written (directory missing or not writable, or a directory where
    /// the file should be), so a person does not do a whole session for nothing. Creates the system
    /// directory when it is missing and can be made.
    public static func checkWritable(_ path: String) throws(JobError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        if PlainFile.isDirectory(path) {
            throw JobError("\(path): is a directory; \(Remedy.giveAFile)")
        }
        if directory == systemDirectory, !FileManager.default.fileExists(atPath: directory) {
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
        }
        guard PlainFile.isDirectory(directory) else {
            throw JobError("\(path): the directory \(directory) does not exist; create it or \(Remedy.chooseAnotherOutput)")
        }
        do throws(FileError) { try PlainFile.checkWritableDirectory(directory) } catch let e where e.kind == .readOnlyFileSystem {
            throw JobError("\(path): \(e.problemDescription); nothing was calibrated or saved")
        } catch {}
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw JobError(
                "\(path): permission denied: cannot write in \(directory); run as a user who may (e.g. sudo), or \(Remedy.chooseAnotherOutput)"
            )
        }
    }

    /// The document to merge a new calibration into: the existing file at `path` when there is one (it must be
    /// valid and for this board, or nothing is overwritten), else an empty one.
    public static func existing(at path: String, board: BoardDescription) throws(JobError) -> CalibrationDocument {
        guard FileManager.default.fileExists(atPath: path) else { return CalibrationDocument(board: board.name) }
        let document: CalibrationDocument
        do { document = try load(path: path) } catch {
            throw JobError(error.message + "; it is left as it is: move it away or \(Remedy.chooseAnotherOutput)")
        }
        guard document.board == board.name else {
            throw JobError(
                "\(path): holds the calibration of board \"\(document.board)\", not \"\(board.name)\"; \(Remedy.chooseAnotherOutput)"
            )
        }
        return document
    }

    /// Checks that `document` belongs to `board`: same board name, and each sensor on the board with the same
    /// chip and mount matrix. One line naming the file, the sensor and what to do when not.
    public static func check(_ document: CalibrationDocument, path: String, against board: BoardDescription) throws(JobError) {
        let redo = "calibrate again, or \(Remedy.runWithout)"
        guard document.board == board.name else {
            throw JobError("\(path): made for board \"\(document.board)\", but the board is \"\(board.name)\"; \(redo)")
        }
        for s in document.sensors {
            guard let entry = board.sensors.first(where: { $0.id == s.id }) else {
                throw JobError(
                    "\(path): sensor \"\(s.id)\" is not on board \"\(board.name)\" (its sensors: "
                        + board.sensors.map(\.id).joined(separator: ", ") + "); \(redo)")
            }
            guard entry.chip == s.chip else {
                throw JobError(
                    "\(path): sensor \"\(s.id)\" was calibrated as a \(s.chip), the board file says \(entry.chip); \(redo)")
            }
            guard maximumDifference(entry.mount, s.mount) < 1e-6 else {
                throw JobError(
                    "\(path): sensor \"\(s.id)\" was calibrated with mount \(compact(s.mount)), the board file now says "
                        + "\(compact(entry.mount)): its parameters are in the old axes; \(redo)")
            }
        }
    }

    /// The calibration `run` and `replay` use: `--no-calibration` → none; `--calibration FILE` → that file
    /// (checked against the board when there is one); else the first file of `searchPath(for:)` that exists.
    public static func resolve(
        board: BoardDescription?, explicitPath: String?, disabled: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(JobError) -> CalibrationStage.Configuration {
        if disabled { return CalibrationStage.Configuration(disabled: true) }
        var searched: [String] = []
        let path: String
        if let explicitPath {
            path = explicitPath
        } else if let board {
            searched = searchPath(for: board, environment: environment)
            guard let found = searched.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
                return CalibrationStage.Configuration(searched: searched)
            }
            path = found
        } else {
            return CalibrationStage.Configuration()
        }
        let document = try load(path: path)
        if let board { try check(document, path: path, against: board) }
        return CalibrationStage.Configuration(document: document, path: path, searched: searched)
    }

    private static func maximumDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
        zip(a.rowMajor, b.rowMajor).map { abs($0 - $1) }.max() ?? 0
    }

    /// `[0, -1, 0, 1, 0, 0, 0, 0, 1]`.
    private static func compact(_ m: Matrix3) -> String {
        "[" + m.rowMajor.map { $0 == $0.rounded() ? String(Int($0)) : formatFixed($0, digits: 3) }.joined(separator: ", ") + "]"
    }

    /// True when the JSON text ends inside an object, an array or a string: a file cut short.
    static func isCutShort(_ data: Data) -> Bool {
        var depth = 0, inString = false, escaped = false, sawAny = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; sawAny = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return !sawAny || depth > 0 || inString
    }

    /// `lodestone calibrate --check`: validates the file (and, with a board file, that it fits the board) and
    /// describes it in a few lines.
    public static func checkReport(path: String, boardPath: String?) throws(JobError) -> [String] {
        let document = try load(path: path)
        if let boardPath {
            let board: BoardDescription
            do { board = try BoardDescription.load(path: boardPath) } catch { throw JobError(error.description) }
            try check(document, path: path, against: board)
        }
        var lines = [
            "\(path): valid \(CalibrationDocument.formatTag) for board \"\(document.board)\""
                + (boardPath.map { ", matches \($0)" } ?? "")
        ]
        for s in document.sensors {
            var parts: [String] = []
            if let m = s.magnetometer {
                parts.append(
                    "magnetometer \(m.grade.rawValue) (residual \(formatFixed(m.residualMicroTesla, digits: 2)) µT, coverage \(formatFixed(m.coveragePercent, digits: 0)) %, \(m.date))"
                )
            }
            if let a = s.accelerometer {
                parts.append(
                    "accelerometer \(a.grade.rawValue) (residual \(formatFixed(a.residualMps2, digits: 3)) m/s², \(a.date))")
            }
            if let g = s.gyroscope {
                parts.append(
                    "gyroscope (\(formatFixed(g.durationS, digits: 0)) s at rest"
                        + (g.noiseDensityRadSPerRootHz != nil ? ", with Allan noise figures" : "") + ", \(g.date))")
            }
            if let b = s.barometer { parts.append("barometer (offset \(formatFixed(b.offsetPa, digits: 1)) Pa, \(b.date))") }
            lines.append("  \(s.id) (\(s.chip)): " + parts.joined(separator: "; "))
        }
        return lines
    }
}
