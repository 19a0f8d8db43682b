import Foundation
import LodestoneDaemon
import LodestoneSockets
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Accounts from the system's databases: root, a user made for the test (CI runs as root), and what a policy makes
/// of them.
@Suite struct AccountsTests {
    @Test func rootIsRootInGroupRoot() {
        let root = Account.lookup(uid: 0, gid: 0)
        #expect(root.uid == 0)
        #expect(root.name == "root")
        #expect(root.groupNames.first == "root")
        #expect(Set(root.groupNames).count == root.groupNames.count)
        #expect(Account.userName(uid: 0) == "root")
        #expect(Account.groupName(gid: 0) == "root")
        #expect(Account.groupID(name: "root") == 0)
    }

    @Test func anUnknownUidHasNoNameAndAnUnknownGroupIsLeftOut() {
        // (uid_t) −2 and −3: no system assigns them (−1 is "no user"; 65534 is nobody).
        let ghost = Account.lookup(uid: 4_294_967_293, gid: 4_294_967_292)
        #expect(ghost == Account(uid: 4_294_967_293, name: nil, groupNames: []))
        #expect(Account.groupID(name: "no-such-group-\(getpid())") == nil)
        // A known group given as the peer's gid is named even when the uid is unknown.
        #expect(Account.lookup(uid: 4_294_967_293, gid: 0).groupNames == ["root"])
    }

    @Test(.enabled(if: Account.userName(uid: 65534) != nil)) func nobodyHasTheOverflowUid() {
        let nobody = Account.lookup(uid: 65534, gid: 65534)
        #expect(nobody.name == "nobody")
        #expect(nobody.uid == 65534)
    }

    @Test func rootThroughTheShippedPolicyGetsEverything() {
        let peer = PeerIdentity(
            uid: 0, gid: 0, pid: getpid(), executablePath: PeerIdentity.executable(ofPID: getpid()), address: "unix")
        let a = Policy.shipped.authorization(for: peer, account: Account.lookup(uid: 0, gid: 0))
        #expect(a.location == .always && a.accuracy == .full && a.motion)
    }

    static let canCreateUsers =
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/useradd")
        && FileManager.default.isExecutableFile(atPath: "/usr/sbin/groupadd")

    /// A user made for the test, in a group of its own and a supplementary one: the database's groups, the peer's
    /// gid first, and the shipped policy's group rule matching once the user is in `lodestone`.
    @Test(.enabled(if: canCreateUsers)) func aUserMadeForTheTestHasItsGroups() throws {
        let suffix = String(getpid() % 100_000)
        let user = "ldst-u\(suffix)"
        let primary = "ldst-p\(suffix)"
        let extra = "ldst-x\(suffix)"
        try run("/usr/sbin/groupadd", primary)
        defer { try? run("/usr/sbin/groupdel", primary) }
        try run("/usr/sbin/groupadd", extra)
        defer { try? run("/usr/sbin/groupdel", extra) }
        try run("/usr/sbin/useradd", "-M", "-N", "-g", primary, "-G", extra, "-s", "/usr/sbin/nologin", user)
        defer { try? run("/usr/sbin/userdel", user) }
        let entry = try #require(getpwnam(user))
        let uid = entry.pointee.pw_uid
        let gid = entry.pointee.pw_gid
        #expect(Account.groupID(name: primary) == gid)

        let account = Account.lookup(uid: uid, gid: gid)
        #expect(account.name == user)
        #expect(account.groupNames == [primary, extra])
        // A set-group-id program: the peer's gid is another group, listed first, the user's own still in.
        let setgid = Account.lookup(uid: uid, gid: 0)
        #expect(setgid.groupNames == ["root", primary, extra])

        let peer = PeerIdentity(uid: uid, gid: gid, pid: 1, executablePath: "/usr/bin/true", address: "unix")
        #expect(Policy.shipped.authorization(for: peer, account: account).motion == false)
        let policy = try Policy.parse("[[rule]]\ngroup = \"\(extra)\"\nmotion = true\n", origin: "p")
        #expect(policy.authorization(for: peer, account: account).decidedBy == "p:1 (group \(extra)), default")
    }

    private func run(_ tool: String, _ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }

    struct CommandFailure: Error, CustomStringConvertible { var description: String }
}
