import LodestoneDaemon
import LodestoneSockets
import Testing

/// Who gets what: executable rules over user and uid rules over group rules over [default], key by key, the last
/// matching rule of a level winning, keys a rule does not set falling through.
@Suite struct PolicyPrecedenceTests {
    static let text = """
        [default]
        location = "denied"
        accuracy = "reduced"
        motion = false

        [[rule]]                # 6
        group = "staff"
        location = "when-in-use"
        motion = true

        [[rule]]                # 11
        user = "alice"
        accuracy = "full"

        [[rule]]                # 15
        executable = "/usr/bin/nav"
        location = "always"

        [[rule]]                # 19
        group = "staff"
        location = "denied"

        [[rule]]                # 23
        uid = 1002
        location = "always"

        [[rule]]                # 27
        user = "dave"
        location = "when-in-use"

        [[rule]]                # 31
        executable = "/usr/bin/tracker"
        user = ["erin", "frank"]
        location = "always"
        accuracy = "full"

        [gpsd]                  # 37
        accuracy = "full"
        """

    let policy: Policy
    init() throws { policy = try Policy.parse(Self.text, origin: "p") }

    func decide(uid: UInt32, name: String?, groups: [String], executable: String? = "/usr/bin/other") -> Authorization {
        policy.authorization(
            for: PeerIdentity(uid: uid, gid: 100, pid: 4242, executablePath: executable, address: "unix"),
            account: Account(uid: uid, name: name, groupNames: groups))
    }

    @Test func eachKeyComesFromTheMostSpecificLevelThatSetsIt() {
        let a = decide(uid: 1000, name: "alice", groups: ["users", "staff"], executable: "/usr/bin/nav")
        #expect(a.location == .always) // executable (15) over group (19, 6)
        #expect(a.accuracy == .full) // user (11): the executable rule does not set it
        #expect(a.motion) // group (6): neither the executable nor the user rule sets it
        #expect(a.decidedBy == "p:15 (executable /usr/bin/nav), p:11 (user alice), p:6 (group staff)")
    }

    @Test func theLastMatchingRuleOfALevelWins() {
        let a = decide(uid: 1001, name: "bob", groups: ["staff"])
        #expect(a.location == .denied) // 19 after 6
        #expect(a.motion) // 19 does not set motion: 6 does, on the same level
        #expect(a.accuracy == .reduced) // nothing sets it: [default]
        #expect(a.decidedBy == "p:19 (group staff), p:6 (group staff), p:1 (default)")
    }

    @Test func uidAndUserRulesAreOneLevelInFileOrder() {
        // uid 1002 (23) and user dave (27) both match: the later wins.
        let a = decide(uid: 1002, name: "dave", groups: [])
        #expect(a.location == .whenInUse)
        #expect(a.decidedBy == "p:27 (user dave), p:1 (default)")
        #expect(decide(uid: 1002, name: "carol", groups: ["staff"]).location == .always) // uid 23 over group 19
    }

    @Test func unlistedClientsGetTheDefault() {
        let a = decide(uid: 1003, name: "carol", groups: ["users"])
        #expect(a == Authorization(location: .denied, accuracy: .reduced, motion: false, decidedBy: "p:1 (default)"))
    }

