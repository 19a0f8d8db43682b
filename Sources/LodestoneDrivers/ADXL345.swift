import LodestoneCore

/// Analog Devices ADXL345 register map, fields and conversions, independent of any bus.
///
/// Source: Analog Devices, *ADXL345 Digital Accelerometer* data sheet rev. G: table 1 (specifications), table 19
/// (register map) and "Register Definitions", "FIFO", "Power Savings" and "Serial Communications".
public enum ADXL345Datasheet {
    /// The register map (table 19). Names follow the data sheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Device ID, read-only, 0xE5.
        case devid = 0x00
        /// Activity threshold, 62.5 mg/LSB.
        case threshAct = 0x24
        /// `ACT ac/dc` [7], `ACT_X` [6], `ACT_Y` [5], `ACT_Z` [4], `INACT …` [3:0].
        case actInactCtl = 0x27
        /// `LOW_POWER` [4], `Rate` [3:0]: output data rate = 3200 Hz / 2^(15 − Rate).
        case bwRate = 0x2C
        /// `Link` [5], `AUTO_SLEEP` [4], `Measure` [3], `Sleep` [2], `Wakeup` [1:0].
        case powerCtl = 0x2D
        /// `DATA_READY` [7], …, `Activity` [4], …, `Watermark` [1], `Overrun` [0].
        case intEnable = 0x2E
        /// The same bits: 0 sends the interrupt to INT1, 1 to INT2.
        case intMap = 0x2F
        /// The same bits, read-only; reading it clears `Activity` (the data bits clear as the data is read).
        case intSource = 0x30
        /// `SELF_TEST` [7], `SPI` [6] (3-wire), `INT_INVERT` [5], `FULL_RES` [3], `Justify` [2], `Range` [1:0].
        case dataFormat = 0x31
        /// X, Y, Z, little-endian two's complement (0x32–0x37). In FIFO modes they hold the oldest entry, which a
        /// read of all six pops.
        case datax0 = 0x32
        /// `FIFO_MODE` [7:6], `Trigger` [5], `Samples` [4:0].
        case fifoCtl = 0x38
        /// `FIFO_TRIG` [7], `Entries` [5:0].
        case fifoStatus = 0x39
    }

    /// Register fields.
    public enum Field {
        public static let lowPower = BitField(mask: 0b0001_0000)
        public static let rate = BitField(mask: 0b0000_1111)
        public static let measure = BitField(mask: 0b0000_1000)
        public static let dataReady = BitField(mask: 0b1000_0000)
        public static let activity = BitField(mask: 0b0001_0000)
        public static let watermark = BitField(mask: 0b0000_0010)
        public static let fullRes = BitField(mask: 0b0000_1000)
        public static let range = BitField(mask: 0b0000_0011)
        public static let actAC = BitField(mask: 0b1000_0000)
        public static let actXYZ = BitField(mask: 0b0111_0000)
        public static let fifoMode = BitField(mask: 0b1100_0000)
        public static let samples = BitField(mask: 0b0001_1111)
        public static let entries = BitField(mask: 0b0011_1111)
    }

    /// `FIFO_MODE` values.
    public enum FIFOMode: UInt8, Sendable { case bypass = 0b00, fifo = 0b01, stream = 0b10, trigger = 0b11 }

    /// `Range` settings: ±2, ±4, ±8, ±16 g.
    public enum FullScale: UInt8, Sendable, CaseIterable {
        case g2 = 0, g4, g8, g16
        /// ± g.
        public var rangeG: Double { 2 * Double(1 << Int(rawValue)) }
    }

    /// The `DEVID` value.
    public static let devidValue: UInt8 = 0xE5
    /// 7-bit I2C addresses: ALT ADDRESS low 0x53, high 0x1D ("I2C" section).
    public static let addresses: [UInt8] = [0x53, 0x1D]
    /// Sensitivity with `FULL_RES`, the same at every range: 256 LSB/g (table 1, 3.9 mg/LSB typical).
    public static let lsbPerG = 256.0
    /// Activity threshold step, g (`THRESH_ACT`, 62.5 mg/LSB).
    public static let activityStepG = 0.0625
    /// FIFO depth, entries ("FIFO": 32 levels).
    public static let fifoEntries = 32
    /// The rate of `Rate` code `code`, Hz: 3200 / 2^(15 − code), 0.10 … 3200 Hz (table 7).
    @inlinable public static func rateHz(code: UInt8) -> Double { 3200 / Double(1 << (15 - Int(code))) }
    /// Codes valid in reduced-power mode (`LOW_POWER`): 12.5 … 400 Hz (table 8).
    public static let lowPowerCodes: ClosedRange<UInt8> = 7...12

    /// Raw full-resolution value to m/s²: `raw / 256 · g`.
    @inlinable public static func accelerationMps2(raw: Int16) -> Double {
        Double(raw) / lsbPerG * PhysicalConstants.standardGravityMps2
    }
}

