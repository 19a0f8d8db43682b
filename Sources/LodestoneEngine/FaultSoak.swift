#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LodestoneCore
import LodestoneFusion
import LodestoneLocation
import LodestoneSimulation
import LodestoneTrace
import RealModule

/// The fault soak (issue 18): the simulated board run by the session's own loop (`SessionCore`, as `lodestone run`
/// runs it, scheduled for a client that wants everything) for hours of simulated time as fast as it goes, with faults
/// on the bus and the receiver at random, checking that nothing crashes, every chip is back within a second of its
/// return, no fused output is NaN or infinite, the fused outputs stay within their stated accuracies once recovered,
/// and the resident memory stays flat.
///
/// Faults (each drawn from the seed; intervals exponential with the given means):
/// - every transfer NACKs with probability `nackPerTransfer` and fails with EIO with `ioErrorPerTransfer`;
/// - a chip vanishes (every transfer NACKs) for 0.5…20 s, about every `vanishMeanIntervalS`;
/// - a data register of a chip sticks at a random value for 5…30 s, about every `stuckMeanIntervalS`;
/// - the receiver stops (power lost) for 10…120 s and restarts, about every `receiverStopMeanIntervalS`;
/// - the sky is hidden (an outage beyond the scenario's) for 20…300 s, about every `outageMeanIntervalS`.
///
/// - the wall clock steps by ±1 h (as an NTP step or `date -s` does), about every `wallClockStepMeanIntervalS`.
///
/// The wall clock is injected: before each step the loop is told what it says (`SessionCore.observeWallClock`, as
/// `Session` does on hardware with `CLOCK_REALTIME`): the simulated board's date plus session time plus the steps so
/// far. Sample times and steps stay on session time (the monotonic clock); the check is that the wire's `time` labels
/// follow the wall clock within `SessionCore.wallClockStepThresholdS` from the step after a jump on, and that session
/// time never goes back.
public struct FaultSoak {
    /// What to run.
    public struct Options: Sendable {
        /// The board (must carry simulated chips).
        public var board: BoardDescription
        /// Simulated time to run, s.
        public var durationS: Double
        /// Seed of the board's noise and of the faults.
        public var seed: UInt64
        /// The scenario (default `day-commute`, 14.5 h; the carrier then rests where it ended).
        public var scenario = "day-commute"
        /// Random transfer faults: probabilities per transfer (defaults 1e-3 NACK, 2e-4 EIO).
        public var nackPerTransfer = 1e-3
        public var ioErrorPerTransfer = 2e-4
        /// Mean intervals between the episodic faults, s (defaults 180, 300, 1 200 and 900).
        public var vanishMeanIntervalS = 180.0
        public var stuckMeanIntervalS = 300.0
        public var receiverStopMeanIntervalS = 1_200.0
        public var outageMeanIntervalS = 900.0
        /// Mean interval between steps of the wall clock by +1 h or −1 h, s (default 3 600).
        public var wallClockStepMeanIntervalS = 3_600.0
        /// A chip must deliver again within this long of its return, s (default 1).
        public var recoveryLimitS = 1.0
        /// Accuracy is not judged during a fault episode nor this long after it, s (default 30), nor in the first
        /// `settleS` of the run: "once recovered".
        public var settleS = 30.0
        /// Each output's share of checks within its stated accuracy may fall this far below its nominal coverage
        /// (location 95 %, heading 90 %, altitude 95 % at 2σ) before the soak fails (default 0.10).
        public var coverageTolerance = 0.10
        /// The resident set may grow this much between the end of the warm-up and the end, bytes (default 1 MiB).
        public var rssGrowthLimitBytes = 1 << 20
        /// The warm-up before the first RSS figure, simulated s (default 600, or a tenth of a shorter run).
        public var warmUpS = 600.0
        /// The calibration fusion applies, as `lodestone run` finds it (`CalibrationFiles.resolve`); default none.
        public var calibration = CalibrationStage.Configuration()

        public init(board: BoardDescription, durationS: Double, seed: UInt64 = 1) {
            self.board = board; self.durationS = durationS; self.seed = seed
        }
    }

