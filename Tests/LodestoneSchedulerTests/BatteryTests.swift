import Testing
import LodestoneCore
import LodestoneScheduler

/// uevent texts shaped as the kernel's drivers write them (Documentation/ABI/testing/sysfs-class-power; key sets of
/// the named drivers: ACPI battery `BAT0`, `axp20x_battery` on the PinePhone / PineTab, `cw2015_battery` as on
/// Raspberry Pi UPS HATs, ACPI `AC`). Values made up, units as sysfs has them (µWh, µAh, µV).
enum UeventFixtures {
    static let laptopBattery = """
        POWER_SUPPLY_NAME=BAT0
        POWER_SUPPLY_TYPE=Battery
        POWER_SUPPLY_STATUS=Discharging
        POWER_SUPPLY_PRESENT=1
        POWER_SUPPLY_TECHNOLOGY=Li-poly
        POWER_SUPPLY_CYCLE_COUNT=212
        POWER_SUPPLY_VOLTAGE_MIN_DESIGN=11580000
        POWER_SUPPLY_VOLTAGE_NOW=12171000
        POWER_SUPPLY_POWER_NOW=7362000
        POWER_SUPPLY_ENERGY_FULL_DESIGN=57000000
        POWER_SUPPLY_ENERGY_FULL=51300000
        POWER_SUPPLY_ENERGY_NOW=12825000
        POWER_SUPPLY_CAPACITY=25
        POWER_SUPPLY_CAPACITY_LEVEL=Normal
        POWER_SUPPLY_MODEL_NAME=5B10W13930
        POWER_SUPPLY_MANUFACTURER=SMP
        POWER_SUPPLY_SERIAL_NUMBER= 1234

        """
    static let laptopAC = """
        POWER_SUPPLY_NAME=AC
        POWER_SUPPLY_TYPE=Mains
        POWER_SUPPLY_ONLINE=0

        """
    static let pinePhoneBattery = """
        POWER_SUPPLY_NAME=axp20x-battery
        POWER_SUPPLY_TYPE=Battery
        POWER_SUPPLY_PRESENT=1
        POWER_SUPPLY_ONLINE=1
        POWER_SUPPLY_STATUS=Charging
        POWER_SUPPLY_VOLTAGE_NOW=3921000
        POWER_SUPPLY_CURRENT_NOW=612000
        POWER_SUPPLY_CONSTANT_CHARGE_CURRENT=1200000
        POWER_SUPPLY_CONSTANT_CHARGE_CURRENT_MAX=1200000
        POWER_SUPPLY_HEALTH=Good
        POWER_SUPPLY_VOLTAGE_MAX_DESIGN=4200000
        POWER_SUPPLY_VOLTAGE_MIN_DESIGN=2900000
        POWER_SUPPLY_CAPACITY=64

        """
    static let pinePhoneUSB = """
        POWER_SUPPLY_NAME=axp20x-usb
        POWER_SUPPLY_TYPE=USB
        POWER_SUPPLY_HEALTH=Good
        POWER_SUPPLY_PRESENT=1
        POWER_SUPPLY_ONLINE=1
        POWER_SUPPLY_VOLTAGE_MIN=4000000
        POWER_SUPPLY_CURRENT_MAX=1500000
        POWER_SUPPLY_USB_TYPE=[Unknown] SDP DCP CDP

        """
    static let upsHATBattery = """
        POWER_SUPPLY_NAME=cw2015-battery
        POWER_SUPPLY_TYPE=Battery
        POWER_SUPPLY_CAPACITY=4
        POWER_SUPPLY_STATUS=Discharging
        POWER_SUPPLY_PRESENT=1
        POWER_SUPPLY_VOLTAGE_NOW=3412000
        POWER_SUPPLY_TIME_TO_EMPTY_NOW=540
        POWER_SUPPLY_TECHNOLOGY=Li-ion
        POWER_SUPPLY_CHARGE_COUNTER=96000
        POWER_SUPPLY_CHARGE_FULL=2400000
        POWER_SUPPLY_CHARGE_FULL_DESIGN=2400000
        POWER_SUPPLY_CURRENT_NOW=412000

        """
    static let chargeOnlyBattery = """
        POWER_SUPPLY_NAME=battery
        POWER_SUPPLY_TYPE=Battery
        POWER_SUPPLY_STATUS=Not charging
        POWER_SUPPLY_CHARGE_FULL=3000000
        POWER_SUPPLY_CHARGE_NOW=1500000

        """
    static let mouseBattery = """
        POWER_SUPPLY_NAME=hidpp_battery_0
        POWER_SUPPLY_TYPE=Battery
        POWER_SUPPLY_SCOPE=Device
        POWER_SUPPLY_STATUS=Discharging
        POWER_SUPPLY_CAPACITY=5

        """
    static let mainsOnline = """
        POWER_SUPPLY_NAME=AC
        POWER_SUPPLY_TYPE=Mains
        POWER_SUPPLY_ONLINE=1

        """
}

