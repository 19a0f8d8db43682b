import LodestoneCore
import LodestoneDrivers
import LodestoneSimulation
import Testing

/// `ChipCatalog`: the table, identification by ID register (reads only), and making drivers by name.
@Suite struct ChipCatalogTests {
    /// A bus carrying one model of `chip` at `address` (an MPU-9250 brings its AK8963 at 0x0C).
    static func bus(with chip: String, at address: UInt8) -> SimulatedBus {
        let bus = SimulatedBus()
        switch chip {
        case "bmp280": bus.attach(BMP280Model(), at: address)
        case "lis3mdl": bus.attach(LIS3MDLModel(), at: address)
        case "mpu6050": MPUModel(variant: .mpu6050).attach(to: bus, at: address)
        case "mpu6500": MPUModel(variant: .mpu6500).attach(to: bus, at: address)
        case "mpu9250": MPUModel(variant: .mpu9250, magnetometer: AK8963Model()).attach(to: bus, at: address)
        case "ak8963": bus.attach(AK8963Model(), at: address)
        case "ak09916": bus.attach(AK09916Model(), at: address)
        case "icm20948": ICM20948Model().attach(to: bus, at: address)
        case "lsm6ds3", "lsm6dsl", "lsm6dsox": bus.attach(LSM6DSxModel(variant: LSM6DSxVariant(rawValue: chip)!), at: address)
        case "lsm9ds1": bus.attach(LSM9DS1Model(), at: address)
        case "lsm9ds1-mag": bus.attach(LSM9DS1MagnetometerModel(), at: address)
        case "adxl345": bus.attach(ADXL345Model(), at: address)
        case "bme280": bus.attach(BME280Model(), at: address)
        case "bmp388": bus.attach(BMP3xxModel(variant: .bmp388), at: address)
        case "bmp390": bus.attach(BMP3xxModel(variant: .bmp390), at: address)
        case "ms5611": bus.attach(MS5611Model(), at: address)
        case "lps22hb": bus.attach(LPS22HBModel(), at: address)
        case "lps25h": bus.attach(LPS25HModel(), at: address)
        case "hmc5883l": bus.attach(HMC5883LModel(), at: address)
        case "qmc5883l": bus.attach(QMC5883LModel(), at: address)
        case "mmc5983ma": bus.attach(MMC5983MAModel(), at: address)
        default: Issue.record("no model for \(chip)")
        }
        return bus
    }

    static let placements: [(String, UInt8)] = ChipCatalog.entries.flatMap { e in e.addresses.map { (e.name, $0) } }

