import LodestoneCore
import LodestoneDrivers

/// A simulated TDK InvenSense ICM-20948 built from `ICM20948Datasheet`, with its AK09916 (`magnetometer`).
///
/// Modelled: four user banks selected by `REG_BANK_SEL` (present in every bank); `WHO_AM_I`; device reset restoring
/// the defaults (`PWR_MGMT_1` 0x41, asleep; `LP_CONFIG` 0x40; `FCHOICE` set in bank 2); sleep; per-axis disables
/// in `PWR_MGMT_2`; `TEMP_DIS`; outputs quantised with the configured full scales and saturated to 16 bits;
/// `INT_STATUS_1.RAW_DATA_0_RDY_INT` set by a sample and `INT_STATUS.WOM_INT` by wake-on-motion (sample-to-sample
/// change above `ACCEL_WOM_THR` × 4 mg), both cleared by reading; the 512-byte FIFO in stream mode filled with the
/// outputs `FIFO_EN_2` selects, in register order, counted in `FIFO_COUNTH/L`, emptied by `FIFO_RST` and read
/// through `FIFO_R_W` (a burst there keeps reading the FIFO); the I2C master (slave 4 and slave 0, see
/// `InvenSenseI2CMasterModel`); and the bypass (`INT_PIN_CFG.BYPASS_EN` with the master off), behind which the
/// AK09916 answers at 0x0C on the host bus.
///
/// Set `accelerationMps2`, `angularVelocityRadS` (chip axes) and `temperatureC`; an awake chip samples them at once and
/// after every write. Set the AK09916's field in its own axes on `magnetometer`, or in the ICM's with
/// `setMagneticField(chipAxesMicroTesla:)`.
public final class ICM20948Model: InertialChipModel {
    public typealias Register = ICM20948Datasheet.Register
    private typealias D = ICM20948Datasheet
    private typealias F = ICM20948Datasheet.Field
    private typealias B2 = ICM20948Datasheet.Bank2Register

    /// The embedded AK09916; attach it with `attach(to:at:)`.
    public let magnetometer: AK09916Model
    /// The register banks 0…3 (for tests to inspect).
    public private(set) var banks = [RegisterFile](repeating: RegisterFile(autoIncrement: .always), count: 4)
    /// The value of `WHO_AM_I`.
    public var whoAmI: UInt8 = D.whoAmIValue { didSet { banks[0][Register.whoAmI.rawValue] = whoAmI } }
    /// Specific force in the chip's axes, m/s² (default: lying flat at rest).
    public var accelerationMps2 = Vector3(0, 0, PhysicalConstants.standardGravityMps2) { didSet { measureIfUntimed() } }
    /// Angular velocity in the chip's axes, rad/s.
    public var angularVelocityRadS = Vector3.zero { didSet { measureIfUntimed() } }
    /// Die temperature, °C.
    public var temperatureC = 25.0 { didSet { measureIfUntimed() } }
    /// Simulated time, s (`InertialChipModel.sampleTimeS`): set, the chip samples at `outputDataRateHz` (its FIFO
    /// fills and its wake-on-motion compares at that rate).
    public var sampleTimeS: Double? { didSet { sampleIfDue() } }
    private var clock = SampleClock()
    /// Number of device resets seen.
    public private(set) var resetCount = 0
    private var fifo = ByteFIFO(capacity: D.fifoSizeBytes)
    private var previousAccelerationG: Vector3?

    /// An ICM-20948 in its power-on state, with an AK09916.
    public init(magnetometer: AK09916Model = AK09916Model()) {
        self.magnetometer = magnetometer
        powerOnReset()
        magnetometer.host = self
    }

    /// Attaches this chip at `address` and its AK09916 at 0x0C (it answers there only with the bypass on).
    public func attach(to bus: SimulatedBus, at address: UInt8 = ICM20948Datasheet.addresses[0]) {
        bus.attach(self, at: address)
        bus.attach(magnetometer, at: AK09916Datasheet.addresses[0])
    }

    /// The selected user bank.
    public var bank: UInt8 { F.userBank.extract(from: banks[0][Register.regBankSel.rawValue]) }
    /// Whether `PWR_MGMT_1.SLEEP` is set.
    public var isAsleep: Bool { F.sleep.extract(from: banks[0][Register.pwrMgmt1.rawValue]) == 1 }
    /// Whether the I2C master is on.
    public var isI2CMasterEnabled: Bool { F.i2cMstEn.extract(from: banks[0][Register.userCtrl.rawValue]) == 1 }
    /// Whether the auxiliary bus is joined to the host bus (`BYPASS_EN`, master off).
    public var isBypassEnabled: Bool {
        F.bypassEn.extract(from: banks[0][Register.intPinCfg.rawValue]) == 1 && !isI2CMasterEnabled
    }
    /// Bytes in the FIFO.
    public var fifoByteCount: Int { fifo.count }
    /// The configured accelerometer full scale.
    public var accelFullScale: ICM20948Datasheet.AccelFullScale {
        D.AccelFullScale(rawValue: F.fsSel.extract(from: banks[2][B2.accelConfig.rawValue])) ?? .g2
    }
    /// The configured gyroscope full scale.
    public var gyroFullScale: ICM20948Datasheet.GyroFullScale {
        D.GyroFullScale(rawValue: F.fsSel.extract(from: banks[2][B2.gyroConfig1.rawValue])) ?? .dps250
    }

