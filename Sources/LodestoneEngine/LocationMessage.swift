import LodestoneLocation
import LodestoneWire

extension Wire.Location {
    /// The message for a fused location; `time` is its UTC when a receiver has told the date.
    public init(_ l: LodestoneLocation.Location) {
        self.init()
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
