import LodestoneCore

/// Whether the battery charges (`/sys/class/power_supply/*/status`: Charging, Discharging, Full, Not charging,
/// Unknown), or the board has no battery at all (mains powered).
public enum ChargingState: String, Sendable, Hashable, Codable, CaseIterable {
    case charging, discharging, full, notCharging, unknown
    /// No battery: the board runs from mains or USB; power costs nothing to the user's day.
    case externalPower
}

/// What is known of the battery at an instant.
public struct BatteryState: Sendable, Hashable, Codable {
    /// State of charge, 0…1 (`capacity` / 100, or energy_now / energy_full, or charge_now / charge_full); `nil` unknown.
    public var levelFraction: Double?
    public var charging: ChargingState
    /// Energy now and when full, Wh (`energy_now`, `energy_full`, µWh in sysfs), where the gauge reports them.
    public var energyNowWh: Double?
    public var energyFullWh: Double?
    /// Charge now and when full, mAh (`charge_now`, `charge_full`, µAh in sysfs), where the gauge reports them.
    public var chargeNowMilliAmpHour: Double?
    public var chargeFullMilliAmpHour: Double?
    /// Battery voltage, V (`voltage_now`, µV in sysfs).
    public var voltageV: Double?
    /// Where the numbers come from (`/sys/class/power_supply/BAT0`, `simulated 2000 mAh`).
    public var source: String

    public init(
        levelFraction: Double?, charging: ChargingState, energyNowWh: Double? = nil, energyFullWh: Double? = nil,
        chargeNowMilliAmpHour: Double? = nil, chargeFullMilliAmpHour: Double? = nil, voltageV: Double? = nil,
        source: String
    ) {
        self.levelFraction = levelFraction; self.charging = charging; self.energyNowWh = energyNowWh
        self.energyFullWh = energyFullWh; self.chargeNowMilliAmpHour = chargeNowMilliAmpHour
        self.chargeFullMilliAmpHour = chargeFullMilliAmpHour; self.voltageV = voltageV; self.source = source
    }

    /// A board without a battery.
    public static let externalPower = BatteryState(levelFraction: nil, charging: .externalPower, source: "no battery")
}

/// How much service the battery allows, from the state of charge and charging (the scheduler derives it with
/// hysteresis; the thresholds are documented where it does).
public enum BatteryTier: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Almost empty: only what keeps the clients alive at the coarsest tier.
    case critical
    /// Low: accuracy tiers lowered one step, longer GNSS periods.
    case low
    /// Saver: like normal but without optional extras (full-rate IMU when nobody navigates).
    case saver
    /// Normal service.
    case normal
    /// Charging or mains powered: full service, power is no concern.
    case unrestricted

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: BatteryTier, b: BatteryTier) -> Bool { a.rank < b.rank }
}

/// What the carrier is doing, as far as the scheduler needs to know: from the activity classifier, corrected at once by
/// the any-motion detector or a chip's wake-on-motion interrupt.
public enum CarrierMotion: String, Sendable, Hashable, Codable, CaseIterable {
    case unknown, stationary, walk, run, cycle, drive

    /// True for every state in which the carrier may be moving (everything but `stationary`).
    public var mayMove: Bool { self != .stationary }
}

/// How well the receiver does, from its latest fixes.
public struct GNSSQuality: Sendable, Hashable, Codable {
    /// Time of the latest fix with a position, s (engine clock); `nil` before the first.
    public var lastFixTimeS: Double?
    /// Its horizontal accuracy (95 %), m.
    public var horizontalAccuracyM: Double?
    /// Satellites used in it.
    public var satellitesUsed: Int?
    /// Its ground speed, m/s.
    public var speedMps: Double?
    /// Its position (WGS84, degrees, + north / + east), for policies that remember places (RAPS' space-time
    /// history and blacklisting).
    public var latitudeDeg: Double?
    public var longitudeDeg: Double?

    public init(
        lastFixTimeS: Double? = nil, horizontalAccuracyM: Double? = nil, satellitesUsed: Int? = nil,
        speedMps: Double? = nil, latitudeDeg: Double? = nil, longitudeDeg: Double? = nil
    ) {
        self.lastFixTimeS = lastFixTimeS; self.horizontalAccuracyM = horizontalAccuracyM
        self.satellitesUsed = satellitesUsed; self.speedMps = speedMps
        self.latitudeDeg = latitudeDeg; self.longitudeDeg = longitudeDeg
    }
}
