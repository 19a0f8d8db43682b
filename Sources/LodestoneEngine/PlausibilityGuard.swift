import LodestoneCore
import LodestoneLocation
import LodestoneTrace

/// What the engine accepts from a chip or a receiver as physics (issue 18, hostile hardware): a reading outside these
/// limits is flagged, reported once as degraded, kept out of fusion, and the source recovers once its values have been
/// sane for `recoveryS` and `recoveryReadings` readings in a row.
///
/// Every check is a plain comparison on the sample path (no allocation); the message saying what was wrong is built
/// only when a reading is turned away.
public struct PlausibilityLimits: Sendable, Hashable {
    /// Whether readings and fixes are checked at all (default true; false only to show what the checks catch).
    public var isEnabled = true
    /// Lowest plausible static pressure, Pa (default 30 kPa: the BMP280/BME280 operating range's floor, about 9 km up;
    /// Bosch BST-BMP280-DS001 section 1).
    public var minimumPressurePa = 30_000.0
    /// Highest plausible static pressure, Pa (default 110 kPa: the same range's ceiling; the record sea-level high is
    /// 108.4 kPa).
    public var maximumPressurePa = 110_000.0
    /// Largest plausible change of pressure between two readings less than a second apart, Pa (default 1 000: 80 m of
    /// height in under a second; a lift climbs 10 m/s). Random bytes from a barometer mostly land inside the range.
    public var maximumPressureStepPa = 1_000.0
    /// Largest plausible magnetic flux density, µT (default 1 000: twenty times the Earth's strongest field).
    public var maximumFieldMicroTesla = 1_000.0
    /// Largest plausible change of the field between two readings less than a second apart, µT (default 200: turning
    /// over in the Earth's field changes it by at most 2 × 65 µT). Random bytes from a magnetometer whose full scale
    /// stays under `maximumFieldMicroTesla` (an LIS3MDL at ±400 µT) fail this.
    public var maximumFieldStepMicroTesla = 200.0
    /// The accelerometer's configured full scale, m/s² per axis (from the chip's configuration; `nil`: unchecked): a
    /// magnitude beyond it is flagged.
    public var accelerationRangeMps2: Double?
    /// The gyroscope's configured full scale, rad/s per axis (`nil`: unchecked): an axis at its rail is flagged.
    public var angularRateRangeRadS: Double?
    /// The magnetometer's configured full scale, µT per axis (`nil`: unchecked): an axis at its rail is flagged (a
    /// saturated axis says nothing about the field's direction).
    public var magneticRangeMicroTesla: Double?
    /// The fraction of a full scale at which an axis counts as at its rail (default 0.99: a 16-bit register's largest
    /// code is a little short of the nominal full scale, 1 998 of 2 000 °/s on an MPU-9250).
    public var railFraction = 0.99
    /// Readings identical to the bit (every vector and the pressure) for at least `frozenReadings` readings spanning
    /// `frozenS` are flagged as a chip that stopped converting (all 0x00, all 0xFF, a stuck data path). Defaults 10 and
    /// 0.5 s: a converting MEMS chip's noise moves its least significant bits far more often, and a chip read faster
    /// than it converts repeats a sample a few times, not ten.
    public var frozenReadings = 10
    public var frozenS = 0.5
    /// Earliest plausible receiver date, s since 1970 (default 1 577 836 800, 2020-01-01T00:00:00Z): a receiver that
    /// lost its GPS week number count (the 1024-week rollover) reports dates 19.6 years back, such as 1999.
    public var earliestUTCS = 1_577_836_800.0
    /// Fastest plausible movement between accepted fixes, m/s (default 1 000: faster than any airliner).
    public var maximumFixSpeedMps = 1_000.0
    /// Fixes in a row that agree with each other but not with the last accepted one before the receiver is believed
    /// (default 10): the earlier position was the wrong one.
    public var reanchorFixes = 10
    /// A flagged source delivers again after this long, s, and this many readings, of sane values in a row (defaults
    /// 1 s and 3).
    public var recoveryS = 1.0
    public var recoveryReadings = 3

    public init() {}

    /// The limits with the full scales a chip reports in its applied configuration.
    mutating func adopt(_ c: SensorConfiguration?) {
        accelerationRangeMps2 = c?.accelerationRangeMps2
        angularRateRangeRadS = c?.angularRateRangeRadS
        magneticRangeMicroTesla = c?.magneticRangeMicroTesla
    }
}

/// Why a reading or a fix was turned away (`PlausibilityLimits`).
public enum PlausibilityProblem: Sendable, Hashable, CustomStringConvertible {
    case notFinite
    case pressure(pa: Double)
    case pressureStep(pa: Double)
    case field(microTesla: Double)
    case magnetometerAtRail(microTesla: Double, rangeMicroTesla: Double)
    case fieldStep(microTesla: Double)
    case acceleration(mps2: Double, rangeMps2: Double)
    case gyroscopeAtRail(radS: Double, rangeRadS: Double)
    case frozen(readings: Int)
    case date(utcS: Double)
    case positionJump(distanceM: Double, seconds: Double)

