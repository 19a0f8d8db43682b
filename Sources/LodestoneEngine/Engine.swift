import LodestoneCore
import LodestoneScheduler
import LodestoneSources

/// The sampling engine's synchronous core: reads each source when it is due, keeps going when a source
/// fails (retrying with a bounded back-off and re-probing a vanished chip), and reports what happened.
///
/// Time is injected: `step(prepare:handle:)` advances to the next due instant on the engine's own time
/// line; the caller decides whether to wait for the wall clock (live hardware) or not (simulation, replay).
public struct Engine {
    /// A source's health.
    public enum Health: Sendable, Hashable, CustomStringConvertible {
        /// Not started yet.
        case starting
        /// Delivering samples.
        case ok
        /// Failing; the engine keeps retrying. The message is the last error.
        case degraded(String)

        public var description: String {
            switch self {
            case .starting: "starting"
            case .ok: "ok"
            case .degraded(let m): "degraded: " + m
            }
        }
    }

    /// Snapshot of one source, for display and `--json` status messages.
    public struct SourceStatus: Sendable {
        public var id: String
        public var label: String
        public var rateHz: Double
        public var health: Health
        public var samples: Int
        public var failures: Int
        public var lastReading: SensorReading?
        public var lastFix: ReceiverFix?
        /// Measured delivery rate over the last second, Hz.
        public var measuredRateHz: Double
    }

    /// What happened during a step.
    public enum Event: Sendable {
        case reading(sensor: String, SensorReading)
        case fix(sensor: String, ReceiverFix)
        /// A source started failing or failed again after a retry (one per state change, not per sample).
        case degraded(sensor: String, message: String, timeS: Double)
        /// A failing source delivers again.
        case recovered(sensor: String, timeS: Double)
        /// A chip with wake-on-motion armed (`SensorConfiguration.wakeOnMotionThresholdMps2`) saw motion above its
        /// threshold since its previous poll; `timeS` is the poll (engine clock, s). The engine polls the flag at the
        /// source's read rate while the configuration arms it.
        case motionWake(sensor: String, timeS: Double)
    }

    private struct Slot {
        var source: any SensorSource
        var periodS: Double
        /// Due times are `originS + tick · periodS` (no accumulated rounding).
        var originS: Double
        var tick = 0
        var nextDueS: Double
        var status: SourceStatus
        var consecutiveFailures = 0
        var needsStart = true
        var backoffS = 0.25
        var windowStartS = 0.0
        var windowCount = 0
        /// Switched off by a plan: never due until a plan enables it again.
        var suspended = false
        /// Turns away readings and fixes outside physics (`PlausibilityLimits`).
        var plausibility: PlausibilityGuard
    }

    private var slots: [Slot]
    /// Engine time of the last step, s.
    public private(set) var timeS: Double

    /// Maximum retry back-off for a failing source, s: a chip that vanished is re-probed at least twice a second, so
    /// that it delivers again within a second of coming back (issue 18's fault soak), for one failed transfer per try.
    public static let maximumBackoffS = 0.5
    /// Consecutive failed reads before a source is re-probed.
    public static let failuresBeforeReprobe = 3

    /// An engine over `sources` from `startTimeS`, turning away readings and fixes outside `plausibility`.
    public init(sources: [any SensorSource], startTimeS: Double = 0, plausibility: PlausibilityLimits = PlausibilityLimits()) {
        timeS = startTimeS
        slots = sources.map { s in
            let period = 1 / max(s.rateHz, 1e-3)
            return Slot(
                source: s, periodS: period, originS: startTimeS, nextDueS: startTimeS,
                status: SourceStatus(
                    id: s.id, label: s.label, rateHz: s.rateHz, health: .starting, samples: 0,
                    failures: 0, lastReading: nil, lastFix: nil, measuredRateHz: 0),
                windowStartS: startTimeS, plausibility: PlausibilityGuard(limits: Self.limits(plausibility, for: s)))
        }
    }

    /// The limits for one source: a recording's dates are its own, however old (gpsd's regression logs go back to
    /// 2005), so only a live receiver's date is judged.
    static func limits(_ limits: PlausibilityLimits, for source: any SensorSource) -> PlausibilityLimits {
        var l = limits
        if source.replaysRecording { l.earliestUTCS = -.infinity }
        return l
    }

    /// Status of every source, in board order.
    public var statuses: [SourceStatus] { slots.map(\.status) }

