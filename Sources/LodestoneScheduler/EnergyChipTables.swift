import LodestoneCore

/// The data sheet figures of every `ChipCatalog` chip and the model that turns a `SensorConfiguration` into a mean
/// supply current. Currents here are in µA (the unit of the tables), converted to mA at the end.
///
/// What `.normal`, `.lowPower` and `.suspend` mean for each chip is its driver's (`registerSettings(for:)` in
/// `Sources/LodestoneDrivers`); this file follows them. `sources` lists every figure with its document and whether it
/// was confirmed in the document itself.
public enum EnergyChipTables {
    /// The chips the table knows: every `ChipID` (the switch in `draw` is exhaustive), in `ChipCatalog` order.
    public static var chips: [String] { ChipID.allCases.map(\.rawValue) }

    /// Case-insensitive; `nil` for a name that is not a register chip. An exact (lower-case) name takes no allocation,
    /// as the scheduler's re-planning requires.
    static func draw(chip: String, configuration c: SensorConfiguration, enabled: Bool) -> PowerDraw? {
        guard let id = ChipID(name: chip) else { return nil }
        return draw(chip: id, configuration: c, enabled: enabled)
    }

    private static func draw(chip: ChipID, configuration c: SensorConfiguration, enabled: Bool) -> PowerDraw {
        let mode = enabled ? c.powerMode : .suspend
        let rate = max(c.rateHz, 0)
        let microAmp: Double, supplyV: Double
        switch chip {
        case .bmp280:
            supplyV = BMP280.supplyV
            microAmp =
                mode == .suspend
                ? BMP280.sleepMicroAmp
                : BMP280.standbyMicroAmp + rate
                    * BMP280.chargePerMeasurementMicroAmpS(oversampling: mode == .lowPower ? 1 : c.oversampling)
        case .bme280:
            supplyV = BME280.supplyV
            microAmp =
                mode == .suspend
                ? BME280.sleepMicroAmp
                : BME280.standbyMicroAmp + rate
                    * BME280.chargePerMeasurementMicroAmpS(oversampling: mode == .lowPower ? 1 : c.oversampling)
        case .bmp388, .bmp390:
            let is388 = chip == .bmp388
            supplyV = BMP3.supplyV
            microAmp =
                mode == .suspend
                ? BMP3.sleepMicroAmp
                : BMP3.sleepMicroAmp + rate
                    * BMP3.chargePerMeasurementMicroAmpS(bmp388: is388, oversampling: mode == .lowPower ? 1 : c.oversampling)
        case .ms5611:
            supplyV = MS5611.supplyV
            microAmp =
                mode == .suspend
                ? MS5611.standbyMicroAmp
                : MS5611.standbyMicroAmp
                    + MS5611.conversionChargeRate(rateHz: rate, oversampling: mode == .lowPower ? 1 : c.oversampling)
        case .lps22hb:
            supplyV = LPS22HB.supplyV
            microAmp =
                mode == .suspend
                ? LPS22HB.powerDownMicroAmp
                : LPS22HB.powerDownMicroAmp + rate
                    * (mode == .lowPower ? LPS22HB.lowCurrentChargeMicroAmpS : LPS22HB.lowNoiseChargeMicroAmpS)
        case .lps25h:
            supplyV = LPS25H.supplyV
            // AN4450's equation has no static term: it is the whole supply current while measuring.
            microAmp =
                mode == .suspend
                ? LPS25H.powerDownMicroAmp
                : max(
                    LPS25H.powerDownMicroAmp, LPS25H.microAmp(rateHz: rate, oversampling: mode == .lowPower ? 1 : c.oversampling))
        case .lis3mdl, .lsm9ds1Magnetometer:
            supplyV = LIS3MDL.supplyV
            microAmp = mode == .suspend ? LIS3MDL.powerDownMicroAmp : LIS3MDL.microAmp(rateHz: rate, lowPower: mode == .lowPower)
        case .hmc5883l:
            supplyV = HMC5883L.supplyV
            let averaged = mode == .lowPower ? 1 : HMC5883L.samplesAveraged(oversampling: c.oversampling)
            microAmp =
                mode == .suspend
                ? HMC5883L.idleMicroAmp
                : HMC5883L.idleMicroAmp + min(rate * Double(averaged), HMC5883L.maximumMeasurementsPerS)
                    * HMC5883L.chargePerMeasurementMicroAmpS
        case .qmc5883l:
            supplyV = QMC5883L.supplyV
            microAmp =
                mode == .suspend ? QMC5883L.standbyMicroAmp : QMC5883L.standbyMicroAmp + rate * QMC5883L.chargePerSampleMicroAmpS
        case .mmc5983ma:
            supplyV = MMC5983MA.supplyV
            microAmp = mode == .suspend ? MMC5983MA.sleepMicroAmp : MMC5983MA.microAmp(rateHz: rate, lowPower: mode == .lowPower)
        case .ak8963:
            supplyV = AK8963.supplyV
            // The driver: continuous mode 2 (100 Hz) unless `rateHz` ≤ 8, then mode 1 (8 Hz); `.lowPower` mode 1.
            microAmp =
                mode == .suspend ? AK8963.powerDownMicroAmp : AK8963.microAmp(rateHz: mode == .lowPower || rate <= 8 ? 8 : 100)
        case .ak09916:
            supplyV = AK09916.supplyV
            microAmp = mode == .suspend ? AK09916.powerDownMicroAmp : AK09916.microAmp(rateHz: mode == .lowPower ? 10 : rate)
        case .mpu6050:
            supplyV = MPU6050.supplyV
            microAmp =
                switch mode {
                case .suspend: MPU6050.idleMicroAmp
                case .lowPower:
                    interpolatedMicroAmp(MPU6050.cycleModeMicroAmp, staticMicroAmp: MPU6050.idleMicroAmp, rateHz: rate)
                case .normal: MPU6050.gyroscopeAndAccelerometerMicroAmp
                }
        case .mpu6500, .mpu9250:
            let t = chip == .mpu9250 ? MPU6500Family.mpu9250 : MPU6500Family.mpu6500
            supplyV = t.supplyV
            microAmp =
                switch mode {
                case .suspend: t.sleepMicroAmp
                case .lowPower:
                    interpolatedMicroAmp(t.lowPowerAccelerometerMicroAmp, staticMicroAmp: t.sleepMicroAmp, rateHz: rate)
                        + (t.hasAK8963 ? AK8963.microAmp(rateHz: 8) - AK8963.powerDownMicroAmp : 0)
                case .normal:
                    t.gyroscopeMicroAmp + t.accelerometerMicroAmp
                        + (t.hasAK8963 ? AK8963.microAmp(rateHz: rate <= 8 ? 8 : 100) - AK8963.powerDownMicroAmp : 0)
                }
        case .icm20948:
            supplyV = ICM20948.supplyV
            microAmp =
                switch mode {
                case .suspend: ICM20948.sleepMicroAmp
                case .lowPower:
                    interpolatedMicroAmp(
                        ICM20948.lowPowerAccelerometerMicroAmp, staticMicroAmp: ICM20948.sleepMicroAmp, rateHz: rate)
                        + AK09916.microAmp(rateHz: 10) - AK09916.powerDownMicroAmp
                case .normal: ICM20948.nineAxisLowNoiseMicroAmp
                }
        case .lsm6ds3, .lsm6dsl, .lsm6dsox:
            let t = LSM6DSx.table(chip)
            supplyV = t.supplyV
            microAmp =
                switch mode {
                case .suspend: t.powerDownMicroAmp
                case .lowPower:
                    interpolatedMicroAmp(t.accelerometerLowPowerMicroAmp, staticMicroAmp: t.powerDownMicroAmp, rateHz: rate)
                case .normal: t.comboHighPerformanceMicroAmp
                }
        case .lsm9ds1:
            supplyV = LSM9DS1.supplyV
            microAmp =
                switch mode {
                case .suspend: LSM9DS1.powerDownMicroAmp
                case .lowPower: LSM9DS1.accelerometerOnlyMicroAmp
                case .normal:
                    interpolatedMicroAmp(
                        LSM9DS1.gyroscopeAndAccelerometerMicroAmp, staticMicroAmp: LSM9DS1.powerDownMicroAmp,
                        rateHz: max(rate, 14.9))
                }
        case .adxl345:
            supplyV = ADXL345.supplyV
            microAmp = mode == .suspend ? ADXL345.standbyMicroAmp : ADXL345.microAmp(rateHz: rate, lowPower: mode == .lowPower)
        }
        return PowerDraw(milliAmp: microAmp / 1000, supplyV: supplyV)
    }