    public var description: String {
        switch self {
        case .notFinite: "a value is not finite"
        case .pressure(let p): "pressure \(formatFixed(p / 1000, digits: 1)) kPa outside 30…110 kPa"
        case .pressureStep(let p): "pressure changed by \(formatFixed(p, digits: 0)) Pa between two readings"
        case .field(let b): "field \(formatFixed(b, digits: 0)) µT beyond 1000 µT"
        case let .magnetometerAtRail(b, r):
            "magnetometer at its rail (\(formatFixed(b, digits: 0)) µT of ±\(formatFixed(r, digits: 0)) µT)"
        case .fieldStep(let b): "field changed by \(formatFixed(b, digits: 0)) µT between two readings"
        case let .acceleration(a, r):
            "|acceleration| \(formatFixed(a, digits: 1)) m/s² beyond the configured range \(formatFixed(r, digits: 1)) m/s²"
        case let .gyroscopeAtRail(w, r):
            "gyroscope at its rail (\(formatFixed(w, digits: 2)) rad/s of ±\(formatFixed(r, digits: 2)) rad/s)"
        case .frozen(let n): "\(n) identical readings in a row: the chip stopped converting"
        case .date(let u):
            "receiver date \(UTCCalendar.iso8601(unixS: Int64(max(u, -1e12).rounded(.down)), nanoseconds: 0, fractionDigits: 0)) before 2020"
        case let .positionJump(d, s):
            "position jumped \(formatFixed(d / 1000, digits: 0)) km in \(formatFixed(s, digits: 1)) s"
        }
    }
}

/// One source's plausibility state: checks each reading or fix and holds a flagged source until it is sane again.
/// Allocation-free.
struct PlausibilityGuard {
    /// What a reading is to the engine.
    enum Verdict: Equatable {
        /// Deliver it.
        case sane
        /// Sane, but the source was flagged and is not yet trusted again: keep it out of fusion, say nothing.
        case held
        /// Turn it away (the source is flagged).
        case implausible(PlausibilityProblem)
    }

    var limits: PlausibilityLimits
    /// When the current run of sane readings after a flag began, and how long it is; `nil` while not flagged.
    private var saneSinceS: Double?
    private var saneCount = 0
    private(set) var isFlagged = false
    private var previous: SensorReading?
    /// Runs of bit-identical values, per quantity.
    private var frozen = (
        acceleration: FrozenRun(), angularVelocity: FrozenRun(), field: FrozenRun(), pressure: FrozenRun()
    )
    /// The last fix accepted with a position, and the run of mutually agreeing fixes that disagree with it.
    private var anchor: (latitudeDeg: Double, longitudeDeg: Double, timeS: Double)?
    private var candidate: (latitudeDeg: Double, longitudeDeg: Double, timeS: Double)?
    private var candidateCount = 0

    init(limits: PlausibilityLimits) { self.limits = limits }

    /// The verdict on `r` (board axes, SI).
    mutating func check(_ r: SensorReading) -> Verdict {
        guard limits.isEnabled else { return .sane }
        return verdict(problem(r), timeS: r.timeS)
    }

    /// The verdict on a receiver fix.
    mutating func check(_ f: ReceiverFix) -> Verdict {
        guard limits.isEnabled else { return .sane }
        return verdict(problem(f), timeS: f.timeS)
    }

    private mutating func verdict(_ p: PlausibilityProblem?, timeS: Double) -> Verdict {
        if let p {
            isFlagged = true
            saneSinceS = nil
            saneCount = 0
            return .implausible(p)
        }
        guard isFlagged else { return .sane }
        if saneSinceS == nil { saneSinceS = timeS }
        saneCount += 1
        guard saneCount >= limits.recoveryReadings, timeS - (saneSinceS ?? timeS) >= limits.recoveryS - 1e-9 else {
            return .held
        }
        isFlagged = false
        saneSinceS = nil
        saneCount = 0
        return .sane
    }

