import LodestoneCore
import LodestoneDrivers

/// A simulated ST LSM9DS1 accelerometer/gyroscope built from `LSM9DS1Datasheet`: `WHO_AM_I`; `SW_RESET`;
/// gyroscope-and-accelerometer mode (`ODR_G` not 0) and accelerometer-only mode (`ODR_XL`); outputs quantised with
/// `FS_XL` (its odd order) and `FS_G`, saturated to 16 bits; temperature at 16 LSB/°C; `IF_ADD_INC`; `STATUS_REG`
/// (and its copy at 0x27) set by a sample and cleared as the outputs are read; and the accelerometer interrupt
/// generator's high events on high-passed data, the high-pass filter approximated by the change since the previous
/// sample, against `INT_GEN_THS_x_XL` × full scale / 128, latched in `INT_GEN_SRC_XL` until it is read.
///
/// Set `accelerationMps2`, `angularVelocityRadS` (chip axes) and `temperatureC`; a running chip samples them at once
/// and after every write.
public final class LSM9DS1Model: InertialChipModel {
    public typealias Register = LSM9DS1Datasheet.Register
    private typealias D = LSM9DS1Datasheet
    private typealias F = LSM9DS1Datasheet.Field

    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `WHO_AM_I`.
    public var whoAmI: UInt8 = D.whoAmIValue { didSet { registers[Register.whoAmI.rawValue] = whoAmI } }
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
    private var previousAccelerationG: Vector3?

    /// An LSM9DS1 accelerometer/gyroscope in its power-on state (both powered down).
    public init() { powerOnReset() }

    /// Whether the gyroscope runs (and the accelerometer with it).
    public var isGyroscopeOn: Bool { F.odr.extract(from: registers[Register.ctrlReg1G.rawValue]) != 0 }
    /// Whether the accelerometer runs (with the gyroscope, or alone).
    public var isAccelerometerOn: Bool { isGyroscopeOn || F.odr.extract(from: registers[Register.ctrlReg6XL.rawValue]) != 0 }

    /// The configured accelerometer full scale.
    public var accelFullScale: LSM9DS1Datasheet.AccelFullScale {
        D.AccelFullScale(rawValue: F.fs.extract(from: registers[Register.ctrlReg6XL.rawValue])) ?? .g2
    }
    /// The configured gyroscope full scale (code 2, not available, reads as ±245 °/s).
    public var gyroFullScale: LSM9DS1Datasheet.GyroFullScale {
        D.GyroFullScale(rawValue: F.fs.extract(from: registers[Register.ctrlReg1G.rawValue])) ?? .dps245
    }

