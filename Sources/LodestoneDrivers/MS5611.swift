import LodestoneCore

/// TE Connectivity (Measurement Specialties) MS5611-01BA03 commands, PROM layout, CRC-4 and compensation,
/// independent of any bus.
///
/// Source: TE, *MS5611-01BA03 Barometric Pressure Sensor, with stainless steel cap*, datasheet DA5611-01BA03_011
/// (sections "Commands", "Pressure and temperature calculation", "Second order temperature compensation") and
/// TE application note AN520 *C-code example for MS56xx, MS57xx (except analog sensor), and MS58xx series
/// pressure sensors* (the CRC-4).
///
/// The MS5611 has no registers: every transfer starts with a command byte. Read as a `RegisterBus` "register",
/// the command is sent and the answer follows (PROM words, ADC result); a command that starts something
/// (reset, conversion) is a write of zero bytes.
public enum MS5611Datasheet {
    /// The command bytes (datasheet "Commands").
    public enum Command: UInt8, Sendable, CaseIterable {
        /// ADC read: the 24-bit result of the last conversion, big-endian; 0 when no conversion finished since
        /// the last ADC read.
        case adcRead = 0x00
        /// Reset: reloads the PROM into the internal registers; takes `resetTimeUs`.
        case reset = 0x1E
        /// Convert D1 (digital pressure) at OSR 256; add `Oversampling.commandOffset` for the others.
        case convertD1 = 0x40
        /// Convert D2 (digital temperature) at OSR 256; add `Oversampling.commandOffset` for the others.
        case convertD2 = 0x50
        /// PROM read of word 0; word `n` (0…7) is `0xA0 + 2n`.
        case promRead = 0xA0
    }

    /// Oversampling ratios (OSR) of a conversion, with their maximum conversion times (datasheet "Operating
    /// conditions": ADC conversion time, max).
    public enum Oversampling: UInt8, Sendable, CaseIterable {
        case osr256 = 0, osr512, osr1024, osr2048, osr4096

        /// The oversampling ratio, 256…4096.
        public var ratio: Int { 256 << Int(rawValue) }
        /// Added to `convertD1`/`convertD2` to select this OSR.
        public var commandOffset: UInt8 { rawValue * 2 }
        /// Maximum conversion time, µs: 600, 1170, 2280, 4540, 9040.
        public var conversionTimeUs: Int {
            switch self {
            case .osr256: 600
            case .osr512: 1170
            case .osr1024: 2280
            case .osr2048: 4540
            case .osr4096: 9040
            }
        }
        /// The `SensorConfiguration.oversampling` factor this OSR answers: 1 for OSR 256 (the least), 2, 4, 8, 16.
        public var factor: Int { 1 << Int(rawValue) }
    }

    /// 7-bit I2C addresses: `111011C`, where C is the complement of pin CSB (datasheet "I2C interface"):
    /// CSB low gives 0x77 (the usual wiring, e.g. Navio2, GY-63), CSB high 0x76.
    public static let addresses: [UInt8] = [0x77, 0x76]
    /// Time the reset sequence takes before the PROM can be read, µs (datasheet "Reset sequence": 2.8 ms).
    public static let resetTimeUs = 2800
    /// The PROM address of word `n` (0…7).
    public static func promAddress(word n: Int) -> UInt8 { Command.promRead.rawValue &+ UInt8(truncatingIfNeeded: 2 * n) }

    /// The PROM: factory data (word 0), the six calibration coefficients C1…C6 (words 1…6) and the serial code
    /// with the CRC-4 in its low 4 bits (word 7).
    public struct Calibration: Sendable, Hashable {
        /// Word 0: factory data and setup.
        public var factoryData: UInt16
        /// C1: pressure sensitivity, SENS_T1.
        public var c1: UInt16
        /// C2: pressure offset, OFF_T1.
        public var c2: UInt16
        /// C3: temperature coefficient of pressure sensitivity, TCS.
        public var c3: UInt16
        /// C4: temperature coefficient of pressure offset, TCO.
        public var c4: UInt16
        /// C5: reference temperature, T_REF.
        public var c5: UInt16
        /// C6: temperature coefficient of the temperature, TEMPSENS.
        public var c6: UInt16
        /// Word 7: serial code [15:4] and CRC [3:0].
        public var serialAndCRC: UInt16

        public init(
            factoryData: UInt16, c1: UInt16, c2: UInt16, c3: UInt16, c4: UInt16, c5: UInt16, c6: UInt16,
            serialAndCRC: UInt16
        ) {
            self.factoryData = factoryData
            self.c1 = c1; self.c2 = c2; self.c3 = c3; self.c4 = c4; self.c5 = c5; self.c6 = c6
            self.serialAndCRC = serialAndCRC
        }

