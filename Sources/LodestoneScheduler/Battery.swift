import LodestoneCore

// MARK: - Reading /sys/class/power_supply

extension BatteryState {
    /// The battery as the kernel's power-supply class reports it: `uevents` maps each supply's name (`BAT0`, `AC`,
    /// `axp20x-battery`, `usb`) to the text of its `/sys/class/power_supply/<name>/uevent` (`KEY=value` lines,
    /// `POWER_SUPPLY_` prefixed; Documentation/ABI/testing/sysfs-class-power). LodestoneLinux's
    /// `PowerSupply.readUevents(root:)` reads them.
    ///
    /// - Batteries are the supplies of `TYPE=Battery` that are present (`PRESENT` absent or 1) and power the system
    ///   (`SCOPE` absent or `System`; a wireless mouse's `SCOPE=Device` battery is not ours).
    /// - Level: one battery: `CAPACITY` (the gauge's own state of charge, %), else `ENERGY_NOW/ENERGY_FULL`, else
    ///   `CHARGE_NOW/CHARGE_FULL`. Several: the sums of energy (or of charge) when every battery reports them,
    ///   else the mean of their levels. Clamped to 0…1.
    /// - Charging: `Charging` on any battery → `.charging`; `Full` on all → `.full`; `Discharging` on any →
    ///   `.discharging`; `Not charging` → `.notCharging`; otherwise (`Unknown`, absent), an online `Mains`, `USB*` or
    ///   `UPS` supply → `.charging`, else `.unknown`. No battery at all (only mains, or no supply) → `.externalPower`.
    /// - Energy (µWh → Wh), charge (µAh → mAh) and voltage (µV → V) are summed (voltage: the first battery's).
    ///
    /// Lines that are not `KEY=value`, unknown keys and values that are not numbers are ignored: the kernel adds keys
    /// over time and some drivers report odd ones; a battery with no usable number gives a `nil` level, never a
    /// guess.
    ///
    /// - Parameter root: the directory the texts came from, for `source` (default `/sys/class/power_supply`).
    public init(uevents: [String: String], root: String = "/sys/class/power_supply") {
        var batteries: [(name: String, fields: [String: String])] = []
        var externalOnline = false
        for name in uevents.keys.sorted() {
            let fields = Self.fields(ofUevent: uevents[name] ?? "")
            let type = fields["TYPE"] ?? ""
            if type == "Battery" {
                if fields["PRESENT"] == "0" { continue }
                if let scope = fields["SCOPE"], scope != "System" { continue }
                batteries.append((name, fields))
            } else if type == "Mains" || type.hasPrefix("USB") || type == "UPS" || type == "Wireless" {
                if fields["ONLINE"].flatMap({ Int($0) }).map({ $0 > 0 }) ?? false { externalOnline = true }
            }
        }
        guard !batteries.isEmpty else {
            let names = uevents.keys.sorted().joined(separator: ", ")
            self.init(
                levelFraction: nil, charging: .externalPower,
                source: names.isEmpty ? "no power supply in \(root)" : "\(root): \(names) (no battery)")
            return
        }

        func number(_ f: [String: String], _ key: String) -> Double? { f[key].flatMap { Double($0) } }
        func sum(_ key: String, scale: Double) -> Double? {
            var total = 0.0
            for b in batteries {
                guard let v = number(b.fields, key) else { return nil }
                total += v * scale
            }
            return total
        }
        let energyNowWh = sum("ENERGY_NOW", scale: 1e-6), energyFullWh = sum("ENERGY_FULL", scale: 1e-6)
        let chargeNowMAh = sum("CHARGE_NOW", scale: 1e-3), chargeFullMAh = sum("CHARGE_FULL", scale: 1e-3)

        func ratio(_ now: Double?, _ full: Double?) -> Double? {
            guard let now, let full, full > 0 else { return nil }
            return now / full
        }
        func level(of f: [String: String]) -> Double? {
            if let c = number(f, "CAPACITY") { return c / 100 }
            return ratio(number(f, "ENERGY_NOW"), number(f, "ENERGY_FULL"))
                ?? ratio(number(f, "CHARGE_NOW"), number(f, "CHARGE_FULL"))
        }
        var levelFraction: Double?
        if batteries.count == 1 {
            levelFraction = level(of: batteries[0].fields)
        } else if let r = ratio(energyNowWh, energyFullWh) ?? ratio(chargeNowMAh, chargeFullMAh) {
            levelFraction = r
        } else {
            let levels = batteries.compactMap { level(of: $0.fields) }
            if levels.count == batteries.count { levelFraction = levels.reduce(0, +) / Double(levels.count) }
        }
        levelFraction = levelFraction.map { min(max($0, 0), 1) }

        let statuses = batteries.map { $0.fields["STATUS"] ?? "Unknown" }
        let charging: ChargingState
        if statuses.contains("Charging") {
            charging = .charging
        } else if statuses.allSatisfy({ $0 == "Full" }) {
            charging = .full
        } else if statuses.contains("Discharging") {
            charging = .discharging
        } else if statuses.contains("Not charging") {
            charging = .notCharging
        } else {
            charging = externalOnline ? .charging : .unknown
        }
        let voltageV = number(batteries[0].fields, "VOLTAGE_NOW").map { $0 * 1e-6 }
        self.init(
            levelFraction: levelFraction, charging: charging, energyNowWh: energyNowWh, energyFullWh: energyFullWh,
            chargeNowMilliAmpHour: chargeNowMAh, chargeFullMilliAmpHour: chargeFullMAh, voltageV: voltageV,
            source: batteries.map { root + "/" + $0.name }.joined(separator: " + "))
    }

