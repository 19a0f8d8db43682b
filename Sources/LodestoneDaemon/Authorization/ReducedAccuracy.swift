#if canImport(Glibc)
    import Glibc // cos: the daemon has no RealModule of its own
#endif
import LodestoneCore
import LodestoneEngine
import LodestoneLocation

/// Approximate location, as iOS gives an app with reduced accuracy (`CLAccuracyAuthorization.reducedAccuracy`),
/// done by the daemon for a client whose `Authorization.accuracy` is `reduced`: one per client identity, shared by its
/// subscriptions and connections (`ReducedAccuracyLedger`). Its state is the time of the last position passed on
/// (`Codable`, so it can be saved and restored).
///
/// A position becomes the centre of the fixed grid cell holding it (about 5 km on a side), with no altitude, speed,
/// course, climb or floor, and at most one position passes per 15 minutes of session time. The grid is a pure function
/// of latitude and longitude, so every fix in a cell gives the same centre and averaging many of them recovers nothing;
/// the rate limit bounds what a client learns from crossings of cell edges.
///
/// The grid: 4001 latitude bands from pole to pole, each 180/4001° (≈ 5 km) tall; each band cut into a whole number of
/// equal longitude cells, as many as make a cell ≈ 5 km wide at the band's centre (at least one, so the polar bands
/// are single cells of at most ≈ 7.5 km around). Cells run east from −180°, so longitude ±180° is the west edge of
/// each band's first cell and no cell straddles the antimeridian.
public struct ReducedAccuracy: Sendable, Hashable, Codable {
    /// The nominal side of a cell, m (iOS's approximate locations are a few kilometres).
    public static let cellSizeM = 5000.0
    /// The least session time between two positions passed on, s (iOS updates approximate locations about every
    /// 15 to 20 minutes).
    public static let minimumIntervalS = 900.0

    /// The number of latitude bands: the WGS84 meridian, pole to pole (2 × 10 001 965.729 m, NIMA TR8350.2), in cells
    /// of `cellSizeM`, rounded. Odd, so that one band is centred on the equator.
    public static let bandCount = Int((2 * 10_001_965.729 / cellSizeM).rounded())
    /// The height of a band, degrees of latitude.
    public static let bandHeightDeg = 180.0 / Double(bandCount)

    /// One cell of the grid.
    public struct Cell: Sendable, Hashable {
        /// The band, from 0 at the south pole to `bandCount − 1` at the north pole.
        public var row: Int
        /// The cell within its band, from 0 at −180° eastwards.
        public var column: Int
        /// The number of cells in the band.
        public var columnCount: Int
        /// The centre: what a reduced client is told.
        public var centreLatitudeDeg: Double
        public var centreLongitudeDeg: Double
        /// Spans of the cell, degrees: it covers [centre − span/2, centre + span/2) in each.
        public var latitudeSpanDeg: Double
        public var longitudeSpanDeg: Double
        /// North–south extent on WGS84 at the centre, m.
        public var heightM: Double
        /// East–west extent along the parallel of the centre, m.
        public var widthM: Double
        /// The larger of `heightM` and `widthM`, m.
        public var sizeM: Double { max(heightM, widthM) }
    }

    /// Session time of the update that last passed a position on, s (`nil` before the first).
    public private(set) var lastPositionTimeS: Double?
    /// The session time of that position itself (`Location.timeS`), s: it can be older than its update's.
    public private(set) var lastLocationTimeS: Double?

    /// A filter that has passed nothing yet: the first position passes at once.
    public init() {}

