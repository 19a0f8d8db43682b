import LodestoneCore

/// A Linux kernel version, from a release string such as `uname -r` gives (`6.1.0-56-amd64`, `6.6.31+rpt-rpi-v8`).
public struct KernelVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
        self.major = major; self.minor = minor; self.patch = patch
    }

    /// The version at the start of `release`: up to three dot-separated numbers; `nil` when it does not start with
    /// `MAJOR.MINOR`.
    public init?(release: String) {
        var numbers: [Int] = []
        var current = ""
        for ch in release {
            if ch.isASCII, ch.isNumber {
                current.append(ch)
            } else {
                guard !current.isEmpty, let n = Int(current) else { break }
                numbers.append(n)
                current = ""
                if ch != "." || numbers.count == 3 { break }
            }
        }
        if !current.isEmpty, numbers.count < 3, let n = Int(current) { numbers.append(n) }
        guard numbers.count >= 2 else { return nil }
        self.init(numbers[0], numbers[1], numbers.count > 2 ? numbers[2] : 0)
    }

    public static func < (a: KernelVersion, b: KernelVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}

/// A known unit or value mistake of a kernel IIO driver, how to recognise it and how to correct it.
///
/// A quirk applies to a device whose `name` is in `deviceNames`, on a kernel inside `affected` (when the kernel
/// version and the bounds are known), and only to values that carry the mistake's `signature` (so that a
/// kernel that has fixed the driver, or a backport, is left alone even where the version says otherwise).
public struct IIOQuirk: Sendable, Hashable, CustomStringConvertible {
    /// How to recognise the mistake in what the driver reports.
    public enum Signature: Sendable, Hashable {
        /// The channel's `scale` equals one of these (relative tolerance 1e-6): the driver's known-wrong table.
        case scaleIn([Double])
        /// The channel's `scale` is at least this large.
        case scaleAtLeast(Double)
        /// The channel's `raw` is above this (a signed value printed as unsigned).
        case rawAbove(Double)
        /// The channel's value, in the ABI's unit, is outside this range.
        case valueOutside(ClosedRange<Double>)
    }

    /// What to do about it.
    public enum Correction: Sendable, Hashable {
        /// Multiply the channel's `scale` by this.
        case multiplyScale(Double)
        /// Subtract 2¹⁶ from the raw value (a 16-bit two's-complement value printed as unsigned).
        case signExtendRaw16
        /// Values above `range` up to `overshootLimit` are an overshoot and become the upper bound; values beyond
        /// `overshootLimit`, or below the range, come from a negative intermediate printed unsigned and become the
        /// lower bound (the datasheet's clamp).
        case clamp(ClosedRange<Double>, overshootLimit: Double)
    }

    /// A short name for messages, e.g. `hmc5843-scale`.
    public var id: String
    /// The IIO device names (`/sys/bus/iio/devices/iio:deviceN/name`) the driver publishes.
    public var deviceNames: [String]
    /// The kernel driver and file.
    public var driver: String
    /// The channel type affected.
    public var channelType: IIOChannelType
    /// First kernel version with the mistake, when known (`nil`: since the driver appeared).
    public var affectedFrom: KernelVersion?
    /// First kernel version without it, when known (`nil`: not fixed as far as known).
    public var fixedIn: KernelVersion?
    /// How the mistake shows.
    public var signature: Signature
    /// What Lodestone does.
    public var correction: Correction
    /// What is wrong, in one sentence.
    public var summary: String
    /// Where this is established: commit, mailing-list thread, driver source, datasheet.
    public var source: String

    /// Whether the quirk can apply on `kernel` (unknown versions and unknown bounds do not exclude it).
    public func affects(kernel: KernelVersion?) -> Bool {
        guard let kernel else { return true }
        if let from = affectedFrom, kernel < from { return false }
        if let fixed = fixedIn, kernel >= fixed { return false }
        return true
    }

    /// One line for people: device, kernel, what is wrong and what Lodestone does.
    public func notice(device: String, kernel: KernelVersion?) -> String {
        let action: String =
            switch correction {
            case .multiplyScale(let f): "Lodestone multiplies its \(channelType) scale by \(f)"
            case .signExtendRaw16: "Lodestone reads its \(channelType) raw value as signed 16-bit"
            case let .clamp(range, _): "Lodestone clamps its \(channelType) values to \(range.lowerBound)…\(range.upperBound)"
            }
        return
            "\(device): kernel \(kernel?.description ?? "(version unknown)") \(driver): \(summary); \(action) [quirk \(id); source: \(source)]"
    }

    public var description: String { id }
}

