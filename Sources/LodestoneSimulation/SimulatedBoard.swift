import LodestoneCore
import LodestoneDrivers
import LodestoneGeomagnetism

/// Why a simulated board could not be built.
public struct SimulationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The simulated board: register-level chip models on a `SimulatedBus`, driven by a scenario's physically
/// consistent truth. Real drivers read it exactly as they read hardware.
///
/// At every `advance(toTimeS:)` (in steps of the fastest placement's period when the jump is longer, so that chips
/// sampling on their own rate see the motion between slower reads) the truth is computed and each chip model receives
/// its physical input in its own axes: the board-frame quantity plus that sensor's errors (turn-on bias, bias random
/// walk, white noise), rotated by the transpose of its mount matrix (`v_chip = Mᵀ · v_board`). The magnetometers see the
/// Earth's field (WMM2025 at the truth position) through the carrier's hard and soft iron; the barometer sees
/// ISA pressure with weather drift. Everything is deterministic for a seed.
public final class SimulatedBoard {
    /// A chip on the simulated board.
    public struct Placement: Sendable, Hashable {
        public var id: String
        /// One of `SimulatedBoard.supportedChips`.
        public var chip: String
        public var address: UInt8
        /// `v_board = mount · v_chip`.
        public var mount: Matrix3
        /// The rate the engine samples it at, Hz (sets the white-noise bandwidth).
        public var rateHz: Double
        public init(id: String, chip: String, address: UInt8, mount: Matrix3, rateHz: Double) {
            self.id = id; self.chip = chip; self.address = address; self.mount = mount; self.rateHz = rateHz
        }
    }

    /// Chip names a simulated board can carry.
    public static let supportedChips = ChipID.allCases.filter { $0 != .ak8963 }.map(\.rawValue)

    private enum Model {
        case barometer(any SimulatedBarometer)
        case magnetometer(any SimulatedMagnetometer)
        /// The IMUs (an MPU-9250 or ICM-20948 with its magnetometer inside) and the ADXL345.
        case inertial(any InertialChipModel)
    }

    /// Per-sensor error state (board axes).
    private struct ErrorState {
        var accelBiasMps2 = Vector3.zero
        var gyroBiasRadS = Vector3.zero
        var magOffsetMicroTesla = Vector3.zero
        var pressureOffsetPa = 0.0
    }

    private struct Instrument {
        let placement: Placement
        let chipFromBoard: Matrix3
        let model: Model
        var errors: ErrorState
        var override: PhysicalOverride?
    }

    /// Physical inputs forced on one chip model (board axes, SI), in place of the scenario's: values outside physics
    /// for the hostile-hardware tests. Each `nil` field keeps the scenario's value. The chip model encodes what it is
    /// given as its registers would (saturating at its full scale).
    public struct PhysicalOverride: Sendable, Hashable {
        /// Specific force, m/s², board axes.
        public var accelerationMps2: Vector3?
        /// Angular rate, rad/s, board axes.
        public var angularVelocityRadS: Vector3?
        /// Magnetic flux density, µT, board axes.
        public var magneticFieldMicroTesla: Vector3?
        /// Pressure, Pa.
        public var pressurePa: Double?
        public init(
            accelerationMps2: Vector3? = nil, angularVelocityRadS: Vector3? = nil, magneticFieldMicroTesla: Vector3? = nil,
            pressurePa: Double? = nil
        ) {
            self.accelerationMps2 = accelerationMps2; self.angularVelocityRadS = angularVelocityRadS
            self.magneticFieldMicroTesla = magneticFieldMicroTesla; self.pressurePa = pressurePa
        }
    }

    /// The zero-g offset of sensor `id`'s accelerometer now, board axes, m/s² (the unit's own, this run's power-on
    /// change, the random walk since): what a calibration of the accelerometer estimates. `nil` for an unknown id.
    public func accelerometerOffsetMps2(sensor id: String) -> Vector3? {
        instruments.first { $0.placement.id == id }.map { $0.errors.accelBiasMps2 }
    }