    public func registerAddress(start: UInt8, offset: Int) -> UInt8 {
        F.ifAddInc.extract(from: registers[Register.ctrlReg8.rawValue]) == 1
            ? UInt8(truncatingIfNeeded: Int(start) + offset) : start
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        for i in 0..<buffer.count {
            let r = registerAddress(start: register, offset: i)
            buffer[i] = registers[r]
            switch r {
            case 0x15...0x16: clearStatus(F.tda)
            case 0x18...0x1D: clearStatus(F.gda)
            case 0x28...0x2D: clearStatus(F.xlda)
            case Register.intGenSrcXL.rawValue: registers[r] = 0
            default: break
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = registerAddress(start: register, offset: i)
            switch Register(rawValue: r) {
            case .ctrlReg8:
                if F.swReset.extract(from: value) == 1 { resetCount += 1; powerOnReset() } else { registers[r] = value }
            case .whoAmI, .statusReg, .intGenSrcXL:
                break
            default:
                if (0x15...0x1D).contains(r) || (0x26...0x2D).contains(r) { break } // outputs and status
                registers[r] = value
            }
        }
        measureIfRunning()
        clock.restart()
    }

    private func clearStatus(_ field: BitField) {
        registers[Register.statusReg.rawValue] = field.inserting(0, into: registers[Register.statusReg.rawValue])
        registers[0x27] = field.inserting(0, into: registers[0x27])
    }

    private func measureIfRunning() {
        if isAccelerometerOn { measure() }
    }

    private func measureIfUntimed() {
        if sampleTimeS == nil { measureIfRunning() }
    }

    /// The sample rate, Hz: the gyroscope's `ODR_G` while it runs (the accelerometer follows it), else the
    /// accelerometer's `ODR_XL`; `nil` with both off (LSM9DS1 data sheet DocID025715 tables 46 and 68).
    public var outputDataRateHz: Double? {
        let gyroCode = F.odr.extract(from: registers[Register.ctrlReg1G.rawValue])
        if gyroCode != 0 { return LSM9DS1Datasheet.gyroRateCodesHz.first { $0.code == gyroCode }?.rateHz }
        let accelCode = F.odr.extract(from: registers[Register.ctrlReg6XL.rawValue])
        return LSM9DS1Datasheet.accelRateCodesHz.first { $0.code == accelCode }?.rateHz
    }

    private func sampleIfDue() {
        guard let t = sampleTimeS, let rateHz = outputDataRateHz else { return }
        for _ in 0..<clock.samplesDue(atTimeS: t, rateHz: rateHz) { measure() }
    }

    private func measure() {
        let accelG = accelerationMps2 / PhysicalConstants.standardGravityMps2
        let accel = accelG * (1000 / accelFullScale.sensitivityMilliGPerLSB)
        for axis in 0..<3 { registers.storeLE16(saturatedRaw(accel[axis]), at: Register.outXLXL.rawValue + UInt8(2 * axis)) }
        var status = F.xlda.inserting(1, into: F.tda.inserting(1, into: registers[Register.statusReg.rawValue]))
        if isGyroscopeOn {
            let gyro = angularVelocityRadS * (Angle.degreesPerRadian * 1000 / gyroFullScale.sensitivityMilliDegPerSPerLSB)
            for axis in 0..<3 { registers.storeLE16(saturatedRaw(gyro[axis]), at: Register.outXLG.rawValue + UInt8(2 * axis)) }
            status = F.gda.inserting(1, into: status)
        }
        registers.storeLE16(
            saturatedRaw((temperatureC - D.temperatureZeroC) * D.temperatureLSBPerC), at: Register.outTempL.rawValue)
        if F.highEvents.extract(from: registers[Register.intGenCfgXL.rawValue]) != 0,
            F.hpis1.extract(from: registers[Register.ctrlReg7XL.rawValue]) == 1, let previous = previousAccelerationG
        {
            let change = accelG - previous
            for axis in 0..<3 {
                let threshold = registers[Register.intGenThsXXL.rawValue + UInt8(axis)] // X, Y, Z thresholds in a row
                guard threshold > 0, abs(change[axis]) > Double(threshold) * accelFullScale.rangeG / 128 else { continue }
                registers[Register.intGenSrcXL.rawValue] |= F.iaXL.mask | (0b10 << (2 * axis))
                status |= 0b0100_0000 // IG_XL
            }
        }
        previousAccelerationG = accelG
        registers[Register.statusReg.rawValue] = status
        registers[0x27] = status
    }

    /// Reset values (table 21): `WHO_AM_I`, `CTRL_REG4` 0x38, `CTRL_REG8` 0x04, everything else 0.
    private func powerOnReset() {
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.whoAmI.rawValue] = whoAmI
        registers[Register.ctrlReg4.rawValue] = 0x38
        registers[Register.ctrlReg8.rawValue] = F.ifAddInc.inserting(1, into: 0)
        previousAccelerationG = nil
    }
}

/// A simulated ST LSM9DS1 magnetometer: a `LIS3MDLModel` (same register map and behaviour) with the LSM9DS1's
/// sensitivities (the field handed to the inner model is scaled so its raw outputs follow `M_GN`) and no temperature
/// output (0x2E–0x2F read 0).
public final class LSM9DS1MagnetometerModel: SimulatedMagnetometer {
    private let inner: LIS3MDLModel
    /// Magnetic flux density in the magnetometer's axes, µT.
    public var magneticFieldMicroTesla = Vector3.zero { didSet { rescale() } }

    /// An LSM9DS1 magnetometer in its power-on state.
    public init(whoAmI: UInt8 = LSM9DS1MagnetometerDatasheet.whoAmIValue) {
        inner = LIS3MDLModel(whoAmI: whoAmI)
    }

    /// The register file (for tests to inspect).
    public var registers: RegisterFile { inner.registers }
    /// Number of soft resets seen.
    public var softResetCount: Int { inner.softResetCount }

    public func registerAddress(start: UInt8, offset: Int) -> UInt8 { inner.registerAddress(start: start, offset: offset) }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        inner.read(register: register, into: buffer)
        for i in 0..<buffer.count where (0x2E...0x2F).contains(registerAddress(start: register, offset: i)) { buffer[i] = 0 }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        inner.write(register: register, bytes: bytes)
        rescale()
    }

    /// Hands the inner LIS3MDL model the field that makes its raw output equal this chip's: B · (LIS3MDL LSB/gauss ÷
    /// LSM9DS1 LSB/gauss)⁻¹ at the configured full scale.
    private func rescale() {
        let fullScale = inner.fullScale
        let lsm9ds1LSBPerGauss = 1000 / LSM9DS1MagnetometerDatasheet.sensitivityMilliGaussPerLSB(fullScale)
        inner.magneticFieldMicroTesla = magneticFieldMicroTesla * (lsm9ds1LSBPerGauss / fullScale.sensitivityLSBPerGauss)
    }
}
