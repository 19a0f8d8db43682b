import LodestoneCore
import LodestoneLocation

/// A circular geographic region a monitor watches (Core Location's `CLMonitor.CircularGeographicCondition`): the
/// condition is *satisfied* while the carrier is inside the circle and *unsatisfied* while it is outside.
///
/// The circle is the set of points whose geodesic distance on WGS84 from `center` is at most `radiusM` (no height:
/// a region is a cylinder through the whole atmosphere).
public struct CircularRegion: Sendable, Hashable, Codable {
    /// The smallest radius accepted, m. A region smaller than a consumer receiver's accuracy circle (2–5 m) is accepted
    /// but can only be decided when the receiver is better than the region (see `RegionMonitor`).
    public static let minimumRadiusM = 1.0
    /// The largest radius accepted, m (100 km, issue 16).
    public static let maximumRadiusM = 100_000.0
    /// The longest identifier accepted, in UTF-8 bytes.
    public static let maximumIdentifierBytes = 256

    /// The identifier the client chose; unique within a monitor. 1…256 UTF-8 bytes.
    public let id: String
    /// The centre, WGS84.
    public let center: Coordinate
    /// The radius, m, in [`minimumRadiusM`, `maximumRadiusM`].
    public let radiusM: Double

    /// A region, validated.
    /// - Throws: `RegionError` naming the field that is out of range and the range it must be in.
    public init(id: String, center: Coordinate, radiusM: Double) throws(RegionError) {
        let bytes = id.utf8.count
        guard bytes >= 1, bytes <= Self.maximumIdentifierBytes else { throw .identifier(id) }
        guard center.latitudeDeg.isFinite, abs(center.latitudeDeg) <= 90 else {
            throw .latitude(id: id, latitudeDeg: center.latitudeDeg)
        }
        guard center.longitudeDeg.isFinite, abs(center.longitudeDeg) <= 180 else {
            throw .longitude(id: id, longitudeDeg: center.longitudeDeg)
        }
        guard radiusM.isFinite, radiusM >= Self.minimumRadiusM, radiusM <= Self.maximumRadiusM else {
            throw .radius(id: id, radiusM: radiusM)
        }
        self.id = id
        self.center = center
        self.radiusM = radiusM
    }

    /// A region from degrees and metres; see `init(id:center:radiusM:)`.
    public init(id: String, latitudeDeg: Double, longitudeDeg: Double, radiusM: Double) throws(RegionError) {
        try self.init(id: id, center: Coordinate(latitudeDeg: latitudeDeg, longitudeDeg: longitudeDeg), radiusM: radiusM)
    }
}

/// Why a region was refused.
public enum RegionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The identifier is empty or longer than `CircularRegion.maximumIdentifierBytes`.
    case identifier(String)
    /// The latitude is not finite or outside [−90°, 90°].
    case latitude(id: String, latitudeDeg: Double)
    /// The longitude is not finite or outside [−180°, 180°].
    case longitude(id: String, longitudeDeg: Double)
    /// The radius is not finite or outside [1 m, 100 km].
    case radius(id: String, radiusM: Double)
    /// A region with this identifier is already monitored.
    case duplicate(id: String)

    public var description: String {
        switch self {
        case .identifier(let id):
            "region identifier \"\(id)\" must be 1 to \(CircularRegion.maximumIdentifierBytes) UTF-8 bytes"
        case .latitude(let id, let v): "region \(id): latitude \(v)° must be in [-90, 90]"
        case .longitude(let id, let v): "region \(id): longitude \(v)° must be in [-180, 180]"
        case .radius(let id, let v):
            "region \(id): radius \(v) m must be in [\(Int(CircularRegion.minimumRadiusM)), "
                + "\(Int(CircularRegion.maximumRadiusM))] m"
        case .duplicate(let id): "region \(id) is already monitored; remove it first"
        }
    }
}
