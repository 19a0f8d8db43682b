import LodestoneCore
import RealModule

/// The five activity classes a recording is labelled with.
public enum ActivityKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not moving (standing, sitting, lying, riding a lift); walking; running; cycling; in a road vehicle.
    case stationary, walk, run, cycle, drive
}

/// What the carrier (the person or vehicle holding the board) does during one segment of a scenario.
public enum SegmentKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Level motion with the activity of the same name.
    case stationary, walk, run, cycle, drive
    /// Walking up or down stairs, `floors` × `Scenario.floorHeightM`; labelled as `walk` activity.
    case stairsUp, stairsDown
    /// Riding a lift up or down, `floors` × `Scenario.floorHeightM`; labelled as `stationary` activity
    /// (the carrier stands still) though the board moves vertically.
    case liftUp, liftDown

    /// The activity label of this kind: stairs count as walking, lifts as stationary.
    public var activity: ActivityKind {
        switch self {
        case .stationary, .liftUp, .liftDown: .stationary
        case .walk, .stairsUp, .stairsDown: .walk
        case .run: .run
        case .cycle: .cycle
        case .drive: .drive
        }
    }

    /// Typical horizontal speed, m/s: walk 1.4, run 3.0, cycle 5.5, drive 13 (≈ 47 km/h, urban), stairs 0.5
    /// (horizontal progress while climbing), stationary and lift 0.
    public var typicalSpeedMps: Double {
        switch self {
        case .stationary, .liftUp, .liftDown: 0
        case .walk: 1.4
        case .run: 3.0
        case .cycle: 5.5
        case .drive: 13
        case .stairsUp, .stairsDown: 0.5
        }
    }

    /// +1 for kinds that climb, −1 for kinds that descend, 0 for level ones.
    public var verticalDirection: Int {
        switch self {
        case .stairsUp, .liftUp: 1
        case .stairsDown, .liftDown: -1
        default: 0
        }
    }

    /// True for lifts (vertical motion with the carrier standing still).
    public var isLift: Bool { self == .liftUp || self == .liftDown }
}

/// One piece of a scenario: what the carrier does, for how long, and how it turns.
public struct ScenarioSegment: Sendable, Hashable, Codable {
    /// What the carrier does.
    public var kind: SegmentKind
    /// Duration, s, > 0. (The generator treats anything below 0.1 s, or not finite, as 0.1 s.)
    public var durationS: Double
    /// Horizontal speed to reach, m/s, ≥ 0; `nil` = `kind.typicalSpeedMps`. Ignored (0) for stationary and lifts.
    public var speedMps: Double?
    /// Heading change over the segment, degrees, positive clockwise seen from above (to the right). Applied as
    /// one smooth turn centred in the segment at a rate typical for the kind.
    public var headingChangeDeg: Double
    /// Floors climbed or descended (stairs and lifts only; `Scenario.floorHeightM` each), ≥ 0.
    public var floors: Int
    /// True when no GNSS signal reaches the board (tunnel, indoors): `GNSSSimulator` gives no fix.
    public var gnssOutage: Bool
    /// How the person turns the board in the hand during the segment (calibration motions); `nil` = not at all.
    public var handling: BoardHandling?
    /// True in an urban canyon: reflected signals make the receiver's position jump by tens of metres for
    /// seconds at a time while it still claims its usual accuracy (`GNSSSimulator` multipath episodes).
    public var gnssMultipath: Bool

    /// A segment; see each property for units and defaults.
    public init(
        _ kind: SegmentKind, durationS: Double, speedMps: Double? = nil, headingChangeDeg: Double = 0,
        floors: Int = 0, gnssOutage: Bool = false, gnssMultipath: Bool = false, handling: BoardHandling? = nil
    ) {
        self.kind = kind; self.durationS = durationS; self.speedMps = speedMps
        self.headingChangeDeg = headingChangeDeg; self.floors = floors; self.gnssOutage = gnssOutage
        self.gnssMultipath = gnssMultipath
        self.handling = handling
    }

