import Foundation
@testable import LodestoneEngine
import LodestoneCore
import LodestoneDrivers
@testable import LodestoneEvaluation
import LodestoneScheduler
import LodestoneSimulation
@testable import LodestoneSources
import Testing

/// Plans applied through the drivers on the simulated board (`boards/simulated.json`: MPU-9250, LIS3MDL, BMP280 and
/// the simulated u-blox receiver): the register writes in the simulator's log, a failed reconfiguration that rolls back
/// and is reported while the engine keeps sampling, a restarted chip resuming its plan, wake-on-motion events, and the
/// receiver switched off and on.
@Suite struct PlanApplicationTests {
    /// The simulated board on `scenario`, its engine, stepped through `warmUpS` so that every source has started.
    static func running(_ scenario: String = "stationary", warmUpS: Double = 0.5) throws -> (BoardRuntime, SimulatedWorld, Engine)
    {
        let runtime = try BoardRuntime.assemble(LocationTrial.simulatedBoard(scenario: scenario), seed: 1, scenario: nil)
        let world = try #require(runtime.world as SimulatedWorld?)
        var engine = Engine(sources: runtime.sources)
        step(&engine, world, untilS: warmUpS)
        return (runtime, world, engine)
    }

    /// Steps `engine` to `untilS`, returning its events.
    /// A board with `chip` alone (id `imu`) at `rateHz` on `mixed-day`, its engine stepped through 1 s.
    static func oneIMU(_ chip: String, rateHz: Double, seed: UInt64) throws -> (BoardRuntime, SimulatedWorld, Engine) {
        let address = try #require(ChipCatalog.entry(named: chip)).addresses[0]
        let board = BoardDescription(
            name: "one IMU", sensors: [.init(id: "imu", chip: chip, bus: .simulated, address: address, rateHz: rateHz)],
            simulation: .init(scenario: "mixed-day"))
        let runtime = try BoardRuntime.assemble(board, seed: seed, scenario: nil)
        let world = try #require(runtime.world as SimulatedWorld?)
        var engine = Engine(sources: runtime.sources)
        step(&engine, world, untilS: 1)
        return (runtime, world, engine)
    }

    @discardableResult
    static func step(_ engine: inout Engine, _ world: SimulatedWorld, untilS: Double) -> [Engine.Event] {
        var events: [Engine.Event] = []
        while engine.nextDueS <= untilS {
            engine.step(prepare: { world.advance(toTimeS: $0) }) { events.append($0) }
        }
        return events
    }

    static func writes(_ bus: SimulatedBus, address: UInt8) -> [String] {
        bus.log.filter { $0.direction == .write && $0.address == address }
            .map { "\(hex($0.register)) \($0.bytes.map(hex).joined(separator: " "))" }
    }

    static func readings(_ events: [Engine.Event], from id: String) -> [SensorReading] {
        events.compactMap { if case let .reading(sensor, r) = $0, sensor == id { r } else { nil } }
    }

