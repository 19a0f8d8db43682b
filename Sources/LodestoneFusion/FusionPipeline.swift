import LodestoneCore
import LodestoneMotion
import LodestoneTrace

/// One instant of input to fusion: what the sensors said at `reading.timeS` (board axes, SI units), and the
/// receiver's fix if one arrived at that instant. Sensors run at different rates, so any part may be absent:
/// a magnetometer-only sample, a barometer-only sample, a fix alone.
public struct FusionSample: Sendable {
    /// The sensor values (board axes, SI). Calibration is applied by `FusionPipeline` before the stages see it.
    public var reading: SensorReading
    /// A receiver fix, or a receiver's speed alone (mode `.unknown`, only `speedMps` set), when one arrived.
    public var fix: ReceiverFix?
    /// The board file's id of the sensor the reading came from (`run`); `nil` for a trace row, whose columns
    /// are one sensor per quantity. Calibration applies by this id.
    public var sensor: String?

    public init(reading: SensorReading, fix: ReceiverFix? = nil, sensor: String? = nil) {
        self.reading = reading
        self.fix = fix
        self.sensor = sensor
    }

    /// Time of the sample, s, on the engine's (or the trace's) clock.
    public var timeS: Double { reading.timeS }
}

/// What the stages estimated, shared between them. It persists across samples: within one sample, each stage
/// sees what the stages before it wrote for this sample and what the later ones wrote for earlier samples.
public struct FusionContext: Sendable {
    /// Orientation, rotating board-frame vectors into East-North-Up (Hamilton, scalar first); `nil` before the
    /// orientation stage has initialised.
    public var boardToENU: Quaternion?
    /// True while the orientation stage detects rest.
    public var atRest: Bool?
    /// Best known position: geodetic latitude and longitude (deg, WGS84) and height above the ellipsoid (m),
    /// from the location stage, else the configured one.
    public var latitudeDeg: Double?
    public var longitudeDeg: Double?
    public var heightAboveEllipsoidM: Double?
    /// The date of the samples as a decimal year (World Magnetic Model), from the receiver's UTC or configured.
    public var decimalYear: Double?
    /// The carrier's activity from the motion stage; `nil` while unknown.
    public var activity: MotionActivity?
    /// Altitude above mean sea level (m), its 1σ (m) and the vertical speed (m/s, + up) from the motion stage.
    public var altitudeM: Double?
    public var altitudeAccuracyM: Double?
    public var verticalSpeedMps: Double?
    /// The carrier's own horizontal acceleration, East-North-Up (true north), m/s², from the location stage's fused
    /// velocity while it dead-reckons a vehicle (GNSS and the vehicle frame); `nil` otherwise. The orientation stage
    /// removes it from the specific force before levelling on gravity, so that a car's turns and braking do not
    /// tilt the orientation (it reads the value the location stage left at the previous sample).
    public var carrierAccelerationENUMps2: Vector3?

    public init() {}
}

/// What fusion is told before it starts. Each stage reads the part that concerns it.
public struct FusionConfiguration: Sendable {
    /// A fixed position (latitude deg, longitude deg, height above the ellipsoid m) used until a fix arrives;
    /// without one, anything that needs a position (true heading) is invalid until a fix arrives.
    public var latitudeDeg: Double?
    public var longitudeDeg: Double?
    public var heightAboveEllipsoidM: Double?
    /// The date of the recording as a decimal year, when it is not known from a receiver.
    public var decimalYear: Double?
    /// Each stage's own settings (defined beside the stage). The calibration's default is none chosen: a `Session` on a
    /// board then uses the board's (`CalibrationStage.Configuration.isUnchosen`); `disabled: true` turns it off.
    public var calibration = CalibrationStage.Configuration()
    public var orientation = OrientationStage.Configuration()
    public var motion = MotionStage.Configuration()
    public var location = LocationStage.Configuration()

    public init() {}
}