    /// The `KEY=value` pairs of a uevent text, with the `POWER_SUPPLY_` prefix removed and values trimmed.
    static func fields(ofUevent text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard let eq = line.firstIndex(of: "=") else { continue }
            var key = Substring(line[..<eq])
            if key.hasPrefix("POWER_SUPPLY_") { key = key.dropFirst("POWER_SUPPLY_".count) }
            let value = line[line.index(after: eq)...].trimmingSpaces()
            fields[String(key)] = String(value)
        }
        return fields
    }

    /// True when the board draws from a charger or mains: power costs nothing to the user's day.
    public var isExternallyPowered: Bool {
        switch charging {
        case .charging, .full, .notCharging, .externalPower: true
        case .discharging, .unknown: false
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

// MARK: - Tiers

/// Where the battery tiers begin, and the hysteresis that keeps a level near a boundary from flapping.
///
/// Defaults: **critical** at ≤ 5 %, **low** at ≤ 15 %, **saver** at ≤ 30 %, **normal** above; a tier is entered
/// downwards as soon as the level reaches its boundary and left upwards only once the level is 3 points above it
/// (critical → low at > 8 %, low → saver at > 18 %, saver → normal at > 33 %). Charging, full, "not charging" (on
/// the charger, charge withheld) and a board without a battery are **unrestricted** at once; an unknown level on
/// battery is **normal**. These are the steps Android's battery saver and iOS' Low Power Mode take (Android turns
/// saver on at 15 % by default; the 5 % and 30 % steps are ours).
public struct BatteryTierThresholds: Sendable, Hashable, Codable {
    /// At or below this state of charge (0…1) the tier is `critical`. Default 0.05.
    public var criticalFraction: Double
    /// At or below: `low`. Default 0.15.
    public var lowFraction: Double
    /// At or below: `saver`. Default 0.30.
    public var saverFraction: Double
    /// A tier is left upwards only when the level exceeds its boundary by this much. Default 0.03 (3 points).
    public var hysteresisFraction: Double

    public init(
        criticalFraction: Double = 0.05, lowFraction: Double = 0.15, saverFraction: Double = 0.30,
        hysteresisFraction: Double = 0.03
    ) {
        self.criticalFraction = criticalFraction; self.lowFraction = lowFraction; self.saverFraction = saverFraction
        self.hysteresisFraction = hysteresisFraction
    }

    public static let `default` = BatteryTierThresholds()

    /// The tier of `battery`, given the tier it was in (`previous`): down at once, up only past the hysteresis.
    public func tier(for battery: BatteryState, previous: BatteryTier) -> BatteryTier {
        if battery.isExternallyPowered { return .unrestricted }
        guard let level = battery.levelFraction else { return .normal }
        let plain = tier(forLevel: level)
        if plain <= previous { return plain }
        // Rising: only as far as the level clears each boundary by the hysteresis.
        return max(previous == .unrestricted ? plain : previous, tier(forLevel: level - hysteresisFraction))
    }

    /// The tier of a level without hysteresis.
    func tier(forLevel level: Double) -> BatteryTier {
        if level <= criticalFraction { return .critical }
        if level <= lowFraction { return .low }
        if level <= saverFraction { return .saver }
        return .normal
    }
}

// MARK: - Simulated battery

/// A battery for runs on the simulated board and for the evaluation: a capacity, a level, drained by the current
/// you give it for each time step and charged during the intervals you give it.
///
/// Deliberately simple (a coulomb counter): no rate-capacity effect, no temperature, no self-discharge; the
/// voltage is the nominal one. Enough to drive the scheduler's tiers and to turn modelled mAh into hours.
public struct SimulatedBattery: Sendable, Hashable, Codable {
    /// Rated capacity, mAh (> 0).
    public var capacityMilliAmpHour: Double
    /// State of charge, 0…1.
    public private(set) var levelFraction: Double
    /// Nominal voltage, V (default 3.7, a Li-ion cell).
    public var nominalVoltageV: Double
    /// Time intervals (s on the engine clock, both ends inclusive) during which a charger is connected.
    public var chargingIntervalsS: [ClosedRange<Double>]
    /// Charging current while a charger is connected, mA (default: 0.5 C).
    public var chargeCurrentMilliAmp: Double
    /// Now, s (the end of the last step).
    public private(set) var timeS: Double
    /// `BatteryState.source` (made once: reading `state` builds no text).
    private let sourceText: String

    /// - Parameters:
    ///   - capacityMilliAmpHour: rated capacity, mAh; values ≤ 0 are taken as 1 mAh.
    ///   - levelFraction: the starting level, 0…1 (clamped).
    ///   - chargingIntervalsS: when a charger is connected.
    ///   - chargeCurrentMilliAmp: charging current; default half the capacity per hour.
    public init(
        capacityMilliAmpHour: Double, levelFraction: Double = 1, nominalVoltageV: Double = 3.7,
        chargingIntervalsS: [ClosedRange<Double>] = [], chargeCurrentMilliAmp: Double? = nil, timeS: Double = 0
    ) {
        self.capacityMilliAmpHour = max(capacityMilliAmpHour, 1)
        self.levelFraction = min(max(levelFraction, 0), 1)
        self.nominalVoltageV = nominalVoltageV
        self.chargingIntervalsS = chargingIntervalsS
        self.chargeCurrentMilliAmp = chargeCurrentMilliAmp ?? max(capacityMilliAmpHour, 1) / 2
        self.timeS = timeS
        sourceText = "simulated \(Int(max(capacityMilliAmpHour, 1).rounded())) mAh"
    }

    /// Whether a charger is connected at `timeS`.
    public func isCharging(atTimeS t: Double) -> Bool {
        chargingIntervalsS.contains { $0.contains(t) }
    }

    /// Draws `milliAmp` from `timeS` (the previous step's end) to `untilS` (a charger, when connected, supplies the
    /// load and charges the battery with `chargeCurrentMilliAmp`). Allocates nothing.
    public mutating func drain(milliAmp: Double, untilS: Double) {
        let dtS = max(untilS - timeS, 0)
        let netMilliAmp = isCharging(atTimeS: timeS) ? -chargeCurrentMilliAmp : milliAmp
        levelFraction = min(max(levelFraction - netMilliAmp * dtS / 3600 / capacityMilliAmpHour, 0), 1)
        timeS = max(untilS, timeS)
    }

    /// The battery now, as the scheduler reads it.
    public var state: BatteryState {
        let charging: ChargingState = isCharging(atTimeS: timeS) ? (levelFraction >= 1 ? .full : .charging) : .discharging
        return BatteryState(
            levelFraction: levelFraction, charging: charging,
            chargeNowMilliAmpHour: levelFraction * capacityMilliAmpHour,
            chargeFullMilliAmpHour: capacityMilliAmpHour, voltageV: nominalVoltageV,
            source: sourceText)
    }

    /// Hours a constant `milliAmp` draw takes to empty the full capacity.
    public func lifeHours(atMilliAmp milliAmp: Double) -> Double {
        milliAmp > 0 ? capacityMilliAmpHour / milliAmp : .infinity
    }
}