@Suite struct BatteryStateTests {
    @Test func laptopBatteryReadsCapacityEnergyAndVoltageAndIgnoresTheOfflineAdapter() {
        let b = BatteryState(uevents: ["BAT0": UeventFixtures.laptopBattery, "AC": UeventFixtures.laptopAC])
        #expect(b.levelFraction == 0.25)
        #expect(b.charging == .discharging)
        #expect(abs((b.energyNowWh ?? 0) - 12.825) < 1e-9)
        #expect(abs((b.energyFullWh ?? 0) - 51.3) < 1e-9)
        #expect(abs((b.voltageV ?? 0) - 12.171) < 1e-9)
        #expect(b.source == "/sys/class/power_supply/BAT0")
        #expect(BatteryTierThresholds.default.tier(for: b, previous: .normal) == .saver)
    }

    @Test func pinePhoneChargingOverUSBIsUnrestricted() {
        let b = BatteryState(uevents: [
            "axp20x-battery": UeventFixtures.pinePhoneBattery, "axp20x-usb": UeventFixtures.pinePhoneUSB
        ])
        #expect(b.levelFraction == 0.64)
        #expect(b.charging == .charging)
        #expect(BatteryTierThresholds.default.tier(for: b, previous: .low) == .unrestricted)
    }

    @Test func upsHATAtFourPercentIsCritical() {
        let b = BatteryState(uevents: ["cw2015-battery": UeventFixtures.upsHATBattery])
        #expect(b.levelFraction == 0.04)
        #expect(b.chargeFullMilliAmpHour == 2400)
        #expect(BatteryTierThresholds.default.tier(for: b, previous: .normal) == .critical)
    }

    @Test func chargeCountersGiveTheLevelWithoutCapacity() {
        let b = BatteryState(uevents: ["battery": UeventFixtures.chargeOnlyBattery])
        #expect(b.levelFraction == 0.5)
        #expect(b.chargeNowMilliAmpHour == 1500)
        #expect(b.charging == .notCharging)
        #expect(b.isExternallyPowered)
    }

    @Test func mainsOnlyOrNoSupplyIsExternalPowerAndADevicesBatteryIsNotOurs() {
        #expect(BatteryState(uevents: ["AC": UeventFixtures.mainsOnline]).charging == .externalPower)
        #expect(BatteryState(uevents: [:]).charging == .externalPower)
        let withMouse = BatteryState(uevents: ["AC": UeventFixtures.mainsOnline, "hidpp_battery_0": UeventFixtures.mouseBattery])
        #expect(withMouse.charging == .externalPower)
        #expect(withMouse.levelFraction == nil)
    }

    @Test func twoBatteriesCombineByEnergy() {
        let second = UeventFixtures.laptopBattery.replacingOccurrences("BAT0", "BAT1")
            .replacingOccurrences("ENERGY_NOW=12825000", "ENERGY_NOW=51300000")
        let b = BatteryState(uevents: ["BAT0": UeventFixtures.laptopBattery, "BAT1": second])
        // (12.825 + 51.3) / (51.3 + 51.3)
        #expect(abs((b.levelFraction ?? 0) - 0.625) < 1e-9)
        #expect(b.source.contains("BAT0") && b.source.contains("BAT1"))
    }

