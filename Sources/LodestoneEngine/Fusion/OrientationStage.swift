import LodestoneCore

// Placeholder until issue 4 lands its stage here: no columns, no estimates.

/// The orientation stage of fusion (issue 4).
public struct OrientationStage: FusionStage {
    /// The stage's settings (part of `FusionConfiguration`).
    public struct Configuration: Sendable { public init() {} }

    public init(configuration: FusionConfiguration) {}
    public var columns: [String] { [] }
    public mutating func process(_ sample: FusionSample, context: inout FusionContext) {}
    public func appendCells(to line: inout String) {}
    public var liveLines: [String] { [] }
}
