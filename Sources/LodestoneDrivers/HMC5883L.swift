import LodestoneCore

/// Honeywell HMC5883L register map, fields and conversions, independent of any bus.
///
/// Source: Honeywell, *3-Axis Digital Compass IC HMC5883L*, Form #900405 Rev E (February 2013); table numbers below
/// refer to it.
public enum HMC5883LDatasheet {
    /// The register map (table 2). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Configuration register A: `CRA7` [7] (must be 0), `MA` [6:5], `DO` [4:2], `MS` [1:0] (table 3).
        case configA = 0x00
        /// Configuration register B: `GN` [7:5], bits 4:0 must be 0 (table 6).
        case configB = 0x01
        /// Mode register: `HS` [7], `MD` [1:0] (table 8).
        case mode = 0x02
        /// Data output X MSB; then X LSB, Z MSB, Z LSB, Y MSB, Y LSB (0x03…0x08): big-endian, order X, Z, Y.
        case dataOutXMSB = 0x03
        /// Status: `LOCK` [1], `RDY` [0] (table 16).
        case status = 0x09
        /// Identification registers A, B, C: ASCII "H", "4", "3" (tables 17–19).
        case identificationA = 0x0A
        case identificationB = 0x0B
        case identificationC = 0x0C
    }

    /// Register fields.
    public enum Field {
        public static let ma = BitField(mask: 0b0110_0000)
        public static let dataOutputRate = BitField(mask: 0b0001_1100)
        public static let ms = BitField(mask: 0b0000_0011)
        public static let gn = BitField(mask: 0b1110_0000)
        public static let hs = BitField(mask: 0b1000_0000)
        public static let md = BitField(mask: 0b0000_0011)
        public static let lock = BitField(mask: 0b0000_0010)
        public static let rdy = BitField(mask: 0b0000_0001)
    }

    /// `GN` settings (table 9): field range and gain.
    public enum Gain: UInt8, Sendable, CaseIterable {
        case gauss0_88 = 0, gauss1_3, gauss1_9, gauss2_5, gauss4_0, gauss4_7, gauss5_6, gauss8_1
        /// The recommended sensor field range, ± gauss.
        public var rangeGauss: Double {
            switch self {
            case .gauss0_88: 0.88
            case .gauss1_3: 1.3
            case .gauss1_9: 1.9
            case .gauss2_5: 2.5
            case .gauss4_0: 4.0
            case .gauss4_7: 4.7
            case .gauss5_6: 5.6
            case .gauss8_1: 8.1
            }
        }
        /// The gain, LSB/gauss.
        public var lsbPerGauss: Double {
            switch self {
            case .gauss0_88: 1370
            case .gauss1_3: 1090
            case .gauss1_9: 820
            case .gauss2_5: 660
            case .gauss4_0: 440
            case .gauss4_7: 390
            case .gauss5_6: 330
            case .gauss8_1: 230
            }
        }
    }

    /// `DO` settings (table 5), continuous measurement mode.
    public enum DataRate: UInt8, Sendable, CaseIterable {
        case hz0_75 = 0, hz1_5, hz3, hz7_5, hz15, hz30, hz75
        /// The typical output data rate, Hz.
        public var rateHz: Double {
            switch self {
            case .hz0_75: 0.75
            case .hz1_5: 1.5
            case .hz3: 3
            case .hz7_5: 7.5
            case .hz15: 15
            case .hz30: 30
            case .hz75: 75
            }
        }
    }

    /// `MD` settings (table 12); 0b11 is also idle.
    public enum Mode: UInt8, Sendable, CaseIterable {
        case continuous = 0b00, single = 0b01, idle = 0b10
    }

    /// The identification registers' contents, "H43".
    public static let identification: [UInt8] = [0x48, 0x34, 0x33]
    /// The 7-bit I2C address (the only one).
    public static let addresses: [UInt8] = [0x1E]
    /// What a data register holds after an ADC overflow or underflow, or a math overflow during bias measurement
    /// (table 10 note).
    public static let overflowValue: Int16 = -4096
    /// The output range of a data register, −2048…2047 (table 10).
    public static let outputRange: ClosedRange<Int16> = -2048...2047

    /// µT from a raw axis value at `gain`: `raw / gain · 100 µT/gauss`.
    @inlinable public static func magneticFieldMicroTesla(raw: Int16, gain: Gain) -> Double {
        Double(raw) / gain.lsbPerGauss * PhysicalConstants.microTeslaPerGauss
    }
}

/// Driver for the Honeywell HMC5883L three-axis magnetometer (Form #900405), generic over its bus.
///
/// Continuous measurement at a `DO` rate with `MA` averaging, X, Z, Y in one 6-byte burst (reading all six
/// releases `LOCK`), reordered to the chip's X, Y, Z. Data-ready is `STATUS.RDY`. The chip has no temperature
/// sensor and no soft reset.
public struct HMC5883L<Bus: RegisterBus>: SensorDriver {
    /// The register map (`HMC5883LDatasheet.Register`).
    public typealias Register = HMC5883LDatasheet.Register
    private typealias F = HMC5883LDatasheet.Field

