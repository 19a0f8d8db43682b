import LodestoneCore

// Placeholder until issue 5 lands its stage here: no columns, no estimates.

/// The motion stage of fusion (issue 5).
public struct MotionStage: FusionStage {
    /// The stage's settings (part of `FusionConfiguration`).
    public struct Configuration: Sendable { public init() {} }

    public init(configuration: FusionConfiguration) {}
    public var columns: [String] { [] }
    public mutating func process(_ sample: FusionSample, context: inout FusionContext) {}
    public func appendCells(to line: inout String) {}
    public var liveLines: [String] { [] }
}
