import LodestoneCore
import LodestoneLocation

extension MonitorEvent {
    /// The event as one line of JSON (no newline), as `lodestone replay --events-out` writes it:
    /// `{"id":…,"state":…,"t_s":…,"lat_deg":…,"lon_deg":…,"h_acc_m":…,"event_id":…}` — the condition's identifier,
    /// `satisfied` or `unsatisfied`, the session time of the location that caused it (s), its coordinate (degrees
    /// WGS84) and accuracy (m), and the event's own number. Numbers in Swift's shortest round-trip form.
    public var jsonLine: String {
        var line = "{\"id\":"
        line += JSONString.quoted(conditionId)
        line += ",\"state\":\"\(state.rawValue)\",\"t_s\":\(timeS)"
        line += ",\"lat_deg\":\(location.coordinate.latitudeDeg),\"lon_deg\":\(location.coordinate.longitudeDeg)"
        if location.horizontalAccuracyM.isFinite { line += ",\"h_acc_m\":\(location.horizontalAccuracyM)" }
        line += ",\"event_id\":\(id)}"
        return line
    }
}
