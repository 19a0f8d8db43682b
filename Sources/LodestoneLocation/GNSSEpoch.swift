import LodestoneCore

/// A UTC instant with nanosecond resolution, as receivers report it (no leap-second smearing; POSIX seconds).
public struct UTCTime: Sendable, Hashable, Comparable {
    /// Seconds since 1970-01-01T00:00:00Z (POSIX: 86 400 per day).
    public var seconds: Int64
    /// Nanoseconds within the second, 0 ..< 1 000 000 000.
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) { self.seconds = seconds; self.nanoseconds = nanoseconds }

    /// Seconds since 1970 as a Double (µs resolution until 2242).
    public var secondsSince1970: Double { Double(seconds) + Double(nanoseconds) * 1e-9 }

    public static func < (a: UTCTime, b: UTCTime) -> Bool { (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds) }

    /// POSIX seconds of a civil UTC date and time. Out-of-range days and months roll over like `timegm(3)`
    /// (day 32 of January is 1 February), which is how a midnight wrap within an epoch is carried (`UTCCalendar`).
    public static func secondsSince1970(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        UTCCalendar.unixSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The civil date and time of the instant (proleptic Gregorian, UTC; `UTCCalendar`).
    public var civil: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) { UTCCalendar.civil(unixS: seconds) }

    /// ISO 8601 with milliseconds, as gpsd prints it (`2010-07-08T00:59:47.000Z`; rounded to the millisecond).
    public var iso8601: String { UTCCalendar.iso8601(unixS: seconds, nanoseconds: nanoseconds, fractionDigits: 3) }
}

/// One report of a receiver's solution, with gpsd's TPV fields (`gpsd_json(5)`), SI units. Absent values are
/// `nil`.
///
/// Receiver-reported fields: `mode`, `status`, `time`, `latitudeDeg`, `longitudeDeg`, `altitudeMSLM`,
/// `geoidSeparationM` (the receiver's, else the EGM96 model's: `Geoid`), `speedMps`, `trackDeg`, velocities. Derived as gpsd derives
/// them: `altitudeHAEM` = MSL + separation, `climbMps` = Δ altHAE / Δt between epochs (unless the receiver
/// reports a vertical velocity; in a high-rate epoch always the receiver's, see `isHighRateSolution`),
/// `speedMps` from the distance between fixes when the receiver gives none, and
/// gpsd's error model: `ephM` = HDOP × 19 m (× 4.75 m with DGPS), `epvM` = VDOP × 23 m (5.75 m DGPS),
/// `eptS` = 0.005 s whenever time is known; receivers that report accuracies (UBX) override them.
public struct GNSSFixReport: Sendable, Hashable {
    /// Fix mode.
    public var mode: ReceiverFix.Mode = .unknown
    /// How the position was obtained; `nil` for plain GNSS or unknown (gpsd prints status only from 2 up).
    public var status: ReceiverFix.Quality?
    /// UTC of the epoch; `nil` until the receiver has told the date.
    public var time: UTCTime?
    /// WGS84 geodetic latitude, degrees, + north.
    public var latitudeDeg: Double?
    /// Longitude, degrees, + east.
    public var longitudeDeg: Double?
    /// Height above the WGS84 ellipsoid, m.
    public var altitudeHAEM: Double?
    /// Altitude above mean sea level (the receiver's geoid), m.
    public var altitudeMSLM: Double?
    /// Geoid separation (geoid − ellipsoid), m: the receiver's, or the EGM96 model's at the fix when it sent none.
    public var geoidSeparationM: Double?
    /// Speed over ground, m/s.
    public var speedMps: Double?
    /// Course over ground, degrees true, [0, 360).
    public var trackDeg: Double?
    /// Course over ground, degrees magnetic, [0, 360), when the receiver reports it.
    public var magneticTrackDeg: Double?
    /// Magnetic variation, degrees, + east, when the receiver reports it.
    public var magneticVariationDeg: Double?
    /// Vertical speed, m/s, + up.
    public var climbMps: Double?
    /// Velocity north, east, down, m/s (UBX).
    public var velocityNEDMps: (north: Double, east: Double, down: Double)? {
        get { velN.map { ($0, velE ?? 0, velD ?? 0) } }
        set { velN = newValue?.north; velE = newValue?.east; velD = newValue?.down }
    }
    var velN: Double?, velE: Double?, velD: Double?
    /// Horizontal position error, m (gpsd `eph`, 95 % by gpsd's convention, or the receiver's own estimate).
    public var ephM: Double?
    /// Vertical position error, m (gpsd `epv`).
    public var epvM: Double?
    /// Time error, s (gpsd `ept`).
    public var eptS: Double?
    /// Speed error, m/s (gpsd `eps`, when the receiver reports it).
    public var epsMps: Double?
    /// Course error, degrees (gpsd `epd`, when the receiver reports it).
    public var epdDeg: Double?
    /// Dilutions of precision reported by the receiver.
    public var hdop: Double?, vdop: Double?, pdop: Double?
    /// Satellites used in the solution.
    public var satellitesUsed: Int?
    /// Age of differential corrections, s, and the reference station.
    public var dgpsAgeS: Double?
    public var dgpsStation: Int?
    /// True for a dead-reckoning receiver's high-rate solution (u-blox HNR-PVT, up to 30 Hz): its navigation
    /// solution propagated by the receiver's own sensor fusion between navigation epochs, so successive reports
    /// are not independent measurements. Its `status` (when plain GNSS) and `climbMps` are those of the latest
    /// navigation solution, which HNR-PVT does not restate; `climbMps` is nil until there is one.
    public var isHighRateSolution = false
    /// True when `geoidSeparationM` is the EGM96 model's (`Geoid`) because the receiver sent none; one of
    /// `altitudeHAEM` and `altitudeMSLM` was then made from it (gpsd fills it the same way from its own table).
    public var geoidSeparationFromModel = false

