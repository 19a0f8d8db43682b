import Foundation
import Testing

/// Issue 15: the policy enforced in the daemon, proven with a second, real, unprivileged user. The built `lodestone
/// serve` runs as root on the simulated board; its clients run as `nobody` (`SecondUser`), so the daemon knows them
/// only by what the kernel says of them (`SO_PEERCRED`).
///
/// Each policy gives `[default]` everything: were the daemon to miss who the second user is, that user would get
/// exact positions and motion, and the tests would fail.
@Suite(.serialized, .enabled(if: SecondUser.skipReason == nil, Comment(rawValue: SecondUser.skipReason ?? "")))
struct SecondUserTests {
    typealias R = GPSDClientRunner

    /// A policy: `[default]` and root get everything; the second user gets what `rule` sets.
    static func policy(for user: SecondUser, _ rule: String) -> String {
        """
        [default]
        location = "always"
        accuracy = "full"
        motion = true

        [[rule]]
        uid = 0
        location = "always"
        accuracy = "full"
        motion = true

        [[rule]]
        user = "\(user.name)"
        \(rule)
        """
    }

    /// The second user's entry in the daemon's list of clients, once it has connected (at most `timeoutS`).
    static func entry(of user: SecondUser, in serve: SecondUserServe, timeoutS: Double) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeoutS)
        while true {
            let clients = try await serve.clients()
            if let e = clients.first(where: { ($0["uid"] as? NSNumber)?.uint32Value == user.uid }) { return e }
            if Date() >= deadline {
                Issue.record("no client with uid \(user.uid) in the daemon's list: \(clients)")
                throw CancellationError()
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Lines of JSON objects (anything else is a failure, recorded).
    static func objects(_ text: String, from what: String) -> [[String: Any]] {
        R.lines(text).compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("\(what): not a JSON object: \(line)")
                return nil
            }
            return o
        }
    }

    // MARK: - Denied

    /// A client whose location and motion are denied gets its authorization and nothing else: every subscription
    /// (every kind, a one-shot request too) is answered with `authorizationDenied` or a `denied` error, never a
    /// coordinate, heading or sample; the clients list is refused to it; and the daemon names it by its uid.
    @Test func aDeniedSecondUserGetsNothingButItsStatus() async throws {
        let user = try SecondUser.nobody()
        let serve = try await SecondUserServe.start(
            policy: Self.policy(for: user, "location = \"denied\"\nmotion = false"), scenario: "drive", speed: 10, seed: 15)
        defer { serve.stop() }
        let dir = serve.dir

        // A raw client as the second user: every line the daemon sends it, for 8 s (80 s of the drive).
        let raw = try user.start(R.python, ["-c", SecondUser.rawClientScript, serve.socketPath, "8"], in: dir, name: "raw")
        defer { R.stop(raw) }

        // While it is connected, the daemon lists it by the kernel's uid, with the denial the rule for it decided.
        let e = try await Self.entry(of: user, in: serve, timeoutS: 6)
        #expect(e["user"] as? String == user.name)
        let listed = try #require(e["authorization"] as? [String: Any])
        #expect(listed["location"] as? String == "denied")
        #expect(listed["motion"] as? Bool == false)
        #expect((listed["decided_by"] as? String)?.contains("(user \(user.name))") == true, "\(listed)")

        // `lodestone watch` as the second user: the denied location update, and nothing for the heading.
        let watch = try await user.run(
            serve.executable, ["watch", "--socket", serve.socketPath, "--location", "--heading", "--json", "--count", "5"],
            timeoutS: 30, in: dir)
        #expect(watch.status == 0 && !watch.timedOut, "watch as \(user): \(watch.stderr)")
        let printed = Self.objects(watch.stdout, from: "watch")
        #expect(printed.count == 1, "watch as \(user) printed: \(watch.stdout)")
        for u in printed {
            let location = u["location"] as? [String: Any]
            #expect(location?["authorizationDenied"] as? Bool == true, "\(u)")
            #expect(location?["location"] == nil, "a coordinate for a denied client: \(u)")
            #expect(u["heading"] == nil)
        }

        let rawStatus = await R.waitForExit(raw, timeoutS: 30)
        let rawOut = (try? String(contentsOf: dir.appendingPathComponent("raw.out"), encoding: .utf8)) ?? ""
        let rawErr = (try? String(contentsOf: dir.appendingPathComponent("raw.err"), encoding: .utf8)) ?? ""
        #expect(rawStatus.status == 0 && !rawStatus.timedOut, "raw client: \(rawErr)")
        let lines = Self.objects(rawOut, from: "raw client")
        // The client ran as the second user: the ids it reported of itself, before it connected.
        let ids = try #require(lines.first, "the raw client printed nothing: \(rawErr)")
        #expect(ids["class"] as? String == "IDS")
        #expect((ids["uid"] as? NSNumber)?.uint32Value == user.uid && (ids["euid"] as? NSNumber)?.uint32Value == user.uid)
        #expect((ids["gid"] as? NSNumber)?.uint32Value == user.gid && (ids["egid"] as? NSNumber)?.uint32Value == user.gid)
        #expect((ids["groups"] as? [Any])?.isEmpty == true, "supplementary groups: \(ids)")
        let messages = lines.dropFirst()
        let classes = messages.map { $0["class"] as? String ?? "?" }
        #expect(classes.first == "VERSION" && classes.dropFirst().first == "AUTHORIZATION", "\(classes)")
        for m in messages where m["class"] as? String == "AUTHORIZATION" {
            #expect(m["location"] as? String == "denied" && m["motion"] as? Bool == false, "\(m)")
        }
        // Subscriptions 1 (location) and 8 (request) get one denied update and end; 2…7 (heading, motion, activity,
        // pedometer, altitude, sensors) an ERROR denied; the clients list an ERROR not-permitted.
        var denied: Set<Int> = []
        var ended: Set<Int> = []
        var errors: [Int: String] = [:]
        var clientsRefused = false
        for m in messages {
            let id = (m["id"] as? NSNumber)?.intValue ?? -1
            switch m["class"] as? String {
            case "VERSION", "AUTHORIZATION", "SUBSCRIBED": break
            case "UPDATE":
                let location = m["location"] as? [String: Any]
                #expect(
                    m.keys.sorted() == ["class", "id", "location"] && location?["authorizationDenied"] as? Bool == true
                        && location?["location"] == nil, "an update to a denied client: \(m)")
                denied.insert(id)
            case "ENDED": ended.insert(id)
            case "ERROR":
                if m["id"] == nil, m["code"] as? String == "not-permitted" {
                    clientsRefused = true
                } else {
                    errors[id] = m["code"] as? String
                }
            default: Issue.record("unexpected message to a denied client: \(m)")
            }
        }
        #expect(denied == [1, 8] && ended == [1, 8], "denied updates \(denied.sorted()), ended \(ended.sorted())")
        #expect(errors == [2: "denied", 3: "denied", 4: "denied", 5: "denied", 6: "denied", 7: "denied"], "\(errors)")
        #expect(clientsRefused, "the clients list was not refused to \(user)")
        #expect(!rawOut.contains("latitude") && !rawOut.contains("longitude"), "a coordinate in: \(rawOut)")

        // The control: root, in the same daemon and minute, gets coordinates. One update: a location stream pauses while
        // the carrier rests (the scenario's carrier may be at rest by now), so a count of more might never be reached.
        let root = try await R.run(
            serve.executable, ["watch", "--socket", serve.socketPath, "--location", "--json", "--count", "1"], timeoutS: 120,
            in: dir)
        #expect(
            root.status == 0 && !root.timedOut,
            "watch as root: status \(root.status), timed out \(root.timedOut); \(root.stderr); output: \(root.stdout)")
        #expect(
            Self.objects(root.stdout, from: "root's watch").contains { (($0["location"] as? [String: Any])?["location"]) != nil },
            "root got no position: \(root.stdout)")
    }

    // MARK: - Reduced

    /// The drive: the first 40 minutes of `hour-errands` (from Zurich: 5 min at rest indoors, walks and a wait outdoors,
    /// then a whole 10-minute drive of 7.2 km at 12 m/s, a shop indoors and the drive back), at up to 200 × real time.
    /// Long enough for two positions 15 min apart even when the first is late (a CI run under load released its first
    /// only after the fixes had begun, and the 26 minutes it used to run then held one), and the drives cross cell edges
    /// (both asserted below, so the checks cannot pass for want of updates).
    static let drive = (scenario: "hour-errands", untilS: 2400.0, speed: 200.0, seed: UInt64(15))
    /// The simulated board's sensors at a quarter of their rates or less (IMU 100 → 25 Hz, magnetometer 40 → 10 Hz,
    /// barometer 25 → 5 Hz): the debug engine then runs the drive at about 90 × real time on one core instead of 40 ×
    /// (about 20 s instead of 40 s); what a client may see does not depend on the rates.
    static let driveSensorRatesHz: [String: Double] = ["imu": 25, "mag": 10, "baro": 5]
    /// How often the second user connects again, s of session time.
    static let reconnectionIntervalS = 200.0

    /// One location update of `lodestone watch --json`.
    struct Position {
        /// The update's session time, s.
        var timeS: Double
        /// The position's own session time, s.
        var locationTimeS: Double
        var latitudeDeg: Double
        var longitudeDeg: Double
        var horizontalAccuracyM: Double
        var accuracyLimited: Bool
        /// The keys of the location object (which of altitude, speed, course… are there).
        var keys: Set<String>
        var line: String

        /// The position of an `UPDATE` with a location, or nil.
        init?(_ u: [String: Any]) {
            guard let update = u["location"] as? [String: Any], let l = update["location"] as? [String: Any],
                let c = l["coordinate"] as? [String: Any], let t = (update["timeS"] as? NSNumber)?.doubleValue,
                let lt = (l["timeS"] as? NSNumber)?.doubleValue, let la = (c["latitudeDeg"] as? NSNumber)?.doubleValue,
                let lo = (c["longitudeDeg"] as? NSNumber)?.doubleValue,
                let h = (l["horizontalAccuracyM"] as? NSNumber)?.doubleValue
            else { return nil }
            timeS = t; locationTimeS = lt; latitudeDeg = la; longitudeDeg = lo; horizontalAccuracyM = h
            accuracyLimited = update["accuracyLimited"] as? Bool ?? false
            keys = Set(l.keys)
            line =
                String(data: (try? JSONSerialization.data(withJSONObject: u, options: [.sortedKeys])) ?? Data(), encoding: .utf8)
                ?? ""
        }

        var cell: ReferenceGrid.Cell { ReferenceGrid.cell(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg) }
        var isCellCentre: Bool { cell.isCentre(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg) }
    }

    /// What a reduced location must not carry: altitude (MSL, ellipsoidal), vertical accuracy, speed, course, climb,
    /// their accuracies, floor.
    static func forbiddenKeys(_ keys: Set<String>) -> [String] {
        keys.filter { k in ["altitude", "vertical", "speed", "course", "climb", "floor"].contains { k.lowercased().contains($0) }
        }
        .sorted()
    }

    /// Over a whole simulated drive, a client with reduced accuracy sees only centres of the 5 km grid's cells (the
    /// cell the car is in, as root's exact track at the same instant shows), with a horizontal accuracy of at least the
    /// cell's size, no altitude, speed or course, and at most one position per 15 min of session time — also when it
    /// connects again and again. Root, in the same daemon and drive, gets exact positions that are not cell centres. The
    /// gpsd endpoint (`--gpsd-access reduced`), read with gpspipe as the second user, likewise.
    @Test func aReducedSecondUserSeesOnlyCellCentresAtMostEvery15MinutesOverAWholeDrive() async throws {
        let user = try SecondUser.nobody()
        try R.require(["gpspipe"])
        let gpspipe = R.which("gpspipe") ?? "/usr/bin/gpspipe"
        let clock = ContinuousClock()
        let started = clock.now
        let portDir = try R.temporaryDirectory("lodestone-second-user-port")
        let port = try await LodestoneServe.freePort(in: portDir)
        try? FileManager.default.removeItem(at: portDir)
        let gpsd = "127.0.0.1:\(port)"
        let serve = try await SecondUserServe.start(
            policy: Self.policy(for: user, "location = \"always\"\naccuracy = \"reduced\"\nmotion = false"),
            scenario: Self.drive.scenario, speed: Self.drive.speed, seed: Self.drive.seed, sensorRatesHz: Self.driveSensorRatesHz,
            gpsdListen: gpsd, gpsdAccess: "reduced")
        defer { serve.stop() }
        let dir = serve.dir
        // The gpsd endpoint, read by Debian's gpspipe as the second user (the endpoint cannot tell users apart).
        let pipe = try user.start(gpspipe, ["-w", gpsd], in: dir, name: "gpspipe")
        defer { R.stop(pipe) }
        let watch = ["watch", "--socket", serve.socketPath, "--json"]
        // Root's altitude updates come once a second whatever the car does: the session's clock, read from outside.
        let root = try R.start(serve.executable, watch + ["--location", "--altitude"], in: dir, name: "root")
        defer { R.stop(root) }
        let reduced = try user.start(serve.executable, watch + ["--location"], in: dir, name: "reduced")
        defer { R.stop(reduced) }

        let e = try await Self.entry(of: user, in: serve, timeoutS: 10)
        let listed = try #require(e["authorization"] as? [String: Any])
        #expect(listed["location"] as? String == "always" && listed["accuracy"] as? String == "reduced", "\(listed)")
        #expect(listed["motion"] as? Bool == false)

        // Until the drive is over; meanwhile the second user connects again every `reconnectionIntervalS` for a moment,
        // as a client would that tried to get fresh positions past the 15-minute limit.
        func sessionTimeS() -> Double {
            let text = (try? String(contentsOf: dir.appendingPathComponent("root.out"), encoding: .utf8)) ?? ""
            return R.lines(text).suffix(4).compactMap { line -> Double? in
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                return ((o["altitude"] as? [String: Any])?["timeS"] as? NSNumber)?.doubleValue
            }.max() ?? 0
        }
        var reconnections: [String] = []
        var gpsdReconnections: [String] = []
        var nextReconnectionS = Self.reconnectionIntervalS
        // At 20 × real time at least (half what a loaded machine manages).
        let deadline = Date().addingTimeInterval(Self.drive.untilS / 20 + 30)
        while sessionTimeS() < Self.drive.untilS {
            if Date() >= deadline {
                Issue.record("the session reached only \(sessionTimeS()) s of \(Self.drive.untilS) s in time")
                break
            }
            if sessionTimeS() >= nextReconnectionS {
                nextReconnectionS += Self.reconnectionIntervalS
                async let native = user.run(serve.executable, watch + ["--location", "--count", "2"], timeoutS: 1.5, in: dir)
                async let viaGpsd = user.run(gpspipe, ["-w", "-n", "4", gpsd], timeoutS: 1.5, in: dir)
                reconnections.append(try await native.stdout)
                gpsdReconnections.append(try await viaGpsd.stdout)
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        let endS = sessionTimeS()
        R.stop(reduced)
        R.stop(root)
        R.stop(pipe)
        func read(_ name: String) -> String {
            (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }
        let rootUpdates = Self.objects(read("root.out"), from: "root's watch")
        let reducedUpdates = Self.objects(read("reduced.out"), from: "the second user's watch")
        let track = rootUpdates.compactMap(Position.init)
        let coarse = reducedUpdates.compactMap(Position.init)
        let again = reconnections.flatMap { Self.objects($0, from: "the second user's watch, again") }.compactMap(Position.init)

        // The drive is a real test: root's exact track crosses cells; the second user got several positions.
        let cellsVisited = Set(track.map { [$0.cell.centreLatitudeDeg, $0.cell.centreLongitudeDeg] })
        #expect(cellsVisited.count >= 2, "root's track stays in \(cellsVisited.count) cell(s)")
        // Counted over all its connections: the limit is the user's, so which connection gets a release is a matter of
        // timing (a short reconnection may take the first, and the long watch then waits 15 min for the next).
        let released = Set((coarse + again).map(\.locationTimeS))
        #expect(released.count >= 2, "the second user got \(released.count) position(s): \(read("reduced.out"))")
        #expect(reconnections.count >= 3, "the second user connected again only \(reconnections.count) times")

        // Root: exact positions, with altitude and speed, none a cell centre.
        #expect(track.count > 100, "root got \(track.count) positions")
        #expect(track.allSatisfy { !$0.isCellCentre && !$0.accuracyLimited }, "root got a cell centre")
        #expect(track.contains { !Self.forbiddenKeys($0.keys).isEmpty }, "root's positions carry no altitude or speed")

        // The second user: cell centres of the cell the car was in, coarse accuracy, nothing else.
        var checkedAgainstRoot = 0
        for p in coarse + again {
            let cell = p.cell
            #expect(p.isCellCentre, "not a cell centre: \(p.line)")
            #expect(p.accuracyLimited, "not marked accuracy-limited: \(p.line)")
            #expect(p.horizontalAccuracyM >= max(ReferenceGrid.cellSizeM, cell.sizeM), "accuracy finer than the cell: \(p.line)")
            #expect(Self.forbiddenKeys(p.keys).isEmpty, "\(Self.forbiddenKeys(p.keys)) in \(p.line)")
            // Root's position of the same instant (both come from the one fused location) lies in that cell.
            if let exact = track.first(where: { $0.locationTimeS == p.locationTimeS }) {
                checkedAgainstRoot += 1
                #expect(
                    cell.contains(latitudeDeg: exact.latitudeDeg, longitudeDeg: exact.longitudeDeg),
                    "root was at \(exact.latitudeDeg), \(exact.longitudeDeg), outside the cell of \(p.line)")
            } else {
                // Root's stream need not hold that instant: a subscription that starts (or a reconnection) gets the
                // position of its own instant, dead-reckoned, while root's stream passes the fixes and pauses while the
                // carrier rests (CI runs under load gave the second user positions 3.7 s and more than 30 s from root's
                // nearest). Checked when root's nearest is within 120 s, with the distance a car covers meanwhile
                // (30 m/s) as the margin; at least one release must be checked against root (below).
                let nearest = track.min { abs($0.locationTimeS - p.locationTimeS) < abs($1.locationTimeS - p.locationTimeS) }
                let gapS = nearest.map { abs($0.locationTimeS - p.locationTimeS) } ?? .infinity
                guard gapS <= 120, let nearest else { continue }
                checkedAgainstRoot += 1
                let marginDeg = 30 * gapS / 111_000 + 1e-9
                #expect(
                    cell.contains(latitudeDeg: nearest.latitudeDeg, longitudeDeg: nearest.longitudeDeg, marginDeg: marginDeg),
                    "root's nearest position (\(gapS) s away) is outside the cell of \(p.line)")
            }
        }

        #expect(checkedAgainstRoot >= 1, "no position the second user got could be compared with root's track")

        // At most one position per 15 min of session time, counting every connection of the second user: a position
        // seen again (a new connection told the last one given) is no new position.
        let releases = Set((coarse + again).map(\.locationTimeS)).sorted()
        let seen = (coarse + again).map(\.line).joined(separator: "\n")
        // Less 1 µs: Foundation's JSONSerialization on Linux does not always parse a number to the nearest double (a CI
        // run read 1257.7 − 357.7 as 899.9999999999999).
        let leastS = 900 - 1e-6
        for (a, b) in zip(releases, releases.dropFirst()) {
            #expect(b - a >= leastS, "positions of \(a) s and \(b) s, \(b - a) s apart:\n\(seen)")
        }
        for (a, b) in zip(coarse, coarse.dropFirst()) { #expect(b.timeS - a.timeS >= leastS, "\(a.line)\n\(b.line)") }

        // The gpsd endpoint with --gpsd-access reduced: TPVs of cell centres, no altitude, speed or track, no SKY (the
        // receiver's own fixes) and no ATT (attitude: no motion); at most one position per 15 min for all its clients.
        let tpvKeys: Set<String> = ["class", "device", "status", "mode", "time", "ept", "lat", "lon", "eph", "epx", "epy"]
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let gpsdLong = Self.objects(read("gpspipe.out"), from: "gpspipe")
        let gpsdAgain = gpsdReconnections.flatMap { Self.objects($0, from: "gpspipe, again") }
        var tpvTimes: Set<Date> = []
        var tpvCount = 0
        var unexpected: [String: (count: Int, first: String)] = [:]
        for m in gpsdLong + gpsdAgain {
            let line =
                String(data: (try? JSONSerialization.data(withJSONObject: m, options: [.sortedKeys])) ?? Data(), encoding: .utf8)
                ?? ""
            let kind = m["class"] as? String ?? "?"
            if !["VERSION", "DEVICES", "WATCH", "TPV"].contains(kind) {
                unexpected[kind] = (count: (unexpected[kind]?.count ?? 0) + 1, first: unexpected[kind]?.first ?? line)
            }
            guard kind == "TPV", let la = (m["lat"] as? NSNumber)?.doubleValue, let lo = (m["lon"] as? NSNumber)?.doubleValue
            else { continue }
            tpvCount += 1
            let cell = ReferenceGrid.cell(latitudeDeg: la, longitudeDeg: lo)
            #expect(cell.isCentre(latitudeDeg: la, longitudeDeg: lo, toleranceDeg: 1e-8), "not a cell centre: \(line)")
            // eph has 3 decimals (gpsd's millimetres).
            #expect(((m["eph"] as? NSNumber)?.doubleValue ?? 0) >= max(ReferenceGrid.cellSizeM, cell.sizeM) - 0.0005, "\(line)")
            #expect(Set(m.keys).isSubset(of: tpvKeys), "\(Set(m.keys).subtracting(tpvKeys).sorted()) in \(line)")
            if let t = (m["time"] as? String).flatMap(iso.date(from:)) {
                tpvTimes.insert(t)
            } else {
                Issue.record("no time: \(line)")
            }
        }
        let unexpectedLines = unexpected.sorted { $0.key < $1.key }
            .map { "\($0.value.count) \($0.key), the first \($0.value.first)" }
        #expect(unexpected.isEmpty, "the gpsd endpoint sent the second user: \(unexpectedLines.joined(separator: "; "))")
        // One limit for every gpsd client (they cannot be told apart): counted over all of the user's gpspipe runs.
        #expect(tpvTimes.count >= 2, "gpspipe got too few TPVs: \(read("gpspipe.out"))")
        let tpvs = tpvTimes.sorted()
        for (a, b) in zip(tpvs, tpvs.dropFirst()) {
            // TPV times are in whole milliseconds: less 1 ms.
            #expect(b.timeIntervalSince(a) >= 900 - 0.001, "gpsd TPVs of \(a) and \(b), \(b.timeIntervalSince(a)) s apart")
        }

        print(
            "second user, gpsd endpoint: \(tpvCount) TPVs at \(tpvs.count) times over \(gpsdReconnections.count + 1) connections; "
                + "second user, reduced: \(coarse.count) positions in one connection, \(again.count) in \(reconnections.count) more; "
                + "root: \(track.count) positions in \(cellsVisited.count) cells; session \(endS) s in "
                + "\(clock.now - started)")
    }
}