        /// The PROM from its eight words, word 0 first.
        public init(words w: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16)) {
            self.init(factoryData: w.0, c1: w.1, c2: w.2, c3: w.3, c4: w.4, c5: w.5, c6: w.6, serialAndCRC: w.7)
        }

        /// Word `n` (0…7).
        public func word(_ n: Int) -> UInt16 {
            switch n {
            case 0: factoryData
            case 1: c1
            case 2: c2
            case 3: c3
            case 4: c4
            case 5: c5
            case 6: c6
            default: serialAndCRC
            }
        }

        /// The CRC-4 stored in word 7.
        public var storedCRC: UInt8 { UInt8(serialAndCRC & 0x000F) }
        /// The CRC-4 of the PROM contents, computed as AN520 does.
        public var computedCRC: UInt8 { MS5611Datasheet.crc4 { word($0) } }

        /// The datasheet's example coefficients (datasheet "Pressure and temperature calculation", typical
        /// values): C1…C6 = 40127, 36924, 23317, 23282, 33464, 28312. Words 0 and 7 are not given there; these
        /// are 0 and the serial 0x000 with the CRC that makes the PROM valid.
        public static let datasheetExample: Calibration = {
            var c = Calibration(
                factoryData: 0, c1: 40127, c2: 36924, c3: 23317, c4: 23282, c5: 33464, c6: 28312,
                serialAndCRC: 0)
            c.serialAndCRC = UInt16(c.computedCRC)
            return c
        }()

        /// Why this PROM cannot come from a working MS5611, or `nil` if it can: every word 0x0000 or 0xFFFF
        /// (nothing answered, or an unloaded PROM), a CRC-4 mismatch, or a zero coefficient.
        public var problem: String? {
            let words = (0..<8).map(word)
            if words.allSatisfy({ $0 == 0 }) { return "every PROM word is 0x0000" }
            if words.allSatisfy({ $0 == 0xFFFF }) { return "every PROM word is 0xFFFF" }
            if storedCRC != computedCRC {
                return "PROM CRC-4 is \(computedCRC), word 7 says \(storedCRC)"
            }
            if let zero = (1...6).first(where: { word($0) == 0 }) { return "C\(zero) is 0" }
            return nil
        }
    }

    /// The CRC-4 of AN520 over the eight PROM words given by `word(0…7)`: the low byte of word 7 (which holds
    /// the CRC itself) counts as zero; polynomial 0x3000 over 16-bit remainders, result = remainder bits 15:12.
    public static func crc4(_ word: (Int) -> UInt16) -> UInt8 {
        var remainder: UInt16 = 0
        for count in 0..<16 {
            var w = word(count >> 1)
            if count >> 1 == 7 { w &= 0xFF00 }
            remainder ^= count & 1 == 1 ? (w & 0x00FF) : (w >> 8)
            for _ in 0..<8 {
                remainder = remainder & 0x8000 != 0 ? (remainder << 1) ^ 0x3000 : remainder << 1
            }
        }
        return UInt8((remainder >> 12) & 0x000F)
    }

    /// The compensated values, in the datasheet's integer units.
    public struct Compensated: Sendable, Hashable {
        /// TEMP, 0.01 °C (2007 = 20.07 °C), after second-order compensation.
        public var temperatureCentiC: Int32
        /// P, 0.01 mbar = 1 Pa (100009 = 1000.09 mbar), after second-order compensation.
        public var pressurePa: Int32
        /// dT: the difference between the actual and the reference temperature, in D2 units.
        public var dT: Int32
        /// The second-order terms applied (0 at 20 °C and above).
        public var t2: Int64, off2: Int64, sens2: Int64
    }

    /// Temperature and pressure from the raw D1 (pressure) and D2 (temperature) conversions with the first-order
    /// calculation of the datasheet and its second-order temperature compensation below 20 °C (and again below
    /// −15 °C). Integer arithmetic in the widths the datasheet gives (32-bit dT/TEMP, 64-bit OFF/SENS), with
    /// divisions by 2ⁿ as arithmetic shifts (flooring, as the Linux `ms5611` driver does; the datasheet's
    /// example values are positive, where both roundings agree). Never traps.
    public static func compensate(d1: UInt32, d2: UInt32, calibration c: Calibration) -> Compensated {
        let dT = Int64(d2) - (Int64(c.c5) << 8)
        var temp = 2000 + ((dT * Int64(c.c6)) >> 23)
        var off = (Int64(c.c2) << 16) + ((Int64(c.c4) * dT) >> 7)
        var sens = (Int64(c.c1) << 15) + ((Int64(c.c3) * dT) >> 8)
        var t2: Int64 = 0, off2: Int64 = 0, sens2: Int64 = 0
        if temp < 2000 {
            t2 = (dT &* dT) >> 31
            let below20 = (temp - 2000) * (temp - 2000)
            off2 = (5 * below20) >> 1
            sens2 = (5 * below20) >> 2
            if temp < -1500 {
                let belowMinus15 = (temp + 1500) * (temp + 1500)
                off2 += 7 * belowMinus15
                sens2 += (11 * belowMinus15) >> 1
            }
        }
        temp -= t2
        off -= off2
        sens -= sens2
        let p = (((Int64(d1) &* sens) >> 21) &- off) >> 15
        return Compensated(
            temperatureCentiC: Int32(truncatingIfNeeded: temp), pressurePa: Int32(truncatingIfNeeded: p),
            dT: Int32(truncatingIfNeeded: dT), t2: t2, off2: off2, sens2: sens2)
    }

    /// Reads the eight PROM words from the chip at `address` (reads only; no reset) and returns them if they pass
    /// `Calibration.problem`, else `nil`. This is how `lodestone scan` recognises an MS5611, which has no ID
    /// register. A bus error gives `nil`.
    public static func validPROM<Bus: RegisterBus>(bus: Bus, address: UInt8) -> Calibration? {
        guard let calibration = try? readPROM(bus: bus, address: address), calibration.problem == nil else { return nil }
        return calibration
    }

    /// The eight PROM words, one 2-byte big-endian read per word (the chip answers each PROM command with one
    /// word; it does not auto-increment).
    static func readPROM<Bus: RegisterBus>(bus: Bus, address: UInt8) throws(SensorError) -> Calibration {
        try withTemporaryBytes(byteCount: 16, alignment: 2) { (raw) throws(SensorError) -> Calibration in
            for n in 0..<8 {
                let slot = UnsafeMutableRawBufferPointer(rebasing: raw[(2 * n)..<(2 * n + 2)])
                try bus.sensorRead(address: address, register: promAddress(word: n), into: slot)
            }
            let b = UnsafeRawBufferPointer(raw)
            return Calibration(
                words: (
                    Bytes.beU16(b, 0), Bytes.beU16(b, 2), Bytes.beU16(b, 4), Bytes.beU16(b, 6),
                    Bytes.beU16(b, 8), Bytes.beU16(b, 10), Bytes.beU16(b, 12), Bytes.beU16(b, 14)
                ))
        }
    }
}

