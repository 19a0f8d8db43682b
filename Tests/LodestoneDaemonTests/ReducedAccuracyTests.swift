import Foundation
import LodestoneDaemon
import LodestoneEngine
import LodestoneLocation
import Testing

/// Approximate location: the fixed grid, and the filter over whole simulated drives.
@Suite struct ReducedAccuracyGridTests {
    typealias Cell = ReducedAccuracy.Cell

    @Test func pointsInOneCellMapToOneCentre() {
        for (latitude, longitude) in [(47.3769, 8.5417), (-33.8688, 151.2093), (0.0, 0.0), (64.1466, -21.9426), (-54.8, -68.3)] {
            let cell = ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: longitude)
            // A 21 × 21 lattice over the cell, inset from its edges by a thousandth of a span.
            for i in 0...20 {
                for j in 0...20 {
                    let la = cell.centreLatitudeDeg + (Double(i) / 20 - 0.5) * 0.998 * cell.latitudeSpanDeg
                    let lo = cell.centreLongitudeDeg + (Double(j) / 20 - 0.5) * 0.998 * cell.longitudeSpanDeg
                    #expect(ReducedAccuracy.cell(latitudeDeg: la, longitudeDeg: lo) == cell)
                }
            }
        }
    }

    @Test func aCellsCentreIsInItself() {
        var random = SplitMix64(seed: 15)
        for _ in 0..<2000 {
            let cell = ReducedAccuracy.cell(latitudeDeg: random.uniform(-90, 90), longitudeDeg: random.uniform(-180, 180))
            #expect(ReducedAccuracy.cell(latitudeDeg: cell.centreLatitudeDeg, longitudeDeg: cell.centreLongitudeDeg) == cell)
        }
    }

    /// Every point lies within its cell's spans, and within `cellSizeM` of its centre: the accuracy the filter reports
    /// covers the truth.
    @Test func everyPointIsWithinItsCellAndTheCellSizeOfItsCentre() {
        var random = SplitMix64(seed: 42)
        for _ in 0..<5000 {
            // sin-distributed latitudes would be even on the sphere; uniform ones over-sample the poles, which is the point.
            let latitude = random.uniform(-90, 90)
            let longitude = random.uniform(-180, 180)
            let cell = ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: longitude)
            #expect(abs(latitude - cell.centreLatitudeDeg) <= cell.latitudeSpanDeg / 2 + 1e-9)
            #expect(abs(longitude - cell.centreLongitudeDeg) <= cell.longitudeSpanDeg / 2 + 1e-9)
            let distanceM =
                Coordinate(latitudeDeg: latitude, longitudeDeg: longitude)
                .distanceM(to: Coordinate(latitudeDeg: cell.centreLatitudeDeg, longitudeDeg: cell.centreLongitudeDeg))
                ?? .infinity
            #expect(distanceM < ReducedAccuracy.cellSizeM, "\(latitude), \(longitude): \(distanceM) m from \(cell)")
        }
    }

    @Test(arguments: [0.0, 60.0, -60.0])
    func cellsAreAbout5KilometresAtTheEquatorAnd60Degrees(latitudeDeg: Double) {
        let cell = ReducedAccuracy.cell(latitudeDeg: latitudeDeg, longitudeDeg: 10)
        #expect(abs(cell.heightM - 5000) < 30) // a degree of latitude is 110.6 km at the equator, 111.4 km at 60°
        #expect(abs(cell.widthM - 5000) < 3) // a whole number of cells around ≈ 40 075 km and ≈ 20 038 km
        #expect(abs(cell.sizeM - 5000) < 30)
        #expect(cell.columnCount == Int((cell.widthM * Double(cell.columnCount) / 5000).rounded()))
    }

    @Test func theEquatorialBandIsCentredOnTheEquator() {
        #expect(ReducedAccuracy.bandCount == 4001)
        #expect(abs(ReducedAccuracy.cell(latitudeDeg: 0, longitudeDeg: 0).centreLatitudeDeg) < 1e-9)
        #expect(ReducedAccuracy.cell(latitudeDeg: 0, longitudeDeg: 0).columnCount == 8015)
    }

    @Test(arguments: [89.99, -89.99, 90, -90, 91, -1000])
    func thePolesAreASmallNumberOfCellsNoneWiderThanTheGlobe(latitudeDeg: Double) {
        for longitude in stride(from: -180.0, through: 180, by: 7.5) {
            let cell = ReducedAccuracy.cell(latitudeDeg: latitudeDeg, longitudeDeg: longitude)
            #expect(cell.columnCount >= 1 && cell.columnCount <= 3)
            #expect(cell.longitudeSpanDeg <= 360)
            #expect(cell.widthM <= 1.5 * ReducedAccuracy.cellSizeM)
            #expect(abs(cell.heightM - 5000) < 30)
            #expect(cell.sizeM < 1.5 * ReducedAccuracy.cellSizeM)
            #expect(abs(cell.centreLatitudeDeg) < 90 && abs(cell.centreLatitudeDeg) > 89.95)
            #expect(cell.centreLongitudeDeg > -180 && cell.centreLongitudeDeg < 180)
        }
        // 89.99° is in the top band: 3 cells of ≈ 5.3 km on its ≈ 15.8 km centre parallel.
        #expect(ReducedAccuracy.cell(latitudeDeg: 89.99, longitudeDeg: 0).columnCount == 3)
        #expect(ReducedAccuracy.cell(latitudeDeg: 91, longitudeDeg: 0) == ReducedAccuracy.cell(latitudeDeg: 90, longitudeDeg: 0))
    }

    @Test func theAntimeridianIsAnEdgeNeverStraddled() {
        for latitude in [-17.7, 0, 51.5, 65.8, 89.99] {
            let east = ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: 180)
            let west = ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: -180)
            #expect(east == west) // ±180 is one meridian: the west edge of column 0
            #expect(west.column == 0)
            let justEast = ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: -179.999_999)
            let justWest = ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: 179.999_999)
            #expect(justEast.column == 0)
            #expect(justWest.column == justWest.columnCount - 1)
            #expect(justWest.centreLongitudeDeg < 180 && justEast.centreLongitudeDeg > -180)
            #expect(justWest.centreLongitudeDeg + justWest.longitudeSpanDeg / 2 <= 180 + 1e-9)
            // Longitudes beyond ±180 wrap.
            #expect(ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: 540) == east)
            #expect(
                ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: -190)
                    == ReducedAccuracy.cell(latitudeDeg: latitude, longitudeDeg: 170))
        }
    }
}

