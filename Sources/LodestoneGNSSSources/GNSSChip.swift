/// The GNSS sources a board file's `chip` can name, typed: every switch on them is exhaustive.
public enum GNSSChip: String, CaseIterable, Sendable, Hashable, Codable {
    /// An NMEA 0183 talker (a serial port or a recorded log); its power is only modelled.
    case nmea
    /// A u-blox receiver (NMEA and UBX; a serial port or a recorded log); its power is commanded with UBX.
    case ublox
    /// A running gpsd, over TCP.
    case gpsd
    /// A GPX file played back as a simulated receiver.
    case gpx
    /// ModemManager's NMEA location source (`mmcli`), for a receiver inside a modem ModemManager owns (PinePhone).
    case modemmanager

    /// The energy model of a source without a `"model"` key: `ublox` → `ublox-m8`, `nmea`, `gpsd` and `modemmanager` → `generic`,
    /// `gpx` (a recorded track, no receiver) → `nil`.
    public var defaultReceiverModel: String? {
        switch self {
        case .ublox: "ublox-m8"
        case .nmea, .gpsd, .modemmanager: "generic"
        case .gpx: nil
        }
    }

    /// Whether the engine can command the receiver's power (UBX power commands): only a u-blox receiver's.
    public var canCommandPower: Bool {
        switch self {
        case .ublox: true
        case .nmea, .gpsd, .gpx, .modemmanager: false
        }
    }
}
