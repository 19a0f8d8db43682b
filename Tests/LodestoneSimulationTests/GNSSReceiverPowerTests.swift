import LodestoneCore
import LodestoneSimulation
import Testing

/// The simulated receiver's power model (`GNSSSimulator.setMode`): off gives nothing, a start's time to first fix
/// depends on how old its ephemerides are (u-blox NEO-M8 data sheet: hot 1 s, cold 26 s; warm 25 s), power save gives a
/// fix per period while cycling acquiring → tracking → idle, and an outage keeps a switched-on receiver acquiring.
@Suite struct GNSSReceiverPowerTests {
    /// Runs `gnss` over `scenario` from `fromS` to `toS` in 0.1 s steps, calling `control` before each step.
    /// Returns the fixes and the time spent in each power state, s.
    static func run(
        _ gnss: inout GNSSSimulator, _ truth: inout TrajectoryGenerator, fromS: Double, toS: Double,
        control: (Double, inout GNSSSimulator) -> Void = { _, _ in }
    )
        -> (fixes: [GNSSFix], stateS: [GNSSPowerState: Double])
    {
        var fixes: [GNSSFix] = []
        var stateS: [GNSSPowerState: Double] = [:]
        var k = Int((fromS * 10).rounded())
        while Double(k) / 10 < toS {
            let t = Double(k) / 10
            control(t, &gnss)
            if let f = gnss.fix(for: truth.sample(atTimeS: t)) { fixes.append(f) }
            stateS[gnss.powerState, default: 0] += 0.1
            k += 1
        }
        return (fixes, stateS)
    }

    static func scenario(_ segments: [ScenarioSegment]) -> Scenario {
        var s = Scenario.named("stationary")!
        s.segments = segments
        return s
    }

    @Test func settingTheDefaultModeChangesNoFix() {
        let scenario = Scenario.named("mixed-day")!
        var t1 = TrajectoryGenerator(scenario: scenario, seed: 5), t2 = TrajectoryGenerator(scenario: scenario, seed: 5)
        var a = GNSSSimulator(seed: 5), b = GNSSSimulator(seed: 5)
        b.setMode(.continuous(rateHz: 1), timeS: 0)
        let ra = Self.run(&a, &t1, fromS: 0, toS: scenario.totalDurationS)
        let rb = Self.run(&b, &t2, fromS: 0, toS: scenario.totalDurationS)
        #expect(ra.fixes == rb.fixes)
        #expect(ra.fixes.count > 300)
    }