    @Test func garbageLinesAndNonNumbersGiveAnUnknownLevelNotAGuess() {
        let text = "POWER_SUPPLY_TYPE=Battery\nthis is not a uevent\nPOWER_SUPPLY_CAPACITY=lots\n=\nPOWER_SUPPLY_STATUS=Unknown\n"
        let b = BatteryState(uevents: ["BAT9": text])
        #expect(b.levelFraction == nil)
        #expect(b.charging == .unknown)
        #expect(BatteryTierThresholds.default.tier(for: b, previous: .normal) == .normal)
    }
}

@Suite struct BatteryTierTests {
    func battery(_ level: Double, _ charging: ChargingState = .discharging) -> BatteryState {
        BatteryState(levelFraction: level, charging: charging, source: "test")
    }

    @Test func tiersDropAtTheirBoundaries() {
        let t = BatteryTierThresholds.default
        #expect(t.tier(for: battery(0.80), previous: .normal) == .normal)
        #expect(t.tier(for: battery(0.30), previous: .normal) == .saver)
        #expect(t.tier(for: battery(0.15), previous: .saver) == .low)
        #expect(t.tier(for: battery(0.05), previous: .low) == .critical)
        #expect(t.tier(for: battery(0.50), previous: .unrestricted) == .normal)
        #expect(t.tier(for: battery(0.02, .charging), previous: .critical) == .unrestricted)
        #expect(t.tier(for: battery(0.02, .full), previous: .critical) == .unrestricted)
    }

    @Test func tiersRiseOnlyThreePointsAboveTheirBoundary() {
        let t = BatteryTierThresholds.default
        #expect(t.tier(for: battery(0.07), previous: .critical) == .critical)
        #expect(t.tier(for: battery(0.081), previous: .critical) == .low)
        #expect(t.tier(for: battery(0.32), previous: .saver) == .saver)
        #expect(t.tier(for: battery(0.331), previous: .saver) == .normal)
        // A recharge from critical to 50 % without the charger's status (a swapped battery) rises all the way.
        #expect(t.tier(for: battery(0.50), previous: .critical) == .normal)
    }

    @Test func aLevelJitteringAroundABoundaryChangesTheTierOnce() {
        let t = BatteryTierThresholds.default
        var tier = BatteryTier.normal, changes = 0
        for i in 0..<1000 {
            // 30 % ± 1.5 points of gauge noise, slowly falling.
            let level = 0.30 + 0.015 * (i % 2 == 0 ? 1 : -1) - Double(i) * 1e-6
            let next = t.tier(for: battery(level), previous: tier)
            if next != tier { changes += 1; tier = next }
        }
        #expect(changes == 1)
        #expect(tier == .saver)
    }
}

@Suite struct SimulatedBatteryTests {
    @Test func drainsByCoulombCountingAndChargesInItsIntervals() {
        var b = SimulatedBattery(capacityMilliAmpHour: 2000, levelFraction: 1, chargingIntervalsS: [7200...10800])
        b.drain(milliAmp: 100, untilS: 3600) // 100 mAh of 2000
        #expect(abs(b.levelFraction - 0.95) < 1e-12)
        #expect(b.state.charging == .discharging)
        b.drain(milliAmp: 100, untilS: 7200)
        #expect(abs(b.levelFraction - 0.90) < 1e-12)
        #expect(b.state.charging == .charging)
        b.drain(milliAmp: 100, untilS: 7200 + 360) // charging at 1000 mA for 0.1 h: +100 mAh
        #expect(abs(b.levelFraction - 0.95) < 1e-12)
        #expect(b.lifeHours(atMilliAmp: 50) == 40)
        #expect(b.state.source == "simulated 2000 mAh")
    }
}

extension String {
    fileprivate func replacingOccurrences(_ a: String, _ b: String) -> String {
        var out = "", rest = Substring(self)
        while let r = rest.firstRange(of: a) {
            out += rest[..<r.lowerBound]; out += b
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
