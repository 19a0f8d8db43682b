import Foundation
import LodestoneCore
import LodestoneSimulation
import Testing

@testable import LodestoneEngine

/// Hostile hardware (issue 18): a chip answering all 0xFF, all 0x00 or random bytes, values outside physics, a
/// receiver jumping 1 000 km or dating its fixes 1999. On the simulated board (`stationary`, unscheduled), each case
/// turns hostile at `startS` and sane again at `clearS`: the sensor must be reported degraded once, none of its
/// readings may reach fusion from `detectionS` after the start until the sane values come back, and it must recover
/// once, within `recoveryS` of the clearing. Each case runs a second time with the checks off
/// (`PlausibilityLimits.isEnabled`), where its values must reach fusion: the case fails without the guard.
struct HostileHardwareTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        /// The engine's source id (the board file's).
        let sensor: String
        let start: @Sendable (SimulatedBoard) -> Void
        let clear: @Sendable (SimulatedBoard) -> Void
        var description: String { name }
    }

    static let imu: UInt8 = 0x68, mag: UInt8 = 0x1C, baro: UInt8 = 0x76
    static let startS = 5.0, clearS = 9.0, endS = 13.0
    /// The longest a case may take to be flagged (a frozen chip needs `PlausibilityLimits.frozenS` and ten readings).
    static let detectionS = 0.6
    /// The longest a sensor may take to deliver again once sane: a re-probe's back-off (0.5 s) and the guard's
    /// hysteresis (`recoveryS` 1 s, 3 readings; 3 fixes at 1 Hz for a receiver).
    static let recoveryS = 3.5

    static func garbage(_ name: String, _ sensor: String, _ address: UInt8, _ p: GarbagePattern) -> Case {
        Case(
            name: name, sensor: sensor, start: { $0.bus.setGarbage(p, address: address) },
            clear: { $0.bus.setGarbage(nil, address: address) })
    }

    static func physics(_ name: String, _ sensor: String, _ o: SimulatedBoard.PhysicalOverride) -> Case {
        Case(
            name: name, sensor: sensor, start: { $0.setOverride(o, sensor: sensor) },
            clear: { $0.setOverride(nil, sensor: sensor) })
    }

    static func receiver(_ name: String, _ f: SimulatedBoard.ReceiverFault) -> Case {
        Case(name: name, sensor: "gnss", start: { $0.receiverFault = f }, clear: { $0.receiverFault = nil })
    }

    static let cases: [Case] = [
        garbage("IMU answers all 0xFF", "imu", imu, .allOnes),
        garbage("IMU answers all 0x00", "imu", imu, .allZeros),
        garbage("IMU answers random bytes", "imu", imu, .random),
        garbage("magnetometer answers all 0xFF", "mag", mag, .allOnes),
        garbage("magnetometer answers all 0x00", "mag", mag, .allZeros),
        garbage("magnetometer answers random bytes", "mag", mag, .random),
        garbage("barometer answers all 0xFF", "baro", baro, .allOnes),
        garbage("barometer answers all 0x00", "baro", baro, .allZeros),
        garbage("barometer answers random bytes", "baro", baro, .random),
        // ±4 g configured: every axis at its rail makes |a| = √3 × 4 g.
        physics("|acceleration| beyond the configured range", "imu", .init(accelerationMps2: Vector3(60, 60, 60))),
        physics("pressure below 30 kPa", "baro", .init(pressurePa: 20_000)),
        physics("pressure above 110 kPa", "baro", .init(pressurePa: 120_000)),
        physics("field above 1000 µT", "imu", .init(magneticFieldMicroTesla: Vector3(1_500, 0, 0))),
        physics("gyroscope at its rail", "imu", .init(angularVelocityRadS: Vector3(100, 0, 0))),
        physics("magnetometer at its rail", "mag", .init(magneticFieldMicroTesla: Vector3(2_000, 0, 0))),
        // 9° of latitude: 1 000 km.
        receiver("receiver jumps 1000 km", .init(latitudeOffsetDeg: 9)),
        receiver(
            "receiver dates its fixes 1999",
            .init(utcOffsetS: UTCCalendar.unixSeconds(decimalYear: 1999.5) - UTCCalendar.unixSeconds(decimalYear: 2026.5)))
    ]

    /// What one run saw of the case's sensor.
    struct Outcome {
        var degradedS: [Double] = []
        var recoveredS: [Double] = []
        /// Readings or fixes of the sensor handed to fusion from `startS + detectionS` to `clearS`.
        var reachedFusionWhileHostile = 0
        /// … and after the recovery.
        var reachedFusionAfterRecovery = 0
        var messages: [String] = []
    }

    static func run(_ c: Case, guarded: Bool) throws -> Outcome {
        let board = try BoardDescription.load(path: RunJobTests.simulatedBoardPath)
        // Without the guard only the hostile window matters.
        var configuration = SessionConfiguration(
            board: board, scenario: "stationary", seed: 3, durationS: guarded ? endS : clearS, speed: 0, scheduling: nil)
        configuration.plausibility.isEnabled = guarded
        var core = try SessionCore(configuration: configuration)
        let world = try #require(core.runtime.world)
        var outcome = Outcome()
        var hostile = false
        while let t = core.nextStepTimeS {
            if !hostile, t >= startS, t < clearS {
                c.start(world.board)
                hostile = true
            } else if hostile, t >= clearS {
                c.clear(world.board)
                hostile = false
            }
            core.step(at: t) { event in
                switch event {
                case let .degraded(sensor, message, timeS) where sensor == c.sensor:
                    outcome.degradedS.append(timeS)
                    outcome.messages.append(message)
                case let .recovered(sensor, timeS) where sensor == c.sensor:
                    outcome.recoveredS.append(timeS)
                case .reading(let sensor, _) where sensor == c.sensor, .fix(let sensor, _) where sensor == c.sensor:
                    if t >= startS + detectionS, t < clearS { outcome.reachedFusionWhileHostile += 1 }
                    if let r = outcome.recoveredS.last, t >= r { outcome.reachedFusionAfterRecovery += 1 }
                default: break
                }
            }
        }
        return outcome
    }

    @Test(arguments: cases)
    func hostileValuesAreFlaggedOnceKeptOutOfFusionAndRecoveredFrom(_ c: Case) throws {
        let o = try Self.run(c, guarded: true)
        #expect(o.degradedS.count == 1, "\(c): degraded notices \(o.degradedS) \(o.messages)")
        if let d = o.degradedS.first {
            #expect(d >= Self.startS && d <= Self.startS + Self.detectionS, "\(c): flagged at \(d) s")
        }
        #expect(o.reachedFusionWhileHostile == 0, "\(c): \(o.reachedFusionWhileHostile) readings reached fusion")
        #expect(o.recoveredS.count == 1, "\(c): recovered notices \(o.recoveredS)")
        if let r = o.recoveredS.first {
            #expect(r >= Self.clearS && r <= Self.clearS + Self.recoveryS, "\(c): recovered at \(r) s")
        }
        #expect(o.reachedFusionAfterRecovery > 0, "\(c): nothing delivered after the recovery")
        // Without the guard the same values reach fusion: this case tests the guard.
        let unguarded = try Self.run(c, guarded: false)
        #expect(unguarded.reachedFusionWhileHostile > 0, "\(c): without the guard nothing reached fusion either")
        print(
            "hostile: \(c): flagged at \(o.degradedS.map { formatSeconds($0) }) (\(o.messages.first ?? "")), "
                + "recovered at \(o.recoveredS.map { formatSeconds($0) }); without the guard "
                + "\(unguarded.reachedFusionWhileHostile) readings reached fusion while hostile")
    }
}

private func formatSeconds(_ s: Double) -> String { String(format: "%.2f s", s) }
