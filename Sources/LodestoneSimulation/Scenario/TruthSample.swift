import LodestoneCore
import RealModule

/// The true state of the simulated board at one instant: what ideal sensors would read and what a perfect
/// fusion engine would estimate.
///
/// Frames: ENU is the local East-North-Up frame at the board's position; the board frame is x right, y forward,
/// z up out of the board face. `boardToENU` rotates board vectors into ENU. Earth rotation and transport rate
/// are not modelled (the ENU frame is treated as inertial), so `angularVelocityBoardRadS` is exactly the rate
/// of `boardToENU` and integrating it reproduces the attitude.
public struct TruthSample: Sendable, Hashable, Codable {
    /// Time since the start of the scenario, s.
    public var timeS: Double
    /// Geodetic latitude, WGS84, degrees.
    public var latitudeDeg: Double
    /// Longitude, degrees east.
    public var longitudeDeg: Double
    /// Height above the WGS84 ellipsoid, m.
    public var heightM: Double
    /// Altitude above mean sea level, m (`heightM` − the scenario's constant geoid undulation).
    public var altitudeMSLM: Double
    /// Velocity in ENU, m/s.
    public var velocityENUMps: Vector3
    /// Kinematic acceleration (d velocity/dt, gravity not included) in ENU, m/s².
    public var accelerationENUMps2: Vector3
    /// Attitude: rotates board-frame vectors into ENU (Hamilton, scalar first).
    public var boardToENU: Quaternion
    /// Angular velocity of the board relative to ENU, in board axes, rad/s (what an ideal gyroscope reads).
    public var angularVelocityBoardRadS: Vector3
    /// Specific force in board axes, m/s²: R⁻¹·(a + g·up), +g on the axis pointing up at rest (what an ideal
    /// accelerometer reads).
    public var specificForceBoardMps2: Vector3
    /// Normal gravity at this position, m/s² (WGS84 Somigliana with free-air correction; see `Geodesy`).
    public var gravityMps2: Double
    /// True static pressure, Pa: ISA at `altitudeMSLM` over the current sea-level pressure.
    public var pressurePa: Double
    /// Sea-level pressure of the simulated weather, Pa (slow smooth drift, a few hPa per day).
    public var seaLevelPressurePa: Double
    /// Ambient air temperature, °C.
    public var temperatureC: Double
    /// Earth's magnetic field (WMM2025) in ENU, µT; `nil` if the date is outside the model's validity.
    public var magneticFieldENUMicroTesla: Vector3?
    /// Earth's magnetic field in board axes, µT (no hard or soft iron; see `MagneticDisturbance`); `nil` as above.
    public var magneticFieldBoardMicroTesla: Vector3?
    /// Magnetic declination at the board, deg east of true north: the azimuth of the field's horizontal part (what a
    /// magnetic heading is measured from); `nil` without a field.
    public var magneticDeclinationDeg: Double? {
        magneticFieldENUMicroTesla.map { b in Angle.degrees(fromRadians: Double.atan2(y: b.x, x: b.y)) }
    }
    /// The segment kind in progress (`stationary` during the hold after the last segment).
    public var segment: SegmentKind
    /// The activity label (stairs → walk, lift → stationary).
    public var activity: ActivityKind
    /// Floor number, 0 at the start, changing half-way between floors.
    public var floor: Int
    /// True when no GNSS signal reaches the board (tunnel, indoors).
    public var gnssOutage: Bool
    /// True in an urban canyon (multipath jumps of the simulated receiver).
    public var gnssMultipath: Bool

    /// Memberwise initialiser; see each property for units and frames.
    public init(
        timeS: Double, latitudeDeg: Double, longitudeDeg: Double, heightM: Double, altitudeMSLM: Double,
        velocityENUMps: Vector3, accelerationENUMps2: Vector3, boardToENU: Quaternion,
        angularVelocityBoardRadS: Vector3, specificForceBoardMps2: Vector3, gravityMps2: Double,
        pressurePa: Double, seaLevelPressurePa: Double, temperatureC: Double,
        magneticFieldENUMicroTesla: Vector3?, magneticFieldBoardMicroTesla: Vector3?,
        segment: SegmentKind, activity: ActivityKind, floor: Int, gnssOutage: Bool, gnssMultipath: Bool = false
    ) {
        self.timeS = timeS; self.latitudeDeg = latitudeDeg; self.longitudeDeg = longitudeDeg
        self.heightM = heightM; self.altitudeMSLM = altitudeMSLM
        self.velocityENUMps = velocityENUMps; self.accelerationENUMps2 = accelerationENUMps2
        self.boardToENU = boardToENU; self.angularVelocityBoardRadS = angularVelocityBoardRadS
        self.specificForceBoardMps2 = specificForceBoardMps2; self.gravityMps2 = gravityMps2
        self.pressurePa = pressurePa; self.seaLevelPressurePa = seaLevelPressurePa; self.temperatureC = temperatureC
        self.magneticFieldENUMicroTesla = magneticFieldENUMicroTesla
        self.magneticFieldBoardMicroTesla = magneticFieldBoardMicroTesla
        self.segment = segment; self.activity = activity; self.floor = floor; self.gnssOutage = gnssOutage
        self.gnssMultipath = gnssMultipath
    }
}
