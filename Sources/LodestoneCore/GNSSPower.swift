/// What the scheduler asks of a GNSS receiver. Receivers map these to their own commands (u-blox: UBX-CFG-RXM /
/// UBX-CFG-PM2 power-save modes and UBX-RXM-PMREQ backup; the simulated receiver models them); a receiver that cannot
/// be commanded (a plain NMEA talker) keeps running and is only *modelled* by the plan.
public enum GNSSReceiverMode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Full power, continuous tracking, a fix every `1 / rateHz` seconds.
    case continuous(rateHz: Double)
    /// The receiver's own power-save operation with a fix every `updatePeriodS` (u-blox "cyclic tracking" for short
    /// periods, "ON/OFF" for long ones: it sleeps between fixes and wakes with a hot start).
    case powerSave(updatePeriodS: Double)
    /// Off (backup / hibernate): no fixes; the receiver keeps its clock, almanac and ephemerides so that it can hot
    /// start while they are valid.
    case off

    public var description: String {
        switch self {
        case .continuous(let r): "continuous \(r) Hz"
        case .powerSave(let p): "power-save, a fix every \(p) s"
        case .off: "off"
        }
    }
}

/// The power state a GNSS receiver is in at an instant, for energy accounting: each state has its own supply current
/// in the receiver's data sheet.
public enum GNSSPowerState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Off / backup: only the real-time clock and the battery-backed RAM are powered.
    case off
    /// Searching for satellites (after power-on or an outage): the highest current.
    case acquiring
    /// Tracking and delivering fixes at full power.
    case tracking
    /// Power-save operation between fixes (u-blox power-optimised tracking or ON/OFF sleep).
    case powerSaveIdle
}
