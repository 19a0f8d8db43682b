import Foundation
import LodestoneCore
import LodestoneScheduler
import LodestoneWire
import Synchronization
import Testing
@testable import LodestoneEngine
@testable import LodestoneCLI
import LodestoneEvaluation

/// The session as a library: subscriptions carry their demand to the scheduler while they are iterated, a slow
/// consumer never holds the board up, and one-shot requests time out.
@Suite struct SessionTests {
    static func board() throws -> BoardDescription { try BoardDescription.load(path: RunJobTests.simulatedBoardPath) }

    /// Waits (polling the session) until `condition` holds, for at most `wallS` seconds of wall time.
    static func wait(_ session: Session, wallS: Double = 20, until condition: @Sendable (Session) async -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(wallS)
        while Date() < deadline {
            if await condition(session) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// The loop driven directly, so that session time is exact whatever the machine's load: a location stream joins,
    /// the receiver runs, the stream's consumer goes away (its iterator is dropped) at t0, and the receiver is
    /// planned off within one second of session time.
    @Test func theLastLocationStreamEndingTurnsTheReceiverOffWithinOneSecond() throws {
        // stop-and-go starts with a 90 s walk in the open.
        var core = try SessionCore(
            configuration: SessionConfiguration(
                board: try Self.board(), scenario: "stop-and-go", durationS: 120,
                speed: 0))
        func stepUntil(_ limitS: Double, _ done: (SessionCore) -> Bool) -> Bool {
            while let t = core.nextStepTimeS, t <= limitS {
                core.step(at: t)
                if done(core) { return true }
            }
            return false
        }
        // No client: no receiver.
        #expect(stepUntil(2) { $0.state.scheduling?.applied != nil })
        #expect(core.state.scheduling?.applied?.gnss?.mode == .off)
        let updates = core.locationUpdates(.fitness)
        var iterator: Updates<LocationUpdate>.Iterator? = updates.makeAsyncIterator()
        #expect(iterator != nil)
        #expect(stepUntil(30) { ($0.state.scheduling?.applied?.gnss?.mode ?? .off) != .off && $0.state.lastFixTimeS != nil })
        #expect(stepUntil(40) { $0.state.timeS >= 20 })
        #expect(core.state.scheduling?.applied?.gnss?.mode != .off, "the receiver runs for the stream")
        #expect(core.state.scheduling?.scheduler.inputs.demand.location != nil)
        // The consumer goes away.
        iterator = nil
        let t0 = core.state.timeS
        #expect(stepUntil(t0 + 5) { $0.state.scheduling?.applied?.gnss?.mode == .off })
        let off = try #require(core.state.scheduling?.appliedTimeS)
        #expect(off - t0 <= 1.0, "receiver planned off \(off - t0) s after the last location stream ended")
        #expect(core.state.scheduling?.scheduler.inputs.demand.location == nil)
    }

    /// The same through the actor: ending a `for await` loop over locations withdraws the demand and turns the
    /// receiver off.
    @Test func endingALocationLoopWithdrawsItsDemand() async throws {
        let session = try Session(
            configuration: SessionConfiguration(
                board: try Self.board(), scenario: "stop-and-go", durationS: 600,
                speed: 10))
        await session.start()
        var fixes = 0
        var modeWhileIterating: GNSSReceiverMode?
        for await update in session.locationUpdates(.fitness) {
            if update.location != nil { fixes += 1 }
            if fixes == 5 {
                modeWhileIterating = await session.appliedPlan?.gnss?.mode
                break
            }
        }
        #expect(fixes == 5)
        #expect(modeWhileIterating != nil && modeWhileIterating != .off, "the receiver ran for the stream")
        let off = await Self.wait(session) { s in
            let mode = await s.appliedPlan?.gnss?.mode
            let demand = await s.demand
            return mode == .off && demand?.location == nil
        }
        #expect(off)
        #expect(await session.subscriberCount == 0)
        await session.stop()
    }

    @Test func aStreamsDemandIsRegisteredWhileItIsIteratedAndWithdrawnWhenItsTaskIsCancelled() async throws {
        let session = try Session(
            configuration: SessionConfiguration(board: try Self.board(), scenario: "walk", durationS: 600, speed: 10))
        await session.start()
        #expect(await Self.wait(session, wallS: 5) { await $0.timeS > 0.5 })
        #expect(await session.demand?.heading == nil)
        let headings = session.headingUpdates(filterDeg: 5)
        let received = Atomic<Int>(0)
        let consumer = Task {
            for await _ in headings { received.add(1, ordering: .relaxed) }
        }
        #expect(await Self.wait(session) { await $0.demand?.heading?.headingFilterDeg == 5 })
        #expect(await Self.wait(session) { _ in received.load(ordering: .relaxed) > 0 })
        consumer.cancel()
        #expect(await Self.wait(session) { await $0.demand?.heading == nil })
        #expect(await session.subscriberCount == 0)
        await session.stop()
    }

    @Test func severalStreamsOfOneKindEachGetTheirOwnFilter() async throws {
        let session = try Session(
            configuration: SessionConfiguration(board: try Self.board(), scenario: "walk", durationS: 200, speed: 0))
        let fine = session.headingUpdates(filterDeg: 0)
        let coarse = session.headingUpdates(filterDeg: 20)
        async let fineCount = fine.reduce(0) { n, _ in n + 1 }
        async let coarseHeadings = coarse.reduce(into: [HeadingUpdate]()) { $0.append($1) }
        // Both streams are iterating (registered) before the loop starts.
        try await Task.sleep(for: .milliseconds(100))
        await session.start()
        let (f, c) = await (fineCount, coarseHeadings)
        #expect(c.count >= 3, "the walk turns 90° twice in 200 s")
        #expect(f > 10 * c.count)
        // Each coarse update differs from the one before by at least the filter.
        for (a, b) in zip(c, c.dropFirst())
        where a.calibrationNeeded == b.calibrationNeeded && (a.headingAccuracyDeg >= 0) == (b.headingAccuracyDeg >= 0) {
            let change = abs(Angle.wrap180(b.magneticHeadingDeg - a.magneticHeadingDeg))
            #expect(change >= 20 - 1e-9)
        }
    }

    @Test func aHeadingStreamKeepsToItsRate() async throws {
        let session = try Session(
            configuration: SessionConfiguration(board: try Self.board(), scenario: "walk", durationS: 60, speed: 0))
        let tenHz = session.headingUpdates(filterDeg: 0, rateHz: 10)
        let unlimited = session.headingUpdates(filterDeg: 0)
        async let ten = tenHz.reduce(into: [Double]()) { $0.append($1.timeS) }
        async let full = unlimited.reduce(into: [Double]()) { $0.append($1.timeS) }
        try await Task.sleep(for: .milliseconds(100))
        await session.start()
        let (a, b) = await (ten, full)
        // The filter passes every heading: the rate alone decides (the default and most is 20 a second).
        let spanS = try #require(a.last) - (try #require(a.first))
        #expect(spanS > 50)
        #expect(abs(Double(a.count - 1) / spanS - 10) < 0.5, "\(a.count) headings in \(spanS) s")
        let fullSpanS = try #require(b.last) - (try #require(b.first))
        #expect(abs(Double(b.count - 1) / fullSpanS - 20) < 1, "\(b.count) headings in \(fullSpanS) s")
        // On a grid of 0.1 s (a late heading does not shift the later ones): one second holds 10, or 11 when a late
        // heading and the next slot both fall in it.
        let busiest = a.indices.map { i in a[i...].prefix { $0 < a[i] + 1 - 1e-9 }.count }.max() ?? 0
        #expect(busiest <= 11, "\(busiest) headings within one second")
    }

    @Test func aSlowConsumerNeverHoldsTheSessionUpAndKnowsWhatItMissed() async throws {
        let session = try Session(
            configuration: SessionConfiguration(
                board: try Self.board(), scenario: "walk", durationS: 5, speed: 0,
                scheduling: nil))
        let samples = session.sensorUpdates(["imu"], options: SubscriptionOptions(buffering: .newest(4)))
        let taken = Atomic<Int>(0)
        let consumer = Task {
            var received: [SensorSample] = []
            for await s in samples {
                received.append(s)
                taken.add(1, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(50))
            }
            return received
        }
        try await Task.sleep(for: .milliseconds(100))
        await session.start()
        await session.waitUntilEnded()
        let takenWhenTheSessionEnded = taken.load(ordering: .relaxed)
        let received = await consumer.value
        // 501 IMU readings in 5 s; a consumer taking 50 ms each would need 25 s: the session did not wait for it.
        #expect(takenWhenTheSessionEnded < 250, "the consumer had taken \(takenWhenTheSessionEnded) when the session ended")
        #expect(samples.droppedCount > 400)
        #expect(received.count + samples.droppedCount == 501)
        // The newest are kept: the last one received is the last one read.
        #expect(abs((received.last?.reading.timeS ?? 0) - 5) < 1e-6)
    }

    @Test func requestLocationAnswersWithOneMeetingTheAccuracy() async throws {
        let session = try Session(
            configuration: SessionConfiguration(board: try Self.board(), scenario: "walk", durationS: 120, speed: 0))
        async let answer = session.requestLocation(desiredAccuracy: .nearestTenMeters, timeoutS: 60)
        try await Task.sleep(for: .milliseconds(100))
        await session.start()
        let update = try await answer
        let location = try #require(update.location)
        #expect(location.horizontalAccuracyM <= 10)
        #expect(update.timeS < 60)
        // The request's demand ends with it.
        #expect(await Self.wait(session) { await $0.demand?.location == nil })
        await session.stop()
    }

    @Test func requestLocationIndoorsTimesOutInSessionTime() async throws {
        let session = try Session(
            configuration: SessionConfiguration(
                board: try Self.board(), scenario: "stairs-and-lift", durationS: 120,
                speed: 0))
        async let answer = session.requestLocation(desiredAccuracy: .best, timeoutS: 15)
        try await Task.sleep(for: .milliseconds(100))
        await session.start()
        do {
            let u = try await answer
            Issue.record("indoors without GNSS a location came: \(u)")
        } catch {
            #expect(error as? SessionError == .locationUnavailable(timeoutS: 15))
        }
        let t = await session.timeS
        #expect(t >= 15)
        await session.stop()
    }

    @Test func everyKindOfStreamDeliversOnAWalk() async throws {
        let session = try Session(
            configuration: SessionConfiguration(board: try Self.board(), scenario: "walk", durationS: 90, speed: 0))
        let lossless = SubscriptionOptions(buffering: .lossless(64))
        async let motions = session.deviceMotionUpdates(rateHz: 10, options: lossless).reduce(into: [DeviceMotion]()) {
            $0.append($1)
        }
        async let activities = session.activityUpdates(options: lossless).reduce(into: [ActivityUpdate]()) { $0.append($1) }
        async let steps = session.pedometerUpdates(options: lossless).reduce(into: [PedometerUpdate]()) { $0.append($1) }
        async let altitudes = session.altitudeUpdates(rateHz: 1, options: lossless).reduce(into: [AltitudeUpdate]()) {
            $0.append($1)
        }
        try await Task.sleep(for: .milliseconds(200))
        await session.start()
        let (m, a, p, h) = await (motions, activities, steps, altitudes)
        // Device motion at 10 Hz: gravity has g's length and user acceleration is small on average.
        #expect(m.count > 800 && m.count <= 901)
        for d in m.suffix(100) {
            #expect(abs(d.gravityMps2.length - PhysicalConstants.standardGravityMps2) < 1e-6)
            #expect(abs(d.attitude.norm - 1) < 1e-6)
        }
        let meanUser = m.suffix(600).map(\.userAccelerationMps2.length).reduce(0, +) / 600
        #expect(meanUser < 3)
        // The walk is recognised; steps grow and pause/resume bracket the walk.
        #expect(a.contains { $0.activity.kind == .walk })
        let counts = p.map(\.data.steps)
        #expect(counts == counts.sorted())
        #expect((counts.last ?? 0) > 80)
        #expect(p.contains { $0.event == .resume })
        // Altitude once a second with the pressure; relative altitude starts at 0.
        #expect(h.count >= 80)
        #expect(h.compactMap(\.relativeAltitudeM).first == 0)
        #expect(h.allSatisfy { ($0.pressurePa ?? 0) > 80_000 && ($0.pressurePa ?? 0) < 110_000 })
    }
}

/// `lodestone run --json` as a client of the session: every fused class, at its rate, agreeing with the simulator's
/// truth.
@Suite struct RunJSONFusedClassesTests {
    func decode(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    @Test func everyFusedClassIsOnTheWireAndAgreesWithTheTruth() async throws {
        let board = try BoardDescription.load(path: RunJobTests.simulatedBoardPath)
        var options = RunOptions(board: board, scenario: "walk", durationS: 200, seed: 4, json: true, speed: 0)
        options.scheduling = SchedulingConfiguration(demands: [Demand.everything(client: "run")], battery: .none)
        let out = CapturedOutput(), err = CapturedOutput()
        #expect(try await RunJob(options: options).run(output: out, errors: err) == 0)
        let messages = out.lines.map(decode)
        let classes = Set(messages.compactMap { $0["class"] as? String })
        let expected = Wire.Class.defaultSet.subtracting([.degraded, .recovered]).map(\.rawValue)
        #expect(classes.isSuperset(of: expected), "missing: \(Set(expected).subtracting(classes))")
        #expect(!classes.contains("SAMPLE"), "SAMPLE is opt-in")
        func of(_ c: String) -> [[String: Any]] { messages.filter { $0["class"] as? String == c } }
        // Every message carries the session time and, on the simulated board, the scenario's UTC.
        for m in messages { #expect(m["t_s"] is Double || m["t_s"] is Int) }
        #expect(messages.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") ?? ($0["class"] as? String == "LOCATION") })

        // Periodic classes once a second.
        #expect((195...201).contains(of("HEADING").count))
        #expect((195...201).contains(of("ATTITUDE").count))
        #expect((195...201).contains(of("PEDOMETER").count))

        // Heading: the true heading agrees with the truth within its stated accuracy at most seconds once settled. The
        // walk carries the board pitched -80° in a trouser pocket, where the heading of its y axis is ill-conditioned and
        // the filter says so (accuracy about 50°). Run without the board's calibration file: with it, the simulated
        // board's heading is 6–10° off at a claimed 3–4° (issue 17), before and after the session.
        var truthHeading: [Double: Double] = [:]
        for s in of("STATUS") {
            if let t = s["t_s"] as? Double, let truth = s["truth"] as? [String: Any], let h = truth["heading_deg"] as? Double {
                truthHeading[t] = h
            }
        }
        var within = 0, compared = 0
        for h in of("HEADING") {
            guard let t = h["t_s"] as? Double, t >= 20, let trueDeg = h["true_deg"] as? Double,
                let acc = h["accuracy_deg"] as? Double,
                let truth = truthHeading[t]
            else { continue }
            compared += 1
            if abs(Angle.wrap180(trueDeg - truth)) <= acc { within += 1 }
        }
        #expect(compared > 150)
        #expect(Double(within) >= 0.9 * Double(compared), "heading within its accuracy in \(within) of \(compared) seconds")

        // Attitude: a unit quaternion whose yaw is the magnetic heading.
        for a in of("ATTITUDE") {
            let q = ["qw", "qx", "qy", "qz"].compactMap { a[$0] as? Double }
            #expect(q.count == 4 && abs(q.map { $0 * $0 }.reduce(0, +) - 1) < 1e-6)
        }

        // Activity: a walk is called a walk (the scenario walks from 10 s to the end).
        let activities = of("ACTIVITY").filter { ($0["t_s"] as? Double ?? 0) >= 30 }
        #expect(!activities.isEmpty)
        let walks = activities.filter { $0["activity"] as? String == "walk" }.count
        #expect(Double(walks) >= 0.8 * Double(activities.count), "\(activities.map { $0["activity"] as? String ?? "?" })")

        // Steps only grow, and a 190 s walk counts a few hundred.
        let steps = of("PEDOMETER").compactMap { $0["steps"] as? Int }
        #expect(steps == steps.sorted())
        #expect((200...400).contains(steps.last ?? 0), "\(steps.last ?? 0) steps")
        #expect(of("PEDOMETER").last?["cadence_spm"] as? Double ?? 0 > 80)

        // Altitude: the walk is flat; the pressure is the simulated air's.
        let altitudes = of("ALTITUDE")
        #expect(altitudes.count >= 190)
        for a in altitudes.suffix(150) {
            #expect(abs(a["relative_altitude_m"] as? Double ?? 99) < 3)
            #expect((80_000...110_000).contains(a["pressure_pa"] as? Double ?? 0))
        }
    }
}