    /// True: the AK09916 is inside.
    public var hasMagnetometer: Bool { true }

    /// Sets the AK09916's field from one given in the ICM's axes (the inverse of `ICM20948Datasheet.chipAxes`).
    public func setMagneticField(chipAxesMicroTesla v: Vector3) {
        magnetometer.magneticFieldMicroTesla = Vector3(v.x, -v.y, -v.z)
    }

    public func read(register: UInt8, into buffer: UnsafeMutableRawBufferPointer) {
        let bank = self.bank
        let master = InvenSenseI2CMasterLayout.icm20948
        if InvenSenseI2CMasterModel.readTouchesExternalData(layout: master, bank: bank, register: register, count: buffer.count) {
            InvenSenseI2CMasterModel.runSlave0(
                layout: master, masterEnabled: isI2CMasterEnabled, auxiliary: magnetometer,
                auxiliaryAddress: AK09916Datasheet.addresses[0],
                get: { banks[Int($0.bank ?? 0)][$0.register] },
                set: { banks[Int($0.bank ?? 0)][$0.register] = $1 })
        }
        if bank == 0, register == Register.fifoRW.rawValue {
            for i in 0..<buffer.count { buffer[i] = fifo.pop() }
            updateFIFOCount()
            return
        }
        for i in 0..<buffer.count {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            buffer[i] = r == Register.regBankSel.rawValue ? banks[0][r] : banks[Int(bank)][r]
            guard bank == 0 else { continue }
            switch Register(rawValue: r) {
            case .intStatus, .intStatus1, .i2cMstStatus: banks[0][r] = 0 // cleared as read
            default: break
            }
        }
    }

    public func write(register: UInt8, bytes: UnsafeRawBufferPointer) {
        for (i, value) in bytes.enumerated() {
            let r = UInt8(truncatingIfNeeded: Int(register) + i)
            if r == Register.regBankSel.rawValue {
                banks[0][r] = F.userBank.inserting(F.userBank.extract(from: value), into: 0)
                continue
            }
            let bank = Int(self.bank)
            if bank == 0 {
                switch Register(rawValue: r) {
                case .pwrMgmt1:
                    if F.deviceReset.extract(from: value) == 1 {
                        resetCount += 1
                        powerOnReset()
                    } else {
                        banks[0][r] = value
                    }
                case .whoAmI, .intStatus, .intStatus1, .intStatus2, .i2cMstStatus, .fifoCountH, .fifoCountL:
                    break // read-only
                case .fifoRst:
                    if F.fifoReset.extract(from: value) != 0 { fifo.removeAll(); updateFIFOCount() }
                    banks[0][r] = value
                case .fifoRW:
                    break // the host does not fill the FIFO here
                default:
                    if r >= Register.accelXoutH.rawValue && r < Register.extSlvSensData00.rawValue + 24 { break } // outputs
                    banks[0][r] = value
                }
            } else {
                banks[bank][r] = value
                let master = InvenSenseI2CMasterLayout.icm20948
                if bank == 3, r == master.i2cSlv4Ctrl.register {
                    InvenSenseI2CMasterModel.runSlave4(
                        layout: master, masterEnabled: isI2CMasterEnabled, auxiliary: magnetometer,
                        auxiliaryAddress: AK09916Datasheet.addresses[0],
                        get: { banks[Int($0.bank ?? 0)][$0.register] },
                        set: { banks[Int($0.bank ?? 0)][$0.register] = $1 })
                }
            }
        }
        // Time passes between transfers: an awake chip has taken a new sample with the new settings.
        measureIfAwake()
        clock.restart()
    }

    private func measureIfAwake() {
        if !isAsleep { measure() }
    }

    private func measureIfUntimed() {
        if sampleTimeS == nil { measureIfAwake() }
    }

    /// The sample rate, Hz: while the gyroscope runs its rate, 1100 Hz / (1 + `GYRO_SMPLRT_DIV`), which paces the
    /// FIFO's frames; with the gyroscope disabled (low power) the accelerometer's, 1125 Hz / (1 + `ACCEL_SMPLRT_DIV`)
    /// (DS-000189 bank 2 registers 0x00 and 0x10–0x11); `nil` asleep.
    public var outputDataRateHz: Double? {
        guard !isAsleep else { return nil }
        if ICM20948Datasheet.Field.disableGyro.extract(from: banks[0][Register.pwrMgmt2.rawValue]) != 0b111 {
            return ICM20948Datasheet.gyroBaseRateHz / Double(1 + Int(banks[2][B2.gyroSmplrtDiv.rawValue]))
        }
        let divider =
            Int(ICM20948Datasheet.Field.accelSmplrtDivHigh.extract(from: banks[2][B2.accelSmplrtDiv1.rawValue])) << 8
            | Int(banks[2][B2.accelSmplrtDiv2.rawValue])
        return ICM20948Datasheet.accelBaseRateHz / Double(1 + divider)
    }

