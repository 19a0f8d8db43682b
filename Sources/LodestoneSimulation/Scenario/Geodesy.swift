import LodestoneCore
import RealModule

/// The WGS84 ellipsoid and its normal gravity, as the trajectory generator uses them: `LodestoneCore`'s `WGS84`
/// (one source for the simulator and location fusion), under the simulator's name.
public typealias Geodesy = WGS84
