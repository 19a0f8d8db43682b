import LodestoneCore
import LodestoneMonitoring
import LodestoneScheduler

/// What a session is built from: the board, how it is run, what fusion and the scheduler are told, and what it writes.
public struct SessionConfiguration: Sendable {
    /// The board (`BoardDescription.load(path:)`).
    public var board: BoardDescription
    /// The simulated board's scenario (default: the board file's, else the default scenario).
    public var scenario: String?
    /// The simulated board's noise seed.
    public var seed: UInt64
    /// Stop after this much session time, s (`nil`: run until stopped or the input ends).
    public var durationS: Double?
    /// Pace on the simulated board: 1 = real time, 10 = ten times faster, 0 = as fast as possible (virtual time: a
    /// lossless subscriber is then waited for). Hardware always runs at 1.
    public var speed: Double
    /// What fusion is told before it starts.
    public var fusion: FusionConfiguration
    /// The scheduler: policy, standing demands (beside the subscriptions'), battery. `nil`: every sensor runs at the
    /// board file's rate and subscriptions change nothing.
    public var scheduling: SchedulingConfiguration?
    /// Record a trace (CSV, `.gz` for gzip) with the simulator's truth beside the samples.
    public var recordPath: String?
    /// Write the fused track when the session ends (GPX, GeoJSON).
    public var export: TrackExport.Paths?
    /// UTC of session time 0, s since 1970, for the wire's `time` (default: the simulated scenario's date on the
    /// simulated board, the system clock at the start otherwise).
    public var utcAtStartS: Double?
    /// Reads the system's battery for `BatteryChoice.auto` (`nil`: none present).
    public var systemBattery: (@Sendable () -> BatteryState?)?
    /// Where samples come from: the board (default) or a recorded trace.
    public var input: SessionInput = .board
    /// Where monitors, their undelivered events and the motion history are kept (`MonitorStore`, SQLite), so that they
    /// survive a restart (`lodestone serve --state-dir`); `nil`: in memory for the session's life, and no history.
    public var stateDirectory: String?
    /// Regions monitored from the start whether or not anybody reads their events (the monitor "configuration" of
    /// client ""): their low-power demand replaces a location subscriber (harnesses, `lodestone run --regions`).
    public var monitoredRegions: [CircularRegion] = []
    /// Detect significant location changes from the start whether or not anybody reads them, with their demand.
    public var significantChangeMonitoring = false
    /// What the engine accepts from chips and receivers as physics (`PlausibilityLimits`; default: its defaults).
    public var plausibility = PlausibilityLimits()

    public init(
        board: BoardDescription, scenario: String? = nil, seed: UInt64 = 1, durationS: Double? = nil, speed: Double = 1,
        fusion: FusionConfiguration = FusionConfiguration(),
        scheduling: SchedulingConfiguration? = SchedulingConfiguration(demands: []),
        recordPath: String? = nil, export: TrackExport.Paths? = nil, utcAtStartS: Double? = nil,
        systemBattery: (@Sendable () -> BatteryState?)? = nil
    ) {
        self.board = board; self.scenario = scenario; self.seed = seed; self.durationS = durationS; self.speed = speed
        self.fusion = fusion; self.scheduling = scheduling; self.recordPath = recordPath; self.export = export
        self.utcAtStartS = utcAtStartS; self.systemBattery = systemBattery
    }
}
