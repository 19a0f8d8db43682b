import LodestoneCore

/// Baseline: RAPS, the rate-adaptive positioning system of J. Paek, J. Kim, R. Govindan, "Energy-Efficient
/// Rate-Adaptive GPS-based Positioning for Smartphones", MobiSys 2010 — implemented from the paper's description
/// for the evaluation, with the simplifications said below.
///
/// What the paper does, and what this does:
/// - **Duty-cycled accelerometer** (section "Accelerometer-based movement detection"): the accelerometer is read
///   in short bursts to tell whether the user moved since the last GPS fix; if not, GPS is not turned on, as the
///   position cannot have changed. Here: the accelerometer runs in `.lowPower` at `accelerometerRateHz` (10 Hz, the
///   modelled cost of the paper's bursts) and the scheduler's `AnyMotionDetector` (the paper's windowed deviation
///   test, see its documentation) says whether the carrier moved since the last fix.
/// - **Space-time history** (section "Location-time history" / velocity estimation): RAPS keeps the positions and
///   times of past fixes, estimates the user's velocity at the current place and time of day from that history
///   (falling back to recent fixes), and turns GPS on only when the estimated position uncertainty — the last
///   fix's accuracy plus the estimated speed times the time since — exceeds the application's accuracy threshold.
///   Here: a ring of `historyCapacity` fixes keyed by a `cellSizeDeg` grid cell and the hour of the day on the
///   engine clock; the speed estimate is the mean reported speed of the fixes in the current cell and hour when
///   there are `minimumHistoryMatches` of them, else of the last `recentFixes` fixes, else `defaultSpeedMps`,
///   never below `minimumSpeedMps`. The threshold is the demand's `requiredHorizontalAccuracyM`. GPS stays on
///   until a fix at least that accurate arrives (then off), or for `gpsTimeoutS` at most.
/// - **Celltower-RSS blacklisting** (section "Celltower-RSS blacklisting"): where GPS failed to get a fix, RAPS
///   records the cell tower and signal strength and does not try GPS again there. A board has no cell modem, so
///   this uses the grid cell of the last fix: after a timeout there, GPS is not tried again for `blacklistHoldS`
///   unless the carrier has plausibly left the cell (estimated speed × time since the timeout > one cell).
/// - **Bluetooth position sharing**: not applicable (one device), left out.
///
/// Other sensors: RAPS is a location service; heading and altitude demands are served plainly (the chips they need
/// at their board maximum), everything else is suspended. The receiver is `continuous(1 Hz)` when on, `off`
/// otherwise (the paper switches the phone's GPS on and off). Allocates nothing per plan once its rings exist.
public struct RAPSPolicy: SchedulingPolicy {
    public struct Parameters: Sendable, Hashable, Codable {
        /// Low-power accelerometer rate for movement detection, Hz. Default 10.
        public var accelerometerRateHz = 10.0
        /// Longest time GPS stays on without an accurate enough fix, s. Default 60.
        public var gpsTimeoutS = 60.0
        /// A place where GPS timed out is not tried again for this long, s. Default 1800.
        public var blacklistHoldS = 1800.0
        /// Grid cell of the history and the blacklist, degrees (0.005° ≈ 550 m of latitude). Default 0.005.
        public var cellSizeDeg = 0.005
        /// Fixes remembered. Default 512.
        public var historyCapacity = 512
        /// Fixes in the current cell and hour needed to use them for the speed. Default 3.
        public var minimumHistoryMatches = 3
        /// Otherwise, the speed of this many latest fixes. Default 10.
        public var recentFixes = 10
        /// Speed without any history, m/s. Default 1.4 (walking).
        public var defaultSpeedMps = 1.4
        /// Speed estimates are never below this while moving, m/s (so that the uncertainty grows). Default 0.5.
        public var minimumSpeedMps = 0.5

        public init() {}
    }

    struct HistoryEntry: Sendable, Hashable {
        var cellLatitude: Int
        var cellLongitude: Int
        var hourOfDay: Int
        var speedMps: Double
    }

    struct BlacklistEntry: Sendable, Hashable {
        var cellLatitude: Int
        var cellLongitude: Int
        var sinceS: Double
    }

    public var parameters: Parameters
    public var name: String { "raps" }