    /// The nearest table entry at or above `value` (the drivers' rounding of rates and oversampling).
    static func atOrAbove<T>(_ table: [(key: Double, value: T)], _ value: Double) -> T {
        for entry in table where entry.key >= value * (1 - 1e-9) { return entry.value }
        return table[table.count - 1].value
    }

    // MARK: - Barometers

    /// Bosch BMP280 (document BST-BMP280-DS001, rev. 1.23 unless stated): conversions per second × charge per
    /// measurement + standby current.
    enum BMP280 {
        /// Supply voltage of the data sheet's typical figures, V (table 2 conditions: VDD = 1.8 V, 25 °C).
        static let supplyV = 1.8
        /// Sleep current I_DDSM, µA, typical (key parameters "0.1 µA in sleep mode").
        static let sleepMicroAmp = 0.1
        /// Standby current I_DDSB (the inactive period of normal mode), µA, typical (table 2; figure unconfirmed).
        static let standbyMicroAmp = 0.2
        /// Charge per measurement, µA·s (= µA at 1 Hz), by pressure oversampling, with the temperature oversampling
        /// the driver uses (×1, ×2 with ×16). From table 7 (recommended settings, I_DD at the stated ODR):
        /// ×2/×1 "drop detection" 509 µA at 125 Hz → 4.07; ×4/×1 "handheld dynamic" 577 µA at 83.3 Hz → 6.93 (the
        /// "elevator" row, 50.9 µA at 7.3 Hz, gives 6.97); ×16/×2 "handheld low-power" 247 µA at 10 Hz and "indoor
        /// navigation" 650 µA at 26.3 Hz → 24.7. ×1/×1: 2.74 µA at 1 Hz (key parameters, "ultra low power") less the
        /// 0.1 µA sleep → 2.64. ×8/×1 is not in table 7: interpolated linearly in the number of conversions
        /// (×4/×1: 5, ×8/×1: 9, ×16/×2: 18) → 12.4.
        static let chargeMicroAmpS: [(key: Double, value: Double)] = [(1, 2.64), (2, 4.07), (4, 6.93), (8, 12.4), (16, 24.7)]
        static func chargePerMeasurementMicroAmpS(oversampling: Int) -> Double {
            atOrAbove(chargeMicroAmpS, Double(max(oversampling, 1)))
        }
    }

