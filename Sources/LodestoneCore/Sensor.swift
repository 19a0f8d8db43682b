/// The kind of physical quantity a sensor measures.
public enum SensorKind: String, Sendable, Hashable, Codable, CaseIterable {
    case barometer, accelerometer, gyroscope, magnetometer, thermometer, gnss
}

/// One reading from one chip, in SI units, in the **chip's own axes** until a mount matrix is applied
/// (`mounted(by:)`), after which the axes are the board frame (x right, y forward, z up).
///
/// Each field is `nil` when the chip does not measure it. A failed read is an error, never a reading
/// with stale or sentinel values.
public struct SensorReading: Sendable, Hashable, Codable {
    /// Time of the sample in seconds on the engine's clock.
    public var timeS: Double
    /// Static pressure, Pa.
    public var pressurePa: Double?
    /// Die or ambient temperature, °C.
    public var temperatureC: Double?
    /// Specific force (gravity included: +9.81 m/s² on the axis pointing up at rest), m/s².
    public var accelerationMps2: Vector3?
    /// Angular rate, rad/s, right-hand rule about each axis.
    public var angularVelocityRadS: Vector3?
    /// Magnetic flux density, µT.
    public var magneticFieldMicroTesla: Vector3?

    @inlinable public init(
        timeS: Double = 0, pressurePa: Double? = nil, temperatureC: Double? = nil,
        accelerationMps2: Vector3? = nil, angularVelocityRadS: Vector3? = nil,
        magneticFieldMicroTesla: Vector3? = nil
    ) {
        self.timeS = timeS; self.pressurePa = pressurePa; self.temperatureC = temperatureC
        self.accelerationMps2 = accelerationMps2; self.angularVelocityRadS = angularVelocityRadS
        self.magneticFieldMicroTesla = magneticFieldMicroTesla
    }

    /// The reading with its vectors rotated from chip axes into board axes by the mount matrix
    /// (`v_board = M · v_chip`, the IIO `mount_matrix` convention).
    @inlinable public func mounted(by m: Matrix3) -> SensorReading {
        var r = self
        r.accelerationMps2 = accelerationMps2.map { m * $0 }
        r.angularVelocityRadS = angularVelocityRadS.map { m * $0 }
        r.magneticFieldMicroTesla = magneticFieldMicroTesla.map { m * $0 }
        return r
    }

    /// The kinds present in this reading.
    public var kinds: [SensorKind] {
        var k: [SensorKind] = []
        if pressurePa != nil { k.append(.barometer) }
        if accelerationMps2 != nil { k.append(.accelerometer) }
        if angularVelocityRadS != nil { k.append(.gyroscope) }
        if magneticFieldMicroTesla != nil { k.append(.magnetometer) }
        if temperatureC != nil, k.isEmpty { k.append(.thermometer) }
        return k
    }
}

/// Physical constants used across the engine.
public enum PhysicalConstants {
    /// Standard gravity, m/s² (CGPM 1901; ISO 80000-3).
    public static let standardGravityMps2 = 9.80665
    /// 1 gauss in µT.
    public static let microTeslaPerGauss = 100.0
    /// ISA sea-level standard pressure, Pa (ISO 2533).
    public static let seaLevelPressurePa = 101_325.0
}