/// The filter over updates: one position per 15 min, always a cell centre, nothing but the coarse position.
@Suite struct ReducedAccuracyFilterTests {
    static func fix(
        _ timeS: Double, latitudeDeg: Double, longitudeDeg: Double, horizontalAccuracyM: Double = 3.5
    ) -> LocationUpdate {
        LocationUpdate(
            timeS: timeS,
            location: Location(
                coordinate: Coordinate(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg), altitudeMSLM: 412,
                ellipsoidalAltitudeM: 460, horizontalAccuracyM: horizontalAccuracyM, verticalAccuracyM: 6, speedMps: 27,
                speedAccuracyMps: 0.3, courseDeg: 71, courseAccuracyDeg: 2, climbMps: 0.4, timeS: timeS, utcS: 1.7e9 + timeS,
                floor: 2),
            ageS: 0.2)
    }

    /// Fixes at 1 Hz along a path: a straight drive, a circle, a crossing of the antimeridian.
    static func drive(durationS: Double, _ position: (Double) -> (latitudeDeg: Double, longitudeDeg: Double)) -> [LocationUpdate]
    {
        stride(from: 0.0, to: durationS, by: 1).map { t in
            let p = position(t)
            return fix(t, latitudeDeg: p.latitudeDeg, longitudeDeg: Angle180.wrap(p.longitudeDeg))
        }
    }

    static let metresPerDegree = 111_195.0

