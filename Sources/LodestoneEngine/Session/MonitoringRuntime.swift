import LodestoneCore
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneScheduler
import LodestoneService
import LodestoneStore

/// Region monitors, significant change, visits and the motion history inside the loop (issue 16): what
/// `SessionCore.State.monitoring` holds.
///
/// - **When it evaluates**: once per new fused location (a new receiver fix, or at most one a second between fixes,
///   dead-reckoned), never per sample. Locations go in with their `timeS` turned into Unix time (`utcAtStartS` + session
///   time), so that events, states and visits mean the same after a restart.
/// - **Persistence**: with a state directory, every monitor, condition, state and undelivered event is in the SQLite
///   store (`MonitorStore`) before it is handed to a stream: an event is delivered only once it is on the disk. Without
///   one, the same queue is kept in memory for the session's life.
/// - **Demand**: monitors ask the scheduler for the fixes `MonitoringDemand` derives from the nearest boundary, the speed
///   and the activity (re-derived every `demandPeriodS` and at each change of activity); significant change and visits
///   ask for coarse, rare fixes. Their demands are background demands, named `monitoring`, `significant-change` and
///   `visits` in the plan's reasons.
/// - **History**: the pedometer's totals are written as one interval a minute while steps are counted, and each change of
///   activity as it happens (`MonitorStore.recordPedometer`, `recordActivity`); queries read the store.
struct MonitoringRuntime {
    /// The store, when the session has a state directory.
    let store: MonitorStore?
    /// Every monitor with conditions or queued events, by client and name.
    var monitors: [MonitorKey: RegionMonitor] = [:]
    /// Events not yet acknowledged, per monitor, when there is no store.
    var memoryPending: [MonitorKey: [MonitorEvent]] = [:]
    /// Events the store could not take (a full disk, a read-only file system, an I/O error), per monitor, oldest
    /// first: they were delivered as they happened, and the monitor goes on in memory from them. Each later evaluation
    /// of the monitor first writes them (`MonitorStore.record`, which also brings the conditions' states up to them);
    /// until then they are pending with the store's, and a restart loses them. `unsavedAcknowledgedThrough`: the
    /// acknowledgement that reached into them, applied once they are written.
    var unsaved: [MonitorKey: [MonitorEvent]] = [:]
    var unsavedAcknowledgedThrough: [MonitorKey: UInt64] = [:]
    var eventStreams: [(key: MonitorKey, buffer: UpdateBuffer<MonitorEvent>)] = []
    var significantStreams: [UpdateBuffer<SignificantLocationChange>] = []
    var visitStreams: [UpdateBuffer<VisitEvent>] = []
    /// The configuration asks for significant change whether or not a stream reads it (harnesses).
    let standingSignificantChange: Bool
    var significant = SignificantChangeDetector()
    var visits = VisitDetector()
    /// What was made, newest last, at most `logCapacity` of each (harnesses and diagnostics read them).
    var eventLog: [MonitorEvent] = []
    var significantLog: [SignificantLocationChange] = []
    var visitLog: [VisitEvent] = []
    static let logCapacity = 10_000

    /// The demands monitoring adds to the scheduler's, and when they were last derived.
    var demands: [Demand] = []
    var demandDerivedS = -Double.infinity
    var demandActivity: MotionActivity.Kind?
    var demandsChanged = false
    private var demandScratch: [Demand] = []
    /// Since when the derived demands have been looser than the ones handed over (a relaxation waits out
    /// `relaxationHoldS`), s of session time.
    var looserSinceS: Double?
    /// How often the monitors' demand is derived again while nothing else changes, s of session time.
    static let demandPeriodS = 5.0
    /// How long a looser demand must hold before it replaces a stricter one, s: an activity that flickers between
    /// `walk` and `stationary`, or a distance that wavers across a step, re-plans nothing. A stricter demand (the
    /// carrier nears a boundary, speeds up, a stream starts) is handed over at once.
    static let relaxationHoldS = 30.0

    var lastEvaluatedLocationS = -Double.infinity
    var lastEvaluatedFixS: Double?
    /// The most often locations are evaluated between fixes, s.
    static let evaluationPeriodS = 1.0

    /// History: the totals at the last interval written, the activity last recorded.
    var lastTotals: PedometerTotals?
    var lastTotalsUnixS: Double?
    var lastActivityKind: MotionActivity.Kind?
    /// How long one pedometer interval of the history lasts, s.
    static let historyIntervalS = 60.0

