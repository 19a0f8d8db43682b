import Foundation
import LodestoneCore
import LodestoneLocation
import LodestoneMonitoring
import LodestoneMotion
import LodestoneScheduler
import LodestoneService
import LodestoneStore
import Testing
@testable import LodestoneEngine

/// Monitoring in the session (issue 16): monitors evaluate the fused locations of the simulated board, their events
/// carry Unix times, they survive a new session on the same state directory with nothing lost or repeated, their
/// demand reaches the scheduler, and the history is written as the carrier walks.
@Suite struct SessionMonitoringTests {
    /// hour-errands: 5 min at rest indoors, walks and a wait outdoors, a 10-minute drive of 7.2 km away, a shop, the
    /// drive back. 1 500 s covers the walk out and the drive away.
    static func configuration(durationS: Double, stateDirectory: String? = nil) throws -> SessionConfiguration {
        var c = SessionConfiguration(
            board: try SessionTests.board(), scenario: "hour-errands", seed: 3, durationS: durationS, speed: 0)
        c.stateDirectory = stateDirectory
        return c
    }

    /// Steps until `limitS`, returning the truth's start position at the first step.
    static func run(
        _ core: inout SessionCore, untilS limitS: Double,
        onFirstStep: (inout SessionCore, Double, Double) throws -> Void = { _, _, _ in }
    ) rethrows {
        var first = true
        while let t = core.nextStepTimeS, t <= limitS {
            core.step(at: t)
            if first, let truth = core.runtime.world?.truthSummary {
                first = false
                try onFirstStep(&core, truth.latDeg, truth.lonDeg)
            }
        }
    }

    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lodestone-monitoring-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    @Test func aRegionAroundTheStartIsEnteredThenLeftAndAFarOneDecidedOutsideInUnixTime() throws {
        var core = try SessionCore(configuration: try Self.configuration(durationS: 1500))
        let key = MonitorKey(client: "", name: "places")
        var home: (Double, Double)?
        try Self.run(&core, untilS: 1500) { core, lat, lon in
            home = (lat, lon)
            try core.addCondition(try CircularRegion(id: "home", latitudeDeg: lat, longitudeDeg: lon, radiusM: 300), to: key)
            // 0.5° north: about 55 km away.
            try core.addCondition(
                try CircularRegion(id: "far", latitudeDeg: lat + 0.5, longitudeDeg: lon, radiusM: 1000), to: key)
            // Monitoring alone asks the scheduler for locations, as a background client, from the next step.
            core.step(at: core.nextStepTimeS!)
            #expect(core.state.scheduling?.scheduler.inputs.demand.locationClient == "monitoring")
            #expect(core.monitoringDemands.contains { $0.client == "monitoring" && $0.location != nil && !$0.foreground })
        }
        #expect(home != nil)
        let events = core.monitoringLog.events
        let homeEvents = events.filter { $0.conditionId == "home" }.map { "\($0.previousState.rawValue)→\($0.state.rawValue)" }
        #expect(homeEvents == ["unknown→satisfied", "satisfied→unsatisfied"], "\(events)")
        #expect(events.filter { $0.conditionId == "far" }.map(\.state) == [.unsatisfied])
        #expect(events.map(\.id) == Array(1...UInt64(events.count)))
        let utc0 = try #require(core.state.utcAtStartS)
        for e in events {
            // Unix time: the session's date plus session time, and the location's time is the event's.
            #expect(e.timeS > utc0 && e.timeS < utc0 + 1500 && e.location.timeS == e.timeS, "\(e)")
        }
        // The drive away (the car is ~7 km off at the end) left the region: its location is outside by its accuracy.
        let exit = try #require(events.last { $0.conditionId == "home" })
        let distanceM = try #require(
            exit.location.coordinate.distanceM(to: Coordinate(latitudeDeg: home!.0, longitudeDeg: home!.1)))
        #expect(distanceM > 300 + exit.location.horizontalAccuracyM * 0.5)
        // Without a state directory there is no history.
        #expect(throws: MonitoringError.self) { try core.pedometerHistory(fromUnixS: utc0, toUnixS: utc0 + 1500) }
    }

    /// A stricter demand is handed over at once, a looser one only once it has held for 30 s.
    @Test func aLooserDemandWaitsAndAStricterOneDoesNot() {
        func demand(_ accuracy: DesiredAccuracy, filterM: Double?, ageS: Double) -> [Demand] {
            [
                Demand(
                    client: "monitoring",
                    location: LocationDemand(desiredAccuracy: accuracy, distanceFilterM: filterM, maximumAgeS: ageS),
                    activity: true, foreground: false)
            ]
        }
        let base = demand(.hundredMeters, filterM: 450, ageS: 180)
        #expect(MonitoringRuntime.isLooser(demand(.hundredMeters, filterM: 450, ageS: 226), than: base))
        #expect(MonitoringRuntime.isLooser(demand(.kilometer, filterM: 640, ageS: 180), than: base))
        #expect(!MonitoringRuntime.isLooser(demand(.hundredMeters, filterM: 450, ageS: 120), than: base))
        #expect(!MonitoringRuntime.isLooser(demand(.nearestTenMeters, filterM: 900, ageS: 900), than: base))
        #expect(!MonitoringRuntime.isLooser(demand(.hundredMeters, filterM: nil, ageS: 180), than: base))
        #expect(!MonitoringRuntime.isLooser(base + base, than: base) && !MonitoringRuntime.isLooser([], than: base))
    }

    /// Over the walks and the drive of hour-errands with a region around the start, the monitoring demand re-plans
    /// rarely: at most one change a minute on average (derived every 5 s, it would follow every step otherwise).
    @Test func theMonitoringDemandChangesRarely() throws {
        var core = try SessionCore(configuration: try Self.configuration(durationS: 1500))
        let key = MonitorKey(client: "", name: "places")
        var previous: [Demand] = []
        var changes = 0
        var first = true
        while let t = core.nextStepTimeS, t <= 1500 {
            core.step(at: t)
            if first, let truth = core.runtime.world?.truthSummary {
                first = false
                try core.addCondition(
                    try CircularRegion(id: "home", latitudeDeg: truth.latDeg, longitudeDeg: truth.lonDeg, radiusM: 300), to: key)
            }
            if core.monitoringDemands != previous {
                changes += 1
                previous = core.monitoringDemands
            }
        }
        #expect(changes >= 2 && changes <= 25, "\(changes) demand changes in 1 500 s")
    }

    @Test func aNewSessionOnTheSameStateDirectoryKeepsStatesAndOwesOnlyUnacknowledgedEvents() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = MonitorKey(client: "uid:1000", name: "places")
        var first = try SessionCore(configuration: try Self.configuration(durationS: 1500, stateDirectory: dir))
        try Self.run(&first, untilS: 1500) { first, lat, lon in
            try first.addCondition(try CircularRegion(id: "home", latitudeDeg: lat, longitudeDeg: lon, radiusM: 300), to: key)
            try first.addCondition(
                try CircularRegion(id: "far", latitudeDeg: lat + 0.5, longitudeDeg: lon, radiusM: 1000), to: key)
        }
        let made = first.monitoringLog.events
        #expect(made.count == 3, "\(made)")
        #expect(try first.state.monitoring.pending(of: key) == made)
        #expect(try first.acknowledge(through: 1, of: key) == .acknowledged(count: 1, throughId: 1))
        #expect(try first.acknowledge(through: 1, of: key) == .alreadyAcknowledged(throughId: 1))
        #expect(try first.acknowledge(through: 99, of: key) == .unknownEvent(id: 99, lastEventId: UInt64(made.count)))
        let states = first.state.monitoring.conditions(of: key)
        let utc0 = try #require(first.state.utcAtStartS)
        // The history: the walks of the first 20 minutes were counted, minute by minute, and the activities changed.
        let steps = try first.pedometerHistory(fromUnixS: utc0, toUnixS: utc0 + 1500)
        #expect(steps.steps > 300, "\(steps)")
        let activities = try first.activityHistory(fromUnixS: utc0, toUnixS: utc0 + 1500)
        #expect(activities.contains { $0.kind == .walk } && activities.contains { $0.kind == .drive }, "\(activities)")
        _ = first.finish()

        // A new session (a restarted daemon): the same conditions and states, events 2… still owed, ids go on.
        var second = try SessionCore(configuration: try Self.configuration(durationS: 60, stateDirectory: dir))
        #expect(second.state.monitoring.conditions(of: key) == states)
        #expect(try second.state.monitoring.pending(of: key) == Array(made.dropFirst()))
        #expect(second.state.monitoring.monitors[key]?.nextEventId == UInt64(made.count + 1))
        // The history is still there.
        #expect(try second.pedometerHistory(fromUnixS: utc0, toUnixS: utc0 + 1500) == steps)
        #expect(second.state.monitoring.names(client: "uid:1000") == ["places"])
        #expect(try second.removeMonitor(key))
        #expect(second.state.monitoring.conditions(of: key).isEmpty)
        #expect(try second.state.monitoring.pending(of: key).isEmpty)
    }

    @Test func theSessionsEventStreamGivesWhatIsOwedThenLiveEvents() async throws {
        let session = try Session(configuration: try Self.configuration(durationS: 1500))
        let monitoring = session.monitoring(client: "app")
        // The simulated scenario starts in Zurich (hour-errands); the first fix is a few minutes in.
        try await monitoring.addCondition(
            try CircularRegion(id: "far", latitudeDeg: 48.0, longitudeDeg: 8.5, radiusM: 1000), monitor: "m")
        #expect(try await monitoring.monitorNames() == ["m"])
        #expect(try await monitoring.monitorConditions(monitor: "m").map(\.record.state) == [.unknown])
        await session.start()
        var received: [MonitorEvent] = []
        for await event in monitoring.monitorEvents(monitor: "m") {
            received.append(event)
            #expect(
                try await monitoring.acknowledgeEvents(through: event.id, monitor: "m")
                    == .acknowledged(count: 1, throughId: event.id))
            break
        }
        #expect(received.map(\.state) == [.unsatisfied])
        #expect(try await monitoring.monitorConditions(monitor: "m").map(\.record.state) == [.unsatisfied])
        // Another client's view is its own.
        #expect(try await session.monitoring(client: "other").monitorNames().isEmpty)
        await #expect(throws: MonitoringError.self) {
            try await monitoring.addCondition(
                try CircularRegion(id: "x", latitudeDeg: 48, longitudeDeg: 8, radiusM: 1), monitor: "")
        }
        await session.stop()
        await session.waitUntilEnded()
    }
}
