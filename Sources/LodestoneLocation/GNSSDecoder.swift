import LodestoneCore
import RealModule

/// What changed in one packet, gpsd's "mask" (`gps_mask_t`): each sentence handler returns one, and the
/// epoch assembler merges by it and decides from it when to report.
public struct GNSSChange: OptionSet, Sendable, Hashable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public static let online = GNSSChange(rawValue: 1 << 0)
    public static let time = GNSSChange(rawValue: 1 << 1)
    public static let latLon = GNSSChange(rawValue: 1 << 2)
    public static let altitude = GNSSChange(rawValue: 1 << 3)
    public static let speed = GNSSChange(rawValue: 1 << 4)
    public static let track = GNSSChange(rawValue: 1 << 5)
    public static let climb = GNSSChange(rawValue: 1 << 6)
    public static let status = GNSSChange(rawValue: 1 << 7)
    public static let mode = GNSSChange(rawValue: 1 << 8)
    public static let dop = GNSSChange(rawValue: 1 << 9)
    public static let horizontalError = GNSSChange(rawValue: 1 << 10)
    public static let verticalError = GNSSChange(rawValue: 1 << 11)
    public static let attitude = GNSSChange(rawValue: 1 << 12)
    public static let satellites = GNSSChange(rawValue: 1 << 13)
    public static let used = GNSSChange(rawValue: 1 << 14)
    public static let magneticTrack = GNSSChange(rawValue: 1 << 15)
    public static let noise = GNSSChange(rawValue: 1 << 16)
    public static let navigationData = GNSSChange(rawValue: 1 << 17)
    public static let velocityNED = GNSSChange(rawValue: 1 << 18)
    public static let speedError = GNSSChange(rawValue: 1 << 19)
    public static let oscillator = GNSSChange(rawValue: 1 << 20)
    /// Report the epoch now (gpsd's `REPORT_IS`).
    public static let report = GNSSChange(rawValue: 1 << 30)
    /// The sentence ends the receiver's reporting cycle: the epoch's solution is complete.
    public static let cycleEnd = GNSSChange(rawValue: 1 << 29)
    /// The sentence starts a new epoch: the previous epoch's state is cleared before merging.
    public static let clear = GNSSChange(rawValue: 1 << 31)
}

/// Decodes a GNSS receiver's byte stream (NMEA 0183 and u-blox UBX, mixed) into epochs, the way gpsd 3.27
/// assembles them, without allocating once warmed up.
///
/// Within an epoch, each sentence adds what it knows; a sentence whose UTC time differs from the previous
/// time-stamped one starts the next epoch (state cleared, as gpsd's `CLEAR_IS`). The assembler learns which
/// sentence ends a receiver's cycle (gpsd's cycle-end detector: the last time-stamped sentence before the time
/// advances) and reports then; until the cycle end is known it reports whenever position or mode change.
///
/// Derived quantities follow gpsd's error model (`gpsd_error_model()`): the geoid separation, when the receiver
/// sends none, from the EGM96 model at the fix (`Geoid`; gpsd uses its own 5° EGM2008 table, so that value and the
/// height made from it differ from gpsd's by up to a few metres), height above the ellipsoid from MSL altitude and
/// that separation (or MSL altitude from the ellipsoidal height), climb from successive heights (in a u-blox high-rate epoch the
/// navigation solution's vertical velocity instead, UBXDecoder.swift), speed from successive
/// positions when the receiver gives none, and `eph`/`epv` from the receiver's DOPs (19 m and 23 m UERE,
/// 4.75 m and 5.75 m with DGPS). gpsd's magnetic model and sky-geometry DOPs are not reproduced.
public struct GNSSDecoder {
    /// What the decoder reports.
    public enum Event {
        /// gpsd would publish a TPV now: the epoch's solution so far. Several per epoch as it fills up;
        /// `endsCycle` when the receiver's cycle end was detected (the epoch is complete).
        case report(GNSSFixReport, endsCycle: Bool)
        /// A complete satellite view arrived (read it from `satellites`).
        case sky
        /// True heading from HDT (degrees), gpsd's ATT.
        case heading(Double)
    }