/// Driver for the Analog Devices ADXL345 accelerometer, generic over the bus (I2C, or 4-wire SPI with the `MB` bit
/// for bursts: `SPIRegisterFraming.readBit7MultiByteBit6`).
///
/// Reports acceleration (m/s²) in the chip's axes at full resolution (`FULL_RES`, 256 LSB/g at every range), read in
/// one 6-byte burst from `DATAX0`. The chip has no temperature output and no soft reset: `probe()` puts it in standby.
///
/// - `.normal`: the slowest `Rate` of at least `rateHz` (0.10 … 3200 Hz).
/// - `.lowPower`: the same with `LOW_POWER` where the data sheet allows it (12.5 … 400 Hz).
/// - `.suspend`: standby (`POWER_CTL.Measure` clear).
/// - Data ready and activity on INT1; `INT_SOURCE` polled by `isDataReady()` and `motionDetected()`.
/// - Wake-on-motion: ac-coupled activity detection on X, Y and Z over `THRESH_ACT` (62.5 mg per step).
/// - FIFO (`fifo: .stream`): 32 entries in stream mode; each entry is popped by its own 6-byte read (the data sheet
///   allows no longer burst), so a drain is one transfer per entry after one `FIFO_STATUS` read. `overrun` is a full
///   FIFO (32 entries): in FIFO modes the chip's own `Overrun` bit means no more than that ("set when FIFO is
///   filled", `INT_SOURCE` description), so the driver reads it from `FIFO_STATUS` instead of another register.
public struct ADXL345<Bus: RegisterBus>: SensorDriver {
    /// The register map (`ADXL345Datasheet.Register`).
    public typealias Register = ADXL345Datasheet.Register
    typealias D = ADXL345Datasheet
    typealias F = ADXL345Datasheet.Field

    public static var chipName: String { "adxl345" }
    public static var kinds: [SensorKind] { [.accelerometer] }
    public static var addresses: [UInt8] { D.addresses }

    public let bus: Bus
    public let address: UInt8
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var isProbed = false
    /// `Activity` seen by `isDataReady()` (reading `INT_SOURCE` clears it) and not yet reported by `motionDetected()`.
    private var pendingActivity = false

    /// A driver for the ADXL345 at `address` on `bus`. Does no I/O. (`delay` is accepted for a uniform catalog; the
    /// chip needs no waits.)
    public init(bus: Bus, address: UInt8 = ADXL345Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address
    }

