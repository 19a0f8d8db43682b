extension Policy {
    /// The text of the shipped policy, `packaging/policy.toml` (installed as `/etc/lodestone/policy.toml`); a test
    /// keeps the two equal.
    ///
    /// Unlisted clients get no location and no motion; root gets everything (it can read the buses anyway); members
    /// of the `lodestone` group (`DaemonDefaults.group`) get motion; the gpsd endpoint gets reduced location while in
    /// use and no motion, since every local user can connect to it.
    public static let shippedText = """
        # /etc/lodestone/policy.toml: who may see what from `lodestone serve`.
        #
        # Core Location's model. A client's location access is "denied", "when-in-use" (positions only for the
        # subscriptions it marks foreground: a person is looking) or "always"; its accuracy "full" or "reduced" (the
        # centre of a fixed 5 km grid cell, no altitude, speed or course, at most one position per 15 minutes);
        # motion covers heading, device motion, activity, steps, altitude and the raw sensors.
        #
        # Who a client is: the kernel tells the daemon the uid, gid and pid of each client of its Unix socket
        # (SO_PEERCRED), and the daemon reads the client's executable from /proc/PID/exe; the client says nothing.
        # Key by key, the most specific matching rule decides:
        #     executable rules, then user and uid rules, then group rules, then [default]
        # and among the matching rules of one kind, the last one in this file. A key a rule does not set comes from
        # the next less specific kind. An unknown table, key or value is an error: the daemon refuses the file.
        # Restart the daemon after editing; `docs/policy.md` describes all of it.

        [default]                  # clients no rule matches
        location = "denied"        # denied | when-in-use | always
        accuracy = "reduced"       # full | reduced
        motion = false             # heading, device motion, activity, pedometer, altitude, raw sensors

        [gpsd]                     # the gpsd endpoint (TCP port 2947 on loopback): it has no peer credentials,
                                   # so every local user gets what this table says
        location = "when-in-use"   # a gpsd client watches while someone looks at it
        accuracy = "reduced"       # "full" would give every local user the exact position
        motion = false             # attitude (ATT); true would give every local user what the group below grants

        [[rule]]                   # root: it can read the buses and the receiver itself, so withholding protects nothing
        uid = 0
        location = "always"
        accuracy = "full"
        motion = true

        [[rule]]                   # members of the lodestone group: motion; location stays as [default] says
        group = "lodestone"
        motion = true

        # Examples: uncomment and adapt.
        #
        # [[rule]]                 # everyone in the group "navigation": exact positions while in use
        # group = "navigation"
        # location = "when-in-use"
        # accuracy = "full"
        #
        # [[rule]]                 # a tracker running as its own system user, in the background too
        # user = "tracker"
        # location = "always"
        # accuracy = "full"
        #
        # [[rule]]                 # this program, whoever runs it (docs/policy.md says what this proves and what not)
        # executable = "/usr/bin/foxtrotgps"
        # location = "when-in-use"
        # accuracy = "full"

        """

    /// How `decidedBy` and errors name the shipped policy.
    public static let shippedOrigin = "shipped policy.toml"

    /// The shipped policy (`shippedText`): what the server falls back to when `/etc/lodestone/policy.toml` is missing.
    public static let shipped: Policy = {
        do {
            return try parse(shippedText, origin: shippedOrigin)
        } catch {
            // A programmer error, caught by PolicyShippedTests before it could ship.
            fatalError("the shipped policy does not parse: \(error)")
        }
    }()
}
