import LodestoneCalibration
@testable import LodestoneCLI
@testable import LodestoneEngine
import Testing

/// Library types do not speak the command line (issue 14): their messages name settings, not flags; the command line
/// names the flag where it reports.
@Suite struct LibraryWordingTests {
    @Test func anUnknownPolicyIsNamedWithoutTheFlag() {
        #expect {
            _ = try ScheduledSampling.policy(named: "greedy")
        } throws: { e in
            (e as? JobError)?.message == "policy \"greedy\" is unknown; allowed: adaptive, always-on, duty-cycle, raps"
        }
    }

    @Test func libraryRemediesNameNoFlagAndTheCommandLineNamesIt() {
        let remedies = [
            CalibrationFiles.Remedy.runWithout, CalibrationFiles.Remedy.chooseAnotherOutput,
            CalibrationFiles.Remedy.giveAFile, CalibrationFiles.Remedy.makeANewOne, DemandsFile.checkPathRemedy,
            CalibrationFailure.giveMoreTime, CalibrationFailure.givePosition
        ]
        for r in remedies {
            #expect(!r.contains("--") && !r.contains("lodestone"), "\(r)")
            #expect(CommandLineWording.naming(r) != r, "\(r) has no command-line wording")
        }
        for reason in CalibrationFailure.allCases { #expect(!reason.advice.contains("--"), "\(reason)") }
        #expect(
            CommandLineWording.naming(
                "/x.json: made for board \"a\", but the board is \"b\"; calibrate again, or "
                    + CalibrationFiles.Remedy.runWithout)
                == "/x.json: made for board \"a\", but the board is \"b\"; calibrate again, or run without it (--no-calibration)")
        #expect(!CalibrationStage.Configuration(disabled: true).summary.contains("--"))
    }
}
