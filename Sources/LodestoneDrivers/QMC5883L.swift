import LodestoneCore

/// QST QMC5883L register map, fields and conversions, independent of any bus.
///
/// Source: QST Corporation, *QMC5883L 3-Axis Magnetic Sensor*, datasheet rev. 1.0 (2016), sections 9.1–9.2
/// (register map and definitions) and table 2 (sensitivity). Many "HMC5883L" (GY-271) breakouts carry this chip:
/// another register map, at 0x0D instead of 0x1E.
public enum QMC5883LDatasheet {
    /// The register map (section 9.1, table 13). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Output data X, Y, Z, 16-bit two's complement little-endian (0x00…0x05).
        case dataOutputXLSB = 0x00
        /// `DOR` [2], `OVL` [1], `DRDY` [0].
        case status = 0x06
        /// Temperature output, 16-bit little-endian, relative (the offset is not calibrated, section 9.2.4).
        case tout = 0x07
        /// Control register 1: `OSR` [7:6], `RNG` [5:4], `ODR` [3:2], `MODE` [1:0].
        case control1 = 0x09
        /// Control register 2: `SOFT_RST` [7], `ROL_PNT` [6], `INT_ENB` [0].
        case control2 = 0x0A
        /// SET/RESET period (`FBR`), recommended value 0x01 (section 9.2.6).
        case setResetPeriod = 0x0B
        /// Chip ID, 0xFF.
        case chipID = 0x0D
    }

    /// Register fields.
    public enum Field {
        public static let dor = BitField(mask: 0b0000_0100)
        public static let ovl = BitField(mask: 0b0000_0010)
        public static let drdy = BitField(mask: 0b0000_0001)
        public static let osr = BitField(mask: 0b1100_0000)
        public static let rng = BitField(mask: 0b0011_0000)
        public static let odr = BitField(mask: 0b0000_1100)
        public static let mode = BitField(mask: 0b0000_0011)
        public static let softRst = BitField(mask: 0b1000_0000)
        public static let rolPnt = BitField(mask: 0b0100_0000)
        public static let intEnb = BitField(mask: 0b0000_0001)
    }

    /// `RNG` settings with their sensitivities (table 2).
    public enum Range: UInt8, Sendable, CaseIterable {
        case gauss2 = 0b00, gauss8 = 0b01
        /// The full scale, ± gauss.
        public var rangeGauss: Double { self == .gauss2 ? 2 : 8 }
        /// The sensitivity, LSB/gauss.
        public var lsbPerGauss: Double { self == .gauss2 ? 12000 : 3000 }
    }

    /// `ODR` settings.
    public enum DataRate: UInt8, Sendable, CaseIterable {
        case hz10 = 0b00, hz50, hz100, hz200
        /// The output data rate, Hz.
        public var rateHz: Double {
            switch self {
            case .hz10: 10
            case .hz50: 50
            case .hz100: 100
            case .hz200: 200
            }
        }
    }

    /// `OSR` settings: the over-sample ratio of the internal filter (larger: less noise, more current).
    public enum OverSampleRatio: UInt8, Sendable, CaseIterable {
        case osr512 = 0b00, osr256, osr128, osr64
        /// The ratio.
        public var ratio: Int { 512 >> Int(rawValue) }
    }

    /// `MODE` settings.
    public enum Mode: UInt8, Sendable, CaseIterable {
        case standby = 0b00, continuous = 0b01
    }

    /// The chip ID value.
    public static let chipIDValue: UInt8 = 0xFF
    /// The 7-bit I2C address (the only one).
    public static let addresses: [UInt8] = [0x0D]
    /// The recommended `SET/RESET period` value.
    public static let recommendedSetResetPeriod: UInt8 = 0x01
    /// Time after a soft reset before registers can be written, µs (power-on time, table 2: 350 µs; doubled).
    public static let softResetTimeUs = 700

    /// µT from a raw axis value at `range`: `raw / sensitivity · 100 µT/gauss`.
    @inlinable public static func magneticFieldMicroTesla(raw: Int16, range: Range) -> Double {
        Double(raw) / range.lsbPerGauss * PhysicalConstants.microTeslaPerGauss
    }
}

/// Driver for the QST QMC5883L three-axis magnetometer, generic over its bus.
///
/// Continuous mode at an `ODR` rate, X, Y, Z and `STATUS` in one 7-byte burst; `STATUS.OVL` (an axis beyond the
/// range) is an invalid reading. Data-ready is `STATUS.DRDY`. The chip's temperature output is relative (its
/// offset is not calibrated), so readings carry no temperature.
public struct QMC5883L<Bus: RegisterBus>: SensorDriver {
    /// The register map (`QMC5883LDatasheet.Register`).
    public typealias Register = QMC5883LDatasheet.Register
    private typealias F = QMC5883LDatasheet.Field