    /// The horizontal speed the segment ramps to, m/s: `speedMps` (clamped ≥ 0, finite) or the typical
    /// speed; always 0 for stationary and lifts.
    public var targetSpeedMps: Double {
        if kind == .stationary || kind.isLift { return 0 }
        guard let s = speedMps, s.isFinite else { return kind.typicalSpeedMps }
        return max(0, s)
    }
}

/// A scripted day in the life of the simulated board: where it starts, how it is carried, and a list of
/// segments. After the last segment the carrier comes to rest and **holds stationary** for ever (it does
/// not loop), so any simulation duration works.
public struct Scenario: Sendable, Hashable, Codable {
    /// Short name used on the command line (`mixed-day`).
    public var name: String
    /// One line saying what happens.
    public var summary: String
    /// The segments, in order.
    public var segments: [ScenarioSegment]
    /// Start geodetic latitude, WGS84, degrees.
    public var startLatitudeDeg: Double
    /// Start longitude, degrees east.
    public var startLongitudeDeg: Double
    /// Start height above the WGS84 ellipsoid, m (what GNSS reports as height, not MSL altitude).
    public var startHeightM: Double
    /// Start heading of the carrier, degrees clockwise from true north.
    public var startHeadingDeg: Double
    /// Start time as a decimal year (NOAA convention, see `DecimalYear`); time advances as Julian years.
    public var startDecimalYear: Double
    /// Geoid undulation N, m, taken constant over the scenario: altitude above MSL = height − N.
    public var geoidUndulationM: Double
    /// How the board sits on the carrier: rotates board-frame vectors into the carrier frame (x right,
    /// y forward, z up of the person or vehicle). Fixed for the whole scenario.
    public var boardMounting: Quaternion
    /// Height of one floor, m (stairs and lifts).
    public var floorHeightM: Double
    /// A steady change of the sea-level pressure on top of the generator's slow weather, Pa per hour
    /// (negative: falling, as before a storm); `nil` = none. Drives the weather-drift scenario.
    public var pressureTendencyPaPerHour: Double?

    /// A scenario; see each property for units.
    public init(
        name: String, summary: String, segments: [ScenarioSegment], startLatitudeDeg: Double,
        startLongitudeDeg: Double, startHeightM: Double, startHeadingDeg: Double, startDecimalYear: Double,
        geoidUndulationM: Double, boardMounting: Quaternion, floorHeightM: Double = 3
    ) {
        self.name = name; self.summary = summary; self.segments = segments
        self.startLatitudeDeg = startLatitudeDeg; self.startLongitudeDeg = startLongitudeDeg
        self.startHeightM = startHeightM; self.startHeadingDeg = startHeadingDeg
        self.startDecimalYear = startDecimalYear; self.geoidUndulationM = geoidUndulationM
        self.boardMounting = boardMounting; self.floorHeightM = floorHeightM
    }

    /// Sum of the segment durations, s (the stationary hold after them is not counted).
    public var totalDurationS: Double { segments.reduce(0) { $0 + $1.durationS } }

    /// A board mounting from angles, in the same convention as `Quaternion.rollPitchHeadingDeg`: the board is
    /// turned `yawDeg` clockwise about carrier up, then pitched `pitchDeg` nose-up about its right axis, then
    /// rolled `rollDeg` right-side-down about its forward axis. Returns the board → carrier rotation.
    public static func mounting(rollDeg: Double = 0, pitchDeg: Double = 0, yawDeg: Double = 0) -> Quaternion {
        Quaternion(axis: Vector3(0, 0, 1), angleRad: -Angle.radians(fromDegrees: yawDeg))
            * Quaternion(axis: Vector3(1, 0, 0), angleRad: Angle.radians(fromDegrees: pitchDeg))
            * Quaternion(axis: Vector3(0, 1, 0), angleRad: Angle.radians(fromDegrees: rollDeg))
    }

    /// The name of the default scenario.
    public static let defaultName = "mixed-day"

    /// The scenario called `name` in `catalog`, or `nil`.
    public static func named(_ name: String) -> Scenario? {
        catalog.first { $0.name == name } ?? dayLong.first { $0.name == name }
    }

