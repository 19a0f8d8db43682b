import LodestoneCLI
import LodestoneCore
import LodestoneEngine
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneScheduler
import LodestoneSimulation

/// The scheduler's evaluation on the simulated board: runs `RunJob` (exactly what `lodestone run` runs, scheduler glue
/// included) headless and as fast as possible, and scores what it did against the simulation's truth: energy, battery
/// life, the accuracy and age of delivered locations, heading error, how fast activity changes and motion starts were
/// noticed, the stationary draw and how often it re-planned. The harness (`benchmarks/accuracy/scheduler`) and the fast
/// test (`SchedulerEvaluationTests`) share it.
public struct SchedulingEvaluation {
    /// The stated battery for battery-life predictions: capacity, mAh, and nominal voltage, V (default 3000 mAh, 3.7 V:
    /// a single Li-ion 18650-class cell).
    public struct BatteryModel: Sendable, Codable, Hashable {
        public var capacityMilliAmpHour = 3000.0
        public var nominalV = 3.7
        public init() {}
        /// Stored energy, mWh.
        public var milliWattHours: Double { capacityMilliAmpHour * nominalV }
    }

    /// What one run gave. Times in s, energies in mAh and mWh, errors in m and degrees; `nil` where nothing was measured.
    public struct Summary: Sendable, Codable {
        public var policy: String
        public var demand: String
        public var scenario: String
        public var seed: UInt64
        /// The receiver's energy-model key (`nil`: no receiver).
        public var receiverModel: String?
        public var durationS: Double
        /// Per sensor (board id) charge, mAh; the receiver under its id.
        public var sensorMilliAmpHours: [String: Double]
        public var gnssMilliAmpHours: Double
        /// Sensors without the receiver, mAh.
        public var imuEtcMilliAmpHours: Double
        public var totalMilliAmpHours: Double
        public var totalMilliWattHours: Double
        /// The receiver's energy and the sensors' without it, mWh (each at its own supply voltage).
        public var gnssMilliWattHours: Double
        public var imuEtcMilliWattHours: Double
        public var meanMilliWatt: Double
        public var meanMilliAmp: Double
        /// Time the receiver spent off / acquiring / tracking / in power-save idle, s.
        public var gnssStateS: [String: Double]
        /// Predicted battery life, h, on `battery`: sensors and receiver alone, and with the board baseline added.
        public var batteryLifeSensorsOnlyH: Double?
        public var batteryLifeWithBaselineH: Double
        public var boardBaselineMilliWatt: Double
        public var battery: BatteryModel
        /// Locations delivered; their true horizontal error (p50, p95), the share meeting the required accuracy by true
        /// error and by claimed accuracy, the required accuracy, stale-marked ones, and ones older than allowed by an
        /// independent clock (time since the engine's last fix event) that were NOT marked stale.
        public var delivered: Int
        public var deliveredErrorP50M: Double?
        public var deliveredErrorP95M: Double?
        public var shareMeetingByTrueError: Double?
        public var shareMeetingByClaim: Double?
        public var requiredAccuracyM: Double?
        public var staleMarked: Int
        public var olderThanAllowedUnmarked: Int
        public var withheldInaccurate: Int
        /// Heading error against truth, sampled at 1 Hz while heading was wanted and valid (p50, p95), deg. Like is
        /// compared with like: a true heading with the truth's azimuth of the board's y axis; a magnetic heading given
        /// alone (no position yet, so no declination) with that azimuth less the declination of the truth's field.
        public var headingErrorP50Deg: Double?
        public var headingErrorP95Deg: Double?
        /// Share of those samples whose error is within the heading accuracy the engine stated with it (0…1).
        public var headingWithinStatedShare: Double?
        /// How many of those samples were magnetic headings alone (no declination known yet).
        public var headingMagneticOnlySamples: Int
        /// The same heading errors split by the true activity at the sample (`ActivityKind` raw value → p50, p95 and
        /// the number of 1 Hz samples), deg: a board carried on foot, on a bicycle or in a car sees different
        /// disturbances, and one figure over a day hides which of them costs the error.
        public var headingErrorByActivity: [String: HeadingErrorFigures]
        /// Delay from each true activity change to the classifier reporting it (noticed ones), and how many were never
        /// noticed before the next change.
        public var activityChanges: Int
        public var activityDelayP50S: Double?
        public var activityDelayP90S: Double?
        public var activityMissed: Int
        /// Motion starts after a stop of at least `minimumStopS`: delay to the first applied plan made for a moving
        /// carrier (p50, max), and — after stops with the sky in view — to the first delivered location whose true error
        /// meets the required accuracy (p50, max). Starts that leave a building (the stop had no signal) are counted
        /// apart: the receiver must reacquire after the outage, whatever the policy.
        public var motionStarts: Int
        public var wakePlanP50S: Double?
        public var wakePlanMaxS: Double?
        public var wakeFixStarts: Int
        public var wakeFixP50S: Double?
        public var wakeFixMaxS: Double?
        public var wakeFixAfterOutageStarts: Int
        public var wakeFixAfterOutageP50S: Double?
        public var wakeFixAfterOutageMaxS: Double?
        /// Mean draw while truly stationary, from 30 s after the stop: sensors alone and with the receiver, mA.
        public var stationarySensorsMilliAmp: Double?
        public var stationaryTotalMilliAmp: Double?
        /// GNSS: time from each stop to the receiver being off or in power-save idle (p50, max), s; stops of at least
        /// `minimumStopS` during which it never was.
        public var gnssOffAfterStopP50S: Double?
        public var gnssOffAfterStopMaxS: Double?
        public var gnssNeverOffStops: Int
        /// Plans applied, per hour; reconfigurations that failed.
        public var plansApplied: Int
        public var replansPerHour: Double
        public var reconfigurationFailures: Int
        /// Wake events (truth motion start → times) for the plot.
        public var wakePlanDelaysS: [Double]
        public var wakeFixDelaysS: [Double]
        public var wakeFixAfterOutageDelaysS: [Double]
    }

