/// Area and perimeter of a polygon whose edges are geodesics.
public struct PolygonMeasure: Sendable, Hashable {
    /// The area enclosed, m² (≥ 0; the smaller of the two regions the ring bounds, whichever way it runs).
    public var areaM2: Double
    /// The area with its sign: positive when the vertices run counter-clockwise (seen from above), m², in
    /// (−A/2, A/2] where A is the area of the ellipsoid (GeographicLib's `Polygon` with `sign = true`).
    public var signedAreaM2: Double
    /// Length of the closed ring, m.
    public var perimeterM: Double
}

extension Geodesic {
    /// Area and perimeter of the polygon with these vertices (degrees; at least 3; closed back to the first
    /// vertex; edges are the shortest geodesics). `nil` with fewer than 3 vertices or an invalid coordinate.
    ///
    /// Karney 2013 §6: the area is the sum over edges of the area between the edge and the equator (eq. 58–62,
    /// `GeodesicInverse.areaUnderM2`), corrected by half the ellipsoid's area when the ring encircles a pole
    /// (an odd number of crossings of the prime meridian). Polygons may cross the antimeridian and contain a
    /// pole. Edges must be shorter than half a meridian for "the shortest geodesic" to be well defined.
    public func polygon(_ vertices: [Coordinate]) -> PolygonMeasure? {
        guard vertices.count >= 3, vertices.allSatisfy(\.isValid) else { return nil }
        var perimeter = 0.0
        // Sums of many edges of very different size: accumulate with error compensation.
        var area = 0.0, areaError = 0.0
        var crossings = 0
        for i in vertices.indices {
            let p = vertices[i], q = vertices[(i + 1) % vertices.count]
            guard
                let edge = inverse(
                    latitude1Deg: p.latitudeDeg, longitude1Deg: p.longitudeDeg,
                    latitude2Deg: q.latitudeDeg, longitude2Deg: q.longitudeDeg)
            else { return nil }
            perimeter += edge.distanceM
            let (s, t) = GeoMath.sum(area, edge.areaUnderM2)
            area = s
            areaError += t
            crossings += Self.primeMeridianCrossing(from: p.longitudeDeg, to: q.longitudeDeg)
        }
        let total = 4 * Double.pi * authalicRadiusSquaredM2
        // The sum of the edges' areas is positive for a clockwise ring; reduce it, fix a pole, then flip.
        var signed = (area + areaError).remainder(dividingBy: total)
        if crossings & 1 != 0 { signed += (signed < 0 ? 1 : -1) * total / 2 }
        signed = -signed
        if signed > total / 2 { signed -= total } else if signed <= -total / 2 { signed += total }
        return PolygonMeasure(areaM2: abs(signed), signedAreaM2: signed + 0, perimeterM: perimeter)
    }

    /// +1 when the edge from longitude `lon1` to `lon2` (the short way) crosses the prime meridian eastwards,
    /// −1 westwards, 0 otherwise (each crossing counted once, with the end at 0° counted as crossed).
    static func primeMeridianCrossing(from lon1: Double, to lon2: Double) -> Int {
        let lon12 = GeoMath.difference(from: lon1, to: lon2).d
        let a = GeoMath.normalize(degrees: lon1), b = GeoMath.normalize(degrees: lon2)
        if lon12 > 0 && ((a < 0 && b >= 0) || (a > 0 && b == 0)) { return 1 }
        if lon12 < 0 && a >= 0 && b < 0 { return -1 }
        return 0
    }
}