    /// Bosch BME280 (BST-BME280-DS002-15, rev. 1.6): the BMP280's structure with humidity; the driver measures humidity
    /// ×1 always, temperature ×1 (×2 with pressure ×16).
    enum BME280 {
        /// Supply voltage, V (table 1 conditions, VDD = 1.8 V; unconfirmed).
        static let supplyV = 1.8
        /// Sleep current, µA, typical (key features "0.1 µA in sleep mode"; read in a secondary copy, unconfirmed).
        static let sleepMicroAmp = 0.1
        /// Standby current, µA, typical (table 1; unconfirmed).
        static let standbyMicroAmp = 0.2
        /// Key features, all ×1 at 1 Hz: 1.8 µA humidity + temperature, 2.8 µA pressure + temperature, 3.6 µA all three.
        /// Their differences give each measurement's charge, µA·s: humidity 3.6 − 2.8 = 0.8, pressure 3.6 − 1.8 = 1.8,
        /// temperature (with the start-up) 3.6 − 0.8 − 1.8 − 0.1 sleep = 0.9.
        static let humidityChargeMicroAmpS = 0.8
        static let pressureChargeAtOnesMicroAmpS = 1.8
        static let temperatureChargeAtOnesMicroAmpS = 0.9
        /// Charge per measurement, µA·s: each part's ×1 charge scaled by its share of the section 9.1 measurement time
        /// (temperature 1 + 2·T ms with the start-up, pressure 2·P + 0.5 ms, humidity 2·H + 0.5 ms; section 9.5
        /// computes the current from these times the same way).
        static func chargePerMeasurementMicroAmpS(oversampling: Int) -> Double {
            let p = Double(atOrAbove([(1, 1), (2, 2), (4, 4), (8, 8), (16, 16)], Double(max(oversampling, 1))))
            let t: Double = p >= 16 ? 2 : 1
            return temperatureChargeAtOnesMicroAmpS * (1 + 2 * t) / 3 + pressureChargeAtOnesMicroAmpS * (2 * p + 0.5) / 2.5
                + humidityChargeMicroAmpS
        }
    }

    /// Bosch BMP388 (BST-BMP388-DS001) and BMP390 (BST-BMP390-DS002 rev. 1.7).
    enum BMP3 {
        /// Supply voltage, V (typical conditions VDD = 1.8 V; unconfirmed).
        static let supplyV = 1.8
        /// Sleep current, µA, typical: 1.4 (BMP390 table 2, read from a transcription, unconfirmed); used for both.
        static let sleepMicroAmp = 1.4
        /// Current at 1 Hz, pressure and temperature ×1: BMP390 3.2 µA (key parameters, confirmed); BMP388 3.4 µA
        /// (key parameters, unconfirmed).
        static let bmp390AtOneHzMicroAmp = 3.2
        static let bmp388AtOneHzMicroAmp = 3.4
        /// Charge per measurement, µA·s: the 1 Hz figure less sleep, scaled by the measurement time of section 3.9.2
        /// (234 + 392 + 2020·osr_p + 163 + 2020·osr_t µs; ×1/×1 = 4829 µs), temperature ×2 with ×16 and ×32.
        static func chargePerMeasurementMicroAmpS(bmp388: Bool, oversampling: Int) -> Double {
            let p = Double(atOrAbove([(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32)], Double(max(oversampling, 1))))
            let t: Double = p >= 16 ? 2 : 1
            let us = 234 + 392 + 2020 * p + 163 + 2020 * t
            return ((bmp388 ? bmp388AtOneHzMicroAmp : bmp390AtOneHzMicroAmp) - sleepMicroAmp) * us / 4829
        }
    }