    private func sampleIfDue() {
        guard let t = sampleTimeS, let rateHz = outputDataRateHz else { return }
        for _ in 0..<clock.samplesDue(atTimeS: t, rateHz: rateHz) { measure() }
    }

    /// One sample of every output not disabled, wake-on-motion, data ready and the FIFO.
    private func measure() {
        let pwr1 = banks[0][Register.pwrMgmt1.rawValue]
        let pwr2 = banks[0][Register.pwrMgmt2.rawValue]
        let g = PhysicalConstants.standardGravityMps2
        let accelG = accelerationMps2 / g
        let accel = accelG * accelFullScale.sensitivityLSBPerG
        let gyro = angularVelocityRadS * (Angle.degreesPerRadian * gyroFullScale.sensitivityLSBPerDegPerS)
        let disabledAccel = F.disableAccel.extract(from: pwr2), disabledGyro = F.disableGyro.extract(from: pwr2)
        // PWR_MGMT_2 disables X with its high bit of each three.
        for axis in 0..<3 where disabledAccel & (0b100 >> axis) == 0 {
            banks[0].storeBE16(saturatedRaw(accel[axis]), at: Register.accelXoutH.rawValue + UInt8(2 * axis))
        }
        for axis in 0..<3 where disabledGyro & (0b100 >> axis) == 0 {
            banks[0].storeBE16(saturatedRaw(gyro[axis]), at: Register.gyroXoutH.rawValue + UInt8(2 * axis))
        }
        if F.tempDis.extract(from: pwr1) == 0 {
            banks[0].storeBE16(
                saturatedRaw((temperatureC - D.temperatureOffsetC) * D.temperatureLSBPerC),
                at: Register.tempOutH.rawValue)
        }
        banks[0][Register.intStatus1.rawValue] = F.rawData0RdyInt.inserting(1, into: 0)
        let intel = banks[2][B2.accelIntelCtrl.rawValue]
        if F.accelIntelEn.extract(from: intel) == 1, let previous = previousAccelerationG {
            let thresholdG = Double(banks[2][B2.accelWomThr.rawValue]) * D.wakeOnMotionStepG
            let change = accelG - previous
            if max(abs(change.x), abs(change.y), abs(change.z)) > thresholdG {
                banks[0][Register.intStatus.rawValue] = F.womInt.inserting(1, into: banks[0][Register.intStatus.rawValue])
            }
        }
        previousAccelerationG = accelG
        if F.fifoEn.extract(from: banks[0][Register.userCtrl.rawValue]) == 1 {
            let selected = banks[0][Register.fifoEn2.rawValue]
            if F.accelFifoEn.extract(from: selected) == 1 { pushOutputs(from: Register.accelXoutH.rawValue, count: 6) }
            for axis in 0..<3 where selected & (0b10 << axis) != 0 {
                pushOutputs(from: Register.gyroXoutH.rawValue + UInt8(2 * axis), count: 2)
            }
            if selected & 0b1 != 0 { pushOutputs(from: Register.tempOutH.rawValue, count: 2) }
            updateFIFOCount()
        }
    }

    private func pushOutputs(from register: UInt8, count: Int) {
        for i in 0..<count { fifo.push(banks[0][register + UInt8(i)]) }
    }

    private func updateFIFOCount() {
        banks[0][Register.fifoCountH.rawValue] = UInt8(truncatingIfNeeded: fifo.count >> 8)
        banks[0][Register.fifoCountL.rawValue] = UInt8(truncatingIfNeeded: fifo.count)
    }

    /// Power-on defaults (DS-000189 §7 reset values): bank 0 `WHO_AM_I`, `LP_CONFIG` 0x40, `PWR_MGMT_1` 0x41; bank 2
    /// `GYRO_CONFIG_1` and `ACCEL_CONFIG` 0x01 (`FCHOICE`); everything else 0; bank 0 selected; FIFO empty. The
    /// master and the bypass turn off, so the AK09916 is unreachable until the host sets one up again.
    private func powerOnReset() {
        banks = [RegisterFile](repeating: RegisterFile(autoIncrement: .always), count: 4)
        banks[0][Register.whoAmI.rawValue] = whoAmI
        banks[0][Register.lpConfig.rawValue] = 0x40
        banks[0][Register.pwrMgmt1.rawValue] = 0x41
        banks[2][B2.gyroConfig1.rawValue] = 0x01
        banks[2][B2.accelConfig.rawValue] = 0x01
        fifo.removeAll()
        previousAccelerationG = nil
    }
}
