import LodestoneCore
import LodestoneLocation
import LodestoneMotion
import LodestoneOrientation
import LodestoneScheduler
import LodestoneTrace

/// What a live location stream is for, as Core Location's `CLLocationUpdate.LiveConfiguration`: it sets the accuracy
/// asked of the scheduler and whether the stream pauses while the carrier is still.
public enum LiveConfiguration: String, Sendable, Hashable, CaseIterable, Codable {
    /// General use: best accuracy, pauses at rest.
    case `default`
    /// Turn-by-turn driving: navigation accuracy (IMU at full rate for dead reckoning).
    case automotiveNavigation
    /// Other navigation (boats, trains, walking directions): navigation accuracy.
    case otherNavigation
    /// Running, cycling, walking: best accuracy, pauses at rest.
    case fitness
    /// Flight: best accuracy; never pauses (a still accelerometer in cruise is no proof of being still).
    case airborne

    /// The accuracy tier a stream of this configuration asks for unless told otherwise.
    public var desiredAccuracy: DesiredAccuracy {
        switch self {
        case .automotiveNavigation, .otherNavigation: .bestForNavigation
        case .default, .fitness, .airborne: .best
        }
    }

    /// Whether the stream pauses (one `isStationary` update, then nothing until motion) while the carrier is still.
    public var pausesAtRest: Bool { self != .airborne }
}

/// What every subscription may be told besides its kind.
public struct SubscriptionOptions: Sendable, Hashable {
    /// Who asks, as the scheduler names the client in its plan's reasons (default: the kind and a number).
    public var client: String?
    /// The client is in the foreground (a person looks at it); in the background it accepts coarser service.
    public var foreground: Bool
    /// How updates the consumer has not taken yet are held (default: the newest 16).
    public var buffering: UpdateBuffering

    public init(client: String? = nil, foreground: Bool = true, buffering: UpdateBuffering = .newest(16)) {
        self.client = client; self.foreground = foreground; self.buffering = buffering
    }
}

/// One update of a live location stream (`Session.locationUpdates`), like `CLLocationUpdate`.
public struct LocationUpdate: Sendable, Hashable, Codable {
    /// Session time of the update, s.
    public var timeS: Double
    /// The fused location (`nil` in an update that only says the location is unavailable and none was known).
    public var location: Location?
    /// Time since the receiver fix that last informed `location`, s.
    public var ageS: Double?
    /// `location` is older than the stream's maximum age: not a current position.
    public var isStale: Bool
    /// The carrier is still: the stream pauses after this update until it moves again.
    public var isStationary: Bool
    /// No location meeting the stream's accuracy has come for a while (indoors, a tunnel, no receiver).
    public var locationUnavailable: Bool
    /// The location was coarsened by the daemon's authorization (reduced accuracy).
    public var accuracyLimited: Bool
    /// The daemon's authorization denies locations to this client: `location` is `nil`.
    public var authorizationDenied: Bool

    public init(
        timeS: Double, location: Location?, ageS: Double? = nil, isStale: Bool = false, isStationary: Bool = false,
        locationUnavailable: Bool = false, accuracyLimited: Bool = false, authorizationDenied: Bool = false
    ) {
        self.timeS = timeS; self.location = location; self.ageS = ageS; self.isStale = isStale
        self.isStationary = isStationary; self.locationUnavailable = locationUnavailable
        self.accuracyLimited = accuracyLimited; self.authorizationDenied = authorizationDenied
    }
}

/// One heading (`Session.headingUpdates`), like `CLHeading`: where the board's y axis points.
public struct HeadingUpdate: Sendable, Hashable, Codable {
    /// Session time, s.
    public var timeS: Double
    /// Clockwise from magnetic north, deg [0, 360).
    public var magneticHeadingDeg: Double
    /// Clockwise from true north, deg; `nil` until the declination is known (a position and a date).
    public var trueHeadingDeg: Double?
    /// 95 % accuracy, deg; negative when the heading is invalid (no magnetometer: relative to the start).
    public var headingAccuracyDeg: Double
    /// The calibrated magnetic field the heading came from, board axes, µT.
    public var magneticFieldMicroTesla: Vector3?
    /// The magnetometer needs calibrating.
    public var calibrationNeeded: Bool

    public init(_ h: Heading) {
        timeS = h.timeS; magneticHeadingDeg = h.magneticHeadingDeg; trueHeadingDeg = h.trueHeadingDeg
        headingAccuracyDeg = h.headingAccuracyDeg; magneticFieldMicroTesla = h.magneticFieldMicroTesla
        calibrationNeeded = h.calibrationNeeded
    }

    public init(
        timeS: Double, magneticHeadingDeg: Double, trueHeadingDeg: Double?, headingAccuracyDeg: Double,
        magneticFieldMicroTesla: Vector3? = nil, calibrationNeeded: Bool = false
    ) {
        self.timeS = timeS; self.magneticHeadingDeg = magneticHeadingDeg; self.trueHeadingDeg = trueHeadingDeg
        self.headingAccuracyDeg = headingAccuracyDeg; self.magneticFieldMicroTesla = magneticFieldMicroTesla
        self.calibrationNeeded = calibrationNeeded
    }
}

/// How far the calibrated magnetic field can be trusted (Core Motion's `CMMagneticFieldCalibrationAccuracy`).
public enum MagneticFieldAccuracy: String, Sendable, Hashable, Codable {
    case uncalibrated, low, medium, high
}

