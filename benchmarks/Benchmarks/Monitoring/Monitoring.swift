// Region monitoring on its per-location path (issue 16): one location evaluated against a monitor of 1, 1 000 and
// 100 000 circular regions — the spatial index's query, the regions near the location and the regions the carrier is
// in, with the events this makes.
//
// The regions are spread over a 10° × 10° box around Zürich (about 1 100 × 750 km, radii log-uniform 50 m–5 km), and
// 1 % of them (at least one) straddle a 5 km circle the carrier drives round at 10 m/s, one location a second, so the
// states change (about one event every few seconds at 100 000). All states are decided before measuring.
import Benchmark
import BenchmarkSupport
import LodestoneLocation
import LodestoneMonitoring

/// A monitor of `count` regions and a carrier driving round a circle.
final class MonitorFixture {
    var monitor = RegionMonitor()
    /// The circle, one point every 10 m (3 142 points).
    var path: [Coordinate] = []
    var step = 0
    var timeS = 0.0
    var events = 0

    init(count: Int) {
        let center = Coordinate(latitudeDeg: 47.3769, longitudeDeg: 8.5417)
        let geodesic = Geodesic.wgs84
        let circleM = 5_000.0
        let points = Int(2 * Double.pi * circleM / 10)
        for i in 0..<points {
            let p = geodesic.direct(
                latitudeDeg: center.latitudeDeg, longitudeDeg: center.longitudeDeg, azimuthDeg: 360 * Double(i) / Double(points),
                distanceM: circleM)!
            path.append(Coordinate(latitudeDeg: p.latitudeDeg, longitudeDeg: p.longitudeDeg))
        }
        // A deterministic generator (SplitMix64): the same regions every run.
        var state: UInt64 = 0x5EED
        func uniform() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        let onPath = max(1, count / 100)
        for i in 0..<count {
            // Log-uniform 50 m – 5 km, in steps of 10^(1/20) (41 radii).
            var radiusM = 50.0
            for _ in 0..<Int(uniform() * 41) { radiusM *= 1.122_018_454_301_963_3 }
            radiusM = min(radiusM, 5_000)
            let c: Coordinate
            if i < onPath {
                let p = path[Int(uniform() * Double(path.count - 1))]
                let q = geodesic.direct(
                    latitudeDeg: p.latitudeDeg, longitudeDeg: p.longitudeDeg, azimuthDeg: uniform() * 360,
                    distanceM: radiusM * uniform())!
                c = Coordinate(latitudeDeg: q.latitudeDeg, longitudeDeg: q.longitudeDeg)
            } else {
                c = Coordinate(
                    latitudeDeg: center.latitudeDeg + (uniform() - 0.5) * 10,
                    longitudeDeg: center.longitudeDeg + (uniform() - 0.5) * 10)
            }
            try! monitor.add(CircularRegion(id: "region-\(i)", center: c, radiusM: radiusM))
        }
        // Decide every state (the first location decides all the new conditions) and go once round.
        for _ in 0..<path.count { advance() }
    }

    /// One location: the next point of the circle, a second later, 4 m accuracy.
    @inline(__always) func advance() {
        step = step + 1 == path.count ? 0 : step + 1
        timeS += 1
        let location = Location(coordinate: path[step], horizontalAccuracyM: 4, speedMps: 10, timeS: timeS)
        var n = 0
        monitor.evaluate(location) { _ in n += 1 }
        events += n
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = LodestoneBenchmarkPolicy.configuration
    for (name, count) in [("evaluate1", 1), ("evaluate1k", 1_000), ("evaluate100k", 100_000)] {
        Benchmark("RegionMonitor.\(name)", configuration: configuration) { benchmark, fixture in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.advance() }
            benchmark.stopMeasurement()
            blackHole(fixture.events)
        } setup: {
            MonitorFixture(count: count)
        }
    }
}
