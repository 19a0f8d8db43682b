// LodestoneCalibration: Sensor calibration (issue 7). Placeholder so the target builds before its first file lands; delete it then.
