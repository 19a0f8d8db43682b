import RealModule

/// The nearest point of a geodesic segment to a given point.
public struct SegmentDistance: Sendable, Hashable {
    /// Geodesic distance from the point to the nearest point of the segment, m.
    public var distanceM: Double
    /// Distance along the segment from its start to the nearest point, m, in [0, segment length].
    public var alongTrackM: Double
    /// The nearest point of the segment.
    public var nearest: Coordinate
}

extension Geodesic {
    /// The distance from `point` to the geodesic segment from `start` to `end` (the shortest geodesic between
    /// them), and the nearest point on it.
    ///
    /// The foot of the perpendicular is found by iterating on the distance along the segment, each step the
    /// along-track leg of the right spherical triangle formed by the current foot, the point and the segment
    /// (tan Δs/R = tan(d/R)·cos θ, θ the angle at the foot between the segment and the geodesic to the point),
    /// re-measured on the ellipsoid each time — C. Baselga & J. C. Martínez-Llario, "Intersection and
    /// point-to-line solutions for geodesics on the ellipsoid", Stud. Geophys. Geod. 62 (2018) 353–363. It
    /// converges to nanometres in a few steps. When the foot falls outside the segment the nearest end is
    /// used. For segments and distances under a quarter of a meridian. `nil` for invalid coordinates.
    public func distance(from point: Coordinate, toSegmentFrom start: Coordinate, to end: Coordinate) -> SegmentDistance? {
        guard point.isValid, start.isValid, end.isValid,
            let ab = inverse(
                latitude1Deg: start.latitudeDeg, longitude1Deg: start.longitudeDeg,
                latitude2Deg: end.latitudeDeg, longitude2Deg: end.longitudeDeg),
            let ap = inverse(
                latitude1Deg: start.latitudeDeg, longitude1Deg: start.longitudeDeg,
                latitude2Deg: point.latitudeDeg, longitude2Deg: point.longitudeDeg)
        else { return nil }
        let length = ab.distanceM
        guard length > 0,
            let line = GeodesicLine(
                geodesic: self, latitudeDeg: start.latitudeDeg, longitudeDeg: start.longitudeDeg,
                azimuthDeg: ab.initialAzimuthDeg)
        else { return SegmentDistance(distanceM: ap.distanceM, alongTrackM: 0, nearest: start) }
        // Gaussian radius √(MN) at the start: the sphere that best fits the neighbourhood.
        let radius = gaussianRadiusM(latitudeDeg: start.latitudeDeg)
        func alongLeg(distanceM d: Double, angleDeg theta: Double) -> Double {
            let sigma = d / radius
            return radius * Double.atan2(y: Double.sin(sigma) * GeoMath.sinCos(degrees: theta).cos, x: Double.cos(sigma))
        }
        var s = alongLeg(distanceM: ap.distanceM, angleDeg: ap.initialAzimuthDeg - ab.initialAzimuthDeg)
        for _ in 0..<30 {
            guard let x = line.position(distanceM: s),
                let xp = inverse(
                    latitude1Deg: x.latitudeDeg, longitude1Deg: x.longitudeDeg,
                    latitude2Deg: point.latitudeDeg, longitude2Deg: point.longitudeDeg)
            else { return nil }
            let step = alongLeg(distanceM: xp.distanceM, angleDeg: xp.initialAzimuthDeg - x.azimuthDeg)
            s += step
            if abs(step) < 1e-9 * max(1, length) { break }
        }
        if s <= 0 { return SegmentDistance(distanceM: ap.distanceM, alongTrackM: 0, nearest: start) }
        if s >= length {
            guard
                let bp = inverse(
                    latitude1Deg: end.latitudeDeg, longitude1Deg: end.longitudeDeg,
                    latitude2Deg: point.latitudeDeg, longitude2Deg: point.longitudeDeg)
            else { return nil }
            return SegmentDistance(distanceM: bp.distanceM, alongTrackM: length, nearest: end)
        }
        guard let foot = line.position(distanceM: s),
            let fp = inverse(
                latitude1Deg: foot.latitudeDeg, longitude1Deg: foot.longitudeDeg,
                latitude2Deg: point.latitudeDeg, longitude2Deg: point.longitudeDeg)
        else { return nil }
        return SegmentDistance(
            distanceM: fp.distanceM, alongTrackM: s,
            nearest: Coordinate(latitudeDeg: foot.latitudeDeg, longitudeDeg: foot.longitudeDeg))
    }

    /// Gaussian radius of curvature √(M·N) at geodetic latitude `latitudeDeg`, m.
    public func gaussianRadiusM(latitudeDeg: Double) -> Double {
        let s = GeoMath.sinCos(degrees: latitudeDeg).sin
        let w = 1 - e2 * s * s
        return equatorialRadiusM * (1 - e2).squareRoot() / w
    }
}