    /// Store failures since the start (each also a note in the live view).
    var storeFailures = 0

    init(store: MonitorStore?, standingRegions: [CircularRegion], standingSignificantChange: Bool) throws(SessionError) {
        self.store = store
        self.standingSignificantChange = standingSignificantChange
        if let store {
            do throws(StoreError) {
                for key in try store.monitors() { monitors[key] = try store.restoreMonitor(key) }
            } catch { throw .setup("the monitors' store \(store.path): \(error)") }
        }
        let key = MonitorKey(client: "", name: Self.standingMonitorName)
        // The configuration's monitor holds what the configuration says now: regions it no longer lists go.
        let listed = Set(standingRegions.map(\.id))
        for c in monitors[key]?.conditions ?? [] where !listed.contains(c.region.id) {
            do throws(MonitoringError) { _ = try removeCondition(c.region.id, from: key) } catch {
                throw .setup("monitored region \(c.region.id): \(error.message)")
            }
        }
        for region in standingRegions {
            do throws(MonitoringError) { try addCondition(region, to: key) } catch {
                throw .setup("monitored region \(region.id): \(error.message)")
            }
        }
    }

    /// The name of the monitor holding `SessionConfiguration.monitoredRegions` (client "").
    static let standingMonitorName = "configuration"

    // MARK: - Requests (the Session actor, between steps)

    mutating func addCondition(_ region: CircularRegion, to key: MonitorKey) throws(MonitoringError) {
        guard !key.name.isEmpty, key.name.utf8.count <= MonitorStore.maximumKeyBytes,
            key.client.utf8.count <= MonitorStore.maximumKeyBytes
        else {
            throw MonitoringError(.invalid, "a monitor's name must be 1 to \(MonitorStore.maximumKeyBytes) bytes")
        }
        var monitor = monitors[key] ?? RegionMonitor()
        // The same region again changes nothing (its state stays); another region under the same id replaces it.
        if let existing = monitor.conditions.first(where: { $0.region.id == region.id }) {
            if existing.region == region { return }
            _ = try removeCondition(region.id, from: key)
            monitor = monitors[key] ?? RegionMonitor()
        }
        if let store {
            do throws(StoreError) {
                try store.addCondition(region, to: key)
                if monitors[key] == nil { monitor = try store.restoreMonitor(key) }
            } catch { throw MonitoringError(.store, "\(error)") }
        }
        if monitor.record(id: region.id) == nil {
            do { try monitor.add(region) } catch { throw MonitoringError(.invalid, "\(error)") }
        }
        monitors[key] = monitor
        demandDerivedS = -.infinity
    }

    mutating func removeCondition(_ id: String, from key: MonitorKey) throws(MonitoringError) -> Bool {
        guard var monitor = monitors[key] else { return false }
        if let store {
            do throws(StoreError) { guard try store.removeCondition(id: id, from: key) else { return false } } catch {
                throw MonitoringError(.store, "\(error)")
            }
        }
        let removed = monitor.remove(id: id) != nil
        monitors[key] = monitor
        demandDerivedS = -.infinity
        return removed
    }

    mutating func removeMonitor(_ key: MonitorKey) throws(MonitoringError) -> Bool {
        var existed = monitors.removeValue(forKey: key) != nil
        memoryPending[key] = nil
        unsaved[key] = nil
        unsavedAcknowledgedThrough[key] = nil
        if let store {
            do throws(StoreError) { existed = try store.removeMonitor(key) || existed } catch {
                throw MonitoringError(.store, "\(error)")
            }
        }
        for s in eventStreams where s.key == key { s.buffer.finish() }
        eventStreams.removeAll { $0.key == key }
        demandDerivedS = -.infinity
        return existed
    }

    func conditions(of key: MonitorKey) -> [MonitorCondition] {
        (monitors[key]?.conditions ?? []).map { MonitorCondition(region: $0.region, record: $0.record) }
            .sorted { $0.region.id < $1.region.id }
    }

    func names(client: String) -> [String] {
        monitors.keys.filter { $0.client == client }.map(\.name).sorted()
    }

    func pending(of key: MonitorKey) throws(MonitoringError) -> [MonitorEvent] {
        if let store {
            let acknowledged = unsavedAcknowledgedThrough[key] ?? 0
            let kept = (unsaved[key] ?? []).filter { $0.id > acknowledged }
            do throws(StoreError) { return try store.pendingEvents(of: key).filter { $0.id > acknowledged } + kept } catch {
                throw MonitoringError(.store, "\(error)")
            }
        }
        return memoryPending[key] ?? []
    }

