import LodestoneCore
import LodestoneSimulation
import Testing
@testable import LodestoneMotion

/// The whole estimator on the simulated board (register-level chips read by the real drivers), scenario by
/// scenario. The full table over seeds and both barometers is benchmarks/accuracy/results/altitude.md.
@Suite struct MotionEstimatorTests {
    struct Outcome {
        var floorsUp = 0, floorsDown = 0
        var trueUp = 0, trueDown = 0
        var relativeErrors: [Double] = []
        var activities: [(Double, MotionActivity.Kind, ActivityKind)] = []
    }

    func run(_ name: String, noise: SensorNoise = .consumerMEMS, durationS: Double? = nil, seed: UInt64 = 1) throws -> Outcome {
        var e = MotionEstimator()
        var o = Outcome()
        var previousFloor = 0
        var reference: Double?
        let scenario = try #require(Scenario.named(name))
        try SimulatedRun(scenario: scenario, noise: noise, seed: seed).run(durationS: durationS) { reading, fix, truth in
            let changes = e.process(reading: reading, fix: fix, boardToENU: nil)
            if truth.floor != previousFloor {
                if truth.activity == .walk {
                    if truth.floor > previousFloor {
                        o.trueUp += truth.floor - previousFloor
                    } else {
                        o.trueDown += previousFloor - truth.floor
                    }
                }
                previousFloor = truth.floor
            }
            if changes.contains(.altitude), let rel = e.altitude.relativeAltitudeM {
                // Against the barometric truth: the true pressure through the ISA (weather included).
                let h = StandardAtmosphere.altitudeM(pressurePa: truth.pressurePa)
                if reference == nil { reference = h - rel }
                o.relativeErrors.append(rel - (h - (reference ?? h)))
            }
            if changes.contains(.activityEvaluated) { o.activities.append((reading.timeS, e.activity.kind, truth.activity)) }
        }
        o.floorsUp = e.pedometerData.floorsAscended
        o.floorsDown = e.pedometerData.floorsDescended
        return o
    }

    @Test func everyFloorOfTheStairsScenarioIsCounted() throws {
        let o = try run("stairs")
        #expect(o.trueUp == 5 && o.trueDown == 2)
        #expect(o.floorsUp == o.trueUp && o.floorsDown == o.trueDown, "counted \(o.floorsUp) up, \(o.floorsDown) down")
    }

    @Test func liftRidesAreNoFloors() throws {
        let o = try run("lift")
        #expect(o.floorsUp == 0 && o.floorsDown == 0)
    }

    @Test func weatherDriftIsNoFloor() throws {
        let o = try run("weather-drift", durationS: 400)
        #expect(o.floorsUp == 0 && o.floorsDown == 0)
    }

    /// Target: relative altitude noise ≤ 5 cm RMS at rest with a BMP388-class barometer.
    @Test func relativeAltitudeAtRestIsQuietWithABMP388ClassBarometer() throws {
        let o = try run("stationary", noise: .consumerMEMSWithBMP388, durationS: 180)
        let rms = (o.relativeErrors.map { $0 * $0 }.reduce(0, +) / Double(o.relativeErrors.count)).squareRoot()
        #expect(rms <= 0.05, "RMS \(rms) m")
    }

    /// The activity on a scenario the model never saw (simulated), and how fast it follows the truth.
    @Test func theActivityFollowsTheSimulatedWalkAndDrive() throws {
        for name in ["walk", "drive"] {
            let o = try run(name)
            let scored = o.activities.filter { $0.0 > 10 }
            let right = scored.filter { $0.1.rawValue == $0.2.rawValue }.count
            #expect(Double(right) / Double(scored.count) >= 0.75, "\(name): \(right) of \(scored.count)")
        }
    }
}