    /// Settings.
    public struct Configuration: Sendable {
        /// The century of two-digit years (RMC's ddmmyy) until a four-digit year (ZDA) or a recorded log's
        /// `# Date:` header says otherwise. Default 2000.
        public var century: Int = 2000
        public init(century: Int = 2000) { self.century = century }
    }

    public private(set) var framer = GNSSFramer()
    /// Sentences handed to a decoder, and those that were well-framed but not understood (proprietary, marine).
    public internal(set) var decodedSentences = 0
    public internal(set) var ignoredSentences = 0
    /// Sentences with a known type but too few fields.
    public internal(set) var shortSentences = 0
    /// Well-framed sentences longer than gpsd decodes (`maximumDecodedSentenceLength`), left undecoded.
    public internal(set) var overLongSentences = 0
    /// UBX frames decoded and ignored.
    public internal(set) var decodedUBX = 0
    public internal(set) var ignoredUBX = 0

    // MARK: context (gpsd's gps_context_t)
    var century: Int

    // MARK: NMEA driver state (gpsd's session->nmea)
    var dateYear = 0 // struct tm tm_year: years since 1900; 0 = no date yet
    var dateMonth0 = 0 // 0-based
    var dateDay = 0
    var dateHour = 0, dateMinute = 0, dateSecond = 0
    var subsecondNanos = 0
    var thisFractionalTime = 0.0, lastFractionalTime = 0.0
    var latchFractionalTime = false
    var lastTag = 0
    var cycleEnders: [Bool]
    var cycleContinue = false
    var lastGGATalker: UInt8 = 0
    var lastGGATimestamp: [UInt8]
    var lastGGATimestampLength = 0
    var latchMode = false
    var lastGSATalker: UInt8 = 0
    var lastGSVTalker: UInt8 = 0
    var seenGSA: UInt16 = 0
    var seenGSV: UInt16 = 0
    var gsvPart = 0, gsvAwait = 0
    var gsxMore = false
    var satsUsed: [Int]
    /// Field offsets of the sentence being decoded (gpsd's `field[]`), reused for every sentence.
    var fieldStarts: [Int]
    var satellitesUsedCount = 0

    // MARK: session state
    var cycleEndReliable = false
    var newdata = Fix()
    var fix = Fix()
    var lastfix = Fix()
    var oldfix = Fix()
    var dop = DOP()
    var skyview: [GNSSSatellite]
    var satellitesVisible = 0
    var attitudeHeadingDeg = Double.nan
    /// UBX: the iTOW of the epoch being assembled.
    var ubxEpochTOW: UInt32?
    /// UBX: HNR-PVT messages arrive (a dead-reckoning receiver's high-rate solution).
    var sawHighRatePVT = false
    /// UBX: the latest navigation solution, what the high-rate epochs inherit from it.
    var navigationSolution = UBXNavigationSolution()

    /// gpsd's MAXCHANNELS.
    static let maximumChannels = 184

    public init(configuration: Configuration = Configuration()) {
        century = configuration.century
        cycleEnders = Array(repeating: false, count: NMEASentenceType.allCases.count + 1)
        lastGGATimestamp = Array(repeating: 0, count: 16)
        satsUsed = Array(repeating: 0, count: Self.maximumChannels)
        fieldStarts = Array(repeating: 0, count: Self.maximumFields + 1)
        skyview = []
        skyview.reserveCapacity(Self.maximumChannels)
    }

    /// The current sky view (valid after a `.sky` event).
    public var satellites: ArraySlice<GNSSSatellite> { skyview[0..<satellitesVisible] }

    /// DOPs as the receiver last reported them (NaN-free: `nil` when unknown).
    public var dilutions: (hdop: Double?, vdop: Double?, pdop: Double?) {
        (dop.hdop.finite, dop.vdop.finite, dop.pdop.finite)
    }

    /// Satellites the receiver says it used (GSA / UBX), or nil.
    public var satellitesUsed: Int? { satellitesUsedCount > 0 ? satellitesUsedCount : nil }

