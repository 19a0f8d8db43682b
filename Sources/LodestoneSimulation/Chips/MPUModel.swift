import LodestoneCore
import LodestoneDrivers

/// A simulated InvenSense MPU-6050 / MPU-6500 / MPU-9250 built from `MPU6xxxDatasheet`: `WHO_AM_I`, device reset
/// (`PWR_MGMT_1` bit 7, restoring each variant's defaults), sleep, cycle / low-power accelerometer mode, per-axis
/// standby, `INT_STATUS.DATA_RDY_INT` set by a sample and cleared by reading it (or any read with `INT_RD_CLEAR`),
/// read-only data registers, registers 29–30 absent on the 6050, and outputs quantised with the configured `FS_SEL`
/// / `AFS_SEL` and saturated to 16 bits.
///
/// Set `accelerationMps2`, `angularVelocityRadS` (chip axes) and `temperatureC`. Without a `sampleTimeS` an awake chip
/// samples them at once; once `sampleTimeS` is set (the simulated board sets it after the inputs at every advance) it
/// samples on its own output data rate: `1 kHz / (1 + SMPLRT_DIV)`, or in cycle mode the low-power rate
/// (`LP_ACCEL_ODR` on the 6500/9250, `LP_WAKE_CTRL` on the 6050). Either way it samples again after every write (as
/// if the next sample came with the new settings). Asleep, or for axes in standby, the output registers keep the last
/// values. The MPU-9250's `magnetometer` answers at 0x0C only while `isBypassEnabled`.
///
/// Wake-on-motion: on the 6500/9250 with `INT_ENABLE.WOM_EN` and `ACCEL_INTEL_CTRL.ACCEL_INTEL_EN | ACCEL_INTEL_MODE`
/// set, each accelerometer sample is compared with the previous one and a difference above `WOM_THR` × 4 mg on any
/// axis sets `INT_STATUS.WOM_INT` (RM-MPU-9250A-00 registers 31, 56, 58, 105; PS-MPU-9250A-01 section 7.1). On the
/// 6050 with `INT_ENABLE.MOT_EN` and `ACCEL_CONFIG.ACCEL_HPF` = 7 (hold), each sample is compared with the one held
/// when `ACCEL_CONFIG` was written, against `MOT_THR` × 2 mg, setting `MOT_INT` (RM-MPU-6000A-00 rev. 3.2; `MOT_DUR`
/// is taken as at most one sample). The flag latches until `INT_STATUS` is read; reading it clears every status bit.
public final class MPUModel: InertialChipModel {
    public typealias Register = MPU6xxxDatasheet.Register
    private typealias F = MPU6xxxDatasheet.Field

    /// Which member of the family.
    public let variant: MPUVariant
    /// The MPU-9250's AK8963 (`nil` for the others); attach it at 0x0C, e.g. with `attach(to:at:)`.
    public let magnetometer: AK8963Model?
    /// The register file (for tests to inspect).
    public private(set) var registers = RegisterFile(autoIncrement: .always)
    /// The value of `WHO_AM_I` (default: the variant's first value; 0x73 makes an MPU-9255).
    public var whoAmI: UInt8 { didSet { registers[Register.whoAmI.rawValue] = whoAmI } }
    /// Specific force in the chip's axes, m/s² (default: lying flat at rest).
    public var accelerationMps2 = Vector3(0, 0, PhysicalConstants.standardGravityMps2) { didSet { measureIfUntimed() } }
    /// Angular velocity in the chip's axes, rad/s.
    public var angularVelocityRadS = Vector3.zero { didSet { measureIfUntimed() } }
    /// Die temperature, °C.
    public var temperatureC = 25.0 { didSet { measureIfUntimed() } }
    /// Simulated time, s. `nil` (default): the chip samples whenever an input changes. Set: it samples when setting it
    /// reaches its next sample instant (`outputDataRateHz`), with the inputs as they are then.
    public var sampleTimeS: Double? { didSet { sampleIfDue() } }
    private var clock = SampleClock()
    /// The previous accelerometer sample, mg (wake-on-motion compares with it), and the 6050's held one.
    private var previousAccelMilliG: Vector3?
    private var heldAccelMilliG: Vector3?
    /// Number of device resets seen.
    public private(set) var resetCount = 0

    /// An MPU in its power-on state. A `magnetometer` is accepted only for the MPU-9250 (a programmer error otherwise).
    public init(variant: MPUVariant, magnetometer: AK8963Model? = nil) {
        precondition(magnetometer == nil || variant.hasMagnetometer, "only the MPU-9250 has an AK8963")
        self.variant = variant
        self.magnetometer = magnetometer
        self.whoAmI = variant.whoAmIValues[0]
        powerOnReset()
        magnetometer?.host = self
    }

    /// Whether an AK8963 is inside (the MPU-9250).
    public var hasMagnetometer: Bool { magnetometer != nil }

    /// Sets the AK8963's field from one given in the MPU's axes: x_AK = y_MPU, y_AK = x_MPU, z_AK = −z_MPU
    /// (PS-MPU-9250A-01 §9.1).
    public func setMagneticField(chipAxesMicroTesla v: Vector3) {
        magnetometer?.magneticFieldMicroTesla = Vector3(v.y, v.x, -v.z)
    }