    public static var chipName: String { "qmc5883l" }
    public static var kinds: [SensorKind] { [.magnetometer] }
    public static var addresses: [UInt8] { QMC5883LDatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only after the soft reset in `probe()`.
    public let delay: @Sendable (Int) -> Void
    /// The range in use: ±2 gauss (the reset value) after `probe()`, then what `configure(_:)` set; `nil` before.
    public private(set) var range: QMC5883LDatasheet.Range?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?

    /// A driver for the QMC5883L at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = QMC5883LDatasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks the chip ID, soft-resets (`SOFT_RST`), waits and checks the ID again. Leaves the chip in standby.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        range = nil
        configuration = nil
        let id = try bus.identifyAndReset(
            chip: Self.chipName, address: address, idRegister: Register.chipID.rawValue,
            expected: [QMC5883LDatasheet.chipIDValue], resetRegister: Register.control2.rawValue,
            resetValue: F.softRst.mask, resetTimeUs: QMC5883LDatasheet.softResetTimeUs, delay: delay)
        range = .gauss2
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration and what they give.
    public struct Settings: Sendable, Hashable {
        public var control1: UInt8
        public var range: QMC5883LDatasheet.Range
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - Range: ±2 gauss (200 µT) unless `magneticRangeMicroTesla` asks for more, then ±8 gauss.
    /// - Rate: the slowest `ODR` of at least `rateHz` (10, 50, 100, 200 Hz).
    /// - `oversampling` 1, 2, 4, 8 → `OSR` 64, 128, 256, 512 (reported as `OSR / 64`).
    /// - `.lowPower`: `OSR` 64 (the least current); `.suspend`: standby (reported rate 0).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        let wanted = requested.magneticRangeMicroTesla ?? 200
        guard let range = QMC5883LDatasheet.Range.allCases.first(where: { covers($0.rangeGauss * 100, wanted) }) else {
            throw .unsupportedConfiguration(chip: chipName, detail: "magnetic range \(wanted) µT: at most 800 µT (±8 gauss)")
        }
        guard let rate = QMC5883LDatasheet.DataRate.allCases.first(where: { covers($0.rateHz, requested.rateHz) }) else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 200 Hz")
        }
        typealias O = QMC5883LDatasheet.OverSampleRatio
        let osr: O =
            requested.powerMode == .lowPower
            ? .osr64
            : (O.allCases.reversed().first { $0.ratio >= 64 * requested.oversampling } ?? .osr512)
        let mode: QMC5883LDatasheet.Mode = requested.powerMode == .suspend ? .standby : .continuous
        let control1 = F.mode.inserting(
            mode.rawValue,
            into: F.odr.inserting(
                rate.rawValue,
                into: F.rng.inserting(range.rawValue, into: F.osr.inserting(osr.rawValue, into: 0))))
        return Settings(
            control1: control1, range: range,
            actual: SensorConfiguration(
                rateHz: mode == .continuous ? rate.rateHz : 0, powerMode: requested.powerMode,
                oversampling: osr.ratio / 64, magneticRangeMicroTesla: range.rangeGauss * 100))
    }

    /// Applies `configuration` (see `registerSettings(for:)`): control 2 (no roll-over, no interrupt), the SET/RESET
    /// period the datasheet recommends, then control 1.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard range != nil else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(address: address, register: Register.control2.rawValue, value: 0)
        try bus.sensorWriteByte(
            address: address, register: Register.setResetPeriod.rawValue,
            value: QMC5883LDatasheet.recommendedSetResetPeriod)
        try bus.sensorWriteByte(address: address, register: Register.control1.rawValue, value: s.control1)
        range = s.range
        self.configuration = s.actual
        return s.actual
    }

    /// Reads X, Y, Z and `STATUS` in one 7-byte burst from 0x00; µT in the chip's axes. Throws `.invalidReading`
    /// when `STATUS.OVL` says an axis went beyond the range. Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let range else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let (x, y, z, status) = try withTemporaryBytes(byteCount: 7, alignment: 1) {
            (raw) throws(SensorError) -> (Int16, Int16, Int16, UInt8) in
            try bus.sensorRead(address: address, register: Register.dataOutputXLSB.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            return (Bytes.leS16(b, 0), Bytes.leS16(b, 2), Bytes.leS16(b, 4), b[6])
        }
        if F.ovl.extract(from: status) == 1 {
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address,
                detail:
                    "STATUS.OVL: the field exceeds ±\(Int(range.rangeGauss)) gauss; configure ±8 gauss or move the magnet away")
        }
        return SensorReading(
            timeS: timeS,
            magneticFieldMicroTesla: Vector3(
                QMC5883LDatasheet.magneticFieldMicroTesla(raw: x, range: range),
                QMC5883LDatasheet.magneticFieldMicroTesla(raw: y, range: range),
                QMC5883LDatasheet.magneticFieldMicroTesla(raw: z, range: range)))
    }
}

extension QMC5883L: DataReadyReporting {
    /// `STATUS.DRDY`: a measurement has not been read yet.
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard range != nil else { throw notProbed(chip: Self.chipName) }
        return F.drdy.extract(from: try bus.sensorReadByte(address: address, register: Register.status.rawValue)) == 1
    }
}
