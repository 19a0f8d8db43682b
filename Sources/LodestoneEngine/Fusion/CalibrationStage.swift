import LodestoneCore

// Placeholder until issue 7 lands here: applies no calibration.

/// Applies a board's calibration (issue 7) to every sample before fusion sees it.
public struct CalibrationStage {
    /// The stage's settings (part of `FusionConfiguration`).
    public struct Configuration: Sendable { public init() {} }

    public init(configuration: FusionConfiguration) {}
    /// Corrects the sample's sensor values in place.
    public mutating func apply(to sample: inout FusionSample) {}
    public var liveLines: [String] { [] }
}