    private mutating func problem(_ r: SensorReading) -> PlausibilityProblem? {
        defer { previous = r }
        if let p = r.pressurePa {
            guard p.isFinite else { return .notFinite }
            if p < limits.minimumPressurePa || p > limits.maximumPressurePa { return .pressure(pa: p) }
            if let q = previous?.pressurePa, let t = previous?.timeS, r.timeS - t < 1, abs(p - q) > limits.maximumPressureStepPa {
                return .pressureStep(pa: abs(p - q))
            }
        }
        if let a = r.accelerationMps2 {
            guard a.x.isFinite, a.y.isFinite, a.z.isFinite else { return .notFinite }
            if let range = limits.accelerationRangeMps2 {
                let n2 = a.x * a.x + a.y * a.y + a.z * a.z
                if n2 > range * range { return .acceleration(mps2: n2.squareRoot(), rangeMps2: range) }
            }
        }
        if let w = r.angularVelocityRadS {
            guard w.x.isFinite, w.y.isFinite, w.z.isFinite else { return .notFinite }
            if let range = limits.angularRateRangeRadS {
                // Mounted readings are rotations of the chip's axes: the largest component is the rail's witness for
                // the axis-aligned mounts boards use.
                let m = max(abs(w.x), abs(w.y), abs(w.z))
                if m >= range * limits.railFraction { return .gyroscopeAtRail(radS: m, rangeRadS: range) }
            }
        }
        if let b = r.magneticFieldMicroTesla {
            guard b.x.isFinite, b.y.isFinite, b.z.isFinite else { return .notFinite }
            let n2 = b.x * b.x + b.y * b.y + b.z * b.z
            let limit = limits.maximumFieldMicroTesla
            if n2 > limit * limit { return .field(microTesla: n2.squareRoot()) }
            if let range = limits.magneticRangeMicroTesla {
                let m = max(abs(b.x), abs(b.y), abs(b.z))
                if m >= range * limits.railFraction { return .magnetometerAtRail(microTesla: m, rangeMicroTesla: range) }
            }
            if let q = previous?.magneticFieldMicroTesla, let t = previous?.timeS, r.timeS - t < 1 {
                let d = b - q
                let step2 = d.x * d.x + d.y * d.y + d.z * d.z
                let stepLimit = limits.maximumFieldStepMicroTesla
                if step2 > stepLimit * stepLimit { return .fieldStep(microTesla: step2.squareRoot()) }
            }
        }
        // Each quantity on its own: an IMU whose accelerometer and gyroscope stopped may still pass on a magnetometer
        // behind it that did not.
        if let q = previous {
            let before = q.timeS
            let limit = limits.frozenReadings
            let span = limits.frozenS - 1e-9
            func judge(_ run: inout FrozenRun, same: Bool) -> Bool {
                guard same else {
                    run = FrozenRun()
                    return false
                }
                return run.extend(from: before) >= limit && r.timeS - run.sinceS >= span
            }
            if judge(&frozen.acceleration, same: r.accelerationMps2 != nil && r.accelerationMps2 == q.accelerationMps2) {
                return .frozen(readings: frozen.acceleration.count)
            }
            if judge(
                &frozen.angularVelocity, same: r.angularVelocityRadS != nil && r.angularVelocityRadS == q.angularVelocityRadS)
            {
                return .frozen(readings: frozen.angularVelocity.count)
            }
            if judge(
                &frozen.field, same: r.magneticFieldMicroTesla != nil && r.magneticFieldMicroTesla == q.magneticFieldMicroTesla)
            {
                return .frozen(readings: frozen.field.count)
            }
            if judge(&frozen.pressure, same: r.pressurePa != nil && r.pressurePa == q.pressurePa) {
                return .frozen(readings: frozen.pressure.count)
            }
        }
        return nil
    }

    private mutating func problem(_ f: ReceiverFix) -> PlausibilityProblem? {
        if let u = f.utcS {
            guard u.isFinite else { return .notFinite }
            if u < limits.earliestUTCS { return .date(utcS: u) }
        }
        guard let lat = f.latitudeDeg, let lon = f.longitudeDeg else { return nil }
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return .notFinite }
        guard let a = anchor else {
            anchor = (lat, lon, f.timeS)
            return nil
        }
        let dt = max(f.timeS - a.timeS, 1)
        let d = Self.distanceM(a.latitudeDeg, a.longitudeDeg, lat, lon)
        if d <= limits.maximumFixSpeedMps * dt {
            anchor = (lat, lon, f.timeS)
            candidate = nil
            candidateCount = 0
            return nil
        }
        // Disagrees with the anchor: believe it only once enough fixes in a row agree with each other.
        if let c = candidate,
            Self.distanceM(c.latitudeDeg, c.longitudeDeg, lat, lon) <= limits.maximumFixSpeedMps * max(f.timeS - c.timeS, 1)
        {
            candidateCount += 1
        } else {
            candidateCount = 1
        }
        candidate = (lat, lon, f.timeS)
        if candidateCount >= limits.reanchorFixes {
            anchor = (lat, lon, f.timeS)
            candidate = nil
            candidateCount = 0
            return nil
        }
        return .positionJump(distanceM: d, seconds: f.timeS - a.timeS)
    }

    /// Geodesic distance on WGS84, m (a fix's path: at most a few per second); infinite for an invalid pair.
    private static func distanceM(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        Coordinate(latitudeDeg: lat1, longitudeDeg: lon1).distanceM(to: Coordinate(latitudeDeg: lat2, longitudeDeg: lon2))
            ?? .infinity
    }
}

/// A run of bit-identical readings of one quantity: how many, since when.
struct FrozenRun {
    var count = 0
    var sinceS = 0.0
    /// One more identical reading; the run started at `previousS` when it is new. Returns the run's length.
    mutating func extend(from previousS: Double) -> Int {
        if count == 0 {
            count = 1
            sinceS = previousS
        }
        count += 1
        return count
    }
}
