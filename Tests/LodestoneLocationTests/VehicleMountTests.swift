import LodestoneCore
@testable import LodestoneLocation
import RealModule
import Testing

/// A board fixed in a car at an arbitrary attitude, driven on flat ground: the specific force in board axes at
/// 100 Hz (with white noise and a constant bias) and the receiver's ENU velocity at 1 Hz, from a known
/// along-track acceleration and turn-rate profile. Vehicle frame as the board's: x right, y forward, z up.
struct MountedDrive {
    /// Board → vehicle rotation: the board is yawed by 35° and tilted by 12° in the car.
    let boardToVehicle =
        Quaternion(axis: Vector3(0, 0, 1), angleRad: 35 * .pi / 180)
        * Quaternion(axis: Vector3(1, 0.4, 0), angleRad: 12 * .pi / 180)
    let gravityMps2 = 9.81
    let biasBoardMps2 = Vector3(0.08, -0.05, 0.1)
    var speedMps = 0.0
    /// Heading, rad clockwise from north (the course of a car without side slip).
    var headingRad = 0.3
    var timeS = 0.0
    var noise = DeterministicNoise(seed: 7)

    var trueForwardBoard: Vector3 { boardToVehicle.conjugate.rotate(Vector3(0, 1, 0)) }
    var trueUpBoard: Vector3 { boardToVehicle.conjugate.rotate(Vector3(0, 0, 1)) }

    /// The profile: along-track acceleration (m/s²) and turn rate (rad/s, counter-clockwise about up) at `t`.
    static func profile(_ t: Double) -> (alongMps2: Double, turnRadS: Double) {
        let cycle = t.truncatingRemainder(dividingBy: 60)
        switch cycle {
        case 5..<13: return (1.5, 0) // pull away to 12 m/s
        case 20..<30: return (0, Double.pi / 2 / 10) // a 90° left turn
        case 35..<41: return (-1.2, 0) // brake to ~4.8 m/s
        case 45..<50: return (0, -Double.pi / 3 / 5) // a 60° right turn
        case 52..<56: return (-1.2, 0) // brake to a stop
        default: return (0, 0)
        }
    }

    /// One 10 ms step: the board's specific force (with and without noise) and the true along-track acceleration.
    mutating func step() -> (forceBoardMps2: Vector3, noiseFreeBoardMps2: Vector3, along: Double) {
        let dt = 0.01
        var (along, turn) = Self.profile(timeS)
        if speedMps + along * dt < 0 { along = -speedMps / dt }
        if speedMps < 1 { turn = 0 }
        speedMps += along * dt
        headingRad -= turn * dt
        timeS += dt
        let left = speedMps * turn
        let forceVehicle = Vector3(-left, along, gravityMps2)
        let clean = boardToVehicle.conjugate.rotate(forceVehicle) + biasBoardMps2
        return (clean + Vector3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * 0.03, clean, along)
    }

    var velocityENU: (east: Double, north: Double) { (speedMps * Double.sin(headingRad), speedMps * Double.cos(headingRad)) }

    /// Drives `steps` 10 ms steps, feeding `mount` as `NavigationFilter` does (every sample, and the receiver's
    /// velocity once a second); `each` sees the mount after every step, the step's noise-free force and the true
    /// along-track acceleration.
    mutating func drive(
        _ mount: inout VehicleMount, steps: Int,
        each: (VehicleMount, _ noiseFreeBoardMps2: Vector3, _ alongMps2: Double, _ timeS: Double) -> Void = { _, _, _, _ in }
    ) {
        for i in 1...steps {
            let (force, clean, along) = step()
            mount.observe(specificForceBoardMps2: force, timeS: timeS, atRest: speedMps == 0)
            if i % 100 == 0 {
                let v = velocityENU
                mount.observe(velocityEast: v.east, velocityNorth: v.north, timeS: timeS, isMoving: speedMps > 1)
            }
            each(mount, clean, along, timeS)
        }
    }
}

/// A small deterministic Gaussian generator (xorshift64* and Box–Muller), so the tests repeat exactly.
struct DeterministicNoise {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func uniform() -> Double {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return Double((state &* 0x2545_F491_4F6C_DD1D) >> 11) / Double(1 << 53)
    }
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * Double.log(u)).squareRoot() * Double.cos(2 * .pi * v)
    }
}

func angleDeg(_ a: Vector3, _ b: Vector3) -> Double {
    Double.acos(min(1, max(-1, a.dot(b) / (a.dot(a) * b.dot(b)).squareRoot()))) * 180 / .pi
}