    static let drives: [(name: String, updates: [LocationUpdate])] = [
        // 3 h at 30 m/s, east-north-east from Zurich: 324 km over some 70 cells.
        (
            "straight",
            drive(durationS: 3 * 3600) { t in
                let d = 30 * t / metresPerDegree
                return (47.37 + d * cos(70 * .pi / 180), 8.54 + d * sin(70 * .pi / 180) / cos(47.37 * .pi / 180))
            }
        ),
        // 2 h round a circle of 10 km radius at 20 m/s (one lap ≈ 52 min).
        (
            "circle",
            drive(durationS: 2 * 3600) { t in
                let angle = 20 * t / 10_000
                let r = 10_000 / metresPerDegree
                return (-33.87 + r * cos(angle), 151.21 + r * sin(angle) / cos(33.87 * .pi / 180))
            }
        ),
        // 1 h due east at 50 m/s across the antimeridian near Fiji.
        ("antimeridian", drive(durationS: 3600) { t in (-17.7, 179.2 + 50 * t / (metresPerDegree * cos(17.7 * .pi / 180))) }),
        // 1 h across the north pole's top bands.
        ("pole", drive(durationS: 3600) { t in (89.9 + 0.00005 * t * (t < 1800 ? 1 : -1), 10 + t / 10) })
    ]

    @Test(arguments: drives.map(\.name))
    func aDriveYieldsOnlyCellCentresAtMostEvery900Seconds(name: String) throws {
        let updates = try #require(Self.drives.first { $0.name == name }?.updates)
        var filter = ReducedAccuracy()
        var passed: [LocationUpdate] = []
        for update in updates {
            if let out = filter.filter(update) { passed.append(out) }
        }
        let durationS = updates.last!.timeS - updates.first!.timeS
        // The first passes at once, then one each 900 s: exactly ⌊duration / 900⌋ + 1 at 1 Hz.
        #expect(passed.first?.timeS == updates.first?.timeS)
        #expect(passed.count == Int(durationS / ReducedAccuracy.minimumIntervalS) + 1)
        for (previous, next) in zip(passed, passed.dropFirst()) {
            #expect(next.timeS - previous.timeS >= ReducedAccuracy.minimumIntervalS)
        }
        for out in passed {
            let original = try #require(updates.first { $0.timeS == out.timeS }?.location)
            let location = try #require(out.location)
            let cell = ReducedAccuracy.cell(
                latitudeDeg: original.coordinate.latitudeDeg, longitudeDeg: original.coordinate.longitudeDeg)
            // Exactly the centre of the original's cell: nothing of the original position leaks.
            #expect(location.coordinate == Coordinate(latitudeDeg: cell.centreLatitudeDeg, longitudeDeg: cell.centreLongitudeDeg))
            #expect(location.horizontalAccuracyM >= ReducedAccuracy.cellSizeM)
            #expect(location.horizontalAccuracyM >= cell.sizeM)
            #expect(location.altitudeMSLM == nil && location.ellipsoidalAltitudeM == nil && location.verticalAccuracyM == nil)
            #expect(location.speedMps == nil && location.speedAccuracyMps == nil)
            #expect(location.courseDeg == nil && location.courseAccuracyDeg == nil && location.climbMps == nil)
            #expect(location.floor == nil)
            #expect(location.timeS == original.timeS && location.utcS == original.utcS)
            #expect(out.accuracyLimited)
            #expect(out.ageS == 0.2)
        }
    }

    @Test func manyFixesAroundOnePointAllGiveTheSameCentre() {
        // A person who stays put: 200 fixes scattered over 80 % of the cell around their home (Zurich's centre).
        let home = ReducedAccuracy.cell(latitudeDeg: 47.3769, longitudeDeg: 8.5417)
        var random = SplitMix64(seed: 7)
        var centres: Set<Coordinate> = []
        for k in 0..<200 {
            var filter = ReducedAccuracy() // a fresh filter each time: the rate limit is not what protects here
            let update = Self.fix(
                Double(k), latitudeDeg: home.centreLatitudeDeg + random.uniform(-0.4, 0.4) * home.latitudeSpanDeg,
                longitudeDeg: home.centreLongitudeDeg + random.uniform(-0.4, 0.4) * home.longitudeSpanDeg)
            if let location = filter.filter(update)?.location { centres.insert(location.coordinate) }
        }
        #expect(centres == [Coordinate(latitudeDeg: home.centreLatitudeDeg, longitudeDeg: home.centreLongitudeDeg)])
    }