    /// TE Connectivity MS5611-01BA03 (data sheet DA5611-01BA03, "Electrical characteristics", VDD = 3 V, 25 °C).
    enum MS5611 {
        static let supplyV = 3.0
        /// Standby supply current at 25 °C, µA, typical (max 0.14).
        static let standbyMicroAmp = 0.02
        /// Supply current at one conversion per second, µA, by OSR 256…4096 (oversampling 1…16): 0.9, 1.7, 3.2, 6.3,
        /// 12.5 — the charge of one conversion (peak 1.4 mA × the conversion time).
        static let chargeMicroAmpS: [(key: Double, value: Double)] = [(1, 0.9), (2, 1.7), (4, 3.2), (8, 6.3), (16, 12.5)]
        /// µA of conversions at `rateHz` reads: one pressure conversion per read and, as the driver does, one
        /// temperature conversion per read up to 10 Hz and every ⌈rate / 10⌉ reads above.
        static func conversionChargeRate(rateHz: Double, oversampling: Int) -> Double {
            let q = atOrAbove(chargeMicroAmpS, Double(max(oversampling, 1)))
            let temperatureHz = rateHz <= 10 ? rateHz : rateHz / (rateHz / 10).rounded(.up)
            return q * (rateHz + temperatureHz)
        }
    }

    /// ST LPS22HB (DocID027083 rev. 4).
    enum LPS22HB {
        /// Supply voltage, V (table 3 conditions, VDD = 1.8 V; unconfirmed).
        static let supplyV = 1.8
        /// Power-down current, µA, typical (table 3; unconfirmed).
        static let powerDownMicroAmp = 1.0
        /// Low-current mode (`LC_EN` = 1) at 1 Hz: 3 µA ("current consumption down to 3 µA", features, confirmed),
        /// less power-down: the charge per sample, µA·s. Scaled linearly with ODR (not stated in the data sheet).
        static let lowCurrentChargeMicroAmpS = 2.0
        /// Low-noise mode at 1 Hz: 12 µA (table 3, unconfirmed), less power-down.
        static let lowNoiseChargeMicroAmpS = 11.0
    }

    /// ST LPS25H (DocID023722 rev. 6; application note AN4450, DocID025978 rev. 1, section 3, equation 2).
    enum LPS25H {
        /// Supply voltage, V: AN4450 states the current is "Vdd independent at first approximation"; 1.8 V taken.
        static let supplyV = 1.8
        /// Power-down current, µA, typical (data sheet table 4; unconfirmed).
        static let powerDownMicroAmp = 0.5
        /// AN4450 equation 2: Idd = (3 µA/Hz + 0.042 µA/Hz·Pavg + 0.030 µA/Hz·Tavg) · ODR (its examples: 3.6 µA at 1 Hz
        /// with 8/8 averages, 26.4 µA at 1 Hz and 661 µA at 25 Hz with 512/64), with the driver's averages: `AVGP` 8, 32,
        /// 128, 512 for oversampling 1, ≤4, ≤16, more; `AVGT` 8 with 8 pressure averages, else 16.
        static func microAmp(rateHz: Double, oversampling: Int) -> Double {
            let pavg: Double = oversampling <= 1 ? 8 : oversampling <= 4 ? 32 : oversampling <= 16 ? 128 : 512
            let tavg: Double = pavg == 8 ? 8 : 16
            return (3 + 0.042 * pavg + 0.030 * tavg) * rateHz
        }
    }

    // MARK: - Magnetometers

    /// ST LIS3MDL (DocID024204 rev. 4), also used for the LSM9DS1 magnetometer (the same sensor and register settings;
    /// the LSM9DS1 data sheet's own magnetometer current was not found).
    enum LIS3MDL {
        /// Supply voltage, V (table 4 conditions, Vdd = 2.5 V; unconfirmed).
        static let supplyV = 2.5
        /// Power-down current, µA, typical (table 4; quoted by ST on its forum, unconfirmed in the data sheet).
        static let powerDownMicroAmp = 1.0
        /// Current at 20 Hz by operating mode, µA: LP 40 (table 4; quoted on ST's forum, unconfirmed), UHP 270
        /// (unconfirmed). MP and HP are not found: estimated geometrically between (each mode doubles the
        /// measurements per output): 75 and 142.
        static let atTwentyHzMicroAmp: [Double] = [40, 75, 142, 270]
        /// The driver's `.normal`: UHP up to 80 Hz, then the fast-ODR mode whose rate is enough (UHP 155, HP 300,
        /// MP 560, LP 1000 Hz); `.lowPower`: LP. Charge per sample scaled linearly from the 20 Hz figure.
        static func microAmp(rateHz: Double, lowPower: Bool) -> Double {
            let mode = lowPower ? 0 : rateHz <= 155 ? 3 : rateHz <= 300 ? 2 : rateHz <= 560 ? 1 : 0
            return powerDownMicroAmp + (atTwentyHzMicroAmp[mode] - powerDownMicroAmp) * rateHz / 20
        }
    }

    /// Honeywell HMC5883L (Form #900405 rev. E, "Electrical characteristics", VDD = 2.5 V).
    enum HMC5883L {
        static let supplyV = 2.5
        /// Idle mode, µA, average current draw (unconfirmed).
        static let idleMicroAmp = 2.0
        /// 100 µA in measurement mode at 7.5 Hz with no averaging (`MA` = 00) (unconfirmed), less idle: the charge of
        /// one measurement, µA·s; `MA` averages 1, 2, 4, 8 measurements per output.
        static let chargePerMeasurementMicroAmpS = (100.0 - 2.0) / 7.5
        /// The chip measures at most 160 times a second (features, "fast 160 Hz maximum output rate"; confirmed): more
        /// averages than that allows at a rate cannot cost more.
        static let maximumMeasurementsPerS = 160.0
        static func samplesAveraged(oversampling: Int) -> Int {
            oversampling <= 1 ? 1 : oversampling <= 2 ? 2 : oversampling <= 4 ? 4 : 8
        }
    }