    /// The built-in scenarios: `mixed-day` (default), `stationary`, `walk`, `drive`, `stairs-and-lift`, the
    /// guided calibration motions `calibrate-mag` and `calibrate-accel`, `urban-drive`, and for the altimeter and
    /// floor counter `stairs`, `lift`, `weather-drift`, and `park-and-walk` (getting out of a vehicle).
    /// All start in Zürich (47.3769° N, 8.5417° E, 408 m above MSL, geoid undulation 47.5 m) on 2026-07-02
    /// (decimal 2026.5), each under 10 minutes long.
    public static let catalog: [Scenario] =
        [mixedDay, stationary, walk, drive, stairsAndLift]
        // Guided calibration motions (lodestone calibrate).
        + [calibrateMagnetometer, calibrateAccelerometer]
        // Location (issue 6).
        + [urbanDrive]
        // Altimeter and floor counter (issue 5).
        + [stairs, lift, weatherDrift]
        // Activity: getting out of a vehicle (issue 5).
        + [parkAndWalk]
        // Scheduler: a stop and a restart (issue 8).
        + [stopAndGo]

    private static func zurich(
        _ name: String, _ summary: String, heading: Double, mounting: Quaternion,
        _ segments: [ScenarioSegment]
    ) -> Scenario {
        Scenario(
            name: name, summary: summary, segments: segments, startLatitudeDeg: 47.3769,
            startLongitudeDeg: 8.5417, startHeightM: 455.5, startHeadingDeg: heading, startDecimalYear: 2026.5,
            geoidUndulationM: 47.5, boardMounting: mounting)
    }