    @Test func theBoardTellsTheSchedulerWhatItCanPlan() throws {
        let (runtime, _, _) = try Self.running()
        #expect(
            runtime.plannedSensors == [
                PlannedSensor(
                    id: "imu", chip: "mpu9250", kinds: [.accelerometer, .gyroscope, .magnetometer, .thermometer],
                    maximumRateHz: 100, hasMotionWake: true, fifoCapacitySamples: 0),
                PlannedSensor(id: "mag", chip: "lis3mdl", kinds: [.magnetometer, .thermometer], maximumRateHz: 40),
                PlannedSensor(id: "baro", chip: "bmp280", kinds: [.barometer, .thermometer], maximumRateHz: 25)
            ])
        #expect(runtime.plannedReceiver == PlannedReceiver(id: "gnss", model: "ublox-m8", controllable: true))
    }

    @Test func aStationaryPlanIsWrittenThroughTheDrivers() throws {
        var (_, world, engine) = try Self.running()
        let bus = world.board.bus
        bus.isLogging = true
        bus.clearLog()
        let t = engine.timeS
        let imu = try engine.apply(
            SensorPlan(
                id: "imu", enabled: true,
                configuration: SensorConfiguration(rateHz: 7.81, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5),
                readRateHz: 1), timeS: t)
        try engine.apply(
            SensorPlan(id: "mag", enabled: false, configuration: SensorConfiguration(rateHz: 40), readRateHz: 0), timeS: t)
        try engine.apply(
            SensorPlan(id: "baro", enabled: false, configuration: SensorConfiguration(rateHz: 25), readRateHz: 0), timeS: t)
        #expect(imu?.powerMode == .lowPower && imu?.rateHz == 7.81 && imu?.wakeOnMotionThresholdMps2 == 13 * 0.004 * 9.80665)
        let mpu = Self.writes(bus, address: 0x68)
        // MPU-9250: low-power accelerometer at 7.81 Hz, gyroscope off, wake-on-motion armed, cycle mode last.
        #expect(
            mpu.contains("0x1E 0x05") && mpu.contains("0x6C 0x07") && mpu.contains("0x38 0x40") && mpu.contains("0x69 0xC0")
                && mpu.contains("0x1F 0x0D"), "\(mpu)")
        #expect(mpu.last == "0x6B 0x29")
        // LIS3MDL: CTRL_REG3 (0x22) MD = 0b11 power-down.
        #expect(Self.writes(bus, address: 0x1C).last == "0x22 0x03")
        // BMP280: ctrl_meas (0xF4) mode 00 = sleep.
        let bmp = try #require(Self.writes(bus, address: 0x76).last { $0.hasPrefix("0xF4") })
        #expect(try #require(UInt8(bmp.suffix(2), radix: 16)) & 0b11 == 0)
        // The engine reads the IMU at 1 Hz and the others not at all.
        let events = Self.step(&engine, world, untilS: t + 10)
        #expect(Self.readings(events, from: "imu").filter { $0.timeS > t }.count == 10)
        #expect(Self.readings(events, from: "mag").isEmpty && Self.readings(events, from: "baro").isEmpty)
        #expect(engine.statuses.map(\.rateHz) == [1, 0, 0, 10])
    }

    @Test func aNackInTheMiddleOfConfigureRollsBackAndIsReported() throws {
        var (_, world, engine) = try Self.running()
        let bus = world.board.bus
        let model = try #require(bus.chip(at: 0x68) as? MPUModel)
        let configurationRegisters: [UInt8] = [0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x38, 0x69, 0x6B, 0x6C]
        let before = configurationRegisters.map { model.registers[$0] }
        // The 4th transfer to 0x68 from now is configure's GYRO_CONFIG write.
        bus.inject(.failTransfer(number: 4, address: 0x68, kind: .nack))
        var thrown: SourceError?
        do {
            try engine.apply(
                SensorPlan(
                    id: "imu", enabled: true, configuration: SensorConfiguration(rateHz: 7.81, powerMode: .lowPower),
                    readRateHz: 1), timeS: engine.timeS)
        } catch { thrown = error }
        let error = try #require(thrown)
        #expect(error.sensor == "imu")
        #expect(
            error.message.hasPrefix("reconfiguration to 7.81 Hz lowPower failed: sim address 0x68 register 0x1B"),
            "\(error.message)")
        #expect(error.message.hasSuffix("; rolled back to 100.0 Hz normal ×4"), "\(error.message)")
        #expect(!error.deviceGone)
        #expect(configurationRegisters.map { model.registers[$0] } == before)
        // Still sampling at the old rate, healthy.
        let events = Self.step(&engine, world, untilS: engine.timeS + 1)
        #expect(Self.readings(events, from: "imu").count >= 99)
        #expect(engine.statuses[0].rateHz == 100 && engine.statuses[0].health == .ok)
        #expect(Self.readings(events, from: "imu").allSatisfy { $0.angularVelocityRadS != nil })
    }

    @Test func aFailedRollbackIsReportedAndTheChipIsReprobedWithItsPreviousPlan() throws {
        var (_, world, engine) = try Self.running()
        let bus = world.board.bus
        let model = try #require(bus.chip(at: 0x68) as? MPUModel)
        let t = engine.timeS
        try engine.apply(
            SensorPlan(
                id: "imu", enabled: true, configuration: SensorConfiguration(rateHz: 31.25, powerMode: .lowPower),
                readRateHz: 10), timeS: t)
        bus.setPresent(false, address: 0x68)
        var thrown: SourceError?
        do {
            try engine.apply(
                SensorPlan(id: "imu", enabled: true, configuration: SensorConfiguration(rateHz: 100), readRateHz: 100), timeS: t)
        } catch { thrown = error }
        let error = try #require(thrown)
        #expect(error.message.contains("rollback failed too") && error.deviceGone, "\(error.message)")
        let resets = model.resetCount
        bus.setPresent(true, address: 0x68)
        let events = Self.step(&engine, world, untilS: t + 3)
        // Re-probed (reset), and given its planned low-power configuration, not the board file's 100 Hz normal.
        #expect(model.resetCount == resets + 1)
        #expect(model.outputDataRateHz == 31.25)
        #expect(Self.readings(events, from: "imu").last?.angularVelocityRadS == nil) // gyroscope off in low power
        #expect(engine.statuses[0].health == .ok)
    }

    @Test func aChipThatVanishesResumesItsPlanNotItsDefaults() throws {
        var (_, world, engine) = try Self.running()
        let bus = world.board.bus
        let t = engine.timeS
        try engine.apply(
            SensorPlan(
                id: "baro", enabled: true, configuration: SensorConfiguration(rateHz: 1, powerMode: .normal, oversampling: 16),
                readRateHz: 1), timeS: t)
        let before = try #require(bus.chip(at: 0x76) as? BMP280Model).registers[0xF4]
        bus.setPresent(false, address: 0x76)
        var events = Self.step(&engine, world, untilS: t + 4)
        #expect(events.contains { if case .degraded(let s, _, _) = $0 { s == "baro" } else { false } })
        // The chip comes back after a power cycle: its registers are reset.
        let fresh = BMP280Model()
        bus.attach(fresh, at: 0x76)
        bus.setPresent(true, address: 0x76)
        events = Self.step(&engine, world, untilS: t + 15)
        #expect(events.contains { if case .recovered(let s, _) = $0 { s == "baro" } else { false } })
        #expect(fresh.registers[0xF4] == before)
    }

    @Test func motionWakesAreEventsWhileArmed() throws {
        // `mixed-day` stands still for 20 s, then walks.
        var (_, world, engine) = try Self.running("mixed-day")
        try engine.apply(
            SensorPlan(
                id: "imu", enabled: true,
                configuration: SensorConfiguration(rateHz: 7.81, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5),
                readRateHz: 7.81), timeS: engine.timeS)
        var events = Self.step(&engine, world, untilS: 19)
        let wakes = { (e: [Engine.Event]) in e.compactMap { if case let .motionWake(s, t) = $0 { (s, t) } else { nil } } }
        #expect(wakes(events).isEmpty, "\(wakes(events))")
        events = Self.step(&engine, world, untilS: 23)
        let first = try #require(wakes(events).first)
        #expect(first.0 == "imu" && first.1 >= 20 && first.1 <= 22, "\(first)")
        // Disarmed: no more wake events.
        try engine.apply(
            SensorPlan(id: "imu", enabled: true, configuration: SensorConfiguration(rateHz: 100), readRateHz: 100),
            timeS: engine.timeS)
        events = Self.step(&engine, world, untilS: 30)
        #expect(wakes(events).isEmpty)
        #expect(Self.readings(events, from: "imu").count > 600)
    }

    /// Every IMU the simulator carries whose driver wakes on motion, alone on `mixed-day` (still for 20 s, then a walk),
    /// planned into low power at 10 Hz (or the chip's next rate up) with a 0.5 m/s² wake: no wake while still, one
    /// within 2 s of the walk. (Each chip compares consecutive samples its own way, at its own rate: the faster the
    /// rate, the smaller the change between samples a walk makes; 10–20 Hz is a typical wake-on-motion rate.)
    @Test(arguments: ["mpu6050", "mpu6500", "mpu9250", "icm20948", "lsm6ds3", "lsm6dsl", "lsm6dsox", "lsm9ds1", "adxl345"])
    func everyWakeCapableIMUWakesTheEngineWhenTheWalkStarts(chip: String) throws {
        var (runtime, world, engine) = try Self.oneIMU(chip, rateHz: 100, seed: 2)
        #expect(runtime.plannedSensors.first?.hasMotionWake == true)
        let applied = try engine.apply(
            SensorPlan(
                id: "imu", enabled: true,
                configuration: SensorConfiguration(rateHz: 10, powerMode: .lowPower, wakeOnMotionThresholdMps2: 0.5),
                readRateHz: 10), timeS: engine.timeS)
        #expect(applied?.wakeOnMotionThresholdMps2 != nil)
        let wakes = { (e: [Engine.Event]) in e.compactMap { if case let .motionWake(_, t) = $0 { t } else { nil } } }
        let still = wakes(Self.step(&engine, world, untilS: 19.5))
        #expect(still.isEmpty, "\(chip): woke while still at \(still)")
        let walking = wakes(Self.step(&engine, world, untilS: 25))
        #expect(walking.first.map { $0 >= 20 && $0 <= 22 } == true, "\(chip): wakes \(walking)")
    }

    /// A plan with `fifoDepthSamples`: the chip batches at its rate and the engine drains it at the read rate, each
    /// sample its own reading, evenly stamped at the chip's period.
    @Test(arguments: ["lsm6dsl", "lsm6dsox", "icm20948", "adxl345"])
    func aBatchingPlanDeliversEverySampleFromFIFODrains(chip: String) throws {
        var (runtime, world, engine) = try Self.oneIMU(chip, rateHz: 104, seed: 4)
        // The scheduler learns the FIFO's size before any plan turns it on.
        let capacity = try #require(BoardRuntime.plannedSensors(of: engine.sources).first?.fifoCapacitySamples)
        #expect(capacity >= 25, "\(chip): \(capacity)")
        #expect(runtime.plannedSensors.first?.fifoCapacitySamples == 0) // the runtime's sources were never started
        let applied = try #require(
            try engine.apply(
                SensorPlan(
                    id: "imu", enabled: true, configuration: SensorConfiguration(rateHz: 100),
                    readRateHz: 4, fifoDepthSamples: 25), timeS: engine.timeS))
        #expect(applied.fifo == .stream)
        let t0 = engine.timeS
        let readings = Self.readings(Self.step(&engine, world, untilS: t0 + 10), from: "imu").filter { $0.timeS > t0 + 0.6 }
        let periodS = 1 / applied.rateHz
        // ≈ 9.4 s of samples at the chip's rate, oldest first, one period apart.
        #expect(
            abs(Double(readings.count) - 9.4 * applied.rateHz) < 0.03 * 9.4 * applied.rateHz,
            "\(chip): \(readings.count) at \(applied.rateHz) Hz")
        let gaps = zip(readings.dropFirst(), readings).map { $0.timeS - $1.timeS }
        #expect(
            gaps.allSatisfy { abs($0 - periodS) < 0.25 * periodS },
            "\(chip): gaps \(gaps.filter { abs($0 - periodS) >= 0.25 * periodS }.prefix(5))")
        #expect(readings.allSatisfy { $0.accelerationMps2 != nil })
        #expect(engine.statuses[0].rateHz == 4)
        #expect(abs(engine.statuses[0].measuredRateHz - applied.rateHz) < 0.1 * applied.rateHz)
    }

    @Test func theReceiverSwitchedOffDeliversNothingAndHotStartsWhenSwitchedOn() throws {
        var (_, world, engine) = try Self.running("stationary", warmUpS: 10)
        #expect(engine.gnssPowerState(id: "gnss") == .tracking)
        try engine.apply(GNSSPlan(id: "gnss", mode: .off), timeS: engine.timeS)
        var events = Self.step(&engine, world, untilS: 100)
        #expect(!events.contains { if case .fix = $0 { true } else { false } })
        #expect(engine.gnssPowerState(id: "gnss") == .off)
        try engine.apply(GNSSPlan(id: "gnss", mode: .continuous(rateHz: 1)), timeS: engine.timeS)
        events = Self.step(&engine, world, untilS: 110)
        let fixTimes = events.compactMap { if case let .fix(_, f) = $0 { f.timeS } else { nil } }
        #expect(fixTimes.first.map { $0 <= 102.05 } == true, "\(fixTimes)")
        #expect(fixTimes.count >= 8)
        #expect(engine.gnssPowerState(id: "gnss") == .tracking)
        // Power save: one fix a minute.
        try engine.apply(GNSSPlan(id: "gnss", mode: .powerSave(updatePeriodS: 60)), timeS: engine.timeS)
        events = Self.step(&engine, world, untilS: 400)
        #expect(events.filter { if case .fix = $0 { true } else { false } }.count == 5)
        #expect(engine.gnssPowerState(id: "gnss") == .powerSaveIdle)
    }

    @Test func unknownIDsAreClearErrors() throws {
        var (_, _, engine) = try Self.running()
        #expect(throws: SourceError(sensor: "gyro", message: "no such sensor on this board")) {
            try engine.apply(SensorPlan(id: "gyro", enabled: true, configuration: SensorConfiguration(), readRateHz: 1), timeS: 0)
        }
    }
}