    // MARK: feeding

    /// Feeds bytes; calls `handle` for every event. Allocation-free once the sky view has reached its size.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handle: (Event) -> Void) {
        for b in bytes { feed(byte: b, handle) }
    }

    /// Feeds one byte.
    @inline(__always)
    public mutating func feed(byte: UInt8, _ handle: (Event) -> Void) {
        guard let kind = framer.push(byte) else { return }
        switch kind {
        case .nmea:
            let f = framer
            f.withPacket { packet in handleSentence(packet, handle) }
        case .ubx:
            let f = framer
            f.withPacket { packet in handleUBX(packet, handle) }
        case .comment:
            let f = framer
            f.withPacket { packet in handleComment(packet) }
        }
    }

    /// Ends the input (a file's end): an open sentence counts as truncated.
    public mutating func finish() { framer.finish() }

    /// `# Date: yyyy-mm-dd` in a recorded log sets the century (gpsd's regression-test convention).
    mutating func handleComment(_ line: UnsafeBufferPointer<UInt8>) {
        let prefix: StaticString = "# Date: "
        guard line.count >= prefix.utf8CodeUnitCount + 4 else { return }
        let f = NMEAField(line)
        guard f.hasPrefix(prefix) else { return }
        let rest = NMEAField(UnsafeBufferPointer(rebasing: line[prefix.utf8CodeUnitCount...]))
        let year = rest.int
        guard (1968...2200).contains(year) else { return }
        century = year - year % 100
    }

    // MARK: the per-packet epoch logic (gpsd_poll + all_reports)

    /// Merges what the packet decoded (`newdata`, `mask`) into the epoch and reports like gpsd.
    mutating func completePacket(_ received: GNSSChange, _ handle: (Event) -> Void) {
        var set = received.union(.online)
        if set.contains(.clear) {
            attitudeHeadingDeg = .nan
            if !set.contains(.dop) { dop = DOP() }
            fix = Fix()
        }
        fix.merge(newdata, set)
        errorModel()
        if !cycleEndReliable && !set.isDisjoint(with: [.attitude, .latLon, .mode, .time]) { set.insert(.report) }
        if set.contains(.satellites) && satellitesVisible > 0 { handle(.sky) }
        if set.contains(.attitude), attitudeHeadingDeg.isFinite { handle(.heading(attitudeHeadingDeg)) }
        if set.contains(.report) { handle(.report(report(), endsCycle: received.contains(.cycleEnd))) }
    }

    /// The epoch as gpsd would print its TPV: position fields only from 2D up.
    func report() -> GNSSFixReport {
        var r = GNSSFixReport()
        r.mode = ReceiverFix.Mode(rawValue: fix.mode) ?? .unknown
        r.status = fix.status >= 2 ? ReceiverFix.Quality(rawValue: fix.status) : nil
        if fix.timeSeconds > 0 { r.time = UTCTime(seconds: fix.timeSeconds, nanoseconds: fix.timeNanos) }
        r.eptS = fix.ept.finite
        r.isHighRateSolution = fix.highRate
        if fix.mode >= 2 {
            r.latitudeDeg = fix.latitude.finite
            r.longitudeDeg = fix.longitude.finite
            r.altitudeHAEM = fix.altHAE.finite
            r.altitudeMSLM = fix.altMSL.finite
            r.geoidSeparationM = fix.mode >= 3 ? fix.geoidSeparation.finite : nil // gpsd prints it in 3D only
            r.geoidSeparationFromModel = r.geoidSeparationM != nil && fix.geoidSeparationFromModel
            r.speedMps = fix.speed.finite
            r.trackDeg = fix.track.finite
            r.magneticTrackDeg = fix.magneticTrack.finite
            r.magneticVariationDeg = fix.magneticVariation.finite
            r.climbMps = fix.climb.finite
            r.ephM = fix.eph.finite
            r.epvM = fix.epv.finite
            r.epsMps = fix.eps.finite
            r.epdDeg = fix.epd.finite
            if fix.velN.isFinite && fix.velE.isFinite && fix.velD.isFinite {
                r.velN = fix.velN; r.velE = fix.velE; r.velD = fix.velD
            } else if fix.reportedVelN.isFinite && fix.reportedVelE.isFinite && fix.reportedVelD.isFinite {
                r.velN = fix.reportedVelN; r.velE = fix.reportedVelE; r.velD = fix.reportedVelD
            }
            if fix.dgpsAge.isFinite && fix.dgpsStation >= 0 { r.dgpsAgeS = fix.dgpsAge; r.dgpsStation = fix.dgpsStation }
        }
        r.hdop = dop.hdop.finite
        r.vdop = dop.vdop.finite
        r.pdop = dop.pdop.finite
        r.satellitesUsed = satellitesUsedCount > 0 ? satellitesUsedCount : nil
        return r
    }

    /// gpsd's `gpsd_error_model()`: sanity limits and derived quantities.
    mutating func errorModel() {
        var deltaTime = -1.0
        if fix.timeSeconds > 0 {
            deltaTime = fix.timeDifference(lastfix)
            if abs(deltaTime) > 0.0099 {
                oldfix = lastfix
            } else {
                deltaTime = fix.timeDifference(oldfix)
            }
        }
        let dgps = fix.status == 2
        let hUERE = dgps ? 4.75 : 19.0 // gpsd's P_UERE: eph = HDOP × P_UERE
        let vUERE = dgps ? 5.75 : 23.0
        if !fix.latitude.isFinite || !fix.longitude.isFinite || abs(fix.latitude) > 90 || abs(fix.longitude) > 180 {
            fix.latitude = .nan; fix.longitude = .nan
        }
        if abs(fix.speed) > 9999.9 { fix.speed = .nan }
        if abs(fix.velN) > 9999.9 { fix.velN = .nan }
        if abs(fix.velE) > 9999.9 { fix.velE = .nan }
        if abs(fix.velD) > 9999.9 { fix.velD = .nan }
        if abs(fix.climb) > 9999.9 { fix.climb = .nan }
        if fix.velD.isFinite && !fix.climb.isFinite { fix.climb = -fix.velD }
        if fix.velN.isFinite && fix.velE.isFinite {
            if !fix.speed.isFinite { fix.speed = (fix.velN * fix.velN + fix.velE * fix.velE).squareRoot() }
            if !fix.track.isFinite { fix.track = Angle.degrees(fromRadians: Double.atan2(y: fix.velE, x: fix.velN)) }
        }
        if fix.magneticVariation.isFinite {
            if !fix.magneticTrack.isFinite && fix.track.isFinite {
                fix.magneticTrack = fix.track + fix.magneticVariation
            } else if fix.magneticTrack.isFinite && !fix.track.isFinite {
                fix.track = fix.magneticTrack - fix.magneticVariation
            }
        }
        if fix.track.isFinite { fix.track = Self.normalized(fix.track) }
        if fix.magneticTrack.isFinite { fix.magneticTrack = Self.normalized(fix.magneticTrack) }
        // gpsd fills a separation the receiver did not send whenever the position is known, so that both heights
        // are there when either is.
        if !fix.geoidSeparation.isFinite,
            let separation = Geoid.separationM(latitudeDeg: fix.latitude, longitudeDeg: fix.longitude)
        {
            fix.geoidSeparation = separation
            fix.geoidSeparationFromModel = true
        }
        if fix.geoidSeparation.isFinite {
            if fix.altHAE.isFinite && !fix.altMSL.isFinite {
                fix.altMSL = fix.altHAE - fix.geoidSeparation
            } else if !fix.altHAE.isFinite && fix.altMSL.isFinite {
                fix.altHAE = fix.altMSL + fix.geoidSeparation
            }
        }
        if deltaTime > 0, fix.mode >= 2, oldfix.mode >= 2 {
            if !fix.speed.isFinite {
                fix.speed =
                    EarthDistance.vincentyM(
                        latitude1Deg: fix.latitude, longitude1Deg: fix.longitude,
                        latitude2Deg: oldfix.latitude, longitude2Deg: oldfix.longitude) / deltaTime
                if abs(fix.speed) > 9999.9 { fix.speed = .nan }
            }
            // Not between high-rate epochs: each navigation epoch re-anchors them (UBXDecoder.swift).
            if fix.mode >= 3, oldfix.mode >= 3, !fix.climb.isFinite, !fix.highRate {
                if fix.altHAE.isFinite, oldfix.altHAE.isFinite {
                    fix.climb = (fix.altHAE - oldfix.altHAE) / deltaTime
                } else if fix.altMSL.isFinite, oldfix.altMSL.isFinite {
                    // No geoid separation from the receiver: over one epoch's baseline the geoid is flat to
                    // well under a millimetre, so the MSL difference is the ellipsoidal one.
                    fix.climb = (fix.altMSL - oldfix.altMSL) / deltaTime
                }
                if abs(fix.climb) > 9999.9 { fix.climb = .nan }
            }
        }
        if fix.timeSeconds > 0 && !fix.ept.isFinite { fix.ept = 0.005 }
        if fix.mode >= 2 {
            if fix.mode >= 3 && !fix.epv.isFinite && dop.vdop.isFinite { fix.epv = dop.vdop * vUERE }
            if !fix.eph.isFinite && dop.hdop.isFinite { fix.eph = dop.hdop * hUERE }
        }
        if fix.timeSeconds > 0 { lastfix = fix }
    }

    /// Degrees into [0, 360). The same value as gpsd's loops of ±360 (for their usual inputs, within one turn, one
    /// step either way is exact), in constant time: the loops never ended on a corrupted 1e20° (adding 360 leaves it
    /// unchanged), which the fuzzer found as a sentence that hung the decoder.
    static func normalized(_ d: Double) -> Double {
        guard d.isFinite else { return d }
        var v = d.truncatingRemainder(dividingBy: 360)
        if v < 0 { v += 360 }
        if v >= 360 { v -= 360 }
        return v
    }
}