    /// QST QMC5883L (data sheet rev. C).
    enum QMC5883L {
        /// Supply voltage, V (typical conditions; unconfirmed).
        static let supplyV = 3.3
        /// Standby current, µA (unconfirmed).
        static let standbyMicroAmp = 3.0
        /// 75 µA at 10 Hz ("low power" in the features; unconfirmed), less standby. The data sheet gives no dependence
        /// on `OSR`; the model has none.
        static let chargePerSampleMicroAmpS = (75.0 - 3.0) / 10
    }

    /// MEMSIC MMC5983MA (rev. A). NOT FOUND in the sources read: every figure here is an estimate, listed as such.
    enum MMC5983MA {
        /// Supply voltage, V (estimate: the data sheet's typical 3.0 V; unconfirmed).
        static let supplyV = 3.0
        /// Sleep current, µA (estimate).
        static let sleepMicroAmp = 1.0
        /// Charge per measurement, µA·s, by bandwidth (measurement time 8, 4, 2, 0.5 ms): estimated as a 1 mA
        /// measurement current × the measurement time.
        static func microAmp(rateHz: Double, lowPower: Bool) -> Double {
            let ms: Double = lowPower ? 0.5 : rateHz <= 100 ? 8 : rateHz <= 200 ? 4 : 0.5
            return sleepMicroAmp + rateHz * ms
        }
    }

    /// AKM AK8963 (MS1356-E-02, 2013/10, section 1 "Current consumption"; VDD 2.4…3.6 V).
    enum AK8963 {
        /// Supply voltage, V (the MPU-9250 runs it from its own 2.5 V conditions).
        static let supplyV = 2.5
        /// Power-down, µA, typical.
        static let powerDownMicroAmp = 3.0
        /// 280 µA average at 8 Hz repetition: the charge per measurement above power-down, µA·s; 100 Hz (mode 2) is
        /// not in the data sheet and is extrapolated at the same charge per measurement (≈ 3.5 mA).
        static let chargePerMeasurementMicroAmpS = (280.0 - 3.0) / 8
        static func microAmp(rateHz: Double) -> Double { powerDownMicroAmp + chargePerMeasurementMicroAmpS * rateHz }
    }

    /// AKM AK09916 (015007392-E-02, 2015/12, section 2 "Current consumption"; VDD 1.65…1.95 V).
    enum AK09916 {
        static let supplyV = 1.8
        /// Power-down, µA, typical.
        static let powerDownMicroAmp = 1.0
        /// 1.1 mA average at 100 Hz: the charge per measurement above power-down, µA·s. (The ICM-20948 data sheet's
        /// 90 µA at 8 Hz for its magnetometer agrees: 1 + 8 × 10.99 = 89 µA.)
        static let chargePerMeasurementMicroAmpS = (1100.0 - 1.0) / 100
        static func microAmp(rateHz: Double) -> Double { powerDownMicroAmp + chargePerMeasurementMicroAmpS * rateHz }
    }

    // MARK: - IMUs

    /// InvenSense MPU-6050 (PS-MPU-6000A-00 rev. 3.4, section 6.3, VDD 2.375…3.46 V, 25 °C).
    enum MPU6050 {
        /// The table holds over the whole supply range; 3.3 V (the common breakout boards) is taken for mW.
        static let supplyV = 3.3
        /// Gyroscope + accelerometer, DMP disabled, mA → µA.
        static let gyroscopeAndAccelerometerMicroAmp = 3800.0
        /// Accelerometer low-power (cycle) mode: 10 µA at 1.25 Hz, 20 at 5, 70 at 20, 140 at 40 Hz.
        static let cycleModeMicroAmp: [(rateHz: Double, microAmp: Double)] = [(1.25, 10), (5, 20), (20, 70), (40, 140)]
        /// Full-chip idle mode, µA.
        static let idleMicroAmp = 5.0
    }

