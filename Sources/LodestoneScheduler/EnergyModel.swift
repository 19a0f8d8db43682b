import LodestoneCore

/// A supply current at a supply voltage.
public struct PowerDraw: Sendable, Hashable {
    /// Mean supply current, mA.
    public var milliAmp: Double
    /// Supply voltage the data sheet specifies the current at, V.
    public var supplyV: Double

    public init(milliAmp: Double, supplyV: Double) { self.milliAmp = milliAmp; self.supplyV = supplyV }
    /// Power, mW: `milliAmp × supplyV`.
    public var milliWatt: Double { milliAmp * supplyV }
    /// Charge drawn in `durationS` seconds at this current, mAh.
    public func milliAmpHours(overS durationS: Double) -> Double { milliAmp * durationS / 3600 }
    /// Energy drawn in `durationS` seconds, mWh.
    public func milliWattHours(overS durationS: Double) -> Double { milliWatt * durationS / 3600 }
}

/// Where a figure of the energy model comes from: the data sheet (document number and revision), the table or section,
/// and the conditions it was stated at. `confirmed` is false for a figure that could not be checked against the
/// document itself (quoted from a secondary source or from memory, or estimated): `docs/energy-model.md` lists them.
public struct EnergySource: Sendable, Hashable {
    /// The chip or receiver (`ChipCatalog` name or `EnergyModel.receiverModels` key).
    public var part: String
    /// Document, number and revision ("Bosch BST-BMP280-DS001 rev. 1.23").
    public var document: String
    /// Table or section, and what the figure is with its conditions.
    public var figure: String
    /// True when the figure was read in the document itself.
    public var confirmed: Bool

    public init(part: String, document: String, figure: String, confirmed: Bool) {
        self.part = part; self.document = document; self.figure = figure; self.confirmed = confirmed
    }
}

/// Current draw of each chip and receiver in each mode, from their data sheets.
///
/// Chips: the mean supply current of a `SensorConfiguration` as the driver applies it (see each driver's
/// `registerSettings(for:)` for what `.normal`/`.lowPower`/`.suspend` mean on that chip), computed from the structure
/// the data sheet gives — conversions per second × charge per conversion at the oversampling, plus the static
/// current (barometers, magnetometers); which parts run and the low-power current-versus-rate tables (IMUs). Between
/// the points a data sheet gives, the current is interpolated linearly in rate, which is what "charge per sample ×
/// rate + static current" implies; below the lowest point it falls linearly to the static (sleep) current, above the
/// highest it continues with the last segment's charge per sample. The figures and their sources are in
/// `EnergyChipTables` and `EnergyReceiverTables` and in `docs/energy-model.md`.
///
/// Currents are typical (not maximum) figures at the supply voltage the data sheet states them at (`PowerDraw.supplyV`);
/// the board's regulators, pull-ups, bus traffic and the host CPU are not included.
public enum EnergyModel {
    /// The mean supply current of `chip` (a `ChipCatalog` name, case-insensitive) run with `configuration` (rate, power
    /// mode, oversampling, FIFO), or its suspend current when `enabled` is false; `nil` for a chip the table lacks.
    /// `configuration` should be the one the driver reported (`SensorSource.configuration`), whose rate and
    /// oversampling are the chip's own steps; a FIFO changes nothing on the chip's supply (it saves host wake-ups).
    public static func draw(chip: String, configuration: SensorConfiguration, enabled: Bool) -> PowerDraw? {
        EnergyChipTables.draw(chip: chip, configuration: configuration, enabled: enabled)
    }

    /// The supply current of a receiver `model` (see `receiverModels`) in `state`; `nil` for an unknown model.
    /// `.powerSaveIdle` is the current between two fixes of the ON/OFF operation (the receiver's inactive state); the
    /// average of cyclic tracking is in `draw(receiver:mode:)`.
    public static func draw(receiver model: String, state: GNSSPowerState) -> PowerDraw? {
        guard let r = receiver(model) else { return nil }
        let milliAmp =
            switch state {
            case .off: r.backupMilliAmp
            case .acquiring: r.acquisitionMilliAmp
            case .tracking: r.trackingMilliAmp
            case .powerSaveIdle: r.inactiveMilliAmp
            }
        return PowerDraw(milliAmp: milliAmp, supplyV: r.supplyV)
    }

