import LodestoneCore
import LodestoneWire

// The wire's messages (target `LodestoneWire`) made from the engine's values.

extension Wire.Sample {
    /// The message for one reading of `sensor`; `messageClass` is `"SAMPLE"` in a stream, `nil` in `read --json`.
    public init(sensor: String, reading r: SensorReading, messageClass: String? = nil, time: String? = nil) {
        self.init()
        self.class = messageClass
        tS = r.timeS; self.time = time; self.sensor = sensor
        pressurePa = r.pressurePa.finite; temperatureC = r.temperatureC.finite
        accXMps2 = r.accelerationMps2?.x.finite; accYMps2 = r.accelerationMps2?.y.finite; accZMps2 = r.accelerationMps2?.z.finite
        gyrXRadS = r.angularVelocityRadS?.x.finite; gyrYRadS = r.angularVelocityRadS?.y.finite;
        gyrZRadS = r.angularVelocityRadS?.z.finite
        magXMicroTesla = r.magneticFieldMicroTesla?.x.finite; magYMicroTesla = r.magneticFieldMicroTesla?.y.finite
        magZMicroTesla = r.magneticFieldMicroTesla?.z.finite
    }
}

extension Wire.Fix {
    /// The message for a receiver's fix.
    public init(sensor: String, fix f: ReceiverFix, time: String? = nil) {
        self.init()
        tS = f.timeS; self.time = time; self.sensor = sensor; mode = f.mode.rawValue
        latDeg = f.latitudeDeg.finite; lonDeg = f.longitudeDeg.finite; heightM = f.ellipsoidalHeightM.finite
        altMSLM = f.altitudeMSLM.finite; speedMps = f.speedMps.finite; courseDeg = f.courseDeg.finite
        horizontalAccuracyM = f.horizontalAccuracyM.finite; verticalAccuracyM = f.verticalAccuracyM.finite
        climbMps = f.climbMps.finite; quality = f.quality?.rawValue; hdop = f.hdop.finite; vdop = f.vdop.finite
        pdop = f.pdop.finite; satellitesUsed = f.satellitesUsed; geoidSeparationM = f.geoidSeparationM.finite
    }
}

extension ReceiverFix {
    /// The fix a `FIX` message describes (what the wire carries of it).
    public init(_ m: Wire.Fix) {
        self.init(timeS: m.tS, mode: Mode(rawValue: m.mode) ?? .unknown)
        latitudeDeg = m.latDeg; longitudeDeg = m.lonDeg; altitudeMSLM = m.altMSLM
        heightAboveEllipsoidM = m.heightM; geoidSeparationM = m.geoidSeparationM; speedMps = m.speedMps
        courseDeg = m.courseDeg; climbMps = m.climbMps; horizontalAccuracyM = m.horizontalAccuracyM
        verticalAccuracyM = m.verticalAccuracyM; quality = m.quality.flatMap(Quality.init(rawValue:)); hdop = m.hdop
        vdop = m.vdop; pdop = m.pdop; satellitesUsed = m.satellitesUsed
    }
}

extension Wire.Calibration {
    /// The calibration fusion applies.
    public init(_ c: CalibrationStage.Configuration) {
        self.init()
        path = c.path
        board = c.document?.board
        sensors = (c.document?.sensors ?? []).map { Sensor(id: $0.id, kinds: $0.kinds.map(\.rawValue)) }
        searched = c.document == nil && !c.searched.isEmpty ? c.searched : nil
        disabled = c.disabled ? true : nil
    }
}

extension Wire.Status.Sensor {
    /// The status of one engine source.
    public init(_ s: Engine.SourceStatus) {
        var message: String?
        let health: String
        switch s.health {
        case .ok: health = "ok"
        case .starting: health = "starting"
        case .degraded(let m): health = "degraded"; message = m
        }
        self.init(
            id: s.id, health: health, message: message, rateHz: (s.measuredRateHz * 10).rounded() / 10,
            samples: s.samples, failures: s.failures)
    }
}

extension Optional where Wrapped == Double {
    /// nil for NaN/infinite values: the wire never carries NaN.
    var finite: Double? { flatMap { $0.isFinite ? $0 : nil } }
}
extension Double {
    var finite: Double? { isFinite ? self : nil }
}
