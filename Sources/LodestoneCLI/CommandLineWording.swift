import LodestoneCalibration
import LodestoneEngine

/// The command line's words for the remedies the libraries phrase without it: a library message says what to do in
/// terms of its own settings ("run without calibration"); where the command line reports such a message, it names the
/// flag that does it instead ("run without it (--no-calibration)"). The neutral phrases are the libraries' constants,
/// so a reworded remedy cannot silently lose its flag.
public enum CommandLineWording {
    /// Each library remedy and the command line's wording of it.
    static let flagged: [(neutral: String, flagged: String)] = [
        (CalibrationFiles.Remedy.runWithout, "run without it (--no-calibration)"),
        (CalibrationFiles.Remedy.chooseAnotherOutput, "choose another --output"),
        (CalibrationFiles.Remedy.giveAFile, "give a file path to --output"),
        (CalibrationFiles.Remedy.makeANewOne, "make a new one with lodestone calibrate"),
        (DemandsFile.checkPathRemedy, "check --demands"),
        (CalibrationFailure.giveMoreTime, "give more time with --timeout"),
        (CalibrationFailure.givePosition, "give the board's position (--latitude/--longitude)")
    ]

    /// `message` with every library remedy in it worded for the command line.
    public static func naming(_ message: String) -> String {
        var text = message
        for (neutral, flagged) in flagged where text.contains(neutral) {
            text = text.replacing(neutral, with: flagged)
        }
        return text
    }
}
