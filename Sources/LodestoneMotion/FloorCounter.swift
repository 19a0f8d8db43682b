/// Floors ascended and descended on foot, like `CMPedometerData.floorsAscended`/`floorsDescended`.
///
/// The barometric altitude counts only while the carrier is walking or running (steps are being taken) **and**
/// the altitude changes at a stair-climbing speed, measured over `rateWindowS` (the climb over the last 8 s,
/// which a barometer's noise barely moves): a lift ride has no steps, and weather drift (≤ 0.02 m/s, even in
/// a storm front of 6 hPa/h) stays below `minimumVerticalSpeedMps`. When a climb is recognised, the altitude
/// gained over that window counts too (the start of a flight is not lost to the window's lag). Climbing within
/// an episode is summed; a floor is counted each time the sum passes `countFraction` of a floor height beyond
/// the floors already counted, so a landing between two flights does not split a floor. An episode ends (and
/// an uncounted remainder is dropped) after `episodeGapS` without climbing on foot.
public struct FloorCounter: Sendable {
    /// What can be tuned.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Height of one floor, m. Default 3 (Core Motion: "approximately 3 m").
        public var floorHeightM = 3.0
        /// Fraction of a floor height that counts a floor, (0, 1]. Default 0.7: a floor of 3 m counts after
        /// 2.1 m, which absorbs the barometer's lag at the start and end of a flight.
        public var countFraction = 0.7
        /// Vertical speeds below this do not count, m/s. Default 0.05: slow stairs climb at 0.15–0.25 m/s,
        /// a 5 % ramp walked at 1.4 m/s at 0.07 m/s, weather at less than 0.01 m/s.
        public var minimumVerticalSpeedMps = 0.05
        /// An episode ends after this long without climbing on foot, s. Default 20.
        public var episodeGapS = 20.0
        /// The climb rate is the altitude change over this window, s. Default 8.
        public var rateWindowS = 8.0

        /// The defaults.
        public init() {}
    }

    /// Everything `update` changes.
    public struct State: Sendable, Hashable, Codable {
        /// Floors counted up and down since the start.
        public var floorsAscended = 0
        public var floorsDescended = 0
        /// Climb summed in the current episode, m (+ up).
        public var episodeClimbM = 0.0
        /// Floors counted in the current episode (+ up, − down).
        public var episodeFloors = 0
        /// Last barometric altitude seen, m, and its time, s.
        public var lastAltitudeM: Double?
        public var lastTimeS: Double?
        /// Time of the last climb on foot, s, and the altitude counted up to then, m.
        public var lastClimbTimeS: Double?
        public var lastClimbAltitudeM: Double?
        /// True while climbing on foot (the previous update counted).
        public var climbing = false
        /// Recent altitudes (time s, altitude m) for the climb rate: 1024 cover the window up to 128 Hz.
        public var recent = FixedRing<SIMD2<Double>>(capacity: 1024, filler: .zero)
    }

    /// The settings.
    public let parameters: Parameters
    /// Everything `update` changed so far.
    public private(set) var state = State()

    /// A counter with `parameters` (a floor height that is not positive and finite becomes 3 m; a fraction
    /// outside (0, 1] becomes 0.7).
    public init(parameters: Parameters = Parameters()) {
        var p = parameters
        if !(p.floorHeightM.isFinite && p.floorHeightM > 0) { p.floorHeightM = 3 }
        if !(p.countFraction > 0 && p.countFraction <= 1) { p.countFraction = 0.7 }
        self.parameters = p
    }

    /// Restores a snapshot.
    public mutating func restore(_ s: State) { state = s }

    /// Takes the barometric altitude (m, + up), its rate (m/s) and whether the carrier is on foot (walking or
    /// running, steps being taken) at `timeS`. Returns +1/−1 per floor counted now (0 mostly).
    @discardableResult
    public mutating func update(altitudeM: Double, verticalSpeedMps: Double, onFoot: Bool, timeS: Double) -> Int {
        guard altitudeM.isFinite, timeS.isFinite else { return 0 }
        defer {
            state.lastAltitudeM = altitudeM
            state.lastTimeS = timeS
            state.recent.append(SIMD2(timeS, altitudeM))
        }
        guard let previous = state.lastAltitudeM else { return 0 }
        if let last = state.lastClimbTimeS, timeS - last > parameters.episodeGapS {
            state.episodeClimbM = 0
            state.episodeFloors = 0
            state.lastClimbTimeS = nil
        }
        // The altitude `rateWindowS` ago (the oldest kept sample within the window).
        var windowStart = SIMD2(timeS, altitudeM)
        var age = 0
        while let e = state.recent.back(age), timeS - e.x <= parameters.rateWindowS {
            windowStart = e
            age += 1
        }
        let span = timeS - windowStart.x
        let rate = span >= parameters.rateWindowS / 2 ? (altitudeM - windowStart.y) / span : 0
        let climbing = onFoot && abs(rate) >= parameters.minimumVerticalSpeedMps
        defer { state.climbing = climbing }
        guard climbing else { return 0 }
        // A climb in progress counts sample by sample; one just recognised counts from the start of the window,
        // or from where the last climb stopped counting if that is later (a landing: nothing is counted twice).
        if state.climbing {
            state.episodeClimbM += altitudeM - previous
        } else if let t = state.lastClimbTimeS, let h = state.lastClimbAltitudeM, t >= windowStart.x {
            state.episodeClimbM += altitudeM - h
        } else {
            state.episodeClimbM += altitudeM - windowStart.y
        }
        state.lastClimbTimeS = timeS
        state.lastClimbAltitudeM = altitudeM
        let h = parameters.floorHeightM, threshold = parameters.countFraction * h
        var counted = 0
        while state.episodeClimbM - Double(state.episodeFloors) * h >= threshold {
            state.episodeFloors += 1
            state.floorsAscended += 1
            counted += 1
        }
        while state.episodeClimbM - Double(state.episodeFloors) * h <= -threshold {
            state.episodeFloors -= 1
            state.floorsDescended += 1
            counted -= 1
        }
        return counted
    }

    /// Floors ascended on foot since the start.
    public var floorsAscended: Int { state.floorsAscended }
    /// Floors descended on foot since the start.
    public var floorsDescended: Int { state.floorsDescended }
}