/// Driver for the TE MS5611-01BA03 barometer and thermometer, generic over its bus.
///
/// The MS5611 converts on command, one conversion at a time, and answers an ADC read made before a conversion
/// finished with 0 (and a wrong result for the running conversion). So that a read never blocks the engine
/// for a pressure conversion, `read(timeS:)` is pipelined: it collects the pressure conversion started by the
/// previous read (waiting only for what remains of its conversion time, by the callers' clock) and compensates it
/// with the temperature converted just before that conversion started, refreshes the temperature every
/// `Settings.temperatureEveryReads` reads (a blocking D2 conversion), and starts the next pressure conversion
/// before returning. A reading is therefore one read period old (the barometer's latency). The first read after `configure(_:)`, and every read in
/// `.suspend`, converts on the spot (blocking one or two conversion times).
public struct MS5611<Bus: RegisterBus>: SensorDriver {
    public static var chipName: String { "ms5611" }
    public static var kinds: [SensorKind] { [.barometer, .thermometer] }
    public static var addresses: [UInt8] { MS5611Datasheet.addresses }

    public let bus: Bus
    public let address: UInt8
    /// Sleeps for the given number of microseconds: after the reset, and for conversions (see the type).
    public let delay: @Sendable (Int) -> Void
    /// The PROM read by `probe()`; `nil` before.
    public private(set) var calibration: MS5611Datasheet.Calibration?
    /// What `configure(_:)` last set; `nil` before.
    public private(set) var configuration: SensorConfiguration?
    /// The settings in use; `nil` before `configure(_:)`.
    public private(set) var settings: Settings?

    /// The pressure conversion started by the previous read, and when (the caller's `timeS`).
    private var pendingPressureSinceS: Double?
    /// The last temperature conversion.
    private var lastD2: UInt32?
    private var readsSinceTemperature = 0