    /// Heading error figures of one activity: p50 and p95 of the absolute error, deg, over `samples` 1 Hz samples.
    public struct HeadingErrorFigures: Sendable, Codable, Equatable {
        public var p50Deg: Double
        public var p95Deg: Double
        public var samples: Int
        /// Share of the samples whose error is within the stated heading accuracy (0…1).
        public var withinStatedShare: Double
        public init(p50Deg: Double, p95Deg: Double, samples: Int, withinStatedShare: Double) {
            self.p50Deg = p50Deg
            self.p95Deg = p95Deg
            self.samples = samples
            self.withinStatedShare = withinStatedShare
        }
    }

    /// One row of the timeline (one per second of engine time), for the plan plot.
    public struct TimelineRow: Sendable {
        public var timeS: Double
        public var truthActivity: String
        public var truthOutage: Bool
        public var classifierActivity: String
        public var motion: String
        /// Per planned sensor: read rate, Hz (0: suspended), and power mode.
        public var readRatesHz: [Double]
        public var powerModes: [String]
        public var gnssMode: String
        public var gnssState: String
        public var predictedMilliAmp: Double
        /// Mean current of sensors and receiver over the last second (from the energy account), mA.
        public var drawnMilliAmp: Double
        public var batteryPercent: Double?
        public var tier: String

        public static let header =
            "t_s,truth_activity,truth_outage,classifier,motion,rates_hz,power_modes,gnss_mode,gnss_state,predicted_ma,drawn_ma,battery_percent,tier"
        public var csv: String {
            // Cells joined rather than one long `+` chain: Swift 6.0's type checker gives up on the chain.
            let rates: String = readRatesHz.map { formatFixed($0, digits: 2) }.joined(separator: ";")
            let battery: String = batteryPercent.map { formatFixed($0, digits: 1) } ?? ""
            let cells: [String] = [
                formatFixed(timeS, digits: 0), truthActivity, truthOutage ? "1" : "0", classifierActivity, motion, rates,
                powerModes.joined(separator: ";"), gnssMode, gnssState, formatFixed(predictedMilliAmp, digits: 4),
                formatFixed(drawnMilliAmp, digits: 4), battery, tier
            ]
            return cells.joined(separator: ",")
        }
    }

