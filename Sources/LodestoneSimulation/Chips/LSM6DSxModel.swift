import LodestoneCore
import LodestoneDrivers

/// A simulated ST LSM6DS3 / LSM6DSL / LSM6DSOX built from `LSM6DSxDatasheet`.
///
/// Modelled: `WHO_AM_I`; `SW_RESET` (registers back to their reset values, both sensors powered down); the
/// accelerometer and gyroscope each sampling while its ODR is not 0, with the configured full scale (`FS_XL`'s odd
/// order, `FS_125`), quantised and saturated to 16 bits; the temperature while either runs; `IF_INC`; `STATUS_REG`
/// bits set by a sample and cleared as the outputs are read; the wake-up function (the slope filter, half the
/// sample-to-sample change, against `WK_THS` × full scale / 64 on any axis; `INTERRUPTS_ENABLE` needed on DSL and
/// DSOX) setting `WAKE_UP_SRC.WU_IA`, cleared by reading it; and the FIFO in continuous mode: DS3/DSL 16-bit words
/// in gyroscope-then-accelerometer sets with `DIFF_FIFO` and `FIFO_PATTERN`, read through the window
/// `FIFO_DATA_OUT_L/H`; DSOX 7-byte tagged words read through the window `FIFO_DATA_OUT_TAG`…`Z_H`. The address wraps
/// back over the window and a word leaves the FIFO when its last byte is read, so a transfer that ends inside a word
/// leaves it to be read again from its start. The oldest data goes when the FIFO is full, which raises the overrun
/// flag (`FIFO_STATUS2` bit 6) until the next word is read; bypass mode empties it.
///
/// Set `accelerationMps2`, `angularVelocityRadS` (chip axes) and `temperatureC`; without a `sampleTimeS` a running
/// chip samples them at once, with one (the simulated board sets it after the inputs) at its ODR (the faster of
/// `ODR_XL` and `ODR_G`), so that its FIFO fills at the configured rate; either way again after every write.
public final class LSM6DSxModel: InertialChipModel {
    public typealias Register = LSM6DSxDatasheet.Register
    private typealias D = LSM6DSxDatasheet
    private typealias F = LSM6DSxDatasheet.Field

    /// Which member of the family.
    public let variant: LSM6DSxVariant
    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `WHO_AM_I`.
    public var whoAmI: UInt8 { didSet { registers[Register.whoAmI.rawValue] = whoAmI } }
    /// Specific force in the chip's axes, m/s² (default: lying flat at rest).
    public var accelerationMps2 = Vector3(0, 0, PhysicalConstants.standardGravityMps2) { didSet { measureIfUntimed() } }
    /// Angular velocity in the chip's axes, rad/s.
    public var angularVelocityRadS = Vector3.zero { didSet { measureIfUntimed() } }
    /// Die temperature, °C.
    public var temperatureC = 25.0 { didSet { measureIfUntimed() } }
    /// Simulated time, s (`InertialChipModel.sampleTimeS`): set, the chip samples at `outputDataRateHz`.
    public var sampleTimeS: Double? { didSet { sampleIfDue() } }
    private var clock = SampleClock()
    /// Number of software resets seen.
    public private(set) var resetCount = 0
    private var fifo: ByteFIFO
    private var previousAccelerationG: Vector3?

    /// A chip of `variant` in its power-on state.
    public init(variant: LSM6DSxVariant) {
        self.variant = variant
        self.whoAmI = variant.whoAmI
        fifo = ByteFIFO(capacity: variant.hasTaggedFIFO ? variant.fifoWords * 7 : variant.fifoWords * 2, emptyValue: 0)
        powerOnReset()
    }

    /// The accelerometer's ODR code (`CTRL1_XL.ODR_XL`; 0 = powered down).
    public var accelerometerRateCode: UInt8 { F.odr.extract(from: registers[Register.ctrl1XL.rawValue]) }
    /// The gyroscope's ODR code.
    public var gyroscopeRateCode: UInt8 { F.odr.extract(from: registers[Register.ctrl2G.rawValue]) }
    /// Words waiting in the FIFO (16-bit words on DS3/DSL, tagged words on DSOX).
    public var fifoWordCount: Int { fifo.count / (variant.hasTaggedFIFO ? 7 : 2) }

    /// The configured accelerometer full scale.
    public var accelFullScale: LSM6DSxDatasheet.AccelFullScale {
        D.AccelFullScale(rawValue: F.fsXL.extract(from: registers[Register.ctrl1XL.rawValue])) ?? .g2
    }

