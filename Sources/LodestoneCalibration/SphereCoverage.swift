import LodestoneCore
import RealModule

/// Which directions of the field (in board axes) a magnetometer calibration has seen: the unit sphere split
/// into 64 sectors of equal area, 8 bands of equal height in z (equal height is equal area, Archimedes'
/// hat-box theorem) times 8 sectors of 45° in longitude about z. A sector is covered when a sample's
/// direction falls in it. One `UInt64` holds the lot, so updating it per sample costs nothing.
///
/// For a person, a missing sector is an orientation of the board not yet visited: the sample's direction is
/// where the Earth's field points *in the board's axes*, so covering sector `d` means turning the board until
/// its axis `d` points along the field (magnetic north, dipping down by the inclination).
public struct SphereCoverage: Sendable, Hashable, Codable {
    /// Number of sectors.
    public static let sectorCount = 64
    /// Bands in z, and sectors per band.
    public static let bandCount = 8
    public static let sectorsPerBand = 8

    /// Bit `i` set when sector `i` is covered.
    public private(set) var mask: UInt64 = 0

    public init() {}

    /// The sector (0…63) of a direction; the vector need not be normalised. `nil` for a zero or non-finite vector.
    public static func sector(of v: Vector3) -> Int? {
        let n = v.length
        guard n > 0, n.isFinite else { return nil }
        let z = v.z / n
        let band = min(bandCount - 1, max(0, Int(((z + 1) / 2 * Double(bandCount)).rounded(.down))))
        var longitude = Double.atan2(y: v.y, x: v.x)
        if longitude < 0 { longitude += 2 * Double.pi }
        let slice = min(sectorsPerBand - 1, max(0, Int((longitude / (2 * Double.pi) * Double(sectorsPerBand)).rounded(.down))))
        return band * sectorsPerBand + slice
    }

    /// Marks the sector of `v` covered. Allocation-free.
    public mutating func insert(_ v: Vector3) {
        if let s = Self.sector(of: v) { mask |= (1 as UInt64) << UInt64(s) }
    }

    /// True when sector `s` is covered.
    public func contains(sector s: Int) -> Bool { mask & ((1 as UInt64) << UInt64(s)) != 0 }

    /// True when the sector of `v` is covered.
    public func contains(_ v: Vector3) -> Bool { Self.sector(of: v).map { contains(sector: $0) } ?? false }

    /// Covered sectors.
    public var coveredCount: Int { mask.nonzeroBitCount }

    /// Covered fraction of the sphere, 0…1.
    public var fraction: Double { Double(coveredCount) / Double(Self.sectorCount) }

    /// The unit vector at the centre of sector `s` (middle of its z band and of its longitude slice).
    public static func center(ofSector s: Int) -> Vector3 {
        let band = s / sectorsPerBand, slice = s % sectorsPerBand
        let z = -1 + (Double(band) + 0.5) * 2 / Double(bandCount)
        let longitude = (Double(slice) + 0.5) * 2 * Double.pi / Double(sectorsPerBand)
        let r = (1 - z * z).squareRoot()
        return Vector3(r * Double.cos(longitude), r * Double.sin(longitude), z)
    }

    /// The direction at the middle of the largest uncovered region: the missing sector with the most missing
    /// sectors within 50° of it. `nil` when everything is covered.
    public var largestGapDirection: Vector3? {
        var best: (count: Int, sector: Int)?
        let cosLimit = Double.cos(50 * Double.pi / 180)
        for s in 0..<Self.sectorCount where !contains(sector: s) {
            let c = Self.center(ofSector: s)
            var count = 0
            for t in 0..<Self.sectorCount where !contains(sector: t) && Self.center(ofSector: t).dot(c) >= cosLimit { count += 1 }
            if best == nil || count > best!.count { best = (count, s) }
        }
        return best.map { Self.center(ofSector: $0.sector) }
    }

    /// How to turn the board to cover `direction` (board axes): which part of the board to point along the
    /// field, e.g. "the top edge (+y) and the face (+z)".
    public static func boardPart(toward direction: Vector3) -> String {
        let names = [
            ("the right edge (+x)", "the left edge (−x)"), ("the top edge (+y)", "the bottom edge (−y)"),
            ("the face (+z)", "the back (−z)")
        ]
        let d = direction.normalized ?? Vector3(0, 0, 1)
        let components = [d.x, d.y, d.z]
        let order = [0, 1, 2].sorted { abs(components[$0]) > abs(components[$1]) }
        var parts: [String] = []
        for (rank, axis) in order.enumerated() where rank == 0 || abs(components[axis]) >= 0.45 {
            parts.append(components[axis] >= 0 ? names[axis].0 : names[axis].1)
        }
        return parts.joined(separator: " and ")
    }
}