    /// A driver for the MS5611 at `address` on `bus`. Does no I/O.
    /// - Parameter delay: sleeps for the given microseconds (the engine passes a real sleep; the default does not wait).
    public init(bus: Bus, address: UInt8 = MS5611Datasheet.addresses[0], delay: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.bus = bus; self.address = address; self.delay = delay
    }

    /// Sends the reset command, waits the 2.8 ms reset time and reads the PROM, which must pass its CRC-4.
    /// `ChipIdentity.idValue` is the CRC (the chip has no ID register).
    public mutating func probe() throws(SensorError) -> ChipIdentity {
        calibration = nil // until this probe succeeds
        settings = nil
        configuration = nil
        resetPipeline()
        try sendCommand(MS5611Datasheet.Command.reset.rawValue)
        delay(MS5611Datasheet.resetTimeUs)
        let calibration = try MS5611Datasheet.readPROM(bus: bus, address: address)
        if let problem = calibration.problem {
            throw .invalidTrim(chip: Self.chipName, bus: bus.name, address: address, detail: problem)
        }
        self.calibration = calibration
        return ChipIdentity(chip: Self.chipName, idValue: calibration.storedCRC)
    }

    /// How the driver converts.
    public struct Settings: Sendable, Hashable {
        /// OSR of the pressure (D1) conversions.
        public var pressureOversampling: MS5611Datasheet.Oversampling
        /// OSR of the temperature (D2) conversions.
        public var temperatureOversampling: MS5611Datasheet.Oversampling
        /// A temperature conversion every this many reads (1 = every read).
        public var temperatureEveryReads: Int
        /// Whether reads are pipelined (`.normal`, `.lowPower`) or convert on the spot (`.suspend`).
        public var isPipelined: Bool
        /// What these settings give.
        public var actual: SensorConfiguration
    }

    /// The settings for `requested` (pure; no I/O).
    ///
    /// - `oversampling` 1, 2, 4, 8, 16 selects OSR 256…4096 for pressure (the nearest at or above, capped at 4096),
    ///   lowered while its conversion does not fit in a period at `rateHz`; above 1666 Hz (OSR 256) → unsupported.
    /// - Temperature uses the same OSR, converted once per read up to 10 Hz and every ⌈rate / 10⌉ reads above,
    ///   so that temperature (which changes slowly) costs at most ten blocking conversions a second.
    /// - `.lowPower` → OSR 256 (the least energy per conversion, datasheet "Supply current").
    /// - `.suspend` → no conversion between reads (the chip idles at its standby current); each read converts
    ///   on demand. Reported rate 0.
    public static func registerSettings(for requested: SensorConfiguration) throws(SensorError) -> Settings {
        try validateRate(requested.rateHz, chip: chipName)
        try rejectFeaturesNotOffered(requested, chip: chipName)
        typealias O = MS5611Datasheet.Oversampling
        guard requested.oversampling >= 1 else {
            throw .unsupportedConfiguration(
                chip: chipName, detail: "oversampling \(requested.oversampling): use 1, 2, 4, 8 or 16")
        }
        let periodUs = 1_000_000 / requested.rateHz
        guard Double(O.osr256.conversionTimeUs) <= periodUs || requested.powerMode == .suspend else {
            throw .unsupportedConfiguration(
                chip: chipName,
                detail: "rate \(requested.rateHz) Hz: at most 1666 Hz (OSR 256 converts in 0.6 ms)")
        }
        var osr: O =
            requested.powerMode == .lowPower ? .osr256 : (O.allCases.first { $0.factor >= requested.oversampling } ?? .osr4096)
        while osr != .osr256, Double(osr.conversionTimeUs) > periodUs, let lower = O(rawValue: osr.rawValue - 1) {
            osr = lower
        }
        let every = requested.rateHz <= 10 ? 1 : Int((requested.rateHz / 10).rounded(.up))
        let pipelined = requested.powerMode != .suspend
        let actual = SensorConfiguration(
            rateHz: pipelined ? requested.rateHz : 0, powerMode: requested.powerMode,
            oversampling: osr.factor)
        return Settings(
            pressureOversampling: osr, temperatureOversampling: osr, temperatureEveryReads: every,
            isPipelined: pipelined, actual: actual)
    }