/// The board's motion (`Session.deviceMotionUpdates`), like `CMDeviceMotion`. Vectors in board axes (x right,
/// y forward, z up out of the face).
public struct DeviceMotion: Sendable, Hashable, Codable {
    /// Session time, s.
    public var timeS: Double
    /// Rotates board-frame vectors into East-North-Up (Hamilton, scalar first).
    public var attitude: Quaternion
    /// The attitude as roll, pitch and yaw (deg; yaw is the magnetic heading of the y axis).
    public var rollDeg: Double
    public var pitchDeg: Double
    public var yawDeg: Double
    /// The gyroscope's rate less the filter's bias estimate, rad/s.
    public var rotationRateRadS: Vector3
    /// Gravity in board axes, m/s², pointing down (9.81 on −z lying flat face up).
    public var gravityMps2: Vector3
    /// The acceleration the carrier gives the board, m/s² (the accelerometer's specific force plus gravity).
    public var userAccelerationMps2: Vector3
    /// The calibrated magnetic field, µT, and how far it can be trusted.
    public var magneticFieldMicroTesla: Vector3?
    public var magneticFieldAccuracy: MagneticFieldAccuracy
    /// Magnetic heading of the y axis, deg (`nil` without a magnetometer).
    public var headingDeg: Double?

    public init(
        timeS: Double, attitude: Quaternion, rollDeg: Double, pitchDeg: Double, yawDeg: Double, rotationRateRadS: Vector3,
        gravityMps2: Vector3, userAccelerationMps2: Vector3, magneticFieldMicroTesla: Vector3?,
        magneticFieldAccuracy: MagneticFieldAccuracy, headingDeg: Double?
    ) {
        self.timeS = timeS; self.attitude = attitude; self.rollDeg = rollDeg; self.pitchDeg = pitchDeg; self.yawDeg = yawDeg
        self.rotationRateRadS = rotationRateRadS; self.gravityMps2 = gravityMps2; self.userAccelerationMps2 = userAccelerationMps2
        self.magneticFieldMicroTesla = magneticFieldMicroTesla; self.magneticFieldAccuracy = magneticFieldAccuracy
        self.headingDeg = headingDeg
    }
}

/// The carrier's activity (`Session.activityUpdates`), like `CMMotionActivity`.
public struct ActivityUpdate: Sendable, Hashable, Codable {
    /// Session time, s.
    public var timeS: Double
    /// Kind, confidence and since when.
    public var activity: MotionActivity

    public init(timeS: Double, activity: MotionActivity) { self.timeS = timeS; self.activity = activity }
}

/// Pedometer data (`Session.pedometerUpdates`), like `CMPedometerData`, or a pause/resume event
/// (`CMPedometerEvent`).
public struct PedometerUpdate: Sendable, Hashable, Codable {
    public enum Event: String, Sendable, Hashable, Codable {
        /// The carrier stopped walking or running.
        case pause
        /// The carrier started walking or running again.
        case resume
    }
    /// Session time, s.
    public var timeS: Double
    /// Steps, distance and floors since the stream's start; cadence and pace now.
    public var data: PedometerData
    /// Set on a pause or resume.
    public var event: Event?

    public init(timeS: Double, data: PedometerData, event: Event? = nil) {
        self.timeS = timeS; self.data = data; self.event = event
    }
}

/// Altitude (`Session.altitudeUpdates`), like `CMAltitudeData` and `CMAbsoluteAltitudeData`.
public struct AltitudeUpdate: Sendable, Hashable, Codable {
    /// Session time, s.
    public var timeS: Double
    /// Change since the stream's first update, m (+ up).
    public var relativeAltitudeM: Double?
    /// Pressure, Pa.
    public var pressurePa: Double?
    /// Above mean sea level, m, with its accuracy (1σ, m), once known.
    public var altitudeM: Double?
    public var altitudeAccuracyM: Double?
    /// Vertical speed, m/s (+ up).
    public var verticalSpeedMps: Double?

    public init(
        timeS: Double, relativeAltitudeM: Double? = nil, pressurePa: Double? = nil, altitudeM: Double? = nil,
        altitudeAccuracyM: Double? = nil, verticalSpeedMps: Double? = nil
    ) {
        self.timeS = timeS; self.relativeAltitudeM = relativeAltitudeM; self.pressurePa = pressurePa; self.altitudeM = altitudeM
        self.altitudeAccuracyM = altitudeAccuracyM; self.verticalSpeedMps = verticalSpeedMps
    }
}

/// One raw sensor reading (`Session.sensorUpdates`): board axes, SI units, before calibration.
public struct SensorSample: Sendable, Hashable, Codable {
    /// The board file's id of the sensor.
    public var sensor: String
    public var reading: SensorReading

    public init(sensor: String, reading: SensorReading) { self.sensor = sensor; self.reading = reading }
}

/// The failures of a session's requests.
public enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `requestLocation` found no location at all before its timeout.
    case locationUnavailable(timeoutS: Double)
    /// The session ended before the request was answered.
    case sessionEnded
    /// The board could not be assembled, or another setup problem (the message says what).
    case setup(String)
    /// The input trace could not be opened.
    case input(TraceError)
    /// The track export cannot be written at `path`.
    case export(path: String, problem: String)
    /// The daemon's authorization does not let this client see what it asked for.
    case authorizationDenied(String)
    /// The daemon cannot be reached or refused the request (the message says what).
    case service(String)

    public var description: String {
        switch self {
        case .locationUnavailable(let t): "no location within \(formatFixed(t, digits: 0)) s"
        case .sessionEnded: "the session ended before an answer"
        case .setup(let m): m
        case .input(let e): e.description
        case .export(let path, let problem): "\(path): \(problem)"
        case .authorizationDenied(let m): "not authorized: \(m)"
        case .service(let m): m
        }
    }
}
