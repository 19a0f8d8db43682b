import LodestoneLocation
import LodestoneMonitoring

/// A small deterministic generator (SplitMix64) so that every random test is reproducible from its seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The point `distanceM` from `from` on `azimuthDeg`, WGS84.
func offset(_ from: Coordinate, distanceM: Double, azimuthDeg: Double) -> Coordinate {
    let p = Geodesic.wgs84.direct(
        latitudeDeg: from.latitudeDeg, longitudeDeg: from.longitudeDeg, azimuthDeg: azimuthDeg, distanceM: distanceM)!
    return Coordinate(latitudeDeg: p.latitudeDeg, longitudeDeg: p.longitudeDeg)
}

/// A location at `coordinate` and `timeS` claiming `accuracyM`, moving at `speedMps`.
func fix(_ coordinate: Coordinate, timeS: Double, accuracyM: Double = 5, speedMps: Double? = nil) -> Location {
    Location(coordinate: coordinate, horizontalAccuracyM: accuracyM, speedMps: speedMps, timeS: timeS)
}

/// Every event of evaluating `location`.
func events(_ monitor: inout RegionMonitor, _ location: Location) -> [MonitorEvent] {
    var out: [MonitorEvent] = []
    monitor.evaluate(location) { out.append($0) }
    return out
}

let zurich = Coordinate(latitudeDeg: 47.3769, longitudeDeg: 8.5417)
