import LodestoneCore

/// A supply current at a supply voltage.
public struct PowerDraw: Sendable, Hashable {
    /// Mean supply current, mA.
    public var milliAmp: Double
    /// Supply voltage the data sheet specifies the current at, V.
    public var supplyV: Double

    public init(milliAmp: Double, supplyV: Double) { self.milliAmp = milliAmp; self.supplyV = supplyV }
    /// Power, mW.
    public var milliWatt: Double { milliAmp * supplyV }
}

/// Current draw of each chip and receiver in each mode, from their data sheets.
///
/// SKELETON: the lead's API for issue 8; the energy-model helper fills in the table (each figure cited) and may add
/// API, keeping these entry points.
public enum EnergyModel {
    /// The mean supply current of `chip` (a `ChipCatalog` name) run with `configuration` (rate, power mode,
    /// oversampling, FIFO), or in its suspend current when `enabled` is false; `nil` for a chip the table lacks.
    public static func draw(chip: String, configuration: SensorConfiguration, enabled: Bool) -> PowerDraw? { nil }

    /// The supply current of a receiver `model` (see `receiverModels`) in `state`; `nil` for an unknown model.
    public static func draw(receiver model: String, state: GNSSPowerState) -> PowerDraw? { nil }

    /// The mean current of a receiver run in `mode`, averaging acquisition, tracking and idle as the mode
    /// cycles through them (hot starts assumed).
    public static func draw(receiver model: String, mode: GNSSReceiverMode) -> PowerDraw? { nil }

    /// Receiver models the table knows (`ublox-m8`, …).
    public static var receiverModels: [String] { [] }
}
