import LodestoneCore

/// MEMSIC MMC5983MA register map, fields and conversions, independent of any bus.
///
/// Source: MEMSIC, *MMC5983MA Low Noise, High Accuracy 3-axis Magnetic Sensor*, datasheet rev. A (2019):
/// "Register map", "Register details", and the electrical characteristics (sensitivity, null field output,
/// measurement times).
public enum MMC5983MADatasheet {
    /// The register map. Names follow the datasheet in lowerCamelCase. Internal control 0…3 are write-only (they
    /// read back 0).
    public enum Register: UInt8, Sendable, CaseIterable {
        /// X output bits 17:10, then bits 9:2 (`Xout1`); Y and Z alike (0x00…0x05).
        case xout0 = 0x00
        /// The two lowest bits of X [7:6], Y [5:4] and Z [3:2].
        case xyzout2 = 0x06
        /// Temperature output, unsigned: −75 °C + 0.8 °C per LSB.
        case tout = 0x07
        /// `OTP_Read_Done` [4], `Meas_T_Done` [1], `Meas_M_Done` [0].
        case status = 0x08
        /// `OTP_Read` [6], `Auto_SR_en` [5], `Reset` [4], `Set` [3], `INT_meas_done_en` [2], `TM_T` [1], `TM_M` [0].
        case internalControl0 = 0x09
        /// `SW_RST` [7], `YZ-inhibit` [4:3], `X-inhibit` [2], `BW` [1:0].
        case internalControl1 = 0x0A
        /// `En_prd_set` [7], `Prd_set` [6:4], `Cmm_en` [3], `CM_Freq` [2:0].
        case internalControl2 = 0x0B
        /// `Spi_3w` [6], `St_enm` [2], `St_enp` [1].
        case internalControl3 = 0x0C
        /// Product ID, 0x30.
        case productID = 0x2F
    }

    /// Register fields.
    public enum Field {
        public static let otpReadDone = BitField(mask: 0b0001_0000)
        public static let measTDone = BitField(mask: 0b0000_0010)
        public static let measMDone = BitField(mask: 0b0000_0001)
        public static let autoSREn = BitField(mask: 0b0010_0000)
        public static let reset = BitField(mask: 0b0001_0000)
        public static let set = BitField(mask: 0b0000_1000)
        public static let tmT = BitField(mask: 0b0000_0010)
        public static let tmM = BitField(mask: 0b0000_0001)
        public static let swRst = BitField(mask: 0b1000_0000)
        public static let bw = BitField(mask: 0b0000_0011)
        public static let enPrdSet = BitField(mask: 0b1000_0000)
        public static let prdSet = BitField(mask: 0b0111_0000)
        public static let cmmEn = BitField(mask: 0b0000_1000)
        public static let cmFreq = BitField(mask: 0b0000_0111)
    }

    /// `BW` settings: the decimation filter bandwidth and the measurement time it takes.
    public enum Bandwidth: UInt8, Sendable, CaseIterable {
        case hz100 = 0b00, hz200, hz400, hz800
        /// The measurement time, µs: 8, 4, 2 and 0.5 ms.
        public var measurementTimeUs: Int {
            switch self {
            case .hz100: 8000
            case .hz200: 4000
            case .hz400: 2000
            case .hz800: 500
            }
        }
    }

    /// `CM_Freq` settings: the continuous-mode rate. 200 Hz needs `BW` ≥ 200 Hz, 1000 Hz needs `BW` 800 Hz.
    public enum ContinuousRate: UInt8, Sendable, CaseIterable {
        case off = 0, hz1, hz10, hz20, hz50, hz100, hz200, hz1000
        /// The rate, Hz (0 when off).
        public var rateHz: Double {
            switch self {
            case .off: 0
            case .hz1: 1
            case .hz10: 10
            case .hz20: 20
            case .hz50: 50
            case .hz100: 100
            case .hz200: 200
            case .hz1000: 1000
            }
        }
    }

    /// `Prd_set` settings: a SET every 1, 25, 75, 100, 250, 500, 1000 or 2000 measurements.
    public static let periodicSetMeasurements: [Int] = [1, 25, 75, 100, 250, 500, 1000, 2000]