    /// Forces `override`'s physical inputs on the chip placed as `id` from the next `advance` on (`nil`: the
    /// scenario's again). Returns false when no placement has that id.
    @discardableResult
    public func setOverride(_ override: PhysicalOverride?, sensor id: String) -> Bool {
        guard let i = instruments.firstIndex(where: { $0.placement.id == id }) else { return false }
        instruments[i].override = override
        return true
    }

    /// A receiver reporting nonsense: its positions moved by `latitudeOffsetDeg`/`longitudeOffsetDeg` and its dates by
    /// `utcOffsetS` (a lost GPS week count moves them back 1024 weeks). `nil`: the receiver tells the truth.
    public struct ReceiverFault: Sendable, Hashable {
        public var latitudeOffsetDeg: Double
        public var longitudeOffsetDeg: Double
        public var utcOffsetS: Double
        public init(latitudeOffsetDeg: Double = 0, longitudeOffsetDeg: Double = 0, utcOffsetS: Double = 0) {
            self.latitudeOffsetDeg = latitudeOffsetDeg; self.longitudeOffsetDeg = longitudeOffsetDeg; self.utcOffsetS = utcOffsetS
        }
    }

    /// The receiver's fault now (`nil`: none). Applied by whoever turns `latestFix` into the receiver's report.
    public var receiverFault: ReceiverFault?

    /// While true, the sky is hidden from the receiver (an outage on top of the scenario's): no fixes, and a
    /// reacquisition when it is cleared.
    public var isGNSSBlocked = false

    /// Whether the receiver is stopped (`stopReceiver(timeS:)`): it delivers nothing, whatever mode is commanded.
    public private(set) var isReceiverStopped = false
    /// The mode commanded while the receiver was stopped (or running when it stopped), applied at the restart.
    private var modeAtRestart: GNSSReceiverMode?

    /// Stops the receiver at `timeS` (power lost, a firmware hang): it goes off and ignores commands until
    /// `restartReceiver(timeS:)`.
    public func stopReceiver(timeS: Double) {
        guard !isReceiverStopped else { return }
        modeAtRestart = gnss.mode
        gnss.setMode(.off, timeS: timeS)
        isReceiverStopped = true
    }

    /// Restarts a stopped receiver at `timeS` in the mode last commanded: it acquires (hot, warm or cold) as a
    /// receiver switched on does.
    public func restartReceiver(timeS: Double) {
        guard isReceiverStopped else { return }
        isReceiverStopped = false
        gnss.setMode(modeAtRestart ?? .continuous(rateHz: 1), timeS: timeS)
        modeAtRestart = nil
    }

    /// The bus the chips sit on. Drivers are built on it.
    public let bus: SimulatedBus
    /// The scenario.
    public let scenario: Scenario
    /// The noise model.
    public let noise: SensorNoise
    /// The carrier's magnetic disturbance.
    public let disturbance: MagneticDisturbance
    /// The truth at the last `advance`.
    public private(set) var truth: TruthSample
    /// The last GNSS fix produced, and whether a new one arrived at the last `advance`.
    public private(set) var latestFix: GNSSFix?
    public private(set) var hasNewFix = false

    private var generator: TrajectoryGenerator
    private var gnss: GNSSSimulator
    private var instruments: [Instrument]
    private var random: SeededGenerator
    private var lastTimeS: Double
    /// The longest step the world takes, s: one period of the fastest placement, so that chips sampling on their own
    /// (a FIFO filling, a wake-on-motion comparing samples) see the motion between two reads of a slower plan.
    private let substepS: Double

    /// The unit a board is when its description names none: 1 (the unit `calibration/simulated.json` was fitted to).
    public static let defaultUnit: UInt64 = 1

