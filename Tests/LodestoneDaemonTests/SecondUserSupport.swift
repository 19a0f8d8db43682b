import Foundation
import Testing

/// The second, unprivileged user of issue 15's tests, and how to run a program as it.
///
/// Debian's `nobody` (uid 65534, primary group `nogroup`): every Debian system has it, it owns no files and is in no
/// other group, so nothing it is given comes from anything but the policy's rules for it. The programs run with its
/// real and effective uid and gid (`setpriv --reuid --regid`), no supplementary groups (`--clear-groups`: root's would
/// otherwise be kept) and an empty environment (root's `HOME` and `PATH` would otherwise be kept).
struct SecondUser: CustomStringConvertible {
    let name: String
    let uid: UInt32
    let gid: UInt32

    /// Why the suite cannot run, or `nil`: only root can switch to another uid (CI runs as root).
    static var skipReason: String? {
        getuid() == 0 ? nil : "needs root to switch to a second uid with setpriv (CI runs as root); uid is \(getuid())"
    }

    /// `nobody` from the account database (a failed test, not a skip, when it is missing: Debian always has it).
    static func nobody() throws -> SecondUser {
        guard let entry = getpwnam("nobody") else {
            Issue.record("no account \"nobody\" in the account database: Debian's base-passwd always has it")
            throw CancellationError()
        }
        let user = SecondUser(name: "nobody", uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
        try #require(user.uid != 0 && user.gid != 0, "\(user) is root")
        return user
    }

    var description: String { "\(name) (uid \(uid), gid \(gid))" }

    /// The program and arguments that run `program` as this user.
    func command(_ program: String, _ arguments: [String]) -> (program: String, arguments: [String]) {
        (
            "/usr/bin/setpriv",
            [
                "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--", "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=/",
                program
            ]
                + arguments
        )
    }

    /// Runs `program` as this user to its end (at most `timeoutS`), output captured (`GPSDClientRunner.run`).
    func run(_ program: String, _ arguments: [String], timeoutS: Double, in dir: URL) async throws -> GPSDClientRunner.Result {
        let c = command(program, arguments)
        return try await GPSDClientRunner.run(c.program, c.arguments, timeoutS: timeoutS, in: dir)
    }

    /// Starts `program` as this user in the background (`GPSDClientRunner.start`; stop it with `GPSDClientRunner.stop`).
    func start(_ program: String, _ arguments: [String], in dir: URL, name: String) throws -> Process {
        let c = command(program, arguments)
        return try GPSDClientRunner.start(c.program, c.arguments, in: dir, name: name)
    }
}

/// `lodestone serve` (the built executable, as root) on the simulated board, with a policy written by the test and its
/// socket in a fresh directory every user can reach.
struct SecondUserServe {
    /// The test's directory (mode 0755): socket, policy, state, the programs' output.
    let dir: URL
    let process: Process
    /// The `lodestone` every user can run: the built one, or a copy in `dir` when a directory above the build is
    /// closed to other users (a checkout under /root).
    let executable: String
    var socketPath: String { dir.appendingPathComponent("s.sock").path }

