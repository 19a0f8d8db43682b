/// The chips a board file names for a GNSS source, and the energy model each receiver kind gets by default.
public enum GNSSSourceChips {
    /// `nmea` and `ublox` (one decoder reads NMEA 0183 and UBX, mixed) on a serial port or from a recorded log file;
    /// `gpsd` (a running gpsd); `gpx` (a GPX file played back as a simulated receiver).
    public static let names = ["nmea", "ublox", "gpsd", "gpx"]

    /// The energy model of a GNSS source without a `"model"` key: `ublox` → `ublox-m8`, `nmea` and `gpsd` → `generic`,
    /// `gpx` (a recorded track, no receiver) and non-GNSS chips → `nil`.
    public static func defaultReceiverModel(chip: String) -> String? {
        switch chip {
        case "ublox": "ublox-m8"
        case "nmea", "gpsd": "generic"
        default: nil
        }
    }
}
