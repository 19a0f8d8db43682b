import LodestoneCore
import LodestoneSimulation
import Testing

/// The calibration motions of the simulated person (`BoardHandling`) keep the trajectory physically
/// consistent: the gyroscope truth is the rate of the attitude, and the motions do what the guides ask.
@Suite struct BoardHandlingTests {
    static let magnetometerMotion = Scenario.named("calibrate-mag")!
    static let accelerometerMotion = Scenario.named("calibrate-accel")!

    @Test(arguments: ["calibrate-mag", "calibrate-accel"])
    func integratingTheGyroReproducesTheAttitude(_ name: String) {
        let scenario = Scenario.named(name)!
        var generator = TrajectoryGenerator(scenario: scenario, seed: 3)
        let dt = 0.002
        let first = generator.sample(atTimeS: 0)
        var attitude = first.boardToENU
        var previousRate = first.angularVelocityBoardRadS
        var worstRad = 0.0
        for k in 1...Int((scenario.totalDurationS + 2) / dt) {
            let s = generator.sample(atTimeS: Double(k) * dt)
            let rate = s.angularVelocityBoardRadS
            let rotation = (previousRate + rate) * (dt / 2) + previousRate.cross(rate) * (dt * dt / 12)
            attitude = (attitude * Quaternion(rotationVector: rotation)).normalized
            previousRate = rate
            worstRad = max(worstRad, attitude.angularDistanceRad(to: s.boardToENU))
        }
        #expect(Angle.degrees(fromRadians: worstRad) < 0.05, "worst \(Angle.degrees(fromRadians: worstRad))°")
    }

    /// The twirl turns the Earth's field through every direction of the board's sphere (all 64 sectors of the
    /// calibration's coverage, checked here with the same equal-area split), twirls at about the rate asked,
    /// and ends with the board back where it started, at rest.
    @Test func theTwirlSweepsTheFieldOverTheWholeSphereAndEndsAtRest() {
        var generator = TrajectoryGenerator(scenario: Self.magnetometerMotion, seed: 1)
        let start = generator.sample(atTimeS: 0)
        var sectors = Set<Int>()
        var fastest = 0.0
        var t = 3.0
        while t <= 48 {
            let s = generator.sample(atTimeS: t)
            let f = s.magneticFieldBoardMicroTesla!.normalized!
            let band = min(7, Int((f.z + 1) / 2 * 8))
            var longitude = Double.atan2(y: f.y, x: f.x)
            if longitude < 0 { longitude += 2 * Double.pi }
            sectors.insert(band * 8 + min(7, Int(longitude / (2 * Double.pi) * 8)))
            fastest = max(fastest, s.angularVelocityBoardRadS.length)
            t += 0.025
        }
        #expect(sectors.count == 64)
        #expect(Angle.degrees(fromRadians: fastest) > 140 && Angle.degrees(fromRadians: fastest) < 200)
        let end = generator.sample(atTimeS: 50)
        #expect(end.boardToENU.angularDistanceRad(to: start.boardToENU) < 1e-9)
        #expect(end.angularVelocityBoardRadS.length < 1e-12)
        #expect(end.velocityENUMps.length < 1e-12)
    }

    /// Six faces: in the middle of each hold the accelerometer's truth points along +z, +x, −z, −x, +y, −y in
    /// turn (the board rests on a level table: exactly), at rest; then face up again.
    @Test func sixFacesPutEachAxisUpInTurn() {
        var generator = TrajectoryGenerator(scenario: Self.accelerometerMotion, seed: 1)
        let expected: [Vector3] = [
            Vector3(0, 0, 1), Vector3(1, 0, 0), Vector3(0, 0, -1), Vector3(-1, 0, 0), Vector3(0, 1, 0),
            Vector3(0, -1, 0), Vector3(0, 0, 1)
        ]
        for (k, up) in expected.enumerated() {
            let s = generator.sample(atTimeS: 2 + Double(k) * 6.5 + 2)
            #expect((s.specificForceBoardMps2 / s.gravityMps2 - up).length < 1e-9, "pose \(k)")
            #expect(s.angularVelocityBoardRadS.length < 1e-12)
        }
    }
}