    /// True when at least one source is healthy.
    public var anyHealthy: Bool { slots.contains { $0.status.health == .ok } }

    /// The next instant at which a source is due.
    public var nextDueS: Double {
        var next = Double.infinity
        for slot in slots where slot.nextDueS < next { next = slot.nextDueS } // no array: this runs every step
        return next
    }

    /// Applies a scheduler's plan for one source (`plan.id`): reconfigures the chip when the source is a
    /// `ReconfigurableSource` (suspend when the plan disables it) and reads it at `plan.readRateHz` from `timeS` on, or
    /// not at all while disabled. Returns what the chip set (`nil` for a source that cannot be reconfigured, which is
    /// then only re-timed). When the chip refuses, the source has rolled back and the engine keeps the old timing.
    /// - Throws: the source's `SourceError`; `SourceError` with "no such sensor" for an unknown id.
    @discardableResult
    public mutating func apply(_ plan: SensorPlan, timeS: Double) throws(SourceError) -> SensorConfiguration? {
        guard let i = slots.firstIndex(where: { $0.status.id == plan.id }) else {
            throw SourceError(sensor: plan.id, message: "no such sensor on this board")
        }
        var applied: SensorConfiguration?
        if var r = slots[i].source as? any ReconfigurableSource {
            var wanted = plan.configuration
            if !plan.enabled { wanted.powerMode = .suspend }
            if plan.fifoDepthSamples > 0 { wanted.fifo = .stream } // batched: drained at `readRateHz`
            do throws(SourceError) {
                applied = try r.reconfigure(wanted)
                slots[i].source = r
                slots[i].plausibility.limits.adopt(r.configuration)
                slots[i].needsStart = false // a source not started yet was started with the plan
            } catch {
                slots[i].source = r
                // The rollback failed too: the chip's state is unknown, so it is re-probed (and given its old plan).
                if error.deviceGone { slots[i].needsStart = true }
                throw error
            }
        }
        slots[i].suspended = !plan.enabled || !(plan.readRateHz > 0)
        if slots[i].suspended {
            slots[i].nextDueS = .infinity
            slots[i].status.rateHz = 0
        } else {
            slots[i].periodS = 1 / plan.readRateHz
            slots[i].status.rateHz = plan.readRateHz
            Self.reschedule(&slots[i], from: max(timeS, self.timeS))
        }
        return applied
    }

    /// Applies a scheduler's plan for the GNSS receiver (`plan.id`) when its source can be commanded.
    /// - Throws: the source's `SourceError`; `SourceError` with "no such sensor" for an unknown id.
    public mutating func apply(_ plan: GNSSPlan, timeS: Double) throws(SourceError) {
        guard let i = slots.firstIndex(where: { $0.status.id == plan.id }) else {
            throw SourceError(sensor: plan.id, message: "no such receiver on this board")
        }
        guard var g = slots[i].source as? any GNSSPowerControllable else { return }
        do throws(SourceError) {
            try g.setMode(plan.mode, timeS: timeS)
            slots[i].source = g
        } catch {
            slots[i].source = g
            throw error
        }
    }

    /// The power state of the receiver `id` (nil when it is not a `GNSSPowerControllable` source).
    public func gnssPowerState(id: String) -> GNSSPowerState? {
        // Through the protocol requirement, not a cast to `any GNSSPowerControllable` (which boxes the source: an
        // allocation per call on the per-sample energy account).
        for slot in slots where slot.status.id == id { return slot.source.receiverPowerState }
        return nil
    }

    /// The sources as the engine holds them now (after reconfiguration), in board order.
    public var sources: [any SensorSource] { slots.map(\.source) }

    /// Advances to `nextDueS`: calls `prepare(t)` once (a simulated world moves there), then reads every
    /// source due at `t` and hands each event to `handle`. Returns `t`.
    @discardableResult
    public mutating func step(prepare: (Double) -> Void = { _ in }, handle: (Event) -> Void) -> Double {
        let t = nextDueS
        guard t.isFinite else { return timeS }
        timeS = t
        prepare(t)
        for i in slots.indices where slots[i].nextDueS <= t + 1e-9 {
            // Static: a method on `self` would need a copy of `self` (and so of `slots`) beside the inout element.
            Self.service(&slots[i], at: t, handle: handle)
        }
        return t
    }