    /// Builds the board. Throws for an unknown chip, a duplicate address or an unknown scenario.
    ///
    /// `seed` is the run: the trajectory, the receiver, the noise, the gyroscope's turn-on bias and the barometer's
    /// offset. `unit` is which physical unit of the chips the board carries: each accelerometer's zero-g offset is the
    /// unit's own (drawn from `unit`), changed on each run only by the chip's power-on repeatability
    /// (`AccelerometerNoise.turnOnRepeatabilitySigmaMps2`), as a real part's offset is — so that a calibration of the
    /// board (which removes that offset) holds on every run, whatever its seed.
    public init(
        scenario: Scenario, placements: [Placement], disturbance: MagneticDisturbance = .none,
        noise: SensorNoise = .consumerMEMS, seed: UInt64, unit: UInt64 = SimulatedBoard.defaultUnit
    ) throws(SimulationError) {
        self.scenario = scenario
        self.noise = noise
        self.disturbance = disturbance
        let bus = SimulatedBus(name: "sim", isLogging: false)
        self.bus = bus
        var random = SeededGenerator(seed: seed ^ 0x5349_4D42)
        // The parts as made (the same stream a run of seed `unit` used to draw its offsets from), and the run's
        // power-on changes to them: streams of their own, so that the run's noise is what it was.
        var unitRandom = SeededGenerator(seed: unit ^ 0x5349_4D42)
        var powerOnRandom = SeededGenerator(seed: seed ^ 0x5045_4F4E)
        var instruments: [Instrument] = []
        var used: Set<UInt8> = []
        for p in placements {
            guard used.insert(p.address).inserted else {
                throw SimulationError("simulated board: two chips at address \(hex(p.address)) (\(p.id))")
            }
            let model: Model
            guard let chip = ChipID(name: p.chip) else {
                throw SimulationError(
                    "simulated board: chip \"\(p.chip)\" (\(p.id)) has no simulator; allowed: "
                        + Self.supportedChips.joined(separator: ", "))
            }
            switch chip {
            case .bmp280:
                let m = BMP280Model()
                bus.attach(m, at: p.address)
                model = .barometer(m)
            case .lis3mdl:
                let m = LIS3MDLModel()
                bus.attach(m, at: p.address)
                model = .magnetometer(m)
            case .mpu6050, .mpu6500, .mpu9250:
                let variant: MPUVariant = chip == .mpu6050 ? .mpu6050 : (chip == .mpu6500 ? .mpu6500 : .mpu9250)
                let m = MPUModel(variant: variant, magnetometer: variant == .mpu9250 ? AK8963Model() : nil)
                if variant == .mpu9250 {
                    guard used.insert(AK8963Datasheet.addresses[0]).inserted else {
                        throw SimulationError("simulated board: the MPU-9250's AK8963 needs address 0x0C, which is taken")
                    }
                }
                m.attach(to: bus, at: p.address)
                model = .inertial(m)
            case .icm20948:
                guard used.insert(AK09916Datasheet.addresses[0]).inserted else {
                    throw SimulationError("simulated board: the ICM-20948's AK09916 needs address 0x0C, which is taken")
                }
                let m = ICM20948Model()
                m.attach(to: bus, at: p.address)
                model = .inertial(m)
            case .lsm6ds3, .lsm6dsl, .lsm6dsox:
                let m = LSM6DSxModel(variant: LSM6DSxVariant(rawValue: chip.rawValue) ?? .lsm6dsl)
                bus.attach(m, at: p.address)
                model = .inertial(m)
            case .lsm9ds1, .adxl345:
                let m: any InertialChipModel
                if chip == .lsm9ds1 { m = LSM9DS1Model() } else { m = ADXL345Model() }
                bus.attach(m, at: p.address)
                model = .inertial(m)
            case .lsm9ds1Magnetometer, .ak09916:
                let m: any SimulatedMagnetometer
                if chip == .ak09916 { m = AK09916Model() } else { m = LSM9DS1MagnetometerModel() }
                bus.attach(m, at: p.address)
                model = .magnetometer(m)
            case .bme280, .bmp388, .bmp390, .ms5611, .lps22hb, .lps25h:
                let m: any SimulatedBarometer =
                    switch chip {
                    case .bme280: BME280Model()
                    case .bmp388: BMP3xxModel(variant: .bmp388)
                    case .bmp390: BMP3xxModel(variant: .bmp390)
                    case .ms5611: MS5611Model()
                    case .lps22hb: LPS22HBModel()
                    default: LPS25HModel()
                    }
                bus.attach(m, at: p.address)
                model = .barometer(m)
            case .hmc5883l, .qmc5883l, .mmc5983ma:
                let m: any SimulatedMagnetometer =
                    switch chip {
                    case .hmc5883l: HMC5883LModel()
                    case .qmc5883l: QMC5883LModel()
                    default: MMC5983MAModel()
                    }
                bus.attach(m, at: p.address)
                model = .magnetometer(m)
            case .ak8963:
                // Simulated only inside an MPU-9250 (behind its I2C master or bypass), not on its own.
                throw SimulationError(
                    "simulated board: chip \"\(p.chip)\" (\(p.id)) has no simulator; allowed: "
                        + Self.supportedChips.joined(separator: ", "))
            }
            var e = ErrorState()
            _ = Self.gaussianVector(&random) // the run's stream keeps its old order
            e.accelBiasMps2 =
                Self.gaussianVector(&unitRandom) * noise.accelerometer.turnOnBiasSigmaMps2
                + Self.gaussianVector(&powerOnRandom) * noise.accelerometer.turnOnRepeatabilitySigmaMps2
            // Unit N's offsets are those a run of seed N drew before boards had units (calibration/simulated.json
            // was fitted to seed 1's): the unit's stream skips what the run's draws next (gyroscope, magnetometer,
            // barometer: 7 numbers).
            for _ in 0..<7 { _ = unitRandom.gaussian() }
            e.gyroBiasRadS = Self.gaussianVector(&random) * noise.gyroscope.turnOnBiasSigmaRadS
            e.magOffsetMicroTesla = Self.gaussianVector(&random) * noise.magnetometer.turnOnOffsetSigmaMicroTesla
            e.pressureOffsetPa = random.gaussian() * noise.barometer.turnOnOffsetSigmaPa
            instruments.append(Instrument(placement: p, chipFromBoard: p.mount.transposed, model: model, errors: e))
        }
        self.instruments = instruments
        self.random = random
        substepS = 1 / max(placements.map(\.rateHz).max() ?? 100, 1)
        generator = TrajectoryGenerator(scenario: scenario, seed: seed)
        gnss = GNSSSimulator(seed: seed)
        truth = generator.sample(atTimeS: 0)
        lastTimeS = 0
        apply(dtS: 0)
    }