    mutating func acknowledge(through id: UInt64, of key: MonitorKey) throws(MonitoringError) -> Acknowledgement {
        guard let monitor = monitors[key] else { throw MonitoringError(.notFound, "no monitor \"\(key.name)\"") }
        if let store {
            if let kept = unsaved[key], let first = kept.first, id >= first.id {
                // Into the events the store has not taken: remembered, and applied once they are written.
                let last = monitor.nextEventId - 1
                guard id <= last else { return .unknownEvent(id: id, lastEventId: last) }
                // What this acknowledges: the pending events up to `id` (one read of the store, not two).
                let count = (try? pending(of: key).count { $0.id <= id }) ?? 0
                unsavedAcknowledgedThrough[key] = max(unsavedAcknowledgedThrough[key] ?? 0, id)
                return count > 0 ? .acknowledged(count: count, throughId: id) : .alreadyAcknowledged(throughId: id)
            }
            do throws(StoreError) { return try store.acknowledge(through: id, of: key) } catch {
                throw MonitoringError(.store, "\(error)")
            }
        }
        let last = monitor.nextEventId - 1
        guard id <= last else { return .unknownEvent(id: id, lastEventId: last) }
        let before = memoryPending[key]?.count ?? 0
        memoryPending[key]?.removeAll { $0.id <= id }
        let count = before - (memoryPending[key]?.count ?? 0)
        return count > 0 ? .acknowledged(count: count, throughId: id) : .alreadyAcknowledged(throughId: id)
    }

    // MARK: - Streams

    /// Takes a monitoring request from the registry; false when it is not one.
    mutating func take(_ request: SubscriberRequest, notes: inout [String]) -> Bool {
        switch request {
        case let .monitorEvents(key, buffer):
            // What was not acknowledged first, in order; then the live events.
            do throws(MonitoringError) { for e in try pending(of: key) { buffer.push(e) } } catch {
                notes.append("monitor \(key): \(error.message)")
            }
            eventStreams.append((key, buffer))
        case let .significantChange(buffer):
            significantStreams.append(buffer)
        case let .visits(buffer):
            if let v = visits.currentVisit { buffer.push(.arrival(v)) }
            visitStreams.append(buffer)
        default: return false
        }
        demandDerivedS = -.infinity
        return true
    }

    /// Drops streams whose consumer has gone; true when any was.
    mutating func pruneEnded() -> Bool {
        let before = eventStreams.count + significantStreams.count + visitStreams.count
        // Called every step: with no streams (a replay) `removeAll(where:)` would still take each array for writing.
        guard before > 0 else { return false }
        eventStreams.removeAll { $0.buffer.isCancelled || $0.buffer.isFinished }
        significantStreams.removeAll { $0.isCancelled || $0.isFinished }
        visitStreams.removeAll { $0.isCancelled || $0.isFinished }
        let changed = eventStreams.count + significantStreams.count + visitStreams.count != before
        if changed { demandDerivedS = -.infinity }
        return changed
    }

    func finishStreams() {
        for s in eventStreams { s.buffer.finish() }
        for s in significantStreams { s.finish() }
        for s in visitStreams { s.finish() }
    }

    /// Whether anything is monitored: the loop skips all of it otherwise.
    var isIdle: Bool {
        monitors.isEmpty && significantStreams.isEmpty && visitStreams.isEmpty && !standingSignificantChange
            && store == nil
    }

    // MARK: - Each step

    /// After a step: evaluates a new location, feeds visits the activity, writes the history, re-derives the demand.
    /// `unixOffsetS` turns session time into Unix time.
    mutating func afterStep(
        location latest: Location?, lastFixS: Double?, activity: MotionActivity?, totals: PedometerTotals,
        speedMps: Double?, timeS t: Double, unixOffsetS: Double, notes: inout [String]
    ) {
        if let activity, activity.kind != lastActivityKind {
            lastActivityKind = activity.kind
            var a = activity
            a.startTimeS = activity.startTimeS + unixOffsetS
            if let store {
                do throws(StoreError) { try store.recordActivity(a) } catch { fail("history", error, &notes) }
            }
            if let e = visits.update(activity: activity.kind, timeS: t + unixOffsetS) { deliver(e) }
            demandDerivedS = -.infinity
        }
        recordPedometer(totals, timeS: t, unixOffsetS: unixOffsetS, notes: &notes)
        if let l = latest, l.timeS > lastEvaluatedLocationS,
            lastFixS != lastEvaluatedFixS || l.timeS - lastEvaluatedLocationS >= Self.evaluationPeriodS
        {
            lastEvaluatedLocationS = l.timeS
            lastEvaluatedFixS = lastFixS
            var unix = l
            unix.timeS = l.timeS + unixOffsetS
            evaluate(unix, notes: &notes)
        } else if t - lastEvaluatedLocationS >= 60, !visitStreams.isEmpty {
            if let e = visits.advance(toTimeS: t + unixOffsetS) { deliver(e) }
        }
        if t - demandDerivedS >= Self.demandPeriodS {
            deriveDemands(location: latest, speedMps: speedMps, activity: activity?.kind, timeS: t)
        }
    }

