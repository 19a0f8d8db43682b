import Foundation
import LodestoneLocation
import LodestoneMonitoring
import Testing

@Suite struct HysteresisTests {
    func monitor(radiusM: Double = 100) throws -> RegionMonitor {
        var m = RegionMonitor()
        try m.add(CircularRegion(id: "r", center: zurich, radiusM: radiusM))
        return m
    }

    @Test func aFixStraddlingTheBoundaryAtStartLeavesTheStateUnknown() throws {
        var m = try monitor()
        // 100 m from the centre, ±5 m: the circle straddles the boundary.
        #expect(events(&m, fix(offset(zurich, distanceM: 100, azimuthDeg: 30), timeS: 1)).isEmpty)
        #expect(m.record(id: "r")?.state == .unknown)
        // 97 m in with 5 m accuracy: 97 + 5 + margin 2.5 > 100, still straddling.
        #expect(events(&m, fix(offset(zurich, distanceM: 97, azimuthDeg: 30), timeS: 2)).isEmpty)
        // 90 m in: 90 + 5 + 2.5 ≤ 100.
        let e = events(&m, fix(offset(zurich, distanceM: 90, azimuthDeg: 30), timeS: 3))
        #expect(e.count == 1 && e[0].state == .satisfied && e[0].previousState == .unknown && e[0].timeS == 3)
        #expect(m.record(id: "r")?.changedAtS == 3)
    }

    @Test func theMarginIsHalfTheAccuracyAndAtLeastOneMetre() {
        let p = RegionMonitor.Parameters.default
        #expect(p.marginM(accuracyM: 10) == 5)
        #expect(p.marginM(accuracyM: 0.4) == 1)
    }

    @Test func aReceiverJitteringAtTheEdgeGivesNoBurstOfEvents() throws {
        var m = try monitor()
        var rng = SplitMix(seed: 7)
        _ = events(&m, fix(zurich, timeS: 0, accuracyM: 3))
        #expect(m.record(id: "r")?.state == .satisfied)
        var count = 0
        // An hour at the boundary: the reported position wanders ±6 m around 100 m, claiming 4 m.
        for t in 1...3600 {
            let d = 100 + Double.random(in: -6...6, using: &rng)
            count +=
                events(&m, fix(offset(zurich, distanceM: d, azimuthDeg: Double(t % 360)), timeS: Double(t), accuracyM: 4))
                .count
        }
        #expect(count == 0)
        // Then it really leaves.
        let out = events(&m, fix(offset(zurich, distanceM: 120, azimuthDeg: 0), timeS: 3601, accuracyM: 4))
        #expect(out.map(\.state) == [.unsatisfied])
    }

    @Test func withoutTheMarginTheSameJitterWouldChangeTheState() throws {
        // The rule with a margin of 0 and an accuracy that under-claims gives events: the test above can fail.
        var m = RegionMonitor(parameters: .init(accuracyMarginFraction: 0, minimumMarginM: 0))
        try m.add(CircularRegion(id: "r", center: zurich, radiusM: 100))
        var rng = SplitMix(seed: 7)
        var count = 0
        for t in 0...3600 {
            let d = 100 + Double.random(in: -6...6, using: &rng)
            count += events(&m, fix(offset(zurich, distanceM: d, azimuthDeg: 0), timeS: Double(t), accuracyM: 1)).count
        }
        #expect(count > 10)
    }

    @Test func leavingForFarAwayIsSeenThroughTheWatchedList() throws {
        var m = try monitor(radiusM: 50)
        _ = events(&m, fix(zurich, timeS: 0, accuracyM: 3))
        let e = events(&m, fix(Coordinate(latitudeDeg: -33.86, longitudeDeg: 151.2), timeS: 100, accuracyM: 3))
        #expect(e.count == 1 && e[0].state == .unsatisfied && e[0].location.timeS == 100)
    }

    @Test func eventIdentifiersIncreaseAcrossConditionsAndRestarts() throws {
        var m = RegionMonitor(firstEventId: 41)
        for i in 0..<5 { try m.add(CircularRegion(id: "r\(i)", center: zurich, radiusM: 100 * Double(i + 1))) }
        var ids: [UInt64] = []
        for (t, d) in [0.0, 150, 350, 1_000, 10].enumerated() {
            for e in events(&m, fix(offset(zurich, distanceM: d, azimuthDeg: 90), timeS: Double(t), accuracyM: 3)) {
                ids.append(e.id)
            }
        }
        #expect(ids.first == 41)
        #expect(ids == Array(41..<(41 + UInt64(ids.count))))
        #expect(m.nextEventId == 41 + UInt64(ids.count))
        #expect(ids.count == 5 + 1 + 2 + 2 + 5)
    }

    @Test func aBadFixChangesNothing() throws {
        var m = try monitor()
        #expect(events(&m, fix(zurich, timeS: 0, accuracyM: .nan)).isEmpty)
        #expect(events(&m, fix(zurich, timeS: 0, accuracyM: -1)).isEmpty)
        #expect(events(&m, fix(Coordinate(latitudeDeg: 95, longitudeDeg: 0), timeS: 0)).isEmpty)
        #expect(m.record(id: "r")?.state == .unknown)
    }

    @Test func removingAConditionKeepsTheOthersIndexed() throws {
        var m = RegionMonitor()
        for i in 0..<20 {
            try m.add(
                CircularRegion(id: "r\(i)", center: offset(zurich, distanceM: Double(i) * 1_000, azimuthDeg: 90), radiusM: 200))
        }
        _ = events(&m, fix(Coordinate(latitudeDeg: 0, longitudeDeg: 0), timeS: 0))
        #expect(m.remove(id: "r0")?.state == .unsatisfied)
        #expect(m.remove(id: "r0") == nil)
        #expect(m.remove(id: "r7") != nil)
        #expect(m.count == 18)
        // r19 moved into r0's slot: it is still found.
        let e = events(&m, fix(offset(zurich, distanceM: 19_000, azimuthDeg: 90), timeS: 1))
        #expect(e.map(\.conditionId) == ["r19"])
        #expect(events(&m, fix(offset(zurich, distanceM: 7_000, azimuthDeg: 90), timeS: 2)).map(\.conditionId) == ["r19"])
    }
}

