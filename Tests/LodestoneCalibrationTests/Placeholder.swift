// LodestoneCalibrationTests (issue 7). Placeholder so the target builds before its first test lands; delete it then.