    @Test func theTableListsEveryDriverOnceWithItsDefaultAddressFirst() {
        #expect(
            ChipCatalog.names == [
                "bmp280", "lis3mdl", "mpu6050", "mpu6500", "mpu9250", "ak09916", "ak8963",
                "icm20948", "lsm6ds3", "lsm6dsl", "lsm6dsox", "lsm9ds1", "lsm9ds1-mag", "adxl345",
                "bme280", "bmp388", "bmp390", "ms5611", "lps22hb", "lps25h", "hmc5883l", "qmc5883l",
                "mmc5983ma"
            ])
        #expect(ChipCatalog.entry(named: "BMP280")?.addresses == [0x76, 0x77])
        #expect(ChipCatalog.entry(named: "mpu9250")?.idValues == [0x71, 0x73])
        #expect(ChipCatalog.entry(named: "lis3mdl")?.idRegister == 0x0F)
        #expect(
            ChipCatalog.entries.allSatisfy {
                !$0.addresses.isEmpty && (!$0.idValues.isEmpty || $0.signature != nil) && !$0.description.isEmpty
            })
    }

    @Test(arguments: placements)
    func identifyNamesEachChipAtEachOfItsAddressesWithReadsOnly(chip: String, address: UInt8) {
        let bus = Self.bus(with: chip, at: address)
        let identity = ChipCatalog.identify(bus: bus, address: address)
        // The LSM9DS1's magnetometer answers exactly as a LIS3MDL (ID 0x3D at 0x0F): alone, it is named one.
        #expect(identity?.chip == (chip == "lsm9ds1-mag" ? "lis3mdl" : chip))
        let entry = ChipCatalog.entry(named: chip)
        #expect(entry?.idValues.contains(identity?.idValue ?? 0) == true || entry?.signature != nil)
        #expect(bus.log.allSatisfy { $0.direction == .read })
    }

    @Test func identifyReadsASharedIDRegisterOnce() {
        let bus = Self.bus(with: "mpu6500", at: 0x68)
        #expect(ChipCatalog.identify(bus: bus, address: 0x68) == ChipIdentity(chip: "mpu6500", idValue: 0x70))
        #expect(logLines(bus) == ["R 0x68 0x75 [70]"])
    }

    @Test func identifyToleratesNacksAndUnknownValues() {
        let bus = SimulatedBus()
        #expect(ChipCatalog.identify(bus: bus, address: 0x76) == nil) // nothing there: NACK
        #expect(ChipCatalog.identify(bus: bus, address: 0x50) == nil) // no candidate: no transfer at all
        #expect(logLines(bus) == ["R 0x76 0xA0 NACK"]) // the MS5611 PROM check comes first; a NACK ends it
        bus.attach(BMP280Model(chipID: 0x61), at: 0x77) // an ID no driver knows
        #expect(ChipCatalog.identify(bus: bus, address: 0x77) == nil)
    }

    @Test func theAK8963IsFoundOnlyOnceTheMPU9250BypassIsOn() throws {
        let bus = Self.bus(with: "mpu9250", at: 0x68)
        #expect(ChipCatalog.identify(bus: bus, address: 0x0C) == nil)
        var mpu = MPU6xxx(bus: bus)
        _ = try mpu.probe()
        #expect(ChipCatalog.identify(bus: bus, address: 0x0C) == ChipIdentity(chip: "ak8963", idValue: 0x48))
    }

    @Test(arguments: ChipCatalog.names)
    func makeDriverBuildsAWorkingDriverAtTheDefaultAddress(chip: String) throws {
        let entry = try #require(ChipCatalog.entry(named: chip))
        let bus = Self.bus(with: chip, at: entry.addresses[0])
        var driver = try ChipCatalog.makeDriver(chip: chip, bus: bus, address: nil)
        #expect(driver.address == entry.addresses[0])
        #expect(bus.log.isEmpty) // no I/O before probe
        #expect(try driver.probe().chip == chip)
        try driver.configure(SensorConfiguration(rateHz: 25)) // a rate every chip has (the LPS25H's fastest)
        let reading = try driver.read(timeS: 0)
        #expect(Set(reading.kinds).isSubset(of: Set(entry.kinds)))
    }

    @Test(arguments: ["bmp280", "bme280", "bmp388", "bmp390", "ms5611"])
    func theFiveBarometersSharing0x76And0x77AreToldApart(chip: String) {
        for address: UInt8 in [0x76, 0x77] {
            let bus = Self.bus(with: chip, at: address)
            #expect(ChipCatalog.identify(bus: bus, address: address)?.chip == chip, "\(chip) at \(hex(address))")
            #expect(bus.log.allSatisfy { $0.direction == .read })
        }
    }

    @Test func anMS5611IsIdentifiedByItsPROMAndABoschChipsRegistersAreNot() {
        let bus = Self.bus(with: "ms5611", at: 0x77)
        let identity = ChipCatalog.identify(bus: bus, address: 0x77)
        #expect(identity == ChipIdentity(chip: "ms5611", idValue: MS5611Datasheet.Calibration.datasheetExample.storedCRC))
        #expect(bus.log.map(\.register).prefix(9) == [0xA0, 0xA0, 0xA2, 0xA4, 0xA6, 0xA8, 0xAA, 0xAC, 0xAE])
        let bosch = Self.bus(with: "bme280", at: 0x77)
        #expect(MS5611Datasheet.validPROM(bus: bosch, address: 0x77) == nil)
    }

    @Test func theHMC5883LNeedsAllThreeIdentityBytesAndTheLIS3MDLAt0x1EIsStillFound() {
        let bus = SimulatedBus()
        bus.attach(HMC5883LModel(identification: [0x48, 0x34, 0x34]), at: 0x1E) // "H44": not an HMC5883L
        #expect(ChipCatalog.identify(bus: bus, address: 0x1E) == nil)
        #expect(ChipCatalog.identify(bus: Self.bus(with: "lis3mdl", at: 0x1E), address: 0x1E)?.chip == "lis3mdl")
    }

    @Test func theLPS22HBAndLPS25HSharingAddressesAreToldApartByWhoAmI() {
        for address: UInt8 in [0x5C, 0x5D] {
            #expect(ChipCatalog.identify(bus: Self.bus(with: "lps22hb", at: address), address: address)?.chip == "lps22hb")
            #expect(ChipCatalog.identify(bus: Self.bus(with: "lps25h", at: address), address: address)?.chip == "lps25h")
        }
    }

    @Test func makeDriverForOneMPUVariantRejectsAnother() throws {
        let bus = Self.bus(with: "mpu6050", at: 0x69)
        var driver = try ChipCatalog.makeDriver(chip: "mpu9250", bus: bus, address: 0x69)
        guard case .wrongChipID(let chip, _, _, _, let expected, let found)? = thrownError({ try driver.probe() }) else {
            Issue.record("expected wrongChipID"); return
        }
        #expect(chip == "mpu9250" && expected == [0x71, 0x73] && found == 0x68)
    }

    @Test func unknownChipsAndImpossibleAddressesAreRejectedWithWhatIsAccepted() {
        #expect(
            thrownError { try ChipCatalog.makeDriver(chip: "bme680", bus: SimulatedBus(), address: nil) }
                == .unsupportedConfiguration(
                    chip: "bme680", detail: "unknown chip; known chips: " + ChipCatalog.names.joined(separator: ", ")))
        #expect(
            thrownError { try ChipCatalog.makeDriver(chip: "bmp280", bus: SimulatedBus(), address: 0x68) }
                == .unsupportedConfiguration(chip: "bmp280", detail: "address 0x68 is not one the chip can have: 0x76, 0x77"))
    }

    @Test func anAK09916IsNotTakenForAnAK8963ThoughBothReadAKMsIDFirst() {
        let bus = SimulatedBus()
        bus.attach(AK09916Model(), at: 0x0C)
        #expect(ChipCatalog.identify(bus: bus, address: 0x0C) == ChipIdentity(chip: "ak09916", idValue: 0x09))
        let other = SimulatedBus()
        other.attach(AK8963Model(), at: 0x0C) // INFO (0x01) reads 0x9A
        #expect(ChipCatalog.identify(bus: other, address: 0x0C) == ChipIdentity(chip: "ak8963", idValue: 0x48))
    }

    @Test func everyChipThatCanSitOnSPIHasAFramingAndTheMagnetometersBehindIMUsHaveNone() {
        #expect(
            ChipCatalog.spiEntries.map(\.name) == [
                "bmp280", "lis3mdl", "mpu6050", "mpu6500", "mpu9250", "icm20948",
                "lsm6ds3", "lsm6dsl", "lsm6dsox", "lsm9ds1", "lsm9ds1-mag", "adxl345"
            ])
        #expect(ChipCatalog.spiFraming(forChip: "ADXL345") == .readBit7MultiByteBit6)
        #expect(ChipCatalog.spiFraming(forChip: "lsm9ds1-mag") == .readBit7AutoIncrementBit6)
        #expect(ChipCatalog.spiFraming(forChip: "ak8963") == nil && ChipCatalog.spiFraming(forChip: "ak09916") == nil)
    }
}