/// The index against brute force: every condition decided by the same rule without an index, on random conditions
/// clustered at the poles, the antimeridian and elsewhere, radii 1 m to 100 km.
@Suite struct IndexDifferentialTests {
    /// The brute-force state of one condition after `location` (the rule of `RegionMonitor`, no index).
    static func decide(_ state: MonitorConditionState, _ region: CircularRegion, _ location: Location) -> MonitorConditionState {
        let a = location.horizontalAccuracyM
        let clearance = a + RegionMonitor.Parameters.default.marginM(accuracyM: a)
        let d = location.coordinate.distanceM(to: region.center)!
        if d - clearance >= region.radiusM { return .unsatisfied }
        if d + clearance <= region.radiusM { return .satisfied }
        return state
    }

    static func randomCenter(_ rng: inout SplitMix) -> Coordinate {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            Coordinate(
                latitudeDeg: Double.random(in: 89.5...90, using: &rng), longitudeDeg: Double.random(in: -180...180, using: &rng))
        case 1:
            Coordinate(
                latitudeDeg: Double.random(in: -90 ... -89.5, using: &rng),
                longitudeDeg: Double.random(in: -180...180, using: &rng))
        case 2:
            Coordinate(
                latitudeDeg: Double.random(in: -60...60, using: &rng),
                longitudeDeg: Bool.random(using: &rng)
                    ? Double.random(in: 179.5...180, using: &rng) : Double.random(in: -180 ... -179.5, using: &rng))
        default:
            Coordinate(
                latitudeDeg: Double.random(in: -70...70, using: &rng), longitudeDeg: Double.random(in: -180...180, using: &rng))
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theIndexedMonitorDecidesExactlyAsBruteForce(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        var monitor = RegionMonitor()
        var regions: [CircularRegion] = []
        for i in 0..<300 {
            let radius = pow(10, Double.random(in: 0...5, using: &rng))
            let r = try CircularRegion(id: "c\(i)", center: Self.randomCenter(&rng), radiusM: radius)
            regions.append(r)
            try monitor.add(r)
        }
        var states = [String: MonitorConditionState](uniqueKeysWithValues: regions.map { ($0.id, .unknown) })
        var changes = 0
        for step in 0..<800 {
            if step == 400 {
                // Remove a third mid-way: the slots move, the index must follow.
                for r in regions.prefix(100) { #expect(monitor.remove(id: r.id) != nil); states[r.id] = nil }
                regions.removeFirst(100)
            }
            // Near a random region (inside, at the edge or just outside) or anywhere in a cluster.
            let coordinate: Coordinate
            if Bool.random(using: &rng) {
                let r = regions[Int.random(in: 0..<regions.count, using: &rng)]
                coordinate = offset(
                    r.center, distanceM: r.radiusM * Double.random(in: 0...1.6, using: &rng),
                    azimuthDeg: Double.random(in: -180...180, using: &rng))
            } else {
                coordinate = Self.randomCenter(&rng)
            }
            let location = fix(coordinate, timeS: Double(step), accuracyM: Double.random(in: 0...30, using: &rng))
            var expected: [String] = []
            for r in regions {
                let old = states[r.id]!
                let new = Self.decide(old, r, location)
                if new != old { expected.append(r.id); states[r.id] = new }
            }
            let got = events(&monitor, location)
            changes += got.count
            #expect(Set(got.map(\.conditionId)) == Set(expected), "step \(step)")
            #expect(got.count == expected.count)
        }
        for r in regions { #expect(monitor.record(id: r.id)?.state == states[r.id]) }
        #expect(changes > 300) // the test exercised changes, not only unknown → unsatisfied
    }

    @Test(arguments: [4, 5] as [UInt64])
    func theNearestBoundaryIsTheBruteForceOneUpToTheHorizon(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        var monitor = RegionMonitor()
        var regions: [CircularRegion] = []
        for i in 0..<400 {
            // Around the antimeridian and the north pole, within a few km of each other.
            let base =
                i % 2 == 0 ? Coordinate(latitudeDeg: 10, longitudeDeg: 180) : Coordinate(latitudeDeg: 89.99, longitudeDeg: 0)
            let center = offset(
                base, distanceM: Double.random(in: 0...8_000, using: &rng), azimuthDeg: Double.random(in: -180...180, using: &rng)
            )
            let r = try CircularRegion(id: "c\(i)", center: center, radiusM: pow(10, Double.random(in: 0...4.3, using: &rng)))
            regions.append(r)
            try monitor.add(r)
        }
        for _ in 0..<300 {
            let base =
                Bool.random(using: &rng)
                ? Coordinate(latitudeDeg: 10, longitudeDeg: -180) : Coordinate(latitudeDeg: 90, longitudeDeg: 0)
            let p = offset(
                base, distanceM: Double.random(in: 0...10_000, using: &rng),
                azimuthDeg: Double.random(in: -180...180, using: &rng))
            let brute = regions.map { abs(p.distanceM(to: $0.center)! - $0.radiusM) }.min()!
            let got = monitor.nearestBoundaryDistanceM(from: p)
            #expect(got.map { abs($0 - min(brute, RegionMonitor.boundaryHorizonM)) < 1e-6 } == true)
        }
    }
}
