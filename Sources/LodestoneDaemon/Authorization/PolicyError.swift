/// Why a policy file was refused: one line naming the file, the line and what was expected, as
/// `policy.toml:7: unknown key "acuracy" (expected location, accuracy, motion)`.
public struct PolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure: the server falls back to the shipped policy only on `missingFile`.
    public enum Kind: String, Sendable, Hashable {
        /// There is no file at the path.
        case missingFile
        /// The file exists but cannot be read (permissions, a directory, not UTF-8).
        case unreadable
        /// The file was read, and something in it is not part of the policy format.
        case invalid
    }

    /// What kind of failure.
    public var kind: Kind
    /// The file (the path given to `Policy.load`, or the origin given to `Policy.parse`).
    public var file: String
    /// The line, from 1, or `nil` for a failure of the whole file.
    public var line: Int?
    /// What is wrong and what was expected.
    public var message: String

    /// An error as given.
    public init(kind: Kind = .invalid, file: String, line: Int?, message: String) {
        self.kind = kind; self.file = file; self.line = line; self.message = message
    }

    /// `file:line: message`, or `file: message` without a line.
    public var description: String {
        if let line { "\(file):\(line): \(message)" } else { "\(file): \(message)" }
    }
}
