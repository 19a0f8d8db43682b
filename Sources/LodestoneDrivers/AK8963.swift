import LodestoneCore

/// Asahi Kasei AK8963 register map, fields and conversions, independent of any bus.
///
/// Source: AKM, *AK8963 3-axis electronic compass*, MS1356-E-02 (register map and register descriptions, section 8),
/// and the MPU-9250 product specification PS-MPU-9250A-01, which embeds the AK8963 (section 3.3).
public enum AK8963Datasheet {
    /// The register map (section 8.2). Names follow the datasheet in lowerCamelCase.
    public enum Register: UInt8, Sendable, CaseIterable {
        /// Device ID of AKM, read-only, 0x48.
        case wia = 0x00
        /// Device information, read-only.
        case info = 0x01
        /// Status 1: `DOR` [1], `DRDY` [0], read-only.
        case st1 = 0x02
        /// Measurement data, two's complement, little-endian: X low byte.
        case hxl = 0x03
        case hxh = 0x04
        case hyl = 0x05
        case hyh = 0x06
        case hzl = 0x07
        case hzh = 0x08
        /// Status 2: `BITM` [4], `HOFL` [3], read-only. Reading it ends a data read and releases the data registers.
        case st2 = 0x09
        /// Control 1: `BIT` [4] (output width), `MODE` [3:0].
        case cntl1 = 0x0A
        /// Control 2: `SRST` [0] (soft reset; clears itself).
        case cntl2 = 0x0B
        /// Self-test control: `SELF` [6].
        case astc = 0x0C
        /// Test registers; do not write.
        case ts1 = 0x0D
        case ts2 = 0x0E
        /// I2C disable.
        case i2cdis = 0x0F
        /// Sensitivity adjustment values (fuse ROM), readable only in fuse-ROM access mode.
        case asax = 0x10
        case asay = 0x11
        case asaz = 0x12
    }

    /// Register fields.
    public enum Field {
        /// `ST1.DRDY`: new data is ready.
        public static let drdy = BitField(mask: 0b0000_0001)
        /// `ST1.DOR`: data was skipped (overrun) since the last read.
        public static let dor = BitField(mask: 0b0000_0010)
        /// `ST2.HOFL`: magnetic sensor overflow (|X| + |Y| + |Z| ≥ 4912 µT); the data is not valid.
        public static let hofl = BitField(mask: 0b0000_1000)
        /// `ST2.BITM`: output width of this measurement (mirror of `CNTL1.BIT`).
        public static let bitm = BitField(mask: 0b0001_0000)
        /// `CNTL1.BIT`: 0 = 14-bit output, 1 = 16-bit output.
        public static let bit = BitField(mask: 0b0001_0000)
        /// `CNTL1.MODE`: operation mode (`Mode`).
        public static let mode = BitField(mask: 0b0000_1111)
        /// `CNTL2.SRST`: soft reset.
        public static let srst = BitField(mask: 0b0000_0001)
    }

    /// `CNTL1.MODE` settings.
    public enum Mode: UInt8, Sendable, CaseIterable {
        case powerDown = 0b0000
        case singleMeasurement = 0b0001
        /// Continuous measurement mode 1, 8 Hz.
        case continuous1 = 0b0010
        /// Continuous measurement mode 2, 100 Hz.
        case continuous2 = 0b0110
        case externalTrigger = 0b0100
        case selfTest = 0b1000
        case fuseROMAccess = 0b1111

        /// The measurement rate of a continuous mode, Hz (`nil` for the others).
        public var rateHz: Double? {
            switch self {
            case .continuous1: 8
            case .continuous2: 100
            default: nil
            }
        }
    }

    /// The `WIA` value.
    public static let wiaValue: UInt8 = 0x48
    /// 7-bit I2C addresses selected by CAD1/CAD0 (0x0C inside the MPU-9250).
    public static let addresses: [UInt8] = [0x0C, 0x0D, 0x0E, 0x0F]
    /// Sensitivity with 16-bit output, µT/LSB.
    public static let microTeslaPerLSB16Bit = 0.15
    /// Sensitivity with 14-bit output, µT/LSB.
    public static let microTeslaPerLSB14Bit = 0.6
    /// Measurement range, µT: the sum |X| + |Y| + |Z| at which `HOFL` is set.
    public static let rangeMicroTesla = 4912.0
    /// Wait after entering power-down before another mode is set, µs.
    public static let modeChangeWaitUs = 100