    /// The fixed grid cell holding a position: its centre and size. Deterministic (a pure function of lat/lon), so
    /// averaging many fixes recovers nothing.
    ///
    /// - Parameters:
    ///   - latitudeDeg: geodetic latitude, degrees; outside [−90, 90] it is clamped.
    ///   - longitudeDeg: longitude, degrees; any finite value, wrapped into [−180, 180).
    /// - Precondition: both are finite (`Location` never holds NaN; `filter` drops an invalid coordinate first).
    public static func cell(latitudeDeg: Double, longitudeDeg: Double) -> Cell {
        precondition(latitudeDeg.isFinite && longitudeDeg.isFinite, "ReducedAccuracy.cell of a non-finite coordinate")
        let latitude = min(90, max(-90, latitudeDeg))
        let row = min(bandCount - 1, Int(((latitude + 90) / bandHeightDeg).rounded(.down)))
        let centreLatitudeDeg = -90 + (Double(row) + 0.5) * bandHeightDeg
        let phi = Angle.radians(fromDegrees: centreLatitudeDeg)
        // The parallel's circumference, 2π N cos φ (N the prime-vertical radius of curvature).
        let parallelM = 2 * Double.pi * WGS84.primeVerticalRadiusM(latitudeRad: phi) * cos(phi)
        let columnCount = max(1, Int((parallelM / cellSizeM).rounded()))
        let spanDeg = 360 / Double(columnCount)
        var longitude = Angle.wrap180(longitudeDeg) // (−180, 180]
        if longitude == 180 { longitude = -180 }
        let column = min(columnCount - 1, Int(((longitude + 180) / spanDeg).rounded(.down)))
        return Cell(
            row: row, column: column, columnCount: columnCount, centreLatitudeDeg: centreLatitudeDeg,
            centreLongitudeDeg: -180 + (Double(column) + 0.5) * spanDeg, latitudeSpanDeg: bandHeightDeg,
            longitudeSpanDeg: spanDeg,
            heightM: WGS84.meridianRadiusM(latitudeRad: phi) * Angle.radians(fromDegrees: bandHeightDeg),
            widthM: parallelM / Double(columnCount))
    }

    /// The update a reduced client gets, or nil when it must not get one yet (at most one position per 15 min of the
    /// update's session time `timeS`, and at least 15 min between the positions' own times, so that neither clock a client
    /// reads shows two positions closer together).
    ///
    /// A passed position is the centre of its cell, with `horizontalAccuracyM` at least the cell's size and at least
    /// `cellSizeM`, and no altitude (MSL and ellipsoidal), vertical accuracy, speed, course, climb, their accuracies or
    /// floor. Every update passed on says `accuracyLimited`. An update carrying no position (location unavailable)
    /// passes at once; one with an invalid coordinate or time is dropped and does not start the interval.
    public mutating func filter(_ update: LocationUpdate) -> LocationUpdate? {
        var out = update
        out.accuracyLimited = true
        guard let original = update.location else { return out }
        guard original.coordinate.isValid, update.timeS.isFinite, original.timeS.isFinite else { return nil }
        if let last = lastPositionTimeS, !(update.timeS - last >= Self.minimumIntervalS) { return nil }
        if let last = lastLocationTimeS, !(original.timeS - last >= Self.minimumIntervalS) { return nil }
        lastPositionTimeS = update.timeS
        lastLocationTimeS = original.timeS
        let cell = Self.cell(latitudeDeg: original.coordinate.latitudeDeg, longitudeDeg: original.coordinate.longitudeDeg)
        var location = original
        location.coordinate = Coordinate(latitudeDeg: cell.centreLatitudeDeg, longitudeDeg: cell.centreLongitudeDeg)
        let leastAccuracyM = max(Self.cellSizeM, cell.sizeM)
        // NaN compares false, so it too becomes the cell's size.
        location.horizontalAccuracyM =
            original.horizontalAccuracyM > leastAccuracyM ? original.horizontalAccuracyM : leastAccuracyM
        location.altitudeMSLM = nil
        location.ellipsoidalAltitudeM = nil
        location.verticalAccuracyM = nil
        location.speedMps = nil
        location.speedAccuracyMps = nil
        location.courseDeg = nil
        location.courseAccuracyDeg = nil
        location.climbMps = nil
        // A floor number places the client within a building: finer than the cell.
        location.floor = nil
        out.location = location
        return out
    }
}
