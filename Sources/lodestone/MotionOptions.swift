import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine
import LodestoneLinux
import LodestoneMotion

/// Options of the motion stage (altitude, floors, activity, pedometer), shared by `run` and `replay`.
struct MotionOptions: ParsableArguments {
    @Option(
        help:
            "Local sea-level pressure (QNH) in hPa, for altitude above sea level; default: learned from GNSS altitude (pressure altitude until a 3D fix)."
    )
    var qnhHpa: Double?
    @Option(help: "Height of one floor in metres, for floors climbed.")
    var floorHeightM: Double = 3
    @Option(help: "Height of the person carrying the board in metres, for the stride model.")
    var carrierHeightM: Double = 1.70
    @Option(help: "An activity model file (from benchmarks/accuracy/activity/train.py) instead of the built-in one.")
    var activityModel: String?

    func validate() throws {
        if let q = qnhHpa, !(q >= 850 && q <= 1090) {
            throw ValidationError("--qnh-hpa must be a sea-level pressure between 850 and 1090 hPa (got \(q))")
        }
        if !(floorHeightM >= 1.5 && floorHeightM <= 10) {
            throw ValidationError("--floor-height-m must be between 1.5 and 10 m (got \(floorHeightM))")
        }
        if !(carrierHeightM >= 0.5 && carrierHeightM <= 2.5) {
            throw ValidationError("--carrier-height-m must be between 0.5 and 2.5 m (got \(carrierHeightM))")
        }
    }

    /// Writes these options into `configuration`; reads the activity model file (exits with one line when it
    /// cannot be read or is not a model).
    func apply(to configuration: inout FusionConfiguration) {
        configuration.motion.seaLevelPressurePa = qnhHpa.map { $0 * 100 }
        configuration.motion.floorHeightM = floorHeightM
        configuration.motion.carrierHeightM = carrierHeightM
        guard let path = activityModel else { return }
        let text: String
        do { text = try String(decoding: PlainFile.read(path: path), as: UTF8.self) } catch {
            fail("\(path): cannot read the activity model (\(error.problemDescription)); check --activity-model")
        }
        do { configuration.motion.activityModel = try ActivityModel(text: text) } catch {
            fail("\(path): \(error.description)")
        }
    }
}
