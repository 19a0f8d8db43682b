import LodestoneCalibration
import LodestoneCore

/// Applies a board's calibration (`lodestone calibrate`) to every sample before fusion sees it.
///
/// A sample from `run` carries its sensor's board id and gets that sensor's corrections. A trace row has one
/// column set per quantity, recorded from the first sensor of the board that delivers it (board order, see
/// `TraceRecorder`), so each quantity of a row gets the corrections of the first sensor in the document that
/// has that kind — that sensor's own when the document was made for the board that recorded the trace.
///
/// `apply` allocates nothing: the corrections are resolved once at `init`, and sensor ids are short strings
/// compared in place.
public struct CalibrationStage {
    /// The stage's settings (part of `FusionConfiguration`): which calibration is in use and where it came
    /// from. Built by `CalibrationFiles.resolve`.
    public struct Configuration: Sendable {
        /// The calibration in use; `nil` when none.
        public var document: CalibrationDocument?
        /// Its file.
        public var path: String?
        /// Where the automatic lookup looked (in order), when it did.
        public var searched: [String]
        /// True when calibration was turned off (`--no-calibration`).
        public var disabled: Bool

        public init(document: CalibrationDocument? = nil, path: String? = nil, searched: [String] = [], disabled: Bool = false) {
            self.document = document; self.path = path; self.searched = searched; self.disabled = disabled
        }

        /// True when nobody chose: no calibration, not turned off, nothing looked for (the default). A `Session`
        /// then looks for the board's calibration itself (`CalibrationFiles.resolve`).
        public var isUnchosen: Bool { document == nil && path == nil && searched.isEmpty && !disabled }

        /// One line saying what is applied: "calibration: FILE (imu: accelerometer, gyroscope; mag: magnetometer)".
        public var summary: String {
            if disabled { return "calibration: off (turned off); readings are used as the sensors give them" }
            guard let document, let path else {
                return searched.isEmpty
                    ? "calibration: none"
                    : "calibration: none found (looked for " + searched.joined(separator: ", ") + "); readings are uncalibrated"
            }
            return "calibration: \(path) ("
                + document.sensors.map { s in
                    s.id + ": " + s.kinds.map(\.rawValue).joined(separator: ", ")
                }.joined(separator: "; ") + ")"
        }
    }

    private let corrections: [SensorCorrection]
    /// For readings without a sensor id: the index in `corrections` of the first sensor with each kind.
    private let magnetometerIndex: Int?
    private let accelerometerIndex: Int?
    private let gyroscopeIndex: Int?
    private let barometerIndex: Int?
    private let summary: String

    public init(configuration: FusionConfiguration) {
        let c = configuration.calibration
        corrections = (c.document?.sensors ?? []).map(SensorCorrection.init)
        magnetometerIndex = corrections.firstIndex { $0.softIronCorrection != nil }
        accelerometerIndex = corrections.firstIndex { $0.accelerometerCorrection != nil }
        gyroscopeIndex = corrections.firstIndex { $0.gyroscopeBiasRadS != nil }
        barometerIndex = corrections.firstIndex { $0.barometerOffsetPa != nil }
        summary = c.summary
    }

    /// Corrects the sample's sensor values in place.
    public mutating func apply(to sample: inout FusionSample) {
        guard !corrections.isEmpty else { return }
        if let id = sample.sensor {
            for i in corrections.indices where corrections[i].id == id {
                corrections[i].apply(to: &sample.reading)
                return
            }
            return
        }
        if let i = magnetometerIndex { corrections[i].applyMagnetometer(to: &sample.reading) }
        if let i = accelerometerIndex { corrections[i].applyAccelerometer(to: &sample.reading) }
        if let i = gyroscopeIndex { corrections[i].applyGyroscope(to: &sample.reading) }
        if let i = barometerIndex { corrections[i].applyBarometer(to: &sample.reading) }
    }

    /// Lines for the live view of `lodestone run`.
    public var liveLines: [String] { [summary] }
}