    /// The simulated receiver's mode (`GNSSSimulator.mode`).
    public var gnssMode: GNSSReceiverMode { gnss.mode }
    /// The simulated receiver's power state at the last `advance` or mode change (`GNSSSimulator.powerState`).
    public var gnssPowerState: GNSSPowerState { gnss.powerState }
    /// The simulated receiver's start at `timeS` if it were switched on (hot, warm or cold).
    public func gnssStartKind(atTimeS timeS: Double) -> GNSSSimulator.StartKind { gnss.startKind(atTimeS: timeS) }

    /// Switches the simulated receiver to `mode` at `timeS` (`GNSSSimulator.setMode(_:timeS:)`); the next `advance`
    /// delivers fixes accordingly.
    public func setGNSSMode(_ mode: GNSSReceiverMode, timeS: Double) {
        if isReceiverStopped { modeAtRestart = mode } else { gnss.setMode(mode, timeS: timeS) }
    }

    /// Moves the world to `timeS` (non-decreasing) and updates every chip model. Allocation-free.
    ///
    /// A jump longer than one period of the fastest placement (a plan reads the chips less often than the board file's
    /// rates) is taken in steps of that period, so that the chip models see the motion in between; `hasNewFix` then
    /// says whether any of the steps gave a fix.
    public func advance(toTimeS timeS: Double) {
        let t = max(timeS, lastTimeS)
        var newFix = false
        while t - lastTimeS > 1.5 * substepS { step(toTimeS: lastTimeS + substepS, newFix: &newFix) }
        step(toTimeS: t, newFix: &newFix)
        hasNewFix = newFix
    }

