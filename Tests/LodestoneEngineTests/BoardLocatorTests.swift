import Foundation
import Testing
@testable import LodestoneEngine

@Suite struct BoardLocatorTests {
    static let checkoutExecutable = "/home/ada/lodestone/.build/x86_64-unknown-linux-gnu/release/lodestone"

    /// Looks up with only `existing` present on the "file system".
    static func locate(
        _ existing: Set<String>, environment: [String: String] = [:],
        executable: String? = checkoutExecutable, directory: String = "/tmp"
    ) throws(BoardLocator.NotFound) -> String {
        try BoardLocator.defaultBoardPath(
            environment: environment, fileExists: { existing.contains($0) },
            executablePath: executable, currentDirectory: directory)
    }

    static let everyPlace: Set<String> = [
        "/etc/lodestone/board.json",
        "/usr/share/lodestone/boards/simulated.json",
        "/home/ada/lodestone/.build/x86_64-unknown-linux-gnu/share/lodestone/boards/simulated.json",
        "/home/ada/lodestone/boards/simulated.json",
        "/tmp/boards/simulated.json",
        "/srv/my-board.json"
    ]

    @Test func theEnvironmentVariableWinsOverEveryOtherPlace() throws {
        #expect(try Self.locate(Self.everyPlace, environment: ["LODESTONE_BOARD": "/srv/my-board.json"]) == "/srv/my-board.json")
    }

    @Test func aRelativeEnvironmentVariableIsResolvedAgainstTheWorkingDirectory() throws {
        #expect(
            try Self.locate(
                ["/srv/my-board.json"], environment: ["LODESTONE_BOARD": "../my-board.json"],
                directory: "/srv/work") == "/srv/my-board.json")
    }

    @Test func aMissingBoardNamedByTheEnvironmentIsAnErrorNotAFallback() {
        #expect {
            _ = try Self.locate(Self.everyPlace, environment: ["LODESTONE_BOARD": "/srv/gone.json"])
        } throws: { error in
            let e = error as? BoardLocator.NotFound
            return e?.tried.map(\.path) == ["/srv/gone.json"]
                && e?.description
                    == "LODESTONE_BOARD=/srv/gone.json: no such board file; fix the variable or unset it to use the default board"
        }
    }

    @Test func anEmptyEnvironmentVariableIsIgnored() throws {
        #expect(try Self.locate(Self.everyPlace, environment: ["LODESTONE_BOARD": ""]) == "/etc/lodestone/board.json")
    }

    /// Removing the winner each time walks the whole order.
    @Test func thePlacesAreTriedInTheDocumentedOrder() throws {
        var existing = Self.everyPlace
        var found: [String] = []
        while let path = try? Self.locate(existing) {
            found.append(path)
            existing.remove(path)
        }
        #expect(
            found == [
                "/etc/lodestone/board.json",
                "/usr/share/lodestone/boards/simulated.json",
                "/home/ada/lodestone/.build/x86_64-unknown-linux-gnu/share/lodestone/boards/simulated.json",
                "/home/ada/lodestone/boards/simulated.json",
                "/tmp/boards/simulated.json"
            ])
    }

    @Test(arguments: [
        // SwiftPM's real products directory (symlinks resolved, as /proc/self/exe gives it).
        "/home/ada/lodestone/.build/x86_64-unknown-linux-gnu/debug/lodestone",
        // Reached through the `.build/debug` symlink, unresolved.
        "/home/ada/lodestone/.build/debug/lodestone",
        // A scratch path of its own.
        "/home/ada/lodestone/.build-cli/release/lodestone"
    ])
    func aCheckoutBuildFindsItsOwnBoardsFromAnyDirectory(_ executable: String) throws {
        #expect(
            try Self.locate(["/home/ada/lodestone/boards/simulated.json"], executable: executable, directory: "/")
                == "/home/ada/lodestone/boards/simulated.json")
    }

    @Test func anInstallUnderAnotherPrefixFindsItsShareDirectory() throws {
        #expect(
            try Self.locate(["/opt/lodestone/share/lodestone/boards/simulated.json"], executable: "/opt/lodestone/bin/lodestone")
                == "/opt/lodestone/share/lodestone/boards/simulated.json")
    }

    @Test func withoutAnExecutablePathTheWorkingDirectoryIsStillTried() throws {
        #expect(try Self.locate(["/tmp/boards/simulated.json"], executable: nil) == "/tmp/boards/simulated.json")
        #expect(try Self.locate(["/tmp/boards/simulated.json"], executable: "lodestone") == "/tmp/boards/simulated.json")
    }

    @Test func nothingFoundListsEveryPlaceTriedOnce() {
        #expect {
            _ = try Self.locate([], executable: "/usr/bin/lodestone", directory: "/")
        } throws: { error in
            guard let e = error as? BoardLocator.NotFound else { return false }
            // `/usr/bin/../share/…` is /usr/share's own entry: listed once.
            return e.tried.map(\.path) == [
                "/etc/lodestone/board.json",
                "/usr/share/lodestone/boards/simulated.json",
                "/boards/simulated.json"
            ]
                && e.description == "no board file: --board not given and none found in "
                    + "/etc/lodestone/board.json (system board), /usr/share/lodestone/boards/simulated.json (installed data), "
                    + "/boards/simulated.json (checkout); give --board FILE or set LODESTONE_BOARD"
        }
    }

    @Test(arguments: [
        ("/a/b/../c", "/a/c"), ("/a/./b//c/", "/a/b/c"), ("/..", "/"), ("/a/b/c/../../..", "/"), ("/", "/")
    ])
    func normalisationIsLexical(_ input: String, _ expected: String) {
        #expect(BoardLocator.normalize(input) == expected)
    }
}

/// The built executable, run from a directory that is not the checkout.
@Suite(.serialized) struct BoardLocatorCLITests {
    static var environmentWithoutBoard: [String: String] {
        var e = ProcessInfo.processInfo.environment
        e["LODESTONE_BOARD"] = nil
        return e
    }

    @Test func runFromAnotherDirectoryFindsTheCheckoutsBoard() throws {
        let r = try CLI.run(
            ["run", "--duration", "2", "--speed", "0", "--json", "--classes", "all"], directory: URL(fileURLWithPath: "/tmp"),
            environment: Self.environmentWithoutBoard)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
        #expect(lines.first?["class"] as? String == "VERSION")
        let board = lines.first { $0["class"] as? String == "BOARD" }
        #expect(board?["name"] as? String == "Simulated board")
        // No /etc/lodestone or /usr/share/lodestone on a build machine: it is the checkout's own file.
        if !FileManager.default.fileExists(atPath: BoardLocator.systemBoardPath),
            !FileManager.default.fileExists(atPath: BoardLocator.installedBoardPath)
        {
            #expect(board?["path"] as? String == repositoryRoot.appendingPathComponent("boards/simulated.json").standardized.path)
        }
        #expect(lines.contains { $0["class"] as? String == "SAMPLE" })
    }

    @Test func aMissingBoardNamedByTheEnvironmentIsOneLineAndAFailure() throws {
        var environment = Self.environmentWithoutBoard
        environment["LODESTONE_BOARD"] = "/nonexistent/board.json"
        let r = try CLI.run(
            ["run", "--duration", "1", "--speed", "0", "--json"], directory: URL(fileURLWithPath: "/tmp"),
            environment: environment)
        #expect(r.status != 0)
        #expect(r.stdout.isEmpty)
        #expect(
            r.stderr
                == "lodestone: LODESTONE_BOARD=/nonexistent/board.json: no such board file; fix the variable or unset it to use the default board\n"
        )
    }
}
