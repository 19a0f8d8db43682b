#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
/// Where `lodestone run`, `calibrate` and the other commands find their board file when `--board` is not given,
/// from any working directory.
///
/// The places, first found wins:
/// 1. `$LODESTONE_BOARD` (a path; relative to the working directory). When it is set, it is the only place
///    looked at: a setting that names a missing file is an error, never silently replaced by another board.
/// 2. `/etc/lodestone/board.json`, the machine's own board.
/// 3. The installed data: `/usr/share/lodestone/boards/simulated.json`, then `../share/lodestone/boards/simulated.json`
///    beside the executable's directory (an install under another prefix, e.g. `/usr/local` or `/opt/lodestone`).
/// 4. The checkout the executable was built in: SwiftPM puts it in `.build/<triple>/<config>/lodestone`, reached
///    through the `.build/<config>` symlink, so `../../boards` and `../../../boards` from the executable's directory.
/// 5. `boards/simulated.json` in the working directory.
///
/// Pure: the file system is asked through `fileExists`, so tests give it any layout.
public enum BoardLocator {
    /// The variable that names the board file.
    public static let environmentVariable = "LODESTONE_BOARD"
    /// The machine's configured board.
    public static let systemBoardPath = "/etc/lodestone/board.json"
    /// The shipped simulated board under the standard data directory.
    public static let installedBoardPath = "/usr/share/lodestone/boards/simulated.json"

    /// One place looked at, and why it is on the list.
    public struct Candidate: Sendable, Equatable, CustomStringConvertible {
        /// Absolute, normalised path (no `.` or `..` components).
        public var path: String
        /// What the place is: "$LODESTONE_BOARD", "system board", "installed data", "checkout", "working directory".
        public var origin: String
        public init(path: String, origin: String) { self.path = path; self.origin = origin }
        public var description: String { "\(path) (\(origin))" }
    }

    /// No board file was given and none was found: says every place tried and what to do.
    public struct NotFound: Error, Sendable, Equatable, CustomStringConvertible {
        /// The places looked at, in order.
        public var tried: [Candidate]
        public var description: String {
            if tried.count == 1, tried[0].origin == "$" + BoardLocator.environmentVariable {
                return "\(BoardLocator.environmentVariable)=\(tried[0].path): no such board file; "
                    + "fix the variable or unset it to use the default board"
            }
            return "no board file: --board not given and none found in "
                + tried.map(\.description).joined(separator: ", ")
                + "; give --board FILE or set \(BoardLocator.environmentVariable)"
        }
    }

    /// The places to look, in order, without duplicates.
    /// - Parameters:
    ///   - environment: the process environment (only `LODESTONE_BOARD` is read).
    ///   - executablePath: the running executable's path, ideally with symlinks resolved (`/proc/self/exe`);
    ///     `nil` or a relative name skips the places relative to it.
    ///   - currentDirectory: the working directory (absolute).
    public static func candidates(
        environment: [String: String], executablePath: String?,
        currentDirectory: String
    ) -> [Candidate] {
        if let named = environment[environmentVariable], !named.isEmpty {
            return [Candidate(path: absolute(named, in: currentDirectory), origin: "$" + environmentVariable)]
        }
        var list = [
            Candidate(path: systemBoardPath, origin: "system board"),
            Candidate(path: installedBoardPath, origin: "installed data")
        ]
        if let exe = executablePath, exe.hasPrefix("/") {
            let dir = normalize(exe + "/..")
            list.append(Candidate(path: normalize(dir + "/../share/lodestone/boards/simulated.json"), origin: "installed data"))
            list.append(Candidate(path: normalize(dir + "/../../boards/simulated.json"), origin: "checkout"))
            list.append(Candidate(path: normalize(dir + "/../../../boards/simulated.json"), origin: "checkout"))
        }
        list.append(Candidate(path: normalize(currentDirectory + "/boards/simulated.json"), origin: "working directory"))
        var seen = Set<String>()
        return list.filter { seen.insert($0.path).inserted }
    }

    /// The default board file: the first of ``candidates(environment:executablePath:currentDirectory:)`` that exists.
    /// - Throws: ``NotFound`` listing every place tried.
    public static func defaultBoardPath(
        environment: [String: String], fileExists: (String) -> Bool,
        executablePath: String?, currentDirectory: String
    ) throws(NotFound) -> String {
        let list = candidates(environment: environment, executablePath: executablePath, currentDirectory: currentDirectory)
        guard let found = list.first(where: { fileExists($0.path) }) else { throw NotFound(tried: list) }
        return found.path
    }

    /// `path` made absolute against `directory` and normalised.
    static func absolute(_ path: String, in directory: String) -> String {
        normalize(path.hasPrefix("/") ? path : directory + "/" + path)
    }

    /// An absolute path with `.`, `..` and repeated `/` resolved lexically (`/..` stays `/`). Lexical on purpose:
    /// the executable's path comes with its symlinks already resolved, and a board path is shown as the user
    /// would type it.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(component)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}

extension BoardLocator {
    /// The default board's path for this process: its environment, working directory and executable (symlinks
    /// resolved through `/proc/self/exe`, which also works when it was found through `$PATH`).
    /// - Throws: `NotFound` listing every place tried.
    public static func defaultBoardPath() throws(NotFound) -> String {
        // No fallback without /proc: the places beside the executable are then skipped.
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return try defaultBoardPath(
            environment: ProcessInfo.processInfo.environment,
            fileExists: { FileManager.default.fileExists(atPath: $0) },
            executablePath: executable, currentDirectory: FileManager.default.currentDirectoryPath)
    }
}

extension BoardDescription {
    /// The default board (`BoardLocator.defaultBoardPath()`: `$LODESTONE_BOARD`, `/etc/lodestone/board.json`, the
    /// installed boards, the checkout's simulated board), loaded.
    /// - Throws: `BoardLocator.NotFound`, or the board file's error naming file, key and what is allowed.
    public static func loadDefault() throws -> BoardDescription {
        try load(path: try BoardLocator.defaultBoardPath())
    }
}
