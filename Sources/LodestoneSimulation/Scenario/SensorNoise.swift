import LodestoneCore

/// Noise of a simulated accelerometer, per axis.
public struct AccelerometerNoise: Sendable, Hashable, Codable {
    /// White noise density, m/s²/√Hz (rms noise = density·√bandwidth).
    public var noiseDensityMps2PerRootHz: Double
    /// 1σ of the zero-g offset from one unit of the chip to the next, m/s²: fixed for a unit (the simulated board's
    /// `unit`), so that a calibration fitted to one unit holds on every later run of it.
    public var turnOnBiasSigmaMps2: Double
    /// 1σ of the change of a unit's offset from one power-on to the next (and with temperature), m/s².
    public var turnOnRepeatabilitySigmaMps2: Double
    /// Bias random walk, m/s² per √s (1σ growth of the bias after one second).
    public var biasRandomWalkMps2PerRootS: Double

    /// Noise figures; see each property for units.
    public init(
        noiseDensityMps2PerRootHz: Double, turnOnBiasSigmaMps2: Double, turnOnRepeatabilitySigmaMps2: Double = 0,
        biasRandomWalkMps2PerRootS: Double
    ) {
        self.noiseDensityMps2PerRootHz = noiseDensityMps2PerRootHz; self.turnOnBiasSigmaMps2 = turnOnBiasSigmaMps2
        self.turnOnRepeatabilitySigmaMps2 = turnOnRepeatabilitySigmaMps2
        self.biasRandomWalkMps2PerRootS = biasRandomWalkMps2PerRootS
    }
}

/// Noise of a simulated gyroscope, per axis.
public struct GyroscopeNoise: Sendable, Hashable, Codable {
    /// White noise density (angle random walk), rad/s/√Hz.
    public var noiseDensityRadSPerRootHz: Double
    /// 1σ of the bias (zero-rate offset) fixed at power-on, rad/s.
    public var turnOnBiasSigmaRadS: Double
    /// Bias random walk, rad/s per √s.
    public var biasRandomWalkRadSPerRootS: Double

    /// Noise figures; see each property for units.
    public init(noiseDensityRadSPerRootHz: Double, turnOnBiasSigmaRadS: Double, biasRandomWalkRadSPerRootS: Double) {
        self.noiseDensityRadSPerRootHz = noiseDensityRadSPerRootHz; self.turnOnBiasSigmaRadS = turnOnBiasSigmaRadS
        self.biasRandomWalkRadSPerRootS = biasRandomWalkRadSPerRootS
    }
}

/// Noise of a simulated magnetometer, per axis.
public struct MagnetometerNoise: Sendable, Hashable, Codable {
    /// RMS noise of one reading at the chip's output rate, µT.
    public var noiseRMSMicroTesla: Double
    /// 1σ of the chip's own zero-field offset, µT (board hard iron is `MagneticDisturbance`'s business).
    public var turnOnOffsetSigmaMicroTesla: Double
    /// Offset random walk, µT per √s.
    public var offsetRandomWalkMicroTeslaPerRootS: Double

    /// Noise figures; see each property for units.
    public init(noiseRMSMicroTesla: Double, turnOnOffsetSigmaMicroTesla: Double, offsetRandomWalkMicroTeslaPerRootS: Double) {
        self.noiseRMSMicroTesla = noiseRMSMicroTesla; self.turnOnOffsetSigmaMicroTesla = turnOnOffsetSigmaMicroTesla
        self.offsetRandomWalkMicroTeslaPerRootS = offsetRandomWalkMicroTeslaPerRootS
    }
}

/// Noise of a simulated barometer.
public struct BarometerNoise: Sendable, Hashable, Codable {
    /// RMS noise of one reading, Pa.
    public var noiseRMSPa: Double
    /// 1σ of the absolute offset fixed at power-on, Pa.
    public var turnOnOffsetSigmaPa: Double
    /// Offset random walk, Pa per √s.
    public var offsetRandomWalkPaPerRootS: Double