    /// Attaches this chip at `address` and its magnetometer, if any, at 0x0C.
    public func attach(to bus: SimulatedBus, at address: UInt8 = MPU6xxxDatasheet.addresses[0]) {
        bus.attach(self, at: address)
        if let magnetometer { bus.attach(magnetometer, at: MPU6xxxDatasheet.magnetometerAddress) }
    }

    /// Whether the auxiliary I2C bus is connected to the host bus (`I2C_BYPASS_EN` set, I2C master off).
    public var isBypassEnabled: Bool {
        F.bypassEn.extract(from: registers[Register.intPinCfg.rawValue]) == 1
            && F.i2cMstEn.extract(from: registers[Register.userCtrl.rawValue]) == 0
    }

    /// Whether `PWR_MGMT_1.SLEEP` is set.
    public var isAsleep: Bool { F.sleep.extract(from: registers[Register.pwrMgmt1.rawValue]) == 1 }

    /// The configured accelerometer full scale.
    public var accelFullScale: MPU6xxxDatasheet.AccelFullScale {
        MPU6xxxDatasheet.AccelFullScale(rawValue: F.afsSel.extract(from: registers[Register.accelConfig.rawValue])) ?? .g2
    }

    /// The configured gyroscope full scale.
    public var gyroFullScale: MPU6xxxDatasheet.GyroFullScale {
        MPU6xxxDatasheet.GyroFullScale(rawValue: F.fsSel.extract(from: registers[Register.gyroConfig.rawValue])) ?? .dps250
    }