    /// InvenSense MPU-6500 (PS-MPU-6500A-01 rev. 1.1) and MPU-9250 (PS-MPU-9250A-01 rev. 1.0, section 2, VDD = 2.5 V).
    struct MPU6500Family {
        var supplyV: Double
        var gyroscopeMicroAmp: Double
        var accelerometerMicroAmp: Double
        var lowPowerAccelerometerMicroAmp: [(rateHz: Double, microAmp: Double)]
        var sleepMicroAmp: Double
        var hasAK8963: Bool
        /// MPU-9250 section 2: gyroscope 3.2 mA, accelerometer 450 µA, low-power accelerometer 8.4 µA at 0.98 Hz and
        /// 19.8 µA at 31.25 Hz (the line through them meets 0 Hz at the 8 µA sleep current: a constant charge per
        /// sample, extended to 500 Hz), sleep 8 µA; the AK8963 280 µA at 8 Hz. (Its "3.5 mA with all 9 axes" is lower
        /// than the sum of the parts; the sum is used.)
        static let mpu9250 = MPU6500Family(
            supplyV: 2.5, gyroscopeMicroAmp: 3200, accelerometerMicroAmp: 450,
            lowPowerAccelerometerMicroAmp: [(0.98, 8.4), (31.25, 19.8)], sleepMicroAmp: 8, hasAK8963: true)
        /// MPU-6500 section 2 (unconfirmed): gyroscope 3.2 mA, accelerometer 450 µA, low-power accelerometer 6.37 µA
        /// at 0.98 Hz and 17.75 µA at 31.25 Hz, sleep 6 µA.
        static let mpu6500 = MPU6500Family(
            supplyV: 2.5, gyroscopeMicroAmp: 3200, accelerometerMicroAmp: 450,
            lowPowerAccelerometerMicroAmp: [(0.98, 6.37), (31.25, 17.75)], sleepMicroAmp: 6, hasAK8963: false)
    }

    /// TDK InvenSense ICM-20948 (DS-000189 rev. 1.3, table 4 "D.C. electrical characteristics", VDD = 1.8 V, 25 °C).
    enum ICM20948 {
        static let supplyV = 1.8
        /// 9-axis, DMP disabled, low-noise mode, compass in continuous mode: 3.11 mA.
        static let nineAxisLowNoiseMicroAmp = 3110.0
        /// Accelerometer only, low-power mode, 102.3 Hz, 1× averaging: 68.9 µA (charge per sample from sleep to it).
        static let lowPowerAccelerometerMicroAmp: [(rateHz: Double, microAmp: Double)] = [(102.3, 68.9)]
        /// Full-chip sleep, µA.
        static let sleepMicroAmp = 8.0
    }

    /// ST LSM6DS3 (DocID026899), LSM6DSL (DocID030751 rev. 3, AN5040), LSM6DSOX (DS12814, AN5272).
    struct LSM6DSx {
        var supplyV: Double
        /// Accelerometer and gyroscope in high-performance mode (the driver's `.normal`), µA.
        var comboHighPerformanceMicroAmp: Double
        /// Accelerometer alone in low-power mode (`XL_HM_MODE`, 12.5…52 Hz), µA by ODR.
        var accelerometerLowPowerMicroAmp: [(rateHz: Double, microAmp: Double)]
        var powerDownMicroAmp: Double

        static func table(_ chip: ChipID) -> LSM6DSx {
            switch chip {
            case .lsm6ds3: lsm6ds3
            case .lsm6dsl: lsm6dsl
            default: lsm6dsox
            }
        }
        /// LSM6DS3: 1.25 mA combo high-performance (features; unconfirmed); accelerometer low-power 9, 14, 25 µA at
        /// 12.5, 26, 52 Hz (AN4650; unconfirmed); power-down 6 µA (unconfirmed). VDD = 1.8 V.
        static let lsm6ds3 = LSM6DSx(
            supplyV: 1.8, comboHighPerformanceMicroAmp: 1250,
            accelerometerLowPowerMicroAmp: [(12.5, 9), (26, 14), (52, 25)], powerDownMicroAmp: 6)
        /// LSM6DSL: 0.65 mA combo high-performance (features, confirmed); accelerometer low-power 9, 14, 25 µA at 12.5,
        /// 26, 52 Hz (AN5040; unconfirmed); power-down 3 µA (unconfirmed). VDD = 1.8 V.
        static let lsm6dsl = LSM6DSx(
            supplyV: 1.8, comboHighPerformanceMicroAmp: 650,
            accelerometerLowPowerMicroAmp: [(12.5, 9), (26, 14), (52, 25)], powerDownMicroAmp: 3)
        /// LSM6DSOX: 0.55 mA combo high-performance (features; unconfirmed); accelerometer low-power 9, 14, 25 µA at
        /// 12.5, 26, 52 Hz (estimate: the LSM6DSL's); power-down 3 µA (unconfirmed). VDD = 1.8 V.
        static let lsm6dsox = LSM6DSx(
            supplyV: 1.8, comboHighPerformanceMicroAmp: 550,
            accelerometerLowPowerMicroAmp: [(12.5, 9), (26, 14), (52, 25)], powerDownMicroAmp: 3)
    }

    /// ST LSM9DS1 accelerometer/gyroscope (DocID025715 rev. 3, VDD = 2.2 V).
    enum LSM9DS1 {
        static let supplyV = 2.2
        /// Gyroscope and accelerometer by gyroscope ODR, µA: 1.9 mA at 14.9 Hz (features "eco power mode down to
        /// 1.9 mA", confirmed), 2.4 at 59.5, 3.1 at 119 (low-power mode), 4.3 mA at 238…952 Hz (table 9; unconfirmed).
        static let gyroscopeAndAccelerometerMicroAmp: [(rateHz: Double, microAmp: Double)] = [
            (14.9, 1900), (59.5, 2400), (119, 3100), (238, 4300), (952, 4300)
        ]
        /// Accelerometer-only mode, µA (table 4 "accelerometer current consumption in normal mode"; unconfirmed).
        static let accelerometerOnlyMicroAmp = 600.0
        /// Power-down, µA: not found; estimated as the LSM6DS3's 6 µA.
        static let powerDownMicroAmp = 6.0
    }