    /// Stand, walk with turns, climb two floors, walk, ride a lift down, run, cycle, drive through a tunnel, stop.
    /// The phone is hand-held, pitched up 30° and rolled 5°.
    static let mixedDay = zurich(
        "mixed-day",
        "stand 20 s, walk 60 s with turns, stairs up 2 floors, walk, lift down 2 floors, run 40 s, cycle 60 s, "
            + "drive 120 s with a 20 s tunnel, stand 30 s; phone hand-held, tilted",
        heading: 30, mounting: mounting(rollDeg: 5, pitchDeg: 30, yawDeg: 0),
        [
            ScenarioSegment(.stationary, durationS: 20),
            ScenarioSegment(.walk, durationS: 20),
            ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 90),
            ScenarioSegment(.walk, durationS: 20, headingChangeDeg: -45),
            ScenarioSegment(.stairsUp, durationS: 30, headingChangeDeg: 360, floors: 2, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 90, gnssOutage: true),
            ScenarioSegment(.liftDown, durationS: 20, headingChangeDeg: 180, floors: 2, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 15, headingChangeDeg: -90),
            ScenarioSegment(.run, durationS: 40, headingChangeDeg: 30),
            ScenarioSegment(.cycle, durationS: 30),
            ScenarioSegment(.cycle, durationS: 30, headingChangeDeg: 90),
            ScenarioSegment(.drive, durationS: 40),
            ScenarioSegment(.drive, durationS: 20, gnssOutage: true),
            ScenarioSegment(.drive, durationS: 30, headingChangeDeg: -90),
            ScenarioSegment(.drive, durationS: 30, headingChangeDeg: 45),
            ScenarioSegment(.stationary, durationS: 30)
        ])

    /// Five minutes flat on a table, turned 40° from north.
    static let stationary = zurich(
        "stationary", "5 minutes flat on a table, turned 40° from north",
        heading: 0, mounting: mounting(yawDeg: 40), [ScenarioSegment(.stationary, durationS: 300)])

    /// A walk around a square block, phone in a trouser pocket.
    static let walk = zurich(
        "walk", "walk around a square block (4 × 60 s legs, 90° right turns); phone upside down in a trouser pocket",
        heading: 0, mounting: mounting(pitchDeg: -80),
        [
            ScenarioSegment(.stationary, durationS: 10),
            ScenarioSegment(.walk, durationS: 60), ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 90),
            ScenarioSegment(.walk, durationS: 60), ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 90),
            ScenarioSegment(.walk, durationS: 60), ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 90),
            ScenarioSegment(.walk, durationS: 60), ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 90),
            ScenarioSegment(.stationary, durationS: 10)
        ])

    /// Urban driving with turns, a stop at traffic lights, a tunnel and a roundabout; phone on a dashboard mount.
    static let drive = zurich(
        "drive", "urban drive: turns, a stop at lights, a 30 s tunnel, a roundabout; phone on a dashboard mount",
        heading: 90, mounting: mounting(pitchDeg: 70, yawDeg: 10),
        [
            ScenarioSegment(.stationary, durationS: 15),
            ScenarioSegment(.drive, durationS: 60),
            ScenarioSegment(.drive, durationS: 20, speedMps: 8, headingChangeDeg: 90),
            ScenarioSegment(.drive, durationS: 40),
            ScenarioSegment(.stationary, durationS: 20),
            ScenarioSegment(.drive, durationS: 40, speedMps: 16),
            ScenarioSegment(.drive, durationS: 30, speedMps: 16, gnssOutage: true),
            ScenarioSegment(.drive, durationS: 25, speedMps: 7, headingChangeDeg: 270),
            ScenarioSegment(.drive, durationS: 20, headingChangeDeg: -90),
            ScenarioSegment(.drive, durationS: 60),
            ScenarioSegment(.stationary, durationS: 20)
        ])

    /// Indoors (no GNSS): stairs up three floors, lift down three, stairs down one.
    static let stairsAndLift = zurich(
        "stairs-and-lift", "indoors, no GNSS: stairs up 3 floors, walk, lift down 3 floors, walk, stairs down 1 floor",
        heading: 0, mounting: mounting(rollDeg: -3, pitchDeg: 25),
        [
            ScenarioSegment(.stationary, durationS: 10, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 15, gnssOutage: true),
            ScenarioSegment(.stairsUp, durationS: 45, headingChangeDeg: 540, floors: 3, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 15, headingChangeDeg: 90, gnssOutage: true),
            ScenarioSegment(.liftDown, durationS: 25, floors: 3, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 10, headingChangeDeg: -90, gnssOutage: true),
            ScenarioSegment(.stairsDown, durationS: 15, headingChangeDeg: 180, floors: 1, gnssOutage: true),
            ScenarioSegment(.stationary, durationS: 10, gnssOutage: true)
        ])

    // MARK: Guided calibration motions (lodestone calibrate)

    /// The magnetometer calibration a person does when `lodestone calibrate mag` asks: standing still facing
    /// north, board flat in the hand; then 45 s twirling it about its own axis (≈ 150 °/s) while turning it
    /// over once; then holding it still.
    static let calibrateMagnetometer = zurich(
        "calibrate-mag", "hand-held magnetometer calibration: hold 3 s, twirl the board while turning it over once (45 s), hold",
        heading: 0, mounting: .identity,
        [
            ScenarioSegment(.stationary, durationS: 3),
            ScenarioSegment(.stationary, durationS: 45, handling: .twirl(turnOverDeg: 360, twirlDegPerS: 150, rampS: 2)),
            ScenarioSegment(.stationary, durationS: 10)
        ])

    /// The accelerometer six-position calibration: the board set down on a level table on each face in turn
    /// (4 s each, 2.5 s between), then left face up.
    static let calibrateAccelerometer = zurich(
        "calibrate-accel", "accelerometer six positions: the board set down on each face for 4 s, then left face up",
        heading: 0, mounting: .identity,
        [
            ScenarioSegment(.stationary, durationS: 2),
            ScenarioSegment(.stationary, durationS: 42, handling: .sixFaces(holdS: 4, moveS: 2.5)),
            ScenarioSegment(.stationary, durationS: 10)
        ])

    // MARK: Location (issue 6)

    /// City driving for location fusion: urban canyons where the receiver's position jumps (multipath) while
    /// it claims its usual accuracy, and a 30 s tunnel with a curve and braking inside it, where only dead
    /// reckoning knows where the car went. Phone on a dashboard mount.
    static let urbanDrive = zurich(
        "urban-drive",
        "city drive: urban canyons with multipath jumps, a 30 s tunnel with a 60° curve and braking from 16 to "
            + "9 m/s inside it; phone on a dashboard mount",
        heading: 0, mounting: mounting(pitchDeg: 70, yawDeg: -5),
        [
            ScenarioSegment(.stationary, durationS: 15),
            ScenarioSegment(.drive, durationS: 50),
            ScenarioSegment(.drive, durationS: 20, speedMps: 8, headingChangeDeg: 90),
            ScenarioSegment(.drive, durationS: 60, speedMps: 10, gnssMultipath: true),
            ScenarioSegment(.drive, durationS: 20, speedMps: 6, headingChangeDeg: -90, gnssMultipath: true),
            ScenarioSegment(.drive, durationS: 30, speedMps: 16),
            ScenarioSegment(.drive, durationS: 30, speedMps: 9, headingChangeDeg: 60, gnssOutage: true),
            ScenarioSegment(.drive, durationS: 40, speedMps: 12, headingChangeDeg: -45, gnssMultipath: true),
            ScenarioSegment(.drive, durationS: 30),
            ScenarioSegment(.stationary, durationS: 15)
        ])

    /// A drive that ends in a parking space: the driver sits 20 s, gets out and walks away with the phone in a
    /// trouser pocket (it rode on the seat: the mounting does not change, as in a pocket).
    static let parkAndWalk = zurich(
        "park-and-walk", "drive 150 s with a stop at lights, park, sit 20 s, get out and walk 90 s; phone in a trouser pocket",
        heading: 0, mounting: mounting(rollDeg: 10, pitchDeg: -80),
        [
            ScenarioSegment(.stationary, durationS: 10),
            ScenarioSegment(.drive, durationS: 60),
            ScenarioSegment(.stationary, durationS: 20),
            ScenarioSegment(.drive, durationS: 60, headingChangeDeg: 90),
            ScenarioSegment(.drive, durationS: 30, speedMps: 6),
            ScenarioSegment(.stationary, durationS: 20),
            ScenarioSegment(.walk, durationS: 45),
            ScenarioSegment(.walk, durationS: 45, headingChangeDeg: -90)
        ])

    // MARK: Altimeter and floor-counter scenarios (issue 5)

    /// Indoors: stairs up four floors, down two, up one, with walks and landings between; phone in a front
    /// trouser pocket. Truth: 5 floors up, 2 down.
    static let stairs = zurich(
        "stairs", "indoors, no GNSS: stairs up 4 floors, walk, down 2, walk, up 1; phone in a trouser pocket",
        heading: 0, mounting: mounting(rollDeg: 10, pitchDeg: -75, yawDeg: 20),
        [
            ScenarioSegment(.stationary, durationS: 15, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 15, gnssOutage: true),
            ScenarioSegment(.stairsUp, durationS: 60, headingChangeDeg: 720, floors: 4, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 90, gnssOutage: true),
            ScenarioSegment(.stairsDown, durationS: 30, headingChangeDeg: -360, floors: 2, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 20, headingChangeDeg: 180, gnssOutage: true),
            ScenarioSegment(.stairsUp, durationS: 16, headingChangeDeg: 180, floors: 1, gnssOutage: true),
            ScenarioSegment(.stationary, durationS: 15, gnssOutage: true)
        ])

    /// Indoors: lifts up five floors and down three, walking to and from them; phone hand-held. Truth: no floor
    /// climbed on foot.
    static let lift = zurich(
        "lift", "indoors, no GNSS: walk to a lift, up 5 floors, walk, lift down 3 floors, walk; phone hand-held",
        heading: 90, mounting: mounting(rollDeg: 3, pitchDeg: 35),
        [
            ScenarioSegment(.stationary, durationS: 10, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 20, gnssOutage: true),
            ScenarioSegment(.liftUp, durationS: 30, floors: 5, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 25, headingChangeDeg: 180, gnssOutage: true),
            ScenarioSegment(.liftDown, durationS: 25, floors: 3, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 20, headingChangeDeg: -90, gnssOutage: true),
            ScenarioSegment(.stationary, durationS: 10, gnssOutage: true)
        ])

    /// Outdoors on level ground while the sea-level pressure falls 6 hPa per hour (an extreme storm front: the
    /// barometer alone would see a 50 m/h climb). Truth: no floor, no altitude change.
    static let weatherDrift: Scenario = {
        var s = zurich(
            "weather-drift",
            "level walks and rests outdoors while the pressure falls 6 hPa/h (storm front); phone in a jacket pocket",
            heading: 45, mounting: mounting(rollDeg: 80, pitchDeg: 10),
            [
                ScenarioSegment(.stationary, durationS: 60),
                ScenarioSegment(.walk, durationS: 150, headingChangeDeg: 90),
                ScenarioSegment(.stationary, durationS: 90),
                ScenarioSegment(.walk, durationS: 150, headingChangeDeg: -120),
                ScenarioSegment(.stationary, durationS: 90)
            ])
        s.pressureTendencyPaPerHour = -600
        return s
    }()

    // MARK: Scheduler evaluation (issue 8)

    /// Scenarios of hours (the scheduler's evaluation harness): not in `catalog`, whose scenarios are each under 10
    /// minutes and swept sample by sample by tests; `named(_:)` and `lodestone run --scenario` find them too.
    public static let dayLong: [Scenario] = [dayCommute, hourErrands]

    /// Outdoors with the phone in a jacket pocket: walk 90 s, stop 150 s (waiting at a crossing, the sky in view), walk
    /// 90 s, stop 30 s. The short case of the scheduler's stationary → moving transitions (GNSS off while stopped, full
    /// service again when walking resumes).
    static let stopAndGo = zurich(
        "stop-and-go", "outdoors: walk 90 s, stand 150 s in the open, walk 90 s, stand 30 s; phone in a jacket pocket",
        heading: 20, mounting: mounting(rollDeg: 80, pitchDeg: 10),
        [
            ScenarioSegment(.stationary, durationS: 10),
            ScenarioSegment(.walk, durationS: 90, headingChangeDeg: 45),
            ScenarioSegment(.stationary, durationS: 150),
            ScenarioSegment(.walk, durationS: 90, headingChangeDeg: -90),
            ScenarioSegment(.stationary, durationS: 30)
        ])

    /// A working day of 14.5 h, phone in a jacket pocket: home at rest indoors (no GNSS), walk to the car, a 25-minute
    /// commute drive with stops and a 90 s tunnel, walk to the office, stairs up 3 floors, a lift, office hours indoors
    /// (no GNSS; short walks to meeting rooms), a lunch walk with 30 minutes sitting outdoors, an afternoon in the
    /// office, a bike ride, a 30-minute run, a ride back, the drive home, and the evening at rest indoors.
    static let dayCommute: Scenario = {
        let indoors = true
        return zurich(
            "day-commute",
            "14.5 h working day: home at rest indoors 45 min, walk to the car, 25 min drive with a 90 s tunnel, walk, "
                + "stairs up 3 floors, office indoors 3.5 h, lift down, lunch walk and 30 min outdoors, office 3.8 h, "
                + "bike 25 min, run 30 min, bike back, drive home, evening at rest indoors 3 h",
            heading: 60, mounting: mounting(rollDeg: 80, pitchDeg: 10),
            [
                // Home.
                ScenarioSegment(.stationary, durationS: 2_700, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 40, headingChangeDeg: 90, gnssOutage: indoors),
                // To the car and the commute.
                ScenarioSegment(.walk, durationS: 200, headingChangeDeg: -90),
                ScenarioSegment(.stationary, durationS: 30),
                ScenarioSegment(.drive, durationS: 300, speedMps: 12, headingChangeDeg: 90),
                ScenarioSegment(.stationary, durationS: 40),
                ScenarioSegment(.drive, durationS: 400, speedMps: 20, headingChangeDeg: -45),
                ScenarioSegment(.drive, durationS: 90, speedMps: 18, headingChangeDeg: 30, gnssOutage: true),
                ScenarioSegment(.drive, durationS: 450, speedMps: 14, headingChangeDeg: 90),
                ScenarioSegment(.stationary, durationS: 30),
                ScenarioSegment(.drive, durationS: 240, speedMps: 8, headingChangeDeg: -90),
                ScenarioSegment(.stationary, durationS: 30),
                // Walk to the office, stairs, a lift, the morning.
                ScenarioSegment(.walk, durationS: 300, headingChangeDeg: 90),
                ScenarioSegment(.stairsUp, durationS: 60, headingChangeDeg: 540, floors: 3, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 30, headingChangeDeg: 90, gnssOutage: indoors),
                ScenarioSegment(.liftUp, durationS: 30, floors: 2, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 30, headingChangeDeg: -90, gnssOutage: indoors),
                ScenarioSegment(.stationary, durationS: 5_400, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 60, headingChangeDeg: 180, gnssOutage: indoors),
                ScenarioSegment(.stationary, durationS: 3_600, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 60, headingChangeDeg: 180, gnssOutage: indoors),
                ScenarioSegment(.stationary, durationS: 3_540, gnssOutage: indoors),
                // Lunch: lift down, walk, sit outdoors, walk back.
                ScenarioSegment(.liftDown, durationS: 40, floors: 5, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 600, headingChangeDeg: 120),
                ScenarioSegment(.stationary, durationS: 1_800),
                ScenarioSegment(.walk, durationS: 600, headingChangeDeg: 180),
                ScenarioSegment(.liftUp, durationS: 40, floors: 5, gnssOutage: indoors),
                // Afternoon.
                ScenarioSegment(.stationary, durationS: 7_200, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 60, headingChangeDeg: 180, gnssOutage: indoors),
                ScenarioSegment(.stationary, durationS: 6_420, gnssOutage: indoors),
                // Out: stairs down, bike, run, bike back, walk to the car, drive home.
                ScenarioSegment(.stairsDown, durationS: 90, headingChangeDeg: -720, floors: 5, gnssOutage: indoors),
                ScenarioSegment(.walk, durationS: 120, headingChangeDeg: 90),
                ScenarioSegment(.cycle, durationS: 1_500, headingChangeDeg: 60),
                ScenarioSegment(.stationary, durationS: 60),
                ScenarioSegment(.run, durationS: 900, headingChangeDeg: 180),
                ScenarioSegment(.run, durationS: 900, headingChangeDeg: 180),
                ScenarioSegment(.stationary, durationS: 120),
                ScenarioSegment(.cycle, durationS: 1_500, headingChangeDeg: -60),
                ScenarioSegment(.walk, durationS: 180, headingChangeDeg: 90),
                ScenarioSegment(.stationary, durationS: 30),
                ScenarioSegment(.drive, durationS: 700, speedMps: 15, headingChangeDeg: 135),
                ScenarioSegment(.drive, durationS: 90, speedMps: 18, headingChangeDeg: -30, gnssOutage: true),
                ScenarioSegment(.drive, durationS: 650, speedMps: 12, headingChangeDeg: -90),
                ScenarioSegment(.stationary, durationS: 30),
                ScenarioSegment(.walk, durationS: 150, headingChangeDeg: 90),
                // Evening at home.
                ScenarioSegment(.stationary, durationS: 10_800, gnssOutage: indoors)
            ])
    }()

    /// An hour of errands (50 min), phone in a jacket pocket: at rest indoors, walk to a shop, wait outside, walk on,
    /// drive to a supermarket, shop indoors, drive back, at rest. The short day-like case for quick harness runs.
    static let hourErrands = zurich(
        "hour-errands",
        "50 min: rest indoors 5 min, walk 5 min, wait outdoors 2 min, walk 3 min, drive 10 min, shop indoors 6 min, "
            + "drive 10 min, rest indoors 8 min",
        heading: 0, mounting: mounting(rollDeg: 80, pitchDeg: 10),
        [
            ScenarioSegment(.stationary, durationS: 300, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 300, headingChangeDeg: 90),
            ScenarioSegment(.stationary, durationS: 120),
            ScenarioSegment(.walk, durationS: 180, headingChangeDeg: -90),
            ScenarioSegment(.drive, durationS: 600, speedMps: 12, headingChangeDeg: 90),
            ScenarioSegment(.walk, durationS: 60, gnssOutage: true),
            ScenarioSegment(.stationary, durationS: 300, gnssOutage: true),
            ScenarioSegment(.walk, durationS: 60, headingChangeDeg: 180),
            ScenarioSegment(.drive, durationS: 600, speedMps: 12, headingChangeDeg: -90),
            ScenarioSegment(.stationary, durationS: 480, gnssOutage: true)
        ])
}