    /// Checks `DEVID` and puts the chip in standby (`POWER_CTL` 0), its power-on state.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        isProbed = false
        configuration = nil
        let id = try bus.sensorReadByte(address: address, register: Register.devid.rawValue)
        guard id == D.devidValue else {
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: Register.devid.rawValue,
                expected: [D.devidValue], found: id)
        }
        try write(.powerCtl, 0)
        isProbed = true
        pendingActivity = false
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration, and what they give.
    public struct Settings: Sendable, Hashable {
        public var bwRate: UInt8
        public var powerCtl: UInt8
        public var dataFormat: UInt8
        public var intEnable: UInt8
        public var threshAct: UInt8
        public var actInactCtl: UInt8
        public var fifoCtl: UInt8
        public var fullScale: ADXL345Datasheet.FullScale
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O): the smallest range covering the request (default ±4 g),
    /// the slowest rate of at least `rateHz`, the activity threshold rounded to the nearest 62.5 mg step (1…255).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        let g = PhysicalConstants.standardGravityMps2
        let fullScale = try accelerationFullScale(
            D.FullScale.allCases, rangeG: \.rangeG, requestedMps2: requested.accelerationRangeMps2,
            chip: chipName)
        guard let code = (UInt8(0)...15).first(where: { covers(D.rateHz(code: $0), requested.rateHz) }) else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 3200 Hz")
        }
        let threshold =
            try wakeOnMotionSteps(
                requested.wakeOnMotionThresholdMps2, stepMps2: D.activityStepG * g,
                maximumSteps: 255, chip: chipName) ?? 0
        let wom = requested.wakeOnMotionThresholdMps2 != nil
        let lowPower = requested.powerMode == .lowPower && D.lowPowerCodes.contains(code)
        let fifo = requested.fifo == .stream
        return Settings(
            bwRate: F.lowPower.inserting(lowPower ? 1 : 0, into: F.rate.inserting(code, into: 0)),
            powerCtl: F.measure.inserting(requested.powerMode == .suspend ? 0 : 1, into: 0),
            dataFormat: F.fullRes.inserting(1, into: F.range.inserting(fullScale.rawValue, into: 0)),
            intEnable: F.dataReady.inserting(1, into: F.activity.inserting(wom ? 1 : 0, into: 0)),
            threshAct: threshold,
            actInactCtl: wom ? F.actAC.inserting(1, into: F.actXYZ.inserting(0b111, into: 0)) : 0,
            fifoCtl: fifo ? F.fifoMode.inserting(D.FIFOMode.stream.rawValue, into: F.samples.inserting(16, into: 0)) : 0,
            fullScale: fullScale,
            actual: SensorConfiguration(
                rateHz: requested.powerMode == .suspend ? 0 : D.rateHz(code: code),
                powerMode: requested.powerMode, oversampling: 1,
                accelerationRangeMps2: fullScale.rangeG * g, fifo: requested.fifo,
                wakeOnMotionThresholdMps2: wom ? Double(threshold) * D.activityStepG * g : nil))
    }

    /// Applies `configuration`: standby first, then format, rate, FIFO, activity detection and interrupts (all on
    /// INT1), and `POWER_CTL` last.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        try write(.powerCtl, 0)
        try write(.dataFormat, s.dataFormat)
        try write(.bwRate, s.bwRate)
        try write(.fifoCtl, 0) // bypass empties the FIFO
        if s.fifoCtl != 0 { try write(.fifoCtl, s.fifoCtl) }
        try write(.threshAct, s.threshAct)
        try write(.actInactCtl, s.actInactCtl)
        try write(.intMap, 0)
        try write(.intEnable, s.intEnable)
        if s.powerCtl != 0 { try write(.powerCtl, s.powerCtl) }
        pendingActivity = false
        self.configuration = s.actual
        return s.actual
    }

    /// Reads X, Y, Z in one 6-byte burst from `DATAX0` (popping the oldest FIFO entry while the FIFO is on).
    /// Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return SensorReading(timeS: timeS, accelerationMps2: try readAcceleration())
    }

    private func readAcceleration() throws(SensorError) -> Vector3 {
        let bus = self.bus, address = self.address
        return try withTemporaryBytes(byteCount: 6, alignment: 1) { (raw) throws(SensorError) -> Vector3 in
            try bus.sensorRead(address: address, register: Register.datax0.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            return axisTriple(b, at: 0, D.accelerationMps2(raw:))
        }
    }

    private func write(_ register: Register, _ value: UInt8) throws(SensorError) {
        try bus.sensorWriteByte(address: address, register: register.rawValue, value: value)
    }

    private mutating func readIntSource() throws(SensorError) -> UInt8 {
        let source = try bus.sensorReadByte(address: address, register: Register.intSource.rawValue)
        if F.activity.extract(from: source) == 1 { pendingActivity = true }
        return source
    }
}

extension ADXL345: DataReadyReporting {
    /// `INT_SOURCE.DATA_READY` (an activity event seen in the same read is kept for `motionDetected()`).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return F.dataReady.extract(from: try readIntSource()) == 1
    }
}

extension ADXL345: MotionWakeReporting {
    /// `INT_SOURCE.Activity` since the last call.
    public mutating func motionDetected() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        _ = try readIntSource()
        defer { pendingActivity = false }
        return pendingActivity
    }
}

extension ADXL345: FIFOBuffering {
    /// 32 entries while the FIFO is on, else 0.
    public var fifoCapacitySamples: Int { fifoCapacity(D.fifoEntries, configuration) }

    /// `FIFO_STATUS.Entries`.
    public mutating func fifoSampleCount() throws(SensorError) -> Int {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        guard fifoSamplePeriodS(configuration) != nil else { return 0 }
        return try fifoEntries()
    }

    /// Reads `FIFO_STATUS`, then the waiting entries (up to `samples.count`), one 6-byte read each, oldest first.
    public mutating func drainFIFO(into samples: UnsafeMutableBufferPointer<SensorReading>, newestTimeS: Double)
        throws(SensorError) -> FIFODrain
    {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        guard let periodS = fifoSamplePeriodS(configuration) else { return FIFODrain(count: 0, overrun: false) }
        let waiting = try fifoEntries()
        let entries = min(waiting, samples.count)
        for i in 0..<entries { samples[i] = SensorReading(accelerationMps2: try readAcceleration()) }
        stampFIFOSamples(samples, count: entries, waiting: waiting, newestTimeS: newestTimeS, periodS: periodS)
        return FIFODrain(count: entries, overrun: waiting >= D.fifoEntries)
    }

    private func fifoEntries() throws(SensorError) -> Int {
        Int(F.entries.extract(from: try bus.sensorReadByte(address: address, register: Register.fifoStatus.rawValue)))
    }
}