    @Test func everySelectorOfARuleMustMatchAndAnArrayMatchesAny() {
        #expect(decide(uid: 1005, name: "frank", groups: [], executable: "/usr/bin/tracker").location == .always)
        #expect(
            decide(uid: 1004, name: "erin", groups: [], executable: "/usr/bin/tracker").decidedBy.hasPrefix(
                "p:31 (executable /usr/bin/tracker and user erin)"))
        // The right program, another user; the right user, another program.
        #expect(decide(uid: 1003, name: "carol", groups: [], executable: "/usr/bin/tracker").location == .denied)
        #expect(decide(uid: 1005, name: "frank", groups: []).location == .denied)
    }

    @Test func withoutAnAccountOnlyUidAndExecutableRulesMatch() {
        let nav = policy.authorization(
            for: PeerIdentity(uid: 1000, gid: 100, pid: 1, executablePath: "/usr/bin/nav", address: "unix"), account: nil)
        #expect(nav.location == .always)
        #expect(nav.accuracy == .reduced) // the user rule for alice cannot match without a name
        #expect(nav.motion == false) // nor the group rule
        let byUID = policy.authorization(for: PeerIdentity(uid: 1002, gid: 100, address: "unix"), account: nil)
        #expect(byUID.location == .always)
    }

    @Test func anAccountOfAnotherUidLendsNothing() {
        let a = policy.authorization(
            for: PeerIdentity(uid: 1003, gid: 100, address: "unix"),
            account: Account(uid: 1000, name: "alice", groupNames: ["staff"]))
        #expect(a == Authorization(location: .denied, accuracy: .reduced, motion: false, decidedBy: "p:1 (default)"))
    }

    @Test func anUnreadableExecutableMatchesNoExecutableRule() {
        let a = decide(uid: 1000, name: "alice", groups: [], executable: nil)
        #expect(a.location == .denied)
        #expect(a.accuracy == .full)
    }

    @Test func aPeerWithoutCredentialsGetsTheDefault() {
        let a = policy.authorization(
            for: PeerIdentity(address: "unix"), account: Account(uid: 0, name: "root", groupNames: ["staff"]))
        #expect(
            a
                == Authorization(
                    location: .denied, accuracy: .reduced, motion: false, decidedBy: "p:1 (default) (no peer credentials)"))
    }

    @Test func theGpsdEndpointTakesItsTableOverTheBuiltInOne() {
        #expect(
            policy.gpsdEndpoint
                == Authorization(location: .whenInUse, accuracy: .full, motion: false, decidedBy: "p:37 (gpsd endpoint)"))
    }

    @Test func keysAbsentFromDefaultComeFromTheBuiltInDefault() throws {
        let policy = try Policy.parse("[default]\nmotion = true\n", origin: "p")
        #expect(
            policy.defaultAuthorization
                == Authorization(location: .denied, accuracy: .reduced, motion: true, decidedBy: "p:1 (default)"))
        let none = try Policy.parse("[[rule]]\nuid = 5\nmotion = true\n", origin: "p")
        let a = none.authorization(for: PeerIdentity(uid: 5, address: "unix"), account: nil)
        #expect(a == Authorization(location: .denied, accuracy: .reduced, motion: true, decidedBy: "p:1 (uid 5), default"))
    }

    /// A slow, obviously correct reference: for each key, scan the levels from the most specific, and within one
    /// the matching rules from the last; compared with `authorization(for:account:)` over every combination of
    /// who the client is.
    @Test func agreesWithAKeyByKeyReferenceOverEveryClient() {
        let uids: [UInt32] = [0, 1000, 1001, 1002, 1003, 1004, 1005]
        let names: [String?] = [nil, "alice", "bob", "dave", "erin", "frank"]
        let groupSets: [[String]] = [[], ["staff"], ["users", "staff"]]
        let executables: [String?] = [nil, "/usr/bin/nav", "/usr/bin/tracker", "/usr/bin/other"]
        for uid in uids {
            for name in names {
                for groups in groupSets {
                    for executable in executables {
                        let peer = PeerIdentity(uid: uid, gid: 100, executablePath: executable, address: "unix")
                        let account = Account(uid: uid, name: name, groupNames: groups)
                        let matching = policy.rules.filter { rule in
                            (rule.executables.isEmpty || executable.map { rule.executables.contains($0) } == true)
                                && (rule.uids.isEmpty || rule.uids.contains(uid))
                                && (rule.users.isEmpty || name.map { rule.users.contains($0) } == true)
                                && (rule.groups.isEmpty || rule.groups.contains { groups.contains($0) })
                        }
                        func reference<T>(_ key: (Policy.Rule) -> T?, _ fallback: T) -> T {
                            for level in [Policy.Rule.Level.executable, .user, .group] {
                                if let v = matching.filter({ $0.level == level }).reversed().lazy.compactMap(key).first {
                                    return v
                                }
                            }
                            return fallback
                        }
                        let a = policy.authorization(for: peer, account: account)
                        #expect(a.location == reference(\.location, .denied), "\(peer) \(account)")
                        #expect(a.accuracy == reference(\.accuracy, .reduced), "\(peer) \(account)")
                        #expect(a.motion == reference(\.motion, false), "\(peer) \(account)")
                    }
                }
            }
        }
    }
}