    private static func reschedule(_ slot: inout Slot, from s: Double) {
        slot.originS = s
        slot.tick = 0
        slot.nextDueS = s
    }

    /// Reads the slot's source once, or drains its FIFO when it batches, handing out the events; polls a wake-on-motion
    /// flag after it. Returns how many samples or fixes it delivered.
    private static func deliver(_ slot: inout Slot, at t: Double, handle: (Event) -> Void) throws(SourceError) -> Int {
        let id = slot.status.id
        var delivered = 0
        if slot.source.isBatching {
            // A FIFO drain: every batched sample is its own reading event, oldest first; one outside physics is kept
            // out and flags the source once the drain is done.
            var last: SensorReading?
            var rejected: PlausibilityProblem?
            var plausibility = slot.plausibility
            _ = try slot.source.drain(newestTimeS: t) { reading in
                switch plausibility.check(reading) {
                case .sane:
                    last = reading
                    delivered += 1
                    handle(.reading(sensor: id, reading))
                case .held: break
                case .implausible(let p): rejected = p
                }
            }
            slot.plausibility = plausibility
            if let last { slot.status.lastReading = last }
            if let rejected { throw Self.implausible(id, rejected) }
        } else {
            switch try slot.source.read(timeS: t) {
            case .sensor(let reading):
                switch slot.plausibility.check(reading) {
                case .sane: break
                case .held: return 0
                case .implausible(let p): throw Self.implausible(id, p)
                }
                slot.status.lastReading = reading
                handle(.reading(sensor: id, reading))
                delivered = 1
            case .fix(let fix):
                switch slot.plausibility.check(fix) {
                case .sane: break
                case .held: return 0
                case .implausible(let p): throw Self.implausible(id, p)
                }
                slot.status.lastFix = fix
                handle(.fix(sensor: id, fix))
                delivered = 1
            case .none:
                break
            }
        }
        if slot.source.isMotionWakeArmed, try slot.source.pollMotionWake() {
            handle(.motionWake(sensor: id, timeS: t))
        }
        return delivered
    }

    /// A reading or fix turned away as outside physics (built only then: the message allocates).
    private static func implausible(_ id: String, _ p: PlausibilityProblem) -> SourceError {
        SourceError(sensor: id, message: "implausible values, kept out of fusion: \(p)")
    }

    private static func service(_ slot: inout Slot, at t: Double, handle: (Event) -> Void) {
        // Keep a fixed grid; if we fell behind by more than a period, skip ahead rather than bursting.
        slot.tick += 1
        slot.nextDueS = slot.originS + Double(slot.tick) * slot.periodS
        if slot.nextDueS <= t { Self.reschedule(&slot, from: t + slot.periodS) }
        do throws(SourceError) {
            if slot.needsStart {
                try slot.source.start()
                slot.needsStart = false
                // The chip's full scales as it now reports them (a cast, so only at a start, never per sample).
                if let r = slot.source as? any ReconfigurableSource { slot.plausibility.limits.adopt(r.configuration) }
            }
            let delivered = try Self.deliver(&slot, at: t, handle: handle)
            guard delivered > 0 else { return }
            slot.status.samples += delivered
            slot.windowCount += delivered
            if t - slot.windowStartS >= 1 {
                slot.status.measuredRateHz = Double(slot.windowCount) / (t - slot.windowStartS)
                slot.windowStartS = t
                slot.windowCount = 0
            }
            if case .degraded = slot.status.health { handle(.recovered(sensor: slot.status.id, timeS: t)) }
            slot.status.health = .ok
            slot.consecutiveFailures = 0
            slot.backoffS = 0.25
        } catch {
            slot.status.failures += 1
            slot.consecutiveFailures += 1
            let wasDegraded: Bool = if case .degraded = slot.status.health { true } else { false }
            if error.deviceGone || slot.consecutiveFailures >= Self.failuresBeforeReprobe || slot.needsStart {
                slot.needsStart = true
                Self.reschedule(&slot, from: t + slot.backoffS)
                slot.backoffS = min(slot.backoffS * 2, Self.maximumBackoffS)
            }
            slot.status.health = .degraded(error.message)
            slot.status.measuredRateHz = 0
            if !wasDegraded || slot.consecutiveFailures == 1 {
                handle(.degraded(sensor: slot.status.id, message: error.message, timeS: t))
            }
        }
    }
}