    /// The factory sensitivity adjustment values read from fuse ROM (`ASAX`, `ASAY`, `ASAZ`).
    public struct SensitivityAdjustment: Sendable, Hashable {
        public var asax: UInt8
        public var asay: UInt8
        public var asaz: UInt8
        public init(asax: UInt8, asay: UInt8, asaz: UInt8) { self.asax = asax; self.asay = asay; self.asaz = asaz }

        /// Why these values cannot come from a working chip, or `nil`: all three 0x00 or all 0xFF.
        public var problem: String? {
            if asax == 0, asay == 0, asaz == 0 { return "ASAX, ASAY and ASAZ are all 0x00" }
            if asax == 0xFF, asay == 0xFF, asaz == 0xFF { return "ASAX, ASAY and ASAZ are all 0xFF" }
            return nil
        }
    }

    /// One measurement as the chip presents it: the 8 bytes `ST1`, `HXL`…`HZH`, `ST2` read from `ST1` (register 0x02)
    /// on, directly or through an MPU-9250's slave 0 into `EXT_SENS_DATA_00…07`.
    public struct Measurement: Sendable, Hashable {
        public var st1: UInt8
        public var x: Int16, y: Int16, z: Int16
        public var st2: UInt8
        /// Bytes in a measurement block.
        public static let byteCount = 8

        /// Decodes the block at `offset` of `bytes` (little-endian axes).
        @inlinable public init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            st1 = Bytes.u8(bytes, offset)
            x = Bytes.leS16(bytes, offset + 1); y = Bytes.leS16(bytes, offset + 3); z = Bytes.leS16(bytes, offset + 5)
            st2 = Bytes.u8(bytes, offset + 7)
        }

        /// `ST1.DRDY`: the block holds a measurement not read before.
        @inlinable public var isReady: Bool { Field.drdy.extract(from: st1) == 1 }
        /// `ST2.HOFL`: the field overflowed the sensor; the data is not valid.
        @inlinable public var isOverflow: Bool { Field.hofl.extract(from: st2) == 1 }
        /// The data bytes and `ST2` packed into one word, to tell one measurement from the next when `DRDY` is not
        /// trustworthy (slave 0 sampling faster than the magnetometer measures).
        @inlinable public var identity: UInt64 {
            UInt64(UInt16(bitPattern: x)) | UInt64(UInt16(bitPattern: y)) << 16 | UInt64(UInt16(bitPattern: z)) << 32
                | UInt64(st2) << 48
        }

        /// The field in µT in the AK8963's axes, with the fuse-ROM adjustment and the output width `ST2.BITM` says.
        @inlinable public func fieldMicroTesla(adjustment: SensitivityAdjustment) -> Vector3 {
            AK8963Datasheet.magneticFieldMicroTesla(
                rawX: x, rawY: y, rawZ: z, adjustment: adjustment,
                is16Bit: Field.bitm.extract(from: st2) == 1)
        }
    }

    /// The adjustment factor for one axis: `(ASA − 128) · 0.5 / 128 + 1` (range 0.5…1.5).
    @inlinable public static func sensitivityFactor(asa: UInt8) -> Double {
        (Double(asa) - 128) * 0.5 / 128 + 1
    }

    /// Converts raw axis values to µT in the AK8963's axes: `H_adj = H · ((ASA − 128) · 0.5 / 128 + 1)` with `H`
    /// in µT from the output width (`is16Bit`: 0.15 µT/LSB, else 0.6 µT/LSB).
    @inlinable public static func magneticFieldMicroTesla(
        rawX: Int16, rawY: Int16, rawZ: Int16,
        adjustment: SensitivityAdjustment, is16Bit: Bool
    ) -> Vector3 {
        let lsb = is16Bit ? microTeslaPerLSB16Bit : microTeslaPerLSB14Bit
        return Vector3(
            Double(rawX) * lsb * sensitivityFactor(asa: adjustment.asax),
            Double(rawY) * lsb * sensitivityFactor(asa: adjustment.asay),
            Double(rawZ) * lsb * sensitivityFactor(asa: adjustment.asaz))
    }
}