    /// Analog Devices ADXL345 (rev. E; tables 7 and 8, VS = 2.5 V, VDD I/O = 1.8 V, 25 °C).
    enum ADXL345 {
        static let supplyV = 2.5
        /// Standby, µA, typical (features).
        static let standbyMicroAmp = 0.1
        /// Table 7 (normal power) by output data rate, µA (the 1600 Hz row is 90 µA in the data sheet, below its
        /// neighbours; kept as printed).
        static let normalMicroAmp: [(key: Double, value: Double)] = [
            (0.10, 23), (0.20, 23), (0.39, 23), (0.78, 23), (1.56, 34), (3.13, 40), (6.25, 45), (12.5, 50), (25, 60),
            (50, 90), (100, 140), (200, 140), (400, 140), (800, 140), (1600, 90), (3200, 140)
        ]
        /// Table 8 (low power mode, 12.5…400 Hz), µA.
        static let lowPowerMicroAmp: [(key: Double, value: Double)] = [
            (12.5, 34), (25, 40), (50, 45), (100, 50), (200, 60), (400, 90)
        ]
        /// The driver picks the slowest rate of at least `rateHz`, and `LOW_POWER` only where table 8 has the rate.
        static func microAmp(rateHz: Double, lowPower: Bool) -> Double {
            if lowPower, rateHz >= 12.5 * (1 - 1e-9), rateHz <= 400 * (1 + 1e-9) { return atOrAbove(lowPowerMicroAmp, rateHz) }
            return atOrAbove(normalMicroAmp, rateHz)
        }
    }
}