    /// Whether the I2C master is on (`USER_CTRL.I2C_MST_EN`), reaching the AK8963 without the bypass.
    public var isI2CMasterEnabled: Bool { F.i2cMstEn.extract(from: registers[Register.userCtrl.rawValue]) == 1 }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        let clearOnAnyRead = F.intRdClear.extract(from: registers[Register.intPinCfg.rawValue]) == 1
        let master = InvenSenseI2CMasterLayout.mpu9250
        if InvenSenseI2CMasterModel.readTouchesExternalData(layout: master, bank: nil, register: register, count: buffer.count) {
            InvenSenseI2CMasterModel.runSlave0(
                layout: master, masterEnabled: isI2CMasterEnabled, auxiliary: magnetometer,
                auxiliaryAddress: MPU6xxxDatasheet.magnetometerAddress,
                get: { registers[$0.register] }, set: { registers[$0.register] = $1 })
        }
        for i in 0..<buffer.count {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            buffer[i] = registers[r]
            if r == Register.intStatus.rawValue || clearOnAnyRead {
                registers[Register.intStatus.rawValue] = 0 // DATA_RDY_INT and WOM_INT
            }
            if r == master.i2cMstStatus.register { registers[r] = 0 } // I2C_MST_STATUS clears as it is read
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            switch Register(rawValue: r) {
            case .pwrMgmt1:
                if F.deviceReset.extract(from: value) == 1 {
                    resetCount += 1
                    powerOnReset()
                } else {
                    registers[r] = value
                }
            case .intStatus, .whoAmI,
                .accelXoutH, .accelXoutL, .accelYoutH, .accelYoutL, .accelZoutH, .accelZoutL, .tempOutH, .tempOutL,
                .gyroXoutH, .gyroXoutL, .gyroYoutH, .gyroYoutL, .gyroZoutH, .gyroZoutL:
                break // read-only
            case .accelConfig2, .lpAccelOdr, .accelIntelCtrl:
                // registers 29–30 do not exist on the 6050, and its register 105 is MOT_DETECT_CTRL (not modelled)
                if variant != .mpu6050 { registers[r] = value }
            case .accelConfig:
                registers[r] = value
                heldAccelMilliG = nil // ACCEL_HPF hold: the filter holds the next sample
            default:
                let master = InvenSenseI2CMasterLayout.mpu9250
                if r == master.i2cMstStatus.register
                    || (r >= master.extSensData00.register && r < master.extSensData00.register + 24)
                {
                    break // read-only
                }
                registers[r] = value
                if r == master.i2cSlv4Ctrl.register {
                    InvenSenseI2CMasterModel.runSlave4(
                        layout: master, masterEnabled: isI2CMasterEnabled, auxiliary: magnetometer,
                        auxiliaryAddress: MPU6xxxDatasheet.magnetometerAddress,
                        get: { registers[$0.register] }, set: { registers[$0.register] = $1 })
                }
            }
        }
        // Time passes between transfers: an awake chip has taken a new sample with the new settings (and keeps the
        // new rate's grid from the next advance on).
        measureIfAwake()
        clock.restart()
    }

    private func measureIfAwake() {
        if !isAsleep { measure() }
    }

    private func measureIfUntimed() {
        if sampleTimeS == nil { measureIfAwake() }
    }

    /// The rate the chip samples at now, Hz; `nil` asleep.
    public var outputDataRateHz: Double? {
        let pwr1 = registers[Register.pwrMgmt1.rawValue]
        guard F.sleep.extract(from: pwr1) == 0 else { return nil }
        typealias D = MPU6xxxDatasheet
        if F.cycle.extract(from: pwr1) == 1 {
            if variant == .mpu6050 {
                return D.lpWakeRatesHz[Int(F.lpWakeCtrl.extract(from: registers[Register.pwrMgmt2.rawValue]))]
            }
            let odr = Int(F.lposcClksel.extract(from: registers[Register.lpAccelOdr.rawValue]))
            return D.lpAccelRatesHz[min(odr, D.lpAccelRatesHz.count - 1)]
        }
        return D.internalSampleRateHz / Double(1 + Int(registers[Register.smplrtDiv.rawValue]))
    }

    /// Samples when `sampleTimeS` has reached the next sample instant of the current rate.
    private func sampleIfDue() {
        guard let t = sampleTimeS, let rateHz = outputDataRateHz else { return }
        for _ in 0..<clock.samplesDue(atTimeS: t, rateHz: rateHz) { measure() }
    }

    /// One sample of every axis not in standby, then `DATA_RDY_INT`.
    private func measure() {
        let pwr1 = registers[Register.pwrMgmt1.rawValue]
        let standby = registers[Register.pwrMgmt2.rawValue]
        let accel = accelerationMps2 * (accelFullScale.sensitivityLSBPerG / PhysicalConstants.standardGravityMps2)
        detectMotion(
            accelMilliG: Vector3(Double(saturatedRaw(accel.x)), Double(saturatedRaw(accel.y)), Double(saturatedRaw(accel.z)))
                * (1000 / accelFullScale.sensitivityLSBPerG))
        store(accel.x, at: .accelXoutH, unless: F.stbyXA, in: standby)
        store(accel.y, at: .accelYoutH, unless: F.stbyYA, in: standby)
        store(accel.z, at: .accelZoutH, unless: F.stbyZA, in: standby)
        if variant == .mpu6050 || F.gyroStandby.extract(from: pwr1) == 0 {
            let gyro = angularVelocityRadS * (Angle.degreesPerRadian * gyroFullScale.sensitivityLSBPerDegPerS)
            store(gyro.x, at: .gyroXoutH, unless: F.stbyXG, in: standby)
            store(gyro.y, at: .gyroYoutH, unless: F.stbyYG, in: standby)
            store(gyro.z, at: .gyroZoutH, unless: F.stbyZG, in: standby)
        }
        if F.tempDis.extract(from: pwr1) == 0 {
            let raw = (temperatureC - variant.temperatureOffsetC) * variant.temperatureLSBPerC
            registers.storeBE16(saturatedRaw(raw), at: Register.tempOutH.rawValue)
        }
        registers[Register.intStatus.rawValue] = F.dataRdyInt.inserting(1, into: registers[Register.intStatus.rawValue])
    }

    /// Wake-on-motion / motion detection on one accelerometer sample (mg, as the chip digitised it).
    private func detectMotion(accelMilliG sample: Vector3) {
        defer { previousAccelMilliG = sample }
        guard F.womEn.extract(from: registers[Register.intEnable.rawValue]) == 1 else {
            heldAccelMilliG = nil
            return
        }
        let reference: Vector3?
        let thresholdMilliG: Double
        if variant == .mpu6050 {
            guard F.accelHpf.extract(from: registers[Register.accelConfig.rawValue]) == 7 else { return }
            let held = heldAccelMilliG ?? sample
            heldAccelMilliG = held
            reference = held
            thresholdMilliG = 2 * Double(registers[Register.womThr.rawValue])
        } else {
            let control = registers[Register.accelIntelCtrl.rawValue]
            guard F.accelIntelEn.extract(from: control) == 1, F.accelIntelMode.extract(from: control) == 1 else { return }
            reference = previousAccelMilliG
            thresholdMilliG = 4 * Double(registers[Register.womThr.rawValue])
        }
        guard let reference else { return }
        let d = sample - reference
        if max(abs(d.x), abs(d.y), abs(d.z)) > thresholdMilliG {
            registers[Register.intStatus.rawValue] = F.womInt.inserting(1, into: registers[Register.intStatus.rawValue])
        }
    }

    /// Stores `lsb` (saturated) big-endian at `register` unless the axis's standby bit is set in `pwrMgmt2`.
    private func store(_ lsb: Double, at register: Register, unless standbyBit: BitField, in pwrMgmt2: UInt8) {
        if standbyBit.extract(from: pwrMgmt2) == 0 { registers.storeBE16(saturatedRaw(lsb), at: register.rawValue) }
    }

    /// Power-on defaults: everything 0 except `PWR_MGMT_1` (0x40, asleep, on the 6050; 0x01 on the 6500/9250) and
    /// `WHO_AM_I`. The bypass switches off, so the AK8963 stops answering.
    private func powerOnReset() {
        previousAccelMilliG = nil
        heldAccelMilliG = nil
        clock.restart()
        registers = RegisterFile(autoIncrement: .always)
        registers[Register.whoAmI.rawValue] = whoAmI
        registers[Register.pwrMgmt1.rawValue] = variant == .mpu6050 ? 0x40 : 0x01
    }
}