    private func step(toTimeS t: Double, newFix: inout Bool) {
        let dt = t - lastTimeS
        lastTimeS = t
        truth = generator.sample(atTimeS: t)
        var sky = truth
        if isGNSSBlocked { sky.gnssOutage = true }
        if let fix = gnss.fix(for: sky) {
            latestFix = fix
            newFix = true
        }
        apply(dtS: dt)
    }

    private func apply(dtS: Double) {
        let sqrtDt = dtS.squareRoot()
        let n = noise
        let magBoard = truth.magneticFieldBoardMicroTesla.map { disturbance.apply(toFieldBoardMicroTesla: $0) }
        for i in instruments.indices {
            let rate = max(instruments[i].placement.rateHz, 1)
            // White noise over the sensor's bandwidth (≈ rate/2): σ = density · √(rate/2).
            let bandwidthRoot = (rate / 2).squareRoot()
            let c = instruments[i].chipFromBoard
            switch instruments[i].model {
            case .barometer(let m):
                instruments[i].errors.pressureOffsetPa += random.gaussian() * n.barometer.offsetRandomWalkPaPerRootS * sqrtDt
                m.temperatureC = truth.temperatureC
                m.pressurePa =
                    instruments[i].override?.pressurePa
                    ?? (truth.pressurePa + instruments[i].errors.pressureOffsetPa + random.gaussian() * n.barometer.noiseRMSPa)
                m.sampleTimeS = truth.timeS
            case .magnetometer(let m):
                instruments[i].errors.magOffsetMicroTesla +=
                    Self.gaussianVector(&random) * n.magnetometer.offsetRandomWalkMicroTeslaPerRootS * sqrtDt
                m.temperatureC = truth.temperatureC
                if let b = magBoard {
                    let measured =
                        b + instruments[i].errors.magOffsetMicroTesla + Self.gaussianVector(&random)
                        * n.magnetometer.noiseRMSMicroTesla
                    m.magneticFieldMicroTesla = c * measured
                }
                if let b = instruments[i].override?.magneticFieldMicroTesla { m.magneticFieldMicroTesla = c * b }
                m.sampleTimeS = truth.timeS
            case .inertial(let m):
                instruments[i].errors.accelBiasMps2 +=
                    Self.gaussianVector(&random) * n.accelerometer.biasRandomWalkMps2PerRootS * sqrtDt
                instruments[i].errors.gyroBiasRadS +=
                    Self.gaussianVector(&random) * n.gyroscope.biasRandomWalkRadSPerRootS * sqrtDt
                let f =
                    truth.specificForceBoardMps2 + instruments[i].errors.accelBiasMps2
                    + Self.gaussianVector(&random) * (n.accelerometer.noiseDensityMps2PerRootHz * bandwidthRoot)
                let w =
                    truth.angularVelocityBoardRadS + instruments[i].errors.gyroBiasRadS
                    + Self.gaussianVector(&random) * (n.gyroscope.noiseDensityRadSPerRootHz * bandwidthRoot)
                m.temperatureC = truth.temperatureC
                let o = instruments[i].override
                m.accelerationMps2 = c * (o?.accelerationMps2 ?? f)
                m.angularVelocityRadS = c * (o?.angularVelocityRadS ?? w)
                if m.hasMagnetometer, let b = magBoard {
                    let measured =
                        b + instruments[i].errors.magOffsetMicroTesla + Self.gaussianVector(&random)
                        * n.magnetometer.noiseRMSMicroTesla
                    m.setMagneticField(chipAxesMicroTesla: c * (o?.magneticFieldMicroTesla ?? measured))
                }
                m.sampleTimeS = truth.timeS // after the inputs: a timed model samples them at its own rate
            }
        }
    }

    @inline(__always)
    private static func gaussianVector(_ r: inout SeededGenerator) -> Vector3 {
        Vector3(r.gaussian(), r.gaussian(), r.gaussian())
    }
}