    /// One output's accuracy checks.
    public struct Coverage: Sendable, Hashable {
        /// Checks made (one per simulated second outside fault windows, when the output exists).
        public var checks = 0
        /// Checks whose error was within the stated accuracy.
        public var within = 0
        /// The worst error and the accuracy stated with it.
        public var worstError = 0.0
        public var statedAtWorst = 0.0
        /// The errors and the stated accuracies, counted in logarithmic bins (fixed size: a day's checks do not grow
        /// the soak's memory), for their medians.
        var errorBins = LogHistogram(), statedBins = LogHistogram()
        /// The share within, 0…1 (1 without checks).
        public var fraction: Double { checks == 0 ? 1 : Double(within) / Double(checks) }
        /// The median error and the median stated accuracy (within 2.3 % of the value; 0 without checks).
        public var medianError: Double { errorBins.median }
        public var medianStated: Double { statedBins.median }
        mutating func add(error: Double, stated: Double) {
            checks += 1
            if error <= stated { within += 1 }
            if error > worstError { worstError = error; statedAtWorst = stated }
            errorBins.add(error)
            statedBins.add(stated)
        }
    }

    /// Counts of positive values in bins 1/50 of a decade wide from 10⁻³ to 10⁵ (values beyond go to the end bins).
    struct LogHistogram: Sendable, Hashable {
        static let binsPerDecade = 50.0, lowestDecade = -3.0, count = 400
        var counts = [Int](repeating: 0, count: count)
        var total = 0
        mutating func add(_ value: Double) {
            guard value.isFinite else { return }
            let x = (Double.log10(max(value, 1e-12)) - Self.lowestDecade) * Self.binsPerDecade
            counts[min(max(Int(x.rounded(.down)), 0), Self.count - 1)] += 1
            total += 1
        }
        /// The centre of the bin holding the middle value.
        var median: Double {
            guard total > 0 else { return 0 }
            var seen = 0
            for (i, c) in counts.enumerated() {
                seen += c
                if 2 * seen >= total { return Double.pow(10, Self.lowestDecade + (Double(i) + 0.5) / Self.binsPerDecade) }
            }
            return 0
        }
    }

    /// The soak's figures.
    public struct Report: Sendable {
        public var simulatedS = 0.0
        public var steps = 0
        /// Faults injected, by kind (`nack`, `eio`, `vanish`, `stuck`, `receiver-stop`, `gnss-outage`).
        public var faults: [String: Int] = [:]
        /// Chip returns, how many were followed by the sensor delivering again, the worst time it took (s), and those
        /// slower than the limit or never back.
        public var returns = 0
        public var recoveries = 0
        public var worstRecoveryS = 0.0
        public var slowRecoveries = 0
        /// The receiver's returns (restart, sky back) and the worst time to its next fix, s (a receiver acquires for
        /// seconds: reported, not judged against the chips' second).
        public var receiverReturns = 0
        public var worstReceiverRecoveryS = 0.0
        /// Degraded and recovered notices the engine made.
        public var degradedNotices = 0
        public var recoveredNotices = 0
        /// Non-finite values seen in fused outputs (orientation, altitude, location, heading) and in readings handed
        /// to fusion.
        public var nonFiniteOutputs = 0
        /// Accuracy against the simulator's truth once recovered.
        public var location = Coverage()
        public var heading = Coverage()
        public var altitude = Coverage()
        /// Wall-clock steps injected, how many the loop followed, and the labels found off the wall clock by more than
        /// the threshold at the step after a jump or later (the worst, s).
        public var wallClockStepsFollowed = 0
        public var mislabelledSteps = 0
        public var worstLabelErrorS = 0.0
        /// Steps whose session time went back.
        public var timeReversals = 0
        /// Resident set size at the start, after the warm-up and at the end, bytes (`nil` when unreadable).
        public var rssStartBytes: Int?
        public var rssWarmBytes: Int?
        public var rssEndBytes: Int?
        /// Every check that failed, one line each (empty: the soak passed).
        public var failures: [String] = []

        public var passed: Bool { failures.isEmpty }

