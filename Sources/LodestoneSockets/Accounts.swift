#if canImport(Glibc)
    import Glibc
#endif

/// A local user as the system's account databases (passwd, group: `/etc/passwd`, `/etc/group`, or whatever NSS is
/// configured with) describe it: what the daemon's authorization policy matches `user` and `group` rules against.
public struct Account: Sendable, Hashable {
    /// The user's id (the peer's `SO_PEERCRED` uid).
    public var uid: UInt32
    /// The user's login name (`getpwuid_r`); `nil` when the uid has no passwd entry (a container's or systemd's
    /// dynamic user, a deleted account).
    public var name: String?
    /// Names of the groups the user is in: the peer's own gid first, then the user's supplementary groups in the
    /// group database (`getgrouplist`), without repeats. Groups without a name (a gid with no group entry) are left out.
    public var groupNames: [String]

    /// An account as given (tests, and a server that learns groups another way).
    public init(uid: UInt32, name: String?, groupNames: [String]) {
        self.uid = uid; self.name = name; self.groupNames = groupNames
    }

    /// The account of `uid`, with the name of `gid` (the peer's group at `connect()`) and the user's supplementary
    /// groups from the group database.
    ///
    /// The supplementary groups are the database's (as `id USER` prints them), not the peer process's own: a user
    /// added to a group counts as a member at once, without logging in again, and a process that dropped its
    /// supplementary groups still counts as a member. The peer's gid is the process's own, so a set-group-id
    /// program counts as a member of its group.
    ///
    /// Blocks while NSS answers (a file read for local accounts; a network round trip with LDAP or SSSD). Never
    /// fails: an unknown uid gives an account with no name, and an unknown group is left out.
    public static func lookup(uid: UInt32, gid: UInt32) -> Account {
        let name = userName(uid: uid)
        var gids: [UInt32] = [gid]
        if let name {
            for g in supplementaryGroupIDs(userName: name, gid: gid) where !gids.contains(g) { gids.append(g) }
        }
        var names: [String] = []
        for g in gids {
            if let n = groupName(gid: g), !names.contains(n) { names.append(n) }
        }
        return Account(uid: uid, name: name, groupNames: names)
    }

    /// The login name of `uid` (`getpwuid_r`), or `nil` when it has none.
    public static func userName(uid: UInt32) -> String? {
        withGrowingBuffer(sizeHint: Int(_SC_GETPW_R_SIZE_MAX)) { buffer, size in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            let rc = getpwuid_r(uid, &entry, buffer, size, &result)
            if rc == ERANGE { return .grow }
            guard rc == 0, result != nil, let p = entry.pw_name else { return .done(nil) }
            return .done(String(cString: p))
        }
    }

    /// The name of group `gid` (`getgrgid_r`), or `nil` when it has none.
    public static func groupName(gid: UInt32) -> String? {
        withGrowingBuffer(sizeHint: Int(_SC_GETGR_R_SIZE_MAX)) { buffer, size in
            var entry = group()
            var result: UnsafeMutablePointer<group>? = nil
            let rc = getgrgid_r(gid, &entry, buffer, size, &result)
            if rc == ERANGE { return .grow }
            guard rc == 0, result != nil, let p = entry.gr_name else { return .done(nil) }
            return .done(String(cString: p))
        }
    }

    /// The id of the group named `name` (`getgrnam_r`), or `nil` when there is none.
    public static func groupID(name: String) -> UInt32? {
        withGrowingBuffer(sizeHint: Int(_SC_GETGR_R_SIZE_MAX)) { buffer, size in
            var entry = group()
            var result: UnsafeMutablePointer<group>? = nil
            let rc = getgrnam_r(name, &entry, buffer, size, &result)
            if rc == ERANGE { return .grow }
            guard rc == 0, result != nil else { return .done(nil) }
            return .done(entry.gr_gid)
        }
    }

    /// The groups of user `userName` in the group database, `gid` among them (`getgrouplist`).
    static func supplementaryGroupIDs(userName: String, gid: UInt32) -> [UInt32] {
        var count: Int32 = 32
        // getgrouplist returns −1 and the count it needs when the array is too small; a group added between the two
        // calls makes it short again, hence the loop (bounded: NGROUPS_MAX is 65536 on Linux).
        for _ in 0..<4 {
            var gids = [gid_t](repeating: 0, count: Int(count))
            var n = count
            if getgrouplist(userName, gid, &gids, &n) >= 0 { return Array(gids.prefix(Int(max(0, n)))) }
            guard n > count, n <= 65_536 else { return [] }
            count = n
        }
        return []
    }
}

private enum BufferStep<T> {
    case grow
    case done(T)
}

/// Calls `body` with a byte buffer for a `get*_r` call, doubling it on ERANGE up to 1 MiB (group entries of large
/// groups outgrow `sysconf`'s hint, which may also be −1).
private func withGrowingBuffer<T>(sizeHint: Int, _ body: (UnsafeMutablePointer<CChar>, Int) -> BufferStep<T?>) -> T? {
    let hint = sysconf(Int32(sizeHint))
    var size = hint > 0 ? min(Int(hint), 1 << 20) : 1024
    while size <= 1 << 20 {
        var buffer = [CChar](repeating: 0, count: size)
        switch buffer.withUnsafeMutableBufferPointer({ body($0.baseAddress!, $0.count) }) {
        case .grow: size *= 2
        case .done(let value): return value
        }
    }
    return nil
}
