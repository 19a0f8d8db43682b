/// One epoch's solution as a GNSS receiver (or gpsd, or a recorded log, or a simulated receiver) reports it:
/// the *input* of location fusion, not its output. Every field a receiver may leave out is optional; an
/// absent value is `nil`, never NaN or a sentinel.
///
/// Fields follow gpsd's TPV report (`gpsd_json(5)`), in SI units with the unit in each name.
public struct ReceiverFix: Sendable, Hashable, Codable {
    /// How much of a position the receiver has (gpsd's `mode`).
    public enum Mode: Int, Sendable, Hashable, Codable, Comparable {
        /// Mode not yet known (gpsd 0).
        case unknown = 0
        /// The receiver says it has no fix (gpsd 1).
        case noFix = 1
        /// Latitude and longitude only; any height is a guess (gpsd 2).
        case twoDimensional = 2
        /// Latitude, longitude and height (gpsd 3).
        case threeDimensional = 3

        public static func < (a: Mode, b: Mode) -> Bool { a.rawValue < b.rawValue }
    }

    /// How the position was obtained (gpsd's `status`; 0/1 = plain GNSS).
    public enum Quality: Int, Sendable, Hashable, Codable {
        /// Autonomous GNSS (gpsd 1, GGA quality 1).
        case gnss = 1
        /// Differential GNSS / SBAS (gpsd 2, GGA quality 2).
        case differential = 2
        /// RTK with fixed integers (gpsd 3, GGA quality 4).
        case rtkFixed = 3
        /// RTK float (gpsd 4, GGA quality 5).
        case rtkFloat = 4
        /// Dead reckoning only (gpsd 5, GGA quality 6).
        case deadReckoning = 5
        /// GNSS combined with dead reckoning (gpsd 6).
        case gnssDeadReckoning = 6
        /// Surveyed / fixed position, time only (gpsd 7, GGA quality 7).
        case surveyed = 7
        /// Simulated by software (gpsd 8, GGA quality 8): a GPX playback or a simulated receiver.
        case simulated = 8
        /// Military P(Y) code (gpsd 9, GGA quality 3).
        case precise = 9
    }

    /// Arrival time of the epoch on the engine's monotonic clock, s.
    public var timeS: Double
    /// The receiver's UTC time of the epoch, s since 1970-01-01T00:00:00Z; `nil` until the receiver knows
    /// the date (GGA alone carries no date).
    public var utcS: Double?
    /// Fix mode.
    public var mode: Mode
    /// Fix quality; `nil` when not reported.
    public var quality: Quality?
    /// Geodetic latitude, WGS84, degrees, + north.
    public var latitudeDeg: Double?
    /// Longitude, degrees, + east.
    public var longitudeDeg: Double?
    /// Altitude above mean sea level (the receiver's geoid), m.
    public var altitudeMSLM: Double?
    /// Height above the WGS84 ellipsoid, m.
    public var heightAboveEllipsoidM: Double?
    /// Geoid separation (geoid − ellipsoid), m.
    public var geoidSeparationM: Double?
    /// Speed over ground, m/s.
    public var speedMps: Double?
    /// Course over ground, degrees clockwise from true north, [0, 360).
    public var courseDeg: Double?
    /// Vertical speed, m/s, + up.
    public var climbMps: Double?
    /// Velocity, East-North-Up, m/s, when the receiver reports all three components (UBX NAV-PVT).
    public var velocityENUMps: Vector3?
    /// Horizontal position accuracy, m (1σ per axis combined as the receiver states it; gpsd `eph`).
    public var horizontalAccuracyM: Double?
    /// Vertical position accuracy, m (gpsd `epv`).
    public var verticalAccuracyM: Double?
    /// Speed accuracy, m/s (gpsd `eps`).
    public var speedAccuracyMps: Double?
    /// Course accuracy, degrees (gpsd `epd`).
    public var courseAccuracyDeg: Double?
    /// Dilutions of precision, when reported.
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// Satellites used in the solution.
    public var satellitesUsed: Int?

    /// A fix with only a time and a mode; set the rest by name.
    public init(timeS: Double, mode: Mode) {
        self.timeS = timeS
        self.mode = mode
    }

    /// True when the fix carries a usable horizontal position (mode 2D or 3D with latitude and longitude).
    public var hasPosition: Bool { mode >= .twoDimensional && latitudeDeg != nil && longitudeDeg != nil }

    /// Height above the ellipsoid: as reported, or altitude MSL + geoid separation when both are known.
    public var ellipsoidalHeightM: Double? {
        heightAboveEllipsoidM ?? altitudeMSLM.flatMap { a in geoidSeparationM.map { a + $0 } }
    }
}
