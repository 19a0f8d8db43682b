import LodestoneDaemon
import Testing

/// The policy file's format: what it accepts, and every refusal with its line and what was expected.
@Suite struct PolicyParsingTests {
    /// A file and the one line its error must be.
    struct Refusal: CustomTestStringConvertible, Sendable {
        var text: String
        var error: String
        var testDescription: String { error }
    }

    static let refusals: [Refusal] = [
        // Tables.
        Refusal(
            text: "[default]\nacuracy = \"full\"\n",
            error: #"policy.toml:2: unknown key "acuracy" (expected location, accuracy, motion)"#),
        Refusal(
            text: "[gpsd]\nuser = \"alice\"\n",
            error:
                #"policy.toml:2: unknown key "user" (expected location, accuracy, motion); whom a policy applies to is said in [[rule]] tables"#
        ),
        Refusal(text: "[defaults]\n", error: "policy.toml:1: unknown table [defaults] (expected [default], [gpsd] or [[rule]])"),
        Refusal(text: "[[rules]]\n", error: "policy.toml:1: unknown table [[rules]] (expected [default], [gpsd] or [[rule]])"),
        Refusal(
            text: "[rule]\ngroup = \"x\"\nmotion = true\n",
            error: "policy.toml:1: [rule] is one of a list of rules: write [[rule]]"),
        Refusal(text: "[[default]]\n", error: "policy.toml:1: [[default]] is a single table: write [default]"),
        Refusal(text: "[default]\n\n[default]\n", error: "policy.toml:3: [default] given twice (first at line 1)"),
        Refusal(text: "[gpsd]\n[default]\n[gpsd]\n", error: "policy.toml:3: [gpsd] given twice (first at line 1)"),
        Refusal(text: "[default.x]\n", error: "policy.toml:1: dotted table names are not part of the policy format: [default.…]"),
        Refusal(
            text: "[default\n",
            error: #"policy.toml:1: expected "]" to close the table name "default", found the end of the line"#),
        Refusal(
            text: "[[rule]\n", error: #"policy.toml:1: expected "]]" to close the table name "rule", found the end of the line"#),
        Refusal(text: "[]\n", error: #"policy.toml:1: expected a table name ([default], [gpsd] or [[rule]]), found "]""#),
        Refusal(text: "[default] x\n", error: #"policy.toml:1: expected the end of the line after the table name, found "x""#),
        Refusal(
            text: "# a policy\nlocation = \"denied\"\n",
            error: "policy.toml:2: key \"location\" outside a table (start with [default], [gpsd] or [[rule]])"),
        // Keys.
        Refusal(
            text: "[default]\nmotion = true\nmotion = false\n",
            error: #"policy.toml:3: "motion" given twice in [default] (first at line 2)"#),
        Refusal(
            text: "[[rule]]\nuser = \"alice\"\nuser = \"bob\"\nmotion = true\n",
            error: #"policy.toml:3: "user" given twice in this rule (first at line 2)"#),
        Refusal(
            text: "[[rule]]\nusr = \"alice\"\n",
            error: #"policy.toml:2: unknown key "usr" (expected executable, user, uid, group, location, accuracy, motion)"#),
        Refusal(
            text: "[default]\nlocation.x = 1\n", error: "policy.toml:2: dotted keys are not part of the policy format: location.…"
        ),
        Refusal(
            text: "[default]\n\"location\" = \"denied\"\n",
            error: "policy.toml:2: quoted keys are not part of the policy format: write the key bare (location = …)"),
        Refusal(
            text: "[default]\nlocation \"denied\"\n",
            error: #"policy.toml:2: expected "=" after the key "location", found ""denied"""#),
        Refusal(
            text: "[default]\n= \"denied\"\n",
            error: #"policy.toml:2: expected a key, a [table] or a comment, found "= "denied"""#),
        // Values.
        Refusal(
            text: "[default]\nlocation = \"allways\"\n",
            error: #"policy.toml:2: "location" must be "denied", "when-in-use" or "always", not "allways""#),
        Refusal(
            text: "[default]\nlocation = true\n",
            error: #"policy.toml:2: "location" must be "denied", "when-in-use" or "always", not a boolean (true)"#),
        Refusal(
            text: "[gpsd]\naccuracy = \"exact\"\n", error: #"policy.toml:2: "accuracy" must be "full" or "reduced", not "exact""#),
        Refusal(
            text: "[default]\nmotion = \"true\"\n", error: #"policy.toml:2: "motion" must be true or false, unquoted, not "true""#
        ),
        Refusal(text: "[default]\nmotion = 1\n", error: #"policy.toml:2: "motion" must be true or false, not 1"#),
        Refusal(
            text: "[default]\nlocation = denied\n",
            error: #"policy.toml:2: expected a value for "location", found denied (strings are quoted: "denied")"#),
        Refusal(
            text: "[default]\nlocation =\n", error: #"policy.toml:2: expected a value for "location", found the end of the line"#),
        Refusal(
            text: "[default]\nlocation = # none\n", error: ##"policy.toml:2: expected a value for "location", found "# none""##),
        Refusal(
            text: "[default]\nlocation = \"denied\" motion = true\n",
            error: #"policy.toml:2: expected the end of the line after the value of "location", found "motion = true""#),
        Refusal(
            text: "[default]\nlocation = \"denied\n", error: #"policy.toml:2: a string not closed (") before the end of the line"#
        ),
        Refusal(
            text: "[default]\nlocation = 'denied\n", error: "policy.toml:2: a string not closed (') before the end of the line"),
        Refusal(
            text: "[default]\nlocation = \"\\q\"\n",
            error: #"policy.toml:2: unknown escape \q in a string (TOML's are \" \\ \b \t \n \f \r \uXXXX \UXXXXXXXX)"#),
        Refusal(text: "[default]\nlocation = \"\\u12\"\n", error: #"policy.toml:2: \u takes 4 hexadecimal digits"#),
        Refusal(
            text: "[default]\naccuracy = 1.5\n",
            error:
                "policy.toml:2: 1.5 is not a whole number (floats, dates, hexadecimal and such are not part of the policy format)"
        ),
        Refusal(
            text: "[[rule]]\nuid = 007\n",
            error:
                "policy.toml:2: 007 is not a whole number (floats, dates, hexadecimal and such are not part of the policy format)"
        ),
        Refusal(
            text: "[default]\nmotion = { on = true }\n",
            error:
                #"policy.toml:2: inline tables are not part of the policy format (values are "strings", true, false, whole numbers and [arrays] of them)"#
        ),
        Refusal(
            text: "[default]\nlocation = \"\"\"denied\"\"\"\n",
            error:
                #"policy.toml:2: multi-line strings are not part of the policy format (values are "strings", true, false, whole numbers and [arrays] of them)"#
        ),
        Refusal(text: "[[rule]]\nuid = [[0]]\n", error: "policy.toml:2: arrays of arrays are not part of the policy format"),
        Refusal(
            text: "[[rule]]\nuser = [\"alice\",\n  \"bob\"\nmotion = true\n",
            error: #"policy.toml:4: expected "," or "]" in the array of "user", found "motion = true""#),
        Refusal(
            text: "[[rule]]\nuser = [\"alice\",\n",
            error: #"policy.toml:3: the array of "user" opened at line 2 is not closed (])"#),
        Refusal(
            text: "[default]\nmotion = true\rlocation = \"denied\"\n",
            error: "policy.toml:2: a carriage return not followed by a line feed"),
        Refusal(
            text: "[default]\nmotion = true # a\u{07}bell\n", error: "policy.toml:2: a control character (U+0007) in a comment"),
        // Rules.
        Refusal(
            text: "[[rule]]\nmotion = true\n",
            error: "policy.toml:1: this rule names no client (give executable, user, uid or group)"),
        Refusal(
            text: "[default]\n[[rule]]\ngroup = \"x\"\n",
            error: "policy.toml:2: this rule sets nothing (give location, accuracy or motion)"),
        Refusal(
            text: "[[rule]]\nexecutable = \"foxtrotgps\"\nmotion = true\n",
            error: #"policy.toml:2: "executable" must be an absolute path, not "foxtrotgps""#),
        Refusal(
            text: "[[rule]]\nexecutable = [\"/usr/bin/a\", 1]\nmotion = true\n",
            error: #"policy.toml:2: "executable" must be an absolute path in quotes (or an array of them), not 1"#),
        Refusal(text: "[[rule]]\nuser = \"\"\nmotion = true\n", error: #"policy.toml:2: "user" must be a user name, not """#),
        Refusal(
            text: "[[rule]]\ngroup = []\nmotion = true\n",
            error: #"policy.toml:2: "group" is an empty array: this rule would match no one"#),
        Refusal(
            text: "[[rule]]\nuid = -1\nmotion = true\n",
            error: #"policy.toml:2: "uid" must be a whole number from 0 to 4294967294 (or an array of them), not -1"#),
        Refusal(
            text: "[[rule]]\nuid = 4294967295\nmotion = true\n",
            error: #"policy.toml:2: "uid" must be a whole number from 0 to 4294967294 (or an array of them), not 4294967295"#),
        Refusal(
            text: "[[rule]]\nuid = \"1000\"\nmotion = true\n",
            error: #"policy.toml:2: "uid" must be a whole number from 0 to 4294967294 (or an array of them), not "1000""#),
        Refusal(
            text: "[[rule]]\nuid = 99999999999999999999\nmotion = true\n",
            error:
                "policy.toml:2: 99999999999999999999 is not a whole number (floats, dates, hexadecimal and such are not part of the policy format)"
        )
    ]

    @Test(arguments: refusals) func refusesWithTheLineAndWhatWasExpected(_ refusal: Refusal) {
        let error = policyError { _ = try Policy.parse(refusal.text, origin: "policy.toml") }
        #expect(error?.description == refusal.error)
        #expect(error?.kind == .invalid)
        #expect(error?.file == "policy.toml")
    }

    @Test func anEmptyFileIsTheBuiltInDefaults() throws {
        for text in ["", "\n\n", "# nothing but a comment\n", "   \t\n"] {
            let policy = try Policy.parse(text, origin: "policy.toml")
            #expect(policy.defaultAuthorization == Policy.builtInDefault)
            #expect(policy.gpsdEndpoint == Policy.builtInGpsdEndpoint)
            #expect(policy.rules.isEmpty)
        }
        #expect(Policy.builtInDefault.location == .denied)
        #expect(Policy.builtInDefault.motion == false)
        #expect(Policy.builtInGpsdEndpoint.accuracy == .reduced)
    }

    @Test func readsTheWholeSubset() throws {
        let text = """
            \u{FEFF}# a byte-order mark, comments, blank lines, CRLF, literal and escaped strings, arrays over lines\r
            \r
              [ default ]   # spaces inside the brackets, as TOML allows\r
            location = 'when-in-use'\r
            motion=true\r
            [[rule]]
            user = [
                "alice",   # a comment in an array
                'bob',
                "c\\u0061rol",
            ]
            uid = [0, 1_000, +2]
            executable = "/opt/my app/bin/nav"
            accuracy = "full"
            [gpsd]
            location = "denied"
            """
        let policy = try Policy.parse(text, origin: "p")
        #expect(
            policy.defaultAuthorization
                == Authorization(location: .whenInUse, accuracy: .reduced, motion: true, decidedBy: "p:3 (default)"))
        #expect(
            policy.gpsdEndpoint
                == Authorization(location: .denied, accuracy: .reduced, motion: false, decidedBy: "p:15 (gpsd endpoint)"))
        #expect(
            policy.rules == [
                Policy.Rule(
                    line: 6, executables: ["/opt/my app/bin/nav"], users: ["alice", "bob", "carol"], uids: [0, 1000, 2],
                    accuracy: .full)
            ])
        #expect(policy.rules.first?.level == .executable)
    }

    @Test func aRuleLevelIsItsMostSpecificSelector() {
        #expect(Policy.Rule(line: 1, groups: ["g"]).level == .group)
        #expect(Policy.Rule(line: 1, uids: [1], groups: ["g"]).level == .user)
        #expect(Policy.Rule(line: 1, users: ["u"]).level == .user)
        #expect(Policy.Rule(line: 1, executables: ["/x"], users: ["u"]).level == .executable)
    }
}

/// The policy error `body` throws, or nil — recorded as an issue — when it throws none. (`#expect(throws:)` returns the
/// error only from Swift 6.1 on; Debian 13's Swift is 6.0.3.)
func policyError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> PolicyError? {
    do {
        try body()
    } catch let error as PolicyError {
        return error
    } catch {
        Issue.record("expected a PolicyError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
    Issue.record("expected a PolicyError, none was thrown", sourceLocation: sourceLocation)
    return nil
}
