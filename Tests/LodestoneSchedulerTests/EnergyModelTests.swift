import Foundation
import Testing
import LodestoneCore
import LodestoneDrivers
import LodestoneScheduler

@Suite struct EnergyModelTests {
    static func microAmp(_ chip: String, _ rateHz: Double, _ mode: PowerMode, oversampling: Int = 1, enabled: Bool = true)
        -> Double?
    {
        EnergyModel.draw(
            chip: chip, configuration: SensorConfiguration(rateHz: rateHz, powerMode: mode, oversampling: oversampling),
            enabled: enabled
        ).map { $0.milliAmp * 1000 }
    }

    // MARK: Coverage

    @Test func everyCatalogChipAnswersForEveryPowerModeAndWhenDisabled() throws {
        #expect(Set(EnergyModel.chips) == Set(ChipCatalog.names), "the energy table and ChipCatalog list different chips")
        for chip in ChipCatalog.names {
            for mode in [PowerMode.normal, .lowPower, .suspend] {
                let draw = try #require(
                    EnergyModel.draw(
                        chip: chip, configuration: SensorConfiguration(rateHz: 25, powerMode: mode),
                        enabled: true), "\(chip) \(mode)")
                #expect(draw.milliAmp.isFinite && draw.milliAmp > 0, "\(chip) \(mode): \(draw.milliAmp) mA")
                #expect(draw.supplyV >= 1.7 && draw.supplyV <= 3.6, "\(chip): \(draw.supplyV) V")
            }
            let off = try #require(EnergyModel.draw(chip: chip, configuration: SensorConfiguration(rateHz: 25), enabled: false))
            let suspended = try #require(
                EnergyModel.draw(
                    chip: chip, configuration: SensorConfiguration(rateHz: 25, powerMode: .suspend),
                    enabled: true))
            #expect(off == suspended, "\(chip): disabled must draw the suspend current")
            #expect(EnergyModel.draw(chip: chip.uppercased(), configuration: SensorConfiguration(), enabled: true) != nil)
            #expect(EnergyModel.sources.contains { $0.part == chip }, "\(chip) has no cited source")
        }
        #expect(EnergyModel.draw(chip: "bmp999", configuration: SensorConfiguration(), enabled: true) == nil)
    }

    @Test func theDocumentTablesEveryChipAndReceiver() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("docs/energy-model.md"), encoding: .utf8)
        for name in ChipCatalog.names + EnergyModel.receiverModels {
            #expect(text.contains("| \(name) |"), "docs/energy-model.md has no table row for \(name)")
        }
    }

    @Test func everySourceNamesAKnownPartADocumentAndAFigure() {
        let parts = Set(EnergyModel.chips + EnergyModel.receiverModels + ["all"])
        for source in EnergyModel.sources {
            #expect(parts.contains(source.part), "source for unknown part \(source.part)")
            #expect(!source.document.isEmpty && !source.figure.isEmpty, "\(source.part): empty citation")
        }
        for model in EnergyModel.receiverModels where model != "generic" {
            #expect(EnergyModel.sources.contains { $0.part == model }, "\(model) has no cited source")
        }
    }

    // MARK: Structure

    /// At 25 Hz (a rate every chip's low-power mode serves) with ×4 oversampling asked of `.normal`.
    @Test func suspendDrawsLessThanLowPowerWhichDrawsLessThanNormal() throws {
        for chip in ChipCatalog.names {
            let suspend = try #require(Self.microAmp(chip, 25, .suspend))
            let low = try #require(Self.microAmp(chip, 25, .lowPower))
            let normal = try #require(Self.microAmp(chip, 25, .normal, oversampling: 4))
            #expect(suspend < low, "\(chip): suspend \(suspend) µA, low power \(low) µA")
            if chip == "qmc5883l" {
                // The data sheet says a larger OSR draws more but gives no figures; the model has no OSR term.
                #expect(low <= normal)
            } else {
                #expect(low < normal, "\(chip): low power \(low) µA, normal \(normal) µA")
            }
        }
    }

    @Test func currentNeverFallsAsTheRateRisesAndRisesWhereConversionsDominate() throws {
        let rates: [Double] = [1, 5, 10, 25, 50, 100]
        for chip in ChipCatalog.names {
            let normal = try rates.map { try #require(Self.microAmp(chip, $0, .normal)) }
            #expect(zip(normal, normal.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 }, "\(chip) normal: \(normal)")
        }
        // Duty-cycled parts: every sample costs charge.
        for chip in [
            "bmp280", "bme280", "bmp388", "bmp390", "ms5611", "lps22hb", "lps25h", "lis3mdl", "hmc5883l", "qmc5883l",
            "mmc5983ma", "ak09916"
        ] {
            #expect(try #require(Self.microAmp(chip, 1, .normal)) < (try #require(Self.microAmp(chip, 20, .normal))), "\(chip)")
        }
        for chip in ["mpu6050", "mpu6500", "mpu9250", "icm20948", "lsm6ds3", "lsm6dsl", "lsm6dsox", "adxl345"] {
            #expect(
                try #require(Self.microAmp(chip, 12.5, .lowPower)) < (try #require(Self.microAmp(chip, 40, .lowPower))), "\(chip)"
            )
        }
    }

    @Test func currentRisesWithOversampling() throws {
        for chip in ["bmp280", "bme280", "bmp388", "bmp390", "ms5611", "lps25h", "hmc5883l"] {
            let steps = try [1, 4, 16].map { try #require(Self.microAmp(chip, 1, .normal, oversampling: $0)) }
            #expect(steps[0] < steps[1] && steps[1] < steps[2], "\(chip): \(steps)")
        }
    }

    // MARK: Known answers from the data sheets

    /// ADXL345 rev. E, table 7 (VS = 2.5 V): 140 µA at 100 Hz, 23 µA at 0.10 Hz; table 8: 34 µA at 12.5 Hz in low
    /// power; standby 0.1 µA.
    @Test func adxl345MatchesTables7And8() throws {
        #expect(try #require(Self.microAmp("adxl345", 100, .normal)) == 140)
        #expect(try #require(Self.microAmp("adxl345", 0.1, .normal)) == 23)
        #expect(try #require(Self.microAmp("adxl345", 12.5, .lowPower)) == 34)
        #expect(abs(try #require(Self.microAmp("adxl345", 100, .suspend)) - 0.1) < 1e-12)
        #expect(EnergyModel.draw(chip: "adxl345", configuration: SensorConfiguration(), enabled: true)?.supplyV == 2.5)
    }

    /// MPU-6000/6050 PS rev. 3.4, section 6.3: cycle mode 70 µA at 20 Hz and 140 µA at 40 Hz; gyroscope +
    /// accelerometer 3.8 mA; idle 5 µA.
    @Test func mpu6050MatchesSection6_3() throws {
        #expect(abs(try #require(Self.microAmp("mpu6050", 20, .lowPower)) - 70) < 1e-9)
        #expect(abs(try #require(Self.microAmp("mpu6050", 40, .lowPower)) - 140) < 1e-9)
        #expect(abs(try #require(Self.microAmp("mpu6050", 100, .normal)) - 3800) < 1e-9)
        #expect(abs(try #require(Self.microAmp("mpu6050", 100, .suspend)) - 5) < 1e-9)
    }

    /// MS5611-01BA03: 12.5 µA at one OSR-4096 conversion per second; the driver converts pressure and temperature
    /// once per read at 1 Hz, over the 0.02 µA standby.
    @Test func ms5611MatchesItsSupplyCurrentTable() throws {
        #expect(abs(try #require(Self.microAmp("ms5611", 1, .normal, oversampling: 16)) - (0.02 + 2 * 12.5)) < 1e-9)
        #expect(abs(try #require(Self.microAmp("ms5611", 1, .lowPower)) - (0.02 + 2 * 0.9)) < 1e-9)
    }

    /// BMP280 DS001 rev. 1.23, table 7: "handheld device low-power", ×16/×2 at 10 Hz, 247 µA (+ 0.2 µA standby).
    @Test func bmp280MatchesTable7() throws {
        #expect(abs(try #require(Self.microAmp("bmp280", 10, .normal, oversampling: 16)) - 247.2) < 1e-9)
    }

    /// BME280 DS002-15 rev. 1.6 key features: 3.6 µA at 1 Hz with humidity, pressure and temperature ×1 (forced mode,
    /// over the 0.1 µA sleep current; in normal mode the model idles at the 0.2 µA standby current instead).
    @Test func bme280MatchesItsKeyFeatures() throws {
        #expect(abs(try #require(Self.microAmp("bme280", 1, .lowPower)) - (3.6 - 0.1 + 0.2)) < 1e-9)
    }

    /// LPS25H AN4450 equation 2, example 3: 3.6 µA at 1 Hz with 8/8 averages (the driver's `.lowPower`; the equation
    /// gives 3.576, which the note rounds).
    @Test func lps25hMatchesAN4450Example() throws {
        #expect(abs(try #require(Self.microAmp("lps25h", 1, .lowPower)) - 3.6) < 0.05)
    }

    /// ICM-20948 DS-000189 rev. 1.3, table 4: 9-axis low-noise 3.11 mA, full-chip sleep 8 µA; AK09916 1.1 mA at 100 Hz.
    @Test func icm20948AndAK09916MatchTheirTables() throws {
        #expect(abs(try #require(Self.microAmp("icm20948", 100, .normal)) - 3110) < 1e-9)
        #expect(abs(try #require(Self.microAmp("icm20948", 100, .suspend)) - 8) < 1e-9)
        #expect(abs(try #require(Self.microAmp("ak09916", 100, .normal)) - 1100) < 1e-9)
        #expect(abs(try #require(Self.microAmp("ak8963", 8, .normal)) - 280) < 1e-9)
    }

    // MARK: Units

    @Test func milliWattIsMilliAmpTimesVoltsAndADayIsTwentyFourHours() throws {
        let draw = PowerDraw(milliAmp: 2, supplyV: 3)
        #expect(draw.milliWatt == 6)
        #expect(draw.milliAmpHours(overS: 86_400) == 48)
        #expect(draw.milliWattHours(overS: 3600) == 6)
        let mpu = try #require(EnergyModel.draw(chip: "mpu6050", configuration: SensorConfiguration(rateHz: 100), enabled: true))
        #expect(abs(mpu.milliWatt - mpu.milliAmp * mpu.supplyV) < 1e-12)
    }

    // MARK: Receivers

    @Test func acquisitionAtLeastTrackingAbovePowerSaveAboveOff() throws {
        #expect(EnergyModel.receiverModels.contains("ublox-m8") && EnergyModel.receiverModels.contains("generic"))
        for model in EnergyModel.receiverModels {
            let acquiring = try #require(EnergyModel.draw(receiver: model, state: .acquiring)).milliAmp
            let tracking = try #require(EnergyModel.draw(receiver: model, state: .tracking)).milliAmp
            let off = try #require(EnergyModel.draw(receiver: model, state: .off)).milliAmp
            let idle = try #require(EnergyModel.draw(receiver: model, state: .powerSaveIdle)).milliAmp
            #expect(acquiring >= tracking && tracking > idle && idle >= off && off > 0, "\(model)")
            var previous = tracking
            for period in [1.0, 5, 10, 30, 60, 600, 3600] {
                let save = try #require(EnergyModel.draw(receiver: model, mode: .powerSave(updatePeriodS: period))).milliAmp
                #expect(save < tracking && save > off, "\(model) power save \(period) s: \(save) mA")
                #expect(save <= previous + 1e-12, "\(model): a longer period must not cost more")
                previous = save
            }
            #expect(
                EnergyModel.draw(receiver: model, mode: .continuous(rateHz: 1))
                    == EnergyModel.draw(receiver: model, state: .tracking))
            #expect(EnergyModel.draw(receiver: model, mode: .off) == EnergyModel.draw(receiver: model, state: .off))
        }
        #expect(EnergyModel.draw(receiver: "sirf-3", state: .tracking) == nil)
        #expect(EnergyModel.draw(receiver: "NMEA", mode: .off) == EnergyModel.draw(receiver: "generic", mode: .off))
        #expect(EnergyModel.receiver("neo-m8n")?.model == "ublox-m8")
    }

    /// SAM-M8Q UBX-16012619 R04 table 8: cyclic tracking 1 Hz 9.5 mA; tracking 29 mA. A 60 s ON/OFF cycle: 1 s of
    /// hot-start acquisition at 32 mA, 1 s tracking (the on-time) at 29 mA, 58 s inactive at 15 µA.
    @Test func ubloxM8PowerSaveCyclesAsTheReceiverDescriptionSays() throws {
        #expect(EnergyModel.draw(receiver: "ublox-m8", mode: .powerSave(updatePeriodS: 1))?.milliAmp == 9.5)
        #expect(EnergyModel.draw(receiver: "ublox-m8", mode: .powerSave(updatePeriodS: 10))?.milliAmp == 9.5)
        let onOff = try #require(EnergyModel.draw(receiver: "ublox-m8", mode: .powerSave(updatePeriodS: 60))).milliAmp
        // 1 s at 32 mA, 1 s at 29 mA, 58 s at 0.015 mA, over 60 s; Double literals and one constant, because Swift
        // 6.0's type checker gave up on the mixed integer and floating-point sum ("reasonable time").
        let cycleMilliAmp = (1.0 * 32.0 + 1.0 * 29.0 + 58.0 * 0.015) / 60.0
        #expect(abs(onOff - cycleMilliAmp) < 1e-12)
        let m8 = try #require(EnergyModel.receiver("ublox-m8"))
        #expect(m8.ttffHotS < m8.ttffColdS && m8.cyclicTrackingMaximumPeriodS == 10)
        #expect(EnergyReceiverTables.hotStartMaximumOffS <= EnergyReceiverTables.ephemerisValidityS)
        // Between cyclic-tracking fixes the receiver keeps tracking at low power; between ON/OFF fixes it sleeps.
        #expect(
            EnergyModel.draw(receiver: "ublox-m8", state: .powerSaveIdle, mode: .powerSave(updatePeriodS: 5))?.milliAmp == 9.5)
        #expect(
            EnergyModel.draw(receiver: "ublox-m8", state: .powerSaveIdle, mode: .powerSave(updatePeriodS: 60))
                == EnergyModel.draw(receiver: "ublox-m8", state: .powerSaveIdle))
        #expect(
            EnergyModel.draw(receiver: "ublox-m8", state: .acquiring, mode: .powerSave(updatePeriodS: 5))
                == EnergyModel.draw(receiver: "ublox-m8", state: .acquiring))
    }
}
