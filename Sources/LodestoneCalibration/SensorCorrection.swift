import LodestoneCore

/// One sensor's calibration, ready to apply to every reading: what fusion's calibration stage runs per sample.
/// `apply` allocates nothing.
public struct SensorCorrection: Sendable, Hashable {
    /// The board file's sensor id.
    public var id: String
    /// Magnetometer: calibrated = W·(raw − h).
    public var hardIronMicroTesla: Vector3?
    public var softIronCorrection: Matrix3?
    /// Accelerometer: calibrated = T·(raw − b).
    public var accelerometerOffsetMps2: Vector3?
    public var accelerometerCorrection: Matrix3?
    /// Gyroscope: calibrated = raw − bias.
    public var gyroscopeBiasRadS: Vector3?
    /// Barometer: calibrated = raw − offset.
    public var barometerOffsetPa: Double?

    /// The corrections of `calibration`.
    public init(_ calibration: SensorCalibration) {
        id = calibration.id
        hardIronMicroTesla = calibration.magnetometer?.hardIronMicroTesla
        softIronCorrection = calibration.magnetometer?.softIronCorrection
        accelerometerOffsetMps2 = calibration.accelerometer?.offsetMps2
        accelerometerCorrection = calibration.accelerometer?.correction
        gyroscopeBiasRadS = calibration.gyroscope?.biasRadS
        barometerOffsetPa = calibration.barometer?.offsetPa
    }

    /// Corrects the quantities of `reading` that this sensor has a calibration for (board axes, SI).
    @inlinable public func apply(to reading: inout SensorReading) {
        applyMagnetometer(to: &reading)
        applyAccelerometer(to: &reading)
        applyGyroscope(to: &reading)
        applyBarometer(to: &reading)
    }

    /// Corrects the magnetic field only: W·(raw − h).
    @inlinable public func applyMagnetometer(to reading: inout SensorReading) {
        if let m = reading.magneticFieldMicroTesla, let h = hardIronMicroTesla, let w = softIronCorrection {
            reading.magneticFieldMicroTesla = w * (m - h)
        }
    }

    /// Corrects the specific force only: T·(raw − b).
    @inlinable public func applyAccelerometer(to reading: inout SensorReading) {
        if let a = reading.accelerationMps2, let b = accelerometerOffsetMps2, let t = accelerometerCorrection {
            reading.accelerationMps2 = t * (a - b)
        }
    }

    /// Corrects the angular rate only: raw − bias.
    @inlinable public func applyGyroscope(to reading: inout SensorReading) {
        if let g = reading.angularVelocityRadS, let bias = gyroscopeBiasRadS {
            reading.angularVelocityRadS = g - bias
        }
    }

    /// Corrects the pressure only: raw − offset.
    @inlinable public func applyBarometer(to reading: inout SensorReading) {
        if let p = reading.pressurePa, let offset = barometerOffsetPa {
            reading.pressurePa = p - offset
        }
    }
}
