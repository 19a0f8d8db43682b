import Foundation
import LodestoneLocation
import Testing

@Suite struct SegmentDistanceTests {
    let geodesic = Geodesic.wgs84

    /// Differential test against a slow, obviously correct reference: the minimum over 1001 points spaced
    /// evenly along the segment (direct problem), refined by golden-section search around the best one.
    @Test func matchesBruteForceMinimumAlongTheSegment() throws {
        var generator = SplitMix(seed: 11)
        var worst = 0.0
        for _ in 0..<12 {
            let a = Coordinate(latitudeDeg: generator.uniform(-70, 70), longitudeDeg: generator.uniform(-180, 180))
            let length = 10 * pow(10, generator.uniform(0, 5.5)) // 10 m … 3000 km
            let line = try #require(
                GeodesicLine(
                    latitudeDeg: a.latitudeDeg, longitudeDeg: a.longitudeDeg,
                    azimuthDeg: generator.uniform(-180, 180)))
            let endPosition = try #require(line.position(distanceM: length))
            let b = Coordinate(latitudeDeg: endPosition.latitudeDeg, longitudeDeg: endPosition.longitudeDeg)
            // A point off the segment, sometimes beyond its ends.
            let along = try #require(line.position(distanceM: length * generator.uniform(-0.3, 1.3)))
            let off = try #require(
                geodesic.direct(
                    latitudeDeg: along.latitudeDeg, longitudeDeg: along.longitudeDeg,
                    azimuthDeg: along.azimuthDeg + generator.uniform(30, 150),
                    distanceM: length * generator.uniform(0, 0.5)))
            let p = Coordinate(latitudeDeg: off.latitudeDeg, longitudeDeg: off.longitudeDeg)
            let fast = try #require(geodesic.distance(from: p, toSegmentFrom: a, to: b))
            let reference = try bruteForce(p, line, length)
            worst = max(worst, abs(fast.distanceM - reference) / length)
            #expect(abs(fast.distanceM - reference) <= 1e-7 * length + 1e-6, "\(a) \(b) \(p)")
            #expect(fast.alongTrackM >= 0 && fast.alongTrackM <= length)
        }
        print("segment distance vs brute force: worst relative error \(worst)")
    }

    func bruteForce(_ p: Coordinate, _ line: GeodesicLine, _ length: Double) throws -> Double {
        func distance(_ s: Double) throws -> Double {
            let x = try #require(line.position(distanceM: s))
            return try #require(
                geodesic.inverse(
                    latitude1Deg: x.latitudeDeg, longitude1Deg: x.longitudeDeg,
                    latitude2Deg: p.latitudeDeg, longitude2Deg: p.longitudeDeg)
            ).distanceM
        }
        let n = 1_000
        var best = 0, bestDistance = Double.infinity
        for k in 0...n {
            let d = try distance(length * Double(k) / Double(n))
            if d < bestDistance { bestDistance = d; best = k }
        }
        var lo = length * Double(max(0, best - 1)) / Double(n), hi = length * Double(min(n, best + 1)) / Double(n)
        let ratio = (5.0.squareRoot() - 1) / 2
        for _ in 0..<80 {
            let m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo)
            if try distance(m1) < distance(m2) { hi = m2 } else { lo = m1 }
        }
        return min(bestDistance, try distance((lo + hi) / 2))
    }

    @Test func pointBeyondAnEndIsNearestToThatEnd() throws {
        let a = Coordinate(latitudeDeg: 47.0, longitudeDeg: 8.0), b = Coordinate(latitudeDeg: 47.0, longitudeDeg: 9.0)
        let before = try #require(
            geodesic.distance(from: Coordinate(latitudeDeg: 47.0, longitudeDeg: 7.5), toSegmentFrom: a, to: b))
        #expect(before.alongTrackM == 0)
        #expect(before.nearest == a)
        let after = try #require(
            geodesic.distance(from: Coordinate(latitudeDeg: 47.1, longitudeDeg: 9.5), toSegmentFrom: a, to: b))
        #expect(after.nearest == b)
        let on = try #require(geodesic.distance(from: Coordinate(latitudeDeg: 47.0, longitudeDeg: 8.0), toSegmentFrom: a, to: b))
        #expect(on.distanceM < 1e-9)
    }
}

@Suite struct SimplifyTests {
    let geodesic = Geodesic.wgs84