    /// Stops shorter than this do not count as motion starts, s (the scheduler need not sleep at a 10 s stop).
    public static let minimumStopS = 60.0
    /// The stationary draw is measured from this long after a stop, s (the issue allows 30 s to settle).
    public static let settleS = 30.0

    /// Runs `configuration` on the simulated `board` through `scenario` for `durationS` (default: the scenario plus
    /// 60 s) and scores it; `timeline` receives one row per second.
    /// - Throws: `JobError` when the board or the scenario cannot be built or the run fails.
    public static func run(
        board: BoardDescription, scenario: String, seed: UInt64, configuration: SchedulingConfiguration,
        demandName: String, durationS: Double? = nil, battery: BatteryModel = BatteryModel(),
        timeline: ((TimelineRow) -> Void)? = nil
    ) throws(JobError) -> Summary {
        guard let sc = Scenario.named(scenario) else { throw JobError("scenario \(scenario) is unknown") }
        // The board's calibration, as `lodestone run` finds it (calibration/<board>.json).
        var fusion = FusionConfiguration()
        fusion.calibration = try CalibrationFiles.resolve(board: board, explicitPath: nil, disabled: false)
        // The loop `lodestone run` runs (its demands stand for the whole run), as fast as it goes.
        let session = SessionConfiguration(
            board: board, scenario: scenario, seed: seed, durationS: durationS ?? sc.totalDurationS + 60,
            speed: 0, fusion: fusion, scheduling: configuration)
        var core: SessionCore
        do { core = try SessionCore(configuration: session) } catch { throw JobError(error.description) }
        guard let world = core.runtime.world else { throw JobError("the board \(board.name) is not simulated") }
        var evaluation = SchedulingEvaluation(demand: CombinedDemand(configuration.demands))
        core.runToEnd(afterStep: { core in
            evaluation.observe(RunStep(core), truth: world.board.truth, timeline: timeline)
        })
        if !core.state.everDelivered { throw JobError("the run of \(configuration.policy) on \(scenario) delivered nothing") }
        return evaluation.summary(
            policy: configuration.policy, demandName: demandName, scenario: scenario, seed: seed,
            baselineMilliWatt: configuration.boardBaselineMilliWatt, battery: battery)
    }

    // MARK: - Monitoring alone

    /// What a monitoring run asks of the session: standing regions, the significant-change service, or both; no
    /// location subscriber.
    public struct MonitoringSetup: Sendable {
        /// The regions monitored for the whole run.
        public var regions: [CircularRegion]
        /// Whether the significant-change service runs.
        public var significantChange: Bool
        /// A name for the summary's `demand` field (e.g. `far`, `significant-change`).
        public var name: String

        public init(regions: [CircularRegion] = [], significantChange: Bool = false, name: String) {
            self.regions = regions; self.significantChange = significantChange; self.name = name
        }
    }

    /// A significant location change the session made.
    public struct SignificantChangeRecord: Sendable, Hashable, Codable {
        /// Session time of the event, s.
        public var timeS: Double
        /// The location that made it.
        public var location: Location
    }

    /// What a monitoring run gave: the energy summary (no location client: its delivery fields are empty) and the
    /// events the session made (`SessionCore.monitoringLog`, at most its last 10 000 of each), in session time.
    public struct MonitoringRun: Sendable {
        public var summary: Summary
        public var regionEvents: [MonitorEvent]
        public var significantChanges: [SignificantChangeRecord]
    }