        /// The figures, one per line.
        public var lines: [String] {
            func mib(_ b: Int?) -> String { b.map { formatFixed(Double($0) / 1_048_576, digits: 2) + " MiB" } ?? "unknown" }
            func cov(_ name: String, _ c: Coverage, _ unit: String) -> String {
                "\(name): \(c.within)/\(c.checks) within stated (\(formatFixed(c.fraction * 100, digits: 1)) %), worst "
                    + "\(formatFixed(c.worstError, digits: 1)) \(unit) with \(formatFixed(c.statedAtWorst, digits: 1)) \(unit) stated; "
                    + "median error \(formatFixed(c.medianError, digits: 1)) \(unit), median stated \(formatFixed(c.medianStated, digits: 1)) \(unit)"
            }
            var l = [
                "simulated: \(formatFixed(simulatedS / 3600, digits: 2)) h (\(steps) steps)",
                "faults injected: " + faults.keys.sorted().map { "\($0) \(faults[$0] ?? 0)" }.joined(separator: ", "),
                "chip returns: \(returns), recovered \(recoveries), worst \(formatFixed(worstRecoveryS, digits: 3)) s, "
                    + "slower than the limit or never: \(slowRecoveries)",
                "receiver returns: \(receiverReturns), worst time to the next fix \(formatFixed(worstReceiverRecoveryS, digits: 1)) s",
                "engine notices: degraded \(degradedNotices), recovered \(recoveredNotices)",
                "non-finite outputs: \(nonFiniteOutputs)",
                "wall-clock steps: \(faults["wall-clock-step"] ?? 0) injected, \(wallClockStepsFollowed) followed; "
                    + "steps with time labels off the wall clock: \(mislabelledSteps) (worst \(formatFixed(worstLabelErrorS, digits: 3)) s); "
                    + "session time going back: \(timeReversals)",
                cov("location (95 %)", location, "m"),
                cov("heading (90 %)", heading, "°"),
                cov("altitude (2σ)", altitude, "m"),
                "RSS: start \(mib(rssStartBytes)), after warm-up \(mib(rssWarmBytes)), end \(mib(rssEndBytes))"
            ]
            l += failures.map { "FAILED: " + $0 }
            l.append(passed ? "soak passed" : "soak FAILED")
            return l
        }
    }