    /// The configured gyroscope full scale.
    public var gyroFullScale: LSM6DSxDatasheet.GyroFullScale {
        let ctrl2 = registers[Register.ctrl2G.rawValue]
        if F.fs125.extract(from: ctrl2) == 1 { return .dps125 }
        return D.GyroFullScale(rawValue: F.fsG.extract(from: ctrl2) + 1) ?? .dps245
    }

    private var incrementsAddress: Bool { F.ifInc.extract(from: registers[Register.ctrl3C.rawValue]) == 1 }
    private var fifoPort: UInt8 { variant.hasTaggedFIFO ? Register.fifoDataOutTagDSOX.rawValue : Register.fifoDataOutL.rawValue }

    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        incrementsAddress ? UInt8(truncatingIfNeeded: Int(start) + offset) : start
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        if register == fifoPort { // the window over the oldest word; the address wraps back to its start
            let wordBytes = variant.hasTaggedFIFO ? 7 : 2
            for i in 0..<buffer.count {
                let offset = incrementsAddress ? i % wordBytes : 0
                buffer[i] = fifo.peek(offset)
                if offset == wordBytes - 1 { for _ in 0..<wordBytes { _ = fifo.pop() } }
            }
            return
        }
        updateFIFOStatus()
        for i in 0..<buffer.count {
            let r = registerAddress(start: register, offset: i)
            buffer[i] = registers[r]
            switch r {
            case 0x20...0x21: clearStatus(F.tda)
            case 0x22...0x27: clearStatus(F.gda)
            case 0x28...0x2D: clearStatus(F.xlda)
            case Register.wakeUpSrc.rawValue: registers[r] = 0
            default: break
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = registerAddress(start: register, offset: i)
            switch Register(rawValue: r) {
            case .ctrl3C:
                if F.swReset.extract(from: value) == 1 {
                    resetCount += 1
                    powerOnReset()
                } else {
                    registers[r] = value
                }
            case .whoAmI, .statusReg, .wakeUpSrc, .fifoStatus1, .fifoDataOutL, .fifoDataOutTagDSOX:
                break // read-only
            case .fifoMode:
                registers[r] = value
                if F.fifoMode.extract(from: value) == D.FIFOMode.bypass.rawValue { fifo.removeAll() }
            default:
                if (0x20...0x2D).contains(r) || (0x3A...0x3F).contains(r) { break } // outputs and FIFO status
                registers[r] = value
            }
        }
        measureIfRunning()
        clock.restart()
    }

    private func measureIfUntimed() {
        if sampleTimeS == nil { measureIfRunning() }
    }

    /// The sample rate now, Hz: the faster of the two ODRs (`nil` with both powered down).
    public var outputDataRateHz: Double? {
        let code = max(accelerometerRateCode, gyroscopeRateCode)
        return D.rateCodesHz.first { $0.code == code }?.rateHz
    }

    private func sampleIfDue() {
        guard let t = sampleTimeS, let rateHz = outputDataRateHz else { return }
        for _ in 0..<clock.samplesDue(atTimeS: t, rateHz: rateHz) { measure() }
    }

    private func clearStatus(_ field: BitField) {
        registers[Register.statusReg.rawValue] = field.inserting(0, into: registers[Register.statusReg.rawValue])
    }

    private func measureIfRunning() {
        if accelerometerRateCode != 0 || gyroscopeRateCode != 0 { measure() }
    }

    /// One sample: outputs of the sensors that run, status, wake-up, FIFO.
    private func measure() {
        var status = registers[Register.statusReg.rawValue]
        let g = PhysicalConstants.standardGravityMps2
        let accelG = accelerationMps2 / g
        if accelerometerRateCode != 0 {
            let lsb = accelG * (1000 / accelFullScale.sensitivityMilliGPerLSB)
            for axis in 0..<3 { registers.storeLE16(saturatedRaw(lsb[axis]), at: Register.outxLXL.rawValue + UInt8(2 * axis)) }
            status = F.xlda.inserting(1, into: status)
            wakeUp(accelG)
        }
        if gyroscopeRateCode != 0 {
            let lsb = angularVelocityRadS * (Angle.degreesPerRadian * 1000 / gyroFullScale.sensitivityMilliDegPerSPerLSB)
            for axis in 0..<3 { registers.storeLE16(saturatedRaw(lsb[axis]), at: Register.outxLG.rawValue + UInt8(2 * axis)) }
            status = F.gda.inserting(1, into: status)
        }
        registers.storeLE16(
            saturatedRaw((temperatureC - D.temperatureZeroC) * variant.temperatureLSBPerC), at: Register.outTempL.rawValue)
        registers[Register.statusReg.rawValue] = F.tda.inserting(1, into: status)
        if F.fifoMode.extract(from: registers[Register.fifoMode.rawValue]) == D.FIFOMode.continuous.rawValue { batch() }
    }