    private var history: [HistoryEntry]
    private var historyCount = 0
    private var historyNext = 0
    private var blacklist: [BlacklistEntry?]
    private var lastRecordedFixS = -Double.infinity
    private var lastFixAccuracyM = 10.0
    private var lastCell: (latitude: Int, longitude: Int)?
    private var movedSinceFix = true
    private var timeoutWithoutPositionS: Double?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        history = Array(
            repeating: HistoryEntry(cellLatitude: 0, cellLongitude: 0, hourOfDay: 0, speedMps: 0),
            count: max(parameters.historyCapacity, 1))
        blacklist = Array(repeating: nil, count: 32)
    }

    /// The estimated speed at `cell` and hour `hour` from the space-time history, m/s.
    func estimatedSpeedMps(cell: (latitude: Int, longitude: Int)?, hourOfDay hour: Int) -> Double {
        let p = parameters
        var sum = 0.0, matches = 0
        if let cell {
            for i in 0..<historyCount {
                let e = history[i]
                if e.cellLatitude == cell.latitude && e.cellLongitude == cell.longitude && e.hourOfDay == hour {
                    sum += e.speedMps; matches += 1
                }
            }
        }
        if matches >= p.minimumHistoryMatches { return max(sum / Double(matches), p.minimumSpeedMps) }
        let n = min(historyCount, p.recentFixes)
        guard n > 0 else { return max(p.defaultSpeedMps, p.minimumSpeedMps) }
        sum = 0
        for k in 1...n {
            let i = (historyNext - k + history.count) % history.count
            sum += history[i].speedMps
        }
        return max(sum / Double(n), p.minimumSpeedMps)
    }

    /// The position uncertainty RAPS estimates `elapsedS` after a fix of accuracy `accuracyM` at speed `speedMps`:
    /// accuracy + speed × elapsed, m.
    public static func uncertaintyM(accuracyM: Double, speedMps: Double, elapsedS: Double) -> Double {
        accuracyM + speedMps * max(elapsedS, 0)
    }

    private func cell(latitudeDeg: Double, longitudeDeg: Double) -> (latitude: Int, longitude: Int) {
        (Int((latitudeDeg / parameters.cellSizeDeg).rounded(.down)), Int((longitudeDeg / parameters.cellSizeDeg).rounded(.down)))
    }

    private static func hourOfDay(_ timeS: Double) -> Int {
        let h = Int((timeS / 3600).rounded(.down)) % 24
        return h < 0 ? h + 24 : h
    }

    public mutating func plan(_ inputs: SchedulerInputs, into plan: inout Plan) {
        let p = parameters
        let t = inputs.timeS
        let d = inputs.demand

        // Sensors: the movement-detecting accelerometer; heading and altitude served plainly.
        for i in plan.sensors.indices where i < inputs.sensors.count {
            let sensor = inputs.sensors[i]
            var need = SensorNeed()
            for kind in sensor.kinds {
                switch kind {
                case .accelerometer:
                    if d.heading != nil { need.need(rateHz: sensor.maximumRateHz, mode: .normal) }
                    if d.location != nil || d.activity { need.need(rateHz: p.accelerometerRateHz, mode: .lowPower) }
                case .gyroscope, .magnetometer:
                    if d.heading != nil { need.need(rateHz: sensor.maximumRateHz, mode: .normal) }
                case .barometer:
                    if d.altitude { need.need(rateHz: sensor.maximumRateHz, mode: .normal) }
                case .thermometer, .gnss:
                    break
                }
            }
            need.write(for: sensor, into: &plan.sensors[i])
        }
        guard plan.gnss != nil else { return }
        guard let location = d.location else {
            plan.gnss?.mode = .off
            plan.causes.append(.noDemand(what: "location"))
            return
        }
        plan.causes.append(.demand(client: d.locationClient ?? "", what: location.desiredAccuracy.demandText))
        let thresholdM = location.desiredAccuracy.requiredHorizontalAccuracyM

        // Space-time history: record each new fix.
        let g = inputs.gnss
        if let f = g.lastFixTimeS, f > lastRecordedFixS, let lat = g.latitudeDeg, let lon = g.longitudeDeg {
            lastRecordedFixS = f
            lastFixAccuracyM = g.horizontalAccuracyM ?? lastFixAccuracyM
            let c = cell(latitudeDeg: lat, longitudeDeg: lon)
            lastCell = c
            history[historyNext] = HistoryEntry(
                cellLatitude: c.latitude, cellLongitude: c.longitude,
                hourOfDay: Self.hourOfDay(f), speedMps: g.speedMps ?? 0)
            historyNext = (historyNext + 1) % history.count
            historyCount = min(historyCount + 1, history.count)
            movedSinceFix = false
            timeoutWithoutPositionS = nil
        }
        // Moved since the fix: a moving activity, or motion detected (an unknown kind) after the fix. The unknown
        // state a board starts in is no evidence of movement.
        if inputs.motion.mayMove && (inputs.motion != .unknown || inputs.motionSinceS > lastRecordedFixS) {
            movedSinceFix = true
        }
        let speedMps = estimatedSpeedMps(cell: lastCell, hourOfDay: Self.hourOfDay(t))

        // GPS on: until an accurate enough fix, or the timeout.
        if let onS = inputs.receiverOnSinceS {
            let fixSinceOn = lastRecordedFixS >= onS
            if fixSinceOn && lastFixAccuracyM <= thresholdM {
                plan.gnss?.mode = .off
                plan.causes.append(.policy("RAPS: fix within the accuracy threshold: GPS off"))
                return
            }
            if t - onS >= p.gpsTimeoutS && !fixSinceOn {
                if let c = lastCell { addToBlacklist(c, timeS: t) } else { timeoutWithoutPositionS = t }
                plan.gnss?.mode = .off
                plan.causes.append(.policy("RAPS: GPS timed out here: place blacklisted"))
                return
            }
            if t - onS < p.gpsTimeoutS {
                plan.gnss?.mode = .continuous(rateHz: 1)
                plan.causes.append(.policy("RAPS: position uncertainty above the threshold: GPS on"))
                return
            }
        }

        // GPS off: turn it on only when moved and the uncertainty exceeds the threshold, and not where it failed.
        if lastCell != nil && !movedSinceFix {
            plan.gnss?.mode = .off
            plan.causes.append(.policy("RAPS: no movement since the last fix: GPS off"))
            return
        }
        let uncertainty =
            lastCell == nil
            ? Double.infinity
            : Self.uncertaintyM(accuracyM: lastFixAccuracyM, speedMps: speedMps, elapsedS: t - lastRecordedFixS)
        if uncertainty <= thresholdM {
            plan.gnss?.mode = .off
            plan.causes.append(.policy("RAPS: estimated uncertainty within the threshold: GPS off"))
            return
        }
        if isBlacklisted(t: t, speedMps: speedMps) {
            plan.gnss?.mode = .off
            plan.causes.append(.policy("RAPS: GPS unavailable at this place (blacklisted): GPS off"))
            return
        }
        plan.gnss?.mode = .continuous(rateHz: 1)
        plan.causes.append(.policy("RAPS: position uncertainty above the threshold: GPS on"))
    }

    private mutating func addToBlacklist(_ c: (latitude: Int, longitude: Int), timeS: Double) {
        var slot = 0, oldest = Double.infinity
        for i in blacklist.indices {
            guard let e = blacklist[i] else { slot = i; oldest = -.infinity; break }
            if e.cellLatitude == c.latitude && e.cellLongitude == c.longitude { slot = i; break }
            if e.sinceS < oldest { oldest = e.sinceS; slot = i }
        }
        blacklist[slot] = BlacklistEntry(cellLatitude: c.latitude, cellLongitude: c.longitude, sinceS: timeS)
    }

    /// True when the carrier is probably still at a place where GPS timed out.
    private func isBlacklisted(t: Double, speedMps: Double) -> Bool {
        let p = parameters
        let cellSizeM = p.cellSizeDeg * 111_000
        if let since = timeoutWithoutPositionS {
            return t - since < p.blacklistHoldS && speedMps * (t - since) < cellSizeM
        }
        guard let c = lastCell else { return false }
        for e in blacklist {
            guard let e, e.cellLatitude == c.latitude, e.cellLongitude == c.longitude else { continue }
            return t - e.sinceS < p.blacklistHoldS && speedMps * (t - e.sinceS) < cellSizeM
        }
        return false
    }
}