    /// The product ID value.
    public static let productIDValue: UInt8 = 0x30
    /// The 7-bit I2C address (the only one).
    public static let addresses: [UInt8] = [0x30]
    /// Sensitivity of the 18-bit output, counts/gauss.
    public static let countsPerGauss = 16384.0
    /// The 18-bit output at zero field (null field output).
    public static let nullFieldCounts: UInt32 = 131_072
    /// The largest 18-bit output.
    public static let maximumCounts: UInt32 = 262_143
    /// Full scale, ± gauss.
    public static let rangeGauss = 8.0
    /// Time a software reset (or power-on) takes, µs (datasheet: 10 ms).
    public static let resetTimeUs = 10_000
    /// Time after a SET or RESET before the next measurement, µs (the pulse lasts 500 ns; 1 µs is the bus's grain).
    public static let setResetTimeUs = 1

    /// The 18-bit X, Y, Z codes from the 7 bytes read from `Xout0`.
    @inlinable public static func codes(_ b: UnsafeRawBufferPointer) -> (x: UInt32, y: UInt32, z: UInt32) {
        let low = UInt32(b[6])
        return (
            UInt32(b[0]) << 10 | UInt32(b[1]) << 2 | (low >> 6) & 0b11,
            UInt32(b[2]) << 10 | UInt32(b[3]) << 2 | (low >> 4) & 0b11,
            UInt32(b[4]) << 10 | UInt32(b[5]) << 2 | (low >> 2) & 0b11
        )
    }

    /// µT from an 18-bit code: `(code − 131072) / 16384 · 100 µT/gauss`.
    @inlinable public static func magneticFieldMicroTesla(code: UInt32) -> Double {
        (Double(code) - Double(nullFieldCounts)) / countsPerGauss * PhysicalConstants.microTeslaPerGauss
    }

    /// °C from `Tout`: `−75 + 0.8 · Tout`.
    @inlinable public static func temperatureC(tout: UInt8) -> Double { -75 + 0.8 * Double(tout) }
}

/// Driver for the MEMSIC MMC5983MA three-axis magnetometer, generic over its bus.
///
/// Continuous mode at a `CM_Freq` rate with the narrowest bandwidth whose measurement fits in a period, automatic
/// SET/RESET and a periodic SET every 100 measurements (which keeps the sensor's magnetization after strong fields).
/// X, Y, Z (18 bits) in one 7-byte burst. Data-ready is `STATUS.Meas_M_Done`.
///
/// **SET/RESET offset cancelling.** The anisotropic magnetoresistive bridge reads `+H + offset` after a SET and
/// `−H + offset` after a RESET; `measureBridgeOffset()` measures once in each state and stores
/// `offset = (H_set + H_reset) / 2`, which later reads subtract (it drifts with temperature: measure again when the
/// temperature changes). Without it, reads report `H + offset` as other drivers do; the calibration then absorbs the
/// offset with the hard iron.
public struct MMC5983MA<Bus: RegisterBus>: SensorDriver {
    /// The register map (`MMC5983MADatasheet.Register`).
    public typealias Register = MMC5983MADatasheet.Register
    private typealias F = MMC5983MADatasheet.Field