    @Test func updatesWithoutAPositionPassAtOnceFlagged() {
        var filter = ReducedAccuracy()
        #expect(filter.filter(Self.fix(0, latitudeDeg: 10, longitudeDeg: 10)) != nil)
        let unavailable = LocationUpdate(timeS: 5, location: nil, locationUnavailable: true)
        var expected = unavailable
        expected.accuracyLimited = true
        #expect(filter.filter(unavailable) == expected)
        #expect(filter.lastPositionTimeS == 0) // it does not restart the interval
        #expect(filter.filter(Self.fix(899.9, latitudeDeg: 10, longitudeDeg: 10)) == nil)
        #expect(filter.filter(Self.fix(900, latitudeDeg: 10, longitudeDeg: 10)) != nil)
    }

    /// Found by `SecondUserTests` under load: the first position came from the update of its own instant, the second
    /// from an update 20 ms after its position (a fix handed on at the next step), so the updates were 900 s apart and
    /// the positions 899.98 s. Both clocks now keep 15 minutes.
    @Test func positionsAre15MinutesApartByTheirOwnTimeAsWellAsTheirUpdates() throws {
        var filter = ReducedAccuracy()
        #expect(filter.filter(Self.fix(357.7, latitudeDeg: 47.37, longitudeDeg: 8.57)) != nil)
        var late = Self.fix(1257.7, latitudeDeg: 47.41, longitudeDeg: 8.55)
        late.location?.timeS = 1257.68
        #expect(filter.filter(late) == nil)
        #expect(filter.lastLocationTimeS == 357.7)
        var next = Self.fix(1258.7, latitudeDeg: 47.41, longitudeDeg: 8.55)
        next.location?.timeS = 1258.68
        let passed = try #require(filter.filter(next)?.location)
        #expect(passed.timeS == 1258.68 && filter.lastLocationTimeS == 1258.68 && filter.lastPositionTimeS == 1258.7)
        // And the other way round: a position whose own time is 15 min on, in an update that is not.
        var early = Self.fix(2158.6, latitudeDeg: 47.41, longitudeDeg: 8.55)
        early.location?.timeS = 2158.69
        #expect(filter.filter(early) == nil)
    }

    @Test func anInvalidCoordinateOrTimeIsDroppedWithoutStartingTheInterval() {
        var filter = ReducedAccuracy()
        #expect(filter.filter(Self.fix(0, latitudeDeg: .nan, longitudeDeg: 10)) == nil)
        #expect(filter.filter(Self.fix(1, latitudeDeg: 95, longitudeDeg: 10)) == nil)
        #expect(filter.filter(Self.fix(.infinity, latitudeDeg: 10, longitudeDeg: 10)) == nil)
        #expect(filter.lastPositionTimeS == nil)
        #expect(filter.filter(Self.fix(2, latitudeDeg: 10, longitudeDeg: 10)) != nil)
    }

    @Test func aPoorerAccuracyThanTheCellIsKept() throws {
        var filter = ReducedAccuracy()
        let coarse = try #require(
            filter.filter(Self.fix(0, latitudeDeg: 10, longitudeDeg: 10, horizontalAccuracyM: 12_000))?.location)
        #expect(coarse.horizontalAccuracyM == 12_000)
        var other = ReducedAccuracy()
        let unknown = try #require(
            other.filter(Self.fix(0, latitudeDeg: 10, longitudeDeg: 10, horizontalAccuracyM: .nan))?.location)
        #expect(unknown.horizontalAccuracyM >= ReducedAccuracy.cellSizeM)
    }
}

/// Longitude wrapping for the drives (the grid wraps its input itself; this keeps the inputs valid coordinates).
enum Angle180 {
    static func wrap(_ deg: Double) -> Double {
        var d = (deg + 180).truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        return d - 180
    }
}

/// A seeded generator (SplitMix64, Steele, Lea & Flood 2014), so every run tests the same points.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [a, b).
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(next() >> 11) / Double(1 << 53) }
}
