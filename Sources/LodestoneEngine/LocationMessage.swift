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

extension LodestoneLocation.Location {
    /// The location a `LOCATION` message describes (what the wire carries of it; `utcS` from its `time`).
    public init(_ w: Wire.Location) {
        let utc = w.time.flatMap { GPXReader.parseISO8601($0) }.map { Double($0.seconds) + Double($0.nanoseconds) * 1e-9 }
        self.init(
            coordinate: Coordinate(latitudeDeg: w.latDeg, longitudeDeg: w.lonDeg), altitudeMSLM: w.altMSLM,
            ellipsoidalAltitudeM: w.altHAEM, horizontalAccuracyM: w.horizontalAccuracyM, verticalAccuracyM: w.verticalAccuracyM,
            speedMps: w.speedMps, speedAccuracyMps: w.speedAccuracyMps, courseDeg: w.courseDeg,
            courseAccuracyDeg: w.courseAccuracyDeg, climbMps: w.climbMps, timeS: w.tS, utcS: utc, sinceFixS: w.sinceFixS,
            sourceInformation: LocationSourceInformation(
                isSimulatedBySoftware: w.simulated, isProducedByAccessory: true,
                method: LocationSourceInformation.Method(rawValue: w.method) ?? .gnss))
    }
}