    /// Runs `setup` on the simulated `board` through `scenario` under `policy` (`adaptive`: the monitoring demand
    /// plans the receiver; `always-on`: the reference, every sensor at its maximum and the receiver continuous) with
    /// no location subscriber, and returns the energy and the events. `observe` sees every step with the truth (the
    /// harness prints the plan from it). The session monitors `setup` from the start (`SessionConfiguration.monitoredRegions`,
    /// `significantChangeMonitoring`) over its fused locations, and its demand is the scheduler's only one.
    /// - Throws: `JobError` when the board or the scenario cannot be built or the run fails.
    public static func runMonitoring(
        board: BoardDescription, scenario: String, seed: UInt64, policy: String, setup: MonitoringSetup,
        durationS: Double? = nil, battery: BatteryModel = BatteryModel(),
        observe: ((SessionCore, TruthSample) -> Void)? = nil
    ) throws(JobError) -> MonitoringRun {
        guard let sc = Scenario.named(scenario) else { throw JobError("scenario \(scenario) is unknown") }
        var fusion = FusionConfiguration()
        fusion.calibration = try CalibrationFiles.resolve(board: board, explicitPath: nil, disabled: false)
        // No client demand: what the scheduler gets comes from the session's standing monitoring. The battery does
        // not run low over the day, so the adaptive policy plans in the normal tier (as in the scheduler harness).
        let scheduling = SchedulingConfiguration(
            policy: policy, demands: [], battery: .simulated(capacityMilliAmpHour: 3000, levelFraction: 1),
            boardBaselineMilliWatt: 0)
        var session = SessionConfiguration(
            board: board, scenario: scenario, seed: seed, durationS: durationS ?? sc.totalDurationS + 60,
            speed: 0, fusion: fusion, scheduling: scheduling)
        session.monitoredRegions = setup.regions
        session.significantChangeMonitoring = setup.significantChange
        var core: SessionCore
        do { core = try SessionCore(configuration: session) } catch { throw JobError(error.description) }
        guard let world = core.runtime.world else { throw JobError("the board \(board.name) is not simulated") }
        var evaluation = SchedulingEvaluation(demand: CombinedDemand([]))
        core.runToEnd(afterStep: { core in
            let step = RunStep(core)
            let truth = world.board.truth
            evaluation.observe(step, truth: truth, timeline: nil)
            observe?(core, truth)
        })
        if !core.state.everDelivered { throw JobError("the run of \(policy) on \(scenario) delivered nothing") }
        let summary = evaluation.summary(
            policy: policy, demandName: setup.name, scenario: scenario, seed: seed, baselineMilliWatt: 0, battery: battery)
        // The session logs in Unix time; session time starts at the scenario's date (as `SessionCore` sets it).
        let log = core.monitoringLog
        let unixOffsetS = UTCCalendar.unixSeconds(decimalYear: world.board.scenario.startDecimalYear)
        let events = log.events.map { e in
            var e = e
            e.timeS -= unixOffsetS
            e.location.timeS -= unixOffsetS
            return e
        }
        let changes = log.significantChanges.map { c in
            var l = c.location
            l.timeS -= unixOffsetS
            return SignificantChangeRecord(timeS: c.timeS - unixOffsetS, location: l)
        }
        return MonitoringRun(summary: summary, regionEvents: events, significantChanges: changes)
    }

    // MARK: - State

    let demand: CombinedDemand
    var last: RunStep?
    var errorsM: [Double] = []
    var meetingTrue = 0
    var olderUnmarked = 0
    var headingErrorsDeg: [Double] = []
    var headingErrorsByActivityDeg: [ActivityKind: [Double]] = [:]
    var headingWithinStated = 0
    var headingWithinStatedByActivity: [ActivityKind: Int] = [:]
    var headingMagneticOnly = 0
    var nextHeadingS = 0.0
    // Activity changes.
    var truthActivity: ActivityKind?
    var activityChangeS = 0.0
    var activityPending = false
    var activityChanges = 0
    var activityDelays: [Double] = []
    var activityMissed = 0
    // Stops and starts.
    var stationarySinceS: Double?
    var pendingStartS: Double?
    var pendingStartHasSky = false
    var pendingStartAfterOutage = false
    var stopHadOutage = false
    var wakeFixAfterOutage: [Double] = []
    var wakeFixAfterOutageStarts = 0
    var planWaiting = false
    var fixWaiting = false
    var wakePlan: [Double] = []
    var wakeFix: [Double] = []
    var motionStarts = 0
    var wakeFixStarts = 0
    var appliedMotion: CarrierMotion = .unknown
    var gnssOffWaiting = false
    var gnssOffDelays: [Double] = []
    var gnssNeverOff = 0
    // Stationary draw.
    var stationaryS = 0.0
    var stationarySensorsMilliAmpHours = 0.0
    var stationaryTotalMilliAmpHours = 0.0
    var previousSensorsMilliAmpHours = 0.0
    var previousTotalMilliAmpHours = 0.0
    var nextTimelineS = 0.0
    var timelineTotalMilliAmpHours = 0.0
    var timelineS = 0.0