    /// Noise figures; see each property for units.
    public init(noiseRMSPa: Double, turnOnOffsetSigmaPa: Double, offsetRandomWalkPaPerRootS: Double) {
        self.noiseRMSPa = noiseRMSPa; self.turnOnOffsetSigmaPa = turnOnOffsetSigmaPa
        self.offsetRandomWalkPaPerRootS = offsetRandomWalkPaPerRootS
    }
}

extension BarometerNoise {
    /// A BMP388-class barometer (Bosch BMP388/BMP390 class), as configured for altitude work at 25 Hz with
    /// oversampling and the IIR filter off: white noise 0.5 Pa RMS per reading (between the ≈ 0.03 Pa the
    /// BMP388/BMP390 datasheets (BST-BMP388-DS001, BST-BMP390-DS002) quote at their lowest bandwidth and the
    /// 1.3 Pa of a BMP280 at full bandwidth; air turbulence indoors is of this order too), an offset fixed at
    /// power-on of 17 Pa 1σ (absolute accuracy ±0.5 hPa taken as 3σ), and an offset random walk of
    /// 0.005 Pa/√s standing for temperature-driven drift (TCO ±0.75 Pa/K).
    public static let bmp388Class = BarometerNoise(noiseRMSPa: 0.5, turnOnOffsetSigmaPa: 17, offsetRandomWalkPaPerRootS: 0.005)
}

/// Noise parameters for each simulated sensor kind. Values only: whoever builds the simulated board applies them.
public struct SensorNoise: Sendable, Hashable, Codable {
    /// Accelerometer noise.
    public var accelerometer: AccelerometerNoise
    /// Gyroscope noise.
    public var gyroscope: GyroscopeNoise
    /// Magnetometer noise.
    public var magnetometer: MagnetometerNoise
    /// Barometer noise.
    public var barometer: BarometerNoise

    /// Noise for the four sensor kinds.
    public init(
        accelerometer: AccelerometerNoise, gyroscope: GyroscopeNoise, magnetometer: MagnetometerNoise,
        barometer: BarometerNoise
    ) {
        self.accelerometer = accelerometer; self.gyroscope = gyroscope
        self.magnetometer = magnetometer; self.barometer = barometer
    }

    /// Typical consumer MEMS sensors.
    ///
    /// - Accelerometer, gyroscope: InvenSense MPU-9250 product specification (PS-MPU-9250A-01 rev 1.1),
    ///   accelerometer noise power spectral density 300 µg/√Hz (2.94e-3 m/s²/√Hz), zero-g initial tolerance
    ///   ±60 mg X/Y (σ taken as 20 mg: the spread between units; one unit keeps its offset), and 2 mg (σ) from one
    ///   power-on to the next, an assumption (the data sheet gives only ±1.5 mg/°C X/Y over temperature, so a few
    ///   degrees' difference between a calibration and a run); gyroscope rate noise spectral density 0.01 °/s/√Hz (1.75e-4 rad/s/√Hz),
    ///   initial zero-rate-output tolerance ±5 °/s (σ taken as 1 °/s). The datasheet gives no bias random walk;
    ///   1e-4 m/s²/√s and 2e-5 rad/s/√s (≈ 0.07 °/s drift per hour) are order-of-magnitude values from Allan-
    ///   variance studies of consumer MEMS IMUs.
    /// - Magnetometer: ST LIS3MDL datasheet (DocID024204), RMS noise 3.2 mgauss (0.32 µT) in ultra-high-
    ///   performance mode; its zero-gauss offset is left to `MagneticDisturbance.hardIronMicroTesla`.
    /// - Barometer: Bosch BMP280 datasheet (BST-BMP280-DS001), RMS noise 1.3 Pa at full bandwidth in
    ///   ultra-high-resolution mode, absolute accuracy ±1.0 hPa (σ taken as 33 Pa); the offset random walk
    ///   (0.01 Pa/√s) is an assumption consistent with its ±1.0 hPa/year long-term stability.
    public static let consumerMEMS = SensorNoise(
        accelerometer: AccelerometerNoise(
            noiseDensityMps2PerRootHz: 300e-6 * PhysicalConstants.standardGravityMps2,
            turnOnBiasSigmaMps2: 0.020 * PhysicalConstants.standardGravityMps2,
            turnOnRepeatabilitySigmaMps2: 0.002 * PhysicalConstants.standardGravityMps2,
            biasRandomWalkMps2PerRootS: 1e-4),
        gyroscope: GyroscopeNoise(
            noiseDensityRadSPerRootHz: Angle.radians(fromDegrees: 0.01),
            turnOnBiasSigmaRadS: Angle.radians(fromDegrees: 1.0),
            biasRandomWalkRadSPerRootS: 2e-5),
        magnetometer: MagnetometerNoise(
            noiseRMSMicroTesla: 0.32, turnOnOffsetSigmaMicroTesla: 0,
            offsetRandomWalkMicroTeslaPerRootS: 0),
        barometer: BarometerNoise(noiseRMSPa: 1.3, turnOnOffsetSigmaPa: 33, offsetRandomWalkPaPerRootS: 0.01))