    /// The wake-up function on the slope filter: |a(t) − a(t−1)| / 2 against `WK_THS` steps of full scale / 64.
    private func wakeUp(_ accelG: Vector3) {
        defer { previousAccelerationG = accelG }
        let threshold = F.wkThs.extract(from: registers[Register.wakeUpThs.rawValue])
        let enabled = variant == .lsm6ds3 || F.interruptsEnable.extract(from: registers[Register.tapCfg.rawValue]) == 1
        guard enabled, threshold > 0, let previous = previousAccelerationG else { return }
        let slope = (accelG - previous) / 2
        if max(abs(slope.x), abs(slope.y), abs(slope.z)) > Double(threshold) * accelFullScale.rangeG / 64 {
            registers[Register.wakeUpSrc.rawValue] = F.wuIa.inserting(1, into: registers[Register.wakeUpSrc.rawValue])
        }
    }

    /// Puts this sample's words into the FIFO.
    private func batch() {
        if variant.hasTaggedFIFO {
            let ctrl3 = registers[Register.fifoCtrl3DSOX.rawValue]
            if F.bdrGy.extract(from: ctrl3) != 0, gyroscopeRateCode != 0 {
                pushWord(tag: .gyroscope, from: Register.outxLG.rawValue)
            }
            if F.bdrXL.extract(from: ctrl3) != 0, accelerometerRateCode != 0 {
                pushWord(tag: .accelerometer, from: Register.outxLXL.rawValue)
            }
        } else {
            let ctrl3 = registers[Register.fifoCtrl3DS3.rawValue]
            // One data set per sensor at decimation 1 (the only setting modelled): gyroscope first, then accelerometer.
            if F.decFifoGyro.extract(from: ctrl3) == 1 {
                for i in 0..<6 { fifo.push(registers[Register.outxLG.rawValue + UInt8(i)]) }
            }
            if F.decFifoXL.extract(from: ctrl3) == 1 {
                for i in 0..<6 { fifo.push(registers[Register.outxLXL.rawValue + UInt8(i)]) }
            }
        }
    }

    private func pushWord(tag: LSM6DSxDatasheet.FIFOTag, from register: UInt8) {
        fifo.push(F.tagSensor.inserting(tag.rawValue, into: 0))
        for i in 0..<6 { fifo.push(registers[register + UInt8(i)]) }
    }

    /// `FIFO_STATUS1`…`4` from the FIFO's state: unread words, and (DS3/DSL) the pattern position of the next word.
    private func updateFIFOStatus() {
        let words = fifoWordCount
        let base = Register.fifoStatus1.rawValue
        registers[base] = UInt8(truncatingIfNeeded: words)
        // DIFF_FIFO's high bits: 4 on the DS3, 3 on the DSL, 2 on the DSOX (a full DS3/DSL FIFO does not fit: it reads 0).
        let highMask: UInt8 =
            switch variant {
            case .lsm6ds3: 0b1111
            case .lsm6dsl: 0b0111
            case .lsm6dsox: 0b0011
            }
        registers[base + 1] = F.fifoOverrun.inserting(
            fifo.hasOverrun ? 1 : 0, into: UInt8(truncatingIfNeeded: words >> 8) & highMask)
        if !variant.hasTaggedFIFO {
            let pattern = (fifo.consumed / 2) % 6
            registers[base + 2] = UInt8(pattern)
            registers[base + 3] = 0
        }
    }

    /// Reset values (DS3/DSL/DSOX register maps): `WHO_AM_I`, `CTRL3_C` 0x04 (`IF_INC`), everything else 0, FIFO empty.
    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.whoAmI.rawValue] = whoAmI
        registers[Register.ctrl3C.rawValue] = F.ifInc.inserting(1, into: 0)
        fifo.removeAll()
        previousAccelerationG = nil
    }
}