/// gpsd's `gps_fix_t`, the epoch state being assembled. Inside the decoder unknown values are NaN (gpsd's model,
/// kept so the merge rules read as gpsd's do); everything leaving the decoder is an optional.
struct Fix {
    var timeSeconds: Int64 = 0
    var timeNanos: Int32 = 0
    var mode = 0
    var status = 0
    var latitude = Double.nan, longitude = Double.nan
    var altHAE = Double.nan, altMSL = Double.nan, geoidSeparation = Double.nan, depth = Double.nan
    var speed = Double.nan, track = Double.nan, magneticTrack = Double.nan, magneticVariation = Double.nan
    var climb = Double.nan
    var ept = Double.nan, eph = Double.nan, epv = Double.nan, eps = Double.nan, epd = Double.nan
    var velN = Double.nan, velE = Double.nan, velD = Double.nan
    /// A velocity the receiver reported that does not feed the derived quantities (UBX NAV-PVT), m/s NED.
    var reportedVelN = Double.nan, reportedVelE = Double.nan, reportedVelD = Double.nan
    var dgpsAge = Double.nan, dgpsStation = -1
    /// `geoidSeparation` is the EGM96 model's, not the receiver's.
    var geoidSeparationFromModel = false
    /// The receiver's high-rate solution (UBX HNR-PVT), not its navigation solution.
    var highRate = false

