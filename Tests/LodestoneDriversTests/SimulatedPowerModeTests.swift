import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// The simulated board honours the power modes the drivers set, for every chip it carries (IMUs, magnetometers,
/// barometers): a suspended chip takes no new samples (its outputs stay frozen and data-ready stays clear while the
/// world keeps changing), and it samples again when woken. The MPU family also samples at its configured (low-power)
/// rate (`MPU6xxxWakeOnMotionTests`).
@Suite struct SimulatedPowerModeTests {
    /// The chip's board with it alone on `mixed-day` (from `startS`, climbing stairs and turning: every quantity
    /// changes), its driver probed and running.
    static func running(_ chip: String) throws -> (SimulatedBoard, any SensorDriver) {
        let address = try #require(ChipCatalog.entry(named: chip)).addresses[0]
        let board = try SimulatedBoard(
            scenario: try #require(Scenario.named("mixed-day")),
            placements: [.init(id: "s", chip: chip, address: address, mount: .identity, rateHz: 10)], seed: 3)
        var driver = try ChipCatalog.makeDriver(chip: chip, bus: board.bus, address: address)
        _ = try driver.probe()
        try driver.configure(SensorConfiguration(rateHz: 10))
        return (board, driver)
    }

    /// The measured values of a reading (its time stamp left out). An embedded magnetometer's field is reported only
    /// when it is new (`MPU6xxx`, `ICM20948`), so a frozen chip's reading may have none: `withField` false leaves it out.
    static func values(_ r: SensorReading, withField: Bool = true) -> [Double?] {
        [
            r.accelerationMps2?.x, r.accelerationMps2?.y, r.accelerationMps2?.z, r.angularVelocityRadS?.x,
            r.angularVelocityRadS?.z,
            r.pressurePa, r.temperatureC
        ]
            + (withField ? [r.magneticFieldMicroTesla?.x, r.magneticFieldMicroTesla?.y, r.magneticFieldMicroTesla?.z] : [])
    }

    /// Chips whose data-ready flag a read does not clear: the HMC5883L's `STATUS.RDY` stays set until the next
    /// measurement starts (HMC5883L data sheet, status register), so it says "ready" for the last sample while idle.
    static let dataReadyNotClearedByReading: Set<String> = ["hmc5883l"]

    static func isDataReady(_ driver: inout any SensorDriver) throws -> Bool? {
        guard var d = driver as? any DataReadyReporting else { return nil }
        defer { driver = d }
        return try d.isDataReady()
    }

    /// The MS5611 is left out: it has no power modes (each read commands a conversion, AN520), and its driver rejects
    /// nothing but keeps converting on demand. (The list is a constant, not a closure in the attribute: that crashed
    /// Swift 6.0.3's emit-module.)
    @Test(arguments: chipsWithPowerModes)
    func aSuspendedChipTakesNoNewSamplesAndAWokenOneDoes(chip: String) throws {
        var (board, driver) = try Self.running(chip)
        var t = 80.0 // mixed-day's stairs
        func advance(_ s: Double) { t += s; board.advance(toTimeS: t) }
        advance(0.5)
        let awake1 = Self.values(try driver.read(timeS: t))
        advance(2) // ≈ 0.7 m of stairs: ≈ 8 Pa, above a 16-bit barometer's 2.6 Pa step
        let awake2 = Self.values(try driver.read(timeS: t))
        #expect(awake1 != awake2, "\(chip): awake, the noise should change the samples")

        try driver.configure(SensorConfiguration(rateHz: 10, powerMode: .suspend))
        advance(0.1)
        let frozenReading = try driver.read(timeS: t)
        let frozen = Self.values(frozenReading)
        _ = try Self.isDataReady(&driver) // clears a flag the last sample before suspend may have left
        for _ in 0..<10 { advance(0.3) }
        if !Self.dataReadyNotClearedByReading.contains(chip) {
            #expect(try Self.isDataReady(&driver) != true, "\(chip): data ready while suspended")
        }
        let suspendedReading = try driver.read(timeS: t)
        let withField = suspendedReading.magneticFieldMicroTesla != nil || frozenReading.magneticFieldMicroTesla == nil
        let suspended = Self.values(suspendedReading, withField: withField)
        #expect(
            suspended == Self.values(frozenReading, withField: withField),
            "\(chip): outputs changed while suspended: \(frozen) → \(suspended)")

        try driver.configure(SensorConfiguration(rateHz: 10))
        advance(2)
        #expect(Self.values(try driver.read(timeS: t)) != frozen, "\(chip): no new sample after waking")
    }

    /// The default board's chips sample at their configured rate once the board gives them the time: polled at 20 Hz
    /// for 20 s on the stairs, each reading is new only as often as the chip converts.
    @Test(arguments: [
        ("mpu9250", SensorConfiguration(rateHz: 0.98, powerMode: .lowPower)),
        ("lis3mdl", SensorConfiguration(rateHz: 1.25, powerMode: .lowPower)),
        ("lis3mdl", SensorConfiguration(rateHz: 5)),
        ("bmp280", SensorConfiguration(rateHz: 1, oversampling: 16))
    ])
    func aTimedChipSamplesAtItsConfiguredRate(chip: String, configuration: SensorConfiguration) throws {
        var (board, driver) = try Self.running(chip)
        let rateHz = try driver.configure(configuration).rateHz
        #expect(rateHz < 6)
        var t = 80.0
        var previous: [Double?] = []
        var changes = 0
        for _ in 0..<400 {
            t += 0.05
            board.advance(toTimeS: t)
            // The MPU-9250's AK8963 keeps its own rate: only the MPU's own outputs are counted there.
            let v = Self.values(try driver.read(timeS: t), withField: chip == "lis3mdl")
            if v != previous { changes += 1 }
            previous = v
        }
        let expected = 20 * rateHz
        #expect(
            Double(changes) <= expected + 2 && Double(changes) >= 0.8 * expected - 1,
            "\(chip): \(changes) new samples, \(expected) expected")
    }
}

/// The simulated chips that have power modes: all but the MS5611.
private let chipsWithPowerModes = SimulatedBoard.supportedChips.filter { $0 != "ms5611" }