extension EnergyChipTables {
    /// Every chip figure with its source; `confirmed` false where it could not be read in the document itself.
    public static let sources: [EnergySource] = [
        EnergySource(
            part: "bmp280", document: "Bosch BST-BMP280-DS001 rev. 1.23",
            figure:
                "table 7: I_DD 509 µA (×2/×1, 125 Hz), 577 µA (×4/×1, 83.3 Hz), 50.9 µA (×4/×1, 7.3 Hz), 247 µA (×16/×2, 10 Hz), 650 µA (×16/×2, 26.3 Hz)",
            confirmed: true),
        EnergySource(
            part: "bmp280", document: "Bosch BST-BMP280-DS001 (key parameters, as in Bosch's BMP280 Sensor API README)",
            figure: "2.74 µA at 1 Hz, ultra low power (×1); 0.1 µA in sleep mode", confirmed: true),
        EnergySource(
            part: "bmp280", document: "Bosch BST-BMP280-DS001 rev. 1.23",
            figure: "table 2: standby current 0.2 µA; conditions VDD = 1.8 V, 25 °C", confirmed: false),
        EnergySource(
            part: "bme280", document: "Bosch BST-BME280-DS002-15 rev. 1.6 (key features)",
            figure: "at 1 Hz, ×1: 1.8 µA humidity + temperature, 2.8 µA pressure + temperature, 3.6 µA all three", confirmed: true
        ),
        EnergySource(
            part: "bme280", document: "Bosch BST-BME280-DS002-15 rev. 1.6",
            figure: "sleep 0.1 µA (secondary copy); standby 0.2 µA; VDD = 1.8 V", confirmed: false),
        EnergySource(
            part: "bmp390", document: "Bosch BST-BMP390-DS002 rev. 1.7", figure: "3.2 µA at 1 Hz (key parameters)",
            confirmed: true),
        EnergySource(
            part: "bmp390", document: "Bosch BST-BMP390-DS002 rev. 1.7 (secondary transcription)",
            figure: "sleep current 1.4 µA typ.", confirmed: false),
        EnergySource(
            part: "bmp388", document: "Bosch BST-BMP388-DS001 rev. 1.0",
            figure: "3.4 µA at 1 Hz; sleep current taken as the BMP390's", confirmed: false),
        EnergySource(
            part: "ms5611", document: "TE DA5611-01BA03",
            figure:
                "supply current at 1 conversion/s: 12.5, 6.3, 3.2, 1.7, 0.9 µA for OSR 4096…256; standby 0.02 µA; peak 1.4 mA; VDD = 3 V",
            confirmed: true),
        EnergySource(
            part: "lps22hb", document: "ST DocID027083 rev. 4",
            figure: "current consumption down to 3 µA (low-current mode, 1 Hz)", confirmed: true),
        EnergySource(
            part: "lps22hb", document: "ST DocID027083 rev. 4",
            figure: "table 3: 12 µA low-noise at 1 Hz; power-down 1 µA; linear in ODR", confirmed: false),
        EnergySource(
            part: "lps25h", document: "ST AN4450 (DocID025978 rev. 1) section 3, equation 2",
            figure:
                "Idd = (3 + 0.042·Pavg + 0.030·Tavg) µA/Hz · ODR; 3.6 µA (1 Hz, 8/8), 26.4 µA (1 Hz, 512/64), 661 µA (25 Hz, 512/64)",
            confirmed: true),
        EnergySource(part: "lps25h", document: "ST DocID023722 rev. 6", figure: "power-down 0.5 µA", confirmed: false),
        EnergySource(
            part: "lis3mdl", document: "ST DocID024204 rev. 4",
            figure: "table 4: LP 40 µA, UHP 270 µA at 20 Hz, power-down 1 µA, Vdd = 2.5 V; MP and HP estimated geometrically",
            confirmed: false),
        EnergySource(
            part: "lsm9ds1-mag", document: "ST DocID025715 rev. 3",
            figure: "magnetometer current not found: the LIS3MDL's figures used", confirmed: false),
        EnergySource(
            part: "hmc5883l", document: "Honeywell HMC5883L Form #900405 rev. E",
            figure: "idle 2 µA; measurement mode 100 µA at 7.5 Hz, no averaging; VDD = 2.5 V", confirmed: false),
        EnergySource(
            part: "hmc5883l", document: "Honeywell HMC5883L (features)",
            figure: "low power consumption (100 µA); fast 160 Hz maximum output rate", confirmed: true),
        EnergySource(part: "qmc5883l", document: "QST QMC5883L rev. C", figure: "75 µA at 10 Hz; standby 3 µA", confirmed: false),
        EnergySource(
            part: "mmc5983ma", document: "MEMSIC MMC5983MA rev. A",
            figure: "not found: sleep 1 µA and a 1 mA measurement current × measurement time are estimates", confirmed: false),
        EnergySource(
            part: "ak8963", document: "AKM MS1356-E-02 (2013/10) section 1",
            figure: "power-down 3 µA; 280 µA average at 8 Hz; 100 Hz extrapolated", confirmed: true),
        EnergySource(
            part: "ak09916", document: "AKM 015007392-E-02 (2015/12) section 2",
            figure: "power-down 1 µA; 1.1 mA average at 100 Hz; VDD 1.65…1.95 V", confirmed: true),
        EnergySource(
            part: "mpu6050", document: "InvenSense PS-MPU-6000A-00 rev. 3.4 section 6.3",
            figure: "gyro + accel 3.8 mA; accel low power 10/20/70/140 µA at 1.25/5/20/40 Hz; idle 5 µA", confirmed: true),
        EnergySource(
            part: "mpu6500", document: "InvenSense PS-MPU-6500A-01 rev. 1.1 section 2",
            figure: "gyro 3.2 mA; accel 450 µA; low power 6.37 µA at 0.98 Hz, 17.75 µA at 31.25 Hz; sleep 6 µA", confirmed: false),
        EnergySource(
            part: "mpu9250", document: "InvenSense PS-MPU-9250A-01 rev. 1.0 section 2",
            figure:
                "gyro 3.2 mA; accel 450 µA; low power 8.4 µA at 0.98 Hz, 19.8 µA at 31.25 Hz; sleep 8 µA; magnetometer 280 µA at 8 Hz; VDD = 2.5 V",
            confirmed: true),
        EnergySource(
            part: "icm20948", document: "TDK DS-000189 rev. 1.3 table 4",
            figure:
                "9-axis low-noise 3.11 mA; accel-only low power 102.3 Hz 68.9 µA; magnetometer 8 Hz 90 µA; sleep 8 µA; VDD = 1.8 V",
            confirmed: true),
        EnergySource(
            part: "lsm6ds3", document: "ST DocID026899; AN4650",
            figure: "combo high-performance 1.25 mA; accel low power 9/14/25 µA at 12.5/26/52 Hz; power-down 6 µA",
            confirmed: false),
        EnergySource(
            part: "lsm6dsl", document: "ST DocID030751 rev. 3 (features)",
            figure: "combo high-performance 0.65 mA, combo normal 0.4 mA", confirmed: true),
        EnergySource(
            part: "lsm6dsl", document: "ST AN5040", figure: "accel low power 9/14/25 µA at 12.5/26/52 Hz; power-down 3 µA",
            confirmed: false),
        EnergySource(
            part: "lsm6dsox", document: "ST DS12814; AN5272",
            figure: "combo high-performance 0.55 mA; power-down 3 µA; low-power accel taken as the LSM6DSL's", confirmed: false),
        EnergySource(
            part: "lsm9ds1", document: "ST DocID025715 rev. 3 (features)",
            figure: "eco power mode down to 1.9 mA (accel + gyro low power, 14.9 Hz)", confirmed: true),
        EnergySource(
            part: "lsm9ds1", document: "ST DocID025715 rev. 3 tables 4 and 9",
            figure: "2.4/3.1 mA at 59.5/119 Hz, 4.3 mA at 238…952 Hz; accel only 600 µA; power-down not found (6 µA estimated)",
            confirmed: false),
        EnergySource(
            part: "adxl345", document: "Analog Devices ADXL345 rev. E tables 7 and 8",
            figure: "23…140 µA by ODR (normal), 34…90 µA (low power, 12.5…400 Hz); standby 0.1 µA; VS = 2.5 V", confirmed: true)
    ]
}