    /// Runs the soak; `progress` is called about every simulated hour.
    /// - Throws: `SessionError` when the board cannot be assembled.
    public static func run(_ o: Options, progress: (Report) -> Void = { _ in }) throws(SessionError) -> Report {
        var fusion = FusionConfiguration()
        fusion.calibration = o.calibration
        let configuration = SessionConfiguration(
            board: o.board, scenario: o.scenario, seed: o.seed, durationS: o.durationS, speed: 0, fusion: fusion,
            scheduling: SchedulingConfiguration(battery: .none))
        var core = try SessionCore(configuration: configuration)
        guard let world = core.runtime.world else { throw .setup("the soak needs a board with simulated chips") }
        let board = world.board
        let bus = board.bus
        bus.setRandomFaults(
            RandomFaultRates(nackPerTransfer: o.nackPerTransfer, ioErrorPerTransfer: o.ioErrorPerTransfer), seed: o.seed)
        var random = SeededGenerator(seed: o.seed ^ 0x534F_414B)
        var report = Report()
        report.rssStartBytes = residentBytes()
        let warmUpS = min(o.warmUpS, o.durationS / 10)

        // The chips and the data registers that can stick.
        let chips: [(id: String, address: UInt8, data: ClosedRange<UInt8>)] = o.board.sensors.compactMap { s in
            guard s.bus == .simulated, let a = s.address else { return nil }
            let data: ClosedRange<UInt8> =
                switch s.chip {
                case "mpu9250", "mpu6500", "mpu6050": 0x3B...0x48
                case "lis3mdl": 0x28...0x2D
                case "bmp280", "bme280": 0xF7...0xFC
                default: 0x00...0x00
                }
            return (s.id, a, data)
        }
        func next(_ mean: Double, after t: Double) -> Double { t - mean * Double.log(max(random.uniform(), 1e-12)) }
        var nextVanishS = next(o.vanishMeanIntervalS, after: 0)
        var nextStuckS = next(o.stuckMeanIntervalS, after: 0)
        var nextStopS = next(o.receiverStopMeanIntervalS, after: 0)
        var nextOutageS = next(o.outageMeanIntervalS, after: 0)
        // The wall clock's steps draw from their own generator, so that they leave the other faults of a seed as they were.
        var wallRandom = SeededGenerator(seed: o.seed ^ 0x5741_4C4C)
        func nextWallStep(after t: Double) -> Double {
            t - o.wallClockStepMeanIntervalS * Double.log(max(wallRandom.uniform(), 1e-12))
        }
        var nextWallStepS = nextWallStep(after: 0)
        // The injected wall clock: Unix time of session time 0 as the session starts, and the steps so far.
        let wallAtZeroS = core.state.wallAnchorS ?? 0
        var wallStepsS = 0.0
        var previousT = -Double.infinity
        // Active episodes: the chip gone and when it returns; the stuck fault and when it is released.
        var vanished: (index: Int, untilS: Double)?
        var stuck: (index: Int, fault: SimulatedFault, untilS: Double)?
        var stoppedUntilS: Double?
        var blockedUntilS: Double?
        var pendingReturn: [String: Double] = [:]
        var receiverBackS: Double?
        var quietFromS = o.settleS // accuracy is judged from here on
        var nextCheckS = 1.0
        var nextProgressS = 3600.0

        while let t = core.nextStepTimeS {
            // Episodes ending.
            if let v = vanished, t >= v.untilS {
                bus.setPresent(true, address: chips[v.index].address)
                let id = chips[v.index].id
                report.returns += 1
                let degraded = core.engine.statuses.first { $0.id == id }.map {
                    if case .degraded = $0.health { true } else { false }
                }
                if degraded == true { pendingReturn[id] = v.untilS } else { report.recoveries += 1 }
                vanished = nil
                quietFromS = max(quietFromS, t + o.settleS)
            }
            if let s = stuck, t >= s.untilS {
                bus.remove(s.fault)
                stuck = nil
                quietFromS = max(quietFromS, t + o.settleS)
            }
            if let u = stoppedUntilS, t >= u {
                board.restartReceiver(timeS: t)
                stoppedUntilS = nil
                if blockedUntilS == nil { receiverBackS = t; report.receiverReturns += 1 }
                quietFromS = max(quietFromS, t + o.settleS)
            }
            if let u = blockedUntilS, t >= u {
                board.isGNSSBlocked = false
                blockedUntilS = nil
                if stoppedUntilS == nil { receiverBackS = t; report.receiverReturns += 1 }
                quietFromS = max(quietFromS, t + o.settleS)
            }
            // Episodes starting (one chip fault at a time, so that each return is timed on its own).
            if t >= nextVanishS {
                nextVanishS = next(o.vanishMeanIntervalS, after: t)
                if vanished == nil, !chips.isEmpty {
                    let i = Int(random.next() % UInt64(chips.count))
                    if stuck?.index != i {
                        bus.setPresent(false, address: chips[i].address)
                        vanished = (i, t + random.uniform(in: 0.5...20))
                        report.faults["vanish", default: 0] += 1
                        pendingReturn[chips[i].id] = nil
                    }
                }
            }
            if t >= nextStuckS {
                nextStuckS = next(o.stuckMeanIntervalS, after: t)
                if stuck == nil, !chips.isEmpty {
                    let i = Int(random.next() % UInt64(chips.count))
                    if vanished?.index != i {
                        let r = chips[i].data
                        let register = r.lowerBound &+ UInt8(random.next() % UInt64(r.count))
                        let f = SimulatedFault.stuck(
                            address: chips[i].address, register: register, value: UInt8(truncatingIfNeeded: random.next()))
                        bus.inject(f)
                        stuck = (i, f, t + random.uniform(in: 5...30))
                        report.faults["stuck", default: 0] += 1
                    }
                }
            }
            if t >= nextStopS {
                nextStopS = next(o.receiverStopMeanIntervalS, after: t)
                if stoppedUntilS == nil {
                    board.stopReceiver(timeS: t)
                    stoppedUntilS = t + random.uniform(in: 10...120)
                    receiverBackS = nil
                    report.faults["receiver-stop", default: 0] += 1
                }
            }
            if t >= nextOutageS {
                nextOutageS = next(o.outageMeanIntervalS, after: t)
                if blockedUntilS == nil {
                    board.isGNSSBlocked = true
                    blockedUntilS = t + random.uniform(in: 20...300)
                    receiverBackS = nil
                    report.faults["gnss-outage", default: 0] += 1
                }
            }
            if vanished != nil || stuck != nil || stoppedUntilS != nil || blockedUntilS != nil {
                quietFromS = max(quietFromS, t + o.settleS)
            }

            if t >= nextWallStepS {
                nextWallStepS = nextWallStep(after: t)
                wallStepsS += wallRandom.next() % 2 == 0 ? 3_600 : -3_600
                report.faults["wall-clock-step", default: 0] += 1
            }
            if t < previousT { report.timeReversals += 1 }
            previousT = t
            core.observeWallClock(unixS: wallAtZeroS + t + wallStepsS, atSessionS: t)
            if let labelS = core.labelUnixS(atSessionS: t) {
                let errorS = abs(labelS - (wallAtZeroS + t + wallStepsS))
                if errorS > SessionCore.wallClockStepThresholdS {
                    report.mislabelledSteps += 1
                    report.worstLabelErrorS = max(report.worstLabelErrorS, errorS)
                }
            }
            core.step(at: t) { event in
                switch event {
                case let .recovered(sensor, timeS):
                    report.recoveredNotices += 1
                    if let back = pendingReturn.removeValue(forKey: sensor) {
                        let dt = timeS - back
                        report.recoveries += 1
                        report.worstRecoveryS = max(report.worstRecoveryS, dt)
                        if dt > o.recoveryLimitS { report.slowRecoveries += 1 }
                    }
                case .degraded:
                    report.degradedNotices += 1
                case let .reading(_, r):
                    if !Self.isFinite(r) { report.nonFiniteOutputs += 1 }
                case let .fix(_, f):
                    if f.hasPosition, let back = receiverBackS {
                        report.worstReceiverRecoveryS = max(report.worstReceiverRecoveryS, f.timeS - back)
                        receiverBackS = nil
                    }
                case .motionWake: break
                }
            }
            report.steps += 1
            if !Self.outputsAreFinite(core.state.fusion) { report.nonFiniteOutputs += 1 }
            if t >= nextCheckS {
                nextCheckS = t.rounded(.down) + 1
                if t >= quietFromS { Self.judge(core.state.fusion, truth: board.truth, at: t, into: &report) }
            }
            if report.rssWarmBytes == nil, t >= warmUpS { report.rssWarmBytes = residentBytes() }
            if t >= nextProgressS {
                nextProgressS += 3600
                report.simulatedS = t
                progress(report)
            }
        }
        report.simulatedS = core.state.timeS
        // A chip still not back at the end counts as slow when its return is longer ago than the limit.
        for (_, back) in pendingReturn where report.simulatedS - back > o.recoveryLimitS { report.slowRecoveries += 1 }
        report.wallClockStepsFollowed = core.state.wallClockSteps
        report.faults["nack"] = bus.randomNACKCount
        report.faults["eio"] = bus.randomIOErrorCount
        _ = core.finish()
        report.rssEndBytes = residentBytes()
        report.failures = Self.failures(report, o)
        return report
    }