    public static var chipName: String { "mmc5983ma" }
    public static var kinds: [SensorKind] { [.magnetometer] }
    public static var addresses: [UInt8] { MMC5983MADatasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds: after the reset, around SET/RESET and for one-shot measurements.
    public let delay: @Sendable (Int) -> Void
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    /// The settings in use; `nil` before `configure(_:)`.
    public private(set) var settings: Settings?
    /// The bridge offset measured by `measureBridgeOffset()`, µT in the chip's axes, subtracted from every read; `nil`
    /// until measured (and after `probe()`).
    public private(set) var bridgeOffsetMicroTesla: Vector3?
    private var isProbed = false

    /// A driver for the MMC5983MA at `address` on `bus`. Does no I/O.
    public init(bus: Bus, address: UInt8 = MMC5983MADatasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Checks the product ID, software-resets (`SW_RST`), waits 10 ms, checks the ID again and waits (bounded) for
    /// `STATUS.OTP_Read_Done`. Leaves the chip idle (no continuous measurement).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        isProbed = false
        configuration = nil
        settings = nil
        bridgeOffsetMicroTesla = nil
        let id = try bus.identifyAndReset(
            chip: Self.chipName, address: address, idRegister: Register.productID.rawValue,
            expected: [MMC5983MADatasheet.productIDValue],
            resetRegister: Register.internalControl1.rawValue, resetValue: F.swRst.mask,
            resetTimeUs: MMC5983MADatasheet.resetTimeUs, delay: delay)
        try bus.pollRegister(
            chip: Self.chipName, address: address, register: Register.status.rawValue, initialDelayUs: 0,
            attempts: 5, intervalUs: 1000, delay: delay
        ) { F.otpReadDone.extract(from: $0) == 1 }
        isProbed = true
        return ChipIdentity(chip: Self.chipName, idValue: id)
    }

    /// Register values for a configuration and what they give.
    public struct Settings: Sendable, Hashable {
        public var internalControl0: UInt8
        public var internalControl1: UInt8
        public var internalControl2: UInt8
        public var bandwidth: MMC5983MADatasheet.Bandwidth
        public var actual: SensorConfiguration
    }

    /// The register values for `requested` (pure; no I/O).
    ///
    /// - Rate: the slowest `CM_Freq` of at least `rateHz` (1, 10, 20, 50, 100, 200, 1000 Hz).
    /// - Bandwidth: `.normal` takes the narrowest (least noise: 100 Hz, 8 ms) whose measurement fits in a period and
    ///   that the rate allows (200 Hz needs ≥ 200 Hz, 1000 Hz needs 800 Hz); `.lowPower` the widest (0.5 ms: the
    ///   least energy per measurement).
    /// - `.suspend`: continuous mode off (reported rate 0).
    /// - The range is fixed at ±8 gauss (800 µT); there is no oversampling setting (reported 1).
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        if let range = requested.magneticRangeMicroTesla, !covers(MMC5983MADatasheet.rangeGauss * 100, range) {
            throw .unsupportedConfiguration(chip: chipName, detail: "magnetic range \(range) µT: at most 800 µT (±8 gauss)")
        }
        typealias R = MMC5983MADatasheet.ContinuousRate
        typealias B = MMC5983MADatasheet.Bandwidth
        guard let rate = R.allCases.first(where: { $0 != .off && covers($0.rateHz, requested.rateHz) }) else {
            throw .unsupportedConfiguration(chip: chipName, detail: "rate \(requested.rateHz) Hz: at most 1000 Hz")
        }
        let least: B = rate == .hz1000 ? .hz800 : (rate == .hz200 ? .hz200 : .hz100)
        let bandwidth: B =
            requested.powerMode == .lowPower
            ? .hz800
            : (B.allCases.first { $0.rawValue >= least.rawValue && Double($0.measurementTimeUs) < 1e6 / rate.rateHz } ?? .hz800)
        let running = requested.powerMode != .suspend
        let control2 =
            running
            ? F.enPrdSet.inserting(
                1, into: F.prdSet.inserting(3, into: F.cmmEn.inserting(1, into: F.cmFreq.inserting(rate.rawValue, into: 0))))
            : 0
        return Settings(
            internalControl0: F.autoSREn.inserting(1, into: 0), internalControl1: F.bw.inserting(bandwidth.rawValue, into: 0),
            internalControl2: control2, bandwidth: bandwidth,
            actual: SensorConfiguration(
                rateHz: running ? rate.rateHz : 0, powerMode: requested.powerMode, oversampling: 1,
                magneticRangeMicroTesla: MMC5983MADatasheet.rangeGauss * 100))
    }

