#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The wire: Lodestone's messages as one JSON object per line (`lodestone run --json` today; the daemon's native
/// protocol and its client library next).
///
/// Every message is a `Codable` value with a `class` first in meaning (`VERSION`, `HEADING`, …), the session time `t_s`
/// (s since the session started) and, when the session knows the date, a UTC `time` (ISO 8601, milliseconds). Keys
/// carry their units (`_deg`, `_m`, `_pa`, `_mps`, …); a value that is unknown is omitted, never `null` or NaN.
/// `docs/wire.md` lists every class and key.
///
/// Versioned: `VERSION.protocol` is `Wire.protocolVersion`. A reader ignores keys it does not know and classes it does
/// not know (`Wire.Message.decode` returns `.unknown(class)`), so a newer session can add both without breaking an
/// older client; a change of meaning gets a new protocol number.
public enum Wire {
    /// Protocol version. 2: every message carries `t_s` (and `time` when known); ATTITUDE, HEADING, ACTIVITY,
    /// PEDOMETER, ALTITUDE added.
    public static let protocolVersion = 2

    /// The classes of messages, as their `class` strings.
    public enum Class: String, Sendable, Hashable, Codable, CaseIterable {
        case version = "VERSION", board = "BOARD", calibration = "CALIBRATION"
        case sample = "SAMPLE", fix = "FIX", status = "STATUS", plan = "PLAN", delivery = "DELIVERY"
        case location = "LOCATION", degraded = "DEGRADED", recovered = "RECOVERED"
        case attitude = "ATTITUDE", heading = "HEADING", activity = "ACTIVITY", pedometer = "PEDOMETER"
        case altitude = "ALTITUDE"

        /// What `lodestone run --json` emits without `--classes`: everything but `SAMPLE`, which floods the stream.
        public static let defaultSet: Set<Class> = Set(allCases).subtracting([.sample])

        /// Classes named in a comma-separated list (`HEADING,ACTIVITY`; case-insensitive; `all` for every class).
        /// - Throws: `WireError` naming the unknown name and the allowed ones.
        public static func parseList(_ text: String) throws(WireError) -> Set<Class> {
            var set = Set<Class>()
            for part in text.split(separator: ",") {
                let name = part.trimmingHorizontalSpace().uppercased()
                if name == "ALL" { set.formUnion(allCases); continue }
                guard let c = Class(rawValue: name) else {
                    throw WireError("class \"\(part)\" is unknown; allowed: " + allCases.map(\.rawValue).joined(separator: ", "))
                }
                set.insert(c)
            }
            guard !set.isEmpty else {
                throw WireError("no class named; allowed: " + allCases.map(\.rawValue).joined(separator: ", "))
            }
            return set
        }
    }

    // MARK: - Session and board

    /// `VERSION` — the first message of a stream.
    public struct Version: Codable, Sendable, Equatable {
        public var `class` = "VERSION"
        public var tS: Double = 0
        public var time: String?
        public var protocolVersion = Wire.protocolVersion
        public var release = ""
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", time, protocolVersion = "protocol", release }
        public init(release: String, tS: Double = 0, time: String? = nil) {
            self.release = release; self.tS = tS; self.time = time
        }
    }

    /// `BOARD` — the board in use.
    public struct Board: Codable, Sendable, Equatable {
        public var `class` = "BOARD"
        public var tS: Double = 0
        public var time: String?
        public var name = ""
        public var path: String?
        public var sensors: [Sensor] = []
        /// The simulated board's scenario and seed.
        public var scenario: String?
        public var seed: UInt64?
        public struct Sensor: Codable, Sendable, Equatable {
            public var id: String
            public var label: String
            public var rateHz: Double
            enum CodingKeys: String, CodingKey { case id, label, rateHz = "rate_hz" }
            public init(id: String, label: String, rateHz: Double) { self.id = id; self.label = label; self.rateHz = rateHz }
        }
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", time, name, path, sensors, scenario, seed }
        public init() {}
    }

    /// `CALIBRATION` — after BOARD: the calibration fusion applies (`path`, and per sensor the kinds calibrated), or
    /// `searched` when none was found, or `disabled`.
    public struct Calibration: Codable, Sendable, Equatable {
        public var `class` = "CALIBRATION"
        public var tS: Double = 0
        public var time: String?
        public var path: String?
        public var board: String?
        public var sensors: [Sensor] = []
        public var searched: [String]?
        public var disabled: Bool?
        public struct Sensor: Codable, Sendable, Equatable {
            public var id: String
            public var kinds: [String]
            public init(id: String, kinds: [String]) { self.id = id; self.kinds = kinds }
        }
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", time, path, board, sensors, searched, disabled }
        public init() {}
    }

