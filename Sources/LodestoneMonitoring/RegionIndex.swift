import LodestoneCore
import RealModule

/// The spatial index of a monitor's regions: a hierarchy of uniform grids of cubes in Earth-centred, Earth-fixed
/// (ECEF) space, one grid per level, cube edges 1 m, 2 m, 4 m, … 131 km.
///
/// Why ECEF and not latitude/longitude cells: a straight line between two points is never longer than any path along
/// the surface, so the chord between a location and a region's centre (both on the ellipsoid) is a lower bound of
/// their geodesic distance, everywhere — the poles and the antimeridian are ordinary places for cubes, where a
/// latitude/longitude grid needs special cases (cells that shrink to nothing at the poles, a seam at ±180°).
///
/// A region of radius r lives in exactly one cell: the cell holding its centre on the level whose edge s is the
/// smallest power of two ≥ r. A location p inside the region has chord |p − c| ≤ r ≤ s, so p lies in the 3 × 3 × 3
/// block of cells around the region's cell: looking in the 27 cells around p on every occupied level finds every
/// region that may contain p (and some that do not, at most (3s)³ / (4/3 π r³) ≈ 50 times the volume). A query costs
/// 27 hash look-ups per occupied level (at most 18 levels: O(1) in n) plus the candidates found: the O(log n + k) of
/// issue 16 without the log. Adding and removing a region is O(1) on average plus its bucket's length.
///
/// Reading the index allocates nothing; adding a region may (its bucket grows).
struct RegionIndex: Sendable {
    /// A cube of one level: its integer coordinates, ECEF / edge, floored.
    struct CellKey: Hashable, Sendable {
        var x: Int32
        var y: Int32
        var z: Int32
    }

    /// Number of levels: edges 2⁰ … 2¹⁷ m (131 km ≥ the largest radius, 100 km).
    static let levelCount = 18

    /// Per level, the regions (monitor slots) in each occupied cell.
    private var cells: [[CellKey: [Int32]]] = Array(repeating: [:], count: levelCount)
    /// Per level, how many regions it holds (levels with none are skipped by queries).
    private(set) var levelCounts: [Int] = Array(repeating: 0, count: levelCount)

    /// The level of a region of radius `radiusM`: the smallest ℓ with 2^ℓ ≥ radius (clamped to the levels).
    static func level(radiusM: Double) -> Int {
        var level = 0
        var edge = 1.0
        while edge < radiusM && level < levelCount - 1 {
            edge *= 2
            level += 1
        }
        return level
    }

    /// The cube edge of `level`, m.
    @inline(__always) static func edgeM(level: Int) -> Double { Double(1 << level) }

    /// The cell of `point` (ECEF, m) on `level`.
    @inline(__always) static func cell(_ point: SIMD3<Double>, level: Int) -> CellKey {
        let inverse = 1 / edgeM(level: level)
        // |ECEF| < 6.4e6 m, so at a 1 m edge the coordinates fit an Int32 with room to spare.
        return CellKey(
            x: Int32((point.x * inverse).rounded(.down)), y: Int32((point.y * inverse).rounded(.down)),
            z: Int32((point.z * inverse).rounded(.down)))
    }

    /// Puts region `slot` (centre `center`, ECEF m; radius `radiusM`) in its cell.
    mutating func insert(slot: Int32, center: SIMD3<Double>, radiusM: Double) {
        insert(slot: slot, center: center, level: Self.level(radiusM: radiusM))
    }

    /// Puts region `slot` (centre `center`, ECEF m) in its cell on `level`, whatever its radius.
    mutating func insert(slot: Int32, center: SIMD3<Double>, level: Int) {
        cells[level][Self.cell(center, level: level), default: []].append(slot)
        levelCounts[level] += 1
    }

    /// Takes region `slot` out of its cell. The same centre and radius as at `insert` must be given.
    mutating func remove(slot: Int32, center: SIMD3<Double>, radiusM: Double) {
        remove(slot: slot, center: center, level: Self.level(radiusM: radiusM))
    }

    /// Takes region `slot` out of its cell on `level`.
    mutating func remove(slot: Int32, center: SIMD3<Double>, level: Int) {
        let key = Self.cell(center, level: level)
        guard var bucket = cells[level].removeValue(forKey: key), let at = bucket.firstIndex(of: slot) else {
            preconditionFailure("RegionIndex.remove: slot \(slot) is not in its cell")
        }
        bucket.swapAt(at, bucket.count - 1)
        bucket.removeLast()
        if !bucket.isEmpty { cells[level][key] = bucket }
        levelCounts[level] -= 1
    }

    /// Renames region `from` to `to` in its cell (after the monitor moved it to another slot).
    mutating func renumber(from: Int32, to: Int32, center: SIMD3<Double>, radiusM: Double) {
        renumber(from: from, to: to, center: center, level: Self.level(radiusM: radiusM))
    }

    /// Renames region `from` to `to` in its cell on `level`.
    mutating func renumber(from: Int32, to: Int32, center: SIMD3<Double>, level: Int) {
        let key = Self.cell(center, level: level)
        guard let at = cells[level][key]?.firstIndex(of: from) else {
            preconditionFailure("RegionIndex.renumber: slot \(from) is not in its cell")
        }
        cells[level][key]![at] = to
    }

    /// Appends to `candidates` every region in the cells within `blockRadius` cells of `point`'s cell (ECEF, m) in each
    /// direction, on every occupied level from `minimumLevel` up: every region whose centre is within chord distance
    /// `blockRadius` × its level's edge of `point`, and some others. With `blockRadius` 1 that is every region that may
    /// contain `point`. Allocates nothing while `candidates` has room.
    func collect(near point: SIMD3<Double>, blockRadius: Int32 = 1, minimumLevel: Int = 0, into candidates: inout [Int32]) {
        var level = minimumLevel
        while level < Self.levelCount {
            defer { level += 1 }
            if levelCounts[level] == 0 { continue }
            let center = Self.cell(point, level: level)
            var dx = -blockRadius
            while dx <= blockRadius {
                var dy = -blockRadius
                while dy <= blockRadius {
                    var dz = -blockRadius
                    while dz <= blockRadius {
                        let key = CellKey(x: center.x &+ dx, y: center.y &+ dy, z: center.z &+ dz)
                        if let bucket = cells[level][key] {
                            for slot in bucket { candidates.append(slot) }
                        }
                        dz += 1
                    }
                    dy += 1
                }
                dx += 1
            }
        }
    }
}

/// The point on the WGS84 ellipsoid (height 0) at a latitude and longitude, in ECEF, m (NIMA TR8350.2 eq. 4-14 with
/// h = 0). Heights are left out on purpose: a region is a cylinder, and both ends of every chord are on the same
/// surface, which keeps the chord a lower bound of the geodesic distance.
@inline(__always)
func ellipsoidPointECEF(latitudeDeg: Double, longitudeDeg: Double) -> SIMD3<Double> {
    let phi = latitudeDeg * (Double.pi / 180)
    let lambda = longitudeDeg * (Double.pi / 180)
    let sinPhi = Double.sin(phi), cosPhi = Double.cos(phi)
    let n = WGS84.primeVerticalRadiusM(latitudeRad: phi)
    return SIMD3(
        n * cosPhi * Double.cos(lambda), n * cosPhi * Double.sin(lambda), n * (1 - WGS84.eccentricitySquared) * sinPhi)
}
