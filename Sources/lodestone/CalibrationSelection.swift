import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCLI
import LodestoneEngine
import LodestoneLinux

/// `run`'s calibration options: which calibration file fusion applies (default: the board's, found by
/// `CalibrationFiles.searchPath(for:)`).
struct CalibrationSelection: ParsableArguments {
    @Option(help: "Apply this calibration file (default: the board's; see lodestone calibrate --help for the lookup order).")
    var calibration: String?
    @Flag(help: "Apply no calibration.") var noCalibration = false

    func validate() throws {
        if let c = calibration, noCalibration { throw ValidationError("give --calibration \(c) or --no-calibration, not both") }
    }

    /// The calibration to apply for `board` (`nil` for a trace of an unknown board); a broken or mismatched
    /// file ends the command with one line.
    func configuration(board: BoardDescription?) -> CalibrationStage.Configuration {
        do { return try CalibrationFiles.resolve(board: board, explicitPath: calibration, disabled: noCalibration) } catch {
            fail(error.message)
        }
    }
}

/// `replay`'s calibration options: a trace does not say which board recorded it, so the board's calibration
/// is found only when `--board` names it; `--calibration FILE` gives one directly.
struct ReplayCalibrationOptions: ParsableArguments {
    @Option(help: "The board that recorded the trace: apply its calibration (same lookup as run).") var board: String?
    @OptionGroup var selection: CalibrationSelection

    /// The fusion configuration with the calibration in use; says which file on standard error.
    func fusionConfiguration() -> FusionConfiguration {
        var description: BoardDescription?
        if let board {
            do { description = try BoardDescription.load(path: board) } catch { fail(error.description) }
        }
        var configuration = FusionConfiguration()
        configuration.calibration = selection.configuration(board: description)
        if configuration.calibration.document != nil {
            StandardStream.error.print(configuration.calibration.summary + "\n")
        }
        return configuration
    }
}