    @Test func offGivesNoFixAndAShortOffHotStartsInAboutOneSecond() throws {
        var truth = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 1)
        var gnss = GNSSSimulator(seed: 1)
        let r = Self.run(&gnss, &truth, fromS: 0, toS: 800) { t, g in
            if abs(t - 100) < 1e-6 { g.setMode(.off, timeS: t) }
            if abs(t - 700.3) < 1e-6 { g.setMode(.continuous(rateHz: 1), timeS: t) }
        }
        #expect(!r.fixes.contains { $0.timeS > 100 && $0.timeS < 700.3 })
        #expect(gnss.startKind(atTimeS: 700) == .hot)
        let first = try #require(r.fixes.first { $0.timeS > 700 })
        // Hot start: 1 s TTFF, then the next whole-second epoch.
        #expect(first.timeS - 700.3 >= 1 - 1e-9 && first.timeS - 700.3 <= 2 + 1e-9, "\(first.timeS)")
        // A hot start knows its satellites: a 3D fix at once.
        #expect(first.fixMode == .threeDimensional)
        #expect(abs((r.stateS[.off] ?? 0) - 600.3) < 0.15, "\(r.stateS)")
        #expect(gnss.powerState == .tracking)
    }

    @Test func offBeyondEphemerisValidityWarmStartsInAboutTwentyFiveSeconds() throws {
        var truth = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 2)
        var gnss = GNSSSimulator(seed: 2)
        _ = Self.run(&gnss, &truth, fromS: 0, toS: 60) // tracks 58 s: fresh ephemerides
        gnss.setMode(.off, timeS: 60)
        let onS = 60 + 5 * 3600.0
        #expect(gnss.startKind(atTimeS: onS) == .warm)
        gnss.setMode(.continuous(rateHz: 1), timeS: onS)
        let r = Self.run(&gnss, &truth, fromS: onS, toS: onS + 60)
        let first = try #require(r.fixes.first)
        #expect(first.timeS - onS >= 25 - 1e-9 && first.timeS - onS <= 26 + 1e-9, "\(first.timeS - onS)")
        // The first fix after the start carries the reacquisition error: fewer satellites, worse accuracy.
        let last = try #require(r.fixes.last)
        #expect(first.satellitesUsed < last.satellitesUsed)
        #expect(first.horizontalAccuracyM > 2 * last.horizontalAccuracyM)
        #expect(abs((r.stateS[.acquiring] ?? 0) - 25) <= 1.1, "\(r.stateS)")
    }

    @Test func aReceiverWithoutEphemeridesColdStartsInAboutTwentySixSeconds() throws {
        var truth = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 3)
        var gnss = GNSSSimulator(seed: 3, power: GNSSSimulator.PowerParameters(startsWithValidEphemerides: false))
        gnss.setMode(.off, timeS: 0)
        #expect(gnss.startKind(atTimeS: 10) == .cold)
        gnss.setMode(.continuous(rateHz: 1), timeS: 10)
        let r = Self.run(&gnss, &truth, fromS: 10, toS: 100)
        let first = try #require(r.fixes.first)
        #expect(first.timeS - 10 >= 26 - 1e-9 && first.timeS - 10 <= 27 + 1e-9, "\(first.timeS)")
        // After 30 s of tracking the ephemerides are fresh: the next start is hot.
        #expect(gnss.startKind(atTimeS: 100) == .hot)
    }

    @Test func powerSaveGivesOneFixPerPeriodAndSleepsBetween() {
        var truth = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 4)
        var gnss = GNSSSimulator(seed: 4)
        let r = Self.run(&gnss, &truth, fromS: 0, toS: 1800) { t, g in
            if abs(t - 10) < 1e-6 { g.setMode(.powerSave(updatePeriodS: 60), timeS: t) }
        }
        let saving = r.fixes.filter { $0.timeS > 10 }
        // Fixes on the 60 s grid: 60, 120, …, 1740.
        #expect(saving.count == 29, "\(saving.map(\.timeS))")
        #expect(saving.allSatisfy { abs($0.timeS.truncatingRemainder(dividingBy: 60)) < 1e-6 })
        // Each cycle: ≈ 1 s acquiring (hot start), ≈ 1 s tracking, the rest idle.
        let idle = r.stateS[.powerSaveIdle] ?? 0, acquiring = r.stateS[.acquiring] ?? 0, tracking = r.stateS[.tracking] ?? 0
        #expect(idle > 0.9 * 1790, "\(r.stateS)")
        #expect(acquiring > 0.8 * 29 && acquiring < 1.3 * 29 + 2, "\(r.stateS)")
        #expect(tracking > 0.8 * 29 && tracking < 1.3 * 29 + 12, "\(r.stateS)")
        // Hot starts with one second of tracking: accurate 3D fixes.
        #expect(saving.allSatisfy { $0.fixMode == .threeDimensional && $0.horizontalAccuracyM < 6 })
    }

    @Test func powerSaveRefreshesEphemeridesBeforeTheyExpire() {
        var truth = TrajectoryGenerator(scenario: Scenario.named("stationary")!, seed: 6)
        var gnss = GNSSSimulator(seed: 6)
        gnss.setMode(.powerSave(updatePeriodS: 1800), timeS: 0)
        let r = Self.run(&gnss, &truth, fromS: 0, toS: 10 * 3600)
        // Entering power save without a position, the receiver gets its first fix at once (hot start), then one on each
        // grid instant 1800 … 34200.
        #expect(r.fixes.count == 20, "\(r.fixes.map(\.timeS))")
        #expect(r.fixes.first.map { $0.timeS <= 2 } == true)
        #expect(gnss.startKind(atTimeS: 10 * 3600) == .hot)
        #expect(r.fixes.allSatisfy { $0.fixMode == .threeDimensional })
    }

    @Test func anOutageKeepsAPowerSavingReceiverAcquiringWithoutFixes() {
        let scenario = Self.scenario([
            ScenarioSegment(.stationary, durationS: 100),
            ScenarioSegment(.stationary, durationS: 200, gnssOutage: true),
            ScenarioSegment(.stationary, durationS: 300)
        ])
        var truth = TrajectoryGenerator(scenario: scenario, seed: 7)
        var gnss = GNSSSimulator(seed: 7)
        var statesInOutage: [Double: GNSSPowerState] = [:]
        var fixes: [GNSSFix] = []
        gnss.setMode(.powerSave(updatePeriodS: 60), timeS: 0)
        var k = 0
        while Double(k) / 10 < 600 {
            let t = Double(k) / 10
            let s = truth.sample(atTimeS: t)
            if let f = gnss.fix(for: s) { fixes.append(f) }
            if s.gnssOutage { statesInOutage[t] = gnss.powerState }
            k += 1
        }
        #expect(!fixes.contains { $0.timeS >= 100 && $0.timeS < 300 })
        // Woken for the 120 s fix (at ≈ 118 s), it searches for the rest of the outage.
        #expect(statesInOutage.filter { $0.key >= 119 }.allSatisfy { $0.value == .acquiring })
        #expect(statesInOutage.filter { $0.key < 117 }.allSatisfy { $0.value == .powerSaveIdle })
        // Signal back at 300 s: a fix within the hot start's second (plus the grid), then the 60 s grid again.
        let after = fixes.filter { $0.timeS >= 300 }
        #expect(after.first.map { $0.timeS <= 302 } == true, "\(after.map(\.timeS))")
        #expect(after.dropFirst().allSatisfy { abs($0.timeS.truncatingRemainder(dividingBy: 60)) < 1e-6 })
    }

    @Test func continuousOutageStaysAcquiringAndReacquiresAsBefore() {
        let scenario = Self.scenario([
            ScenarioSegment(.stationary, durationS: 50),
            ScenarioSegment(.stationary, durationS: 50, gnssOutage: true),
            ScenarioSegment(.stationary, durationS: 50)
        ])
        var truth = TrajectoryGenerator(scenario: scenario, seed: 8)
        var gnss = GNSSSimulator(seed: 8)
        var acquiringInOutage = true
        var k = 0
        var firstAfter: Double?
        while Double(k) / 10 < 150 {
            let t = Double(k) / 10
            let s = truth.sample(atTimeS: t)
            let f = gnss.fix(for: s)
            if s.gnssOutage, t > 51, gnss.powerState != .acquiring { acquiringInOutage = false }
            if t >= 100, f != nil, firstAfter == nil { firstAfter = t }
            k += 1
        }
        #expect(acquiringInOutage)
        // The outage's reacquisition delay (2 s), not a start's TTFF.
        #expect(firstAfter.map { $0 >= 101.5 && $0 <= 103.5 } == true, "\(String(describing: firstAfter))")
    }
}
