import LodestoneCore

/// The geomagnetic main field at one place and time, as the World Magnetic Model reports it.
///
/// Frame: local geodetic (WGS84) north-east-down, the WMM's X, Y, Z. Field in nanotesla (nT), angles in
/// degrees, secular variation (rates) per year. Source: Chulliat et al., *The US/UK World Magnetic Model
/// for 2025-2030: Technical Report* (NOAA NCEI 2025), the equations for the derived elements.
public struct MagneticElements: Sendable, Hashable, Codable {
    /// X, northward component, nT.
    public var northNT: Double
    /// Y, eastward component, nT.
    public var eastNT: Double
    /// Z, downward component, nT (positive in the northern magnetic hemisphere).
    public var downNT: Double
    /// H = √(X² + Y²), horizontal intensity, nT, ≥ 0.
    public var horizontalNT: Double
    /// F = √(H² + Z²), total intensity, nT, ≥ 0.
    public var totalNT: Double
    /// D = atan2(Y, X), declination, degrees east of true north, (−180, 180]. True heading = magnetic heading + D.
    public var declinationDeg: Double
    /// I = atan2(Z, H), inclination (dip), degrees, positive down, −90…90.
    public var inclinationDeg: Double
    /// Grid variation, degrees in (−180, 180]: D − longitude north of 55°N, D + longitude south of 55°S;
    /// `nil` where it is not defined (|latitude| < 55°).
    public var gridVariationDeg: Double?

    /// dX/dt, nT/year.
    public var northRateNTPerYear: Double
    /// dY/dt, nT/year.
    public var eastRateNTPerYear: Double
    /// dZ/dt, nT/year.
    public var downRateNTPerYear: Double
    /// dH/dt, nT/year.
    public var horizontalRateNTPerYear: Double
    /// dF/dt, nT/year.
    public var totalRateNTPerYear: Double
    /// dD/dt, degrees/year.
    public var declinationRateDegPerYear: Double
    /// dI/dt, degrees/year.
    public var inclinationRateDegPerYear: Double

    /// Memberwise initialiser; see each property for units.
    public init(
        northNT: Double, eastNT: Double, downNT: Double, horizontalNT: Double, totalNT: Double,
        declinationDeg: Double, inclinationDeg: Double, gridVariationDeg: Double?,
        northRateNTPerYear: Double, eastRateNTPerYear: Double, downRateNTPerYear: Double,
        horizontalRateNTPerYear: Double, totalRateNTPerYear: Double,
        declinationRateDegPerYear: Double, inclinationRateDegPerYear: Double
    ) {
        self.northNT = northNT; self.eastNT = eastNT; self.downNT = downNT
        self.horizontalNT = horizontalNT; self.totalNT = totalNT
        self.declinationDeg = declinationDeg; self.inclinationDeg = inclinationDeg
        self.gridVariationDeg = gridVariationDeg
        self.northRateNTPerYear = northRateNTPerYear; self.eastRateNTPerYear = eastRateNTPerYear
        self.downRateNTPerYear = downRateNTPerYear; self.horizontalRateNTPerYear = horizontalRateNTPerYear
        self.totalRateNTPerYear = totalRateNTPerYear
        self.declinationRateDegPerYear = declinationRateDegPerYear
        self.inclinationRateDegPerYear = inclinationRateDegPerYear
    }

    /// The field vector in the earth frame East-North-Up, µT: (Y, X, −Z) / 1000.
    public var fieldENUMicroTesla: Vector3 {
        Vector3(eastNT, northNT, -downNT) / 1000
    }
}