    /// The supply current in `state` while the receiver runs `mode`: as `draw(receiver:state:)`, except between the
    /// fixes of cyclic tracking (`.powerSaveIdle` under `.powerSave` with a period up to
    /// `ReceiverEnergyProfile.cyclicTrackingMaximumPeriodS`), where the receiver keeps its satellites in u-blox's
    /// "power optimized tracking" rather than sleeping: that draws the data sheet's cyclic-tracking average, not the
    /// ON/OFF inactive current. Use this to price a receiver's state timeline.
    public static func draw(receiver model: String, state: GNSSPowerState, mode: GNSSReceiverMode) -> PowerDraw? {
        guard let r = receiver(model) else { return nil }
        if state == .powerSaveIdle, case .powerSave(let periodS) = mode, periodS <= r.cyclicTrackingMaximumPeriodS {
            return PowerDraw(milliAmp: r.cyclicTrackingMilliAmp, supplyV: r.supplyV)
        }
        return draw(receiver: model, state: state)
    }

    /// The mean current of a receiver run in `mode`, averaging acquisition, tracking and idle as the mode
    /// cycles through them (hot starts assumed): continuous = tracking; power save with an update period up to
    /// `ReceiverEnergyProfile.cyclicTrackingMaximumPeriodS` = the data sheet's cyclic-tracking average; longer periods
    /// = ON/OFF (a hot-start acquisition, `onTimeS` of tracking, the rest inactive); off = backup.
    public static func draw(receiver model: String, mode: GNSSReceiverMode) -> PowerDraw? {
        guard let r = receiver(model) else { return nil }
        return PowerDraw(milliAmp: r.averageMilliAmp(mode), supplyV: r.supplyV)
    }

    /// Receiver models the table knows (`ublox-m8`, …).
    public static var receiverModels: [String] { EnergyReceiverTables.profiles.map(\.model) }

    /// The profile of receiver `model` (case-insensitive; aliases such as `nmea` → `generic`, `neo-m8n` →
    /// `ublox-m8` are accepted), `nil` when unknown.
    public static func receiver(_ model: String) -> ReceiverEnergyProfile? { EnergyReceiverTables.profile(model) }

    /// The chips the table knows (`ChipCatalog` names).
    public static var chips: [String] { EnergyChipTables.chips }

    /// Every figure's source, chips and receivers, in table order.
    public static var sources: [EnergySource] { EnergyChipTables.sources + EnergyReceiverTables.sources }
}

/// Piecewise-linear current versus rate, as the physics of duty-cycled conversion implies: a static current plus a
/// charge per sample times the rate. `points` are the data sheet's (rate Hz, current µA), ascending in rate.
func interpolatedMicroAmp(_ points: [(rateHz: Double, microAmp: Double)], staticMicroAmp: Double, rateHz: Double) -> Double {
    guard rateHz > 0, let first = points.first, let last = points.last else { return staticMicroAmp }
    if rateHz <= first.rateHz {
        return staticMicroAmp + (first.microAmp - staticMicroAmp) * rateHz / first.rateHz
    }
    var previous = first
    for p in points.dropFirst() {
        if rateHz <= p.rateHz {
            return previous.microAmp + (p.microAmp - previous.microAmp) * (rateHz - previous.rateHz)
                / (p.rateHz - previous.rateHz)
        }
        previous = p
    }
    // Above the table: the last segment's charge per sample (from the static current if the table has one point).
    let (r0, i0) = points.count >= 2 ? (points[points.count - 2].rateHz, points[points.count - 2].microAmp) : (0, staticMicroAmp)
    return last.microAmp + (last.microAmp - i0) / (last.rateHz - r0) * (rateHz - last.rateHz)
}