    /// A 2 km straight road sampled every 10 m with ±1 m of noise reduces to its two ends at a 3 m tolerance;
    /// with a 90° corner in the middle, the corner is kept too.
    @Test func straightRoadReducesToItsEndsAndCornersAreKept() throws {
        var generator = SplitMix(seed: 3)
        func track(corner: Bool) throws -> [Coordinate] {
            var points: [Coordinate] = []
            let start = try #require(GeodesicLine(latitudeDeg: 47.3769, longitudeDeg: 8.5417, azimuthDeg: 60))
            let middle = try #require(start.position(distanceM: 1000))
            let second = try #require(
                GeodesicLine(
                    latitudeDeg: middle.latitudeDeg, longitudeDeg: middle.longitudeDeg,
                    azimuthDeg: corner ? middle.azimuthDeg + 90 : middle.azimuthDeg))
            for k in 0...200 {
                let s = Double(k) * 10
                let p = try #require(s <= 1000 ? start.position(distanceM: s) : second.position(distanceM: s - 1000))
                let jitter = try #require(
                    geodesic.direct(
                        latitudeDeg: p.latitudeDeg, longitudeDeg: p.longitudeDeg,
                        azimuthDeg: p.azimuthDeg + 90, distanceM: generator.uniform(-1, 1)))
                points.append(Coordinate(latitudeDeg: jitter.latitudeDeg, longitudeDeg: jitter.longitudeDeg))
            }
            return points
        }
        #expect(geodesic.simplify(try track(corner: false), toleranceM: 3) == [0, 200])
        let cornered = geodesic.simplify(try track(corner: true), toleranceM: 3)
        #expect(cornered.count == 3)
        #expect(cornered.contains { abs($0 - 100) <= 1 })
    }

    /// Property: every dropped point is within the tolerance of the simplified track.
    @Test func droppedPointsAreWithinTheTolerance() throws {
        var generator = SplitMix(seed: 5)
        var points: [Coordinate] = []
        var lat = -33.9, lon = 151.2
        for _ in 0..<300 {
            lat += generator.uniform(-1, 1) * 1e-4
            lon += generator.uniform(-0.2, 1) * 1e-4
            points.append(Coordinate(latitudeDeg: lat, longitudeDeg: lon))
        }
        for tolerance in [0.5, 5.0, 50.0] {
            let kept = geodesic.simplify(points, toleranceM: tolerance)
            #expect(kept.first == 0 && kept.last == 299)
            for (i, j) in zip(kept, kept.dropFirst()) {
                for k in (i + 1)..<j {
                    let d = try #require(geodesic.distance(from: points[k], toSegmentFrom: points[i], to: points[j]))
                    #expect(d.distanceM <= tolerance + 1e-9)
                }
            }
        }
        #expect(geodesic.simplify(points, toleranceM: 50).count < geodesic.simplify(points, toleranceM: 0.5).count)
    }

    @Test func shortAndInvalidInputs() {
        #expect(geodesic.simplify([], toleranceM: 1) == [])
        let p = Coordinate(latitudeDeg: 1, longitudeDeg: 1)
        #expect(geodesic.simplify([p, Coordinate(latitudeDeg: .nan, longitudeDeg: 0), p], toleranceM: 1) == [0, 2])
    }
}

@Suite struct LocationFilterTests {
    func location(_ t: Double, northM: Double, accuracyM: Double = 5) -> Location {
        // 1e-5° of latitude ≈ 1.11 m near 47° N.
        Location(
            coordinate: Coordinate(latitudeDeg: 47 + northM / 111_180, longitudeDeg: 8), horizontalAccuracyM: accuracyM, timeS: t)
    }

    @Test func eachTestRejectsWhatItShould() {
        var filter = LocationFilter(
            parameters: .init(
                maximumHorizontalAccuracyM: 20, maximumAgeS: 10, maximumSpeedMps: 50,
                minimumDistanceM: 5))
        #expect(filter.admit(location(0, northM: 0)) == nil)
        #expect(filter.admit(location(1, northM: 2)) == .tooClose)
        #expect(filter.admit(location(2, northM: 10, accuracyM: 30)) == .inaccurate)
        #expect(filter.admit(location(3, northM: 10), nowS: 20) == .stale)
        #expect(filter.admit(location(4, northM: 1000)) == .impossibleSpeed) // 250 m/s after both radii
        #expect(filter.admit(location(5, northM: 60)) == nil)
        #expect(filter.admit(location(4.5, northM: 80)) == .outOfOrder)
        var broken = location(6, northM: 100)
        broken.coordinate.latitudeDeg = .nan
        #expect(filter.admit(broken) == .invalid)
        #expect(filter.state.lastAdmitted?.timeS == 5)
    }

    @Test func anOutlierReferenceIsAbandonedAfterRepeatedSpeedRejections() {
        var filter = LocationFilter(parameters: .init(maximumSpeedMps: 10, maximumConsecutiveSpeedRejections: 3))
        #expect(filter.admit(location(0, northM: 5000)) == nil) // the first one is a wild outlier
        for t in 1...3 { #expect(filter.admit(location(Double(t), northM: Double(t))) == .impossibleSpeed) }
        #expect(filter.admit(location(4, northM: 4)) == nil) // recovered
        #expect(filter.admit(location(5, northM: 9)) == nil)
    }
}
