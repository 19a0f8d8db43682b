/// A geographic coordinate on WGS84: geodetic latitude and longitude in degrees (Core Location's
/// `CLLocationCoordinate2D`).
public struct Coordinate: Sendable, Hashable, Codable {
    /// Geodetic latitude, degrees, + north, [−90, 90].
    public var latitudeDeg: Double
    /// Longitude, degrees, + east, [−180, 180].
    public var longitudeDeg: Double

    public init(latitudeDeg: Double, longitudeDeg: Double) {
        self.latitudeDeg = latitudeDeg
        self.longitudeDeg = longitudeDeg
    }

    /// Geodesic distance to `other` on WGS84, m; `nil` when either is invalid.
    public func distanceM(to other: Coordinate) -> Double? {
        Geodesic.wgs84.inverse(
            latitude1Deg: latitudeDeg, longitude1Deg: longitudeDeg,
            latitude2Deg: other.latitudeDeg, longitude2Deg: other.longitudeDeg)?.distanceM
    }

    /// True when both are finite and in range (`CLLocationCoordinate2DIsValid`).
    public var isValid: Bool {
        latitudeDeg.isFinite && longitudeDeg.isFinite && abs(latitudeDeg) <= 90 && abs(longitudeDeg) <= 180
    }
}

/// Where a location came from (Core Location's `CLLocationSourceInformation`, plus how it was obtained).
public struct LocationSourceInformation: Sendable, Hashable, Codable {
    /// How the position was obtained.
    public enum Method: String, Sendable, Hashable, Codable {
        /// From a receiver fix alone (no inertial sensors).
        case gnss
        /// A receiver fix fused with the inertial sensors (and barometer).
        case fused
        /// No fix for a while: extrapolated from the last fixes and the inertial sensors.
        case deadReckoning = "dead-reckoning"
    }

    /// True when the fixes are simulated by software (a GPX playback, a simulated receiver: GGA quality 8,
    /// gpsd status 8), as `CLLocationSourceInformation.isSimulatedBySoftware`.
    public var isSimulatedBySoftware: Bool
    /// True when the fixes come from an external receiver rather than one built into the device
    /// (`CLLocationSourceInformation.isProducedByAccessory`); on a Linux board every serial or gpsd receiver is.
    public var isProducedByAccessory: Bool
    /// How the position was obtained.
    public var method: Method

    public init(isSimulatedBySoftware: Bool, isProducedByAccessory: Bool, method: Method) {
        self.isSimulatedBySoftware = isSimulatedBySoftware
        self.isProducedByAccessory = isProducedByAccessory
        self.method = method
    }
}

/// A location estimate with everything `CLLocation` carries, in SI units with the unit in each name.
///
/// Accuracies are radii of **95 % confidence** (`NavigationFilter.Parameters.confidence` sets the level):
/// the true position lies within `horizontalAccuracyM` of `coordinate` 95 % of the time. An unknown value is
/// `nil`, never a negative number or NaN.
public struct Location: Sendable, Hashable, Codable {
    /// The estimated position.
    public var coordinate: Coordinate
    /// Altitude above mean sea level (the receiver's geoid), m; `nil` until the geoid separation is known.
    public var altitudeMSLM: Double?
    /// Height above the WGS84 ellipsoid, m (`CLLocation.ellipsoidalAltitude`); `nil` without a 3D fix or a
    /// barometer-aided estimate.
    public var ellipsoidalAltitudeM: Double?
    /// Radius of the 95 % horizontal confidence circle, m.
    public var horizontalAccuracyM: Double
    /// Half-width of the 95 % vertical confidence interval, m; `nil` when the altitude is unknown.
    public var verticalAccuracyM: Double?
    /// Horizontal speed over ground, m/s (≥ 0).
    public var speedMps: Double?
    /// Half-width of the 95 % interval of the speed, m/s.
    public var speedAccuracyMps: Double?
    /// Course over ground, degrees clockwise from true north, [0, 360); `nil` when too slow to have one.
    public var courseDeg: Double?
    /// Half-width of the 95 % interval of the course, degrees.
    public var courseAccuracyDeg: Double?
    /// Vertical speed, m/s, + up.
    public var climbMps: Double?
    /// Time of the estimate on the engine's monotonic clock, s.
    public var timeS: Double
    /// UTC time of the estimate, s since 1970-01-01T00:00:00Z, when a receiver has told the date.
    public var utcS: Double?
    /// Floor of a building (`CLFloor.level`, 0 = the floor where tracking started); `nil` when unknown.
    public var floor: Int?
    /// Time since the last receiver fix that was used, s (0 for a location made at a fix).
    public var sinceFixS: Double
    /// Where the location came from.
    public var sourceInformation: LocationSourceInformation

    public init(
        coordinate: Coordinate, altitudeMSLM: Double? = nil, ellipsoidalAltitudeM: Double? = nil,
        horizontalAccuracyM: Double, verticalAccuracyM: Double? = nil, speedMps: Double? = nil,
        speedAccuracyMps: Double? = nil, courseDeg: Double? = nil, courseAccuracyDeg: Double? = nil,
        climbMps: Double? = nil, timeS: Double, utcS: Double? = nil, floor: Int? = nil, sinceFixS: Double = 0,
        sourceInformation: LocationSourceInformation = LocationSourceInformation(
            isSimulatedBySoftware: false, isProducedByAccessory: true, method: .gnss)
    ) {
        self.coordinate = coordinate; self.altitudeMSLM = altitudeMSLM; self.ellipsoidalAltitudeM = ellipsoidalAltitudeM
        self.horizontalAccuracyM = horizontalAccuracyM; self.verticalAccuracyM = verticalAccuracyM
        self.speedMps = speedMps; self.speedAccuracyMps = speedAccuracyMps; self.courseDeg = courseDeg
        self.courseAccuracyDeg = courseAccuracyDeg; self.climbMps = climbMps; self.timeS = timeS; self.utcS = utcS
        self.floor = floor; self.sinceFixS = sinceFixS; self.sourceInformation = sourceInformation
    }

    /// Geodesic distance to `other` on WGS84, m (`CLLocation.distance(from:)`, but on the ellipsoid, exact to
    /// nanometres). Heights are ignored. `nil` when either coordinate is invalid.
    public func distanceM(from other: Location) -> Double? {
        coordinate.distanceM(to: other.coordinate)
    }
}