    /// The checks, one line per failure.
    static func failures(_ r: Report, _ o: Options) -> [String] {
        var f: [String] = []
        if r.slowRecoveries > 0 {
            f.append(
                "\(r.slowRecoveries) chip returns not followed by data within \(formatFixed(o.recoveryLimitS, digits: 1)) s "
                    + "(worst \(formatFixed(r.worstRecoveryS, digits: 3)) s)")
        }
        if r.nonFiniteOutputs > 0 { f.append("\(r.nonFiniteOutputs) non-finite outputs") }
        if r.mislabelledSteps > 0 {
            f.append(
                "\(r.mislabelledSteps) steps labelled off the wall clock by more than "
                    + "\(formatFixed(SessionCore.wallClockStepThresholdS, digits: 1)) s (worst \(formatFixed(r.worstLabelErrorS, digits: 1)) s)"
            )
        }
        if r.timeReversals > 0 { f.append("session time went back \(r.timeReversals) times") }
        for (name, c, nominal) in [("location", r.location, 0.95), ("heading", r.heading, 0.90), ("altitude", r.altitude, 0.95)]
        where c.checks > 0 && c.fraction < nominal - o.coverageTolerance {
            f.append(
                "\(name) within its stated accuracy \(formatFixed(c.fraction * 100, digits: 1)) % of \(c.checks) checks, "
                    + "below \(formatFixed((nominal - o.coverageTolerance) * 100, digits: 0)) %")
        }
        if let a = r.rssWarmBytes, let b = r.rssEndBytes, b - a > o.rssGrowthLimitBytes {
            f.append("RSS grew \(b - a) bytes after the warm-up (limit \(o.rssGrowthLimitBytes))")
        }
        return f
    }

