import LodestoneCore

/// Asahi Kasei AK09916 register map, fields and conversions, independent of any bus.
///
/// Source: the magnetometer sections of the *ICM-20948 Data Sheet* DS-000189 rev. 1.3 (§3.3 table 3, §12 register
/// map, §13 register descriptions), which embeds the AK09916, and AKM's *AK09916C* data sheet (same map).
public enum AK09916Datasheet {
    /// The register map (DS-000189 table 21). Names follow the data sheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Company ID of AKM, read-only, 0x48.
        case wia1 = 0x00
        /// Device ID, read-only, 0x09 (§13.1).
        case wia2 = 0x01
        /// Status 1: `DOR` [1], `DRDY` [0] (§13.2).
        case st1 = 0x10
        /// Measurement data, two's complement, little-endian (§13.3).
        case hxl = 0x11
        case hxh = 0x12
        case hyl = 0x13
        case hyh = 0x14
        case hzl = 0x15
        case hzh = 0x16
        /// Dummy register between the data and `ST2`, read in the same burst.
        case tmps = 0x17
        /// Status 2: `HOFL` [3]. Reading it ends a data read (§13.4).
        case st2 = 0x18
        /// Control 2: `MODE` [4:0] (§13.5).
        case cntl2 = 0x31
        /// Control 3: `SRST` [0], soft reset, clears itself (§13.6).
        case cntl3 = 0x32
    }

    /// Register fields.
    public enum Field {
        /// `ST1.DRDY`: a measurement is ready (cleared by reading the data or `ST2`).
        public static let drdy = BitField(mask: 0b0000_0001)
        /// `ST1.DOR`: a measurement was skipped.
        public static let dor = BitField(mask: 0b0000_0010)
        /// `ST2.HOFL`: magnetic sensor overflow, |X| + |Y| + |Z| ≥ 4912 µT; the data is not valid.
        public static let hofl = BitField(mask: 0b0000_1000)
        /// `CNTL2.MODE`.
        public static let mode = BitField(mask: 0b0001_1111)
        /// `CNTL3.SRST`.
        public static let srst = BitField(mask: 0b0000_0001)
    }

    /// `CNTL2.MODE` settings (§13.5).
    public enum Mode: UInt8, Sendable, CaseIterable {
        case powerDown = 0b00000
        case singleMeasurement = 0b00001
        /// Continuous measurement mode 1, 10 Hz.
        case continuous1 = 0b00010
        /// Continuous measurement mode 2, 20 Hz.
        case continuous2 = 0b00100
        /// Continuous measurement mode 3, 50 Hz.
        case continuous3 = 0b00110
        /// Continuous measurement mode 4, 100 Hz.
        case continuous4 = 0b01000
        case selfTest = 0b10000

        /// The measurement rate of a continuous mode, Hz (`nil` for the others).
        public var rateHz: Double? {
            switch self {
            case .continuous1: 10
            case .continuous2: 20
            case .continuous3: 50
            case .continuous4: 100
            default: nil
            }
        }

        /// The continuous modes, slowest first.
        public static let continuous: [Mode] = [.continuous1, .continuous2, .continuous3, .continuous4]
    }

    /// The `WIA1` value (AKM).
    public static let wia1Value: UInt8 = 0x48
    /// The `WIA2` value (AK09916).
    public static let wia2Value: UInt8 = 0x09
    /// The AK09916's one 7-bit I2C address (inside the ICM-20948, on its auxiliary bus; DS-000189 §6.9).
    public static let addresses: [UInt8] = [0x0C]
    /// Sensitivity, µT/LSB (DS-000189 table 3).
    public static let microTeslaPerLSB = 0.15
    /// Measurement range, µT: the sum |X| + |Y| + |Z| at which `HOFL` is set (±4912 µT; the ICM-20948 table rounds
    /// to ±4900).
    public static let rangeMicroTesla = 4912.0
    /// Wait after power-down before another mode, µs (§13.5: at least 100 µs).
    public static let modeChangeWaitUs = 100

    /// One measurement as the chip presents it: the 9 bytes `ST1`, `HXL`…`HZH`, `TMPS`, `ST2` read from `ST1` (0x10)
    /// on, directly or through an ICM-20948's slave 0 into `EXT_SLV_SENS_DATA_00…08`.
    public struct Measurement: Sendable, Hashable {
        public var st1: UInt8
        public var x: Int16, y: Int16, z: Int16
        public var st2: UInt8
        /// Bytes in a measurement block.
        public static let byteCount = 9

        /// Decodes the block at `offset` of `bytes`.
        @inlinable public init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            st1 = Bytes.u8(bytes, offset)
            x = Bytes.leS16(bytes, offset + 1); y = Bytes.leS16(bytes, offset + 3); z = Bytes.leS16(bytes, offset + 5)
            st2 = Bytes.u8(bytes, offset + 8)
        }

        /// `ST1.DRDY`.
        @inlinable public var isReady: Bool { Field.drdy.extract(from: st1) == 1 }
        /// `ST2.HOFL`.
        @inlinable public var isOverflow: Bool { Field.hofl.extract(from: st2) == 1 }
        /// The data bytes and `ST2` in one word (see `AK8963Datasheet.Measurement.identity`).
        @inlinable public var identity: UInt64 {
            UInt64(UInt16(bitPattern: x)) | UInt64(UInt16(bitPattern: y)) << 16 | UInt64(UInt16(bitPattern: z)) << 32
                | UInt64(st2) << 48
        }
        /// The field in µT in the AK09916's axes: raw × 0.15 µT.
        @inlinable public var fieldMicroTesla: Vector3 {
            Vector3(Double(x), Double(y), Double(z)) * AK09916Datasheet.microTeslaPerLSB
        }
    }
}

