import LodestoneCore

/// One GNSS receiver's currents in each power state and the timings its power-save operation needs, from its data
/// sheet and receiver description. Every figure's source is in `EnergyReceiverTables.sources`.
public struct ReceiverEnergyProfile: Sendable, Hashable {
    /// Energy model key (`ublox-m8`, …).
    public var model: String
    /// The part and why it is here.
    public var description: String
    /// Supply voltage the currents are stated at, V.
    public var supplyV: Double
    /// Mean current from start-up to the first fix (acquisition engine running), mA.
    public var acquisitionMilliAmp: Double
    /// Continuous tracking, mA.
    public var trackingMilliAmp: Double
    /// Mean current of the receiver's cyclic-tracking power save at 1 Hz, mA.
    public var cyclicTrackingMilliAmp: Double
    /// Current between two fixes of the ON/OFF operation (the receiver's inactive state), mA.
    public var inactiveMilliAmp: Double
    /// Backup current (main supply off, RTC and battery-backed RAM on V_BCKP), mA.
    public var backupMilliAmp: Double
    /// Time to first fix, s: hot start (ephemerides valid), warm start (almanac and time, no ephemerides), cold start.
    public var ttffHotS: Double
    public var ttffWarmS: Double
    public var ttffColdS: Double
    /// The longest update period the receiver's cyclic tracking serves, s; longer periods use ON/OFF operation.
    public var cyclicTrackingMaximumPeriodS: Double
    /// Tracking kept after each ON/OFF fix before the receiver sleeps (u-blox `ONTIME`), s. A modelling choice,
    /// not a data sheet figure (u-blox's minimum is 0): 1 s, the simulated receiver's `powerSaveOnTimeS`.
    public var onTimeS: Double

    /// The mean current of `mode` (see `EnergyModel.draw(receiver:mode:)`), mA.
    public func averageMilliAmp(_ mode: GNSSReceiverMode) -> Double {
        switch mode {
        case .off:
            return backupMilliAmp
        case .continuous:
            return trackingMilliAmp
        case .powerSave(let periodS):
            guard periodS > cyclicTrackingMaximumPeriodS else { return cyclicTrackingMilliAmp }
            let awakeS = ttffHotS + onTimeS
            guard periodS > awakeS else { return cyclicTrackingMilliAmp }
            let onOff =
                (ttffHotS * acquisitionMilliAmp + onTimeS * trackingMilliAmp + (periodS - awakeS) * inactiveMilliAmp) / periodS
            // At periods just above the cyclic limit ON/OFF cannot cost more than cyclic tracking would.
            return min(onOff, cyclicTrackingMilliAmp)
        }
    }
}

/// The receivers the energy model knows, and the GNSS facts the scheduler and the simulator need.
public enum EnergyReceiverTables {
    /// How long a receiver's ephemerides stay usable, s: "the ephemeris data is usually outdated after 4 hours"; a
    /// receiver powered down for 4 h or less hot-starts (u-blox NEO-F10N integration manual, section "startup
    /// modes"; GPS ephemerides are fitted over 4 h, IS-GPS-200 section 20.3.3.4.3.1).
    public static let ephemerisValidityS = 4.0 * 3600
    /// Off for less than this, a receiver with backup power is planned to hot-start, s: the conservative end of the
    /// validity, 2 h (GPS uploads new ephemerides every 2 h; Quectel's support quotes 2 h for the L76's backup mode).
    public static let hotStartMaximumOffS = 2.0 * 3600
    /// Time to decode a satellite's ephemeris from its signal, s: "18–36 seconds under strong signal conditions"
    /// (u-blox NEO-F10N integration manual, "cold start"): what a warm start, or an ON/OFF cycle whose ephemerides
    /// expired, adds to the acquisition.
    public static let ephemerisDownloadMinimumS = 18.0
    public static let ephemerisDownloadMaximumS = 36.0

    /// u-blox M8 (UBX-M8030): the NEO-M8N and the simulated board's receiver. Currents from the SAM-M8Q data sheet
    /// (UBX-16012619 R04, table 8, same M8 chip; the NEO-M8N's own table was not reachable): acquisition 32 mA,
    /// tracking 29 mA (GPS + GLONASS, the default), power save 1 Hz 9.5 mA, 3.0 V (confirmed). Backup 15 µA, TTFF
    /// hot 1 s, cold 26 s (NEO-M8 data sheet; unconfirmed); warm start not stated, taken as the cold figure. Cyclic
    /// tracking up to 10 s (u-blox M10 integration manual "0.5 s to 10 s", the same PSM; the M8 receiver
    /// description's power chapter was not reachable). Inactive current between ON/OFF fixes not found: the backup
    /// current is used (a lower bound).
    public static let ubloxM8 = ReceiverEnergyProfile(
        model: "ublox-m8", description: "u-blox M8 (NEO-M8N, SAM-M8Q, …; the simulated receiver)", supplyV: 3.0,
        acquisitionMilliAmp: 32, trackingMilliAmp: 29, cyclicTrackingMilliAmp: 9.5, inactiveMilliAmp: 0.015,
        backupMilliAmp: 0.015, ttffHotS: 1, ttffWarmS: 26, ttffColdS: 26, cyclicTrackingMaximumPeriodS: 10, onTimeS: 1)