    /// Location, heading and altitude against the truth.
    static func judge(_ fusion: FusionPipeline, truth: TruthSample, at t: Double, into r: inout Report) {
        if let l = fusion.location.latest, t - l.timeS < 2,
            let d = l.coordinate.distanceM(to: Coordinate(latitudeDeg: truth.latitudeDeg, longitudeDeg: truth.longitudeDeg))
        {
            r.location.add(error: d, stated: l.horizontalAccuracyM)
        }
        if let h = fusion.orientation.heading, h.isValid, t - h.timeS < 2 {
            let truthDeg = truth.boardToENU.rollPitchHeadingDeg.headingDeg
            if let trueDeg = h.trueHeadingDeg {
                r.heading.add(error: abs(Angle.wrap180(trueDeg - truthDeg)), stated: h.headingAccuracyDeg)
            } else if let declinationDeg = truth.magneticDeclinationDeg {
                // No declination yet (no fix): the magnetic heading against the truth's.
                r.heading.add(
                    error: abs(Angle.wrap180(h.magneticHeadingDeg - (truthDeg - declinationDeg))), stated: h.headingAccuracyDeg)
            }
        }
        if let a = fusion.context.altitudeM, let s = fusion.context.altitudeAccuracyM {
            r.altitude.add(error: abs(a - truth.altitudeMSLM), stated: 2 * s)
        }
    }

    static func isFinite(_ r: SensorReading) -> Bool {
        func ok(_ v: Vector3?) -> Bool { v.map { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite } ?? true }
        return (r.pressurePa?.isFinite ?? true) && ok(r.accelerationMps2) && ok(r.angularVelocityRadS)
            && ok(r.magneticFieldMicroTesla)
    }

    /// Every fused output is finite (or absent). No arrays: it runs at every step.
    static func outputsAreFinite(_ f: FusionPipeline) -> Bool {
        func bad(_ v: Double?) -> Bool { v.map { !$0.isFinite } ?? false }
        let c = f.context
        if let q = c.boardToENU, !(q.w.isFinite && q.x.isFinite && q.y.isFinite && q.z.isFinite) { return false }
        if bad(c.altitudeM) || bad(c.altitudeAccuracyM) || bad(c.verticalSpeedMps) { return false }
        if let l = f.location.latest {
            if bad(l.coordinate.latitudeDeg) || bad(l.coordinate.longitudeDeg) || bad(l.horizontalAccuracyM)
                || bad(l.altitudeMSLM) || bad(l.verticalAccuracyM) || bad(l.speedMps) || bad(l.courseDeg)
            {
                return false
            }
        }
        if let h = f.orientation.heading {
            if bad(h.magneticHeadingDeg) || bad(h.headingAccuracyDeg) || bad(h.trueHeadingDeg) { return false }
        }
        return true
    }

    /// This process's resident set size, bytes (`VmRSS` in `/proc/self/status`); `nil` where there is none.
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.dropFirst(6).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
