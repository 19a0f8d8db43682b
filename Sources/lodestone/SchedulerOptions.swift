import ArgumentParser
import LodestoneCLI
import LodestoneEngine
import LodestoneLinux
import LodestoneScheduler

/// `lodestone run`'s scheduler options: the policy, what the clients want, and the battery. Without any, one client
/// wants everything (best location, heading, activity, altitude) in the foreground under the adaptive policy.
struct SchedulerOptions: ParsableArguments {
    @Option(help: "Scheduling policy: \(SchedulingConfiguration.policyNames.joined(separator: ", ")).")
    var policy: String = "adaptive"
    @Option(help: "Location accuracy wanted: \(DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", ")).")
    var accuracy: String = "best"
    @Option(help: "Deliver a location only after moving this many metres.")
    var distanceFilter: Double?
    @Flag(help: "Locations only on significant changes (500 m, at most every 5 minutes).")
    var significantChange = false
    @Option(help: "Mark delivered locations older than this many seconds as stale.")
    var maxAge: Double = 10
    @Option(help: "Deliver a heading only after it changed by this many degrees.")
    var headingFilter: Double = 1
    @Flag(help: "No client wants locations.") var noLocation = false
    @Flag(help: "No client wants headings.") var noHeading = false
    @Flag(help: "No client wants activity.") var noActivity = false
    @Flag(help: "No client wants altitude.") var noAltitude = false
    @Flag(help: "The client is in the background (coarser service).") var background = false
    @Option(help: "A JSON list of clients' demands (several clients); replaces the options above. See docs/scheduler-run.md.")
    var demands: String?
    @Option(
        help:
            "Battery: auto (a battery in /sys/class/power_supply, else external power), none, or simulated:CAPACITY_MAH[:LEVEL_PERCENT]."
    )
    var battery: String = "auto"

    func validate() throws {
        guard SchedulingConfiguration.policyNames.contains(policy) else {
            throw ValidationError(
                "--policy \(policy) is unknown; allowed: " + SchedulingConfiguration.policyNames.joined(separator: ", "))
        }
        guard DesiredAccuracy(rawValue: accuracy) != nil else {
            throw ValidationError(
                "--accuracy \(accuracy) is unknown; allowed: " + DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if let d = distanceFilter, !(d > 0 && d.isFinite) {
            throw ValidationError("--distance-filter must be a positive number of metres")
        }
        if !(maxAge > 0 && maxAge.isFinite) { throw ValidationError("--max-age must be a positive number of seconds") }
        if !(headingFilter >= 0 && headingFilter < 360) {
            throw ValidationError("--heading-filter must be between 0 and 360 degrees")
        }
        if noLocation && noHeading && noActivity && noAltitude && demands == nil {
            throw ValidationError("--no-location --no-heading --no-activity --no-altitude leave nothing to serve; drop one")
        }
        _ = try batteryChoice()
    }

    /// The battery choice `--battery` names.
    func batteryChoice() throws(ValidationError) -> BatteryChoice {
        switch battery {
        case "auto": return .auto
        case "none": return .none
        default:
            let parts = battery.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3, parts[0] == "simulated", let capacity = Double(parts[1]),
                capacity > 0, capacity.isFinite
            else {
                throw ValidationError(
                    "--battery \(battery) is not understood; use auto, none or simulated:CAPACITY_MAH[:LEVEL_PERCENT], e.g. simulated:3000:80"
                )
            }
            var level = 100.0
            if parts.count == 3 {
                guard let l = Double(parts[2]), l >= 0, l <= 100 else {
                    throw ValidationError("--battery \(battery): the level must be a percentage between 0 and 100")
                }
                level = l
            }
            return .simulated(capacityMilliAmpHour: capacity, levelFraction: level / 100)
        }
    }

    /// The one client these options describe (without `--demands`).
    var demand: Demand {
        Demand(
            client: "run",
            location: noLocation
                ? nil
                : LocationDemand(
                    desiredAccuracy: DesiredAccuracy(rawValue: accuracy) ?? .best,
                    distanceFilterM: distanceFilter,
                    significantChangeOnly: significantChange, maximumAgeS: maxAge),
            heading: noHeading ? nil : HeadingDemand(headingFilterDeg: headingFilter),
            activity: !noActivity, altitude: !noAltitude, foreground: !background)
    }

    /// The scheduling configuration; reads `--demands` (exits with one line when the file is unreadable or wrong).
    func configuration() -> SchedulingConfiguration {
        var c = SchedulingConfiguration(policy: policy, demands: [demand])
        c.battery = (try? batteryChoice()) ?? .auto
        if let path = demands {
            do { c.demands = try DemandsFile.load(path: path) } catch { fail(error.message) }
        }
        return c
    }

    /// The system's battery from `/sys/class/power_supply` (`--battery auto`): `nil` when the board has none (external
    /// power) or the class cannot be read.
    @Sendable static func systemBattery() -> BatteryState? {
        guard let uevents = try? PowerSupply.readUevents(), !uevents.isEmpty else { return nil }
        let state = BatteryState(uevents: uevents)
        return state.charging == .externalPower ? nil : state
    }
}
