/// A job failed before or while running: one line for standard error.
public struct JobError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
