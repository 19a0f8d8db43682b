import ArgumentParser
import LodestoneCLI
import LodestoneEngine

/// `--gpx FILE` and `--geojson FILE`: write the fused track when the run or replay ends.
struct ExportOptions: ParsableArguments {
    @Option(help: "Write the fused track as GPX 1.1 to this file (valid as it grows; replaced atomically at the end).") var gpx:
        String?
    @Option(help: "Write the fused track as GeoJSON (RFC 7946) to this file (valid as it grows; replaced atomically at the end).")
    var geojson: String?

    func validate() throws {
        if let g = gpx, g == geojson { throw ValidationError("--gpx and --geojson name the same file (\(g)); give two files") }
        for (flag, path) in [("--gpx", gpx), ("--geojson", geojson)] where path?.isEmpty == true {
            throw ValidationError("\(flag) needs a file name")
        }
    }

    /// The files to write, or `nil` when neither option is given.
    var paths: TrackExport.Paths? {
        gpx == nil && geojson == nil ? nil : TrackExport.Paths(gpx: gpx, geoJSON: geojson)
    }
}