/// Driver for the AKM AK09916 magnetometer, generic over its bus: on its own, behind an ICM-20948's I2C bypass, or
/// through the ICM-20948's I2C master (`InvenSenseI2CMaster`), which is how `ICM20948` uses it.
///
/// Reports µT in the AK09916's own axes. A read with no new measurement (`ST1.DRDY` clear) reports no field.
public struct AK09916<Bus: RegisterBus>: SensorDriver {
    /// The register map (`AK09916Datasheet.Register`).
    public typealias Register = AK09916Datasheet.Register

    public static var chipName: String { "ak09916" }
    public static var kinds: [SensorKind] { [.magnetometer] }
    public static var addresses: [UInt8] { AK09916Datasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only around mode changes.
    public let delay: @Sendable (Int) -> Void
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    private var isProbed = false

    /// A driver for the AK09916 at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = AK09916Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `WIA2` (0x09, the device ID; `WIA1` is AKM's company code, shared by every AKM magnetometer), soft-resets
    /// (`CNTL3.SRST`) and waits; the chip is then in power-down. One ID read, not two, also because through the
    /// ICM-20948's I2C master each byte is a slave-4 transaction (ArduPilot's AP_Compass_AK09916 checks `WIA2` alone too).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        isProbed = false
        let id = try bus.sensorReadByte(address: address, register: Register.wia2.rawValue)
        guard id == AK09916Datasheet.wia2Value else {
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: Register.wia2.rawValue,
                expected: [AK09916Datasheet.wia2Value], found: id)
        }
        try bus.sensorWriteByte(
            address: address, register: Register.cntl3.rawValue,
            value: AK09916Datasheet.Field.srst.inserting(1, into: 0))
        delay(AK09916Datasheet.modeChangeWaitUs)
        isProbed = true
        configuration = nil
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// The mode for `requested` and the configuration it gives (pure): `.normal` → the slowest continuous mode of
    /// at least `rateHz` (10, 20, 50, 100 Hz); `.lowPower` → 10 Hz; `.suspend` → power-down (reported rate 0).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError)
        -> (mode: AK09916Datasheet.Mode, actual: SensorConfiguration)
    {
        try validateRate(requested.rateHz, chip: chipName)
        if let range = requested.magneticRangeMicroTesla, !covers(AK09916Datasheet.rangeMicroTesla, range) {
            throw .unsupportedConfiguration(chip: chipName, detail: "magnetic range \(range) µT: at most 4912 µT")
        }
        try rejectFeaturesNotOffered(requested, chip: chipName, why: "inside an ICM-20948, configure the ICM-20948 for them")
        let mode: AK09916Datasheet.Mode
        switch requested.powerMode {
        case .suspend: mode = .powerDown
        case .lowPower: mode = .continuous1
        case .normal:
            guard let m = AK09916Datasheet.Mode.continuous.first(where: { covers($0.rateHz ?? 0, requested.rateHz) }) else {
                throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 100 Hz")
            }
            mode = m
        }
        return (
            mode,
            SensorConfiguration(
                rateHz: mode.rateHz ?? 0, powerMode: requested.powerMode, oversampling: 1,
                magneticRangeMicroTesla: AK09916Datasheet.rangeMicroTesla)
        )
    }

    /// Applies `configuration`, passing through power-down first as the data sheet requires.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let settings = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(
            address: address, register: Register.cntl2.rawValue, value: AK09916Datasheet.Mode.powerDown.rawValue)
        if settings.mode != .powerDown {
            delay(AK09916Datasheet.modeChangeWaitUs)
            try bus.sensorWriteByte(address: address, register: Register.cntl2.rawValue, value: settings.mode.rawValue)
        }
        self.configuration = settings.actual
        return settings.actual
    }

    /// The field of `measurement` in µT (AK09916 axes), or `.invalidReading` when `ST2.HOFL` reports an overflow.
    public static func field(of measurement: AK09916Datasheet.Measurement, bus: String, address: UInt8) throws(SensorError)
        -> Vector3
    {
        if measurement.isOverflow {
            throw .invalidReading(
                chip: chipName, bus: bus, address: address,
                detail: "magnetic sensor overflow (ST2.HOFL): the field exceeds 4912 µT; a magnet is too close")
        }
        return measurement.fieldMicroTesla
    }

    /// Reads `ST1`, the data, `TMPS` and `ST2` in one 9-byte burst. Returns µT in the AK09916's axes, or `nil` when
    /// `ST1.DRDY` says there is no new measurement. Allocates nothing.
    public mutating func readMagneticFieldMicroTesla() throws(SensorError) -> Vector3? {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let sample = try withTemporaryBytes(byteCount: AK09916Datasheet.Measurement.byteCount, alignment: 1) {
            (raw) throws(SensorError) -> AK09916Datasheet.Measurement in
            try bus.sensorRead(address: address, register: Register.st1.rawValue, into: raw)
            return AK09916Datasheet.Measurement(UnsafeRawBufferPointer(raw), at: 0)
        }
        guard sample.isReady else { return nil }
        return try Self.field(of: sample, bus: bus.name, address: address)
    }

    /// One reading: the field in µT in the AK09916's axes, or no field when there is no new measurement.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        SensorReading(timeS: timeS, magneticFieldMicroTesla: try readMagneticFieldMicroTesla())
    }
}

extension AK09916: DataReadyReporting {
    /// `ST1.DRDY` (one register read; it does not consume the measurement).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return AK09916Datasheet.Field.drdy.extract(
            from: try bus.sensorReadByte(address: address, register: Register.st1.rawValue)) == 1
    }
}
