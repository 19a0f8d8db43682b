import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine

extension OrientationStage.Configuration.Mode: ExpressibleByArgument {}

/// Options of the orientation stage, shared by `run` and `replay`.
struct OrientationOptions: ParsableArguments {
    @Option(
        name: .customLong("orientation"),
        help: "6d (gyroscope + accelerometer: heading relative to the start) or 9d (+ magnetometer: absolute heading).")
    var mode: OrientationStage.Configuration.Mode = .nineD

    @Option(
        help: ArgumentHelp(
            "Magnetic declination in degrees east, instead of the World Magnetic Model's.",
            discussion: "Use 0 for recordings whose reference north is magnetic (BROAD)."))
    var declinationDeg: Double?

    @Option(help: "Latitude in degrees (WGS84), for true heading until a GNSS fix gives one.")
    var latitudeDeg: Double?

    @Option(help: "Longitude in degrees east (WGS84), with --latitude-deg.")
    var longitudeDeg: Double?

    @Option(help: "Height above the WGS84 ellipsoid in metres, with --latitude-deg (default 0).")
    var heightM: Double?

    @Option(help: "Date of the data for the World Magnetic Model: YYYY-MM-DD or a decimal year (run: default today).")
    var date: String?

    @Option(help: "Heading filter of the live view: the smallest change of heading shown, in degrees.")
    var headingFilterDeg: Double?

    func validate() throws {
        if let d = declinationDeg, !(d.isFinite && (-180...180).contains(d)) {
            throw ValidationError("--declination-deg must be a number of degrees in -180...180")
        }
        if (latitudeDeg == nil) != (longitudeDeg == nil) {
            throw ValidationError("--latitude-deg and --longitude-deg go together: give both or neither")
        }
        if let lat = latitudeDeg, !(lat.isFinite && (-90...90).contains(lat)) {
            throw ValidationError("--latitude-deg must be in -90...90")
        }
        if let lon = longitudeDeg, !(lon.isFinite && (-180...360).contains(lon)) {
            throw ValidationError("--longitude-deg must be in -180...360")
        }
        if let h = heightM {
            guard latitudeDeg != nil else { throw ValidationError("--height-m needs --latitude-deg and --longitude-deg") }
            guard h.isFinite && (-1000...850_000).contains(h) else {
                throw ValidationError("--height-m must be in -1000...850000")
            }
        }
        if let d = date, OrientationStage.Configuration.decimalYear(parsing: d) == nil {
            throw ValidationError("--date \(d) is not a date: use YYYY-MM-DD (e.g. 2026-03-01) or a decimal year (e.g. 2026.17)")
        }
        if let f = headingFilterDeg, !(f.isFinite && f > 0 && f < 360) {
            throw ValidationError("--heading-filter-deg must be a number of degrees in (0, 360)")
        }
    }

    /// The fusion configuration these options describe; `nowUnixTimeS` dates the data when --date is absent
    /// (`run` passes the system clock; `replay` passes nothing: a recording's date is not today's).
    func configuration(nowUnixTimeS: Double? = nil) -> FusionConfiguration {
        var c = FusionConfiguration()
        apply(to: &c, nowUnixTimeS: nowUnixTimeS)
        return c
    }

    /// Sets what these options say in `c` (position, date, the orientation stage's settings) and nothing else, so
    /// other stages' option groups can add theirs to the same configuration.
    func apply(to c: inout FusionConfiguration, nowUnixTimeS: Double? = nil) {
        if let latitudeDeg, let longitudeDeg {
            c.latitudeDeg = latitudeDeg
            c.longitudeDeg = longitudeDeg
            c.heightAboveEllipsoidM = heightM ?? 0
        }
        if let year = date.flatMap(OrientationStage.Configuration.decimalYear(parsing:))
            ?? nowUnixTimeS.flatMap(OrientationStage.Configuration.decimalYear(unixTimeS:))
        {
            c.decimalYear = year
        }
        c.orientation.mode = mode
        c.orientation.declinationOverrideDeg = declinationDeg
        c.orientation.headingFilterDeg = headingFilterDeg
    }
}
