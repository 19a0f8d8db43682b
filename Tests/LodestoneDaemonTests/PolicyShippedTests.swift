import Foundation
import LodestoneDaemon
import LodestoneSockets
import Testing

/// The shipped policy: packaging/policy.toml is `Policy.shipped`, and it says what the issue asks.
@Suite struct PolicyShippedTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func thePackagedFileIsTheShippedPolicy() throws {
        let file = try String(contentsOf: Self.repository.appendingPathComponent("packaging/policy.toml"), encoding: .utf8)
        #expect(file == Policy.shippedText)
        #expect(try Policy.parse(file, origin: Policy.shippedOrigin) == Policy.shipped)
    }

    func decide(uid: UInt32, name: String?, groups: [String]) -> Authorization {
        Policy.shipped.authorization(
            for: PeerIdentity(uid: uid, gid: 1000, pid: 77, executablePath: "/usr/bin/foxtrotgps", address: "unix"),
            account: Account(uid: uid, name: name, groupNames: groups))
    }

    @Test func unlistedClientsGetNoLocationAndNoMotion() {
        let a = decide(uid: 1000, name: "pi", groups: ["pi", "users", "plugdev"])
        #expect(a.location == .denied)
        #expect(a.motion == false)
        #expect(a.decidedBy == "shipped policy.toml:16 (default)")
    }

    @Test func theLodestoneGroupGetsMotionOnly() {
        let a = decide(uid: 1000, name: "pi", groups: ["pi", DaemonDefaults.group])
        #expect(a.location == .denied)
        #expect(a.motion)
        #expect(a.decidedBy == "shipped policy.toml:33 (group lodestone), shipped policy.toml:16 (default)")
    }

    @Test func rootGetsEverything() {
        let a = decide(uid: 0, name: "root", groups: ["root"])
        #expect(a == Authorization(location: .always, accuracy: .full, motion: true, decidedBy: "shipped policy.toml:27 (uid 0)"))
    }

    @Test func theGpsdEndpointGetsReducedLocationWhileInUseAndNoMotion() {
        #expect(
            Policy.shipped.gpsdEndpoint
                == Authorization(
                    location: .whenInUse, accuracy: .reduced, motion: false, decidedBy: "shipped policy.toml:21 (gpsd endpoint)"))
    }

    @Test func theExamplesInTheShippedFileParseOnceUncommented() throws {
        let lines = Policy.shippedText.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("# Examples") }) else {
            Issue.record("the shipped policy has no examples")
            return
        }
        let examples = lines[(start + 1)...].map { $0.hasPrefix("# ") ? String($0.dropFirst(2)) : $0 == "#" ? "" : String($0) }
        let policy = try Policy.parse(examples.joined(separator: "\n"), origin: "examples")
        #expect(policy.rules.count == 3)
    }

    /// Every ```toml block of docs/policy.md is a valid policy (its refusals are in ```text blocks).
    @Test func theDocumentedExamplesParse() throws {
        let doc = try String(contentsOf: Self.repository.appendingPathComponent("docs/policy.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```toml" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n")); current = nil
            } else {
                current?.append(line)
            }
        }
        #expect(blocks.count >= 3)
        for (i, block) in blocks.enumerated() {
            #expect(throws: Never.self, "block \(i + 1)") { _ = try Policy.parse(block, origin: "docs/policy.md block \(i + 1)") }
        }
    }
}

/// Reading the file: a missing file is told apart, so the server can fall back to the shipped policy.
@Suite struct PolicyLoadTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aMissingFileIsItsOwnKind() {
        let error = policyError { _ = try Policy.load(path: "/nonexistent/lodestone/policy.toml") }
        #expect(error?.kind == .missingFile)
        #expect(error?.description == "/nonexistent/lodestone/policy.toml: no such file")
    }

    @Test func aDirectoryOrBytesThatAreNotUTF8AreUnreadable() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = policyError { _ = try Policy.load(path: directory.path) }
        #expect(error?.kind == .unreadable)
        let binary = directory.appendingPathComponent("policy.toml")
        try Data([0x5B, 0xFF, 0xFE, 0x5D]).write(to: binary)
        let notText = policyError { _ = try Policy.load(path: binary.path) }
        #expect(notText?.kind == .unreadable)
        #expect(notText?.description == "\(binary.path): not UTF-8 text")
    }

    @Test func aFileIsNamedByItsPathInErrorsAndDecisions() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("policy.toml")
        try "[default]\nmotion = true\n".write(to: file, atomically: true, encoding: .utf8)
        let policy = try Policy.load(path: file.path)
        #expect(policy.defaultAuthorization.decidedBy == "\(file.path):1 (default)")
        try "[default]\nmotion = yes\n".write(to: file, atomically: true, encoding: .utf8)
        let error = policyError { _ = try Policy.load(path: file.path) }
        #expect(error?.kind == .invalid)
        #expect(error?.line == 2)
        #expect(error?.description.hasPrefix("\(file.path):2: ") == true)
    }
}
