/// Why a driver could not do what was asked. Every case says where and what to do in `description`.
public enum SensorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A bus transfer failed.
    case bus(BusError)
    /// The ID register did not hold a value this driver knows.
    case wrongChipID(chip: String, bus: String, address: UInt8, register: UInt8, expected: [UInt8], found: UInt8)
    /// The chip never reported ready within the bounded wait.
    case notReady(chip: String, bus: String, address: UInt8, waitedMs: Int)
    /// The calibration (trim) data read from the chip is impossible (e.g. all zero), so readings would be wrong.
    case invalidTrim(chip: String, bus: String, address: UInt8, detail: String)
    /// A configuration value is not supported by the chip.
    case unsupportedConfiguration(chip: String, detail: String)
    /// A raw reading is outside what the chip can produce (e.g. the BMP280's 0x80000 "skipped" value).
    case invalidReading(chip: String, bus: String, address: UInt8, detail: String)

    public var description: String {
        switch self {
        case .bus(let e): e.description
        case let .wrongChipID(chip, bus, address, register, expected, found):
            "\(bus) address \(hex(address)): register \(hex(register)) reads \(hex(found)), expected "
                + expected.map(hex).joined(separator: " or ") + " for \(chip): wrong chip or wrong address"
        case let .notReady(chip, bus, address, waited):
            "\(bus) address \(hex(address)): \(chip) not ready after \(waited) ms"
        case let .invalidTrim(chip, bus, address, detail):
            "\(bus) address \(hex(address)): \(chip) calibration data invalid (\(detail)): the chip may be damaged or not a \(chip)"
        case let .unsupportedConfiguration(chip, detail):
            "\(chip): unsupported configuration: \(detail)"
        case let .invalidReading(chip, bus, address, detail):
            "\(bus) address \(hex(address)): \(chip) gave an invalid reading (\(detail))"
        }
    }
}

/// The identity of a probed chip.
public struct ChipIdentity: Sendable, Hashable, Codable {
    /// Canonical driver name, e.g. `bmp280`, `mpu9250`.
    public var chip: String
    /// The ID register's value.
    public var idValue: UInt8
    public init(chip: String, idValue: UInt8) { self.chip = chip; self.idValue = idValue }
}

/// Power mode a driver can be asked for. Chips map these to their own modes.
public enum PowerMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Lowest-power state that keeps configuration (sleep / power-down).
    case suspend
    /// A reduced-power measuring mode where the chip has one (e.g. low-power ODR, cycle mode).
    case lowPower
    /// Continuous measurement at the configured rate.
    case normal
}

/// What to ask of a chip. Each driver picks the nearest supported setting at or above what is asked
/// and reports what it chose through `SensorDriver.configuration`.
public struct SensorConfiguration: Sendable, Hashable, Codable {
    /// Output data rate wanted, Hz.
    public var rateHz: Double
    /// Power mode.
    public var powerMode: PowerMode
    /// Oversampling factor (barometers), 1 = none.
    public var oversampling: Int
    /// Accelerometer full scale, m/s² (nil = driver default).
    public var accelerationRangeMps2: Double?
    /// Gyroscope full scale, rad/s (nil = driver default).
    public var angularRateRangeRadS: Double?
    /// Magnetometer full scale, µT (nil = driver default).
    public var magneticRangeMicroTesla: Double?
    /// Whether the chip's hardware FIFO buffers samples (drained with `FIFOBuffering.drainFIFO`). Default `.off`;
    /// chips without a FIFO (and drivers that do not use theirs) reject `.stream`. `read(timeS:)` reads the output
    /// registers either way.
    public var fifo: FIFOMode
    /// Arms the chip's wake-on-motion interrupt: a change of specific force larger than this on any axis, m/s²,
    /// sets the chip's motion flag (`MotionWakeReporting.motionDetected()`) and drives its INT1 pin. `nil` (the
    /// default) leaves it off. Meant for `.lowPower`, where the chip duty-cycles its accelerometer and the host
    /// sleeps until the pin fires; each chip's threshold step is in its driver's documentation.
    public var wakeOnMotionThresholdMps2: Double?

    public init(
        rateHz: Double = 50, powerMode: PowerMode = .normal, oversampling: Int = 1,
        accelerationRangeMps2: Double? = nil, angularRateRangeRadS: Double? = nil,
        magneticRangeMicroTesla: Double? = nil, fifo: FIFOMode = .off, wakeOnMotionThresholdMps2: Double? = nil
    ) {
        self.rateHz = rateHz; self.powerMode = powerMode; self.oversampling = oversampling
        self.accelerationRangeMps2 = accelerationRangeMps2; self.angularRateRangeRadS = angularRateRangeRadS
        self.magneticRangeMicroTesla = magneticRangeMicroTesla
        self.fifo = fifo; self.wakeOnMotionThresholdMps2 = wakeOnMotionThresholdMps2
    }

    private enum CodingKeys: String, CodingKey {
        case rateHz, powerMode, oversampling, accelerationRangeMps2, angularRateRangeRadS, magneticRangeMicroTesla,
            fifo, wakeOnMotionThresholdMps2
    }

    /// Decodes a configuration; `fifo` and `wakeOnMotionThresholdMps2` may be absent (configurations written before
    /// they existed) and then take their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            rateHz: try c.decode(Double.self, forKey: .rateHz),
            powerMode: try c.decode(PowerMode.self, forKey: .powerMode),
            oversampling: try c.decode(Int.self, forKey: .oversampling),
            accelerationRangeMps2: try c.decodeIfPresent(Double.self, forKey: .accelerationRangeMps2),
            angularRateRangeRadS: try c.decodeIfPresent(Double.self, forKey: .angularRateRangeRadS),
            magneticRangeMicroTesla: try c.decodeIfPresent(Double.self, forKey: .magneticRangeMicroTesla),
            fifo: try c.decodeIfPresent(FIFOMode.self, forKey: .fifo) ?? .off,
            wakeOnMotionThresholdMps2: try c.decodeIfPresent(Double.self, forKey: .wakeOnMotionThresholdMps2))
    }
}

/// How a chip's hardware FIFO is used.
public enum FIFOMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Bypassed: samples go to the output registers only.
    case off
    /// Continuous ("stream") mode: the FIFO holds the newest samples; when it is full the oldest are overwritten
    /// (or, on chips that stop instead, new ones are dropped: see the driver), so drain it often enough.
    case stream
}

/// A chip driver. Drivers are value types generic over their `RegisterBus`, do no I/O in `init`, verify the
/// chip in `probe()`, and convert to SI once, here at the edge.
public protocol SensorDriver {
    associatedtype Bus: RegisterBus
    /// Canonical chip name (`bmp280`, `lis3mdl`, `mpu6050`, …).
    static var chipName: String { get }
    /// The kinds of quantity this chip reports.
    static var kinds: [SensorKind] { get }
    /// The 7-bit I2C addresses the chip can have (first is the default).
    static var addresses: [UInt8] { get }
    /// The bus this driver talks on.
    var bus: Bus { get }
    /// The chip's address.
    var address: UInt8 { get }
    /// Reads the ID register, resets if needed, reads trim data. Throws `wrongChipID` for another chip.
    mutating func probe() throws(SensorError) -> ChipIdentity
    /// Applies `configuration` (nearest supported values) and returns what was actually set.
    @discardableResult
    mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration
    /// Reads one sample in SI units, in the chip's axes. `timeS` is stamped by the caller.
    mutating func read(timeS: Double) throws(SensorError) -> SensorReading
}