    /// Time difference to `other`, s.
    func timeDifference(_ other: Fix) -> Double {
        // In Double: any two fixes' times subtract without trapping (exact while |seconds| < 2⁵³).
        (Double(timeSeconds) - Double(other.timeSeconds)) + (Double(timeNanos) - Double(other.timeNanos)) * 1e-9
    }

    /// gpsd's `gps_merge_fix()`: copy from `new` what `set` says changed, and any finite error estimate.
    mutating func merge(_ new: Fix, _ set: GNSSChange) {
        if set.contains(.time) { timeSeconds = new.timeSeconds; timeNanos = new.timeNanos }
        if set.contains(.latLon) { latitude = new.latitude; longitude = new.longitude }
        if set.contains(.mode) { mode = new.mode }
        // Status is only ever upgraded within an epoch.
        if set.contains(.status), status < new.status { status = new.status }
        if set.contains(.altitude) {
            if new.altHAE.isFinite { altHAE = new.altHAE }
            if new.altMSL.isFinite { altMSL = new.altMSL }
            if new.depth.isFinite { depth = new.depth }
        }
        if set.contains(.track) { track = new.track }
        if set.contains(.magneticTrack) {
            if new.magneticTrack.isFinite { magneticTrack = new.magneticTrack }
            if new.magneticVariation.isFinite { magneticVariation = new.magneticVariation }
        }
        if set.contains(.speed) { speed = new.speed }
        if set.contains(.climb) { climb = new.climb }
        if new.epd.isFinite { epd = new.epd }
        if new.eph.isFinite { eph = new.eph }
        if new.eps.isFinite { eps = new.eps }
        if new.geoidSeparation.isFinite {
            geoidSeparation = new.geoidSeparation
            geoidSeparationFromModel = false
        }
        if new.epv.isFinite { epv = new.epv }
        if set.contains(.velocityNED) {
            velN = new.velN; velE = new.velE; velD = new.velD
            reportedVelN = new.reportedVelN; reportedVelE = new.reportedVelE; reportedVelD = new.reportedVelD
        }
        if new.dgpsAge.isFinite && new.dgpsStation >= 0 { dgpsAge = new.dgpsAge; dgpsStation = new.dgpsStation }
        if new.highRate { highRate = true }
    }
}