    public init() {}

    public static func == (a: GNSSFixReport, b: GNSSFixReport) -> Bool {
        a.mode == b.mode && a.status == b.status && a.time == b.time && a.latitudeDeg == b.latitudeDeg
            && a.longitudeDeg == b.longitudeDeg && a.altitudeHAEM == b.altitudeHAEM && a.altitudeMSLM == b.altitudeMSLM
            && a.geoidSeparationM == b.geoidSeparationM && a.speedMps == b.speedMps && a.trackDeg == b.trackDeg
            && a.climbMps == b.climbMps && a.ephM == b.ephM && a.epvM == b.epvM && a.eptS == b.eptS
            && a.velN == b.velN && a.velE == b.velE && a.velD == b.velD && a.magneticTrackDeg == b.magneticTrackDeg
            && a.magneticVariationDeg == b.magneticVariationDeg && a.epsMps == b.epsMps && a.epdDeg == b.epdDeg
            && a.hdop == b.hdop && a.vdop == b.vdop && a.pdop == b.pdop && a.satellitesUsed == b.satellitesUsed
            && a.dgpsAgeS == b.dgpsAgeS && a.dgpsStation == b.dgpsStation && a.isHighRateSolution == b.isHighRateSolution
            && a.geoidSeparationFromModel == b.geoidSeparationFromModel
    }

    public func hash(into h: inout Hasher) {
        h.combine(mode); h.combine(time); h.combine(latitudeDeg); h.combine(longitudeDeg); h.combine(altitudeHAEM)
    }

    /// The report as fusion's input, stamped with the engine's clock.
    public func receiverFix(timeS: Double) -> ReceiverFix {
        var f = ReceiverFix(timeS: timeS, mode: mode)
        f.utcS = time?.secondsSince1970
        f.quality = status ?? (mode >= .twoDimensional ? .gnss : nil)
        if mode >= .twoDimensional {
            f.latitudeDeg = latitudeDeg
            f.longitudeDeg = longitudeDeg
            f.altitudeMSLM = altitudeMSLM
            f.heightAboveEllipsoidM = altitudeHAEM
            f.geoidSeparationM = geoidSeparationM
            f.speedMps = speedMps
            f.courseDeg = trackDeg
            f.climbMps = climbMps
            if let n = velN, let e = velE, let d = velD { f.velocityENUMps = Vector3(e, n, -d) }
            f.horizontalAccuracyM = ephM
            f.verticalAccuracyM = mode == .threeDimensional ? epvM : nil
            f.speedAccuracyMps = epsMps
            f.courseAccuracyDeg = epdDeg
        }
        f.hdop = hdop
        f.vdop = vdop
        f.pdop = pdop
        f.satellitesUsed = satellitesUsed
        return f
    }
}

/// One satellite of a sky view (gpsd's SKY `satellites[]`).
public struct GNSSSatellite: Sendable, Hashable {
    /// gpsd's extended PRN (NMEA 4.0 numbering: GPS 1–32, SBAS 33–64/120–158, GLONASS 65–96, QZSS 193–202,
    /// Galileo 301–336, BeiDou 401–437).
    public var prn: Int
    /// u-blox GNSS id (0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 4 IMES, 5 QZSS, 6 GLONASS, 7 NavIC) and the
    /// satellite's number within it.
    public var gnssID: Int
    public var svID: Int
    /// Signal id (u-blox numbering), when the receiver says.
    public var signalID: Int?
    /// Elevation and azimuth, degrees; signal strength C/N0, dB-Hz. `nil` when not reported.
    public var elevationDeg: Double?
    public var azimuthDeg: Double?
    public var signalDBHz: Double?
    /// True when the satellite is used in the solution.
    public var used: Bool

    public init(
        prn: Int, gnssID: Int, svID: Int, signalID: Int? = nil, elevationDeg: Double?, azimuthDeg: Double?,
        signalDBHz: Double?, used: Bool
    ) {
        self.prn = prn; self.gnssID = gnssID; self.svID = svID; self.signalID = signalID
        self.elevationDeg = elevationDeg; self.azimuthDeg = azimuthDeg; self.signalDBHz = signalDBHz; self.used = used
    }
}