    private mutating func evaluate(_ location: Location, notes: inout [String]) {
        // Index by index over the dictionary, each monitor evaluated in place (no copy of its keys or its arrays).
        var index = monitors.startIndex
        while index != monitors.endIndex {
            defer { index = monitors.index(after: index) }
            guard monitors.values[index].count > 0 else { continue }
            let key = monitors.keys[index]
            var events: [MonitorEvent] = []
            if let store {
                if unsaved[key] != nil || unsavedAcknowledgedThrough[key] != nil {
                    writeUnsaved(of: key, to: store, notes: &notes)
                }
                if unsaved[key] == nil {
                    let before = monitors.values[index]
                    do throws(StoreError) { events = try store.evaluate(location, with: &monitors.values[index], of: key) } catch
                    {
                        // Go on in memory from where the store was: the events are delivered now and written later.
                        fail("monitor \(key)", error, &notes)
                        monitors.values[index] = before
                        monitors.values[index].evaluate(location) { events.append($0) }
                        if !events.isEmpty {
                            unsaved[key] = events
                            notes.append("monitor \(key): \(events.count) event(s) kept in memory until the store can be written")
                        }
                    }
                } else {
                    monitors.values[index].evaluate(location) { events.append($0) }
                    unsaved[key, default: []].append(contentsOf: events)
                }
            } else {
                monitors.values[index].evaluate(location) { events.append($0) }
                if !events.isEmpty { memoryPending[key, default: []].append(contentsOf: events) }
            }
            for e in events {
                Self.log(e, in: &eventLog)
                for s in eventStreams where s.key == key { s.buffer.push(e) }
            }
        }
        if !significantStreams.isEmpty || standingSignificantChange, let c = significant.update(location) {
            let change = SignificantLocationChange(timeS: c.timeS, location: c.location, distanceM: c.distanceM)
            Self.log(change, in: &significantLog)
            for s in significantStreams { s.push(change) }
        }
        if let e = visits.update(location) { deliver(e) }
    }

    private mutating func deliver(_ e: VisitEvent) {
        Self.log(e, in: &visitLog)
        for s in visitStreams { s.push(e) }
    }

    private mutating func recordPedometer(_ totals: PedometerTotals, timeS t: Double, unixOffsetS: Double, notes: inout [String])
    {
        guard let store else { return }
        let nowUnixS = t + unixOffsetS
        guard let last = lastTotals, let lastS = lastTotalsUnixS else {
            lastTotals = totals
            lastTotalsUnixS = nowUnixS
            return
        }
        guard nowUnixS - lastS >= Self.historyIntervalS else { return }
        let steps = totals.steps - last.steps
        let floorsUp = totals.floorsAscended - last.floorsAscended
        let floorsDown = totals.floorsDescended - last.floorsDescended
        if steps > 0 || floorsUp > 0 || floorsDown > 0 {
            let interval = PedometerInterval(
                startS: lastS, endS: nowUnixS, steps: max(0, steps), distanceM: max(0, totals.distanceM - last.distanceM),
                floorsAscended: max(0, floorsUp), floorsDescended: max(0, floorsDown),
                activeS: min(nowUnixS - lastS, max(0, totals.activeTimeS - last.activeTimeS)))
            do throws(StoreError) { try store.recordPedometer(interval) } catch { fail("history", error, &notes) }
        }
        lastTotals = totals
        lastTotalsUnixS = nowUnixS
    }