/// Dilutions of precision as the receiver reported them (NaN = not reported, inside the decoder only).
struct DOP {
    var hdop = Double.nan, vdop = Double.nan, pdop = Double.nan
}

extension Double {
    /// `self`, or nil when not finite: the boundary where the decoder's NaNs become optionals.
    @inlinable var finite: Double? { isFinite ? self : nil }
}

/// Distance on the WGS84 ellipsoid, for gpsd's speed-from-positions: Vincenty's inverse formula (T. Vincenty,
/// "Direct and inverse solutions of geodesics on the ellipsoid", Survey Review 23(176), 1975, eqs. 13–19 and
/// 3–6), iterated to 1e-12 rad. Adequate for the short baselines between successive fixes.
public enum EarthDistance {
    /// Distance between two points, m (NaN if the iteration does not converge, near-antipodal points).
    public static func vincentyM(latitude1Deg: Double, longitude1Deg: Double, latitude2Deg: Double, longitude2Deg: Double)
        -> Double
    {
        let a = WGS84.semiMajorAxisM, f = WGS84.flattening
        let b = a * (1 - f)
        let L = Angle.radians(fromDegrees: longitude2Deg - longitude1Deg)
        let u1 = Double.atan((1 - f) * Double.tan(Angle.radians(fromDegrees: latitude1Deg)))
        let u2 = Double.atan((1 - f) * Double.tan(Angle.radians(fromDegrees: latitude2Deg)))
        let sinU1 = Double.sin(u1), cosU1 = Double.cos(u1), sinU2 = Double.sin(u2), cosU2 = Double.cos(u2)
        var lambda = L
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cos2Alpha = 0.0, cos2SigmaM = 0.0
        for _ in 0..<100 {
            let sinL = Double.sin(lambda), cosL = Double.cos(lambda)
            let t1 = cosU2 * sinL, t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosL
            sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return 0 }
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL
            sigma = Double.atan2(y: sinSigma, x: cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinL / sinSigma
            cos2Alpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda =
                L + (1 - C) * f * sinAlpha
                * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) <= 1e-12 { break }
        }
        let uSq = cos2Alpha * (a * a - b * b) / (b * b)
        let A = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
        let B = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
        let deltaSigma =
            B * sinSigma
            * (cos2SigmaM + B / 4
                * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                    - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return b * A * (sigma - deltaSigma)
    }
}