    init(demand: CombinedDemand) { self.demand = demand }

    mutating func observe(_ step: RunStep, truth: TruthSample, timeline: ((TimelineRow) -> Void)?) {
        let t = step.timeS
        let dt = max(0, t - (last?.timeS ?? t))
        defer { last = step }
        withheld = step.delivery?.withheldInaccurateCount ?? 0
        guard let s = step.scheduling else { return }
        let energy = s.energy
        // Stationary draw (truth stationary, settled).
        let truthStationary = truth.activity == .stationary
        if truthStationary {
            if stationarySinceS == nil { stationarySinceS = t }
            stopHadOutage = truth.gnssOutage
        } else if let since = stationarySinceS {
            if gnssOffWaiting, s.receiverState != nil, t - since >= Self.minimumStopS { gnssNeverOff += 1 }
            if t - since >= Self.minimumStopS {
                pendingStartS = t
                pendingStartHasSky = !truth.gnssOutage
                pendingStartAfterOutage = stopHadOutage
                planWaiting = true
                fixWaiting = demand.location != nil && pendingStartHasSky
                motionStarts += 1
                if fixWaiting { if stopHadOutage { wakeFixAfterOutageStarts += 1 } else { wakeFixStarts += 1 } }
            }
            stationarySinceS = nil
            gnssOffWaiting = false
        }
        if truthStationary, let since = stationarySinceS, t - since >= Self.settleS, dt > 0 {
            stationaryS += dt
            stationarySensorsMilliAmpHours += energy.sensorsMilliAmpHours - previousSensorsMilliAmpHours
            stationaryTotalMilliAmpHours += energy.totalMilliAmpHours - previousTotalMilliAmpHours
        }
        previousSensorsMilliAmpHours = energy.sensorsMilliAmpHours
        previousTotalMilliAmpHours = energy.totalMilliAmpHours
        // GNSS off (or power-save idle) after a stop of at least a minute.
        if truthStationary, let since = stationarySinceS {
            if t - since < 1e-9 { gnssOffWaiting = true }
            if gnssOffWaiting, let state = s.receiverState, state == .off || state == .powerSaveIdle {
                gnssOffWaiting = false
                gnssOffDelays.append(t - since)
            }
        }
        // Wake: the first plan made for a moving carrier, applied.
        if step.planChanged { appliedMotion = s.scheduler.inputs.motion }
        if planWaiting, let start = pendingStartS, appliedMotion != .stationary {
            planWaiting = false
            wakePlan.append(t - start)
        }
        // Delivered locations.
        if let d = step.delivered, let required = demand.location?.desiredAccuracy.requiredHorizontalAccuracyM {
            let truthCoordinate = Coordinate(latitudeDeg: truth.latitudeDeg, longitudeDeg: truth.longitudeDeg)
            let error = d.location.coordinate.distanceM(to: truthCoordinate) ?? 1e7 // no distance: counted as far off
            errorsM.append(error)
            if error <= required { meetingTrue += 1 }
            if d.meetsDesiredAccuracy { meetingClaimed += 1 }
            if d.isStale { staleMarked += 1 }
            // The age by an independent clock: time since the engine last delivered a receiver fix (none: the whole run).
            let independentAgeS = step.lastFixTimeS.map { t - $0 } ?? .infinity
            if let maxAge = demand.location?.maximumAgeS, independentAgeS > maxAge + 1e-6, !d.isStale { olderUnmarked += 1 }
            if fixWaiting, let start = pendingStartS, error <= required, !d.isStale {
                fixWaiting = false
                if pendingStartAfterOutage { wakeFixAfterOutage.append(t - start) } else { wakeFix.append(t - start) }
            }
        }
        // Heading at 1 Hz.
        if demand.heading != nil, t >= nextHeadingS {
            nextHeadingS = t + 1
            if let h = step.heading, h.isValid {
                let truthHeading = truth.boardToENU.rollPitchHeadingDeg.headingDeg
                var error: Double?
                if let trueHeading = h.trueHeadingDeg {
                    error = abs(Angle.wrap180(trueHeading - truthHeading))
                } else if let declinationDeg = truth.magneticDeclinationDeg {
                    // A magnetic heading alone (no fix yet, so no declination): against the truth's magnetic heading.
                    error = abs(Angle.wrap180(h.magneticHeadingDeg - (truthHeading - declinationDeg)))
                    headingMagneticOnly += 1
                }
                if let e = error {
                    headingErrorsDeg.append(e)
                    headingErrorsByActivityDeg[truth.activity, default: []].append(e)
                    if e <= h.headingAccuracyDeg {
                        headingWithinStated += 1
                        headingWithinStatedByActivity[truth.activity, default: 0] += 1
                    }
                }
            }
        }
        // Activity changes.
        if truthActivity != truth.activity {
            if activityPending { activityMissed += 1 }
            if truthActivity != nil {
                activityChanges += 1
                activityPending = true
                activityChangeS = t
            }
            truthActivity = truth.activity
        }
        if activityPending, step.context.activity?.kind.rawValue == truth.activity.rawValue {
            activityPending = false
            activityDelays.append(t - activityChangeS)
        }
        // Timeline.
        if let timeline, t >= nextTimelineS {
            let drawn = timelineS < t ? (energy.totalMilliAmpHours - timelineTotalMilliAmpHours) * 3600 / (t - timelineS) : 0
            timelineS = t
            timelineTotalMilliAmpHours = energy.totalMilliAmpHours
            nextTimelineS = (t + 1).rounded(.down)
            let plan = s.applied ?? s.scheduler.plan
            var gnssMode = "none"
            if let g = plan.gnss {
                switch g.mode {
                case .continuous: gnssMode = "continuous"
                case .powerSave: gnssMode = "power-save"
                case .off: gnssMode = "off"
                }
            }
            timeline(
                TimelineRow(
                    timeS: t, truthActivity: truth.activity.rawValue, truthOutage: truth.gnssOutage,
                    classifierActivity: step.context.activity?.kind.rawValue ?? "unknown",
                    motion: s.scheduler.inputs.motion.rawValue,
                    readRatesHz: plan.sensors.map { $0.enabled ? $0.readRateHz : 0 },
                    powerModes: plan.sensors.map { ($0.enabled ? $0.configuration.powerMode : .suspend).rawValue },
                    gnssMode: gnssMode, gnssState: s.receiverState?.rawValue ?? "unknown",
                    predictedMilliAmp: plan.power.totalMilliAmp, drawnMilliAmp: drawn,
                    batteryPercent: s.battery.levelFraction.map { $0 * 100 }, tier: s.scheduler.inputs.tier.rawValue))
        }
    }

