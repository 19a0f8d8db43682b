import LodestoneCore

// Placeholder until issue 6 lands its stage here: no columns, no estimates.

/// The location stage of fusion (issue 6).
public struct LocationStage: FusionStage {
    /// The stage's settings (part of `FusionConfiguration`).
    public struct Configuration: Sendable { public init() {} }

    public init(configuration: FusionConfiguration) {}
    public var columns: [String] { [] }
    public mutating func process(_ sample: FusionSample, context: inout FusionContext) {}
    public func appendCells(to line: inout String) {}
    public var liveLines: [String] { [] }
}