    private mutating func deriveDemands(location: Location?, speedMps: Double?, activity: MotionActivity.Kind?, timeS t: Double) {
        demandDerivedS = t
        // Built in a kept buffer: deriving again allocates nothing unless the demands changed. The buffer is moved
        // out (swapped with an empty array, which owns no storage), not copied: emptying a second reference to it
        // would allocate a new buffer every time.
        var out: [Demand] = []
        swap(&out, &demandScratch)
        out.removeAll(keepingCapacity: true)
        defer { demandScratch = out }
        var nearestM: Double?
        if let c = location?.coordinate {
            var index = monitors.startIndex
            while index != monitors.endIndex {
                if let d = monitors.values[index].nearestBoundaryDistanceM(from: c) { nearestM = min(nearestM ?? .infinity, d) }
                index = monitors.index(after: index)
            }
        } else if monitors.values.contains(where: { $0.count > 0 }) {
            nearestM = 0 // no position yet: a fix is needed to decide anything
        }
        if let location = MonitoringDemand.demand(nearestBoundaryM: nearestM, speedMps: speedMps, activity: activity)
            .locationDemand
        {
            out.append(Demand(client: "monitoring", location: location, activity: true, foreground: false))
        }
        if !significantStreams.isEmpty || standingSignificantChange {
            out.append(
                Demand(
                    client: "significant-change",
                    location: LocationDemand(
                        desiredAccuracy: .hundredMeters,
                        distanceFilterM: SignificantChangeDetector.Parameters.default.minimumDistanceM,
                        significantChangeOnly: true, maximumAgeS: SignificantChangeDetector.Parameters.default.minimumIntervalS),
                    activity: true, foreground: false))
        }
        if !visitStreams.isEmpty {
            out.append(
                Demand(
                    client: "visits",
                    location: LocationDemand(
                        desiredAccuracy: .hundredMeters, distanceFilterM: VisitDetector.Parameters.default.stayRadiusM,
                        maximumAgeS: 60),
                    activity: true, foreground: false))
        }
        if out == demands {
            looserSinceS = nil
            return
        }
        if Self.isLooser(out, than: demands) {
            let since = looserSinceS ?? t
            looserSinceS = since
            guard t - since >= Self.relaxationHoldS else { return }
        }
        looserSinceS = nil
        demands = out
        demandsChanged = true
    }

    /// Whether `new` asks for nothing that `old` did not: the same clients, each location demand no finer, no
    /// denser (distance filter) and no fresher (maximum age).
    static func isLooser(_ new: [Demand], than old: [Demand]) -> Bool {
        guard new.count == old.count else { return false }
        for (n, o) in zip(new, old) {
            guard n.client == o.client, n.activity == o.activity, n.foreground == o.foreground, n.heading == o.heading,
                n.altitude == o.altitude
            else { return false }
            switch (n.location, o.location) {
            case (nil, nil), (nil, _?):
                continue
            case (_?, nil):
                return false
            case let (nl?, ol?):
                guard nl.desiredAccuracy >= ol.desiredAccuracy, (nl.distanceFilterM ?? 0) >= (ol.distanceFilterM ?? 0),
                    nl.maximumAgeS >= ol.maximumAgeS, nl.significantChangeOnly || !ol.significantChangeOnly
                else { return false }
            }
        }
        return true
    }

    /// Writes the events the store could not take before (`unsaved`), and the acknowledgement that reached into them.
    /// Leaves them in memory when it fails again.
    private mutating func writeUnsaved(of key: MonitorKey, to store: MonitorStore, notes: inout [String]) {
        do throws(StoreError) {
            if let kept = unsaved[key] {
                // Events of conditions removed meanwhile have nothing left to update.
                let conditions = Set((monitors[key]?.conditions ?? []).map(\.region.id))
                try store.record(kept.filter { conditions.contains($0.conditionId) }, of: key)
                unsaved[key] = nil
                notes.append("monitor \(key): the store took the \(kept.count) event(s) kept in memory")
            }
            if let through = unsavedAcknowledgedThrough[key] {
                try store.acknowledge(through: through, of: key)
                unsavedAcknowledgedThrough[key] = nil
            }
        } catch {
            fail("monitor \(key)", error, &notes)
        }
    }

    private mutating func fail(_ what: String, _ error: StoreError, _ notes: inout [String]) {
        storeFailures += 1
        // One note a minute at most would need a clock; the count says how many.
        if storeFailures <= 3 || storeFailures % 100 == 0 { notes.append("\(what): \(error) (\(storeFailures) store failures)") }
    }

    private static func log<T>(_ item: T, in list: inout [T]) {
        if list.count >= logCapacity { list.removeFirst(list.count / 2) }
        list.append(item)
    }
}
