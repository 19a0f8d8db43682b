import LodestoneLocation

extension Wire {
    /// `{"class":"LOCATION",…}` — the fused location, once a second in `run --json` (after the first fix).
    /// Accuracies are 95 % radii / half-widths; unknown values are omitted.
    public struct Location: Codable, Sendable {
        /// Message class, time (engine clock, s) and the `Location`'s fields under the keys below.
        public var `class` = "LOCATION"
        public var tS: Double
        /// UTC, ISO 8601, when a receiver has told the date.
        public var time: String?
        public var latDeg: Double
        public var lonDeg: Double
        public var altMSLM: Double?
        /// Height above the WGS84 ellipsoid, m.
        public var altHAEM: Double?
        public var horizontalAccuracyM: Double
        public var verticalAccuracyM: Double?
        public var speedMps: Double?
        public var speedAccuracyMps: Double?
        public var courseDeg: Double?
        public var courseAccuracyDeg: Double?
        public var climbMps: Double?
        /// `gnss`, `fused` or `dead-reckoning`.
        public var method: String
        /// Seconds since the last fix used.
        public var sinceFixS: Double
        /// True for a simulated receiver or a GPX playback.
        public var simulated: Bool

        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, latDeg = "lat_deg", lonDeg = "lon_deg", altMSLM = "alt_msl_m",
                 altHAEM = "alt_hae_m", horizontalAccuracyM = "h_acc_m", verticalAccuracyM = "v_acc_m",
                 speedMps = "speed_mps", speedAccuracyMps = "speed_acc_mps", courseDeg = "course_deg",
                 courseAccuracyDeg = "course_acc_deg", climbMps = "climb_mps", method, sinceFixS = "since_fix_s", simulated
        }

        /// The message for a location.
        public init(_ l: LodestoneLocation.Location) {
            tS = l.timeS
            time = l.utcS.map(TrackExport.isoTime)
            latDeg = l.coordinate.latitudeDeg
            lonDeg = l.coordinate.longitudeDeg
            altMSLM = l.altitudeMSLM.finite
            altHAEM = l.ellipsoidalAltitudeM.finite
            horizontalAccuracyM = l.horizontalAccuracyM
            verticalAccuracyM = l.verticalAccuracyM.finite
            speedMps = l.speedMps.finite
            speedAccuracyMps = l.speedAccuracyMps.finite
            courseDeg = l.courseDeg.finite
            courseAccuracyDeg = l.courseAccuracyDeg.finite
            climbMps = l.climbMps.finite
            method = l.sourceInformation.method.rawValue
            sinceFixS = l.sinceFixS
            simulated = l.sourceInformation.isSimulatedBySoftware
        }
    }
}