/// The table of known kernel IIO driver mistakes that `IIOSensor` corrects. Each entry names its source; add one
/// only with a source (a commit, a mailing-list thread, the driver's code against the datasheet).
public enum IIOQuirks {
    /// Every known quirk.
    public static let table: [IIOQuirk] = [
        IIOQuirk(
            id: "hmc5843-scale",
            deviceNames: ["hmc5843", "hmc5883", "hmc5883l", "hmc5983"],
            driver: "hmc5843_core (drivers/iio/magnetometer/hmc5843_core.c)",
            channelType: .magneticField, affectedFrom: nil, fixedIn: nil,
            // The driver's three scale tables, in nano-gauss per LSB as it prints them.
            signature: .scaleIn(
                [
                    6173, 7692, 10309, 12821, 18868, 21739, 25641, 35714,
                    7812, 9766, 13021, 16287, 24096, 27701, 32573, 45662,
                    7299, 9174, 12195, 15152, 22727, 30303, 43478
                ].map { $0 * 1e-9 }),
            correction: .multiplyScale(100),
            summary: "in_magn_scale is 100 times too small: the driver's tables hold 10^7/gain nano-gauss "
                + "(its comment: \"Scaling factors: 10000000/Gain\"), i.e. 0.01/gain gauss per LSB, where the "
                + "datasheet's gain (e.g. 1090 LSB/gauss at ±1.3 gauss) means 1/gain",
            source: "hmc5843_core.c hmc5843/hmc5883/hmc5883l_regval_to_nanoscale (as in mainline when this table was made); "
                + "Honeywell HMC5883L datasheet Form #900405 Rev E table 9; observed on Debian's 6.1 kernel "
                + "(Tests/Integration/kernel-vm-baro-mag-check.py)"),
        IIOQuirk(
            id: "bno055-magn-scale",
            deviceNames: ["bno055"],
            driver: "bno055 (drivers/iio/imu/bno055/bno055.c)",
            channelType: .magneticField, affectedFrom: KernelVersion(6, 1), fixedIn: nil,
            signature: .scaleIn([1.0 / 160]),
            correction: .multiplyScale(0.1),
            summary: "in_magn_scale is 10 times too large: the driver reports 1/160 gauss per LSB (its comment: "
                + "\"1 uT = 16 LSB. But we need Gauss: 1G = 0.1 uT\"); 1 gauss is 100 µT, so 16 LSB/µT is 1/1600 gauss per LSB",
            source: "bno055.c bno055_read_simple_chan, IIO_MAGN scale (mainline since the driver was added in 6.1); "
                + "Bosch BST-BNO055-DS000 table 3-19 (1 µT = 16 LSB)"),
        IIOQuirk(
            id: "ak8975-gauss-formula",
            deviceNames: ["ak8975", "ak8963"],
            driver: "ak8975 (drivers/iio/magnetometer/ak8975.c)",
            channelType: .magneticField, affectedFrom: nil, fixedIn: nil,
            signature: .scaleAtLeast(1),
            correction: .multiplyScale(1e-4),
            summary: "in_magn_*_scale is 10000 times too large on kernels before the fix: it was computed as "
                + "(ASA + 128) · 30 / 256, taking 1 µT for 100 gauss instead of 0.01 gauss (the integer result also "
                + "truncates, so the corrected value is within 1/30 of the true one)",
            source: "commit bef44abccb2677e8d16e50b75316d4fd1061be81 \"iio: ak8975: Fix calculation formula for convert "
                + "micro tesla to gauss unit\" (Cc: stable, 2014); the fixed scale is below 0.004, so the signature "
                + "scale ≥ 1 never matches a fixed kernel"),
        IIOQuirk(
            id: "bme280-humidity-unclamped",
            deviceNames: ["bme280"],
            driver: "bmp280 (drivers/iio/pressure/bmp280-core.c)",
            channelType: .relativeHumidity, affectedFrom: nil, fixedIn: KernelVersion(5, 8),
            signature: .valueOutside(0...100_000),
            correction: .clamp(0...100_000, overshootLimit: 200_000),
            summary: "in_humidityrelative_input is not clamped to 0…100 % as the datasheet's code does: slightly negative "
                + "humidities come out as huge values (e.g. 4193085 m%), overshoots above 100 %",
            source: "commit dee2dabc0e4115b80945fe2c91603e634f4b4686 \"iio: bmp280: fix compensation of humidity\" "
                + "(May 2020, in 5.8); linux-iio thread \"BME-280 humidity over-/underflow\" (June 2020); "
                + "Bosch BST-BME280-DS002 section 4.2.3"),
        IIOQuirk(
            id: "mpu3050-temperature-sign",
            deviceNames: ["mpu3050"],
            driver: "mpu3050 (drivers/iio/gyro/mpu3050-core.c)",
            channelType: .temperature, affectedFrom: nil, fixedIn: nil,
            signature: .rawAbove(32767),
            correction: .signExtendRaw16,
            summary: "in_temp_raw is the 16-bit two's-complement register printed as unsigned, so temperatures below "
                + "the sensor's zero read about 65536 LSB too high",
            source: "commit \"iio: gyro: mpu3050: Fix reported temperature value\" (Dmitry Osipenko, Cc: stable, "
                + "https://lore.kernel.org/r/20210423020959.5023-1-digetx@gmail.com), Fixes: 3904b28efb; "
                + "a signed 16-bit value is never above 32767, so a fixed kernel is left alone")
    ]

    /// The quirks for a device named `deviceName` on `kernel` (`nil` when the version is unknown).
    public static func applicable(deviceName: String?, kernel: KernelVersion?) -> [IIOQuirk] {
        guard let deviceName else { return [] }
        return table.filter { $0.deviceNames.contains(deviceName) && $0.affects(kernel: kernel) }
    }
}

extension IIOQuirk.Signature {
    /// Whether a `scale` shows the mistake.
    func matches(scale: Double) -> Bool {
        switch self {
        case .scaleIn(let values): values.contains { abs($0 - scale) <= 1e-6 * abs($0) }
        case .scaleAtLeast(let v): scale >= v
        case .rawAbove, .valueOutside: false
        }
    }
}