    public static var chipName: String { "hmc5883l" }
    public static var kinds: [SensorKind] { [.magnetometer] }
    public static var addresses: [UInt8] { HMC5883LDatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Unused: the HMC5883L needs no waits in `probe()`; kept for the common driver shape.
    public let delay: @Sendable (Int) -> Void
    /// The gain in use: the reset value ±1.3 gauss after `probe()`, then what `configure(_:)` set; `nil` before.
    public private(set) var gain: HMC5883LDatasheet.Gain?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?

    /// A driver for the HMC5883L at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = HMC5883LDatasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks the three identification registers ("H43") and puts the chip in idle mode with its default gain.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        gain = nil // until this probe succeeds
        configuration = nil
        let bus = self.bus, address = self.address
        let id = try withTemporaryBytes(byteCount: 3, alignment: 1) {
            (raw) throws(SensorError) -> (UInt8, UInt8, UInt8) in
            try bus.sensorRead(address: address, register: Register.identificationA.rawValue, into: raw)
            return (raw[0], raw[1], raw[2])
        }
        let expected = HMC5883LDatasheet.identification
        guard id == (expected[0], expected[1], expected[2]) else {
            let (register, found, wanted) =
                id.0 != expected[0]
                ? (Register.identificationA, id.0, expected[0])
                : (id.1 != expected[1]
                    ? (Register.identificationB, id.1, expected[1]) : (Register.identificationC, id.2, expected[2]))
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: register.rawValue,
                expected: [wanted], found: found)
        }
        try bus.sensorWriteByte(address: address, register: Register.mode.rawValue, value: HMC5883LDatasheet.Mode.idle.rawValue)
        try bus.sensorWriteByte(
            address: address, register: Register.configB.rawValue,
            value: F.gn.inserting(HMC5883LDatasheet.Gain.gauss1_3.rawValue, into: 0))
        gain = .gauss1_3
        return ChipIdentity(chip: Self.chipName, idValue: id.0)
    }

    /// Register values for a configuration and what they give.
    public struct Settings: Sendable, Hashable {
        public var configA: UInt8
        public var configB: UInt8
        public var mode: UInt8
        public var gain: HMC5883LDatasheet.Gain
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - Range: the smallest gain whose range covers `magneticRangeMicroTesla` (default ±1.3 gauss = ±130 µT, the
    ///   reset gain; the Earth's field is at most 65 µT).
    /// - Rate: the slowest `DO` of at least `rateHz` (0.75…75 Hz).
    /// - `oversampling` 1, 2, 4, 8 selects `MA` (samples averaged per output; nearest at or above, capped at 8).
    /// - `.lowPower`: no averaging; `.suspend`: idle mode (reported rate 0).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        let wanted = requested.magneticRangeMicroTesla ?? 130
        guard let gain = HMC5883LDatasheet.Gain.allCases.first(where: { covers($0.rangeGauss * 100, wanted) }) else {
            throw .unsupportedConfiguration(chip: chipName, detail: "magnetic range \(wanted) µT: at most 810 µT (±8.1 gauss)")
        }
        guard let rate = HMC5883LDatasheet.DataRate.allCases.first(where: { covers($0.rateHz, requested.rateHz) }) else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 75 Hz")
        }
        let ma: UInt8 =
            requested.powerMode == .lowPower ? 0 : UInt8([1, 2, 4, 8].firstIndex { $0 >= requested.oversampling } ?? 3)
        let mode: HMC5883LDatasheet.Mode = requested.powerMode == .suspend ? .idle : .continuous
        let configA = F.ma.inserting(ma, into: F.dataOutputRate.inserting(rate.rawValue, into: 0))
        let actual = SensorConfiguration(
            rateHz: mode == .continuous ? rate.rateHz : 0, powerMode: requested.powerMode,
            oversampling: 1 << Int(ma), magneticRangeMicroTesla: gain.rangeGauss * 100)
        return Settings(
            configA: configA, configB: F.gn.inserting(gain.rawValue, into: 0), mode: mode.rawValue, gain: gain, actual: actual)
    }

    /// Applies `configuration` (see `registerSettings(for:)`): configuration A, B, then the mode.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard gain != nil else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(address: address, register: Register.configA.rawValue, value: s.configA)
        try bus.sensorWriteByte(address: address, register: Register.configB.rawValue, value: s.configB)
        try bus.sensorWriteByte(address: address, register: Register.mode.rawValue, value: s.mode)
        gain = s.gain
        self.configuration = s.actual
        return s.actual
    }

    /// Reads X, Z, Y in one 6-byte burst from `DATA OUTPUT X MSB`; µT in the chip's X, Y, Z. Throws
    /// `.invalidReading` for the −4096 the chip writes on an overflow. Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let gain else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let (x, z, y) = try withTemporaryBytes(byteCount: 6, alignment: 1) {
            (raw) throws(SensorError) -> (Int16, Int16, Int16) in
            try bus.sensorRead(address: address, register: Register.dataOutXMSB.rawValue, into: raw)
            let b = UnsafeRawBufferPointer(raw)
            return (Bytes.beS16(b, 0), Bytes.beS16(b, 2), Bytes.beS16(b, 4))
        }
        if x == HMC5883LDatasheet.overflowValue || y == HMC5883LDatasheet.overflowValue || z == HMC5883LDatasheet.overflowValue {
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address,
                detail: "an axis reads -4096 (ADC overflow): the field exceeds ±\(gain.rangeGauss) gauss; "
                    + "configure a larger range or move the magnet away")
        }
        return SensorReading(
            timeS: timeS,
            magneticFieldMicroTesla: Vector3(
                HMC5883LDatasheet.magneticFieldMicroTesla(raw: x, gain: gain),
                HMC5883LDatasheet.magneticFieldMicroTesla(raw: y, gain: gain),
                HMC5883LDatasheet.magneticFieldMicroTesla(raw: z, gain: gain)))
    }
}

extension HMC5883L: DataReadyReporting {
    /// `STATUS.RDY`: all six data registers hold a completed measurement (the chip clears it only while it writes
    /// the next one, table 16; reading does not clear it).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard gain != nil else { throw notProbed(chip: Self.chipName) }
        return F.rdy.extract(from: try bus.sensorReadByte(address: address, register: Register.status.rawValue)) == 1
    }
}