    /// Applies `configuration` (see `registerSettings(for:)`): internal control 1 (bandwidth), 0 (automatic
    /// SET/RESET), then 2 (continuous mode and periodic SET).
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        try bus.sensorWriteByte(address: address, register: Register.internalControl1.rawValue, value: s.internalControl1)
        try bus.sensorWriteByte(address: address, register: Register.internalControl0.rawValue, value: s.internalControl0)
        try bus.sensorWriteByte(address: address, register: Register.internalControl2.rawValue, value: s.internalControl2)
        settings = s
        self.configuration = s.actual
        return s.actual
    }

    /// Reads X, Y, Z in one 7-byte burst from `Xout0`; µT in the chip's axes, less `bridgeOffsetMicroTesla` when
    /// measured. Throws `.invalidReading` for an axis at either end of the 18-bit range (a field beyond ±8 gauss).
    /// Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        let field = try readFieldMicroTesla()
        return SensorReading(timeS: timeS, magneticFieldMicroTesla: field - (bridgeOffsetMicroTesla ?? .zero))
    }

    /// SET/RESET offset cancelling: stops continuous mode, measures once after a SET (`H_set = +H + offset`) and once
    /// after a RESET (`H_reset = −H + offset`), SETs again and restores the configuration. Stores and returns
    /// `offset = (H_set + H_reset) / 2`, with the offset-free field `H = (H_set − H_reset) / 2`, µT in the chip's axes.
    /// Blocks for two measurement times.
    @discardableResult
    public mutating func measureBridgeOffset() throws(SensorError) -> (fieldMicroTesla: Vector3, offsetMicroTesla: Vector3) {
        guard isProbed, let s = settings else { throw notProbed(chip: Self.chipName) }
        let control0 = Register.internalControl0.rawValue
        try bus.sensorWriteByte(address: address, register: Register.internalControl2.rawValue, value: 0)
        try bus.sensorWriteByte(address: address, register: control0, value: F.set.mask)
        delay(MMC5983MADatasheet.setResetTimeUs)
        let afterSet = try measureOnce(s.bandwidth)
        try bus.sensorWriteByte(address: address, register: control0, value: F.reset.mask)
        delay(MMC5983MADatasheet.setResetTimeUs)
        let afterReset = try measureOnce(s.bandwidth)
        try bus.sensorWriteByte(address: address, register: control0, value: F.set.mask)
        delay(MMC5983MADatasheet.setResetTimeUs)
        try bus.sensorWriteByte(address: address, register: control0, value: s.internalControl0)
        try bus.sensorWriteByte(address: address, register: Register.internalControl2.rawValue, value: s.internalControl2)
        let offset = (afterSet + afterReset) * 0.5
        bridgeOffsetMicroTesla = offset
        return ((afterSet - afterReset) * 0.5, offset)
    }

    /// Forgets the bridge offset: reads report `H + offset` again.
    public mutating func clearBridgeOffset() { bridgeOffsetMicroTesla = nil }

    /// One measurement on command (`TM_M`), waited for and read.
    private mutating func measureOnce(_ bandwidth: MMC5983MADatasheet.Bandwidth) throws(SensorError) -> Vector3 {
        try bus.sensorWriteByte(address: address, register: Register.internalControl0.rawValue, value: F.tmM.mask)
        try bus.pollRegister(
            chip: Self.chipName, address: address, register: Register.status.rawValue,
            initialDelayUs: bandwidth.measurementTimeUs, attempts: 5, intervalUs: 1000, delay: delay
        ) {
            F.measMDone.extract(from: $0) == 1
        }
        return try readFieldMicroTesla()
    }

    private func readFieldMicroTesla() throws(SensorError) -> Vector3 {
        let bus = self.bus, address = self.address
        let (x, y, z) = try withTemporaryBytes(byteCount: 7, alignment: 1) {
            (raw) throws(SensorError) -> (UInt32, UInt32, UInt32) in
            try bus.sensorRead(address: address, register: Register.xout0.rawValue, into: raw)
            return MMC5983MADatasheet.codes(UnsafeRawBufferPointer(raw))
        }
        func saturated(_ code: UInt32) -> Bool { code == 0 || code == MMC5983MADatasheet.maximumCounts }
        if saturated(x) || saturated(y) || saturated(z) {
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address,
                detail: "an axis is at the end of its 18-bit range: the field exceeds ±8 gauss; move the magnet away")
        }
        return Vector3(
            MMC5983MADatasheet.magneticFieldMicroTesla(code: x), MMC5983MADatasheet.magneticFieldMicroTesla(code: y),
            MMC5983MADatasheet.magneticFieldMicroTesla(code: z))
    }
}

extension MMC5983MA: DataReadyReporting {
    /// `STATUS.Meas_M_Done`: a measurement is waiting in the output registers.
    public mutating func isDataReady() throws(SensorError) -> Bool {
        guard isProbed else { throw notProbed(chip: Self.chipName) }
        return F.measMDone.extract(from: try bus.sensorReadByte(address: address, register: Register.status.rawValue)) == 1
    }
}