    /// Applies `configuration` (see `registerSettings(for:)`). Writes nothing: the MS5611 has no configuration
    /// registers; the next read starts converting with the new settings.
    @discardableResult
    public mutating func configure(_ configuration: SensorConfiguration) throws(SensorError) -> SensorConfiguration {
        guard calibration != nil else { throw notProbed(chip: Self.chipName) }
        let s = try Self.registerSettings(for: configuration)
        if pendingPressureSinceS != nil, let old = settings {
            // A conversion may still be running: it must finish before the next command.
            delay(old.pressureOversampling.conversionTimeUs)
        }
        resetPipeline()
        settings = s
        self.configuration = s.actual
        return s.actual
    }

    /// One reading: pressure in Pa and temperature in °C (see the type for the pipeline). Each pressure conversion
    /// is compensated with the temperature conversion made just before it started, so the pair belongs to one
    /// instant. Throws `.invalidReading` when the ADC answers 0 (no finished conversion: the chip reset or a command
    /// was lost); the next read then starts afresh. Allocates nothing.
    public mutating func read(timeS: Double) throws(SensorError) -> SensorReading {
        guard let calibration, let settings else { throw notProbed(chip: Self.chipName) }
        typealias C = MS5611Datasheet.Command
        let d1: UInt32, d2: UInt32
        if !settings.isPipelined {
            d2 = try convert(C.convertD2, settings.temperatureOversampling, what: "temperature (D2)")
            d1 = try convert(C.convertD1, settings.pressureOversampling, what: "pressure (D1)")
        } else {
            if let startedS = pendingPressureSinceS, let pairedD2 = lastD2 {
                pendingPressureSinceS = nil
                let conversionUs = settings.pressureOversampling.conversionTimeUs
                let elapsedUs = (timeS - startedS) * 1_000_000
                if !(elapsedUs >= Double(conversionUs)) { // also when the clock went backwards or is NaN
                    delay(elapsedUs > 0 ? conversionUs - Int(elapsedUs) : conversionUs)
                }
                d1 = try readADC(what: "pressure (D1)")
                d2 = pairedD2
                if readsSinceTemperature >= settings.temperatureEveryReads - 1 {
                    lastD2 = try convert(C.convertD2, settings.temperatureOversampling, what: "temperature (D2)")
                    readsSinceTemperature = 0
                } else {
                    readsSinceTemperature += 1
                }
            } else {
                // Nothing pending (first read after configure, or after an error): convert on the spot.
                d1 = try convert(C.convertD1, settings.pressureOversampling, what: "pressure (D1)")
                d2 = try convert(C.convertD2, settings.temperatureOversampling, what: "temperature (D2)")
                lastD2 = d2
                readsSinceTemperature = 0
            }
            try sendCommand(C.convertD1.rawValue + settings.pressureOversampling.commandOffset)
            pendingPressureSinceS = timeS
        }
        let c = MS5611Datasheet.compensate(d1: d1, d2: d2, calibration: calibration)
        return SensorReading(timeS: timeS, pressurePa: Double(c.pressurePa), temperatureC: Double(c.temperatureCentiC) / 100)
    }

    // MARK: internals

    private mutating func resetPipeline() {
        pendingPressureSinceS = nil
        lastD2 = nil
        readsSinceTemperature = 0
    }

    /// Starts a conversion, waits its time and reads the result.
    private mutating func convert(
        _ command: MS5611Datasheet.Command, _ osr: MS5611Datasheet.Oversampling,
        what: StaticString
    ) throws(SensorError) -> UInt32 {
        try sendCommand(command.rawValue + osr.commandOffset)
        delay(osr.conversionTimeUs)
        return try readADC(what: what)
    }

    /// The 24-bit ADC result; 0 means no finished conversion (datasheet "ADC read").
    private mutating func readADC(what: StaticString) throws(SensorError) -> UInt32 {
        let bus = self.bus, address = self.address
        let value = try withTemporaryBytes(byteCount: 3, alignment: 1) { (raw) throws(SensorError) -> UInt32 in
            try bus.sensorRead(address: address, register: MS5611Datasheet.Command.adcRead.rawValue, into: raw)
            return Bytes.beU24(UnsafeRawBufferPointer(raw), 0)
        }
        if value == 0 {
            resetPipeline()
            throw .invalidReading(
                chip: Self.chipName, bus: bus.name, address: address,
                detail: "ADC read 0 for \(what): no finished conversion (the chip reset or missed the command)")
        }
        return value
    }

    /// Sends a command byte alone (a zero-byte write).
    private func sendCommand(_ command: UInt8) throws(SensorError) {
        do {
            try bus.write(address: address, register: command, bytes: UnsafeRawBufferPointer(start: nil, count: 0))
        } catch { throw .bus(error) }
    }
}