/// Driver for the AK8963 magnetometer, on its own or behind an MPU-9250's I2C bypass, generic over its bus.
///
/// Reports µT in the AK8963's own axes (inside an MPU-9250 `MPU6xxx` rotates them into the accelerometer's axes).
/// The chip measures at its own rate (8 or 100 Hz): a read with no new data (`ST1.DRDY` clear) reports no field
/// rather than repeating the previous one.
public struct AK8963<Bus: RegisterBus>: SensorDriver {
    /// The register map (`AK8963Datasheet.Register`).
    public typealias Register = AK8963Datasheet.Register

    public static var chipName: String { "ak8963" }
    public static var kinds: [SensorKind] { [.magnetometer] }
    public static var addresses: [UInt8] { AK8963Datasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds; used only around mode changes.
    public let delay: @Sendable (Int) -> Void
    /// The fuse-ROM sensitivity adjustment read by `probe()`; `nil` before.
    public private(set) var sensitivityAdjustment: AK8963Datasheet.SensitivityAdjustment?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?

    /// A driver for the AK8963 at `address` on `bus`. Does no I/O.
    /// - Parameter delay: sleeps for the given microseconds (the engine passes a real sleep; the default does not wait).
    public init(bus: Bus, address: UInt8 = AK8963Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks `WIA`, soft-resets (`CNTL2.SRST`), reads `ASAX`…`ASAZ` in fuse-ROM access mode and returns to
    /// power-down.
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        sensitivityAdjustment = nil // until this probe succeeds
        let id = try bus.sensorReadByte(address: address, register: Register.wia.rawValue)
        guard id == AK8963Datasheet.wiaValue else {
            throw .wrongChipID(
                chip: Self.chipName, bus: bus.name, address: address, register: Register.wia.rawValue,
                expected: [AK8963Datasheet.wiaValue], found: id)
        }
        try bus.sensorWriteByte(
            address: address, register: Register.cntl2.rawValue,
            value: AK8963Datasheet.Field.srst.inserting(1, into: 0))
        delay(AK8963Datasheet.modeChangeWaitUs)
        try bus.sensorWriteByte(
            address: address, register: Register.cntl1.rawValue,
            value: AK8963Datasheet.Mode.fuseROMAccess.rawValue)
        let bus = self.bus, address = self.address
        let adjustment = try withTemporaryBytes(byteCount: 3, alignment: 1) {
            (raw) throws(SensorError) -> AK8963Datasheet.SensitivityAdjustment in
            try bus.sensorRead(address: address, register: Register.asax.rawValue, into: raw)
            return AK8963Datasheet.SensitivityAdjustment(asax: raw[0], asay: raw[1], asaz: raw[2])
        }
        try bus.sensorWriteByte(
            address: address, register: Register.cntl1.rawValue,
            value: AK8963Datasheet.Mode.powerDown.rawValue)
        delay(AK8963Datasheet.modeChangeWaitUs)
        if let problem = adjustment.problem {
            throw .invalidTrim(chip: Self.chipName, bus: bus.name, address: address, detail: problem)
        }
        sensitivityAdjustment = adjustment
        configuration = nil
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// The `CNTL1` value for `requested` and the configuration it gives (pure; no I/O): 16-bit output;
    /// `.normal` → continuous mode 2 (100 Hz) unless `rateHz` ≤ 8, then mode 1 (8 Hz); `.lowPower` → mode 1;
    /// `.suspend` → power-down (reported rate 0). The range is fixed at 4912 µT.
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError)
        -> (cntl1: UInt8, actual: SensorConfiguration)
    {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        guard requested.rateHz <= 100 || requested.powerMode == .suspend else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 100 Hz")
        }
        if let range = requested.magneticRangeMicroTesla, !covers(AK8963Datasheet.rangeMicroTesla, range) {
            throw .unsupportedConfiguration(chip: chipName, detail: "magnetic range \(range) µT: at most 4912 µT")
        }
        let mode: AK8963Datasheet.Mode =
            switch requested.powerMode {
            case .suspend: .powerDown
            case .lowPower: .continuous1
            case .normal: requested.rateHz <= 8 ? .continuous1 : .continuous2
            }
        let cntl1 = mode == .powerDown ? mode.rawValue : AK8963Datasheet.Field.bit.inserting(1, into: mode.rawValue)
        let actual = SensorConfiguration(
            rateHz: mode.rateHz ?? 0, powerMode: requested.powerMode, oversampling: 1,
            magneticRangeMicroTesla: AK8963Datasheet.rangeMicroTesla)
        return (cntl1, actual)
    }