    // MARK: - Raw input

    /// `SAMPLE` — one sensor reading as read (board axes, SI, after the mount matrix, before calibration). The keys of
    /// `lodestone read --json`, which omits `class`.
    public struct Sample: Codable, Sendable, Equatable {
        public var `class`: String?
        public var tS: Double = 0
        public var time: String?
        public var sensor = ""
        public var pressurePa: Double?
        public var temperatureC: Double?
        public var accXMps2: Double?
        public var accYMps2: Double?
        public var accZMps2: Double?
        public var gyrXRadS: Double?
        public var gyrYRadS: Double?
        public var gyrZRadS: Double?
        public var magXMicroTesla: Double?
        public var magYMicroTesla: Double?
        public var magZMicroTesla: Double?
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, sensor, pressurePa = "pressure_pa", temperatureC = "temperature_c"
            case accXMps2 = "acc_x_mps2", accYMps2 = "acc_y_mps2", accZMps2 = "acc_z_mps2"
            case gyrXRadS = "gyr_x_rads", gyrYRadS = "gyr_y_rads", gyrZRadS = "gyr_z_rads"
            case magXMicroTesla = "mag_x_ut", magYMicroTesla = "mag_y_ut", magZMicroTesla = "mag_z_ut"
        }
        public init() {}
    }

    /// `FIX` — a receiver's fix as reported (before fusion).
    public struct Fix: Codable, Sendable, Equatable {
        public var `class` = "FIX"
        public var tS: Double = 0
        public var time: String?
        public var sensor = ""
        /// gpsd's mode: 0 unknown, 1 no fix, 2 2D, 3 3D.
        public var mode = 0
        public var latDeg: Double?
        public var lonDeg: Double?
        /// Height above the WGS84 ellipsoid, m.
        public var heightM: Double?
        public var altMSLM: Double?
        public var speedMps: Double?
        /// Course over ground, deg; omitted when too slow to define one.
        public var courseDeg: Double?
        public var horizontalAccuracyM: Double?
        public var verticalAccuracyM: Double?
        /// Vertical speed, m/s (+ up).
        public var climbMps: Double?
        /// gpsd's status: 1 GNSS, 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning, 6 GNSS + DR, 7 surveyed,
        /// 8 simulated, 9 P(Y); omitted when the receiver does not say.
        public var quality: Int?
        /// Dilutions of precision and the satellites used, as the receiver reports them.
        public var hdop: Double?
        public var vdop: Double?
        public var pdop: Double?
        public var satellitesUsed: Int?
        /// Geoid separation (geoid − ellipsoid), m.
        public var geoidSeparationM: Double?
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, sensor, mode, latDeg = "lat_deg", lonDeg = "lon_deg", heightM = "height_m"
            case altMSLM = "alt_msl_m", speedMps = "speed_mps"
            case courseDeg = "course_deg", horizontalAccuracyM = "h_acc_m", verticalAccuracyM = "v_acc_m"
            case climbMps = "climb_mps", quality, hdop, vdop, pdop, satellitesUsed = "satellites_used"
            case geoidSeparationM = "geoid_sep_m"
        }
        public init() {}
    }

    /// `DEGRADED` / `RECOVERED` — a sensor started failing, or delivers again.
    public struct Notice: Codable, Sendable, Equatable {
        public var `class`: String
        public var tS: Double
        public var time: String?
        public var sensor: String
        public var message: String
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", time, sensor, message }
        public init(messageClass: String, tS: Double, time: String? = nil, sensor: String, message: String) {
            self.class = messageClass; self.tS = tS; self.time = time; self.sensor = sensor; self.message = message
        }
    }

    /// `STATUS` — once a second: each sensor's health and measured rate; `degraded` lists what is not working.
    public struct Status: Codable, Sendable, Equatable {
        public var `class` = "STATUS"
        public var tS: Double = 0
        public var time: String?
        public var sensors: [Sensor] = []
        public var degraded: [String] = []
        /// Simulated-board truth (only on the simulated board).
        public var truth: Truth?
        /// The scheduler's plan in brief (scheduled sessions only).
        public var plan: PlanSummary?
        public struct Sensor: Codable, Sendable, Equatable {
            public var id: String
            /// `starting`, `ok` or `degraded`.
            public var health: String
            public var message: String?
            public var rateHz: Double
            public var samples: Int
            public var failures: Int
            enum CodingKeys: String, CodingKey { case id, health, message, rateHz = "rate_hz", samples, failures }
            public init(id: String, health: String, message: String?, rateHz: Double, samples: Int, failures: Int) {
                self.id = id; self.health = health; self.message = message; self.rateHz = rateHz
                self.samples = samples; self.failures = failures
            }
        }
        /// What the simulated board really did.
        public struct Truth: Codable, Sendable, Equatable {
            public var activity: String
            public var segment: String
            public var floor: Int
            public var latDeg: Double
            public var lonDeg: Double
            public var heightM: Double
            public var headingDeg: Double
            enum CodingKeys: String, CodingKey {
                case activity, segment, floor, latDeg = "lat_deg", lonDeg = "lon_deg", heightM = "height_m", headingDeg =
                    "heading_deg"
            }
            public init(
                activity: String, segment: String, floor: Int, latDeg: Double, lonDeg: Double, heightM: Double, headingDeg: Double
            ) {
                self.activity = activity; self.segment = segment; self.floor = floor
                self.latDeg = latDeg; self.lonDeg = lonDeg; self.heightM = heightM; self.headingDeg = headingDeg
            }
        }
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", time, sensors, degraded, truth, plan }
        public init() {}
    }

    // MARK: - Scheduler

    /// `PLAN` — at every plan change: what each sensor and the receiver were told, the predicted draw, why, and what
    /// failed.
    public struct Plan: Codable, Sendable, Equatable {
        public var `class` = "PLAN"
        /// When it was applied, s.
        public var tS: Double = 0
        public var time: String?
        /// Counts plans (1 for the first).
        public var generation = 0
        public var policy = ""
        public var sensors: [Sensor] = []
        public var gnss: GNSS?
        /// Predicted mean draw of sensors and receiver, mA and mW (the energy model; 0 for chips it lacks).
        public var predictedMA = 0.0
        public var predictedMW = 0.0
        /// Why, one sentence per cause.
        public var causes: [String] = []
        public var battery = Battery()
        /// Battery tier (`critical` … `unrestricted`).
        public var tier = ""
        /// Carrier motion as the scheduler sees it (`stationary`, `walk`, …, `unknown`).
        public var motion = ""
        /// Reconfigurations of this plan that failed and were rolled back (`sensor: message`).
        public var failures: [String]?

        public struct Sensor: Codable, Sendable, Equatable {
            public var id: String
            public var enabled: Bool
            /// Output data rate asked of the chip, Hz.
            public var rateHz: Double
            /// How often the engine reads it, Hz (0 when suspended).
            public var readRateHz: Double
            /// `suspend`, `lowPower` or `normal`.
            public var powerMode: String
            public var oversampling: Int
            /// Samples batched in the FIFO between reads (omitted: no batching).
            public var fifoDepth: Int?
            /// Wake-on-motion threshold, m/s² (omitted: not armed).
            public var wakeThresholdMps2: Double?
            /// Predicted draw, mA and mW.
            public var predictedMA: Double?
            public var predictedMW: Double?
            enum CodingKeys: String, CodingKey {
                case id, enabled, rateHz = "rate_hz", readRateHz = "read_rate_hz", powerMode = "power_mode", oversampling
                case fifoDepth = "fifo_depth", wakeThresholdMps2 = "wake_threshold_mps2", predictedMA = "predicted_ma"
                case predictedMW = "predicted_mw"
            }
            public init(
                id: String, enabled: Bool, rateHz: Double, readRateHz: Double, powerMode: String, oversampling: Int,
                fifoDepth: Int?, wakeThresholdMps2: Double?, predictedMA: Double?, predictedMW: Double?
            ) {
                self.id = id; self.enabled = enabled; self.rateHz = rateHz; self.readRateHz = readRateHz
                self.powerMode = powerMode; self.oversampling = oversampling; self.fifoDepth = fifoDepth
                self.wakeThresholdMps2 = wakeThresholdMps2; self.predictedMA = predictedMA; self.predictedMW = predictedMW
            }
        }

        public struct GNSS: Codable, Sendable, Equatable {
            public var id: String
            /// `continuous`, `power-save` or `off`.
            public var mode: String
            /// Fix rate in continuous mode, Hz.
            public var rateHz: Double?
            /// Time between fixes in power-save mode, s.
            public var updatePeriodS: Double?
            /// The receiver's power state when the plan was applied (`off`, `acquiring`, `tracking`, `powerSaveIdle`).
            public var powerState: String?
            /// Predicted mean draw, mA.
            public var predictedMA: Double?
            enum CodingKeys: String, CodingKey {
                case id, mode, rateHz = "rate_hz", updatePeriodS = "update_period_s", powerState = "power_state"
                case predictedMA = "predicted_ma"
            }
            public init(
                id: String, mode: String, rateHz: Double? = nil, updatePeriodS: Double? = nil, powerState: String? = nil,
                predictedMA: Double? = nil
            ) {
                self.id = id; self.mode = mode; self.rateHz = rateHz; self.updatePeriodS = updatePeriodS
                self.powerState = powerState; self.predictedMA = predictedMA
            }
        }

        public struct Battery: Codable, Sendable, Equatable {
            /// State of charge, % (omitted: unknown or no battery).
            public var levelPercent: Double?
            /// `charging`, `discharging`, `full`, `notCharging`, `unknown`, `externalPower`.
            public var charging = "unknown"
            public var source = ""
            enum CodingKeys: String, CodingKey { case levelPercent = "level_percent", charging, source }
            public init(levelPercent: Double? = nil, charging: String = "unknown", source: String = "") {
                self.levelPercent = levelPercent; self.charging = charging; self.source = source
            }
        }

        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, generation, policy, sensors, gnss, predictedMA = "predicted_ma"
            case predictedMW = "predicted_mw", causes, battery, tier, motion, failures
        }
        public init() {}
    }

    /// The plan in brief, in every `STATUS` of a scheduled session.
    public struct PlanSummary: Codable, Sendable, Equatable {
        public var generation = 0
        public var policy = ""
        /// Predicted draw now, mA.
        public var predictedMA = 0.0
        /// Charge drawn by sensors and receiver since the start, mAh.
        public var usedMAh = 0.0
        /// The receiver's power state (omitted without a receiver that reports it).
        public var gnssState: String?
        public var motion = ""
        public var tier = ""
        /// Battery state of charge, % (omitted: unknown or no battery).
        public var batteryPercent: Double?
        enum CodingKeys: String, CodingKey {
            case generation, policy, predictedMA = "predicted_ma", usedMAh = "used_mah", gnssState = "gnss_state", motion, tier
            case batteryPercent = "battery_percent"
        }
        public init() {}
    }

    // MARK: - Fused outputs

    /// `LOCATION` — the fused location. Accuracies are 95 % radii / half-widths.
    public struct Location: Codable, Sendable, Equatable {
        public var `class` = "LOCATION"
        /// When the estimate was made, s (session clock).
        public var tS: Double = 0
        /// UTC of the estimate, when a receiver or the session knows the date.
        public var time: String?
        public var latDeg = 0.0
        public var lonDeg = 0.0
        public var altMSLM: Double?
        /// Height above the WGS84 ellipsoid, m.
        public var altHAEM: Double?
        public var horizontalAccuracyM = 0.0
        public var verticalAccuracyM: Double?
        public var speedMps: Double?
        public var speedAccuracyMps: Double?
        public var courseDeg: Double?
        public var courseAccuracyDeg: Double?
        public var climbMps: Double?
        /// `gnss`, `fused` or `dead-reckoning`.
        public var method = "gnss"
        /// Seconds since the last fix used.
        public var sinceFixS = 0.0
        /// True for a simulated receiver or a GPX playback.
        public var simulated = false
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, latDeg = "lat_deg", lonDeg = "lon_deg", altMSLM = "alt_msl_m",
                altHAEM = "alt_hae_m", horizontalAccuracyM = "h_acc_m", verticalAccuracyM = "v_acc_m",
                speedMps = "speed_mps", speedAccuracyMps = "speed_acc_mps", courseDeg = "course_deg",
                courseAccuracyDeg = "course_acc_deg", climbMps = "climb_mps", method, sinceFixS = "since_fix_s", simulated
        }
        public init() {}
    }

    /// `DELIVERY` — a location delivered to a client (after its filters), with its age and whether it is stale.
    public struct Delivery: Codable, Sendable, Equatable {
        public var `class` = "DELIVERY"
        public var tS: Double = 0
        public var time: String?
        public var location = Location()
        /// Time since the receiver fix that last informed it, s.
        public var ageS = 0.0
        /// Older than the client allows: not a current position.
        public var stale = false
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", time, location, ageS = "age_s", stale }
        public init() {}
    }

    /// `ATTITUDE` — the board's orientation: the Hamilton quaternion (scalar first) rotating board-frame vectors into
    /// East-North-Up, and the same as roll, pitch and yaw. Yaw is the heading of the board's y axis from north,
    /// clockwise (magnetic unless the session knows the declination: see HEADING for both).
    public struct Attitude: Codable, Sendable, Equatable {
        public var `class` = "ATTITUDE"
        public var tS: Double = 0
        public var time: String?
        public var qw = 1.0, qx = 0.0, qy = 0.0, qz = 0.0
        public var rollDeg = 0.0, pitchDeg = 0.0, yawDeg = 0.0
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, qw, qx, qy, qz, rollDeg = "roll_deg", pitchDeg = "pitch_deg", yawDeg = "yaw_deg"
        }
        public init() {}
    }

    /// `HEADING` — where the board's y axis points, clockwise from north: magnetic, true (omitted until the
    /// declination is known), and the accuracy (deg, 95 %; omitted when the heading is relative: no magnetometer).
    public struct Heading: Codable, Sendable, Equatable {
        public var `class` = "HEADING"
        public var tS: Double = 0
        public var time: String?
        public var magneticDeg = 0.0
        public var trueDeg: Double?
        public var accuracyDeg: Double?
        public var declinationDeg: Double?
        /// The calibrated field the heading came from, board axes, µT.
        public var fieldXMicroTesla: Double?
        public var fieldYMicroTesla: Double?
        public var fieldZMicroTesla: Double?
        /// The magnetometer needs calibrating (omitted when false).
        public var calibrationNeeded: Bool?
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, magneticDeg = "magnetic_deg", trueDeg = "true_deg", accuracyDeg = "accuracy_deg"
            case declinationDeg = "declination_deg", fieldXMicroTesla = "field_x_ut", fieldYMicroTesla = "field_y_ut"
            case fieldZMicroTesla = "field_z_ut", calibrationNeeded = "calibration_needed"
        }
        public init() {}
    }

    /// `ACTIVITY` — the carrier's activity (`stationary`, `walk`, `run`, `cycle`, `drive`, `unknown`), its confidence
    /// (`low`, `medium`, `high`) and since when (session time).
    public struct Activity: Codable, Sendable, Equatable {
        public var `class` = "ACTIVITY"
        public var tS: Double = 0
        public var time: String?
        public var activity = "unknown"
        public var confidence = "low"
        public var startTS = 0.0
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", time, activity, confidence, startTS = "start_t_s" }
        public init() {}
    }

    /// `PEDOMETER` — steps and distance since `start_t_s`, the current cadence and pace (omitted while not walking),
    /// floors climbed and descended; `event` is `pause` or `resume` when the carrier stopped or started walking.
    public struct Pedometer: Codable, Sendable, Equatable {
        public var `class` = "PEDOMETER"
        public var tS: Double = 0
        public var time: String?
        public var startTS = 0.0
        public var steps = 0
        public var distanceM = 0.0
        public var cadenceSpm: Double?
        public var paceSPerM: Double?
        public var floorsUp = 0
        public var floorsDown = 0
        public var event: String?
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, startTS = "start_t_s", steps, distanceM = "distance_m", cadenceSpm = "cadence_spm"
            case paceSPerM = "pace_s_per_m", floorsUp = "floors_up", floorsDown = "floors_down", event
        }
        public init() {}
    }

    /// `ALTITUDE` — altitude change since the session's first barometer sample (m, + up), the pressure (Pa), and the
    /// absolute altitude above mean sea level with its accuracy (m, 1σ) once known.
    public struct Altitude: Codable, Sendable, Equatable {
        public var `class` = "ALTITUDE"
        public var tS: Double = 0
        public var time: String?
        public var relativeAltitudeM: Double?
        public var pressurePa: Double?
        public var altitudeM: Double?
        public var altitudeAccuracyM: Double?
        public var verticalSpeedMps: Double?
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", time, relativeAltitudeM = "relative_altitude_m", pressurePa = "pressure_pa"
            case altitudeM = "altitude_m", altitudeAccuracyM = "altitude_accuracy_m", verticalSpeedMps = "vertical_speed_mps"
        }
        public init() {}
    }
}

/// A wire text that could not be read, or a wrong argument: one line saying what.
public struct WireError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension StringProtocol {
    /// The text without the spaces and tabs around it (what Foundation's `trimmingCharacters(in: .whitespaces)`
    /// removes: Unicode's space separators and the tab, not line breaks).
    fileprivate func trimmingHorizontalSpace() -> String {
        func isSpace(_ c: Character) -> Bool {
            c.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