    /// `consumerMEMS` with a BMP388-class barometer (`BarometerNoise.bmp388Class`) instead of the BMP280.
    public static let consumerMEMSWithBMP388 = SensorNoise(
        accelerometer: consumerMEMS.accelerometer, gyroscope: consumerMEMS.gyroscope,
        magnetometer: consumerMEMS.magnetometer, barometer: .bmp388Class)

    /// Perfect sensors (all zero), for tests that want the truth through the chip models.
    public static let none = SensorNoise(
        accelerometer: AccelerometerNoise(noiseDensityMps2PerRootHz: 0, turnOnBiasSigmaMps2: 0, biasRandomWalkMps2PerRootS: 0),
        gyroscope: GyroscopeNoise(noiseDensityRadSPerRootHz: 0, turnOnBiasSigmaRadS: 0, biasRandomWalkRadSPerRootS: 0),
        magnetometer: MagnetometerNoise(
            noiseRMSMicroTesla: 0, turnOnOffsetSigmaMicroTesla: 0,
            offsetRandomWalkMicroTeslaPerRootS: 0),
        barometer: BarometerNoise(noiseRMSPa: 0, turnOnOffsetSigmaPa: 0, offsetRandomWalkPaPerRootS: 0))
}

/// Magnetic disturbance fixed to the board, in board axes: what a magnetometer calibration must undo.
///
/// Measured field = `softIron` · true field + `hardIronMicroTesla`.
public struct MagneticDisturbance: Sendable, Hashable, Codable {
    /// Hard-iron offset, µT, board axes: a field that turns with the board (magnetised screws, speaker
    /// magnets, battery currents, the chip's own offset).
    public var hardIronMicroTesla: Vector3
    /// Soft-iron matrix, dimensionless, board axes: how permeable material near the sensor distorts the
    /// ambient field (identity = none; symmetric positive definite in practice).
    public var softIron: Matrix3

    /// A disturbance; see each property for units.
    public init(hardIronMicroTesla: Vector3, softIron: Matrix3) {
        self.hardIronMicroTesla = hardIronMicroTesla; self.softIron = softIron
    }

    /// The field a magnetometer on the board would see, µT, board axes.
    @inlinable public func apply(toFieldBoardMicroTesla field: Vector3) -> Vector3 {
        softIron * field + hardIronMicroTesla
    }

    /// No disturbance.
    public static let none = MagneticDisturbance(hardIronMicroTesla: .zero, softIron: .identity)

    /// A plausible phone-sized board: hard iron of tens of µT (comparable to the Earth's field, as phone
    /// magnetometer calibrations commonly find) and a few per cent of soft iron.
    public static let typicalPhone = MagneticDisturbance(
        hardIronMicroTesla: Vector3(18.0, -9.5, 31.0),
        softIron: Matrix3(rows: Vector3(1.04, 0.02, -0.01), Vector3(0.02, 0.97, 0.015), Vector3(-0.01, 0.015, 1.01)))
}
