import LodestoneCalibration
import LodestoneCore
import LodestoneDrivers

/// How far a board's accelerometer offset may be from zero after the engine's calibration stage, per axis (1σ):
/// what sets `OrientationFilter.Parameters.accelerometerOffsetSigmaMps2`, and through it the share of the heading
/// accuracy that comes from the tilt such an offset causes.
public enum AccelerometerOffsetUncertainty {
    /// The zero-g tolerance assumed for a chip whose data sheet bounds none (`ChipCatalog.accelerometerZeroGToleranceMg`
    /// is `nil`), mg: 60, the MPU-9250's, of the order of every consumer part's (ST's LSM6DS parts give ±40 mg typical).
    public static let defaultZeroGToleranceMg = 60.0
    /// How far a calibrated offset moves before the next calibration, mg (1σ): 3. The chips' zero-g level changes with
    /// temperature (±1.5 mg/°C for the MPU-9250, PS-MPU-9250A-01 §3.2) and a little from one power-on to the next; 3 mg
    /// is two degrees between calibration and use, an assumption (a board used far from its calibration's
    /// temperature is worse).
    public static let calibratedDriftMg = 3.0

    /// 1σ per axis, m/s²: with an accelerometer calibration, its residual and `calibratedDriftMg` together; without
    /// one, a third of the chip's zero-g tolerance (the tolerance taken as 3σ).
    public static func sigmaMps2(chip: ChipID, calibration: AccelerometerCalibration?) -> Double {
        let mgToMps2 = PhysicalConstants.standardGravityMps2 / 1000
        if let calibration {
            let drift = calibratedDriftMg * mgToMps2
            return (calibration.residualMps2 * calibration.residualMps2 + drift * drift).squareRoot()
        }
        return (ChipCatalog.accelerometerZeroGToleranceMg(chip) ?? defaultZeroGToleranceMg) / 3 * mgToMps2
    }
}