    /// The u-blox M8 with GPS alone enabled (UBX-CFG-GNSS): SAM-M8Q table 8's GPS column, acquisition 25 mA, tracking
    /// 23 mA, power save 1 Hz 9.5 mA (confirmed); the rest as `ubloxM8`.
    public static let ubloxM8GPS = ReceiverEnergyProfile(
        model: "ublox-m8-gps", description: "u-blox M8 with GPS only", supplyV: 3.0,
        acquisitionMilliAmp: 25, trackingMilliAmp: 23, cyclicTrackingMilliAmp: 9.5, inactiveMilliAmp: ubloxM8.inactiveMilliAmp,
        backupMilliAmp: ubloxM8.backupMilliAmp, ttffHotS: ubloxM8.ttffHotS, ttffWarmS: ubloxM8.ttffWarmS,
        ttffColdS: ubloxM8.ttffColdS,
        cyclicTrackingMaximumPeriodS: ubloxM8.cyclicTrackingMaximumPeriodS, onTimeS: ubloxM8.onTimeS)

    /// u-blox NEO-6M (GPS.G6-HW-09005), common on hobby boards; all unconfirmed: tracking (continuous) 37 mA, power
    /// save 1 Hz 11 mA, backup 22 µA at 3.0 V, TTFF hot 1 s, warm and cold 27 s (data sheet, from memory);
    /// acquisition 55 mA (UKHAS wiki measurement "50–60 mA to get a lock"). No TCXO: cyclic tracking only at 1 s
    /// (UKHAS wiki).
    public static let ublox6 = ReceiverEnergyProfile(
        model: "ublox-6", description: "u-blox 6 (NEO-6M)", supplyV: 3.0,
        acquisitionMilliAmp: 55, trackingMilliAmp: 37, cyclicTrackingMilliAmp: 11, inactiveMilliAmp: 0.022,
        backupMilliAmp: 0.022, ttffHotS: 1, ttffWarmS: 27, ttffColdS: 27, cyclicTrackingMaximumPeriodS: 1, onTimeS: 1)

    /// u-blox M10 (MAX-M10S, UBX-20035208); currents unconfirmed: tracking 25 mW at 3.0 V ≈ 8.3 mA (product summary,
    /// four constellations), acquisition 12 mA, power save 1 Hz 4 mA, backup 40 µA (estimates), TTFF hot 1 s, cold
    /// 29 s (unconfirmed). Cyclic tracking 0.5…10 s, ON/OFF above (MAX-M10S integration manual section 2.7.2,
    /// confirmed).
    public static let ubloxM10 = ReceiverEnergyProfile(
        model: "ublox-m10", description: "u-blox M10 (MAX-M10S)", supplyV: 3.0,
        acquisitionMilliAmp: 12, trackingMilliAmp: 8.3, cyclicTrackingMilliAmp: 4, inactiveMilliAmp: 0.04,
        backupMilliAmp: 0.04, ttffHotS: 1, ttffWarmS: 29, ttffColdS: 29, cyclicTrackingMaximumPeriodS: 10, onTimeS: 1)

    /// Quectel L76 / L80 class (MediaTek MT3333/MT3339); unconfirmed: acquisition 20 mA, tracking 18 mA at 3.3 V,
    /// backup 7 µA, TTFF hot 1 s, cold 35 s (L76 hardware design, from memory). Periodic standby as its power save
    /// (PMTK225/255); "AlwaysLocate" average not found: taken as half of tracking. Standby ≈ 0.6 mA with the STANDBY
    /// pin low (L76 hardware design section 3.3.2, confirmed) is its inactive current.
    public static let quectelL76 = ReceiverEnergyProfile(
        model: "quectel-l76", description: "Quectel L76/L80 (MediaTek)", supplyV: 3.3,
        acquisitionMilliAmp: 20, trackingMilliAmp: 18, cyclicTrackingMilliAmp: 9, inactiveMilliAmp: 0.6,
        backupMilliAmp: 0.007, ttffHotS: 1, ttffWarmS: 35, ttffColdS: 35, cyclicTrackingMaximumPeriodS: 10, onTimeS: 1)