/// One stage of fusion (orientation, motion, location). Stages are synchronous value types owned by one task;
/// `process` must not allocate once warmed up.
public protocol FusionStage {
    /// The columns this stage adds to `lodestone replay`'s output, in order.
    var columns: [String] { get }
    /// Consumes one sample, reading and updating the shared context.
    mutating func process(_ sample: FusionSample, context: inout FusionContext)
    /// Records one cell per column for the latest sample, each preceded by a comma; an empty cell where the
    /// value is unknown (never `nan`). `replay` calls this once per row and writes the text on another thread
    /// (`CellTape`): it must not allocate.
    ///
    /// `mutating` though a stage changes nothing here: a stage is a large value (kilobytes), and Swift hands a large
    /// value's `self` to a non-mutating method as a copy on the caller's stack; inout hands its address. Non-mutating,
    /// a replay copied 9 KB of stages per row to format them.
    mutating func appendCells(to line: inout CellTape)
    /// Lines for the live view of `lodestone run` (human-readable, units shown).
    var liveLines: [String] { get }
}

/// The fusion core as `run` and `replay` drive it: calibration, then orientation, motion and location, in
/// that order, over one stream of samples.
public struct FusionPipeline {
    public let configuration: FusionConfiguration
    public var calibration: CalibrationStage
    public var orientation: OrientationStage
    public var motion: MotionStage
    public var location: LocationStage
    /// What the stages estimated so far.
    public private(set) var context: FusionContext

    public init(configuration: FusionConfiguration = FusionConfiguration()) {
        self.configuration = configuration
        calibration = CalibrationStage(configuration: configuration)
        orientation = OrientationStage(configuration: configuration)
        motion = MotionStage(configuration: configuration)
        location = LocationStage(configuration: configuration)
        context = FusionContext()
        context.latitudeDeg = configuration.latitudeDeg
        context.longitudeDeg = configuration.longitudeDeg
        context.heightAboveEllipsoidM = configuration.heightAboveEllipsoidM
        context.decimalYear = configuration.decimalYear
    }

    /// The output columns of `lodestone replay`, `t_s` first.
    public var columns: [String] { ["t_s"] + orientation.columns + motion.columns + location.columns }

    /// Runs every stage over one sample.
    public mutating func process(_ sample: FusionSample) {
        var calibrated = sample
        calibration.apply(to: &calibrated)
        // A `let` for the stages: handed a `var`, each call copied the 536-byte sample first (a replay's `memmove`).
        let s = calibrated
        orientation.process(s, context: &context)
        motion.process(s, context: &context)
        location.process(s, context: &context)
    }

    /// Records the output row for the latest sample (`t_s` with 4 decimals, then each stage's cells) on `tape` and
    /// closes it (`endRow`). Allocates nothing once the tape has grown.
    /// `mutating` for the reason `FusionStage.appendCells` is; nothing changes.
    public mutating func appendLine(timeS: Double, to tape: inout CellTape) {
        tape.appendFixed(timeS, digits: 4)
        orientation.appendCells(to: &tape)
        motion.appendCells(to: &tape)
        location.appendCells(to: &tape)
        tape.endRow()
    }

    /// The output line for the latest sample (no newline).
    public func line(timeS: Double) -> String {
        var tape = CellTape()
        var pipeline = self
        pipeline.appendLine(timeS: timeS, to: &tape)
        return tape.text
    }

    /// Lines for the live view.
    public var liveLines: [String] { calibration.liveLines + orientation.liveLines + motion.liveLines + location.liveLines }
}

extension FusionStage {
    /// The same cells appended to a `String` (one `String` per call; tests and tools, not the per-row path).
    public func appendCells(to line: inout String) {
        var tape = CellTape()
        var stage = self
        stage.appendCells(to: &tape)
        line += tape.text
    }
}

extension String {
    /// Appends `,` and the value with `digits` decimals, or just `,` when the value is unknown or not finite.
    @inlinable public mutating func appendCell(_ value: Double?, digits: Int) {
        append(",")
        if let v = value, v.isFinite { append(formatFixed(v, digits: digits)) }
    }
}