struct VehicleMountTests {
    /// Two minutes of pulling away, turning and braking teach the mount its up (learned only while the car is
    /// not accelerating) and its forward axis (Wahba's problem in the plane) to within a couple of degrees, and
    /// the along-track acceleration read through it is the car's — with no orientation filter involved.
    @Test func learnsTheMountFromTheDriveAndReadsTheAlongTrackAcceleration() throws {
        var drive = MountedDrive()
        var mount = VehicleMount()
        var worstAlongErrorMps2 = 0.0
        drive.drive(&mount, steps: 18_000) { mount, clean, along, timeS in
            // Once learned, braking and pulling away read through the mount (the bias included, the noise left out).
            if timeS > 120, along != 0, let a = mount.alongTrackMps2(specificForceBoardMps2: clean) {
                worstAlongErrorMps2 = max(worstAlongErrorMps2, abs(a - along))
            }
        }
        let up = try #require(mount.upBoard)
        let forward = try #require(mount.forwardBoard)
        #expect(angleDeg(up, drive.trueUpBoard) < 1.5, "up off by \(angleDeg(up, drive.trueUpBoard))°")
        #expect(angleDeg(forward, drive.trueForwardBoard) < 2, "forward off by \(angleDeg(forward, drive.trueForwardBoard))°")
        #expect(try #require(mount.forwardSigmaRad) < VehicleMount.maximumSigmaRad)
        #expect(worstAlongErrorMps2 > 0 && worstAlongErrorMps2 < 0.08, "along-track error \(worstAlongErrorMps2) m/s²")
    }

    /// Without any acceleration the forward axis cannot be known: cruising straight teaches nothing.
    @Test func cruisingStraightLeavesTheForwardAxisUnknown() {
        var mount = VehicleMount()
        let f = Vector3(0, 0, 9.81)
        for i in 1...6_000 {
            let t = Double(i) * 0.01
            mount.observe(specificForceBoardMps2: f, timeS: t, atRest: false)
            if i % 100 == 0 { mount.observe(velocityEast: 10, velocityNorth: 0, timeS: t, isMoving: true) }
        }
        #expect(mount.upBoard != nil)
        #expect(mount.forwardBoard == nil)
        #expect(mount.alongTrackMps2(specificForceBoardMps2: f) == nil)
    }

    /// A board that is moved in the car (its up turns by 90° for longer than `remountTimeS`) starts over.
    @Test func aMovedBoardForgetsItsMount() throws {
        var drive = MountedDrive()
        var mount = VehicleMount()
        drive.drive(&mount, steps: 12_000)
        #expect(mount.forwardBoard != nil)
        let sideways = Vector3(9.81, 0, 0)
        for i in 1...500 { mount.observe(specificForceBoardMps2: sideways, timeS: drive.timeS + Double(i) * 0.01, atRest: true) }
        #expect(mount.forwardBoard == nil)
        #expect(angleDeg(try #require(mount.upBoard), Vector3(1, 0, 0)) < 5)
    }
}

struct VehicleTurnModelTests {
    /// The gyroscope's bias about up (0.5 °/s) is learned from the receiver's course; through a 30 s "tunnel"
    /// with a 90° turn the gyroscope's turns then follow the car's heading to within 1°, and a 20° jump of the
    /// orientation's heading (a magnetometer correction) in the tunnel does not turn the car.
    @Test func learnsTheGyroscopeBiasFromTheCourseAndIgnoresOrientationJumps() {
        var model = VehicleTurnModel()
        let bias = 0.5 * Double.pi / 180
        var headingRad = 0.0 // clockwise from north
        var tunnelTurnRad = 0.0
        var trueTunnelTurnRad = 0.0
        let dt = 0.01
        for i in 1...24_000 {
            let t = Double(i) * dt
            let cycle = t.truncatingRemainder(dividingBy: 40)
            let rate = (10..<20).contains(cycle) ? Double.pi / 2 / 10 * (t < 120 ? 1 : -1) : 0 // ccw
            headingRad -= rate * dt
            let inTunnel = t >= 200
            // The orientation's turn: the truth, plus (in the tunnel) a sudden 20° correction.
            let jump = inTunnel && i == 21_000 ? 20 * Double.pi / 180 : 0
            let turn = model.turn(rateRadS: rate + bias, orientationTurnRad: rate * dt + jump, intervalS: dt)
            if inTunnel {
                tunnelTurnRad += turn
                trueTunnelTurnRad += rate * dt
            } else if i % 100 == 0 {
                model.observe(courseRad: headingRad, sigmaRad: 0.01, gate: 3.84 * 4)
            }
        }
        #expect(model.hasCourse)
        #expect(abs(model.biasRadS - bias) < 0.05 * Double.pi / 180, "bias \(model.biasRadS * 180 / .pi) °/s")
        #expect(abs(trueTunnelTurnRad) > 1, "the tunnel has a turn")
        #expect(
            abs(tunnelTurnRad - trueTunnelTurnRad) < Double.pi / 180,
            "turn error \((tunnelTurnRad - trueTunnelTurnRad) * 180 / .pi)°")
    }
}