    func summary(
        policy: String, demandName: String, scenario: String, seed: UInt64, baselineMilliWatt: Double,
        battery: BatteryModel
    ) -> Summary {
        let s = last?.scheduling
        let energy = s?.energy ?? EnergyAccount(sensorIDs: [], receiverID: nil)
        let duration = energy.durationS
        var perSensor: [String: Double] = [:]
        for (i, id) in energy.sensorIDs.enumerated() { perSensor[id] = energy.sensorMilliAmpHours[i] }
        if let r = energy.receiverID { perSensor[r] = energy.receiverMilliAmpHours }
        var states: [String: Double] = [:]
        for state in GNSSPowerState.allCases { states[state.rawValue] = energy.receiverStateS[EnergyAccount.index(state)] }
        let meanMilliWatt = energy.meanMilliWatt
        let delivered = errorsM.count
        return Summary(
            policy: policy, demand: demandName, scenario: scenario, seed: seed,
            receiverModel: s?.scheduler.inputs.receiver?.model, durationS: duration,
            sensorMilliAmpHours: perSensor, gnssMilliAmpHours: energy.receiverMilliAmpHours,
            imuEtcMilliAmpHours: energy.sensorsMilliAmpHours, totalMilliAmpHours: energy.totalMilliAmpHours,
            totalMilliWattHours: energy.totalMilliWattHours, gnssMilliWattHours: energy.receiverMilliWattHours,
            imuEtcMilliWattHours: energy.totalMilliWattHours - energy.receiverMilliWattHours, meanMilliWatt: meanMilliWatt,
            meanMilliAmp: energy.meanMilliAmp,
            gnssStateS: states,
            batteryLifeSensorsOnlyH: meanMilliWatt > 0 ? battery.milliWattHours / meanMilliWatt : nil,
            batteryLifeWithBaselineH: battery.milliWattHours / (meanMilliWatt + baselineMilliWatt),
            boardBaselineMilliWatt: baselineMilliWatt, battery: battery,
            delivered: delivered, deliveredErrorP50M: Self.percentile(errorsM, 0.5),
            deliveredErrorP95M: Self.percentile(errorsM, 0.95),
            shareMeetingByTrueError: delivered > 0 ? Double(meetingTrue) / Double(delivered) : nil,
            shareMeetingByClaim: delivered > 0 ? Double(meetingClaimed) / Double(delivered) : nil,
            requiredAccuracyM: demand.location?.desiredAccuracy.requiredHorizontalAccuracyM,
            staleMarked: staleMarked, olderThanAllowedUnmarked: olderUnmarked, withheldInaccurate: withheld,
            headingErrorP50Deg: Self.percentile(headingErrorsDeg, 0.5),
            headingErrorP95Deg: Self.percentile(headingErrorsDeg, 0.95),
            headingWithinStatedShare: headingErrorsDeg.isEmpty
                ? nil : Double(headingWithinStated) / Double(headingErrorsDeg.count),
            headingMagneticOnlySamples: headingMagneticOnly,
            headingErrorByActivity: Dictionary(
                uniqueKeysWithValues: headingErrorsByActivityDeg.compactMap { kind, errors in
                    guard let p50 = Self.percentile(errors, 0.5), let p95 = Self.percentile(errors, 0.95) else { return nil }
                    let within = Double(headingWithinStatedByActivity[kind] ?? 0) / Double(errors.count)
                    return (
                        kind.rawValue,
                        HeadingErrorFigures(p50Deg: p50, p95Deg: p95, samples: errors.count, withinStatedShare: within)
                    )
                }),
            activityChanges: activityChanges, activityDelayP50S: Self.percentile(activityDelays, 0.5),
            activityDelayP90S: Self.percentile(activityDelays, 0.9), activityMissed: activityMissed + (activityPending ? 1 : 0),
            motionStarts: motionStarts, wakePlanP50S: Self.percentile(wakePlan, 0.5), wakePlanMaxS: wakePlan.max(),
            wakeFixStarts: wakeFixStarts, wakeFixP50S: Self.percentile(wakeFix, 0.5), wakeFixMaxS: wakeFix.max(),
            wakeFixAfterOutageStarts: wakeFixAfterOutageStarts, wakeFixAfterOutageP50S: Self.percentile(wakeFixAfterOutage, 0.5),
            wakeFixAfterOutageMaxS: wakeFixAfterOutage.max(),
            stationarySensorsMilliAmp: stationaryS > 0 ? stationarySensorsMilliAmpHours * 3600 / stationaryS : nil,
            stationaryTotalMilliAmp: stationaryS > 0 ? stationaryTotalMilliAmpHours * 3600 / stationaryS : nil,
            gnssOffAfterStopP50S: Self.percentile(gnssOffDelays, 0.5), gnssOffAfterStopMaxS: gnssOffDelays.max(),
            gnssNeverOffStops: gnssNeverOff,
            plansApplied: s?.plansApplied ?? 0,
            replansPerHour: duration > 0 ? Double(s?.plansApplied ?? 0) / (duration / 3600) : 0,
            reconfigurationFailures: s?.failures ?? 0, wakePlanDelaysS: wakePlan, wakeFixDelaysS: wakeFix,
            wakeFixAfterOutageDelaysS: wakeFixAfterOutage)
    }

    var meetingClaimed = 0
    var staleMarked = 0
    var withheld = 0

    /// The `p` quantile (0…1) of `values` by the nearest-rank method; `nil` for none.
    public static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// A `LineOutput` that drops everything (headless runs).
public final class DiscardingOutput: LineOutput {
    public init() {}
    public func write(_ line: String) {}
    public func writeRaw(_ text: String) {}
    public func flush() {}
}