    /// Applies `configuration` (see `registerSettings(for:)`), passing through power-down as the datasheet
    /// requires before any mode change.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard sensitivityAdjustment != nil else { throw notProbed(chip: Self.chipName) }
        let settings = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(
            address: address, register: Register.cntl1.rawValue,
            value: AK8963Datasheet.Mode.powerDown.rawValue)
        if settings.cntl1 != AK8963Datasheet.Mode.powerDown.rawValue {
            delay(AK8963Datasheet.modeChangeWaitUs)
            try bus.sensorWriteByte(address: address, register: Register.cntl1.rawValue, value: settings.cntl1)
        }
        self.configuration = settings.actual
        return settings.actual
    }

    /// Reads `ST1`, the data and `ST2` in one 8-byte burst (reading `ST2` releases the data registers).
    /// Returns µT in the AK8963's axes, or `nil` when `ST1.DRDY` says there is no new measurement.
    /// Throws `.invalidReading` when `ST2.HOFL` reports a magnetic overflow. Allocates nothing.
    public mutating func readMagneticFieldMicroTesla() throws(SensorError) -> Vector3? {
        guard let adjustment = sensitivityAdjustment else { throw notProbed(chip: Self.chipName) }
        let bus = self.bus, address = self.address
        let sample = try withTemporaryBytes(byteCount: AK8963Datasheet.Measurement.byteCount, alignment: 1) {
            (raw) throws(SensorError) -> AK8963Datasheet.Measurement in
            try bus.sensorRead(address: address, register: Register.st1.rawValue, into: raw)
            return AK8963Datasheet.Measurement(UnsafeRawBufferPointer(raw), at: 0)
        }
        guard sample.isReady else { return nil }
        return try Self.field(of: sample, adjustment: adjustment, bus: bus.name, address: address)
    }

    /// The field of `measurement` in µT (AK8963 axes), or `.invalidReading` when `ST2.HOFL` reports an overflow.
    public static func field(
        of measurement: AK8963Datasheet.Measurement, adjustment: AK8963Datasheet.SensitivityAdjustment,
        bus: String, address: UInt8
    ) throws(SensorError) -> Vector3 {
        if measurement.isOverflow {
            throw .invalidReading(
                chip: chipName, bus: bus, address: address,
                detail: "magnetic sensor overflow (ST2.HOFL): the field exceeds 4912 µT; a magnet is too close")
        }
        return measurement.fieldMicroTesla(adjustment: adjustment)
    }

    /// One reading: the field in µT in the AK8963's axes, or no field when there is no new measurement.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        SensorReading(timeS: timeS, magneticFieldMicroTesla: try readMagneticFieldMicroTesla())
    }
}

extension AK8963: DataReadyReporting {
    /// `ST1.DRDY`: a measurement has not been read yet (one register read; reading `ST2` at the end of a data read
    /// clears it).
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard sensitivityAdjustment != nil else { throw notProbed(chip: Self.chipName) }
        return AK8963Datasheet.Field.drdy.extract(from: try bus.sensorReadByte(address: address, register: Register.st1.rawValue))
            == 1
    }
}