    /// A receiver named only `"nmea"` in the board file: the highest currents in this table (the u-blox 6's, the
    /// oldest and most power-hungry common part), so that a plan's predicted cost is not below the real one.
    public static let generic = ReceiverEnergyProfile(
        model: "generic", description: "unknown NMEA receiver (conservative: the u-blox 6 figures)", supplyV: 3.0,
        acquisitionMilliAmp: ublox6.acquisitionMilliAmp, trackingMilliAmp: ublox6.trackingMilliAmp,
        cyclicTrackingMilliAmp: ublox6.cyclicTrackingMilliAmp, inactiveMilliAmp: ublox6.inactiveMilliAmp,
        backupMilliAmp: ublox6.backupMilliAmp, ttffHotS: ublox6.ttffHotS, ttffWarmS: ublox6.ttffWarmS,
        ttffColdS: ublox6.ttffColdS, cyclicTrackingMaximumPeriodS: ublox6.cyclicTrackingMaximumPeriodS, onTimeS: ublox6.onTimeS)

    /// Every profile, in this order.
    public static let profiles: [ReceiverEnergyProfile] = [ubloxM8, ubloxM8GPS, ublox6, ubloxM10, quectelL76, generic]

    /// Other names a board file or a driver may use for these models.
    static let aliases: [(alias: String, model: String)] = [
        ("nmea", "generic"), ("gpsd", "generic"), ("gpx", "generic"), ("neo-m8n", "ublox-m8"), ("sam-m8q", "ublox-m8"),
        ("ublox", "ublox-m8"),
        ("neo-6m", "ublox-6"), ("max-m10s", "ublox-m10"), ("l76", "quectel-l76"), ("l80", "quectel-l76")
    ]

    /// Case-insensitive; an exact key or alias takes no allocation (the scheduler prices plans on its re-planning path).
    static func profile(_ model: String) -> ReceiverEnergyProfile? {
        if let p = exactProfile(model) { return p }
        let lower = model.lowercased()
        return lower == model ? nil : exactProfile(lower)
    }

    private static func exactProfile(_ key: String) -> ReceiverEnergyProfile? {
        let name = aliases.first { $0.alias == key }?.model ?? key
        return profiles.first { $0.model == name }
    }

    /// Every receiver figure with its source.
    public static let sources: [EnergySource] = [
        EnergySource(
            part: "ublox-m8", document: "u-blox SAM-M8Q data sheet UBX-16012619 R04, table 8",
            figure: "acquisition 32 mA, tracking 29 mA (GPS+GLONASS), power save 1 Hz 9.5 mA, peak 67 mA; 3.0 V", confirmed: true),
        EnergySource(
            part: "ublox-m8", document: "u-blox NEO-M8 data sheet", figure: "backup 15 µA; TTFF hot 1 s, cold 26 s",
            confirmed: false),
        EnergySource(
            part: "ublox-m8-gps", document: "u-blox SAM-M8Q data sheet UBX-16012619 R04, table 8 (GPS column)",
            figure: "acquisition 25 mA, tracking 23 mA, power save 1 Hz 9.5 mA; 3.0 V", confirmed: true),
        EnergySource(
            part: "ublox-m8", document: "u-blox MAX-M10S integration manual section 2.7.2 (same PSM design)",
            figure: "cyclic tracking 0.5…10 s, ON/OFF above 10 s", confirmed: true),
        EnergySource(
            part: "ublox-6", document: "u-blox NEO-6 data sheet GPS.G6-HW-09005",
            figure: "continuous 37 mA, power save 1 Hz 11 mA, backup 22 µA, TTFF 1/27/27 s", confirmed: false),
        EnergySource(
            part: "ublox-6", document: "UKHAS wiki, u-blox 6 power saving modes",
            figure: "50–60 mA to get a lock; NEO-6M (no TCXO) cyclic only at 1 s", confirmed: true),
        EnergySource(
            part: "ublox-m10", document: "u-blox MAX-M10S data sheet UBX-20035208",
            figure: "tracking ≈ 25 mW; other currents and TTFF estimated", confirmed: false),
        EnergySource(
            part: "quectel-l76", document: "Quectel L76&L76-L hardware design section 3.3.2",
            figure: "standby ≈ 600 µA at 3.3 V with STANDBY low", confirmed: true),
        EnergySource(
            part: "quectel-l76", document: "Quectel L76 hardware design",
            figure: "acquisition 20 mA, tracking 18 mA, backup 7 µA, TTFF 1/35 s; power save average estimated", confirmed: false),
        EnergySource(
            part: "all", document: "u-blox NEO-F10N integration manual, startup modes",
            figure: "ephemeris outdated after 4 h (hot start if off ≤ 4 h); ephemeris decoded in 18–36 s with strong signal",
            confirmed: true),
        EnergySource(
            part: "all", document: "IS-GPS-200 section 20.3.3.4.3.1; Quectel support forum",
            figure: "4 h fit interval, 2 h upload; 2 h hot-start window quoted for the L76", confirmed: false)
    ]
}