    /// Starts the daemon and waits (at most `timeoutS`) until it says it is ready.
    /// - Parameter sensorRatesHz: rates of the simulated board's sensors by id, instead of the board file's (a debug
    ///   build's engine runs the shipped rates at about 40 × real time on one core; the drive test needs more).
    static func start(
        policy: String, scenario: String, speed: Double, seed: UInt64, sensorRatesHz: [String: Double] = [:],
        gpsdListen: String = "none", gpsdAccess: String? = nil, timeoutS: Double = 60
    ) async throws -> SecondUserServe {
        // Under the temporary directory if every user can reach it, else /tmp (a TMPDIR may be private to root).
        let temporary = FileManager.default.temporaryDirectory
        let dir = (Self.othersCanReach(temporary.path) ? temporary : URL(fileURLWithPath: "/tmp"))
            .appendingPathComponent("lodestone-second-user-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        chmod(dir.path, 0o755)
        var executable = LodestoneServe.executable.path
        if !Self.othersCanReach(executable) {
            let copy = dir.appendingPathComponent("lodestone").path
            try FileManager.default.copyItem(atPath: executable, toPath: copy)
            chmod(copy, 0o755)
            executable = copy
        }
        let policyPath = dir.appendingPathComponent("policy.toml").path
        try policy.write(toFile: policyPath, atomically: true, encoding: .utf8)
        var board = GPSDClientRunner.repositoryRoot.appendingPathComponent("boards/simulated.json")
        if !sensorRatesHz.isEmpty {
            var description = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: board)) as? [String: Any], "\(board.path)")
            let sensors = try #require(description["sensors"] as? [[String: Any]], "\(board.path): no sensors")
            description["sensors"] = sensors.map { sensor in
                var s = sensor
                if let id = s["id"] as? String, let rateHz = sensorRatesHz[id] { s["rateHz"] = rateHz }
                return s
            }
            description["name"] = "Simulated board (rates of SecondUserTests)"
            board = dir.appendingPathComponent("board.json")
            try JSONSerialization.data(withJSONObject: description, options: [.prettyPrinted, .sortedKeys]).write(to: board)
        }
        var arguments = [
            "serve", "--board", board.path,
            "--socket", dir.appendingPathComponent("s.sock").path, "--gpsd-listen", gpsdListen, "--policy", policyPath,
            "--state-dir", dir.appendingPathComponent("state").path, "--scenario", scenario, "--speed", "\(speed)", "--seed",
            "\(seed)"
        ]
        if let gpsdAccess { arguments += ["--gpsd-access", gpsdAccess] }
        let process = try GPSDClientRunner.start(executable, arguments, in: dir, name: "serve")
        let serve = SecondUserServe(dir: dir, process: process, executable: executable)
        let deadline = Date().addingTimeInterval(timeoutS)
        // Looks once more after the deadline: a task resumed late (a busy pool) must still see a daemon that got ready.
        while true {
            if serve.log.contains("ready:") { return serve }
            if !process.isRunning || Date() >= deadline {
                serve.stop()
                Issue.record("lodestone serve did not get ready in \(timeoutS) s:\n\(serve.log)")
                throw CancellationError()
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// What the daemon logged (standard error).
    var log: String { (try? String(contentsOf: dir.appendingPathComponent("serve.err"), encoding: .utf8)) ?? "" }

    /// Stops the daemon and removes the directory.
    func stop() {
        GPSDClientRunner.stop(process)
        try? FileManager.default.removeItem(at: dir)
    }

    /// Whether others may run the file or enter the directory at `path`: it and every directory above it have the
    /// others-execute bit (ACLs aside).
    static func othersCanReach(_ path: String) -> Bool {
        var url = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        var st = stat()
        guard stat(url.path, &st) == 0, st.st_mode & 0o001 != 0 else { return false }
        while url.path != "/" {
            url.deleteLastPathComponent()
            guard stat(url.path, &st) == 0, st.st_mode & 0o001 != 0 else { return false }
        }
        return true
    }

    /// `lodestone clients --json` as root: the daemon's list of its clients.
    func clients() async throws -> [[String: Any]] {
        let r = try await GPSDClientRunner.run(executable, ["clients", "--socket", socketPath, "--json"], timeoutS: 20, in: dir)
        try #require(r.status == 0, "lodestone clients: \(r.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "not a JSON object: \(r.stdout)")
        return try #require(object["clients"] as? [[String: Any]], "no clients array: \(r.stdout)")
    }
}

/// The reduced-accuracy grid as docs/policy.md defines it, computed here apart from `ReducedAccuracy` (so a change
/// to either shows): 4001 latitude bands of 180/4001° from pole to pole; each band cut into the whole number of equal
/// longitude cells nearest to making them 5 km wide on the WGS84 parallel through the band's centre (at least one);
/// cells from longitude −180° eastwards.
enum ReferenceGrid {
    /// WGS84 (NIMA TR8350.2): semi-major axis, m, and flattening.
    static let semiMajorAxisM = 6_378_137.0
    static let flattening = 1 / 298.257_223_563
    static let cellSizeM = 5000.0
    static let bandCount = 4001

    struct Cell: Equatable {
        var centreLatitudeDeg: Double
        var centreLongitudeDeg: Double
        var latitudeSpanDeg: Double
        var longitudeSpanDeg: Double
        /// The larger of the cell's height (along the meridian) and width (along the centre's parallel), m.
        var sizeM: Double

        /// Whether a position lies in the cell (its edges widened by `marginDeg`).
        func contains(latitudeDeg: Double, longitudeDeg: Double, marginDeg: Double = 1e-9) -> Bool {
            abs(latitudeDeg - centreLatitudeDeg) <= latitudeSpanDeg / 2 + marginDeg
                && abs(longitudeDeg - centreLongitudeDeg) <= longitudeSpanDeg / 2 + marginDeg
        }

        /// Whether a position is the cell's centre, to `toleranceDeg` (default 1e-9°, 0.1 mm: the native protocol's
        /// decimals round-trip exactly; gpsd's TPV has 9 decimals).
        func isCentre(latitudeDeg: Double, longitudeDeg: Double, toleranceDeg: Double = 1e-9) -> Bool {
            abs(latitudeDeg - centreLatitudeDeg) < toleranceDeg && abs(longitudeDeg - centreLongitudeDeg) < toleranceDeg
        }
    }

    /// The cell holding a position (latitude in [−90, 90], longitude in [−180, 180)).
    static func cell(latitudeDeg: Double, longitudeDeg: Double) -> Cell {
        let bandDeg = 180 / Double(bandCount)
        let row = min(bandCount - 1, Int(((latitudeDeg + 90) / bandDeg).rounded(.down)))
        let centreLatitudeDeg = -90 + (Double(row) + 0.5) * bandDeg
        let phi = centreLatitudeDeg * .pi / 180
        let e2 = flattening * (2 - flattening)
        let w = 1 - e2 * sin(phi) * sin(phi)
        let primeVerticalM = semiMajorAxisM / w.squareRoot()
        let meridianM = semiMajorAxisM * (1 - e2) / (w * w.squareRoot())
        let parallelM = 2 * .pi * primeVerticalM * cos(phi)
        let columns = max(1, Int((parallelM / cellSizeM).rounded()))
        let spanDeg = 360 / Double(columns)
        let column = min(columns - 1, Int(((longitudeDeg + 180) / spanDeg).rounded(.down)))
        return Cell(
            centreLatitudeDeg: centreLatitudeDeg, centreLongitudeDeg: -180 + (Double(column) + 0.5) * spanDeg,
            latitudeSpanDeg: bandDeg, longitudeSpanDeg: spanDeg,
            sizeM: max(meridianM * bandDeg * .pi / 180, parallelM / Double(columns)))
    }
}

extension SecondUser {
    /// A raw client of the native protocol, in Python (Debian's, which every user can run): prints its own ids as an
    /// `IDS` line, connects to the socket `argv[1]` (no `HELLO`: it is optional), subscribes to every kind (ids 1 to 8: location, heading, motion,
    /// activity, pedometer, altitude, sensors, a one-shot request), asks for its authorization and the clients list,
    /// then prints every line the daemon sends for `argv[2]` seconds.
    static let rawClientScript = #"""
        import json, os, socket, sys, time
        path, seconds = sys.argv[1], float(sys.argv[2])
        print(json.dumps({"class": "IDS", "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(),
                          "egid": os.getegid(), "groups": os.getgroups()}), flush=True)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        requests = []
        for i, kind in enumerate(["location", "heading", "motion", "activity", "pedometer", "altitude", "sensors",
                                  "request"], 1):
            requests.append({"class": "SUBSCRIBE", "id": i, "kind": kind})
        requests += [{"class": "AUTHORIZATION"}, {"class": "CLIENTS"}]
        s.sendall(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        s.settimeout(0.2)
        received = b""
        end = time.time() + seconds
        while time.time() < end:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                break
            received += chunk
        sys.stdout.write(received.decode())
        """#
}
